//===- TCToLLVM.cpp - convert-tc-to-llvm ----------------------------------===//
//
// The CPU's lowering of the tc ops that depend on the target:
//  * tc.kernel @k(params) -> func.func @k(%ctx: !llvm.ptr, params') where an
//    ndarray parameter becomes a pointer to the runtime's tc_ndarray (its data
//    pointer and extents are loaded once at kernel entry);
//  * tc.task @k__parN (made by tic-outline-tasks) -> llvm.func internal
//    @k__parN(closure, begin, end, tid): the context and the captures come
//    from the closure, the thread index is the runtime's;
//  * tc.launch -> a stack closure + tic_rt_parallel_for (or a direct call
//    when `serialize` is set);
//  * tc.ndarray_* -> LLVM code (NDArrayLowering.h); tc.random / tc.print /
//    tc.assert / tc.bounds_check / snode.root_ptr -> runtime calls, through
//    the CPU's TargetInfo (lowerRuntimeServices).
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/LLVMUtils.h"
#include "tic/Conversion/NDArrayLowering.h"
#include "tic/Conversion/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/RuntimeABI.h"
#include "tic/Target/TargetInfo.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_CONVERTTCTOLLVM
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

class Lowering {
public:
  Lowering(ModuleOp module, snode::SNodeLayout &layout)
      : module(module), layout(layout), ctx(module.getContext()),
        ptrTy(LLVM::LLVMPointerType::get(ctx)), converter(ctx),
        runtimeFuncs(module), target(createCPUTargetInfo(module)) {
    converter.addConversion(
        [&](snode::PtrType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
  }

  LogicalResult run();

private:
  LLVM::LLVMFuncOp runtimeFunc(StringRef name, Type result, ArrayRef<Type> args,
                               bool vararg = false) {
    return runtimeFuncs.get(name, result, args, vararg);
  }
  Value constI64(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }

  FailureOr<func::FuncOp> convertKernel(tc::KernelOp kernel);
  NDArrayInfo loadNDArray(OpBuilder &b, Location loc, Value arr,
                          tc::NDArrayType t);
  LLVM::LLVMStructType closureType(tc::TaskOp task,
                                   SmallVectorImpl<Type> &fieldTypes);
  LogicalResult lowerTask(tc::TaskOp task);
  LogicalResult lowerLaunch(tc::LaunchOp launch, func::FuncOp kernelFn,
                            Value kctx);
  void hoistAllocas(Region &body);

  ModuleOp module;
  snode::SNodeLayout &layout;
  MLIRContext *ctx;
  Type ptrTy;
  LLVMTypeConverter converter;
  RuntimeFunctions runtimeFuncs;
  std::unique_ptr<TargetInfo> target;
  /// Every generated function with where its context and thread id come
  /// from (for lowerRuntimeServices).
  SmallVector<std::pair<Operation *, FunctionEnv>> functions;
  struct LoweredTask {
    LLVM::LLVMFuncOp fn;
    LLVM::LLVMStructType closureType;
    SmallVector<Type> fieldTypes;
  };
  llvm::StringMap<LoweredTask> tasks;
};

FailureOr<func::FuncOp> Lowering::convertKernel(tc::KernelOp kernel) {
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  SmallVector<Type> inputs{ptrTy};
  for (Type t : kernel.getArgumentTypes())
    inputs.push_back(isa<tc::NDArrayType>(t) ? ptrTy : t);
  auto fn = func::FuncOp::create(
      b, loc, kernel.getSymName(),
      b.getFunctionType(inputs, kernel.getResultTypes()));
  fn.getBody().takeBody(kernel.getBody());
  Block &entry = fn.getBody().front();
  Value kctx = entry.insertArgument(0u, ptrTy, loc);

  // ndarray parameters: load the data pointer and the extents once.
  DenseMap<Value, NDArrayInfo> nd;
  OpBuilder eb = OpBuilder::atBlockBegin(&entry);
  for (BlockArgument arg : entry.getArguments().drop_front())
    if (auto t = dyn_cast<tc::NDArrayType>(arg.getType()))
      nd[arg] = loadNDArray(eb, loc, arg, t);
  if (failed(lowerNDArrayOps(fn, nd))) return failure();
  for (BlockArgument arg : entry.getArguments())
    if (isa<tc::NDArrayType>(arg.getType())) arg.setType(ptrTy);

  SmallVector<tc::ReturnOp> rets;
  fn.walk([&](tc::ReturnOp r) { rets.push_back(r); });
  for (tc::ReturnOp r : rets) {
    OpBuilder rb(r);
    func::ReturnOp::create(rb, r.getLoc(), r.getOperands());
    r.erase();
  }
  if (auto attrs = kernel.getArgAttrsAttr()) {
    SmallVector<Attribute> all{DictionaryAttr::get(ctx)};
    all.append(attrs.begin(), attrs.end());
    fn.setArgAttrsAttr(ArrayAttr::get(ctx, all));
  }
  (void)kctx;
  kernel.erase();
  return fn;
}

NDArrayInfo Lowering::loadNDArray(OpBuilder &b, Location loc, Value arr,
                                  tc::NDArrayType t) {
  NDArrayInfo info;
  info.elementType = t.getElementType();
  info.data = LLVM::LoadOp::create(b, loc, ptrTy, arr, /*alignment=*/8);
  Type ndTy = abi::ndarrayType(ctx);
  for (unsigned d = 0; d < t.getRank(); ++d) {
    Value p = LLVM::GEPOp::create(
        b, loc, ptrTy, ndTy, arr,
        ArrayRef<LLVM::GEPArg>{0, abi::kNDShape, int32_t(d)},
        LLVM::GEPNoWrapFlags::inbounds);
    info.shape.push_back(LLVM::LoadOp::create(b, loc, b.getI64Type(), p, 8));
  }
  return info;
}

/// The closure of a task: the context, then its captures (LLVM types).
LLVM::LLVMStructType Lowering::closureType(tc::TaskOp task,
                                           SmallVectorImpl<Type> &fieldTypes) {
  fieldTypes.assign({ptrTy});
  for (BlockArgument a : task.getCaptures()) {
    Type t = a.getType();
    if (isa<tc::NDArrayType>(t))
      t = ptrTy; // the tc_ndarray, as the kernel received it
    else if (!LLVM::isCompatibleType(t))
      t = converter.convertType(t);
    fieldTypes.push_back(t);
  }
  return LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);
}

/// tc.task @k__parN -> llvm.func internal @k__parN(closure, begin, end, tid):
/// the captures are loaded from the closure, the body follows.
LogicalResult Lowering::lowerTask(tc::TaskOp task) {
  Location loc = task.getLoc();
  Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
  SmallVector<Type> fieldTypes;
  auto closureTy = closureType(task, fieldTypes);
  for (auto [i, t] : llvm::enumerate(fieldTypes))
    if (!t)
      return task.emitOpError("cannot capture a value of type ")
             << task.getCaptures()[i - 1].getType();
  OpBuilder mb(task);
  auto fty = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                         {ptrTy, i64, i64, i32});
  auto fn = LLVM::LLVMFuncOp::create(mb, loc, task.getSymName(), fty,
                                     LLVM::Linkage::Internal);
  Block *entry = fn.addEntryBlock(mb);
  Value closure = entry->getArgument(0), tid = entry->getArgument(3);
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  auto loadField = [&](unsigned i) -> Value {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, closureTy, closure,
                                  ArrayRef<LLVM::GEPArg>{0, int32_t(i)},
                                  LLVM::GEPNoWrapFlags::inbounds);
    return LLVM::LoadOp::create(b, loc, fieldTypes[i], p);
  };
  Value bctx = loadField(0);
  Block &body = task.getBody().front();
  body.getArgument(0).replaceAllUsesWith(entry->getArgument(1));
  body.getArgument(1).replaceAllUsesWith(entry->getArgument(2));
  DenseMap<Value, NDArrayInfo> nd;
  for (auto [i, a] : llvm::enumerate(task.getCaptures())) {
    Value x = loadField(i + 1);
    if (auto t = dyn_cast<tc::NDArrayType>(a.getType())) {
      // Its data pointer and extents, loaded once per task instance.
      nd[a] = loadNDArray(b, loc, x, t);
      continue;
    }
    if (x.getType() != a.getType())
      x = UnrealizedConversionCastOp::create(b, loc, a.getType(), x)
              .getResult(0);
    a.replaceAllUsesWith(x);
  }
  entry->getOperations().splice(entry->end(), body.getOperations());
  auto ret = cast<tc::ReturnOp>(entry->getTerminator());
  OpBuilder rb(ret);
  LLVM::ReturnOp::create(rb, ret.getLoc(), ValueRange{});
  ret.erase();
  if (failed(lowerNDArrayOps(fn, nd)))
    return failure();
  tasks[task.getSymName()] = {fn, closureTy, fieldTypes};
  FunctionEnv env;
  env.context = bctx;
  env.threadId = tid;
  functions.push_back({fn, env});
  task.erase();
  return success();
}

/// tc.launch -> a stack closure (context and captures) and
/// tic_rt_parallel_for over [0, total), or a direct call for `serialize`.
LogicalResult Lowering::lowerLaunch(tc::LaunchOp launch, func::FuncOp kernelFn,
                                    Value kctx) {
  Location loc = launch.getLoc();
  Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
  auto it = tasks.find(launch.getTask());
  if (it == tasks.end())
    return launch.emitOpError("references unknown task ")
           << launch.getTaskAttr();
  LoweredTask &t = it->second;
  OpBuilder ab = OpBuilder::atBlockBegin(&kernelFn.getBody().front());
  Value cnt = LLVM::ConstantOp::create(ab, loc, i64, ab.getI64IntegerAttr(1));
  Value clos = LLVM::AllocaOp::create(ab, loc, ptrTy, t.closureType, cnt, 8);
  OpBuilder kb(launch);
  auto storeField = [&](unsigned i, Value v) {
    if (v.getType() != t.fieldTypes[i])
      v = UnrealizedConversionCastOp::create(kb, loc, t.fieldTypes[i], v)
              .getResult(0);
    Value p = LLVM::GEPOp::create(kb, loc, ptrTy, t.closureType, clos,
                                  ArrayRef<LLVM::GEPArg>{0, int32_t(i)},
                                  LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(kb, loc, v, p);
  };
  storeField(0, kctx);
  for (auto [i, v] : llvm::enumerate(launch.getCaptures()))
    storeField(i + 1, v);
  Value kzero = constI64(kb, loc, 0);
  if (launch.getSerialize()) {
    Value t0 = arith::ConstantIntOp::create(kb, loc, i32, 0);
    LLVM::CallOp::create(kb, loc, t.fn,
                         ValueRange{clos, kzero, launch.getTotal(), t0});
  } else {
    Value grain =
        constI64(kb, loc, launch.getGrain() ? int64_t(*launch.getGrain()) : 0);
    Value fnPtr = LLVM::AddressOfOp::create(kb, loc, ptrTy, t.fn.getSymName());
    auto rt = runtimeFunc("tic_rt_parallel_for", LLVM::LLVMVoidType::get(ctx),
                          {ptrTy, i64, i64, i64, ptrTy, ptrTy});
    LLVM::CallOp::create(
        kb, loc, rt,
        ValueRange{kctx, kzero, launch.getTotal(), grain, fnPtr, clos});
  }
  launch.erase();
  return success();
}

void Lowering::hoistAllocas(Region &body) {
  if (body.empty()) return;
  Block &entry = body.front();
  SmallVector<memref::AllocaOp> allocas;
  body.walk([&](memref::AllocaOp a) {
    if (a->getBlock() != &entry && a.getDynamicSizes().empty() &&
        a.getSymbolOperands().empty())
      allocas.push_back(a);
  });
  for (memref::AllocaOp a : allocas) a->moveBefore(&entry, entry.begin());
}

LogicalResult Lowering::run() {
  // Preconditions.
  WalkResult w = module.walk([&](Operation *op) {
    if (isa<tc::StructForOp>(op)) {
      op->emitOpError("must be lowered by tic-lower-struct-for first");
      return WalkResult::interrupt();
    }
    if (isa<tc::ParallelForOp>(op)) {
      op->emitOpError("must be outlined by tic-outline-tasks first");
      return WalkResult::interrupt();
    }
    if (isa<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp>(op)) {
      op->emitOpError("must be lowered by tic-lower-field-access first");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (w.wasInterrupted()) return failure();

  SmallVector<tc::TaskOp> taskOps(module.getOps<tc::TaskOp>());
  for (tc::TaskOp t : taskOps)
    if (failed(lowerTask(t)))
      return failure();
  SmallVector<tc::KernelOp> kernels(module.getOps<tc::KernelOp>());
  for (tc::KernelOp k : kernels) {
    FailureOr<func::FuncOp> fn = convertKernel(k);
    if (failed(fn)) return failure();
    Value kctx = fn->getBody().front().getArgument(0);
    OpBuilder eb = OpBuilder::atBlockBegin(&fn->getBody().front());
    Value tid0 = arith::ConstantIntOp::create(eb, fn->getLoc(), eb.getI32Type(), 0);
    SmallVector<tc::LaunchOp> launches;
    fn->walk([&](tc::LaunchOp l) { launches.push_back(l); });
    for (tc::LaunchOp l : launches)
      if (failed(lowerLaunch(l, *fn, kctx)))
        return failure();
    FunctionEnv env;
    env.context = kctx;
    env.threadId = tid0;
    functions.push_back({*fn, env});
  }
  for (auto &[fn, env] : functions) {
    hoistAllocas(fn->getRegion(0));
    if (failed(lowerRuntimeServices(fn, *target, env, layout)))
      return failure();
  }
  // Anything left outside kernels is an error.
  w = module.walk([&](Operation *op) {
    if (isa<tc::TCDialect>(op->getDialect()) || isa<snode::RootPtrOp>(op)) {
      op->emitOpError("cannot be lowered outside a tc.kernel");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(w.wasInterrupted());
}

struct ConvertTCToLLVMPass
    : tic::impl::ConvertTCToLLVMBase<ConvertTCToLLVMPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    Lowering lowering(module, layout);
    if (failed(lowering.run())) signalPassFailure();
  }
};
} // namespace

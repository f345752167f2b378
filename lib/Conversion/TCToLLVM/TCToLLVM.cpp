//===- TCToLLVM.cpp - convert-tc-to-llvm ----------------------------------===//
//
// The CPU's lowering of the tc ops that depend on the target, as two pattern
// sets applied one after the other:
//  1. functions (populateTCToLLVMFunctionPatterns):
//     * tc.kernel @k(params) -> func.func @k(%ctx: !llvm.ptr, params') where
//       an ndarray parameter is a pointer to the runtime's tc_ndarray, whose
//       data pointer and extents are loaded once at entry (a descriptor);
//     * tc.task @k__parN (made by tic-outline-tasks) -> llvm.func internal
//       @k__parN(closure, begin, end, tid): the context and the captures
//       (an ndarray as its data pointer and extents) come from the closure,
//       the thread index is the runtime's;
//     * tc.return -> func.return / llvm.return;
//  2. what is inside them: tc.launch -> a stack closure +
//     tic_rt_parallel_for, or a direct call when `serialize` is set
//     (populateTCToLLVMLaunchPatterns); tc.random / tc.print / tc.assert /
//     tc.bounds_check / snode.root_ptr through the CPU's TargetInfo, and
//     tc.ndarray_* on descriptors (populateTCRuntimeToLLVMPatterns, shared
//     with CUDA).
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/TCToLLVM.h"
#include "tic/Conversion/LLVMUtils.h"
#include "tic/Conversion/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/RuntimeABI.h"
#include "tic/Target/TargetInfo.h"

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

/// The descriptor of the tc_ndarray `arr` points to: its data pointer and
/// extents, loaded.
Value loadNDArray(OpBuilder &b, Location loc, Value arr, tc::NDArrayType t) {
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value data = LLVM::LoadOp::create(b, loc, ptrTy, arr, /*alignment=*/8);
  Type ndTy = abi::ndarrayType(b.getContext());
  SmallVector<Value> extents;
  for (unsigned d = 0; d < t.getRank(); ++d) {
    Value p = LLVM::GEPOp::create(
        b, loc, ptrTy, ndTy, arr,
        ArrayRef<LLVM::GEPArg>{0, abi::kNDShape, int32_t(d)},
        LLVM::GEPNoWrapFlags::inbounds);
    extents.push_back(LLVM::LoadOp::create(b, loc, b.getI64Type(), p, 8));
  }
  return createNDArrayDescriptor(b, loc, t, data, extents);
}

/// The fields of a task's closure: the context, then each capture (an
/// ndarray as its data pointer and extents; other types converted to LLVM).
FailureOr<LLVM::LLVMStructType> closureType(const LLVMTypeConverter &converter,
                                            TypeRange captures,
                                            SmallVectorImpl<Type> &fields,
                                            Operation *where) {
  MLIRContext *ctx = &converter.getContext();
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  fields.assign({ptrTy});
  for (Type t : captures) {
    if (auto nd = dyn_cast<tc::NDArrayType>(t)) {
      fields.push_back(ptrTy);
      fields.append(nd.getRank(), IntegerType::get(ctx, 64));
      continue;
    }
    Type f = LLVM::isCompatibleType(t) ? t : converter.convertType(t);
    if (!f)
      return where->emitOpError("cannot capture a value of type ") << t;
    fields.push_back(f);
  }
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

/// Moves the body of `from` (a tc.kernel or tc.task) into `to`, whose entry
/// block has been built: the old entry is merged into it with `args` for its
/// arguments, the other blocks follow.
void moveBody(ConversionPatternRewriter &rewriter, Region &from,
              FunctionOpInterface to, ValueRange args) {
  Block *entry = &to.getFunctionBody().front();
  Block *oldEntry = &from.front();
  rewriter.inlineRegionBefore(from, to.getFunctionBody(),
                              to.getFunctionBody().end());
  rewriter.mergeBlocks(oldEntry, entry, args);
}

struct KernelLowering : OpConversionPattern<tc::KernelOp> {
  KernelLowering(const LLVMTypeConverter &converter, FunctionEnvs &envs)
      : OpConversionPattern(&converter.getContext()), envs(envs) {}
  FunctionEnvs &envs;

  LogicalResult
  matchAndRewrite(tc::KernelOp kernel, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = kernel.getLoc();
    MLIRContext *ctx = getContext();
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    SmallVector<Type> inputs{ptrTy};
    SmallVector<Location> locs{loc};
    for (BlockArgument a : kernel.getArguments()) {
      inputs.push_back(isa<tc::NDArrayType>(a.getType()) ? ptrTy : a.getType());
      locs.push_back(a.getLoc());
    }
    auto fn = func::FuncOp::create(
        rewriter, loc, kernel.getSymName(),
        rewriter.getFunctionType(inputs, kernel.getResultTypes()));
    if (auto attrs = kernel.getArgAttrsAttr()) {
      SmallVector<Attribute> all{DictionaryAttr::get(ctx)};
      all.append(attrs.begin(), attrs.end());
      fn.setArgAttrsAttr(ArrayAttr::get(ctx, all));
    }
    Block *entry = rewriter.createBlock(&fn.getBody(), {}, inputs, locs);
    FunctionEnv env;
    env.context = entry->getArgument(0);
    env.threadId =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 0);
    // ndarray parameters: the data pointer and the extents, loaded once.
    SmallVector<Value> args;
    for (BlockArgument a : entry->getArguments().drop_front()) {
      auto t =
          dyn_cast<tc::NDArrayType>(kernel.getArgumentTypes()[args.size()]);
      args.push_back(t ? loadNDArray(rewriter, loc, a, t) : Value(a));
    }
    envs.set(fn, env);
    moveBody(rewriter, kernel.getBody(), fn, args);
    rewriter.eraseOp(kernel);
    return success();
  }
};

/// tc.task @k__parN -> llvm.func internal @k__parN(closure, begin, end, tid):
/// the captures are loaded from the closure, the body follows.
struct TaskLowering : OpConversionPattern<tc::TaskOp> {
  TaskLowering(const LLVMTypeConverter &converter, FunctionEnvs &envs)
      : OpConversionPattern(&converter.getContext()), converter(converter),
        envs(envs) {}
  const LLVMTypeConverter &converter;
  FunctionEnvs &envs;

  LogicalResult
  matchAndRewrite(tc::TaskOp task, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = task.getLoc();
    MLIRContext *ctx = getContext();
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    Type i64 = rewriter.getI64Type(), i32 = rewriter.getI32Type();
    SmallVector<Type> fields;
    auto closureTy = closureType(
        converter, TypeRange(ValueRange(task.getCaptures())), fields, task);
    if (failed(closureTy))
      return failure();
    auto fty = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                           {ptrTy, i64, i64, i32});
    auto fn = LLVM::LLVMFuncOp::create(rewriter, loc, task.getSymName(), fty,
                                       LLVM::Linkage::Internal);
    Block *entry =
        rewriter.createBlock(&fn.getBody(), {}, {ptrTy, i64, i64, i32},
                             SmallVector<Location>(4, loc));
    Value closure = entry->getArgument(0);
    unsigned next = 0;
    auto loadField = [&]() -> Value {
      unsigned i = next++;
      Value p = LLVM::GEPOp::create(rewriter, loc, ptrTy, *closureTy, closure,
                                    ArrayRef<LLVM::GEPArg>{0, int32_t(i)},
                                    LLVM::GEPNoWrapFlags::inbounds);
      return LLVM::LoadOp::create(rewriter, loc, fields[i], p);
    };
    FunctionEnv env;
    env.context = loadField();
    env.threadId = entry->getArgument(3);
    SmallVector<Value> args{entry->getArgument(1), entry->getArgument(2)};
    for (BlockArgument a : task.getCaptures()) {
      Value x = loadField();
      if (auto t = dyn_cast<tc::NDArrayType>(a.getType())) {
        SmallVector<Value> extents;
        for (unsigned d = 0; d < t.getRank(); ++d)
          extents.push_back(loadField());
        x = createNDArrayDescriptor(rewriter, loc, t, x, extents);
      } else if (x.getType() != a.getType()) {
        x = UnrealizedConversionCastOp::create(rewriter, loc, a.getType(), x)
                .getResult(0);
      }
      args.push_back(x);
    }
    envs.set(fn, env);
    moveBody(rewriter, task.getBody(), fn, args);
    rewriter.eraseOp(task);
    return success();
  }
};

/// tc.return -> the return of the function it ended up in.
struct ReturnLowering : OpConversionPattern<tc::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tc::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *fn = op->getParentOp();
    if (isa<func::FuncOp>(fn))
      rewriter.replaceOpWithNewOp<func::ReturnOp>(op, adaptor.getOperands());
    else if (isa<LLVM::LLVMFuncOp>(fn))
      rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, adaptor.getOperands());
    else
      return rewriter.notifyMatchFailure(op, "not in a lowered function");
    return success();
  }
};

/// tc.launch -> a stack closure (context and captures) and
/// tic_rt_parallel_for over [0, total), or a direct call for `serialize`.
struct LaunchLowering : OpConversionPattern<tc::LaunchOp> {
  LaunchLowering(const LLVMTypeConverter &converter, const FunctionEnvs &envs)
      : OpConversionPattern(&converter.getContext()), converter(converter),
        envs(envs), runtimeFuncs(nullptr) {}
  const LLVMTypeConverter &converter;
  const FunctionEnvs &envs;
  mutable std::unique_ptr<RuntimeFunctions> runtimeFuncs;

  LogicalResult
  matchAndRewrite(tc::LaunchOp launch, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = launch.getLoc();
    MLIRContext *ctx = getContext();
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    Type i64 = rewriter.getI64Type(), i32 = rewriter.getI32Type();
    const FunctionEnv *env = envs.lookup(launch);
    if (!env)
      return launch.emitOpError("is not inside a lowered kernel");
    SmallVector<Type> fields;
    auto closureTy =
        closureType(converter, TypeRange(launch.getCaptures()), fields, launch);
    if (failed(closureTy))
      return failure();
    Value clos;
    {
      OpBuilder::InsertionGuard g(rewriter);
      Operation *fn =
          launch->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
      rewriter.setInsertionPointToStart(&fn->getRegion(0).front());
      Value one = LLVM::ConstantOp::create(rewriter, loc, i64,
                                           rewriter.getI64IntegerAttr(1));
      clos = LLVM::AllocaOp::create(rewriter, loc, ptrTy, *closureTy, one, 8);
    }
    unsigned next = 0;
    auto storeField = [&](Value v) {
      unsigned i = next++;
      if (v.getType() != fields[i])
        v = UnrealizedConversionCastOp::create(rewriter, loc, fields[i], v)
                .getResult(0);
      Value p = LLVM::GEPOp::create(rewriter, loc, ptrTy, *closureTy, clos,
                                    ArrayRef<LLVM::GEPArg>{0, int32_t(i)},
                                    LLVM::GEPNoWrapFlags::inbounds);
      LLVM::StoreOp::create(rewriter, loc, v, p);
    };
    storeField(env->context);
    for (Value v : adaptor.getCaptures()) {
      if (isa<tc::NDArrayType>(v.getType())) {
        std::optional<NDArrayParts> nd = getNDArrayParts(v);
        if (!nd)
          return launch.emitOpError(
              "captures an ndarray that is not a kernel parameter");
        storeField(nd->data);
        for (Value e : nd->extents)
          storeField(e);
        continue;
      }
      storeField(v);
    }
    Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
    Value total = adaptor.getTotal();
    if (launch.getSerialize()) {
      Value t0 = arith::ConstantIntOp::create(rewriter, loc, i32, 0);
      auto fty = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                             {ptrTy, i64, i64, i32});
      LLVM::CallOp::create(rewriter, loc, fty, launch.getTaskAttr(),
                           ValueRange{clos, zero, total, t0});
    } else {
      std::optional<uint64_t> g = launch.getGrain();
      Value grain =
          arith::ConstantIntOp::create(rewriter, loc, i64, g ? int64_t(*g) : 0);
      Value fnPtr =
          LLVM::AddressOfOp::create(rewriter, loc, ptrTy, launch.getTask());
      if (!runtimeFuncs)
        runtimeFuncs = std::make_unique<RuntimeFunctions>(
            launch->getParentOfType<ModuleOp>());
      auto rt =
          runtimeFuncs->get("tic_rt_parallel_for", LLVM::LLVMVoidType::get(ctx),
                            {ptrTy, i64, i64, i64, ptrTy, ptrTy});
      LLVM::CallOp::create(
          rewriter, loc, rt,
          ValueRange{env->context, zero, total, grain, fnPtr, clos});
    }
    rewriter.eraseOp(launch);
    return success();
  }
};

/// Locals declared in nested blocks are allocated once, at entry.
void hoistAllocas(Region &body) {
  if (body.empty())
    return;
  Block &entry = body.front();
  SmallVector<memref::AllocaOp> allocas;
  body.walk([&](memref::AllocaOp a) {
    if (a->getBlock() != &entry && a.getDynamicSizes().empty() &&
        a.getSymbolOperands().empty())
      allocas.push_back(a);
  });
  for (memref::AllocaOp a : allocas)
    a->moveBefore(&entry, entry.begin());
}

struct ConvertTCToLLVMPass
    : tic::impl::ConvertTCToLLVMBase<ConvertTCToLLVMPass> {
  using Base::Base;
  void runOnOperation() override;
};

void ConvertTCToLLVMPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  snode::SNodeLayout layout(module);
  if (failed(layout.checkAllocated()))
    return signalPassFailure();
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
  if (w.wasInterrupted())
    return signalPassFailure();
  for (Operation &op : module.getBody()->getOperations())
    if (isa<tc::KernelOp, tc::TaskOp>(op))
      hoistAllocas(op.getRegion(0));

  LLVMTypeConverter converter(ctx);
  converter.addConversion([ctx](snode::PtrType) -> Type {
    return LLVM::LLVMPointerType::get(ctx);
  });
  FunctionEnvs envs;
  {
    ConversionTarget target(*ctx);
    target.addIllegalOp<tc::KernelOp, tc::TaskOp, tc::ReturnOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTCToLLVMFunctionPatterns(converter, patterns, envs);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
  std::unique_ptr<TargetInfo> cpu = createCPUTargetInfo(module);
  {
    ConversionTarget target(*ctx);
    addTCRuntimeIllegalOps(target);
    target.addIllegalOp<tc::LaunchOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTCToLLVMLaunchPatterns(converter, patterns, envs);
    populateTCRuntimeToLLVMPatterns(patterns, *cpu, envs, layout);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
  // The descriptors no access needed any more.
  module.walk([](UnrealizedConversionCastOp c) {
    if (c->use_empty() && getNDArrayParts(c.getResult(0)))
      c.erase();
  });
  // Anything left outside kernels is an error.
  w = module.walk([&](Operation *op) {
    if (isa<tc::TCDialect>(op->getDialect()) || isa<snode::RootPtrOp>(op)) {
      op->emitOpError("cannot be lowered outside a tc.kernel");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (w.wasInterrupted())
    return signalPassFailure();
  snode::eraseLayoutIfUnused(module);
}
} // namespace

void tic::populateTCToLLVMFunctionPatterns(const LLVMTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           FunctionEnvs &envs) {
  patterns.add<KernelLowering, TaskLowering>(converter, envs);
  patterns.add<ReturnLowering>(patterns.getContext());
}

void tic::populateTCToLLVMLaunchPatterns(const LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         const FunctionEnvs &envs) {
  patterns.add<LaunchLowering>(converter, envs);
}

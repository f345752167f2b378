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
#include "tic/Dialect/AD/ADDialect.h"
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
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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
/// tic_rt_parallel_for over [0, total), or a direct call for `serialize`;
/// a launch with a `limit` stops the range there. With a CUDA device
/// (`cuda` set): when the context is on one, a call of tic_rt_cuda_launch
/// instead (which ignores the limit: the device threads stop themselves).
struct LaunchLowering : OpConversionPattern<tc::LaunchOp> {
  LaunchLowering(const LLVMTypeConverter &converter, const FunctionEnvs &envs,
                 const CUDALaunches *cuda)
      : OpConversionPattern(&converter.getContext()), converter(converter),
        envs(envs), cuda(cuda), runtimeFuncs(nullptr) {}
  const LLVMTypeConverter &converter;
  const FunctionEnvs &envs;
  const CUDALaunches *cuda;
  mutable std::unique_ptr<RuntimeFunctions> runtimeFuncs;
  mutable std::unique_ptr<GlobalStrings> strings;

  RuntimeFunctions &rt(Operation *op) const {
    if (!runtimeFuncs)
      runtimeFuncs =
          std::make_unique<RuntimeFunctions>(op->getParentOfType<ModuleOp>());
    return *runtimeFuncs;
  }

  /// An alloca of `t` at the entry of the function holding `op`.
  static Value entryAlloca(OpBuilder &b, Operation *op, Type t) {
    OpBuilder::InsertionGuard g(b);
    Operation *fn = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
    b.setInsertionPointToStart(&fn->getRegion(0).front());
    Location loc = op->getLoc();
    Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                         b.getI64IntegerAttr(1));
    return LLVM::AllocaOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), t, one, 8);
  }

  /// The launch on a CUDA device: the task's kernel in the module's PTX
  /// (convert-tc-to-gpu: parameters root, captures, total[, seed]).
  LogicalResult buildCUDALaunch(tc::LaunchOp launch, OpAdaptor adaptor,
                                OpBuilder &b, Value context) const;

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
    // (A host_only launch runs on CPU contexts only: the device module has
    // no kernel for its task.)
    if (cuda && !launch.getHostOnly()) {
      // if (tic_rt_on_device(ctx)) <CUDA launch> else <CPU launch>
      auto onDevice = rt(launch).get("tic_rt_on_device", i32, {ptrTy});
      Value on = LLVM::CallOp::create(rewriter, loc, onDevice,
                                      ValueRange{env->context})
                     .getResult();
      Value zero32 = arith::ConstantIntOp::create(rewriter, loc, i32, 0);
      Value cond = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::ne, on, zero32);
      auto ifOp = scf::IfOp::create(rewriter, loc, cond, /*withElse=*/true);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      if (failed(buildCUDALaunch(launch, adaptor, rewriter, env->context)))
        return failure();
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
    }
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
    if (Value stop = launch.getLimitValue()) {
      // Memory the host reads: the launch runs the iterations before the
      // loop's limit only, and the threads share those (the task still
      // stops itself; that costs it one evaluation).
      Block &lb = launch.getLimit().front();
      Operation *yield = lb.getTerminator();
      rewriter.inlineBlockBefore(&lb, rewriter.getInsertionBlock(),
                                 rewriter.getInsertionPoint());
      total = arith::MinSIOp::create(rewriter, loc, total, stop);
      rewriter.eraseOp(yield);
    }
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
      auto pf =
          rt(launch).get("tic_rt_parallel_for", LLVM::LLVMVoidType::get(ctx),
                         {ptrTy, i64, i64, i64, ptrTy, ptrTy});
      LLVM::CallOp::create(
          rewriter, loc, pf,
          ValueRange{env->context, zero, total, grain, fnPtr, clos});
    }
    rewriter.eraseOp(launch);
    return success();
  }
};

LogicalResult LaunchLowering::buildCUDALaunch(tc::LaunchOp launch,
                                              OpAdaptor adaptor, OpBuilder &b,
                                              Value context) const {
  Location loc = launch.getLoc();
  MLIRContext *ctx = getContext();
  auto module = launch->getParentOfType<ModuleOp>();
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto cst64 = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v))
        .getResult();
  };
  // One slot per kernel parameter, in convert-tc-to-gpu's order.
  SmallVector<Value> slots;
  auto param = [&](Value v) {
    Value slot = entryAlloca(b, launch, v.getType());
    LLVM::StoreOp::create(b, loc, v, slot);
    slots.push_back(slot);
    return slot;
  };
  // Host memory the kernel reads or writes: (host pointer, bytes, slot).
  SmallVector<std::tuple<Value, Value, Value>> stages;
  auto rootFn = rt(launch).get("tic_rt_root", ptrTy, {ptrTy});
  param(LLVM::CallOp::create(b, loc, rootFn, ValueRange{context}).getResult());
  auto bytesOf = [&](Type t) -> int64_t {
    return (int64_t(t.getIntOrFloatBitWidth()) + 7) / 8;
  };
  for (auto [orig, v] :
       llvm::zip_equal(launch.getCaptures(), adaptor.getCaptures())) {
    Type t = orig.getType();
    if (auto nd = dyn_cast<tc::NDArrayType>(t)) {
      std::optional<NDArrayParts> parts = getNDArrayParts(v);
      if (!parts)
        return launch.emitOpError(
            "captures an ndarray that is not a kernel parameter");
      Value bytes = cst64(bytesOf(nd.getElementType()));
      for (Value e : parts->extents)
        bytes = LLVM::MulOp::create(b, loc, bytes, e);
      Value slot = param(parts->data);
      stages.push_back({parts->data, bytes, slot});
      for (Value e : parts->extents)
        param(e);
      continue;
    }
    if (auto mt = dyn_cast<MemRefType>(t)) {
      // A kernel-scope variable (a reduction's accumulator, a local the
      // loop reads): its bare pointer, staged.
      if (!mt.hasStaticShape() || !mt.getLayout().isIdentity() ||
          !mt.getElementType().isIntOrFloat())
        return launch.emitOpError("captures a ")
               << t << ", which is not supported with --target=cuda yet";
      Type descTy = converter.convertType(t);
      Value desc =
          UnrealizedConversionCastOp::create(b, loc, descTy, v).getResult(0);
      Value aligned = LLVM::ExtractValueOp::create(b, loc, desc, 1);
      Value slot = param(aligned);
      stages.push_back(
          {aligned, cst64(mt.getNumElements() * bytesOf(mt.getElementType())),
           slot});
      continue;
    }
    if (isa<snode::PtrType>(t)) {
      param(UnrealizedConversionCastOp::create(b, loc, ptrTy, v).getResult(0));
      continue;
    }
    if (isa<LLVM::LLVMPointerType>(t)) {
      // An address in field memory (an active-cell list, a pool's
      // elements): a device address on a device context.
      param(v);
      continue;
    }
    if (!t.isIntOrFloat())
      return launch.emitOpError("captures a value of type ")
             << t << ", which is not supported with --target=cuda yet";
    param(v);
  }
  param(adaptor.getTotal());
  bool random = cuda->usesRandom.contains(launch.getTask());
  if (random)
    param(cst64(0)); // tic_rt_cuda_launch stores the seed
  // void *params[] = {&slot0, &slot1, ...}
  auto paramsTy = LLVM::LLVMArrayType::get(ptrTy, slots.size());
  Value params = entryAlloca(b, launch, paramsTy);
  for (auto [i, slot] : llvm::enumerate(slots)) {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, paramsTy, params,
                                  ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
    LLVM::StoreOp::create(b, loc, slot, p);
  }
  Value stageArr = LLVM::ZeroOp::create(b, loc, ptrTy);
  if (!stages.empty()) {
    auto stageTy = abi::cudaStageType(ctx);
    auto arrTy = LLVM::LLVMArrayType::get(stageTy, stages.size());
    stageArr = entryAlloca(b, launch, arrTy);
    for (auto [i, st] : llvm::enumerate(stages)) {
      auto [host, bytes, slot] = st;
      Value members[] = {host, bytes, slot};
      for (auto [k, v] : llvm::enumerate(members)) {
        Value p = LLVM::GEPOp::create(
            b, loc, ptrTy, arrTy, stageArr,
            ArrayRef<LLVM::GEPArg>{0, int32_t(i), int32_t(k)});
        LLVM::StoreOp::create(b, loc, v, p);
      }
    }
  }
  // static const tic_rt_cuda_kernel desc = {"k__parN", flags, block_dim};
  std::string descName = ("__tic_cuda_kernel_" + launch.getTask()).str();
  if (!module.lookupSymbol(descName)) {
    if (!strings)
      strings = std::make_unique<GlobalStrings>(module, "__tic_cuda_name_");
    auto kTy = abi::cudaKernelType(ctx);
    auto gb = OpBuilder::atBlockBegin(module.getBody());
    auto g = LLVM::GlobalOp::create(gb, loc, kTy, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, descName,
                                    Attribute(), 8);
    Block *init = new Block();
    g.getInitializerRegion().push_back(init);
    OpBuilder ib = OpBuilder::atBlockEnd(init);
    Value d = LLVM::UndefOp::create(ib, loc, kTy);
    d = LLVM::InsertValueOp::create(ib, loc, d,
                                    strings->get(ib, loc, launch.getTask()),
                                    ArrayRef<int64_t>{0});
    auto c32 = [&](int64_t v) {
      return LLVM::ConstantOp::create(ib, loc, i32, ib.getI32IntegerAttr(v));
    };
    int32_t flags =
        (random ? TIC_RT_CUDA_RANDOM : 0) |
        (launch.getSerialize() ? TIC_RT_CUDA_SERIAL : 0) |
        (cuda->checked.contains(launch.getTask()) ? TIC_RT_CUDA_CHECKED : 0) |
        (cuda->frees.contains(launch.getTask()) ? TIC_RT_CUDA_FREES : 0) |
        (cuda->blocks.contains(launch.getTask()) ? TIC_RT_CUDA_BLOCKS : 0);
    d = LLVM::InsertValueOp::create(ib, loc, d, c32(flags),
                                    ArrayRef<int64_t>{1});
    std::optional<uint32_t> blockDim = launch.getBlockDim();
    d = LLVM::InsertValueOp::create(ib, loc, d, c32(blockDim ? *blockDim : 0),
                                    ArrayRef<int64_t>{2});
    LLVM::ReturnOp::create(ib, loc, d);
  }
  Value desc = LLVM::AddressOfOp::create(b, loc, ptrTy, descName);
  auto launchFn =
      rt(launch).get("tic_rt_cuda_launch", LLVM::LLVMVoidType::get(ctx),
                     {ptrTy, ptrTy, ptrTy, i32, i64, ptrTy, i32});
  Value n =
      LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(slots.size()));
  Value m =
      LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(stages.size()));
  LLVM::CallOp::create(
      b, loc, launchFn,
      ValueRange{context, desc, params, n, adaptor.getTotal(), stageArr, m});
  return success();
}

/// The runtime call of host code's field memory ops (its arguments after the
/// context): tc.field_copy -> tic_rt_field_read / tic_rt_field_write.
std::pair<StringRef, SmallVector<Value>>
fieldMemoryCall(tc::FieldCopyOp op, tc::FieldCopyOp::Adaptor adaptor,
                OpBuilder &b) {
  Value bytes = LLVM::ConstantOp::create(b, op.getLoc(), b.getI64Type(),
                                         op.getBytesAttr());
  return {op.getToField() ? "tic_rt_field_write" : "tic_rt_field_read",
          {adaptor.getDst(), adaptor.getSrc(), bytes}};
}
/// tc.field_fill -> tic_rt_field_fill.
std::pair<StringRef, SmallVector<Value>>
fieldMemoryCall(tc::FieldFillOp, tc::FieldFillOp::Adaptor adaptor,
                OpBuilder &) {
  return {"tic_rt_field_fill",
          {adaptor.getDst(), adaptor.getValue(), adaptor.getLen()}};
}

/// tc.field_copy / tc.field_fill -> a call of the runtime with the function's
/// context (fieldMemoryCall).
template <typename Op> struct FieldMemoryLowering : OpConversionPattern<Op> {
  FieldMemoryLowering(MLIRContext *ctx, const FunctionEnvs &envs)
      : OpConversionPattern<Op>(ctx), envs(envs) {}
  const FunctionEnvs &envs;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionEnv *env = envs.lookup(op);
    if (!env || !env->context)
      return op.emitOpError("is not inside a lowered kernel");
    auto [name, args] = fieldMemoryCall(op, adaptor, rewriter);
    args.insert(args.begin(), env->context);
    SmallVector<Type> types;
    for (Value a : args)
      types.push_back(a.getType());
    auto fn =
        declareRuntimeFunc(op->template getParentOfType<ModuleOp>(), name,
                           LLVM::LLVMVoidType::get(op.getContext()), types);
    rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, fn, args);
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

/// Block loops on one thread (a CPU runs each iteration of a parallel loop
/// on one): tc.block_for in order, tc.block_buffer on the stack (at entry,
/// by hoistAllocas).
void lowerBlockLoopsSerially(Operation *root) {
  SmallVector<tc::BlockBufferOp> buffers;
  SmallVector<tc::BlockForOp> loops;
  root->walk([&](Operation *op) {
    if (auto buf = dyn_cast<tc::BlockBufferOp>(op))
      buffers.push_back(buf);
    else if (auto loop = dyn_cast<tc::BlockForOp>(op))
      loops.push_back(loop);
  });
  for (tc::BlockBufferOp buf : buffers) {
    OpBuilder b(buf);
    Value a = memref::AllocaOp::create(b, buf.getLoc(), buf.getType());
    buf.getBuffer().replaceAllUsesWith(a);
    buf.erase();
    // The thread's own memory: its additions need no atomics.
    for (Operation *user : llvm::make_early_inc_range(a.getUsers())) {
      auto rmw = dyn_cast<memref::AtomicRMWOp>(user);
      if (!rmw || (rmw.getKind() != arith::AtomicRMWKind::addf &&
                   rmw.getKind() != arith::AtomicRMWKind::addi))
        continue;
      OpBuilder rb(rmw);
      Location loc = rmw.getLoc();
      Value old = memref::LoadOp::create(rb, loc, a, rmw.getIndices());
      Value sum =
          rmw.getKind() == arith::AtomicRMWKind::addf
              ? Value(arith::AddFOp::create(rb, loc, old, rmw.getValue()))
              : Value(arith::AddIOp::create(rb, loc, old, rmw.getValue()));
      memref::StoreOp::create(rb, loc, sum, a, rmw.getIndices());
      rmw.getResult().replaceAllUsesWith(old);
      rmw.erase();
    }
  }
  for (tc::BlockForOp loop : loops) {
    OpBuilder b(loop);
    Type i32 = b.getI32Type();
    Value zero = arith::ConstantIntOp::create(b, loop.getLoc(), i32, 0);
    Value one = arith::ConstantIntOp::create(b, loop.getLoc(), i32, 1);
    lowerBlockFor(b, loop, zero, one);
  }
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
  // What the launches on a device need to know of their kernels.
  CUDALaunches cudaLaunches;
  if (cuda)
    for (auto task : module.getOps<tc::TaskOp>()) {
      bool random = false, checked = false, frees = false, blocks = false;
      task.walk([&](Operation *op) {
        random |= isa<tc::RandomOp>(op);
        checked |= isa<tc::AssertOp, tc::BoundsCheckOp>(op);
        // -g: a write or accumulation may break an access rule.
        if (auto rec = dyn_cast<ad::RecordAccessOp>(op))
          checked |= rec.getKind() != "read";
        blocks |= isa<tc::BlockForOp>(op);
        if (auto f = dyn_cast<snode::FreeCellOp>(op))
          frees |= !f.getUnused();
      });
      if (blocks)
        cudaLaunches.blocks.insert(task.getSymName());
      if (random)
        cudaLaunches.usesRandom.insert(task.getSymName());
      if (checked)
        cudaLaunches.checked.insert(task.getSymName());
      if (frees)
        cudaLaunches.frees.insert(task.getSymName());
    }
  for (Operation &op : module.getBody()->getOperations())
    if (isa<tc::KernelOp, tc::TaskOp>(op)) {
      lowerBlockLoopsSerially(&op);
      hoistAllocas(op.getRegion(0));
    }

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
    target.addIllegalOp<tc::LaunchOp, tc::FieldCopyOp, tc::FieldFillOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTCToLLVMLaunchPatterns(converter, patterns, envs,
                                   cuda ? &cudaLaunches : nullptr);
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
                                         const FunctionEnvs &envs,
                                         const CUDALaunches *cuda) {
  patterns.add<LaunchLowering>(converter, envs, cuda);
  patterns.add<FieldMemoryLowering<tc::FieldCopyOp>,
               FieldMemoryLowering<tc::FieldFillOp>>(patterns.getContext(),
                                                     envs);
}

void tic::lowerBlockFor(OpBuilder &b, tc::BlockForOp op, Value first,
                        Value step) {
  Location loc = op.getLoc();
  Type i32 = b.getI32Type();
  b.setInsertionPoint(op);
  SmallVector<Value> extents = op.getExtentValues(b);
  // A dynamic extent that is not positive: no iterations.
  for (Value &e : extents)
    if (!getConstantIntValue(e))
      e = arith::MaxSIOp::create(b, loc, e,
                                 arith::ConstantIntOp::create(b, loc, i32, 0));
  Value trips = extents.front();
  for (Value e : ArrayRef(extents).drop_front())
    trips = arith::MulIOp::create(b, loc, trips, e);
  // Signed: a thread index past a dynamic trip count of 0 runs nothing.
  auto loop = scf::ForOp::create(b, loc, first, trips, step);
  Block &body = op.getBody().front();
  OpBuilder ib = OpBuilder::atBlockBegin(loop.getBody());
  // Row-major: the last index varies fastest (consecutive threads read
  // consecutive elements of a buffer row).
  Value rest = loop.getInductionVar();
  for (size_t k = extents.size(); k-- > 0;) {
    BlockArgument iv = body.getArgument(k);
    if (k == 0) {
      iv.replaceAllUsesWith(rest);
      break;
    }
    iv.replaceAllUsesWith(arith::RemUIOp::create(ib, loc, rest, extents[k]));
    rest = arith::DivUIOp::create(ib, loc, rest, extents[k]);
  }
  body.getTerminator()->erase();
  loop.getBody()->getOperations().splice(
      loop.getBody()->getTerminator()->getIterator(), body.getOperations());
  op.erase();
  b.setInsertionPointAfter(loop);
}

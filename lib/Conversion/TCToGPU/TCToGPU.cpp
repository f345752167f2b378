//===- TCToGPU.cpp - convert-tc-to-gpu ------------------------------------===//
//
// The device side of the CUDA target: tc.task -> gpu.func kernel in
// gpu.module @tic_cuda, as a grid-stride loop over the task's iterations.
// Everything else (micro-access and memory ops, arith, math, scf) stays as
// it is and goes through the same conversions as on the CPU
// (convert-snode-to-llvm) or upstream ones (convert-gpu-to-nvvm).
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/Passes.h"
#include "tic/Conversion/SNodeToLLVM.h"
#include "tic/Conversion/TCToLLVM.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tic {
#define GEN_PASS_DEF_CONVERTTCTOGPU
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

constexpr llvm::StringLiteral kGPUModuleName = "tic_cuda";

/// Splits a task's body around its `tc.iterations` loop: ops before it that
/// do not depend on the range (begin, end) form the prologue, the loop and
/// the ops it needs from the range run per range, the ops after it form the
/// epilogue. Without a marked loop, or when the epilogue would need a value
/// of the range, everything runs per range.
static void splitTask(tc::TaskOp task, SmallVectorImpl<Operation *> &prologue,
                      SmallVectorImpl<Operation *> &perRange,
                      SmallVectorImpl<Operation *> &epilogue) {
  Block &body = task.getBody().front();
  llvm::SmallPtrSet<Value, 16> ranged;
  ranged.insert(task.getBegin());
  ranged.insert(task.getEnd());
  auto dependsOnRange = [&](Operation *op) {
    bool dep = false;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        dep |= ranged.contains(v);
    });
    return dep;
  };
  bool seenLoop = false, ok = false;
  for (Operation &op : body.without_terminator()) {
    if (op.hasAttr(tc::TaskOp::getIterationsAttrName())) {
      seenLoop = ok = true;
      perRange.push_back(&op);
      for (Value r : op.getResults())
        ranged.insert(r);
      continue;
    }
    if (!seenLoop) {
      if (dependsOnRange(&op)) {
        perRange.push_back(&op);
        for (Value r : op.getResults())
          ranged.insert(r);
      } else {
        prologue.push_back(&op);
      }
    } else {
      if (dependsOnRange(&op))
        ok = false;
      epilogue.push_back(&op);
    }
  }
  if (!ok) {
    prologue.clear();
    perRange.clear();
    epilogue.clear();
    for (Operation &op : body.without_terminator())
      perRange.push_back(&op);
  }
}

/// tc.task @k__parN -> gpu.func @k__parN(root, captures..., total[, seed])
/// kernel in the module's gpu.module: a grid-stride loop over [0, total)
/// running the body on [lin, lin + 1), with the prologue and epilogue of
/// the body (splitTask) once per thread.
struct TaskToGPUFuncLowering : OpConversionPattern<tc::TaskOp> {
  TaskToGPUFuncLowering(MLIRContext *ctx, gpu::GPUModuleOp gpuModule,
                        FunctionEnvs &envs)
      : OpConversionPattern(ctx), gpuModule(gpuModule), envs(envs) {}
  mutable gpu::GPUModuleOp gpuModule;
  FunctionEnvs &envs;

  LogicalResult
  matchAndRewrite(tc::TaskOp task, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = task.getLoc();
    MLIRContext *ctx = getContext();
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    // Parameters: the root buffer, the captures (!snode.ptr as !llvm.ptr;
    // an ndarray as its data pointer and extents), the number of
    // iterations.
    SmallVector<Type> params{ptrTy};
    for (BlockArgument a : task.getCaptures()) {
      if (auto nd = dyn_cast<tc::NDArrayType>(a.getType())) {
        params.push_back(ptrTy);
        params.append(nd.getRank(), i64);
      } else {
        params.push_back(isa<snode::PtrType>(a.getType()) ? ptrTy
                                                          : a.getType());
      }
    }
    params.push_back(i64);
    // random() draws from a per-thread PCG32 stream seeded like the CPU's
    // (runtime/src/Random.cpp) from a seed the launch passes.
    bool usesRandom =
        task.walk([](tc::RandomOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (usesRandom)
      params.push_back(i64);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(gpuModule.getBody());
    auto fn = gpu::GPUFuncOp::create(rewriter, loc, task.getSymName(),
                                     FunctionType::get(ctx, params, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
    Block &entry = fn.getBody().front();
    rewriter.setInsertionPointToStart(&entry);
    Value root = entry.getArgument(0);
    Value total = entry.getArgument(entry.getNumArguments() - 1 - usesRandom);
    IRMapping map;
    unsigned next = 1;
    for (BlockArgument a : task.getCaptures()) {
      Value v = entry.getArgument(next++);
      if (auto nd = dyn_cast<tc::NDArrayType>(a.getType())) {
        v = createNDArrayDescriptor(
            rewriter, loc, nd, v,
            entry.getArguments().slice(next, nd.getRank()));
        next += nd.getRank();
      } else if (v.getType() != a.getType()) {
        v = UnrealizedConversionCastOp::create(rewriter, loc, a.getType(), v)
                .getResult(0);
      }
      map.map(a, v);
    }
    // Grid-stride loop: lin = blockIdx * blockDim + threadIdx, step
    // gridDim * blockDim.
    auto dim = [&](Value v) {
      return arith::IndexCastOp::create(rewriter, loc, i64, v).getResult();
    };
    Value tid = dim(gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x));
    Value bid = dim(gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x));
    Value bdim = dim(gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x));
    Value gdim = dim(gpu::GridDimOp::create(rewriter, loc, gpu::Dimension::x));
    Value start = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, bid, bdim), tid);
    Value stride = arith::MulIOp::create(rewriter, loc, gdim, bdim);
    FunctionEnv env;
    env.rootBuffer = root;
    if (usesRandom) {
      Value seed = entry.getArgument(entry.getNumArguments() - 1);
      std::tie(env.rngState, env.rngInc) =
          seedCUDARandom(rewriter, loc, seed, start);
    }
    // The task's prologue (what does not depend on the range: private
    // accumulators, invariants) runs once per thread before the
    // grid-stride loop, its epilogue (the accumulators' atomics) once
    // after it: one atomic per thread, not per iteration.
    SmallVector<Operation *> prologue, perRange, epilogue;
    splitTask(task, prologue, perRange, epilogue);
    for (Operation *op : prologue)
      rewriter.clone(*op, map);
    auto loop = scf::ForOp::create(rewriter, loc, start, total, stride);
    {
      OpBuilder::InsertionGuard inLoop(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      Value lin = loop.getInductionVar();
      Value one = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
      map.map(task.getBegin(), lin);
      map.map(task.getEnd(), arith::AddIOp::create(rewriter, loc, lin, one));
      for (Operation *op : perRange)
        rewriter.clone(*op, map);
    }
    for (Operation *op : epilogue)
      rewriter.clone(*op, map);
    gpu::ReturnOp::create(rewriter, loc);
    envs.set(fn, env);
    rewriter.eraseOp(task);
    return success();
  }
};

/// The host side is not generated for the device.
struct KernelErasure : OpConversionPattern<tc::KernelOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tc::KernelOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConvertTCToGPUPass : tic::impl::ConvertTCToGPUBase<ConvertTCToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    WalkResult w = module.walk([&](Operation *op) {
      if (isa<tc::ParallelForOp, tc::StructForOp>(op)) {
        op->emitOpError("must be outlined by tic-outline-tasks first");
        return WalkResult::interrupt();
      }
      // The ambient / sink cells of pointer nodes live in host memory.
      if (auto a = dyn_cast<LLVM::AddressOfOp>(op))
        if (a.getGlobalName() == kAmbientCell ||
            a.getGlobalName() == kSinkCell) {
          op->emitError(
              "'snode.lookup' op is not supported with "
              "--target=cuda yet on pointer and dynamic SNodes (their "
              "cells need a device memory pool)");
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (w.wasInterrupted())
      return signalPassFailure();

    gpu::GPUModuleOp gm;
    if (!module.getOps<tc::TaskOp>().empty()) {
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(ctx));
      auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/2,
                                              "nvptx64-nvidia-cuda", chip);
      auto mb = OpBuilder::atBlockEnd(module.getBody());
      gm = gpu::GPUModuleOp::create(mb, module.getLoc(), kGPUModuleName,
                                    ArrayAttr::get(ctx, {target}));
    }
    FunctionEnvs envs;
    {
      ConversionTarget target(*ctx);
      target.addIllegalOp<tc::TaskOp, tc::KernelOp>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      RewritePatternSet patterns(ctx);
      populateTCToGPUPatterns(patterns, gm, envs);
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
    if (!gm) {
      snode::eraseLayoutIfUnused(module);
      return;
    }
    std::unique_ptr<TargetInfo> cuda = createCUDATargetInfo();
    ConversionTarget target(*ctx);
    addTCRuntimeIllegalOps(target);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTCRuntimeToLLVMPatterns(patterns, *cuda, envs, layout);
    if (failed(applyPartialConversion(gm, target, std::move(patterns))))
      return signalPassFailure();
    // The descriptors no access needed any more.
    gm.walk([](UnrealizedConversionCastOp c) {
      if (c->use_empty() && getNDArrayParts(c.getResult(0)))
        c.erase();
    });
    snode::eraseLayoutIfUnused(module);
  }
};
} // namespace

void tic::populateTCToGPUPatterns(RewritePatternSet &patterns,
                                  gpu::GPUModuleOp gpuModule,
                                  FunctionEnvs &envs) {
  patterns.add<TaskToGPUFuncLowering>(patterns.getContext(), gpuModule, envs);
  patterns.add<KernelErasure>(patterns.getContext());
}

//===- TCToGPU.cpp - convert-tc-to-gpu ------------------------------------===//
//
// The device side of the CUDA target: tc.task -> gpu.func kernel in
// gpu.module @tic_cuda, as a grid-stride loop over the task's iterations.
// Everything else (micro-access and memory ops, arith, math, scf) stays as
// it is and goes through the same conversions as on the CPU
// (convert-snode-to-llvm) or upstream ones (convert-gpu-to-nvvm).
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/NDArrayLowering.h"
#include "tic/Conversion/Passes.h"
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

struct ConvertTCToGPUPass : tic::impl::ConvertTCToGPUBase<ConvertTCToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();

    // What the device cannot do yet, reported where it is.
    WalkResult w = module.walk([&](Operation *op) {
      if (isa<tc::ParallelForOp, tc::StructForOp>(op)) {
        op->emitOpError("must be outlined by tic-outline-tasks first");
        return WalkResult::interrupt();
      }
      if (!op->getParentOfType<tc::TaskOp>())
        return WalkResult::advance();
      return WalkResult::advance();
    });
    if (w.wasInterrupted())
      return signalPassFailure();

    SmallVector<tc::TaskOp> tasks(module.getOps<tc::TaskOp>());
    std::unique_ptr<TargetInfo> target = createCUDATargetInfo();
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    gpu::GPUModuleOp gm;
    if (!tasks.empty()) {
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(ctx));
      auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/2,
                                              "nvptx64-nvidia-cuda", chip);
      gm = gpu::GPUModuleOp::create(mb, module.getLoc(), kGPUModuleName,
                                    ArrayAttr::get(ctx, {target}));
    }
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    for (tc::TaskOp task : tasks) {
      Location loc = task.getLoc();
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
      OpBuilder gb = OpBuilder::atBlockEnd(gm.getBody());
      auto fn = gpu::GPUFuncOp::create(gb, loc, task.getSymName(),
                                       FunctionType::get(ctx, params, {}));
      fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
      Block &entry = fn.getBody().front();
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      Value root = entry.getArgument(0);
      Value total = entry.getArgument(entry.getNumArguments() - 1 - usesRandom);
      IRMapping map;
      DenseMap<Value, NDArrayInfo> ndarrays;
      unsigned next = 1;
      for (BlockArgument a : task.getCaptures()) {
        Value v = entry.getArgument(next++);
        if (auto nd = dyn_cast<tc::NDArrayType>(a.getType())) {
          NDArrayInfo info;
          info.data = v;
          info.elementType = nd.getElementType();
          for (unsigned d = 0; d < nd.getRank(); ++d)
            info.shape.push_back(entry.getArgument(next++));
          // Stands for the ndarray until lowerNDArrayOps below.
          v = UnrealizedConversionCastOp::create(b, loc, a.getType(), v)
                  .getResult(0);
          ndarrays[v] = info;
        } else if (v.getType() != a.getType()) {
          v = UnrealizedConversionCastOp::create(b, loc, a.getType(), v)
                  .getResult(0);
        }
        map.map(a, v);
      }
      // Grid-stride loop: lin = blockIdx * blockDim + threadIdx, step
      // gridDim * blockDim.
      auto dim = [&](Value v) {
        return arith::IndexCastOp::create(b, loc, i64, v).getResult();
      };
      Value tid = dim(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
      Value bid = dim(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
      Value bdim = dim(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
      Value gdim = dim(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
      Value start = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid);
      Value stride = arith::MulIOp::create(b, loc, gdim, bdim);
      Value rngState, rngInc;
      if (usesRandom) {
        Value seed = entry.getArgument(entry.getNumArguments() - 1);
        std::tie(rngState, rngInc) = seedCUDARandom(b, loc, seed, start);
      }
      // The task's prologue (what does not depend on the range: private
      // accumulators, invariants) runs once per thread before the
      // grid-stride loop, its epilogue (the accumulators' atomics) once
      // after it: one atomic per thread, not per iteration.
      SmallVector<Operation *> prologue, perRange, epilogue;
      splitTask(task, prologue, perRange, epilogue);
      for (Operation *op : prologue)
        b.clone(*op, map);
      auto loop = scf::ForOp::create(b, loc, start, total, stride);
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value lin = loop.getInductionVar();
      Value one = arith::ConstantIntOp::create(lb, loc, i64, 1);
      map.map(task.getBegin(), lin);
      map.map(task.getEnd(), arith::AddIOp::create(lb, loc, lin, one));
      for (Operation *op : perRange)
        lb.clone(*op, map);
      for (Operation *op : epilogue)
        b.clone(*op, map);
      gpu::ReturnOp::create(b, loc);
      FunctionEnv env;
      env.rootBuffer = root;
      env.rngState = rngState;
      env.rngInc = rngInc;
      if (failed(lowerRuntimeServices(fn, *target, env, layout)))
        return signalPassFailure();
      // The same element accesses as on the CPU.
      if (failed(lowerNDArrayOps(fn, ndarrays)))
        return signalPassFailure();
      for (auto &[placeholder, info] : ndarrays)
        if (placeholder.use_empty())
          placeholder.getDefiningOp()->erase();
    }
    // The host side is not generated for the device.
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (isa<tc::TaskOp, tc::KernelOp>(op))
        op.erase();
  }
};
} // namespace

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

namespace tic {
#define GEN_PASS_DEF_CONVERTTCTOGPU
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

constexpr llvm::StringLiteral kGPUModuleName = "tic_cuda";

Value constI64(OpBuilder &b, Location loc, uint64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), int64_t(v));
}

/// SplitMix64 (as runtime/src/Random.cpp).
Value splitMix64(OpBuilder &b, Location loc, Value x) {
  auto xorShift = [&](Value v, uint64_t k) {
    return arith::XOrIOp::create(
        b, loc, v, arith::ShRUIOp::create(b, loc, v, constI64(b, loc, k)));
  };
  x = arith::AddIOp::create(b, loc, x, constI64(b, loc, 0x9E3779B97F4A7C15ULL));
  x = arith::MulIOp::create(b, loc, xorShift(x, 30),
                            constI64(b, loc, 0xBF58476D1CE4E5B9ULL));
  x = arith::MulIOp::create(b, loc, xorShift(x, 27),
                            constI64(b, loc, 0x94D049BB133111EBULL));
  return xorShift(x, 31);
}

/// One PCG32 (XSH-RR) step on the state in `state` (memref<i64>).
Value pcgNext(OpBuilder &b, Location loc, Value state, Value inc) {
  Type i32 = b.getI32Type();
  Value old = memref::LoadOp::create(b, loc, state);
  Value mult = constI64(b, loc, 6364136223846793005ULL);
  memref::StoreOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, old, mult),
                            inc),
      state);
  Value x = arith::XOrIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, old, constI64(b, loc, 18)), old);
  Value xs = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, x, constI64(b, loc, 27)));
  Value rot = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, old, constI64(b, loc, 59)));
  Value c32 = arith::ConstantIntOp::create(b, loc, i32, 32);
  Value c31 = arith::ConstantIntOp::create(b, loc, i32, 31);
  Value left = arith::AndIOp::create(
      b, loc, arith::SubIOp::create(b, loc, c32, rot), c31);
  return arith::OrIOp::create(b, loc, arith::ShRUIOp::create(b, loc, xs, rot),
                              arith::ShLIOp::create(b, loc, xs, left));
}

/// The generator of global thread `t`: pcg32_srandom_r with SplitMix64 of
/// the seed and the thread, as the CPU seeds thread t. Returns (state slot,
/// increment).
std::pair<Value, Value> seedRng(OpBuilder &b, Location loc, Value seed,
                                Value t) {
  Value initState =
      splitMix64(b, loc,
                 arith::XOrIOp::create(
                     b, loc, seed,
                     arith::MulIOp::create(
                         b, loc, t, constI64(b, loc, 0xD1B54A32D192ED03ULL))));
  Value inc = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, t, constI64(b, loc, 1)),
      constI64(b, loc, 1));
  Value state =
      memref::AllocaOp::create(b, loc, MemRefType::get({}, b.getI64Type()));
  memref::StoreOp::create(b, loc, constI64(b, loc, 0), state);
  (void)pcgNext(b, loc, state, inc);
  Value s = memref::LoadOp::create(b, loc, state);
  memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, s, initState),
                          state);
  (void)pcgNext(b, loc, state, inc);
  return {state, inc};
}

/// random, print, assert and bounds checks on the device: PCG32 streams,
/// gpu.printf (vprintf) and cf.assert (__assertfail: the launch fails).
void lowerServices(Operation *fn, Value rngState, Value rngInc) {
  SmallVector<Operation *> ops;
  fn->walk([&](Operation *op) {
    if (isa<tc::RandomOp, tc::PrintOp, tc::AssertOp, tc::BoundsCheckOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    if (auto r = dyn_cast<tc::RandomOp>(op)) {
      Type t = r.getType();
      Value v;
      if (t.isF32()) {
        // The top 24 bits fill the mantissa exactly: k / 2^24 < 1.
        Value k = arith::ShRUIOp::create(
            b, loc, pcgNext(b, loc, rngState, rngInc),
            arith::ConstantIntOp::create(b, loc, i32, 8));
        v = arith::MulFOp::create(
            b, loc, arith::UIToFPOp::create(b, loc, t, k),
            arith::ConstantOp::create(b, loc,
                                      b.getF32FloatAttr(1.0f / 16777216.0f)));
      } else if (t.isF64()) {
        Value hi = arith::ShRUIOp::create(
            b, loc,
            arith::ExtUIOp::create(b, loc, i64,
                                   pcgNext(b, loc, rngState, rngInc)),
            constI64(b, loc, 5));
        Value lo = arith::ShRUIOp::create(
            b, loc,
            arith::ExtUIOp::create(b, loc, i64,
                                   pcgNext(b, loc, rngState, rngInc)),
            constI64(b, loc, 6));
        Value k = arith::OrIOp::create(
            b, loc, arith::ShLIOp::create(b, loc, hi, constI64(b, loc, 26)),
            lo);
        v = arith::MulFOp::create(
            b, loc, arith::UIToFPOp::create(b, loc, t, k),
            arith::ConstantOp::create(
                b, loc, b.getF64FloatAttr(1.0 / 9007199254740992.0)));
      } else {
        v = pcgNext(b, loc, rngState, rngInc);
      }
      r.replaceAllUsesWith(v);
    } else if (auto p = dyn_cast<tc::PrintOp>(op)) {
      // The CPU's tic_rt_print ends every line.
      std::string format = p.getFormat().str();
      if (format.empty() || format.back() != '\n')
        format += '\n';
      SmallVector<Value> args;
      for (Value v : p.getArgs()) {
        Type t = v.getType();
        if (isa<FloatType>(t) && !t.isF64())
          v = arith::ExtFOp::create(b, loc, b.getF64Type(), v);
        else if (t.isInteger(1))
          v = arith::ExtUIOp::create(b, loc, i32, v);
        else if (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() < 32)
          v = arith::ExtSIOp::create(b, loc, i32, v);
        args.push_back(v);
      }
      gpu::PrintfOp::create(b, loc, b.getStringAttr(format), args);
    } else if (auto a = dyn_cast<tc::AssertOp>(op)) {
      cf::AssertOp::create(b, loc, a.getCond(), a.getMessage());
    } else if (auto bc = dyn_cast<tc::BoundsCheckOp>(op)) {
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       bc.getIndex(), bc.getExtent());
      cf::AssertOp::create(b, loc, ok,
                           ("index out of range for field '" + bc.getField() +
                            "' on axis " + Twine(bc.getAxis()))
                               .str());
    }
    op->erase();
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
        std::tie(rngState, rngInc) = seedRng(b, loc, seed, start);
      }
      Block &body = task.getBody().front();
      auto loop = scf::ForOp::create(b, loc, start, total, stride);
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value lin = loop.getInductionVar();
      Value one = arith::ConstantIntOp::create(lb, loc, i64, 1);
      map.map(task.getBegin(), lin);
      map.map(task.getEnd(), arith::AddIOp::create(lb, loc, lin, one));
      for (Operation &op : body.without_terminator())
        lb.clone(op, map);
      gpu::ReturnOp::create(b, loc);
      lowerServices(fn, rngState, rngInc);
      // The same element accesses as on the CPU.
      if (failed(lowerNDArrayOps(fn, ndarrays)))
        return signalPassFailure();
      for (auto &[placeholder, info] : ndarrays)
        if (placeholder.use_empty())
          placeholder.getDefiningOp()->erase();

      // The trees live in the root buffer passed to the kernel.
      SmallVector<snode::RootPtrOp> roots;
      fn.walk([&](snode::RootPtrOp r) { roots.push_back(r); });
      for (snode::RootPtrOp r : roots) {
        const snode::TreeLayout *tl = layout.lookupTree(r.getTree());
        if (!tl) {
          r.emitOpError("unknown tree");
          return signalPassFailure();
        }
        OpBuilder rb(r);
        Value p = root;
        if (tl->offset != 0) {
          Value off =
              arith::ConstantIntOp::create(rb, r.getLoc(), i64, tl->offset);
          p = LLVM::GEPOp::create(rb, r.getLoc(), ptrTy, rb.getI8Type(), root,
                                  ValueRange{off},
                                  LLVM::GEPNoWrapFlags::inbounds);
        }
        r.replaceAllUsesWith(
            UnrealizedConversionCastOp::create(rb, r.getLoc(), r.getType(), p)
                .getResult(0));
        r.erase();
      }
    }
    // The host side is not generated for the device.
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (isa<tc::TaskOp, tc::KernelOp>(op))
        op.erase();
  }
};
} // namespace

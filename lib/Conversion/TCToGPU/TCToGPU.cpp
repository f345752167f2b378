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
#include "tic/Conversion/PoolLowering.h"
#include "tic/Conversion/SNodeToLLVM.h"
#include "tic/Conversion/TCToLLVM.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/TargetInfo.h"
#include "tic/rt.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace tic {
#define GEN_PASS_DEF_CONVERTTCTOGPU
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

constexpr llvm::StringLiteral kGPUModuleName = "tic_cuda";
constexpr llvm::StringLiteral kPoolCollectKernel = TIC_RT_POOL_COLLECT_KERNEL;
constexpr llvm::StringLiteral kPoolCollectEndKernel =
    TIC_RT_POOL_COLLECT_END_KERNEL;

/// Where a thread is in the grid (i64): its index and the grid's threads
/// (a grid-stride loop's first iteration and step over threads), and its
/// block's index and the grid's blocks (the same over blocks).
struct GridPosition {
  Value thread, threads, block, blocks;
};
static GridPosition gridPosition(OpBuilder &b, Location loc) {
  auto dim = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v).getResult();
  };
  Value tid = dim(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value bid = dim(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value bdim = dim(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
  Value gdim = dim(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid);
  return {start, arith::MulIOp::create(b, loc, gdim, bdim), bid, gdim};
}

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
    if (!seenLoop && op.hasAttr(tc::TaskOp::getRangeEndAttrName())) {
      // The range's stop at the loop's limit: the caller's (the limit, its
      // operand 1, is in the prologue).
      ranged.insert(op.getResult(0));
      continue;
    }
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

/// The binary op of an atomic kind, for combining two partial values of a
/// reduction; null for kinds that are not reductions.
using Combiner = Value (*)(OpBuilder &, Location, Value, Value);
template <typename Op>
Value combineWith(OpBuilder &b, Location loc, Value x, Value y) {
  return Op::create(b, loc, x, y);
}
static Combiner combiner(arith::AtomicRMWKind kind) {
  using K = arith::AtomicRMWKind;
  switch (kind) {
  case K::addf:
    return combineWith<arith::AddFOp>;
  case K::addi:
    return combineWith<arith::AddIOp>;
  case K::maximumf:
    return combineWith<arith::MaximumFOp>;
  case K::minimumf:
    return combineWith<arith::MinimumFOp>;
  case K::maxs:
    return combineWith<arith::MaxSIOp>;
  case K::mins:
    return combineWith<arith::MinSIOp>;
  case K::maxu:
    return combineWith<arith::MaxUIOp>;
  case K::minu:
    return combineWith<arith::MinUIOp>;
  case K::andi:
    return combineWith<arith::AndIOp>;
  case K::ori:
    return combineWith<arith::OrIOp>;
  default:
    return nullptr;
  }
}

/// The value `kind` leaves the other operand unchanged with (-0.0 for a
/// float sum: x + -0.0 is x, -0.0 included).
static Value identityOf(OpBuilder &b, Location loc, arith::AtomicRMWKind kind,
                        Type t) {
  using K = arith::AtomicRMWKind;
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat v = kind == K::addf       ? APFloat::getZero(sem, /*Negative=*/true)
                : kind == K::maximumf ? APFloat::getInf(sem, /*Negative=*/true)
                                      : APFloat::getInf(sem);
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, v));
  }
  unsigned bits = t.getIntOrFloatBitWidth();
  APInt v = kind == K::maxs   ? APInt::getSignedMinValue(bits)
            : kind == K::mins ? APInt::getSignedMaxValue(bits)
            : kind == K::minu || kind == K::andi ? APInt::getAllOnes(bits)
                                                 : APInt::getZero(bits);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

/// `v` of the lane `offset` away by xor in the warp (gpu.shuffle moves 32
/// bits: a 64-bit value goes as its two halves).
static Value shuffleXor(OpBuilder &b, Location loc, Value v, int32_t offset) {
  auto shuffle = [&](Value x) {
    return gpu::ShuffleOp::create(b, loc, x, offset, /*width=*/32,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  Type t = v.getType();
  if (t.getIntOrFloatBitWidth() == 32)
    return shuffle(v);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value w = isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, i64, v) : v;
  Value c32 = arith::ConstantIntOp::create(b, loc, i64, 32);
  Value lo = arith::TruncIOp::create(b, loc, i32, w);
  Value hiBits = arith::ShRUIOp::create(b, loc, w, c32);
  Value hi = arith::TruncIOp::create(b, loc, i32, hiBits);
  Value lo2 = arith::ExtUIOp::create(b, loc, i64, shuffle(lo));
  Value hi2 = arith::ExtUIOp::create(b, loc, i64, shuffle(hi));
  Value hiShifted = arith::ShLIOp::create(b, loc, hi2, c32);
  Value r = arith::OrIOp::create(b, loc, hiShifted, lo2);
  return isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, t, r) : r;
}

/// `v` combined by `kind` over the 32 lanes of the warp (five
/// xor-shuffles: every lane ends with the warp's value).
static Value warpReduce(OpBuilder &b, Location loc, arith::AtomicRMWKind kind,
                        Value v) {
  for (int32_t offset = 16; offset >= 1; offset /= 2) {
    Value other = shuffleXor(b, loc, v, offset);
    v = combiner(kind)(b, loc, v, other);
  }
  return v;
}

/// Static shared memory a GPU block may use (48 KiB without opting in).
constexpr int64_t kMaxSharedBytes = 48 * 1024;

/// The shared memory `fn` takes: its workgroup attributions and the block
/// buffers (tc.block_buffer) that become some.
static int64_t sharedBytes(gpu::GPUFuncOp fn) {
  auto bytes = [](MemRefType t) {
    return t.getNumElements() *
           int64_t((t.getElementType().getIntOrFloatBitWidth() + 7) / 8);
  };
  int64_t n = 0;
  for (BlockArgument a : fn.getWorkgroupAttributions())
    n += bytes(cast<MemRefType>(a.getType()));
  fn.walk([&](tc::BlockBufferOp buf) { n += bytes(buf.getType()); });
  return n;
}

/// tc.task @k__parN -> gpu.func @k__parN(root, captures..., total[, seed])
/// kernel in the module's gpu.module: a grid-stride loop over [0, total)
/// running the body on [lin, lin + 1), with the prologue and epilogue of
/// the body (splitTask) once per thread.
struct TaskToGPUFuncLowering : OpConversionPattern<tc::TaskOp> {
  TaskToGPUFuncLowering(MLIRContext *ctx, gpu::GPUModuleOp gpuModule,
                        FunctionEnvs &envs, unsigned unroll,
                        const llvm::StringMap<uint32_t> &wholeWarps)
      : OpConversionPattern(ctx), gpuModule(gpuModule), envs(envs),
        unroll(unroll), wholeWarps(wholeWarps) {}
  mutable gpu::GPUModuleOp gpuModule;
  FunctionEnvs &envs;
  unsigned unroll;
  /// Tasks launched on whole warps (not serialized, block_dim a multiple of
  /// 32), with their block_dim (0: the runtime's, 128): their reductions'
  /// atomics are combined per warp and per block first.
  const llvm::StringMap<uint32_t> &wholeWarps;
  /// Bodies of more operations are not unrolled (code size).
  static constexpr unsigned kUnrollMaxOps = 96;

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
    GridPosition pos = gridPosition(rewriter, loc);
    Value thread = pos.thread;
    // Iterations that a block of threads runs together (tc.block_for): a
    // grid-stride loop over blocks.
    bool blocks =
        task.walk([](tc::BlockForOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    Value start = blocks ? pos.block : pos.thread;
    Value stride = blocks ? pos.blocks : pos.threads;
    FunctionEnv env;
    env.rootBuffer = root;
    if (usesRandom) {
      Value seed = entry.getArgument(entry.getNumArguments() - 1);
      std::tie(env.rngState, env.rngInc) =
          seedCUDARandom(rewriter, loc, seed, thread);
    }
    // The task's prologue (what does not depend on the range: private
    // accumulators, invariants) runs once per thread before the
    // grid-stride loop, its epilogue (the accumulators' atomics) once
    // after it: one atomic per thread (per warp, below), not per iteration.
    SmallVector<Operation *> prologue, perRange, epilogue;
    splitTask(task, prologue, perRange, epilogue);
    for (Operation *op : prologue)
      rewriter.clone(*op, map);
    // A loop's limit (tc.range_end = min(end, limit)): every thread's
    // grid-stride loop stops at it, as read on the device.
    // (When splitTask left everything per range, the stop is per range
    // too.)
    Value rangeEnd = task.getEnd();
    for (Operation &op : task.getBody().front())
      if (op.hasAttr(tc::TaskOp::getRangeEndAttrName()) &&
          !llvm::is_contained(perRange, &op)) {
        rangeEnd = op.getResult(0);
        total = arith::MinSIOp::create(rewriter, loc, total,
                                       map.lookup(op.getOperand(1)));
      }
    // The marked loop over the range, when its one trip on a unit range
    // [lin, lin + 1) can be inlined: the 1-D scf.for from begin to end by 1,
    // or the N-D form of tic-outline-tasks (an scf.while over rows, whose
    // condition is `row start < end`, around one scf.for by 1 over the
    // row's part of the range: one trip of each on a unit range).
    Operation *rangeLoop = nullptr;
    scf::ForOp columnLoop;
    for (Operation *op : perRange) {
      if (!op->hasAttr(tc::TaskOp::getIterationsAttrName()))
        continue;
      if (auto f = dyn_cast<scf::ForOp>(op)) {
        if (f.getLowerBound() == task.getBegin() &&
            f.getUpperBound() == rangeEnd && matchPattern(f.getStep(), m_One()))
          rangeLoop = f;
      } else if (auto w = dyn_cast<scf::WhileOp>(op)) {
        Block &before = w.getBefore().front();
        auto cond = cast<scf::ConditionOp>(before.getTerminator());
        auto cmp = dyn_cast<arith::CmpIOp>(&before.front());
        if (w.getInits().size() != 1 || w.getInits()[0] != task.getBegin() ||
            !cmp || cmp->getNextNode() != cond ||
            cmp.getPredicate() != arith::CmpIPredicate::slt ||
            cmp.getLhs() != before.getArgument(0) || cmp.getRhs() != rangeEnd ||
            cond.getCondition() != cmp.getResult() ||
            cond.getArgs() != ValueRange(before.getArguments()))
          continue;
        scf::ForOp inner;
        unsigned fors = 0;
        for (Operation &a : w.getAfter().front())
          if (auto f = dyn_cast<scf::ForOp>(a)) {
            inner = f;
            ++fors;
          }
        if (fors == 1 && matchPattern(inner.getStep(), m_One())) {
          rangeLoop = w;
          columnLoop = inner;
        }
      }
    }
    // One trip of `f` with induction variable `iv`, inlined.
    auto inlineFor = [&](scf::ForOp f, IRMapping &m, Value iv) {
      Block &b = *f.getBody();
      m.map(f.getInductionVar(), iv);
      for (auto [arg, init] :
           llvm::zip_equal(f.getRegionIterArgs(), f.getInitArgs()))
        m.map(arg, m.lookupOrDefault(init));
      for (Operation &inner : b.without_terminator())
        rewriter.clone(inner, m);
      for (auto [res, y] :
           llvm::zip_equal(f.getResults(), b.getTerminator()->getOperands()))
        m.map(res, m.lookupOrDefault(y));
    };
    // The body on iteration `lin`, the range loop's one trip inlined when
    // it can be.
    auto body = [&](Value lin) {
      IRMapping m = map;
      Value one = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
      m.map(task.getBegin(), lin);
      Value next = arith::AddIOp::create(rewriter, loc, lin, one);
      m.map(task.getEnd(), next);
      m.map(rangeEnd, next);
      for (Operation *op : perRange) {
        if (op != rangeLoop) {
          rewriter.clone(*op, m);
        } else if (auto f = dyn_cast<scf::ForOp>(op)) {
          inlineFor(f, m, lin);
        } else {
          auto w = cast<scf::WhileOp>(op);
          Block &before = w.getBefore().front(), &after = w.getAfter().front();
          m.map(before.getArgument(0), lin);
          m.map(after.getArgument(0), lin);
          for (Operation &inner : after.without_terminator()) {
            if (&inner == columnLoop.getOperation())
              inlineFor(columnLoop, m,
                        m.lookupOrDefault(columnLoop.getLowerBound()));
            else
              rewriter.clone(inner, m);
          }
          for (auto [res, y] : llvm::zip_equal(
                   w.getResults(), after.getTerminator()->getOperands()))
            m.map(res, m.lookupOrDefault(y));
        }
      }
    };
    // A small body runs `unroll` iterations (lin, lin + stride, ...) per
    // trip while they all exist, their statements interleaved (iterations
    // of a parallel loop are independent): each thread then has several
    // loads in flight, which a bandwidth-bound loop needs to fill the
    // memory pipeline (ptxas does not move loads above stores it cannot
    // tell apart). Then the rest one by one.
    // Only bodies whose iterations share no thread-private state: no
    // print (a thread's lines stay in iteration order), no random() (one
    // generator per thread) and no memref access to a slot made before the
    // loop (a privatized accumulator): interleaving would reorder their
    // reads and writes.
    unsigned ops = 0;
    bool shared = false;
    llvm::SmallPtrSet<Operation *, 32> inBody;
    for (Operation *op : perRange)
      op->walk([&](Operation *inner) { inBody.insert(inner); });
    for (Operation *op : perRange)
      op->walk([&](Operation *inner) {
        ++ops;
        shared |= isa<tc::PrintOp, tc::RandomOp>(inner);
        if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp>(inner))
          for (Value v : inner->getOperands())
            if (isa<MemRefType>(v.getType()) &&
                (!v.getDefiningOp() || !inBody.contains(v.getDefiningOp())))
              shared = true;
      });
    Value rest = start;
    // 1-D loops only: measured on an H200, unrolling took the copy from 72%
    // to 87% of the device's bandwidth but the 2-D stencil from 66% to 49%
    // (its neighbours' rows stop sharing L1 lines between a thread's
    // iterations); docs/performance.md.
    // (Not the iterations of blocks: they share their block's buffers.)
    if (unroll > 1 && rangeLoop && isa<scf::ForOp>(rangeLoop) &&
        ops <= kUnrollMaxOps && !shared && !blocks) {
      Value k1 = arith::ConstantIntOp::create(rewriter, loc, i64, unroll - 1);
      Value span = arith::MulIOp::create(
          rewriter, loc, stride,
          arith::ConstantIntOp::create(rewriter, loc, i64, unroll));
      Value lastStart = arith::SubIOp::create(
          rewriter, loc, total,
          arith::MulIOp::create(rewriter, loc, stride, k1));
      auto main = scf::ForOp::create(rewriter, loc, start, lastStart, span);
      {
        OpBuilder::InsertionGuard inLoop(rewriter);
        Block *loopBody = main.getBody();
        rewriter.setInsertionPoint(loopBody->getTerminator());
        SmallVector<Value> lins{main.getInductionVar()};
        for (unsigned k = 1; k < unroll; ++k)
          lins.push_back(
              arith::AddIOp::create(rewriter, loc, lins.back(), stride));
        // Each iteration's statements, then round-robin.
        SmallVector<SmallVector<Operation *>> stmts;
        Operation *yield = loopBody->getTerminator();
        for (Value lin : lins) {
          Operation *before = yield->getPrevNode();
          body(lin);
          SmallVector<Operation *> mine;
          for (Operation *op = before ? before->getNextNode()
                                      : &loopBody->front();
               op != yield; op = op->getNextNode())
            mine.push_back(op);
          stmts.push_back(std::move(mine));
        }
        for (size_t r = 0;; ++r) {
          bool any = false;
          for (auto &mine : stmts)
            if (r < mine.size()) {
              mine[r]->moveBefore(yield);
              any = true;
            }
          if (!any)
            break;
        }
      }
      // Where the main loop stopped: start + ceil((lastStart - start) /
      // span) * span, or start when it did not run.
      Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
      Value d = arith::SubIOp::create(rewriter, loc, lastStart, start);
      Value trips = arith::CeilDivSIOp::create(rewriter, loc, d, span);
      trips = arith::MaxSIOp::create(rewriter, loc, trips, zero);
      rest = arith::AddIOp::create(
          rewriter, loc, start,
          arith::MulIOp::create(rewriter, loc, trips, span));
    }
    auto loop = scf::ForOp::create(rewriter, loc, rest, total, stride);
    {
      OpBuilder::InsertionGuard inLoop(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      body(loop.getInductionVar());
    }
    // The epilogue: a privatized accumulator's one atomic is first reduced
    // across the warp (five shuffles), then, with more than one warp per
    // block, across the block (each warp's lane 0 stores its value in a
    // shared slot; after a barrier, which every thread reaches (the
    // grid-stride loop has no early exit), the first warp combines the
    // slots by shuffles again), and one thread adds the block's value: one
    // atomic per block on the shared slot (thread-local storage, thesis
    // 2.5).
    auto launched = wholeWarps.find(task.getSymName());
    for (Operation *op : epilogue) {
      auto rmw = dyn_cast<memref::AtomicRMWOp>(op);
      Type t = rmw ? rmw.getValue().getType() : Type();
      bool warp = rmw && launched != wholeWarps.end() &&
                  (t.getIntOrFloatBitWidth() == 32 ||
                   t.getIntOrFloatBitWidth() == 64) &&
                  combiner(rmw.getKind()) != nullptr;
      if (!warp) {
        rewriter.clone(*op, map);
        continue;
      }
      OpBuilder::InsertionGuard perOp(rewriter);
      arith::AtomicRMWKind kind = rmw.getKind();
      Type i32 = rewriter.getI32Type();
      auto c32 = [&](int32_t v) -> Value {
        return arith::ConstantIntOp::create(rewriter, loc, i32, v);
      };
      Value v =
          warpReduce(rewriter, loc, kind, map.lookupOrDefault(rmw.getValue()));
      Value laneIdx =
          gpu::LaneIdOp::create(rewriter, loc, /*upper_bound=*/nullptr);
      Value lane = arith::IndexCastOp::create(rewriter, loc, i32, laneIdx);
      Value first = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, lane, c32(0));
      // One slot per warp of the largest block (1024 threads), in shared
      // memory, where it fits beside the block's buffers (block_local).
      int64_t slotBytes = 32 * int64_t((t.getIntOrFloatBitWidth() + 7) / 8);
      if (launched->second != 32 &&
          sharedBytes(fn) + slotBytes <= kMaxSharedBytes) {
        auto slotsTy = MemRefType::get(
            {32}, t, MemRefLayoutAttrInterface(),
            gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
        Value slots = fn.addWorkgroupAttribution(slotsTy, loc);
        Value tid = arith::IndexCastOp::create(
            rewriter, loc, i32,
            gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x));
        Value warpIdx = arith::DivUIOp::create(rewriter, loc, tid, c32(32));
        Value warpSlot = arith::IndexCastOp::create(
            rewriter, loc, rewriter.getIndexType(), warpIdx);
        auto store =
            scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
        {
          OpBuilder::InsertionGuard inIf(rewriter);
          rewriter.setInsertionPointToStart(store.thenBlock());
          memref::StoreOp::create(rewriter, loc, v, slots, warpSlot);
        }
        gpu::BarrierOp::create(rewriter, loc);
        Value bdim = arith::IndexCastOp::create(
            rewriter, loc, i32,
            gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x));
        Value warps = arith::DivUIOp::create(rewriter, loc, bdim, c32(32));
        Value firstWarp = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, warpIdx, c32(0));
        auto combine =
            scf::IfOp::create(rewriter, loc, firstWarp, /*withElse=*/false);
        rewriter.setInsertionPointToStart(combine.thenBlock());
        // Lane k takes warp k's value (the slots past the block's warps
        // hold nothing: those lanes take the identity).
        Value own = memref::LoadOp::create(rewriter, loc, slots, laneIdx);
        Value held = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ult, lane, warps);
        Value none = identityOf(rewriter, loc, kind, t);
        Value w = arith::SelectOp::create(rewriter, loc, held, own, none);
        v = warpReduce(rewriter, loc, kind, w);
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> indices;
      for (Value i : rmw.getIndices())
        indices.push_back(map.lookupOrDefault(i));
      memref::AtomicRMWOp::create(rewriter, loc, kind, v,
                                  map.lookupOrDefault(rmw.getMemref()),
                                  indices);
    }
    gpu::ReturnOp::create(rewriter, loc);
    envs.set(fn, env);
    rewriter.eraseOp(task);
    return success();
  }
};

/// The block loops of the kernels: tc.block_buffer -> a workgroup
/// (shared-memory) attribution of the kernel; tc.block_for -> a loop over
/// its indices from the thread's index in the block by the block's size,
/// then a barrier (every thread of the block reaches it: the iteration is
/// the block's).
static void lowerBlockLoops(gpu::GPUFuncOp fn) {
  SmallVector<tc::BlockBufferOp> buffers;
  SmallVector<tc::BlockForOp> loops;
  fn.walk([&](Operation *op) {
    if (auto buf = dyn_cast<tc::BlockBufferOp>(op))
      buffers.push_back(buf);
    else if (auto loop = dyn_cast<tc::BlockForOp>(op))
      loops.push_back(loop);
  });
  MLIRContext *ctx = fn.getContext();
  auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  for (tc::BlockBufferOp buf : buffers) {
    MemRefType t = buf.getType();
    auto st = MemRefType::get(t.getShape(), t.getElementType(),
                              MemRefLayoutAttrInterface(), shared);
    buf.getBuffer().replaceAllUsesWith(
        fn.addWorkgroupAttribution(st, buf.getLoc()));
    buf.erase();
  }
  for (tc::BlockForOp loop : loops) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto i32 = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
    };
    Value tid = i32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value bdim = i32(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
    lowerBlockFor(b, loop, tid, bdim);
    gpu::BarrierOp::create(b, loc);
  }
}

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

/// The kernels the runtime launches after a launch that may have freed
/// cells of sparse nodes (tic_rt_take_kernel_status; the CPU's
/// tic_rt_pool_collect): `__tic_pool_collect`, a grid-stride loop over the
/// words of every pool's pending cells, which zeroes them and appends the
/// cells to the free lists, then `__tic_pool_collect_end` on one thread,
/// which sets the lists' counts. No atomics: each word is one thread's.
static void buildPoolCollectKernels(gpu::GPUModuleOp gm,
                                    const snode::SNodeLayout &layout) {
  SmallVector<int64_t> states;
  for (const snode::NodeLayout &n : layout.getNodes())
    if (n.poolIndex >= 0 && n.poolStateOffset >= 0)
      states.push_back(n.poolStateOffset);
  if (states.empty() || gm.lookupSymbol(kPoolCollectKernel))
    return;
  MLIRContext *ctx = gm.getContext();
  Location loc = gm.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(gm.getBody());
  Type ptrTy = LLVM::LLVMPointerType::get(ctx), i64 = b.getI64Type();
  auto kernel = [&](StringRef name) {
    auto fn = gpu::GPUFuncOp::create(b, loc, name,
                                     FunctionType::get(ctx, {ptrTy}, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
    Block &entry = fn.getBody().front();
    b.setInsertionPointToStart(&entry);
    return entry.getArgument(0);
  };
  {
    OpBuilder::InsertionGuard guard(b);
    Value root = kernel(kPoolCollectKernel);
    GridPosition pos = gridPosition(b, loc);
    Value start = pos.thread, stride = pos.threads;
    for (int64_t off : states) {
      pools::Collect c =
          pools::collectBegin(b, loc, pools::statePtr(b, loc, root, off));
      auto loop = scf::ForOp::create(b, loc, start, c.words, stride);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      pools::collectWord(b, loc, c, loop.getInductionVar());
    }
    gpu::ReturnOp::create(b, loc);
  }
  Value root = kernel(kPoolCollectEndKernel);
  for (int64_t off : states)
    pools::collectEnd(b, loc, pools::statePtr(b, loc, root, off));
  gpu::ReturnOp::create(b, loc);
}

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
      return WalkResult::advance();
    });
    if (w.wasInterrupted())
      return signalPassFailure();

    gpu::GPUModuleOp gm;
    if (!module.getOps<tc::TaskOp>().empty()) {
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(ctx));
      DictionaryAttr flags;
      if (ftz)
        flags = DictionaryAttr::get(
            ctx,
            {NamedAttribute(StringAttr::get(ctx, "ftz"), UnitAttr::get(ctx))});
      auto target =
          NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/2, "nvptx64-nvidia-cuda",
                                    chip, /*features=*/"", flags);
      auto mb = OpBuilder::atBlockEnd(module.getBody());
      gm = gpu::GPUModuleOp::create(mb, module.getLoc(), kGPUModuleName,
                                    ArrayAttr::get(ctx, {target}));
    }
    // Tasks whose launches all use whole warps, with their block_dim (0
    // where the runtime picks it, or where launches differ).
    llvm::StringMap<uint32_t> wholeWarps;
    llvm::StringSet<> partial;
    module.walk([&](tc::LaunchOp launch) {
      std::optional<uint32_t> dim = launch.getBlockDim();
      StringRef task = launch.getTask();
      if (launch.getSerialize() || (dim && *dim % 32 != 0))
        partial.insert(task);
      auto [it, added] = wholeWarps.try_emplace(task, dim.value_or(0));
      if (!added && it->second != dim.value_or(0))
        it->second = 0;
    });
    for (const auto &task : partial)
      wholeWarps.erase(task.getKey());
    FunctionEnvs envs;
    {
      ConversionTarget target(*ctx);
      target.addIllegalOp<tc::TaskOp, tc::KernelOp>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      RewritePatternSet patterns(ctx);
      populateTCToGPUPatterns(patterns, gm, envs, unroll, wholeWarps);
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
    if (gm)
      for (auto fn : gm.getOps<gpu::GPUFuncOp>())
        lowerBlockLoops(fn);
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
    // Globals of the host module the device code refers to (the ambient
    // and sink cells of sparse nodes) get a device copy of their own.
    gm.walk([&](LLVM::AddressOfOp a) {
      StringRef name = a.getGlobalName();
      if (gm.lookupSymbol(name))
        return;
      if (auto g = module.lookupSymbol<LLVM::GlobalOp>(name)) {
        OpBuilder mb = OpBuilder::atBlockBegin(gm.getBody());
        mb.clone(*g);
      }
    });
    buildPoolCollectKernels(gm, layout);
    // Device code synchronises with other device threads only (the host
    // reads after the launch is over): atomics at device scope (.gpu), not
    // the system scope (.sys) LLVM's default syncscope gives.
    auto deviceScope = [&](auto op) {
      if (!op.getSyncscope())
        op.setSyncscope(StringRef("device"));
    };
    gm.walk([&](Operation *op) {
      if (auto a = dyn_cast<LLVM::AtomicRMWOp>(op))
        deviceScope(a);
      else if (auto c = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
        deviceScope(c);
      else if (auto l = dyn_cast<LLVM::LoadOp>(op);
               l && l.getOrdering() != LLVM::AtomicOrdering::not_atomic)
        deviceScope(l);
      else if (auto st = dyn_cast<LLVM::StoreOp>(op);
               st && st.getOrdering() != LLVM::AtomicOrdering::not_atomic)
        deviceScope(st);
    });
    // The descriptors no access needed any more.
    gm.walk([](UnrealizedConversionCastOp c) {
      if (c->use_empty() && getNDArrayParts(c.getResult(0)))
        c.erase();
    });
    // Read-only fields go through the read-only data cache (ld.global.nc):
    // a load tagged with the alias scope of a field that no write of its
    // kernel is tagged with (distinct fields never alias) is invariant while
    // the kernel runs. A write without a field scope to anything but a
    // local or a global of the gpu.module (the failure record) keeps every
    // load as it is.
    gm.walk([&](gpu::GPUFuncOp fn) {
      llvm::SmallPtrSet<Attribute, 8> written;
      bool unknownWrite = false;
      auto localOrGlobal = [](Value p) {
        while (auto gep = p.getDefiningOp<LLVM::GEPOp>())
          p = gep.getBase();
        Operation *d = p.getDefiningOp();
        return d && isa<LLVM::AllocaOp, LLVM::AddressOfOp>(d);
      };
      fn.walk([&](Operation *op) {
        Value addr;
        if (auto st = dyn_cast<LLVM::StoreOp>(op))
          addr = st.getAddr();
        else if (isa<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>(op))
          addr = op->getOperand(0);
        else if (isa<LLVM::MemsetOp, LLVM::MemcpyOp, LLVM::MemmoveOp>(op))
          unknownWrite = true; // (calls: libdevice and vprintf only)
        if (!addr)
          return;
        auto scopes = op->getAttrOfType<ArrayAttr>("alias_scopes");
        if (scopes && !scopes.empty()) {
          for (Attribute a : scopes)
            written.insert(a);
        } else if (!localOrGlobal(addr)) {
          unknownWrite = true;
        }
      });
      if (unknownWrite)
        return;
      fn.walk([&](LLVM::LoadOp load) {
        ArrayAttr scopes = load.getAliasScopesAttr();
        if (!scopes || scopes.empty())
          return;
        for (Attribute a : scopes)
          if (written.contains(a))
            return;
        load.setInvariant(true);
      });
    });
    // With ftz, libdevice's functions take their flushing variants
    // (__nvvm_reflect("__CUDA_FTZ") reads this module flag).
    if (ftz) {
      OpBuilder mb = OpBuilder::atBlockBegin(gm.getBody());
      auto flag = LLVM::ModuleFlagAttr::get(
          ctx, LLVM::ModFlagBehavior::Override,
          StringAttr::get(ctx, "nvvm-reflect-ftz"), mb.getI32IntegerAttr(1));
      LLVM::ModuleFlagsOp::create(mb, module.getLoc(),
                                  ArrayAttr::get(ctx, {flag}));
    }
    // f32 square roots correctly rounded, as on the CPU: libdevice's
    // __nv_fsqrt_rn (its __nv_sqrtf is approximate unless __CUDA_PREC_SQRT
    // is reflected); f64 ones are exact already.
    gm.walk([&](Operation *op) {
      if (!isa<math::SqrtOp, math::RsqrtOp>(op) ||
          !op->getResult(0).getType().isF32())
        return;
      OpBuilder b(op);
      Location loc = op->getLoc();
      Type f32 = b.getF32Type();
      auto fn = gm.lookupSymbol<LLVM::LLVMFuncOp>("__nv_fsqrt_rn");
      if (!fn) {
        OpBuilder mb = OpBuilder::atBlockEnd(gm.getBody());
        fn = LLVM::LLVMFuncOp::create(mb, loc, "__nv_fsqrt_rn",
                                      LLVM::LLVMFunctionType::get(f32, {f32}));
      }
      Value r = LLVM::CallOp::create(b, loc, fn, op->getOperand(0)).getResult();
      if (isa<math::RsqrtOp>(op))
        r = arith::DivFOp::create(
            b, loc, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)),
            r);
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    });
    snode::eraseLayoutIfUnused(module);
  }
};
} // namespace

void tic::populateTCToGPUPatterns(RewritePatternSet &patterns,
                                  gpu::GPUModuleOp gpuModule,
                                  FunctionEnvs &envs, unsigned unroll,
                                  const llvm::StringMap<uint32_t> &wholeWarps) {
  patterns.add<TaskToGPUFuncLowering>(patterns.getContext(), gpuModule, envs,
                                      unroll, wholeWarps);
  patterns.add<KernelErasure>(patterns.getContext());
}

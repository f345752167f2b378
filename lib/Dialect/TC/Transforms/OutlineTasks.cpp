//===- OutlineTasks.cpp - tic-outline-tasks -------------------------------===//
//
// tc.parallel_for -> tc.task (the body, over a range of linear iteration
// numbers, with structured loops) + tc.launch. Target-neutral: how a launch
// splits its range and where the thread index comes from is the target's.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace tic {
#define GEN_PASS_DEF_OUTLINETASKS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

struct Outliner {
  ModuleOp module;
  SymbolTable &symbols;

  LogicalResult outline(tc::ParallelForOp pf, tc::KernelOp kernel,
                        unsigned index, Operation *&insertAfter);
};

LogicalResult Outliner::outline(tc::ParallelForOp pf, tc::KernelOp kernel,
                                unsigned index, Operation *&insertAfter) {
  Location loc = pf.getLoc();
  unsigned rank = pf.getRank();
  Type ivTy = pf.getLowerBounds()[0].getType();
  OpBuilder b(pf.getContext());
  Type i64 = b.getI64Type();
  if (!pf.getBody().hasOneBlock())
    return pf.emitOpError(
        "body must be one block (run tic-lift-control-flow first)");
  Block &src = pf.getBody().front();
  for (Operation &op : src.without_terminator())
    if (op.walk([](tc::YieldOp y) {
            // (A tc.block_for's own terminator stays in the iteration.)
            return isa<tc::BlockForOp>(y->getParentOp())
                       ? WalkResult::advance()
                       : WalkResult::interrupt();
          }).wasInterrupted())
      return op.emitOpError(
          "leaves the parallel loop's iteration from a nested "
          "region (run tic-lift-control-flow first)");

  // Values the body needs: captured from the kernel, or cloned constants.
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(pf->getRegions(), used);
  for (Value v : pf->getOperands())
    used.insert(v);
  SmallVector<Value> captures, constants;
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>() &&
        def->getNumOperands() == 0 && def->getNumRegions() == 0)
      constants.push_back(v);
    else
      captures.push_back(v);
  }

  // --- the task ----------------------------------------------------------
  // (host_only loops are numbered apart: the others keep the names of the
  // device module's kernels, which has none of them.)
  std::string name = (kernel.getSymName() +
                      (pf.getHostOnly() ? "__host" : "__par") + Twine(index))
                         .str();
  if (symbols.lookup(name))
    return pf.emitOpError("cannot outline into '")
           << name << "': the name is taken";
  b.setInsertionPointAfter(insertAfter);
  auto task = tc::TaskOp::create(b, loc, name);
  symbols.insert(task);
  insertAfter = task;
  Block *entry = new Block();
  task.getBody().push_back(entry);
  Value begin = entry->addArgument(i64, loc),
        end = entry->addArgument(i64, loc);
  IRMapping map;
  for (Value v : captures)
    map.map(v, entry->addArgument(v.getType(), v.getLoc()));
  b.setInsertionPointToEnd(entry);
  for (Value c : constants)
    b.clone(*c.getDefiningOp(), map);

  auto toI64 = [&](OpBuilder &bb, Value v) -> Value {
    return v.getType() == i64 ? v
                              : Value(arith::ExtSIOp::create(bb, loc, i64, v));
  };
  // Loop variables lie in [lo, hi) of the loop's own type: the truncation
  // never wraps, and `nsw` lets LLVM fold sext(trunc(iv)) back to the i64
  // induction variable, so that field accesses stay affine.
  auto fromI64 = [&](OpBuilder &bb, Value v) -> Value {
    if (ivTy == i64)
      return v;
    return arith::TruncIOp::create(
        bb, loc, ivTy, v,
        arith::IntegerOverflowFlagsAttr::get(bb.getContext(),
                                             arith::IntegerOverflowFlags::nsw));
  };
  // The innermost loop variable is also carried as an induction variable of
  // its own (narrower) type, incremented with `nsw`, instead of being
  // truncated from the i64 counter in every iteration: SCEV then sees
  // `a[i, j - 1]` as an affine function of the loop (like C's `int j`).
  bool narrowIV = ivTy != i64;
  auto stepVar = [&](OpBuilder &bb, Value v) -> Value {
    Value oneV = arith::ConstantIntOp::create(bb, loc, ivTy, 1);
    return arith::AddIOp::create(bb, loc, v, oneV,
                                 arith::IntegerOverflowFlags::nsw);
  };
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value one = arith::ConstantIntOp::create(b, loc, i64, 1);
  SmallVector<Value> lo, n;
  for (unsigned d = 0; d < rank; ++d) {
    Value l = toI64(b, map.lookup(pf.getLowerBounds()[d]));
    Value h = toI64(b, map.lookup(pf.getUpperBounds()[d]));
    lo.push_back(l);
    n.push_back(arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, h, l), zero));
  }
  // The loop's limit, once per task instance: the range stops before the
  // first iteration whose first index reaches it.
  if (Value limit = pf.getLimitValue()) {
    for (Operation &op : pf.getLimit().front().without_terminator())
      b.clone(op, map);
    Value firsts = arith::MaxSIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, toI64(b, map.lookup(limit)), lo[0]),
        zero);
    Value stop = firsts;
    for (unsigned d = 1; d < rank; ++d)
      stop = arith::MulIOp::create(b, loc, stop, n[d]);
    auto endOp = arith::MinSIOp::create(b, loc, end, stop);
    endOp->setAttr(tc::TaskOp::getRangeEndAttrName(), b.getUnitAttr());
    end = endOp;
  }

  // One iteration: the loop's body with its induction variables bound.
  auto emitBody = [&](OpBuilder &bb, ValueRange ivs) {
    for (auto [a, v] : llvm::zip(src.getArguments(), ivs))
      map.map(a, v);
    for (Operation &op : src.without_terminator())
      bb.clone(op, map);
  };
  // for j in [from, to): body(outer..., lo_last + j), the innermost loop.
  auto emitInner = [&](OpBuilder &bb, Value from, Value to,
                       ValueRange outer) -> Operation * {
    SmallVector<Value, 1> init;
    if (narrowIV)
      init.push_back(
          fromI64(bb, arith::AddIOp::create(bb, loc, lo[rank - 1], from)));
    return scf::ForOp::create(
        bb, loc, from, to, one, init,
        [&](OpBuilder &fb, Location, Value j, ValueRange iter) {
          SmallVector<Value> ivs(outer.begin(), outer.end());
          ivs.push_back(narrowIV ? iter[0]
                                 : fromI64(fb, arith::AddIOp::create(
                                                   fb, loc, lo[rank - 1], j)));
          emitBody(fb, ivs);
          SmallVector<Value, 1> next;
          if (narrowIV)
            next.push_back(stepVar(fb, iter[0]));
          scf::YieldOp::create(fb, loc, next);
        });
  };
  Operation *iterations;
  if (rank == 1) {
    iterations = emitInner(b, begin, end, {});
  } else {
    // Rows of the innermost dimension: [lin, lin + (jend - r)) per trip.
    Value nInner = n[rank - 1];
    iterations = scf::WhileOp::create(
        b, loc, TypeRange{i64}, ValueRange{begin},
        [&](OpBuilder &wb, Location, ValueRange args) {
          Value c = arith::CmpIOp::create(wb, loc, arith::CmpIPredicate::slt,
                                          args[0], end);
          scf::ConditionOp::create(wb, loc, c, args);
        },
        [&](OpBuilder &wb, Location, ValueRange args) {
          Value lin = args[0];
          Value q = arith::DivUIOp::create(wb, loc, lin, nInner);
          Value r = arith::RemUIOp::create(wb, loc, lin, nInner);
          Value rest = arith::SubIOp::create(wb, loc, end, lin);
          Value jend = arith::MinSIOp::create(
              wb, loc, nInner, arith::AddIOp::create(wb, loc, r, rest));
          SmallVector<Value> outer(rank - 1);
          for (int d = int(rank) - 2; d >= 0; --d) {
            Value i =
                d == 0 ? q : Value(arith::RemUIOp::create(wb, loc, q, n[d]));
            if (d > 0)
              q = arith::DivUIOp::create(wb, loc, q, n[d]);
            outer[d] = fromI64(wb, arith::AddIOp::create(wb, loc, lo[d], i));
          }
          emitInner(wb, r, jend, outer);
          Value step = arith::SubIOp::create(wb, loc, jend, r);
          scf::YieldOp::create(
              wb, loc, ValueRange{arith::AddIOp::create(wb, loc, lin, step)});
        });
  }
  // Marks the loop over the range: what comes before it runs once per task
  // instance (a target may share it between several ranges, as a GPU thread
  // does across its grid-stride iterations), what comes after once at the
  // end.
  iterations->setAttr(tc::TaskOp::getIterationsAttrName(), b.getUnitAttr());
  tc::ReturnOp::create(b, loc);

  // --- the launch --------------------------------------------------------
  OpBuilder kb(pf);
  Value total = arith::ConstantIntOp::create(kb, loc, i64, 1);
  Value kzero = arith::ConstantIntOp::create(kb, loc, i64, 0);
  SmallVector<Value> klo, kn;
  for (unsigned d = 0; d < rank; ++d) {
    Value l = toI64(kb, pf.getLowerBounds()[d]),
          h = toI64(kb, pf.getUpperBounds()[d]);
    Value e = arith::MaxSIOp::create(
        kb, loc, arith::SubIOp::create(kb, loc, h, l), kzero);
    total = arith::MulIOp::create(kb, loc, total, e);
    klo.push_back(l);
    kn.push_back(e);
  }
  auto launch = tc::LaunchOp::create(
      kb, loc, FlatSymbolRefAttr::get(task.getSymNameAttr()), total, captures,
      pf.getSerializeAttr(), pf.getGrainAttr(), pf.getBlockDimAttr(),
      pf.getHostOnlyAttr());
  // The launch carries the loop's limit too, as the same stop: a target
  // whose launcher can read the memory it reads (a CPU) launches only the
  // iterations before it.
  if (Value limit = pf.getLimitValue()) {
    launch.getLimit().takeBody(pf.getLimit());
    Block &lb = launch.getLimit().front();
    Operation *yield = lb.getTerminator();
    OpBuilder yb(yield);
    Value stop = arith::MaxSIOp::create(
        yb, loc, arith::SubIOp::create(yb, loc, toI64(yb, limit), klo[0]),
        kzero);
    for (unsigned d = 1; d < rank; ++d)
      stop = arith::MulIOp::create(yb, loc, stop, kn[d]);
    tc::YieldOp::create(yb, loc, ValueRange{stop});
    yield->erase();
  }
  pf.erase();
  return success();
}

struct OutlineTasksPass : tic::impl::OutlineTasksBase<OutlineTasksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    Outliner outliner{module, symbols};
    SmallVector<tc::KernelOp> kernels(module.getOps<tc::KernelOp>());
    for (tc::KernelOp kernel : kernels) {
      SmallVector<tc::ParallelForOp> loops;
      kernel.walk([&](tc::ParallelForOp pf) { loops.push_back(pf); });
      Operation *insertAfter = kernel;
      unsigned next[2] = {0, 0}; // device loops, host_only ones
      for (tc::ParallelForOp pf : loops)
        if (failed(outliner.outline(pf, kernel, next[pf.getHostOnly()]++,
                                    insertAfter)))
          return signalPassFailure();
    }
  }
};
} // namespace

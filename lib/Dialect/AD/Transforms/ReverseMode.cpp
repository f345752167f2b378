//===- ReverseMode.cpp - tic-reverse-mode ---------------------------------===//
//
// Reverse-mode AD of tc kernels (DiffTaichi, thesis 3.1 and appendix B), as
// a source transformation on the structured IR:
//
//  * preprocessing on a copy of the kernel: locals to SSA (promoteLocals),
//    kernel-level differentiable values a parallel loop uses recomputed in
//    the loop, activity analysis (which float values depend on a load of a
//    needs_grad field), checks of what cannot be differentiated;
//  * each block is re-emitted without its stores (the primal values are
//    recomputed, never stored), then its operations are visited in reverse
//    order, accumulating adjoints in SSA values. Regions keep their
//    structure: a parallel loop gets a parallel adjoint loop over the same
//    range or the same active cells, a serial scf.for or scf.while runs
//    backwards (values it carries come back from an adjoint stack), an
//    scf.if is differentiated branch by branch under the same condition.
//    Adjoints of values from outside a region leave it as results (if) or
//    loop-carried sums (for).
//
//===----------------------------------------------------------------------===//
#include "Derivatives.h"

#include "tic/Dialect/AD/ADDialect.h"
#include "tic/Dialect/AD/Passes.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace tic {
#define GEN_PASS_DEF_REVERSEMODE
#include "tic/Dialect/AD/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

using ad::ADDialect;

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
}

/// Side effects of the primal that the adjoint drops when it recomputes.
bool isDroppedEffect(Operation *op) {
  return isa<tc::StoreOp, tc::AtomicRMWOp, tc::NDArrayStoreOp,
             tc::NDArrayAtomicRMWOp, tc::PrintOp, tc::AssertOp, tc::ActivateOp,
             tc::DeactivateOp, tc::AppendOp>(op);
}

/// Whether `v` is used, other than through scf.yield into results nobody
/// uses (-g wraps atomics in bounds-check ifs that yield the old value).
bool isNeeded(Value v) {
  for (OpOperand &use : v.getUses()) {
    auto y = dyn_cast<scf::YieldOp>(use.getOwner());
    if (!y || !isa<scf::IfOp>(y->getParentOp()))
      return true;
    if (isNeeded(y->getParentOp()->getResult(use.getOperandNumber())))
      return true;
  }
  return false;
}

bool isParallelLoop(Operation *op) {
  return isa<tc::ParallelForOp, tc::StructForOp>(op);
}

/// Adjoints accumulated in one region: primal value -> adjoint so far.
struct Scope {
  llvm::DenseMap<Value, Value> adj;
  Value get(Value v) const { return adj.lookup(v); }
};

class KernelReverser {
public:
  KernelReverser(const llvm::DenseMap<StringAttr, FlatSymbolRefAttr> &grads,
                 int64_t stackSize)
      : grads(grads), stackSize(stackSize) {}

  /// Builds the body of `adjoint` from `primal` (a copy, modified here).
  LogicalResult run(tc::KernelOp primal, tc::KernelOp adjoint);

private:
  FlatSymbolRefAttr gradOf(FlatSymbolRefAttr field) const {
    return grads.lookup(field.getAttr());
  }
  bool isActive(Value v) const { return active.contains(v); }

  void computeActivity(tc::KernelOp k);
  LogicalResult sinkIntoParallelLoops(tc::KernelOp k);
  LogicalResult check(tc::KernelOp k);
  /// The global data access rules (DiffTaichi; docs/autodiff.md), where a
  /// kernel breaks them visibly: two plain writes of one element, a read
  /// then a write of one element, a read and an accumulation of one element.
  LogicalResult checkAccessRules(tc::KernelOp k);
  bool needsReverse(Operation *op);
  /// The number of iterations of a loop with constant bounds, else none.
  static std::optional<int64_t> constantTripCount(scf::ForOp f);
  /// After `clone` (a copy of `primal` in the adjoint): the adjoint stack,
  /// one slot per iteration for each loop-carried value, filled at the top
  /// of each iteration of the copy.
  void recordStack(scf::ForOp primal, scf::ForOp clone);
  /// The same for a while loop: a counter of its iterations and, per
  /// iteration, the values its `before` region receives.
  void recordWhileStack(scf::WhileOp primal, scf::WhileOp clone);
  /// `k` as the index of a slot of a stack of `n` slots: asserts it fits
  /// (`check`), clamps it, casts it to index.
  Value stackIndex(OpBuilder &b, Location loc, Value k, int64_t n, bool check,
                   Operation *loop);

  void forwardBlock(Block &pb, OpBuilder &b, IRMapping &map);
  LogicalResult reverseBlock(Block &pb, OpBuilder &b, IRMapping &map,
                             Scope &sc);
  LogicalResult reverseOp(Operation *op, OpBuilder &b, IRMapping &map,
                          Scope &sc);
  LogicalResult reverseParallel(Operation *op, OpBuilder &b, IRMapping &map);
  LogicalResult reverseIf(scf::IfOp op, OpBuilder &b, IRMapping &map,
                          Scope &sc);
  LogicalResult reverseWhile(scf::WhileOp op, OpBuilder &b, IRMapping &map,
                             Scope &sc);
  /// Ends the body of a reversed loop `rev` (iter args: the adjoints of
  /// `carried`, then sums for the `outer` values) and hands its results to
  /// the scope around it: the carried adjoints to `inits`, the sums to
  /// `outer`.
  void closeReversedLoop(scf::ForOp rev, OpBuilder &bb, OpBuilder &b,
                         Scope &inner, Scope &sc, ArrayRef<Value> carried,
                         ArrayRef<Value> inits,
                         const llvm::SetVector<Value> &outer, Location loc);
  LogicalResult reverseFor(scf::ForOp op, OpBuilder &b, IRMapping &map,
                           Scope &sc);

  void accumulate(Scope &sc, OpBuilder &b, Value primal, Value delta) {
    if (!isActive(primal))
      return;
    Value &slot = sc.adj[primal];
    slot =
        slot ? arith::AddFOp::create(b, delta.getLoc(), slot, delta).getResult()
             : delta;
  }
  /// The active float values used in `op`'s regions and defined outside.
  llvm::SetVector<Value> activeFromAbove(Operation *op) {
    llvm::SetVector<Value> above, out;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    for (Value v : above)
      if (isActive(v))
        out.insert(v);
    return out;
  }

  const llvm::DenseMap<StringAttr, FlatSymbolRefAttr> &grads;
  int64_t stackSize; // slots of an adjoint stack without a constant size
  llvm::DenseSet<Value> active;
  /// The adjoint stacks of the latest copy of each loop with carried values.
  llvm::DenseMap<Operation *, SmallVector<Value>> stacks;
};

//===----------------------------------------------------------------------===//
// Preprocessing
//===----------------------------------------------------------------------===//

void KernelReverser::computeActivity(tc::KernelOp k) {
  active.clear();
  SmallVector<Value> work;
  auto mark = [&](Value v) {
    if (isFloat(v) && active.insert(v).second)
      work.push_back(v);
  };
  k.walk([&](tc::LoadOp ld) {
    if (gradOf(ld.getFieldAttr()))
      mark(ld.getResult());
  });
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      unsigned i = use.getOperandNumber();
      if (auto y = dyn_cast<scf::YieldOp>(user)) {
        Operation *p = y->getParentOp();
        if (auto f = dyn_cast<scf::ForOp>(p)) {
          mark(f.getResult(i));
          mark(f.getRegionIterArgs()[i]);
        } else if (auto w = dyn_cast<scf::WhileOp>(p)) {
          mark(w.getBeforeArguments()[i]);
        } else {
          mark(p->getResult(i));
        }
      } else if (auto c = dyn_cast<scf::ConditionOp>(user)) {
        if (i == 0)
          continue;
        auto w = cast<scf::WhileOp>(c->getParentOp());
        mark(w.getAfterArguments()[i - 1]);
        mark(w.getResult(i - 1));
      } else if (auto f = dyn_cast<scf::ForOp>(user)) {
        if (i >= 3) {
          mark(f.getRegionIterArgs()[i - 3]);
          mark(f.getResult(i - 3));
        }
      } else if (auto w = dyn_cast<scf::WhileOp>(user)) {
        mark(w.getBeforeArguments()[i]);
      } else if (isa<tc::StoreOp, tc::AtomicRMWOp>(user)) {
        // sinks: their adjoints come from the field's adjoint
      } else {
        for (Value r : user->getResults())
          mark(r);
      }
    }
  }
}

/// A kernel-level value that a parallel loop uses and that needs an adjoint
/// is recomputed at the top of the loop body, so that every adjoint
/// contribution stays inside the loop (and reaches fields atomically).
LogicalResult KernelReverser::sinkIntoParallelLoops(tc::KernelOp k) {
  SmallVector<Operation *> loops;
  k.walk([&](Operation *op) {
    if (isParallelLoop(op))
      loops.push_back(op);
  });
  for (Operation *loop : loops) {
    llvm::SetVector<Value> above = activeFromAbove(loop);
    if (above.empty())
      continue;
    Block &body = loop->getRegion(0).front();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    IRMapping m;
    std::function<LogicalResult(Value)> sink = [&](Value v) -> LogicalResult {
      if (m.contains(v) || !isActive(v))
        return success();
      Operation *def = v.getDefiningOp();
      if (!def || def->getNumRegions() ||
          !(isPure(def) || isa<tc::LoadOp>(def)))
        return emitError(v.getLoc())
               << "reverse-mode AD: this differentiable value is computed "
                  "outside the parallel loop that uses it; compute it inside "
                  "the loop (not supported yet)";
      for (Value o : def->getOperands())
        if (failed(sink(o)))
          return failure();
      b.clone(*def, m);
      return success();
    };
    for (Value v : above) {
      if (failed(sink(v)))
        return failure();
      Value nv = m.lookup(v);
      v.replaceUsesWithIf(nv, [&](OpOperand &u) {
        return loop->isProperAncestor(u.getOwner());
      });
    }
  }
  return success();
}

bool KernelReverser::needsReverse(Operation *op) {
  return op
      ->walk([&](Operation *inner) {
        for (Value r : inner->getResults())
          if (isActive(r))
            return WalkResult::interrupt();
        for (Region &reg : inner->getRegions())
          for (Block &blk : reg)
            for (Value a : blk.getArguments())
              if (isActive(a))
                return WalkResult::interrupt();
        if (auto st = dyn_cast<tc::StoreOp>(inner))
          if (gradOf(st.getFieldAttr()))
            return WalkResult::interrupt();
        if (auto at = dyn_cast<tc::AtomicRMWOp>(inner))
          if (gradOf(at.getFieldAttr()))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult KernelReverser::checkAccessRules(tc::KernelOp k) {
  struct Access {
    Operation *op;
    enum Kind { Read, Write, Accumulate } kind;
  };
  // Accesses to each differentiable field, in program order.
  llvm::MapVector<StringAttr, SmallVector<Access>> byField;
  k.walk([&](Operation *op) {
    if (auto ld = dyn_cast<tc::LoadOp>(op)) {
      if (gradOf(ld.getFieldAttr()))
        byField[ld.getFieldAttr().getAttr()].push_back({op, Access::Read});
    } else if (auto st = dyn_cast<tc::StoreOp>(op)) {
      if (gradOf(st.getFieldAttr()))
        byField[st.getFieldAttr().getAttr()].push_back({op, Access::Write});
    } else if (auto at = dyn_cast<tc::AtomicRMWOp>(op)) {
      if (gradOf(at.getFieldAttr()))
        byField[at.getFieldAttr().getAttr()].push_back(
            {op, Access::Accumulate});
    }
  });
  // The same element: the same index values (the copy went through CSE)
  // and component.
  auto element = [](Operation *op) {
    SmallVector<Value> idx;
    int64_t comp = 0;
    if (auto ld = dyn_cast<tc::LoadOp>(op)) {
      idx.append(ld.getIndices().begin(), ld.getIndices().end());
      comp = ld.getComp();
    } else if (auto st = dyn_cast<tc::StoreOp>(op)) {
      idx.append(st.getIndices().begin(), st.getIndices().end());
      comp = st.getComp();
    } else {
      auto at = cast<tc::AtomicRMWOp>(op);
      idx.append(at.getIndices().begin(), at.getIndices().end());
      comp = at.getComp();
    }
    return std::make_pair(idx, comp);
  };
  DominanceInfo dom(k);
  LogicalResult result = success();
  for (auto &[field, accesses] : byField) {
    for (size_t j = 0; j < accesses.size(); ++j) {
      for (size_t i = 0; i < j; ++i) {
        Access a = accesses[i], b = accesses[j];
        // Both run, a first: a dominates b (not two branches of an if).
        if (!dom.properlyDominates(a.op, b.op) ||
            element(a.op) != element(b.op))
          continue;
        const char *what = nullptr;
        if (a.kind == Access::Write && b.kind == Access::Write)
          what = "is written twice; every write after the first must be an "
                 "accumulation (+=)";
        else if (a.kind == Access::Read && b.kind == Access::Write)
          what = "is read and then overwritten; the adjoint would recompute "
                 "the read with the new value";
        else if (a.kind == Access::Read && b.kind == Access::Accumulate)
          what = "is read before it is accumulated into; no read may "
                 "happen before the accumulation is done";
        else if (a.kind == Access::Accumulate && b.kind == Access::Read)
          what = "is read after an accumulation in the same kernel, "
                 "before the accumulation is done";
        else if (a.kind == Access::Accumulate && b.kind == Access::Write)
          what = "is overwritten after an accumulation";
        if (!what)
          continue;
        result = failure();
        InFlightDiagnostic d =
            b.op->emitError("reverse-mode AD: this element of ");
        d << "'" << field.getValue() << "' " << what
          << " (a global data access rule); mark the kernel @no_grad or "
             "keep each value in its own element";
        d.attachNote(a.op->getLoc()) << "the earlier access";
        break;
      }
    }
  }
  return result;
}

/// What the transformation cannot handle, reported at the operation.
LogicalResult KernelReverser::check(tc::KernelOp k) {
  LogicalResult result = success();
  auto fail = [&](Operation *op) {
    result = failure();
    return op->emitError("reverse-mode AD: ");
  };
  k.walk([&](Operation *op) {
    if (auto at = dyn_cast<tc::AtomicRMWOp>(op)) {
      if (isNeeded(at.getResult()))
        fail(op) << "the value an atomic operation returns cannot be used "
                    "in a kernel that is differentiated (the adjoint "
                    "recomputes the kernel without its atomics)";
      else if (gradOf(at.getFieldAttr()) &&
               at.getKind() != tc::AtomicKind::add &&
               at.getKind() != tc::AtomicKind::sub)
        fail(op) << "atomic " << tc::stringifyAtomicKind(at.getKind())
                 << " on the differentiable field " << at.getFieldAttr()
                 << " has no adjoint (only += and -= do)";
    } else if (auto ap = dyn_cast<tc::AppendOp>(op)) {
      if (isNeeded(ap->getResult(0)))
        fail(op) << "the index append returns cannot be used in a kernel "
                    "that is differentiated";
    } else if (isa<scf::ExecuteRegionOp, scf::IndexSwitchOp>(op)) {
      if (needsReverse(op))
        fail(op) << "break, continue and return inside differentiable code "
                    "are not supported";
    }
  });
  return result;
}

//===----------------------------------------------------------------------===//
// The adjoint
//===----------------------------------------------------------------------===//

/// Drops the mappings of the blocks (and their arguments) nested in `op`.
static void forgetNested(Operation *op, IRMapping &map) {
  for (Region &r : op->getRegions())
    for (Block &blk : r) {
      map.erase(&blk);
      for (BlockArgument a : blk.getArguments())
        map.erase(a);
      for (Operation &inner : blk)
        forgetNested(&inner, map);
    }
}

std::optional<int64_t> KernelReverser::constantTripCount(scf::ForOp f) {
  std::optional<int64_t> lb = getConstantIntValue(f.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(f.getUpperBound());
  std::optional<int64_t> st = getConstantIntValue(f.getStep());
  if (!lb || !ub || !st || *st <= 0)
    return std::nullopt;
  return *ub > *lb ? (*ub - *lb + *st - 1) / *st : 0;
}

/// The source names of the locals a loop carries, for messages.
static std::string carriedNames(Operation *f) {
  std::string which;
  if (auto names = f->getAttrOfType<ArrayAttr>("tc.local_names"))
    for (Attribute a : names)
      if (auto s = dyn_cast<StringAttr>(a); s && !s.empty())
        which += (which.empty() ? "'" : ", '") + s.str() + "'";
  return which.empty() ? "its loop-carried values" : which;
}

/// The block where the stacks of a loop live: the entry block of the
/// enclosing parallel loop body (one per thread) or of the kernel, never in
/// a loop, so that they take stack memory once.
static Block *stackHome(Operation *clone) {
  Operation *home = clone->getParentOp();
  while (home && !isParallelLoop(home) && !isa<tc::KernelOp>(home))
    home = home->getParentOp();
  return &home->getRegion(0).front();
}

Value KernelReverser::stackIndex(OpBuilder &b, Location loc, Value k, int64_t n,
                                 bool check, Operation *loop) {
  Type it = k.getType();
  if (check) {
    // A trip count known at run time only: a kernel failure when the loop
    // runs longer than the stack.
    Value cap = arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, n));
    Value fits =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k, cap);
    tc::AssertOp::create(
        b, loc, fits,
        ("adjoint stack overflow: this serial loop, which carries " +
         carriedNames(loop) + ", ran more than " + Twine(n) +
         " iterations (the stack size of tic-reverse-mode)")
            .str());
  }
  // clamped: an overflow was reported, and no access leaves the stack
  Value last =
      arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, n - 1));
  k = arith::MinSIOp::create(b, loc, k, last);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), k);
}

void KernelReverser::recordWhileStack(scf::WhileOp primal, scf::WhileOp clone) {
  Location loc = primal.getLoc();
  OpBuilder ab = OpBuilder::atBlockBegin(stackHome(clone));
  Type i32 = ab.getI32Type();
  // slot 0: the number of iterations; then one stack per `before` argument
  SmallVector<Value> slots{
      memref::AllocaOp::create(ab, loc, MemRefType::get({}, i32))};
  for (BlockArgument a : primal.getBeforeArguments())
    slots.push_back(memref::AllocaOp::create(
        ab, loc, MemRefType::get({stackSize}, a.getType())));
  OpBuilder pre(clone);
  memref::StoreOp::create(
      pre, loc,
      arith::ConstantOp::create(pre, loc, i32, pre.getI32IntegerAttr(0)),
      slots[0], ValueRange{});
  OpBuilder bb = OpBuilder::atBlockBegin(&clone.getBefore().front());
  Value k = memref::LoadOp::create(bb, loc, slots[0], ValueRange{});
  Value idx = stackIndex(bb, loc, k, stackSize, true, primal);
  for (auto [slot, v] : llvm::zip(ArrayRef<Value>(slots).drop_front(),
                                  clone.getBefore().front().getArguments()))
    memref::StoreOp::create(bb, loc, v, slot, ValueRange{idx});
  OpBuilder ob = OpBuilder::atBlockBegin(&clone.getAfter().front());
  Value c = memref::LoadOp::create(ob, loc, slots[0], ValueRange{});
  Value one = arith::ConstantOp::create(ob, loc, i32, ob.getI32IntegerAttr(1));
  memref::StoreOp::create(ob, loc, arith::AddIOp::create(ob, loc, c, one),
                          slots[0], ValueRange{});
  stacks[primal] = std::move(slots);
}

void KernelReverser::recordStack(scf::ForOp primal, scf::ForOp clone) {
  std::optional<int64_t> trips = constantTripCount(primal);
  int64_t n = trips ? std::max<int64_t>(*trips, 1) : stackSize;
  OpBuilder ab = OpBuilder::atBlockBegin(stackHome(clone));
  Location loc = primal.getLoc();
  SmallVector<Value> slots;
  for (Type t : primal.getResultTypes())
    slots.push_back(memref::AllocaOp::create(ab, loc, MemRefType::get({n}, t)));
  OpBuilder b = OpBuilder::atBlockBegin(clone.getBody());
  Value k = arith::DivSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, clone.getInductionVar(),
                            clone.getLowerBound()),
      clone.getStep());
  Value idx = stackIndex(b, loc, k, n, !trips, primal);
  for (auto [slot, v] : llvm::zip(slots, clone.getRegionIterArgs()))
    memref::StoreOp::create(b, loc, v, slot, ValueRange{idx});
  stacks[primal] = std::move(slots);
}

/// Re-emits the primal values of `pb` (not its stores, atomics or parallel
/// loops; regions only where they compute values).
void KernelReverser::forwardBlock(Block &pb, OpBuilder &b, IRMapping &map) {
  for (Operation &op : pb.without_terminator()) {
    if (isDroppedEffect(&op) || isParallelLoop(&op))
      continue;
    if (op.getNumRegions() && op.getNumResults() == 0)
      continue;
    // A region copied before (by an enclosing copy) is copied afresh: its
    // blocks and their arguments must not map to the earlier copy's.
    forgetNested(&op, map);
    Operation *clone = b.clone(op, map);
    if (!clone->getNumRegions())
      continue;
    SmallVector<Operation *> dead;
    clone->walk([&](Operation *inner) {
      if (isDroppedEffect(inner) || (isParallelLoop(inner) && inner != clone))
        dead.push_back(inner);
    });
    for (Operation *d : llvm::reverse(dead)) {
      // what still uses a dropped result (an unused if result) gets a zero
      OpBuilder zb(d);
      for (Value r : d->getResults())
        if (!r.use_empty())
          r.replaceAllUsesWith(zeroOf(zb, d->getLoc(), r.getType()));
      d->erase();
    }
    // after the cleanup: the stack's overflow check is an assert too
    if (auto f = dyn_cast<scf::ForOp>(op))
      if (f.getNumRegionIterArgs() && needsReverse(&op))
        recordStack(f, cast<scf::ForOp>(clone));
    if (auto w = dyn_cast<scf::WhileOp>(op))
      if (needsReverse(&op))
        recordWhileStack(w, cast<scf::WhileOp>(clone));
  }
}

LogicalResult KernelReverser::reverseBlock(Block &pb, OpBuilder &b,
                                           IRMapping &map, Scope &sc) {
  for (Operation &op : llvm::reverse(
           llvm::make_range(pb.begin(), Block::iterator(pb.getTerminator()))))
    if (failed(reverseOp(&op, b, map, sc)))
      return failure();
  return success();
}

LogicalResult KernelReverser::reverseOp(Operation *op, OpBuilder &b,
                                        IRMapping &map, Scope &sc) {
  Location loc = op->getLoc();
  auto mapped = [&](ValueRange vs) {
    SmallVector<Value> out;
    for (Value v : vs)
      out.push_back(map.lookupOrDefault(v));
    return out;
  };
  if (auto ld = dyn_cast<tc::LoadOp>(op)) {
    Value g = sc.get(ld.getResult());
    FlatSymbolRefAttr gf = gradOf(ld.getFieldAttr());
    if (g && gf)
      tc::AtomicRMWOp::create(b, loc, g.getType(), tc::AtomicKind::add, g,
                              gf.getValue(), mapped(ld.getIndices()),
                              ld.getComp());
    return success();
  }
  if (auto st = dyn_cast<tc::StoreOp>(op)) {
    FlatSymbolRefAttr gf = gradOf(st.getFieldAttr());
    if (!gf)
      return success();
    SmallVector<Value> idx = mapped(st.getIndices());
    Type t = st.getValue().getType();
    Value g = tc::LoadOp::create(b, loc, t, gf.getValue(), idx, st.getComp());
    accumulate(sc, b, st.getValue(), g);
    tc::StoreOp::create(b, loc, zeroOf(b, loc, t), gf.getValue(), idx,
                        st.getComp());
    return success();
  }
  if (auto at = dyn_cast<tc::AtomicRMWOp>(op)) {
    FlatSymbolRefAttr gf = gradOf(at.getFieldAttr());
    if (!gf || !isActive(at.getValue()))
      return success();
    Value g = tc::LoadOp::create(b, loc, at.getValue().getType(), gf.getValue(),
                                 mapped(at.getIndices()), at.getComp());
    if (at.getKind() == tc::AtomicKind::sub)
      g = arith::NegFOp::create(b, loc, g);
    accumulate(sc, b, at.getValue(), g);
    return success();
  }
  if (isParallelLoop(op))
    return needsReverse(op) ? reverseParallel(op, b, map) : success();
  if (auto i = dyn_cast<scf::IfOp>(op))
    return needsReverse(op) ? reverseIf(i, b, map, sc) : success();
  if (auto f = dyn_cast<scf::ForOp>(op))
    return needsReverse(op) ? reverseFor(f, b, map, sc) : success();
  if (auto w = dyn_cast<scf::WhileOp>(op))
    return needsReverse(op) ? reverseWhile(w, b, map, sc) : success();
  if (op->getNumRegions()) {
    if (!needsReverse(op))
      return success();
    return op->emitError("reverse-mode AD: '")
           << op->getName() << "' is not supported in differentiable code";
  }
  if (op->getNumResults() != 1)
    return success();
  Value g = sc.get(op->getResult(0));
  if (!g)
    return success();
  ad::LocalAdjoint r = ad::emitLocalAdjoint(
      op, g, b, map, [&](Value v) { return isActive(v); },
      [&](Value primal, Value delta) { accumulate(sc, b, primal, delta); });
  if (r == ad::LocalAdjoint::Unsupported)
    return op->emitError("reverse-mode AD: '")
           << op->getName() << "' has no derivative";
  return success();
}

LogicalResult KernelReverser::reverseParallel(Operation *op, OpBuilder &b,
                                              IRMapping &map) {
  Operation *loop = b.cloneWithoutRegions(*op, map);
  Block &pb = op->getRegion(0).front();
  Block *body = new Block();
  loop->getRegion(0).push_back(body);
  IRMapping inner = map;
  for (BlockArgument a : pb.getArguments())
    inner.map(a, body->addArgument(a.getType(), a.getLoc()));
  OpBuilder bb = OpBuilder::atBlockEnd(body);
  forwardBlock(pb, bb, inner);
  Scope sc;
  if (failed(reverseBlock(pb, bb, inner, sc)))
    return failure();
  tc::YieldOp::create(bb, op->getLoc());
  for (auto &[v, g] : sc.adj)
    if (!op->isAncestor(v.getParentRegion()->getParentOp()))
      return op->emitError("reverse-mode AD: a differentiable value from "
                           "outside this parallel loop is used in it");
  b.setInsertionPointAfter(loop);
  return success();
}

LogicalResult KernelReverser::reverseIf(scf::IfOp op, OpBuilder &b,
                                        IRMapping &map, Scope &sc) {
  Location loc = op.getLoc();
  llvm::SetVector<Value> outer = activeFromAbove(op);
  // A result may be an outer value yielded as is.
  for (Region *r : {&op.getThenRegion(), &op.getElseRegion()})
    if (!r->empty())
      for (Value y : r->front().getTerminator()->getOperands())
        if (isActive(y) && !op->isAncestor(y.getParentRegion()->getParentOp()))
          outer.insert(y);
  SmallVector<Value> resultAdj;
  for (Value res : op.getResults())
    resultAdj.push_back(sc.get(res));
  SmallVector<Type> types;
  for (Value v : outer)
    types.push_back(v.getType());
  auto rev = scf::IfOp::create(b, loc, types, map.lookup(op.getCondition()),
                               /*withElseRegion=*/true);
  for (auto [pr, nr] : llvm::zip(op->getRegions(), rev->getRegions())) {
    Block *nb = &nr.front();
    if (Operation *t = nb->empty() ? nullptr : &nb->back())
      t->erase(); // the builder's empty yield
    OpBuilder bb = OpBuilder::atBlockEnd(nb);
    Scope inner;
    IRMapping m = map;
    if (!pr.empty()) {
      Block &pb = pr.front();
      forwardBlock(pb, bb, m);
      for (auto [y, g] :
           llvm::zip(pb.getTerminator()->getOperands(), resultAdj))
        if (g)
          accumulate(inner, bb, y, g);
      if (failed(reverseBlock(pb, bb, m, inner)))
        return failure();
    }
    SmallVector<Value> outs;
    for (Value v : outer) {
      Value g = inner.get(v);
      outs.push_back(g ? g : zeroOf(bb, loc, v.getType()));
    }
    scf::YieldOp::create(bb, loc, outs);
  }
  for (auto [v, res] : llvm::zip(outer, rev.getResults()))
    accumulate(sc, b, v, res);
  return success();
}

void KernelReverser::closeReversedLoop(scf::ForOp rev, OpBuilder &bb,
                                       OpBuilder &b, Scope &inner, Scope &sc,
                                       ArrayRef<Value> carried,
                                       ArrayRef<Value> inits,
                                       const llvm::SetVector<Value> &outer,
                                       Location loc) {
  SmallVector<Value> outs;
  for (Value c : carried) {
    Value g = inner.get(c);
    outs.push_back(g ? g : zeroOf(bb, loc, c.getType()));
  }
  for (auto [v, acc] :
       llvm::zip(outer, rev.getRegionIterArgs().drop_front(carried.size()))) {
    Value g = inner.get(v);
    outs.push_back(g ? arith::AddFOp::create(bb, loc, acc, g).getResult()
                     : Value(acc));
  }
  scf::YieldOp::create(bb, loc, outs);
  for (auto [init, res] : llvm::zip(inits, rev.getResults()))
    accumulate(sc, b, init, res);
  for (auto [v, res] :
       llvm::zip(outer, rev.getResults().drop_front(carried.size())))
    accumulate(sc, b, v, res);
}

/// A while loop (scf.while: `before` computes the condition and forwards
/// values to `after`, which yields the next `before` arguments) runs
/// backwards over the iterations its copy counted: the last `before` run
/// (the one that exited) first, then each iteration's `after` and `before`
/// in reverse, their arguments read back from the adjoint stack.
LogicalResult KernelReverser::reverseWhile(scf::WhileOp op, OpBuilder &b,
                                           IRMapping &map, Scope &sc) {
  Location loc = op.getLoc();
  auto st = stacks.find(op);
  if (st == stacks.end())
    return op.emitError("reverse-mode AD: internal error: no adjoint stack "
                        "for this loop");
  SmallVector<Value> slots = st->second; // copied: inner loops add stacks
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  auto cond = cast<scf::ConditionOp>(before.getTerminator());
  Operation *yield = after.getTerminator();
  llvm::SetVector<Value> outer = activeFromAbove(op);
  Type i32 = b.getI32Type();
  auto loadArgs = [&](OpBuilder &bb, IRMapping &m, Value k) {
    Value idx = stackIndex(bb, loc, k, stackSize, false, op);
    for (auto [a, slot] :
         llvm::zip(before.getArguments(), ArrayRef<Value>(slots).drop_front()))
      m.map(a, memref::LoadOp::create(bb, loc, slot, ValueRange{idx}));
  };
  SmallVector<unsigned> carried; // float `before` arguments, by index
  for (auto [i, a] : llvm::enumerate(before.getArguments()))
    if (isFloat(a))
      carried.push_back(i);

  // The run of `before` that exited: the results' adjoints seed it.
  Value count = memref::LoadOp::create(b, loc, slots[0], ValueRange{});
  Scope last;
  {
    IRMapping m = map;
    loadArgs(b, m, count);
    forwardBlock(before, b, m);
    for (auto [res, fwd] : llvm::zip(op.getResults(), cond.getArgs()))
      if (Value g = sc.get(res))
        accumulate(last, b, fwd, g);
    if (failed(reverseBlock(before, b, m, last)))
      return failure();
  }
  SmallVector<Value> inits;
  for (unsigned i : carried) {
    Value g = last.get(before.getArgument(i));
    inits.push_back(g ? g : zeroOf(b, loc, before.getArgument(i).getType()));
  }
  for (Value v : outer) {
    Value g = last.get(v);
    inits.push_back(g ? g : zeroOf(b, loc, v.getType()));
  }
  // Iterations count - 1 down to 0.
  Value zero = arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
  Value one = arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(1));
  Value lastIt = arith::SubIOp::create(b, loc, count, one);
  auto rev = scf::ForOp::create(b, loc, zero, count, one, inits);
  Block *body = rev.getBody();
  if (!body->empty())
    body->back().erase();
  OpBuilder bb = OpBuilder::atBlockEnd(body);
  Value k = arith::SubIOp::create(bb, loc, lastIt, rev.getInductionVar());
  IRMapping m = map;
  loadArgs(bb, m, k);
  forwardBlock(before, bb, m);
  for (auto [a, fwd] : llvm::zip(after.getArguments(), cond.getArgs()))
    m.map(a, m.lookupOrDefault(fwd));
  forwardBlock(after, bb, m);
  Scope inner;
  for (auto [c, i] : llvm::enumerate(carried))
    accumulate(inner, bb, yield->getOperand(i), rev.getRegionIterArgs()[c]);
  if (failed(reverseBlock(after, bb, m, inner)))
    return failure();
  for (auto [a, fwd] : llvm::zip(after.getArguments(), cond.getArgs()))
    if (Value g = inner.get(a))
      accumulate(inner, bb, fwd, g);
  if (failed(reverseBlock(before, bb, m, inner)))
    return failure();
  SmallVector<Value> args, starts;
  for (unsigned i : carried) {
    args.push_back(before.getArgument(i));
    starts.push_back(op.getInits()[i]);
  }
  closeReversedLoop(rev, bb, b, inner, sc, args, starts, outer, loc);
  return success();
}

LogicalResult KernelReverser::reverseFor(scf::ForOp op, OpBuilder &b,
                                         IRMapping &map, Scope &sc) {
  Location loc = op.getLoc();
  llvm::SetVector<Value> outer = activeFromAbove(op);
  Value lb = map.lookupOrDefault(op.getLowerBound());
  Value ub = map.lookupOrDefault(op.getUpperBound());
  Value step = map.lookupOrDefault(op.getStep());
  Type it = lb.getType();
  Value n = arith::CeilDivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, ub, lb), step);
  Value zero = arith::ConstantOp::create(b, loc, it, b.getZeroAttr(it));
  Value one = arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, 1));
  Value last = arith::SubIOp::create(b, loc, n, one);
  // Loop-carried values: their adjoints run backwards with the loop (that
  // of a result is that of the last iteration's yield); the values
  // themselves come back from the adjoint stack.
  SmallVector<unsigned> carried; // float iter args, by index
  for (auto [i, r] : llvm::enumerate(op.getResults()))
    if (isFloat(r))
      carried.push_back(i);
  SmallVector<Value> inits;
  for (unsigned i : carried) {
    Value g = sc.get(op.getResult(i));
    inits.push_back(g ? g : zeroOf(b, loc, op.getResult(i).getType()));
  }
  for (Value v : outer)
    inits.push_back(zeroOf(b, loc, v.getType()));
  auto rev = scf::ForOp::create(b, loc, zero, n, one, inits);
  Block *body = rev.getBody();
  if (!body->empty())
    body->back().erase();
  OpBuilder bb = OpBuilder::atBlockEnd(body);
  // iteration k of the adjoint is iteration n - 1 - k of the primal
  Value k = rev.getInductionVar();
  Value j = arith::SubIOp::create(bb, loc, last, k);
  Value iv = arith::AddIOp::create(bb, loc, lb,
                                   arith::MulIOp::create(bb, loc, j, step));
  IRMapping m = map;
  m.map(op.getInductionVar(), iv);
  if (op.getNumRegionIterArgs()) {
    auto st = stacks.find(op);
    if (st == stacks.end())
      return op.emitError("reverse-mode AD: internal error: no adjoint stack "
                          "for this loop");
    int64_t size = cast<MemRefType>(st->second.front().getType()).getDimSize(0);
    Value top =
        arith::ConstantOp::create(bb, loc, it, bb.getIntegerAttr(it, size - 1));
    Value at = arith::MinSIOp::create(bb, loc, j, top); // overflow reported
    Value idx = arith::IndexCastOp::create(bb, loc, bb.getIndexType(), at);
    for (auto [a, slot] : llvm::zip(op.getRegionIterArgs(), st->second))
      m.map(a, memref::LoadOp::create(bb, loc, slot, ValueRange{idx}));
  }
  Block &pb = *op.getBody();
  forwardBlock(pb, bb, m);
  Scope inner;
  Operation *yield = pb.getTerminator();
  for (auto [c, i] : llvm::enumerate(carried))
    accumulate(inner, bb, yield->getOperand(i), rev.getRegionIterArgs()[c]);
  if (failed(reverseBlock(pb, bb, m, inner)))
    return failure();
  SmallVector<Value> args, starts;
  for (unsigned i : carried) {
    args.push_back(op.getRegionIterArgs()[i]);
    starts.push_back(op.getInitArgs()[i]);
  }
  closeReversedLoop(rev, bb, b, inner, sc, args, starts, outer, loc);
  return success();
}

LogicalResult KernelReverser::run(tc::KernelOp primal, tc::KernelOp adjoint) {
  ad::promoteLocals(primal.getBody());
  {
    // One load per element read: one adjoint accumulation per element.
    IRRewriter rewriter(primal.getContext());
    DominanceInfo dom;
    eliminateCommonSubExpressions(rewriter, dom, primal);
  }
  computeActivity(primal);
  if (failed(sinkIntoParallelLoops(primal)))
    return failure();
  computeActivity(primal);
  if (failed(checkAccessRules(primal)) || failed(check(primal)))
    return failure();
  Block &pb = primal.getBody().front();
  Block &nb = adjoint.getBody().front();
  IRMapping map;
  for (auto [a, n] : llvm::zip(pb.getArguments(), nb.getArguments()))
    map.map(a, n);
  OpBuilder b = OpBuilder::atBlockEnd(&nb);
  forwardBlock(pb, b, map);
  Scope sc;
  if (failed(reverseBlock(pb, b, map, sc)))
    return failure();
  tc::ReturnOp::create(b, adjoint.getLoc());
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ReverseModePass : tic::impl::ReverseModeBase<ReverseModePass> {
  using ReverseModeBase::ReverseModeBase;
  /// block_local(x) in a primal loop: where it read x, its adjoint adds to
  /// x's adjoint, so the adjoint's loop caches x and accumulates x.grad per
  /// block (tic-block-local; a hint derived, so it does not warn).
  static void
  deriveBlockLocal(tc::KernelOp adj,
                   const llvm::DenseMap<StringAttr, FlatSymbolRefAttr> &grads) {
    adj.walk([&](tc::StructForOp sf) {
      ArrayAttr hint = sf.getBlockLocalAttr();
      if (!hint)
        return;
      SmallVector<Attribute> fields(hint.begin(), hint.end());
      for (Attribute a : hint)
        if (FlatSymbolRefAttr g =
                grads.lookup(cast<FlatSymbolRefAttr>(a).getAttr()))
          if (!llvm::is_contained(fields, g))
            fields.push_back(g);
      sf.setBlockLocalAttr(ArrayAttr::get(sf.getContext(), fields));
      sf->setAttr(tc::kDerivedHintAttrName, UnitAttr::get(sf.getContext()));
    });
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    llvm::DenseMap<StringAttr, FlatSymbolRefAttr> grads;
    module.walk([&](snode::PlaceOp p) {
      if (auto g =
              p->getAttrOfType<FlatSymbolRefAttr>(ADDialect::kGradAttrName))
        grads[p.getSymNameAttr()] = g;
    });
    SymbolTable symbols(module);
    SmallVector<tc::KernelOp> kernels(module.getOps<tc::KernelOp>());
    SmallVector<Operation *> made;
    bool failedAny = false;
    auto newKernel = [&](tc::KernelOp from, StringRef primalName,
                         FunctionType type) -> tc::KernelOp {
      std::string name = ADDialect::adjointKernelName(primalName);
      if (symbols.lookup(name)) {
        from.emitError("the adjoint kernel '") << name << "' already exists";
        return nullptr;
      }
      OpBuilder b(ctx);
      b.setInsertionPointAfter(from);
      auto k = tc::KernelOp::create(
          b, from.getLoc(), name, FunctionType::get(ctx, type.getInputs(), {}));
      if (ArrayAttr a = from.getArgAttrsAttr())
        k.setArgAttrsAttr(a);
      k->setAttr(ADDialect::kAdjointOfAttrName,
                 FlatSymbolRefAttr::get(ctx, primalName));
      symbols.insert(k);
      return k;
    };
    for (tc::KernelOp k : kernels) {
      if (auto of =
              k->getAttrOfType<FlatSymbolRefAttr>(ADDialect::kGradOfAttrName)) {
        // A custom gradient: its body becomes @of.grad.
        auto target = symbols.lookup<tc::KernelOp>(of.getValue());
        if (!target) {
          k.emitError("ad.grad_of names ") << of << ", which is not a kernel";
          failedAny = true;
          continue;
        }
        if (target.getFunctionType().getInputs() !=
            k.getFunctionType().getInputs()) {
          k.emitError("a custom gradient takes the parameters of ")
              << of << ": " << target.getFunctionType().getInputs();
          failedAny = true;
          continue;
        }
        tc::KernelOp adj =
            newKernel(target, of.getValue(), target.getFunctionType());
        if (!adj) {
          failedAny = true;
          continue;
        }
        adj.getBody().front().erase();
        IRMapping m;
        k.getBody().cloneInto(&adj.getBody(), m);
        // its returns take no value
        adj.walk([&](tc::ReturnOp r) {
          if (r.getNumOperands()) {
            OpBuilder rb(r);
            tc::ReturnOp::create(rb, r.getLoc());
            r.erase();
          }
        });
        continue;
      }
      if (!k->hasAttr(ADDialect::kDifferentiableAttrName))
        continue;
      tc::KernelOp adj = newKernel(k, k.getSymName(), k.getFunctionType());
      if (!adj) {
        failedAny = true;
        continue;
      }
      auto copy = cast<tc::KernelOp>(k->clone());
      KernelReverser rev(grads, std::max<int64_t>(stackSize, 1));
      if (failed(rev.run(copy, adj))) {
        failedAny = true;
        adj.erase();
      } else {
        deriveBlockLocal(adj, grads);
        made.push_back(adj);
      }
      copy->erase();
    }
    if (failedAny)
      return signalPassFailure();
    // Tidy the adjoints: the recomputation leaves dead values and zeros.
    RewritePatternSet patterns(ctx);
    for (Dialect *d : ctx->getLoadedDialects())
      d->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (Operation *k : made)
      (void)applyPatternsGreedily(k->getRegion(0), frozen);
  }
};

} // namespace

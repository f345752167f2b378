//===- SplitIndexSet.cpp - tic-split-index-set
//-----------------------------===//
//
// Boundary tests on the indices of a tc.parallel_for become its bounds (see
// Passes.td): `for i, j in u { if i > 0 and i < n - 1 ... }` runs over
// [1, n - 1) without a test, and vectorizes without masked memory accesses.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tic {
#define GEN_PASS_DEF_SPLITINDEXSET
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// The conjuncts of `cond` (through arith.andi on i1).
static void conjuncts(Value cond, SmallVectorImpl<Value> &out) {
  if (auto a = cond.getDefiningOp<arith::AndIOp>();
      a && a.getType().isInteger(1)) {
    conjuncts(a.getLhs(), out);
    conjuncts(a.getRhs(), out);
    return;
  }
  out.push_back(cond);
}

struct Bound {
  unsigned dim;
  bool lower;  // a new lower bound (else upper)
  Value value; // invariant value, or null with `constant`
  std::optional<int64_t> constant;
};

struct SplitIndexSetPass : tic::impl::SplitIndexSetBase<SplitIndexSetPass> {
  void runOnOperation() override {
    SmallVector<tc::ParallelForOp> loops;
    getOperation().walk([&](tc::ParallelForOp pf) { loops.push_back(pf); });
    for (tc::ParallelForOp pf : loops) {
      split(pf);
      foldClamps(pf);
    }
  }

  /// The value of `v` when it is a constant, or min/max of constants (the
  /// bounds `split` builds).
  static std::optional<int64_t> constOf(Value v) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() <= 64)
      return c.getSExtValue();
    Operation *op = v.getDefiningOp();
    if (!isa_and_nonnull<arith::MaxSIOp, arith::MinSIOp>(op))
      return std::nullopt;
    auto a = constOf(op->getOperand(0)), b = constOf(op->getOperand(1));
    if (!a || !b)
      return std::nullopt;
    return isa<arith::MaxSIOp>(op) ? std::max(*a, *b) : std::min(*a, *b);
  }

  using Range = std::pair<int64_t, int64_t>; // [lo, hi], inclusive

  /// The values `v` takes in `pf`'s iterations, where simple: induction
  /// variables over constant bounds, constants, and + - min max of them.
  static std::optional<Range> rangeOf(Value v, tc::ParallelForOp pf,
                                      unsigned depth = 0) {
    if (auto c = constOf(v))
      return Range{*c, *c};
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &pf.getBody().front())
        return std::nullopt;
      auto lb = constOf(pf.getLowerBounds()[arg.getArgNumber()]);
      auto ub = constOf(pf.getUpperBounds()[arg.getArgNumber()]);
      if (!lb || !ub || *lb >= *ub)
        return std::nullopt;
      return Range{*lb, *ub - 1};
    }
    Operation *op = v.getDefiningOp();
    if (!op || depth > 8 || op->getNumOperands() != 2 ||
        !isa<arith::AddIOp, arith::SubIOp, arith::MaxSIOp, arith::MinSIOp>(op))
      return std::nullopt;
    auto a = rangeOf(op->getOperand(0), pf, depth + 1);
    auto b = rangeOf(op->getOperand(1), pf, depth + 1);
    if (!a || !b)
      return std::nullopt;
    unsigned width = v.getType().getIntOrFloatBitWidth();
    Range r;
    if (isa<arith::AddIOp>(op))
      r = {a->first + b->first, a->second + b->second};
    else if (isa<arith::SubIOp>(op))
      r = {a->first - b->second, a->second - b->first};
    else if (isa<arith::MaxSIOp>(op))
      r = {std::max(a->first, b->first), std::max(a->second, b->second)};
    else
      r = {std::min(a->first, b->first), std::min(a->second, b->second)};
    // Operands are at most 32-bit here in practice; a sum that could wrap
    // its type has no simple range.
    if (width < 64 && (r.first < -(int64_t(1) << (width - 1)) ||
                       r.second >= (int64_t(1) << (width - 1))))
      return std::nullopt;
    return r;
  }

  /// Clamps of indices the loop's bounds make redundant (`max(j - 1, 0)`
  /// where j >= 1, `min(j + 1, n - 1)` where j < n - 1: bit_vectorize's
  /// neighbour words, or a stencil's clamped reads inside its boundary
  /// test) become the index itself, so that neighbouring iterations access
  /// neighbouring memory (vector loads, not gathers).
  void foldClamps(tc::ParallelForOp pf) {
    SmallVector<Operation *> folded;
    pf.getBody().walk([&](Operation *op) {
      if (!isa<arith::MaxSIOp, arith::MinSIOp>(op))
        return;
      auto a = rangeOf(op->getOperand(0), pf);
      auto b = rangeOf(op->getOperand(1), pf);
      if (!a || !b)
        return;
      bool isMax = isa<arith::MaxSIOp>(op);
      Value keep;
      if (isMax ? a->first >= b->second : a->second <= b->first)
        keep = op->getOperand(0);
      else if (isMax ? b->first >= a->second : b->second <= a->first)
        keep = op->getOperand(1);
      if (keep) {
        op->getResult(0).replaceAllUsesWith(keep);
        folded.push_back(op);
      }
    });
    for (Operation *op : llvm::reverse(folded))
      if (op->use_empty())
        op->erase();
  }

  /// `v` is usable before `pf`: defined outside it, or a constant (cloned).
  static bool invariant(Value v, tc::ParallelForOp pf) {
    if (!pf->isAncestor(v.getParentRegion()->getParentOp()))
      return true;
    return matchPattern(v, m_Constant());
  }

  /// Matches `iv <pred> c` (either order) on an induction variable of `pf`.
  std::optional<Bound> match(Value term, tc::ParallelForOp pf) {
    auto cmp = term.getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      return std::nullopt;
    Block &body = pf.getBody().front();
    auto ivIndex = [&](Value v) -> std::optional<unsigned> {
      auto arg = dyn_cast<BlockArgument>(v);
      if (!arg || arg.getOwner() != &body)
        return std::nullopt;
      return arg.getArgNumber();
    };
    arith::CmpIPredicate pred = cmp.getPredicate();
    Value iv = cmp.getLhs(), c = cmp.getRhs();
    std::optional<unsigned> dim = ivIndex(iv);
    if (!dim) {
      // c <pred> iv  ==  iv <swapped pred> c
      dim = ivIndex(c);
      if (!dim)
        return std::nullopt;
      std::swap(iv, c);
      pred = swapPredicate(pred);
    }
    if (!invariant(c, pf))
      return std::nullopt;
    APInt cst;
    std::optional<int64_t> k;
    if (matchPattern(c, m_ConstantInt(&cst)) && cst.getBitWidth() <= 64)
      k = cst.getSExtValue();
    int64_t maxV =
        iv.getType().getIntOrFloatBitWidth() >= 64
            ? INT64_MAX
            : (int64_t(1) << (iv.getType().getIntOrFloatBitWidth() - 1)) - 1;
    switch (pred) {
    case arith::CmpIPredicate::sge: // lb = max(lb, c)
      return Bound{*dim, true, c, k};
    case arith::CmpIPredicate::slt: // ub = min(ub, c)
      return Bound{*dim, false, c, k};
    case arith::CmpIPredicate::sgt: // lb = max(lb, c + 1)
      if (!k || *k >= maxV)
        return std::nullopt;
      return Bound{*dim, true, Value(), *k + 1};
    case arith::CmpIPredicate::sle: // ub = min(ub, c + 1)
      if (!k || *k >= maxV)
        return std::nullopt;
      return Bound{*dim, false, Value(), *k + 1};
    default:
      return std::nullopt;
    }
  }

  static arith::CmpIPredicate swapPredicate(arith::CmpIPredicate p) {
    using P = arith::CmpIPredicate;
    switch (p) {
    case P::slt:
      return P::sgt;
    case P::sle:
      return P::sge;
    case P::sgt:
      return P::slt;
    case P::sge:
      return P::sle;
    default:
      return p;
    }
  }

  void split(tc::ParallelForOp pf) {
    Block &body = pf.getBody().front();
    if (!pf.getBody().hasOneBlock())
      return;
    // Pure ops, then one scf.if without else or results, then the yield.
    Operation *term = body.getTerminator();
    Operation *last = term->getPrevNode();
    auto ifOp = dyn_cast_or_null<scf::IfOp>(last);
    if (!ifOp || ifOp.getNumResults() != 0 || !ifOp.getElseRegion().empty())
      return;
    for (Operation &op : body.without_terminator())
      if (&op != ifOp.getOperation() && !isMemoryEffectFree(&op))
        return;

    SmallVector<Value> terms, kept;
    conjuncts(ifOp.getCondition(), terms);
    SmallVector<Bound> bounds;
    for (Value t : terms) {
      if (auto b = match(t, pf))
        bounds.push_back(*b);
      else
        kept.push_back(t);
    }
    if (bounds.empty())
      return;

    // The new bounds, built before the loop.
    OpBuilder b(pf);
    Location loc = pf.getLoc();
    SmallVector<Value> lbs(pf.getLowerBounds()), ubs(pf.getUpperBounds());
    for (const Bound &bd : bounds) {
      Type t = lbs[bd.dim].getType();
      Value c;
      if (bd.constant && !bd.value)
        c = arith::ConstantIntOp::create(b, loc, t, *bd.constant);
      else if (bd.value.getDefiningOp() &&
               pf->isAncestor(bd.value.getDefiningOp()))
        c = b.clone(*bd.value.getDefiningOp())->getResult(0); // a constant
      else
        c = bd.value;
      if (c.getType() != t)
        return; // an index compared in another width: leave the loop alone
      if (bd.lower)
        lbs[bd.dim] = arith::MaxSIOp::create(b, loc, lbs[bd.dim], c);
      else
        ubs[bd.dim] = arith::MinSIOp::create(b, loc, ubs[bd.dim], c);
    }
    pf.getLowerBoundsMutable().assign(lbs);
    pf.getUpperBoundsMutable().assign(ubs);

    // What is left of the condition (or no test at all).
    OpBuilder ib(ifOp);
    if (kept.empty()) {
      Block &then = ifOp.getThenRegion().front();
      then.getTerminator()->erase();
      body.getOperations().splice(Block::iterator(ifOp), then.getOperations());
      ifOp.erase();
      return;
    }
    Value cond = kept.front();
    for (Value k : ArrayRef<Value>(kept).drop_front())
      cond = arith::AndIOp::create(ib, ifOp.getLoc(), cond, k);
    ifOp.getConditionMutable().assign(cond);
  }
};
} // namespace

//===- LoopOwnership.h - which iteration owns an element --------*- C++ -*-===//
//
// Internal to lib/Dialect/TC/Transforms: index expressions as affine forms
// of a parallel loop's induction variables, and the ownership test built on
// them (tic-demote-atomics, tic-demote-bit-stores): an element is owned by
// the iteration when, for every induction variable, one index position is
// an injective affine function of it and every other access of the same
// storage in the loop has the same expressions at those positions.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_LIB_DIALECT_TC_TRANSFORMS_LOOPOWNERSHIP_H
#define TIC_LIB_DIALECT_TC_TRANSFORMS_LOOPOWNERSHIP_H

#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

namespace tic::ownership {
using namespace mlir;

/// Index expressions deeper than this are not analyzed (kept atomic).
constexpr unsigned kMaxDepth = 12;

/// An integer value as an affine function of the loop's induction variables,
/// modulo 2^width: sum(coeffs[d] * iv[d]) + cst + sum(coeff * term), where
/// the terms are loop-invariant values.
struct LinearForm {
  SmallVector<APInt> coeffs;
  APInt cst;
  SmallVector<std::pair<Value, APInt>> terms;
  /// Every add/sub/mul/shl on the way carries `nsw`: the value is the exact
  /// integer (an overflow is undefined), not only its residue mod 2^width.
  bool exact = true;

  LinearForm(unsigned rank, unsigned width)
      : coeffs(rank, APInt(width, 0)), cst(width, 0) {}
  bool isConstant() const {
    return terms.empty() &&
           llvm::all_of(coeffs, [](const APInt &c) { return c.isZero(); });
  }
  void scale(const APInt &k) {
    for (APInt &c : coeffs)
      c *= k;
    cst *= k;
    for (auto &t : terms)
      t.second *= k;
  }
  void add(const LinearForm &o, bool negate) {
    for (auto [c, oc] : llvm::zip(coeffs, o.coeffs))
      c += negate ? -oc : oc;
    cst += negate ? -o.cst : o.cst;
    for (auto &[v, c] : o.terms)
      terms.push_back({v, negate ? -c : c});
    exact &= o.exact;
  }
};

inline bool hasNsw(Operation *op) {
  if (auto f = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op))
    return f.hasNoSignedWrap();
  return false;
}

/// Loop-invariance and affine forms of index expressions in one parallel
/// loop (a tc.parallel_for or tc.struct_for).
class LoopAnalysis {
public:
  explicit LoopAnalysis(Operation *loop)
      : loop(loop), ivs(loop->getRegion(0).front().getArguments()) {}

  /// Defined outside the loop, or a pure computation of such values.
  /// Memoized; an answer cut short by the depth limit is a conservative
  /// `false` and may be reused.
  bool isInvariant(Value v, unsigned depth = 0) const {
    auto it = invariantCache.find(v);
    if (it != invariantCache.end())
      return it->second;
    bool r = computeInvariant(v, depth);
    invariantCache[v] = r;
    return r;
  }

  /// The affine form of `v`, or std::nullopt (memoized like isInvariant).
  std::optional<LinearForm> analyze(Value v, unsigned depth = 0) const {
    auto it = formCache.find(v);
    if (it != formCache.end())
      return it->second;
    std::optional<LinearForm> f = computeForm(v, depth);
    formCache.try_emplace(v, f);
    return f;
  }

private:
  bool computeInvariant(Value v, unsigned depth) const {
    if (!loop->isAncestor(v.getParentRegion()->getParentOp()))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || depth > kMaxDepth || def->getNumRegions() ||
        !isMemoryEffectFree(def))
      return false;
    return llvm::all_of(def->getOperands(),
                        [&](Value o) { return isInvariant(o, depth + 1); });
  }

  std::optional<LinearForm> computeForm(Value v, unsigned depth) const {
    auto it = dyn_cast<IntegerType>(v.getType());
    if (!it || depth > kMaxDepth)
      return std::nullopt;
    LinearForm f(ivs.size(), it.getWidth());
    for (auto [d, iv] : llvm::enumerate(ivs))
      if (v == iv) {
        f.coeffs[d] = 1;
        return f;
      }
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c))) {
      f.cst = c;
      return f;
    }
    if (isInvariant(v)) {
      f.terms.push_back({v, APInt(it.getWidth(), 1)});
      return f;
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    auto operand = [&](unsigned i) {
      return analyze(def->getOperand(i), depth + 1);
    };
    // assume_in_range(x, ...) is x (until tic-block-local drops it).
    if (isa<tc::AssumeInRangeOp>(def))
      return operand(0);
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      auto l = operand(0), r = operand(1);
      if (!l || !r)
        return std::nullopt;
      l->add(*r, /*negate=*/isa<arith::SubIOp>(def));
      l->exact &= hasNsw(def);
      return l;
    }
    if (isa<arith::MulIOp>(def)) {
      auto l = operand(0), r = operand(1);
      if (!l || !r)
        return std::nullopt;
      if (!l->isConstant())
        std::swap(l, r);
      if (!l->isConstant())
        return std::nullopt; // a * b with both varying
      r->scale(l->cst);
      r->exact &= l->exact && hasNsw(def);
      return r;
    }
    if (isa<arith::ShLIOp>(def)) {
      auto l = operand(0);
      APInt sh;
      if (!l || !matchPattern(def->getOperand(1), m_ConstantInt(&sh)) ||
          sh.uge(it.getWidth()))
        return std::nullopt;
      l->scale(APInt::getOneBitSet(it.getWidth(), sh.getZExtValue()));
      l->exact &= hasNsw(def);
      return l;
    }
    return std::nullopt;
  }

public:
  /// For every induction variable d, an index position whose form is
  /// `a * iv[d] + c` with c invariant and `a` injective (odd, so a bijection
  /// mod 2^width, or nonzero on exact arithmetic). Then the iteration is a
  /// function of the cell, so no two iterations touch the same cell through
  /// accesses with these forms. std::nullopt when some variable has none.
  std::optional<SmallVector<std::pair<unsigned, LinearForm>>>
  ownershipKeys(ValueRange indices) const {
    SmallVector<std::pair<unsigned, LinearForm>> keys;
    SmallVector<std::optional<LinearForm>> forms;
    for (Value i : indices)
      forms.push_back(analyze(i));
    for (unsigned d = 0; d < ivs.size(); ++d) {
      bool found = false;
      for (auto [k, f] : llvm::enumerate(forms)) {
        if (!f)
          continue;
        bool onlyD = llvm::all_of(llvm::enumerate(f->coeffs), [&](auto e) {
          return e.index() == d || e.value().isZero();
        });
        const APInt &a = f->coeffs[d];
        if (onlyD && !a.isZero() && (a[0] || f->exact)) {
          keys.push_back({unsigned(k), *f});
          found = true;
          break;
        }
      }
      if (!found)
        return std::nullopt;
    }
    return keys;
  }

  /// Whether `indices` has, at each key position, the key's form.
  bool hasKeys(ValueRange indices,
               ArrayRef<std::pair<unsigned, LinearForm>> keys) const {
    for (const auto &[k, key] : keys) {
      if (k >= indices.size())
        return false;
      std::optional<LinearForm> f = analyze(indices[k]);
      if (!f || !sameForm(*f, key))
        return false;
    }
    return true;
  }

private:
  /// Structural equality of two loop-invariant values (pure ops only).
  static bool sameValue(Value a, Value b, unsigned depth = 0) {
    if (a == b)
      return true;
    Operation *da = a.getDefiningOp(), *db = b.getDefiningOp();
    if (!da || !db || depth > kMaxDepth || da->getNumRegions() ||
        !isMemoryEffectFree(da) ||
        cast<OpResult>(a).getResultNumber() !=
            cast<OpResult>(b).getResultNumber())
      return false;
    return OperationEquivalence::isEquivalentTo(
        da, db,
        [&](Value x, Value y) { return success(sameValue(x, y, depth + 1)); },
        /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
  }

  static bool sameForm(const LinearForm &a, const LinearForm &b) {
    if (a.cst.getBitWidth() != b.cst.getBitWidth() || a.coeffs != b.coeffs ||
        a.cst != b.cst || a.terms.size() != b.terms.size())
      return false;
    SmallVector<bool> used(b.terms.size(), false);
    for (const auto &[v, c] : a.terms) {
      bool matched = false;
      for (auto [j, t] : llvm::enumerate(b.terms)) {
        if (used[j] || t.second != c || !sameValue(v, t.first))
          continue;
        used[j] = matched = true;
        break;
      }
      if (!matched)
        return false;
    }
    return true;
  }

  Operation *loop;
  Block::BlockArgListType ivs;
  mutable DenseMap<Value, bool> invariantCache;
  mutable DenseMap<Value, std::optional<LinearForm>> formCache;
};

/// tc.parallel_for and tc.struct_for.
inline bool isParallelLoop(Operation *op) {
  return isa<tc::ParallelForOp, tc::StructForOp>(op);
}

/// A parallel loop whose iterations run in order on one thread.
inline bool isSerialized(Operation *loop) {
  if (auto pf = dyn_cast<tc::ParallelForOp>(loop))
    return pf.getSerialize();
  return cast<tc::StructForOp>(loop).getSerialize();
}

} // namespace tic::ownership

#endif

//===- DemoteAtomics.cpp - tic-demote-atomics -----------------------------===//
//
// Atomic read-modify-writes that no other thread can race with become plain
// load / op / store (Taichi's demote_atomics):
//  * everything outside parallel loops (the kernel's top level runs on the
//    calling thread) and in `serialize`d loops;
//  * field and ndarray atomics in a parallel loop whose element is owned by
//    the iteration: for every induction variable one index position is an
//    injective affine function of it, and every access of the same storage
//    in the loop has the same expressions at those positions;
//  * memref.atomic_rmw on a local allocated inside the parallel loop.
// Kernel-scope reductions captured by a parallel loop are left alone:
// tic-privatize-reductions privatizes them per task.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace tic {
#define GEN_PASS_DEF_DEMOTEATOMICS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

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

static bool hasNsw(Operation *op) {
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

/// `old KIND v` for a tc atomic kind (float min/max ignore NaNs, as LLVM's
/// atomicrmw fmin/fmax; integer min/max are signed).
static Value combine(OpBuilder &b, Location loc, tc::AtomicKind kind, Value old,
                     Value v) {
  bool f = isa<FloatType>(v.getType());
  switch (kind) {
  case tc::AtomicKind::add:
    return f ? Value(arith::AddFOp::create(b, loc, old, v))
             : Value(arith::AddIOp::create(b, loc, old, v));
  case tc::AtomicKind::sub:
    return f ? Value(arith::SubFOp::create(b, loc, old, v))
             : Value(arith::SubIOp::create(b, loc, old, v));
  case tc::AtomicKind::min:
    return f ? Value(arith::MinNumFOp::create(b, loc, old, v))
             : Value(arith::MinSIOp::create(b, loc, old, v));
  case tc::AtomicKind::max:
    return f ? Value(arith::MaxNumFOp::create(b, loc, old, v))
             : Value(arith::MaxSIOp::create(b, loc, old, v));
  case tc::AtomicKind::and_:
    return arith::AndIOp::create(b, loc, old, v);
  case tc::AtomicKind::or_:
    return arith::OrIOp::create(b, loc, old, v);
  case tc::AtomicKind::xor_:
    return arith::XOrIOp::create(b, loc, old, v);
  }
  llvm_unreachable("unknown atomic kind");
}

/// `old KIND v` for a memref.atomic_rmw kind.
static Value combine(OpBuilder &b, Location loc, arith::AtomicRMWKind kind,
                     Value old, Value v) {
  using K = arith::AtomicRMWKind;
  switch (kind) {
  case K::addf:
    return arith::AddFOp::create(b, loc, old, v);
  case K::addi:
    return arith::AddIOp::create(b, loc, old, v);
  case K::andi:
    return arith::AndIOp::create(b, loc, old, v);
  case K::assign:
    return v;
  case K::maximumf:
    return arith::MaximumFOp::create(b, loc, old, v);
  case K::maxnumf:
    return arith::MaxNumFOp::create(b, loc, old, v);
  case K::maxs:
    return arith::MaxSIOp::create(b, loc, old, v);
  case K::maxu:
    return arith::MaxUIOp::create(b, loc, old, v);
  case K::minimumf:
    return arith::MinimumFOp::create(b, loc, old, v);
  case K::minnumf:
    return arith::MinNumFOp::create(b, loc, old, v);
  case K::mins:
    return arith::MinSIOp::create(b, loc, old, v);
  case K::minu:
    return arith::MinUIOp::create(b, loc, old, v);
  case K::mulf:
    return arith::MulFOp::create(b, loc, old, v);
  case K::muli:
    return arith::MulIOp::create(b, loc, old, v);
  case K::ori:
    return arith::OrIOp::create(b, loc, old, v);
  case K::xori:
    return arith::XOrIOp::create(b, loc, old, v);
  }
  llvm_unreachable("unknown atomic kind");
}

static void demote(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value old;
  if (auto a = dyn_cast<tc::AtomicRMWOp>(op)) {
    old = tc::LoadOp::create(b, loc, a.getType(), a.getFieldAttr(),
                             a.getIndices(), a.getCompAttr());
    tc::StoreOp::create(b, loc, combine(b, loc, a.getKind(), old, a.getValue()),
                        a.getFieldAttr(), a.getIndices(), a.getCompAttr());
  } else if (auto a = dyn_cast<tc::NDArrayAtomicRMWOp>(op)) {
    old = tc::NDArrayLoadOp::create(b, loc, a.getType(), a.getArray(),
                                    a.getIndices());
    tc::NDArrayStoreOp::create(b, loc,
                               combine(b, loc, a.getKind(), old, a.getValue()),
                               a.getArray(), a.getIndices());
  } else {
    auto m = cast<memref::AtomicRMWOp>(op);
    old = memref::LoadOp::create(b, loc, m.getMemref(), m.getIndices());
    memref::StoreOp::create(b, loc,
                            combine(b, loc, m.getKind(), old, m.getValue()),
                            m.getMemref(), m.getIndices());
  }
  op->getResult(0).replaceAllUsesWith(old);
  op->erase();
}

static bool isAtomic(Operation *op) {
  return isa<tc::AtomicRMWOp, tc::NDArrayAtomicRMWOp, memref::AtomicRMWOp>(op);
}

static bool isParallelLoop(Operation *op) {
  return isa<tc::ParallelForOp, tc::StructForOp>(op);
}

static bool isSerialized(Operation *loop) {
  if (auto pf = dyn_cast<tc::ParallelForOp>(loop))
    return pf.getSerialize();
  return cast<tc::StructForOp>(loop).getSerialize();
}

/// A value captured by `loop` that tic-privatize-reductions privatizes:
/// inside the loop, only the memref of atomics of one kind whose results are
/// unused (what CodeGen emits for kernel-scope reductions).
static bool isCapturedReduction(Value memref, Operation *loop) {
  std::optional<arith::AtomicRMWKind> kind;
  for (OpOperand &use : memref.getUses()) {
    if (!loop->isProperAncestor(use.getOwner()))
      continue;
    auto rmw = dyn_cast<memref::AtomicRMWOp>(use.getOwner());
    if (!rmw || use.get() != rmw.getMemref() || !rmw.getResult().use_empty() ||
        (kind && *kind != rmw.getKind()))
      return false;
    kind = rmw.getKind();
  }
  return true;
}

/// The field and ndarray accesses of one parallel loop, by storage.
struct LoopAccesses {
  llvm::StringMap<SmallVector<Operation *>> fields;
  SmallVector<Operation *> ndarrays;
  /// The loop holds memory operations this pass does not understand
  /// (already lowered field accesses, calls): nothing is demoted in it.
  bool opaque = false;
};

static ValueRange indicesOf(Operation *op) {
  return TypeSwitch<Operation *, ValueRange>(op)
      .Case<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp, tc::NDArrayLoadOp,
            tc::NDArrayStoreOp, tc::NDArrayAtomicRMWOp>(
          [](auto o) { return o.getIndices(); })
      .Default([](Operation *) { return ValueRange(); });
}

static Value ndarrayOf(Operation *op) {
  return TypeSwitch<Operation *, Value>(op)
      .Case<tc::NDArrayLoadOp, tc::NDArrayStoreOp, tc::NDArrayAtomicRMWOp>(
          [](auto o) { return o.getArray(); })
      .Default([](Operation *) { return Value(); });
}

static LoopAccesses collectAccesses(Operation *loop) {
  LoopAccesses acc;
  loop->walk([&](Operation *op) {
    if (op == loop)
      return;
    if (auto l = dyn_cast<tc::LoadOp>(op))
      acc.fields[l.getField()].push_back(op);
    else if (auto s = dyn_cast<tc::StoreOp>(op))
      acc.fields[s.getField()].push_back(op);
    else if (auto a = dyn_cast<tc::AtomicRMWOp>(op))
      acc.fields[a.getField()].push_back(op);
    else if (ndarrayOf(op))
      acc.ndarrays.push_back(op);
    else if (Dialect *d = op->getDialect();
             !d || isa<snode::SNodeDialect>(d) ||
             (!isa<tc::TCDialect, memref::MemRefDialect>(d) &&
              !isMemoryEffectFree(op) &&
              !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()))
      acc.opaque = true;
  });
  return acc;
}

/// Whether the element `op` (a field or ndarray atomic in `loop`) is owned
/// by the iteration.
static bool ownedByIteration(Operation *op, const LoopAnalysis &la,
                             const LoopAccesses &acc,
                             const snode::SNodeLayout &layout) {
  if (acc.opaque)
    return false;
  auto keys = la.ownershipKeys(indicesOf(op));
  if (!keys)
    return false;
  if (auto a = dyn_cast<tc::AtomicRMWOp>(op)) {
    const snode::PlaceLayout *pl = layout.lookupPlace(a.getField());
    // Only dense paths: distinct in-range indices are distinct bytes.
    if (!pl || !pl->supported)
      return false;
    return llvm::all_of(acc.fields.lookup(a.getField()), [&](Operation *o) {
      return la.hasKeys(indicesOf(o), *keys);
    });
  }
  // ndarrays: two parameters may be the same host buffer, so every access
  // to an ndarray of the same element type must be this one with the keys.
  Value array = ndarrayOf(op);
  Type elem = cast<tc::NDArrayType>(array.getType()).getElementType();
  return llvm::all_of(acc.ndarrays, [&](Operation *o) {
    Value other = ndarrayOf(o);
    if (cast<tc::NDArrayType>(other.getType()).getElementType() != elem)
      return true;
    return other == array && la.hasKeys(indicesOf(o), *keys);
  });
}

struct DemoteAtomicsPass : tic::impl::DemoteAtomicsBase<DemoteAtomicsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    SmallVector<Operation *> toDemote;
    for (tc::KernelOp kernel : module.getOps<tc::KernelOp>()) {
      // Top level: one thread.
      kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isParallelLoop(op))
          return WalkResult::skip();
        if (isAtomic(op))
          toDemote.push_back(op);
        return WalkResult::advance();
      });
      SmallVector<Operation *> loops;
      kernel.walk([&](Operation *op) {
        if (isParallelLoop(op))
          loops.push_back(op);
      });
      for (Operation *loop : loops) {
        LoopAnalysis la(loop);
        LoopAccesses acc = collectAccesses(loop);
        bool serial = isSerialized(loop);
        loop->walk([&](Operation *op) {
          if (!isAtomic(op))
            return;
          bool demotable;
          if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op)) {
            // A local allocated in the iteration is private to it.
            Value m = rmw.getMemref();
            bool priv = m.getDefiningOp<memref::AllocaOp>() &&
                        loop->isAncestor(m.getParentRegion()->getParentOp());
            demotable = priv || (serial && !isCapturedReduction(m, loop));
          } else {
            demotable = serial || ownedByIteration(op, la, acc, layout);
          }
          if (demotable)
            toDemote.push_back(op);
          else
            ++numKept;
        });
      }
    }
    for (Operation *op : toDemote)
      demote(op);
    numDemoted += toDemote.size();
  }
};
} // namespace

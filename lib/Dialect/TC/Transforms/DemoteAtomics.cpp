//===- DemoteAtomics.cpp - tic-demote-atomics
//------------------------------===//
//
// `x[i] += v` on a field is a tc.atomic_rmw, because in general another
// iteration of the parallel loop may update the same cell. Taichi demotes
// the atomics that cannot race to a plain load / op / store; so does this
// pass, over our own ops (before any lowering):
//
//  - outside parallel loops (a kernel's serial code) and in loops marked
//    `serialize`, nothing runs concurrently: every field atomic is demoted;
//  - in a parallel loop (tc.parallel_for, tc.struct_for), an atomic on
//    field F is demoted when the iteration owns the cell: every induction
//    variable of the loop appears, as an injective affine function
//    `iv * a + b` (a != 0 constant), in some index of the access, so distinct
//    iterations touch distinct cells; and every other access of F in the
//    loop (load, store, atomic) has the same affine functions in the same
//    index positions, so no iteration reaches another's cells.
//
// Atomics on locals are plain already (only kernel-scope reductions, which
// convert-tc-to-llvm privatizes, stay memref.atomic_rmw). ndarray atomics are
// left alone: two ndarray arguments may alias.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace tic {
#define GEN_PASS_DEF_DEMOTEATOMICS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// `iv * scale + offset` for an induction variable `iv` of the loop.
struct Affine {
  Value iv;
  int64_t scale = 1, offset = 0;
  bool operator==(const Affine &o) const {
    return iv == o.iv && scale == o.scale && offset == o.offset;
  }
};

std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// `v` as an affine function of one of `ivs`, if it is one.
std::optional<Affine> affineOf(Value v, ArrayRef<Value> ivs,
                               unsigned depth = 0) {
  if (llvm::is_contained(ivs, v))
    return Affine{v, 1, 0};
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return std::nullopt;
  auto both = [&](Value a, Value b, auto combine) -> std::optional<Affine> {
    if (auto c = constantOf(b))
      if (auto x = affineOf(a, ivs, depth + 1))
        return combine(*x, *c, /*constOnRight=*/true);
    if (auto c = constantOf(a))
      if (auto x = affineOf(b, ivs, depth + 1))
        return combine(*x, *c, /*constOnRight=*/false);
    return std::nullopt;
  };
  if (auto add = dyn_cast<arith::AddIOp>(def))
    return both(add.getLhs(), add.getRhs(), [](Affine x, int64_t c, bool) {
      x.offset += c;
      return std::optional<Affine>(x);
    });
  if (auto sub = dyn_cast<arith::SubIOp>(def))
    return both(sub.getLhs(), sub.getRhs(),
                [](Affine x, int64_t c, bool right) {
                  if (right) {
                    x.offset -= c; // iv - c
                  } else {         // c - iv
                    x.scale = -x.scale;
                    x.offset = c - x.offset;
                  }
                  return std::optional<Affine>(x);
                });
  if (auto mul = dyn_cast<arith::MulIOp>(def))
    return both(mul.getLhs(), mul.getRhs(),
                [](Affine x, int64_t c, bool) -> std::optional<Affine> {
                  if (c == 0)
                    return std::nullopt;
                  x.scale *= c;
                  x.offset *= c;
                  return x;
                });
  return std::nullopt;
}

/// Per index position: the affine function of an induction variable, or
/// nothing (any other value).
using Signature = SmallVector<std::optional<Affine>>;

Signature signatureOf(OperandRange indices, ArrayRef<Value> ivs) {
  Signature s;
  for (Value i : indices)
    s.push_back(affineOf(i, ivs));
  return s;
}

/// Whether the iteration owns every cell an access with signature `s` reaches.
bool ownsCells(const Signature &s, ArrayRef<Value> ivs) {
  return llvm::all_of(ivs, [&](Value iv) {
    return llvm::any_of(
        s, [&](const std::optional<Affine> &a) { return a && a->iv == iv; });
  });
}

/// Whether `other` reaches only cells with the same owned coordinates.
bool compatible(const Signature &owner, const Signature &other) {
  if (owner.size() != other.size())
    return false;
  for (size_t d = 0; d < owner.size(); ++d)
    if (owner[d] && (!other[d] || !(*other[d] == *owner[d])))
      return false;
  return true;
}

OperandRange indicesOf(Operation *op) {
  if (auto l = dyn_cast<tc::LoadOp>(op))
    return l.getIndices();
  if (auto s = dyn_cast<tc::StoreOp>(op))
    return s.getIndices();
  return cast<tc::AtomicRMWOp>(op).getIndices();
}

StringRef fieldOf(Operation *op) {
  if (auto l = dyn_cast<tc::LoadOp>(op))
    return l.getField();
  if (auto s = dyn_cast<tc::StoreOp>(op))
    return s.getField();
  return cast<tc::AtomicRMWOp>(op).getField();
}

/// load / op / store in place of the atomic; the load is the old value.
void demote(tc::AtomicRMWOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value old = tc::LoadOp::create(b, loc, op.getType(), op.getFieldAttr(),
                                 op.getIndices(), op.getCompAttr());
  Value v = op.getValue();
  bool f = isa<FloatType>(v.getType());
  Value r;
  switch (op.getKind()) {
  case tc::AtomicKind::add:
    r = f ? Value(arith::AddFOp::create(b, loc, old, v))
          : Value(arith::AddIOp::create(b, loc, old, v));
    break;
  case tc::AtomicKind::sub:
    r = f ? Value(arith::SubFOp::create(b, loc, old, v))
          : Value(arith::SubIOp::create(b, loc, old, v));
    break;
  case tc::AtomicKind::min: // as llvm.atomicrmw min / fmin
    r = f ? Value(arith::MinNumFOp::create(b, loc, old, v))
          : Value(arith::MinSIOp::create(b, loc, old, v));
    break;
  case tc::AtomicKind::max:
    r = f ? Value(arith::MaxNumFOp::create(b, loc, old, v))
          : Value(arith::MaxSIOp::create(b, loc, old, v));
    break;
  case tc::AtomicKind::and_:
    r = arith::AndIOp::create(b, loc, old, v);
    break;
  case tc::AtomicKind::or_:
    r = arith::OrIOp::create(b, loc, old, v);
    break;
  case tc::AtomicKind::xor_:
    r = arith::XOrIOp::create(b, loc, old, v);
    break;
  }
  tc::StoreOp::create(b, loc, r, op.getFieldAttr(), op.getIndices(),
                      op.getCompAttr());
  op.getResult().replaceAllUsesWith(old);
  op.erase();
}

struct DemoteAtomicsPass : tic::impl::DemoteAtomicsBase<DemoteAtomicsPass> {
  void runOnOperation() override {
    SmallVector<tc::AtomicRMWOp> toDemote;
    getOperation().walk([&](tc::AtomicRMWOp op) {
      Operation *loop = op->getParentOfType<tc::ParallelForOp>();
      if (!loop)
        loop = op->getParentOfType<tc::StructForOp>();
      bool serial =
          !loop || loop->hasAttr(tc::ParallelForOp::getSerializeAttrName(
                       loop->getName()));
      if (serial || ownedInLoop(op, loop))
        toDemote.push_back(op);
    });
    for (tc::AtomicRMWOp op : toDemote)
      demote(op);
  }

  bool ownedInLoop(tc::AtomicRMWOp op, Operation *loop) {
    SmallVector<Value> ivs(loop->getRegion(0).front().getArguments());
    Signature mine = signatureOf(op.getIndices(), ivs);
    if (!ownsCells(mine, ivs))
      return false;
    bool ok = true;
    loop->walk([&](Operation *other) {
      if (!ok || !isa<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp>(other) ||
          fieldOf(other) != op.getField())
        return;
      ok = compatible(mine, signatureOf(indicesOf(other), ivs));
    });
    return ok;
  }
};

} // namespace

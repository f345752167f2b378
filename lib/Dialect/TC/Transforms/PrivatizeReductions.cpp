//===- PrivatizeReductions.cpp - tic-privatize-reductions -----------------===//
//
// A kernel-scope reduction variable captured by a tc.task and updated there
// only by memref.atomic_rmw of one kind accumulates in a private slot of the
// task; one atomic per task instance combines it into the shared slot.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_PRIVATIZEREDUCTIONS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// The identity of `kind` on `t`, or null when `kind` is not privatized.
/// Floats: -0.0 for addf (x + -0.0 == x for every x, signed zeros and NaN
/// included; +0.0 would turn a -0.0 sum into +0.0), +inf for minimumf and
/// -inf for maximumf (minimum(+inf, x) == x for every x, NaN propagates).
static TypedAttr reductionIdentity(arith::AtomicRMWKind kind, Type t) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case arith::AtomicRMWKind::addf:
      return FloatAttr::get(t, APFloat::getZero(sem, /*Negative=*/true));
    case arith::AtomicRMWKind::minimumf:
      return FloatAttr::get(t, APFloat::getInf(sem, /*Negative=*/false));
    case arith::AtomicRMWKind::maximumf:
      return FloatAttr::get(t, APFloat::getInf(sem, /*Negative=*/true));
    default:
      return {};
    }
  }
  auto it = dyn_cast<IntegerType>(t);
  if (!it)
    return {};
  unsigned w = it.getWidth();
  switch (kind) {
  case arith::AtomicRMWKind::addi:
  case arith::AtomicRMWKind::maxu:
  case arith::AtomicRMWKind::ori:
    return IntegerAttr::get(t, APInt::getZero(w));
  case arith::AtomicRMWKind::mins:
    return IntegerAttr::get(t, APInt::getSignedMaxValue(w));
  case arith::AtomicRMWKind::maxs:
    return IntegerAttr::get(t, APInt::getSignedMinValue(w));
  case arith::AtomicRMWKind::minu:
  case arith::AtomicRMWKind::andi:
    return IntegerAttr::get(t, APInt::getAllOnes(w));
  default:
    return {};
  }
}

/// `acc OP v` for a privatizable kind.
static Value combine(OpBuilder &b, Location loc, arith::AtomicRMWKind kind,
                     Value acc, Value v) {
  switch (kind) {
  case arith::AtomicRMWKind::addf:
    return arith::AddFOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::addi:
    return arith::AddIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::minimumf:
    return arith::MinimumFOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::maximumf:
    return arith::MaximumFOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::mins:
    return arith::MinSIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::maxs:
    return arith::MaxSIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::minu:
    return arith::MinUIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::maxu:
    return arith::MaxUIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::andi:
    return arith::AndIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::ori:
    return arith::OrIOp::create(b, loc, acc, v);
  default:
    llvm_unreachable("not a privatizable reduction kind");
  }
}

/// The reduction kind when the captured `v` can be privatized: rank 0, used
/// only as the memref of `memref.atomic_rmw` ops of one privatizable kind
/// whose results are unused. Any other use (load, store, a used result,
/// mixed kinds) keeps the atomics.
static std::optional<arith::AtomicRMWKind> privatizableKind(Value v) {
  auto mt = dyn_cast<MemRefType>(v.getType());
  if (!mt || mt.getRank() != 0)
    return std::nullopt;
  std::optional<arith::AtomicRMWKind> kind;
  for (OpOperand &use : v.getUses()) {
    auto rmw = dyn_cast<memref::AtomicRMWOp>(use.getOwner());
    if (!rmw || use.get() != rmw.getMemref() || !rmw.getResult().use_empty())
      return std::nullopt;
    if (kind && *kind != rmw.getKind())
      return std::nullopt;
    kind = rmw.getKind();
  }
  if (!kind || !reductionIdentity(*kind, mt.getElementType()))
    return std::nullopt;
  return kind;
}

struct PrivatizeReductionsPass
    : tic::impl::PrivatizeReductionsBase<PrivatizeReductionsPass> {
  void runOnOperation() override {
    for (tc::TaskOp task : getOperation().getOps<tc::TaskOp>()) {
      Block &entry = task.getBody().front();
      auto ret = cast<tc::ReturnOp>(entry.getTerminator());
      // Private slots at the top, in the order of the captures.
      OpBuilder eb(&entry, entry.begin());
      for (BlockArgument shared : task.getCaptures()) {
        std::optional<arith::AtomicRMWKind> kind = privatizableKind(shared);
        if (!kind)
          continue;
        Location loc = shared.getLoc();
        auto mt = cast<MemRefType>(shared.getType());
        Value priv = memref::AllocaOp::create(eb, loc, mt);
        Value init = arith::ConstantOp::create(
            eb, loc, reductionIdentity(*kind, mt.getElementType()));
        memref::StoreOp::create(eb, loc, init, priv);
        SmallVector<memref::AtomicRMWOp> updates;
        for (Operation *user : shared.getUsers())
          updates.push_back(cast<memref::AtomicRMWOp>(user));
        for (memref::AtomicRMWOp rmw : updates) {
          OpBuilder ub(rmw);
          Value acc = memref::LoadOp::create(ub, rmw.getLoc(), priv);
          memref::StoreOp::create(
              ub, rmw.getLoc(),
              combine(ub, rmw.getLoc(), *kind, acc, rmw.getValue()), priv);
          rmw.erase();
        }
        OpBuilder xb(ret);
        Value part = memref::LoadOp::create(xb, loc, priv);
        memref::AtomicRMWOp::create(xb, loc, *kind, part, shared, ValueRange{});
      }
    }
  }
};
} // namespace

//===- Derivatives.cpp - local adjoints of scalar operations --------------===//
//
// One rule per operation (the table of docs/autodiff.md, after DiffTaichi's
// and Taichi's). Rules are written with the recomputed primal values: the
// result `r` is reused where the derivative is a function of it (exp, sqrt,
// tanh, division).
//
//===----------------------------------------------------------------------===//
#include "Derivatives.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace tic;

namespace {

/// Arithmetic on adjoints at one location. Calls that emit ops are
/// sequenced (statements, not sibling call arguments): the IR's order must
/// not depend on the C++ compiler.
struct Emitter {
  OpBuilder &b;
  Location loc;
  Type t;

  Value c(double v) {
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value sel(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  /// select(cond, g, 0) / select(cond, 0, g): never g * cond, so that an
  /// inf or NaN on the untaken side stays out of the gradient.
  Value onlyIf(Value cond, Value g) { return sel(cond, g, c(0.0)); }
  Value unless(Value cond, Value g) { return sel(cond, c(0.0), g); }
};

} // namespace

ad::LocalAdjoint ad::emitLocalAdjoint(Operation *op, Value g, OpBuilder &b,
                                      const IRMapping &map,
                                      function_ref<bool(Value)> isActive,
                                      function_ref<void(Value, Value)> add) {
  if (op->getNumResults() != 1 || !isa<FloatType>(op->getResult(0).getType()))
    return LocalAdjoint::Zero;
  Emitter e{b, op->getLoc(), op->getResult(0).getType()};
  auto x = [&](unsigned i) { return map.lookup(op->getOperand(i)); };
  Value r = map.lookup(op->getResult(0));
  auto give = [&](unsigned i, llvm::function_ref<Value()> contribution) {
    Value o = op->getOperand(i);
    if (isa<FloatType>(o.getType()) && isActive(o))
      add(o, contribution());
  };
  using arith::CmpFPredicate;
  bool ok =
      llvm::TypeSwitch<Operation *, bool>(op)
          // --- arith -------------------------------------------------------
          .Case<arith::AddFOp>([&](auto) {
            give(0, [&] { return g; });
            give(1, [&] { return g; });
            return true;
          })
          .Case<arith::SubFOp>([&](auto) {
            give(0, [&] { return g; });
            give(1, [&] { return e.neg(g); });
            return true;
          })
          .Case<arith::MulFOp>([&](auto) {
            give(0, [&] { return e.mul(g, x(1)); });
            give(1, [&] { return e.mul(g, x(0)); });
            return true;
          })
          .Case<arith::DivFOp>([&](auto) { // r = a / b
            give(0, [&] { return e.div(g, x(1)); });
            give(1, [&] { return e.neg(e.div(e.mul(g, r), x(1))); });
            return true;
          })
          .Case<arith::RemFOp>([&](auto) { // r = a - b * trunc(a / b)
            give(0, [&] { return g; });
            give(1, [&] {
              Value q = math::TruncOp::create(b, e.loc, e.div(x(0), x(1)));
              return e.neg(e.mul(g, q));
            });
            return true;
          })
          .Case<arith::NegFOp>([&](auto) {
            give(0, [&] { return e.neg(g); });
            return true;
          })
          .Case<arith::SelectOp>([&](arith::SelectOp s) {
            Value cond = map.lookup(s.getCondition());
            if (!cond.getType().isInteger(1))
              return false; // vector conditions
            give(1, [&] { return e.onlyIf(cond, g); });
            give(2, [&] { return e.unless(cond, g); });
            return true;
          })
          .Case<arith::MaxNumFOp, arith::MaximumFOp>([&](auto) {
            Value first = e.cmp(CmpFPredicate::OGE, x(0), x(1));
            give(0, [&] { return e.onlyIf(first, g); });
            give(1, [&] { return e.unless(first, g); });
            return true;
          })
          .Case<arith::MinNumFOp, arith::MinimumFOp>([&](auto) {
            Value first = e.cmp(CmpFPredicate::OLE, x(0), x(1));
            give(0, [&] { return e.onlyIf(first, g); });
            give(1, [&] { return e.unless(first, g); });
            return true;
          })
          .Case<arith::ExtFOp>([&](arith::ExtFOp o) {
            give(0, [&] {
              return arith::TruncFOp::create(b, e.loc, o.getIn().getType(), g)
                  .getResult();
            });
            return true;
          })
          .Case<arith::TruncFOp>([&](arith::TruncFOp o) {
            give(0, [&] {
              return arith::ExtFOp::create(b, e.loc, o.getIn().getType(), g)
                  .getResult();
            });
            return true;
          })
          .Case<arith::ConstantOp, arith::SIToFPOp, arith::UIToFPOp,
                arith::BitcastOp>([&](auto) { return true; })
          // --- math --------------------------------------------------------
          .Case<math::SqrtOp>([&](auto) { // g / (2 r)
            give(0, [&] { return e.div(g, e.mul(e.c(2.0), r)); });
            return true;
          })
          .Case<math::RsqrtOp>([&](auto) { // -g r^3 / 2
            give(0, [&] {
              Value h = e.mul(g, e.c(-0.5));
              return e.mul(h, e.mul(r, e.mul(r, r)));
            });
            return true;
          })
          .Case<math::CbrtOp>([&](auto) { // g / (3 r^2)
            give(0, [&] {
              Value three = e.c(3.0);
              return e.div(g, e.mul(three, e.mul(r, r)));
            });
            return true;
          })
          .Case<math::SinOp>([&](auto) {
            give(0, [&] {
              return e.mul(g, math::CosOp::create(b, e.loc, x(0)).getResult());
            });
            return true;
          })
          .Case<math::CosOp>([&](auto) {
            give(0, [&] {
              return e.neg(
                  e.mul(g, math::SinOp::create(b, e.loc, x(0)).getResult()));
            });
            return true;
          })
          .Case<math::TanOp>([&](auto) { // g (1 + r^2)
            give(0, [&] {
              Value one = e.c(1.0);
              return e.mul(g, e.add(one, e.mul(r, r)));
            });
            return true;
          })
          .Case<math::TanhOp>([&](auto) { // g (1 - r^2)
            give(0, [&] {
              Value one = e.c(1.0);
              return e.mul(g, e.sub(one, e.mul(r, r)));
            });
            return true;
          })
          .Case<math::SinhOp>([&](auto) {
            give(0, [&] {
              return e.mul(g, math::CoshOp::create(b, e.loc, x(0)).getResult());
            });
            return true;
          })
          .Case<math::CoshOp>([&](auto) {
            give(0, [&] {
              return e.mul(g, math::SinhOp::create(b, e.loc, x(0)).getResult());
            });
            return true;
          })
          .Case<math::AsinOp>([&](auto) { // g / sqrt(1 - a^2)
            give(0, [&] {
              Value one = e.c(1.0);
              Value s =
                  math::SqrtOp::create(b, e.loc, e.sub(one, e.mul(x(0), x(0))));
              return e.div(g, s);
            });
            return true;
          })
          .Case<math::AcosOp>([&](auto) { // -g / sqrt(1 - a^2)
            give(0, [&] {
              Value one = e.c(1.0);
              Value s =
                  math::SqrtOp::create(b, e.loc, e.sub(one, e.mul(x(0), x(0))));
              return e.neg(e.div(g, s));
            });
            return true;
          })
          .Case<math::AtanOp>([&](auto) { // g / (1 + a^2)
            give(0, [&] {
              Value one = e.c(1.0);
              return e.div(g, e.add(one, e.mul(x(0), x(0))));
            });
            return true;
          })
          .Case<math::Atan2Op>([&](auto) { // atan2(y, x)
            Value y0 = x(0), x1 = x(1);
            Value x1Sq = e.mul(x1, x1);
            Value den = e.add(x1Sq, e.mul(y0, y0));
            give(0, [&] { return e.div(e.mul(g, x1), den); });
            give(1, [&] { return e.neg(e.div(e.mul(g, y0), den)); });
            return true;
          })
          .Case<math::ExpOp>([&](auto) {
            give(0, [&] { return e.mul(g, r); });
            return true;
          })
          .Case<math::Exp2Op>([&](auto) {
            give(0, [&] {
              Value gr = e.mul(g, r);
              return e.mul(gr, e.c(M_LN2));
            });
            return true;
          })
          .Case<math::ExpM1Op>([&](auto) {
            give(0, [&] { return e.mul(g, e.add(r, e.c(1.0))); });
            return true;
          })
          .Case<math::LogOp>([&](auto) {
            give(0, [&] { return e.div(g, x(0)); });
            return true;
          })
          .Case<math::Log2Op>([&](auto) {
            give(0, [&] { return e.div(g, e.mul(x(0), e.c(M_LN2))); });
            return true;
          })
          .Case<math::Log10Op>([&](auto) {
            give(0, [&] { return e.div(g, e.mul(x(0), e.c(M_LN10))); });
            return true;
          })
          .Case<math::Log1pOp>([&](auto) {
            give(0, [&] { return e.div(g, e.add(e.c(1.0), x(0))); });
            return true;
          })
          .Case<math::PowFOp>([&](auto) { // r = a^p
            give(0, [&] {
              Value pm1 = e.sub(x(1), e.c(1.0));
              Value d = math::PowFOp::create(b, e.loc, x(0), pm1);
              return e.mul(e.mul(g, x(1)), d);
            });
            give(1, [&] {
              Value gr = e.mul(g, r);
              return e.mul(gr, math::LogOp::create(b, e.loc, x(0)).getResult());
            });
            return true;
          })
          .Case<math::FPowIOp>([&](math::FPowIOp o) { // r = a^n, n an integer
            give(0, [&] {
              Value n = x(1);
              Value one = arith::ConstantOp::create(
                  b, e.loc, n.getType(), b.getIntegerAttr(n.getType(), 1));
              Value nm1 = arith::SubIOp::create(b, e.loc, n, one);
              Value d = math::FPowIOp::create(b, e.loc, x(0), nm1);
              Value nf = arith::SIToFPOp::create(b, e.loc, e.t, n);
              return e.mul(e.mul(g, nf), d);
            });
            (void)o;
            return true;
          })
          .Case<math::AbsFOp>([&](auto) { // g sign(a), sign(0) = 0
            give(0, [&] {
              Value zero = e.c(0.0);
              Value pos = e.cmp(CmpFPredicate::OGT, x(0), zero);
              Value negv = e.cmp(CmpFPredicate::OLT, x(0), zero);
              return e.sel(pos, g, e.sel(negv, e.neg(g), zero));
            });
            return true;
          })
          .Case<math::CopySignOp>([&](auto) { // sign(a) sign(b) g
            give(0, [&] {
              Value one = e.c(1.0);
              Value sa = math::CopySignOp::create(b, e.loc, one, x(0));
              Value sb = math::CopySignOp::create(b, e.loc, one, x(1));
              return e.mul(g, e.mul(sa, sb));
            });
            return true;
          })
          .Case<math::FmaOp>([&](auto) {
            give(0, [&] { return e.mul(g, x(1)); });
            give(1, [&] { return e.mul(g, x(0)); });
            give(2, [&] { return g; });
            return true;
          })
          .Case<math::FloorOp, math::CeilOp, math::RoundOp, math::RoundEvenOp,
                math::TruncOp>([&](auto) { return true; })
          .Default([&](Operation *) {
            // No rule: fine while no operand needs an adjoint.
            for (Value o : op->getOperands())
              if (isa<FloatType>(o.getType()) && isActive(o))
                return false;
            return true;
          });
  return ok ? LocalAdjoint::Emitted : LocalAdjoint::Unsupported;
}

//===- LowerBits.cpp - tic-lower-bits -------------------------------------===//
//
// bits ops -> arith (and math), as docs/quant.md specifies them (the float
// formulas follow Taichi 1.7.4's codegen_llvm_quant.cpp so that stored bits
// agree; fixed points round from the exact quotient, as the spec says).
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/Bits/BitsDialect.h"
#include "tic/Dialect/Bits/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <cmath>

namespace tic {
#define GEN_PASS_DEF_LOWERBITS
#include "tic/Dialect/Bits/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;
using namespace tic::bits;

namespace {

/// Integer constant of type `t`.
Value icst(PatternRewriter &r, Location loc, Type t, uint64_t v) {
  return arith::ConstantOp::create(
      r, loc,
      r.getIntegerAttr(t, APInt(t.getIntOrFloatBitWidth(), v,
                                /*isSigned=*/false,
                                /*implicitTrunc=*/true)));
}

/// `v` resized to `to` (zero- or sign-extended, or truncated).
Value resize(PatternRewriter &r, Location loc, Value v, Type to, bool sext) {
  unsigned from = v.getType().getIntOrFloatBitWidth(),
           bits = to.getIntOrFloatBitWidth();
  if (from == bits)
    return v;
  if (from > bits)
    return arith::TruncIOp::create(r, loc, to, v);
  return sext ? Value(arith::ExtSIOp::create(r, loc, to, v))
              : Value(arith::ExtUIOp::create(r, loc, to, v));
}

/// The field [offset, offset + width) of `word`, sign- or zero-extended to
/// `to`: shift it to the top, then back down (arithmetically when signed).
Value extractField(PatternRewriter &r, Location loc, Value word, int64_t offset,
                   int64_t width, bool isSigned, Type to) {
  Type wt = word.getType();
  int64_t w = wt.getIntOrFloatBitWidth();
  Value v = word;
  if (w - offset - width > 0)
    v = arith::ShLIOp::create(r, loc, v, icst(r, loc, wt, w - offset - width));
  if (w - width > 0)
    v = isSigned ? Value(arith::ShRSIOp::create(r, loc, v,
                                                icst(r, loc, wt, w - width)))
                 : Value(arith::ShRUIOp::create(r, loc, v,
                                                icst(r, loc, wt, w - width)));
  return resize(r, loc, v, to, isSigned);
}

struct ExtractLowering : OpRewritePattern<ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExtractOp op,
                                PatternRewriter &r) const override {
    r.replaceOp(op,
                extractField(r, op.getLoc(), op.getWord(), op.getOffset(),
                             op.getWidth(), op.getIsSigned(), op.getType()));
    return success();
  }
};

struct InsertLowering : OpRewritePattern<InsertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(InsertOp op,
                                PatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type wt = op.getWord().getType();
    unsigned w = wt.getIntOrFloatBitWidth();
    uint64_t ones =
        op.getWidth() >= 64 ? ~uint64_t(0) : (uint64_t(1) << op.getWidth()) - 1;
    APInt mask = APInt(w, ones, false, true).shl(unsigned(op.getOffset()));
    Value v = resize(r, loc, op.getValue(), wt, /*sext=*/false);
    if (op.getOffset() > 0)
      v = arith::ShLIOp::create(r, loc, v, icst(r, loc, wt, op.getOffset()));
    Value m = icst(r, loc, wt, mask.getZExtValue());
    Value keep = icst(r, loc, wt, (~mask).getZExtValue());
    Value old = arith::AndIOp::create(r, loc, op.getWord(), keep);
    Value field = arith::AndIOp::create(r, loc, v, m);
    r.replaceOpWithNewOp<arith::OrIOp>(op, old, field);
    return success();
  }
};

struct EncodeFixedLowering : OpRewritePattern<EncodeFixedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EncodeFixedOp op,
                                PatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type f64 = r.getF64Type();
    double scale = op.getScale().convertToDouble();
    auto fc = [&](double v) -> Value {
      return arith::ConstantOp::create(r, loc, r.getFloatAttr(f64, v));
    };
    // The nearest integer to |x| / s, ties away from zero, decided on the
    // exact values (spec section 7), in f64.
    Value x = op.getInput();
    if (!x.getType().isF64())
      x = arith::ExtFOp::create(r, loc, f64, x);
    Value a = math::AbsFOp::create(r, loc, x);
    Value n;
    int exp2;
    if (std::frexp(scale, &exp2) == 0.5) {
      // A power of two: q = a / s is exact, and so is its fraction.
      Value q = arith::MulFOp::create(r, loc, a, fc(1.0 / scale));
      Value t = math::FloorOp::create(r, loc, q);
      Value frac = arith::SubFOp::create(r, loc, q, t);
      Value half = fc(0.5);
      Value up =
          arith::CmpFOp::create(r, loc, arith::CmpFPredicate::OGE, frac, half);
      n = arith::SelectOp::create(r, loc, up,
                                  arith::AddFOp::create(r, loc, t, fc(1.0)), t);
    } else {
      // t = floor(a / s) may be off by one where the quotient rounds across
      // an integer; the sign of a - (t + 1/2) s, exact from one fused
      // multiply-add, decides between t and t + 1 either way.
      Value t = math::FloorOp::create(
          r, loc, arith::DivFOp::create(r, loc, a, fc(scale)));
      Value mid = arith::AddFOp::create(r, loc, t, fc(0.5));
      Value negMid = arith::NegFOp::create(r, loc, mid);
      Value s = fc(scale);
      Value d = math::FmaOp::create(r, loc, negMid, s, a);
      Value up =
          arith::CmpFOp::create(r, loc, arith::CmpFPredicate::OGE, d, fc(0.0));
      n = arith::SelectOp::create(r, loc, up,
                                  arith::AddFOp::create(r, loc, t, fc(1.0)), t);
    }
    Type i64 = r.getI64Type();
    Value i = arith::FPToSIOp::create(r, loc, i64, n);
    Value neg =
        arith::CmpFOp::create(r, loc, arith::CmpFPredicate::OLT, x, fc(0.0));
    i = arith::SelectOp::create(
        r, loc, neg, arith::SubIOp::create(r, loc, icst(r, loc, i64, 0), i), i);
    // Wrap to `width` bits, read back as bits.extract would.
    Value field = extractField(r, loc, i, 0, op.getWidth(), op.getIsSigned(),
                               op.getType());
    r.replaceOp(op, field);
    return success();
  }
};

struct DecodeFixedLowering : OpRewritePattern<DecodeFixedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DecodeFixedOp op,
                                PatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type ft = op.getType();
    Value f = op.getIsSigned()
                  ? Value(arith::SIToFPOp::create(r, loc, ft, op.getDigits()))
                  : Value(arith::UIToFPOp::create(r, loc, ft, op.getDigits()));
    Value s = arith::ConstantOp::create(
        r, loc, r.getFloatAttr(ft, op.getScale().convertToDouble()));
    r.replaceOpWithNewOp<arith::MulFOp>(op, f, s);
    return success();
  }
};

/// f32's exponent minus the stored one, for a nonzero f32 exponent:
/// 128 - 2^(E-1), so that the stored bias is 2^(E-1) - 1.
int64_t exponentOffset(int64_t exp) { return 128 - (int64_t(1) << (exp - 1)); }

struct EncodeFloatLowering : OpRewritePattern<EncodeFloatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EncodeFloatOp op,
                                PatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type i32 = r.getI32Type();
    int64_t d = op.getFrac() - (op.getIsSigned() ? 1 : 0); // digit bits
    auto c = [&](int64_t v) { return icst(r, loc, i32, uint64_t(v)); };
    Value bits = arith::BitcastOp::create(r, loc, i32, op.getInput());
    // Round to nearest through the bit pattern: a carry out of the kept
    // digits moves into the exponent.
    if (d < 23)
      bits = arith::AddIOp::create(r, loc, bits, c(int64_t(1) << (22 - d)));
    Value e32 = arith::ShRSIOp::create(r, loc, bits, c(23));
    e32 = arith::AndIOp::create(r, loc, e32, c(0xff));
    Value digits = arith::ShRSIOp::create(r, loc, bits, c(23 - d));
    digits = arith::AndIOp::create(r, loc, digits, c((int64_t(1) << d) - 1));
    if (op.getIsSigned()) {
      Value sign = arith::AndIOp::create(r, loc, bits, c(0x80000000ll));
      digits = arith::OrIOp::create(
          r, loc, digits, arith::ShRUIOp::create(r, loc, sign, c(31 - d)));
    }
    // Re-bias a nonzero exponent; below the smallest normal: 0.
    Value nonzero =
        arith::CmpIOp::create(r, loc, arith::CmpIPredicate::ne, e32, c(0));
    Value offsetC = c(exponentOffset(op.getExp()));
    Value zeroC = c(0);
    Value offset = arith::SelectOp::create(r, loc, nonzero, offsetC, zeroC);
    Value stored = arith::SubIOp::create(r, loc, e32, offset);
    stored = arith::MaxSIOp::create(r, loc, stored, c(0));
    // A stored exponent of 0 means zero: its digits are 0 (flush to zero).
    Value keep =
        arith::CmpIOp::create(r, loc, arith::CmpIPredicate::ne, stored, c(0));
    digits = arith::SelectOp::create(r, loc, keep, digits, c(0));
    r.replaceOp(op, {stored, digits});
    return success();
  }
};

struct DecodeFloatLowering : OpRewritePattern<DecodeFloatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DecodeFloatOp op,
                                PatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type i32 = r.getI32Type();
    int64_t d = op.getFrac() - (op.getIsSigned() ? 1 : 0);
    auto c = [&](int64_t v) { return icst(r, loc, i32, uint64_t(v)); };
    Value e = op.getExponent();
    Value offset = c(exponentOffset(op.getExp()));
    if (op.getExp() < 8) {
      Value nonzero =
          arith::CmpIOp::create(r, loc, arith::CmpIPredicate::ne, e, c(0));
      offset = arith::SelectOp::create(r, loc, nonzero, offset, c(0));
    }
    Value digits = arith::AndIOp::create(r, loc, op.getDigits(),
                                         c((int64_t(1) << op.getFrac()) - 1));
    digits = arith::ShLIOp::create(r, loc, digits, c(23 - d));
    Value fraction = arith::AndIOp::create(r, loc, digits, c((1 << 23) - 1));
    Value exponent = arith::AddIOp::create(r, loc, e, offset);
    exponent = arith::ShLIOp::create(r, loc, exponent, c(23));
    Value bits = arith::OrIOp::create(r, loc, exponent, fraction);
    if (op.getIsSigned()) {
      Value sign = arith::AndIOp::create(r, loc, digits, c(1 << 23));
      sign = arith::ShLIOp::create(r, loc, sign, c(8));
      bits = arith::OrIOp::create(r, loc, bits, sign);
    }
    r.replaceOpWithNewOp<arith::BitcastOp>(op, r.getF32Type(), bits);
    return success();
  }
};

/// 2^n as an f64, from its bit pattern (n in the normal range).
Value pow2(PatternRewriter &r, Location loc, Value n32) {
  Type i64 = r.getI64Type();
  Value n = arith::ExtSIOp::create(r, loc, i64, n32);
  Value biased = arith::AddIOp::create(r, loc, n, icst(r, loc, i64, 1023));
  Value bits = arith::ShLIOp::create(r, loc, biased, icst(r, loc, i64, 52));
  return arith::BitcastOp::create(r, loc, r.getF64Type(), bits);
}

struct EncodeSharedLowering : OpRewritePattern<EncodeSharedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EncodeSharedOp op,
                                PatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type i32 = r.getI32Type(), f64 = r.getF64Type();
    auto c = [&](int64_t v) { return icst(r, loc, i32, uint64_t(v)); };
    int64_t p = op.getFrac() - (op.getIsSigned() ? 1 : 0); // digit bits
    int64_t bias = (int64_t(1) << (op.getExp() - 1)) - 1;
    // The largest f32 exponent of the components.
    SmallVector<Value> bits;
    Value emax;
    for (Value x : op.getInputs()) {
      Value b = arith::BitcastOp::create(r, loc, i32, x);
      bits.push_back(b);
      Value e = arith::ShRUIOp::create(r, loc, b, c(23));
      e = arith::AndIOp::create(r, loc, e, c(0xff));
      emax = emax ? Value(arith::MaxUIOp::create(r, loc, emax, e)) : e;
    }
    // Stored: E_max + bias; zero (every digit 0) when not positive.
    Value unbiased = arith::SubIOp::create(r, loc, emax, c(127));
    Value stored = arith::AddIOp::create(r, loc, unbiased, c(bias));
    Value zero =
        arith::CmpIOp::create(r, loc, arith::CmpIPredicate::sle, stored, c(0));
    stored = arith::SelectOp::create(r, loc, zero, c(0), stored);
    // Digits: |x| / 2^(E_max - p + 1), rounded (ties away from zero: the
    // product is exact, so are + 1/2 and floor), saturated at 2^p - 1.
    Value inv = pow2(r, loc, arith::SubIOp::create(r, loc, c(p - 1), unbiased));
    Value half = arith::ConstantOp::create(r, loc, r.getF64FloatAttr(0.5));
    SmallVector<Value> results{stored};
    for (auto [x, b] : llvm::zip(op.getInputs(), bits)) {
      Value a =
          math::AbsFOp::create(r, loc, arith::ExtFOp::create(r, loc, f64, x));
      Value q = math::FloorOp::create(
          r, loc,
          arith::AddFOp::create(r, loc, arith::MulFOp::create(r, loc, a, inv),
                                half));
      Value d = arith::FPToSIOp::create(r, loc, i32, q);
      d = arith::MinSIOp::create(r, loc, d, c((int64_t(1) << p) - 1));
      if (op.getIsSigned()) {
        Value sign = arith::ShRUIOp::create(r, loc, b, c(31));
        d = arith::OrIOp::create(r, loc, d,
                                 arith::ShLIOp::create(r, loc, sign, c(p)));
      }
      results.push_back(arith::SelectOp::create(r, loc, zero, c(0), d));
    }
    r.replaceOp(op, results);
    return success();
  }
};

struct DecodeSharedLowering : OpRewritePattern<DecodeSharedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DecodeSharedOp op,
                                PatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type i32 = r.getI32Type(), f64 = r.getF64Type();
    auto c = [&](int64_t v) { return icst(r, loc, i32, uint64_t(v)); };
    int64_t p = op.getFrac() - (op.getIsSigned() ? 1 : 0);
    int64_t bias = (int64_t(1) << (op.getExp() - 1)) - 1;
    Value d =
        arith::AndIOp::create(r, loc, op.getDigits(), c((int64_t(1) << p) - 1));
    Value n = arith::SubIOp::create(r, loc, op.getExponent(), c(bias + p - 1));
    Value df = arith::SIToFPOp::create(r, loc, f64, d);
    Value v = arith::MulFOp::create(r, loc, df, pow2(r, loc, n));
    Value e0 = arith::CmpIOp::create(r, loc, arith::CmpIPredicate::eq,
                                     op.getExponent(), c(0));
    v = arith::SelectOp::create(
        r, loc, e0, arith::ConstantOp::create(r, loc, r.getF64FloatAttr(0.0)),
        v);
    Value f = arith::TruncFOp::create(r, loc, r.getF32Type(), v);
    if (op.getIsSigned()) {
      Value sign =
          arith::AndIOp::create(r, loc, op.getDigits(), c(int64_t(1) << p));
      Value neg =
          arith::CmpIOp::create(r, loc, arith::CmpIPredicate::ne, sign, c(0));
      f = arith::SelectOp::create(r, loc, neg, arith::NegFOp::create(r, loc, f),
                                  f);
    }
    r.replaceOp(op, f);
    return success();
  }
};

struct LowerBitsPass : tic::impl::LowerBitsBase<LowerBitsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExtractLowering, InsertLowering, EncodeFixedLowering,
                 DecodeFixedLowering, EncodeFloatLowering, DecodeFloatLowering,
                 EncodeSharedLowering, DecodeSharedLowering>(&getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace

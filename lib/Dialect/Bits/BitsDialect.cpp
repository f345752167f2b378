//===- BitsDialect.cpp - the bits dialect ---------------------------------===//
#include "tic/Dialect/Bits/BitsDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;
using namespace tic;
using namespace tic::bits;

#include "tic/Dialect/Bits/BitsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tic/Dialect/Bits/BitsAttrs.cpp.inc"

void BitsDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tic/Dialect/Bits/BitsAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tic/Dialect/Bits/BitsOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "tic/Dialect/Bits/BitsOps.cpp.inc"

/// [offset, offset + width) must lie inside a word of `wordBits` bits.
static LogicalResult verifyField(Operation *op, int64_t offset, int64_t width,
                                 unsigned wordBits) {
  if (width < 1 || offset < 0 || offset + width > int64_t(wordBits))
    return op->emitOpError("bit field [")
           << offset << ", " << offset + width << ") is not inside a "
           << wordBits << "-bit word";
  return success();
}

static LogicalResult verifyScale(Operation *op, double scale) {
  if (!(scale > 0) || !std::isfinite(scale))
    return op->emitOpError("scale must be positive and finite, got ") << scale;
  return success();
}

/// quant.float: 1 to 8 exponent bits, 1 to 23 digit bits under the sign.
static LogicalResult verifyFloatFormat(Operation *op, int64_t exp, int64_t frac,
                                       bool isSigned) {
  int64_t digits = frac - (isSigned ? 1 : 0);
  if (exp < 1 || exp > 8)
    return op->emitOpError("exponent width must be in [1, 8], got ") << exp;
  if (digits < 1 || digits > 23)
    return op->emitOpError("fraction width must leave 1 to 23 digit bits")
           << (isSigned ? " under the sign bit" : "") << ", got " << frac;
  return success();
}

LogicalResult ExtractOp::verify() {
  unsigned w = getWord().getType().getIntOrFloatBitWidth();
  if (failed(verifyField(*this, getOffset(), getWidth(), w)))
    return failure();
  if (getResult().getType().getIntOrFloatBitWidth() < getWidth())
    return emitOpError("result type ")
           << getResult().getType() << " cannot hold " << getWidth() << " bits";
  return success();
}

LogicalResult InsertOp::verify() {
  return verifyField(*this, getOffset(), getWidth(),
                     getWord().getType().getIntOrFloatBitWidth());
}

LogicalResult EncodeFixedOp::verify() {
  if (getWidth() < 1 || getWidth() > 64)
    return emitOpError("width must be in [1, 64], got ") << getWidth();
  if (getResult().getType().getIntOrFloatBitWidth() < getWidth())
    return emitOpError("result type ")
           << getResult().getType() << " cannot hold " << getWidth() << " bits";
  return verifyScale(*this, getScale().convertToDouble());
}

LogicalResult DecodeFixedOp::verify() {
  return verifyScale(*this, getScale().convertToDouble());
}

LogicalResult EncodeFloatOp::verify() {
  return verifyFloatFormat(*this, getExp(), getFrac(), getIsSigned());
}

LogicalResult DecodeFloatOp::verify() {
  return verifyFloatFormat(*this, getExp(), getFrac(), getIsSigned());
}

LogicalResult EncodeSharedOp::verify() {
  if (getInputs().empty() || getInputs().size() != getDigits().size())
    return emitOpError("needs one digits result per input, and an input");
  return verifyFloatFormat(*this, getExp(), getFrac(), getIsSigned());
}

LogicalResult DecodeSharedOp::verify() {
  return verifyFloatFormat(*this, getExp(), getFrac(), getIsSigned());
}

//===----------------------------------------------------------------------===//
// #bits.quant
//===----------------------------------------------------------------------===//

QuantAttr QuantAttr::getInt(MLIRContext *ctx, unsigned bits, bool isSigned) {
  return get(ctx, QuantKind::Int, isSigned, bits, APFloat(0.0), 0, 0);
}
QuantAttr QuantAttr::getFixed(MLIRContext *ctx, unsigned bits, bool isSigned,
                              double scale) {
  return get(ctx, QuantKind::Fixed, isSigned, bits, APFloat(scale), 0, 0);
}
QuantAttr QuantAttr::getFloat(MLIRContext *ctx, unsigned exp, unsigned frac,
                              bool isSigned) {
  return get(ctx, QuantKind::Float, isSigned, exp + frac, APFloat(0.0), exp,
             frac);
}

bool QuantAttr::isComputeType(Type t) const {
  switch (getKind()) {
  case QuantKind::Int:
    return t.isSignlessInteger() && t.getIntOrFloatBitWidth() >= getBits() &&
           t.getIntOrFloatBitWidth() > 1;
  case QuantKind::Fixed:
    return isa<FloatType>(t) && (t.isF32() || t.isF64());
  case QuantKind::Float:
    return t.isF32();
  }
  return false;
}

LogicalResult QuantAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                QuantKind kind, bool isSigned, unsigned bits,
                                APFloat scale, unsigned exp, unsigned frac) {
  switch (kind) {
  case QuantKind::Int:
  case QuantKind::Fixed:
    if (bits < 1 || bits > 64)
      return emitError() << "a quantized integer or fixed point has 1 to 64 "
                            "bits, got "
                         << bits;
    if (kind == QuantKind::Fixed) {
      double s = scale.convertToDouble();
      if (!(s > 0) || !std::isfinite(s))
        return emitError() << "scale must be positive and finite, got " << s;
    }
    return success();
  case QuantKind::Float: {
    unsigned digits = frac - (isSigned ? 1 : 0);
    if (exp < 1 || exp > 8)
      return emitError() << "exponent width must be in [1, 8], got " << exp;
    if (frac < 1 || digits < 1 || digits > 23)
      return emitError() << "fraction width must leave 1 to 23 digit bits"
                         << (isSigned ? " under the sign bit" : "") << ", got "
                         << frac;
    if (bits != exp + frac)
      return emitError() << "a quantized float has exp + frac bits";
    return success();
  }
  }
  return emitError() << "unknown quantized kind";
}

Attribute QuantAttr::parse(AsmParser &p, Type) {
  MLIRContext *ctx = p.getContext();
  StringRef kw;
  if (p.parseLess() || p.parseKeyword(&kw))
    return {};
  bool isSigned = !kw.consume_front("u");
  unsigned a = 0, b = 0;
  double scale = 0;
  auto fail = [&]() -> Attribute {
    p.emitError(p.getCurrentLocation(),
                "expected int, uint, fixed, ufixed, float or ufloat");
    return {};
  };
  QuantKind kind;
  if (kw == "int")
    kind = QuantKind::Int;
  else if (kw == "fixed")
    kind = QuantKind::Fixed;
  else if (kw == "float")
    kind = QuantKind::Float;
  else
    return fail();
  if (p.parseComma() || p.parseInteger(a))
    return {};
  if (kind == QuantKind::Fixed && (p.parseComma() || p.parseFloat(scale)))
    return {};
  if (kind == QuantKind::Float && (p.parseComma() || p.parseInteger(b)))
    return {};
  if (p.parseGreater())
    return {};
  auto emit = [&] { return p.emitError(p.getNameLoc()); };
  if (kind == QuantKind::Float)
    return getChecked(emit, ctx, kind, isSigned, a + b, APFloat(0.0), a, b);
  return getChecked(emit, ctx, kind, isSigned, a,
                    APFloat(kind == QuantKind::Fixed ? scale : 0.0), 0, 0);
}

void QuantAttr::print(AsmPrinter &p) const {
  p << '<' << (getIsSigned() ? "" : "u");
  switch (getKind()) {
  case QuantKind::Int:
    p << "int, " << getBits();
    break;
  case QuantKind::Fixed: {
    // The shortest decimal that reads back as the same double.
    double v = getScaleValue();
    char buf[40];
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, v);
      if (std::strtod(buf, nullptr) == v)
        break;
    }
    std::string str = buf;
    if (str.find_first_of(".eEn") == std::string::npos)
      str += ".0";
    p << "fixed, " << getBits() << ", " << str;
    break;
  }
  case QuantKind::Float:
    p << "float, " << getExp() << ", " << getFrac();
    break;
  }
  p << '>';
}

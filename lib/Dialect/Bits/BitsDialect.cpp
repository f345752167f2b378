//===- BitsDialect.cpp - the bits dialect ---------------------------------===//
#include "tic/Dialect/Bits/BitsDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;
using namespace tic;
using namespace tic::bits;

#include "tic/Dialect/Bits/BitsDialect.cpp.inc"

void BitsDialect::initialize() {
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

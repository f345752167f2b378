//===- BitsDialect.h - the bits dialect -------------------------*- C++ -*-===//
#ifndef TIC_DIALECT_BITS_BITSDIALECT_H
#define TIC_DIALECT_BITS_BITSDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tic::bits {
/// The three quantized encodings (spec section 7).
enum class QuantKind : uint32_t { Int, Fixed, Float };
} // namespace tic::bits

#include "tic/Dialect/Bits/BitsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tic/Dialect/Bits/BitsAttrs.h.inc"

#define GET_OP_CLASSES
#include "tic/Dialect/Bits/BitsOps.h.inc"

#endif

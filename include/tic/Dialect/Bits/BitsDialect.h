//===- BitsDialect.h - the bits dialect -------------------------*- C++ -*-===//
#ifndef TIC_DIALECT_BITS_BITSDIALECT_H
#define TIC_DIALECT_BITS_BITSDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tic/Dialect/Bits/BitsDialect.h.inc"

#define GET_OP_CLASSES
#include "tic/Dialect/Bits/BitsOps.h.inc"

#endif

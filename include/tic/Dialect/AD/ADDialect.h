//===- ADDialect.h - the ad dialect -----------------------------*- C++ -*-===//
#ifndef TIC_DIALECT_AD_ADDIALECT_H
#define TIC_DIALECT_AD_ADDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tic/Dialect/AD/ADDialect.h.inc"

#define GET_OP_CLASSES
#include "tic/Dialect/AD/ADOps.h.inc"

#endif

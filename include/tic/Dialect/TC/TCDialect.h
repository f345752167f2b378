//===- TCDialect.h - the tc dialect -----------------------------*- C++ -*-===//
#ifndef TIC_DIALECT_TC_TCDIALECT_H
#define TIC_DIALECT_TC_TCDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tic/Dialect/SNode/SNodeDialect.h"

#include "tic/Dialect/TC/TCEnums.h.inc"

#include "tic/Dialect/TC/TCDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tic/Dialect/TC/TCTypes.h.inc"

#define GET_OP_CLASSES
#include "tic/Dialect/TC/TCOps.h.inc"

#endif

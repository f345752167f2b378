//===- ADOps.td - ad operations ----------------------------*- tablegen -*-===//
#ifndef TIC_DIALECT_AD_OPS_TD
#define TIC_DIALECT_AD_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tic/Dialect/AD/ADDialect.td"

#endif

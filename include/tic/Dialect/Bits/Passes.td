//===- Passes.td - bits dialect transforms -----------------*- tablegen -*-===//
#ifndef TIC_DIALECT_BITS_PASSES_TD
#define TIC_DIALECT_BITS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerBits : Pass<"tic-lower-bits"> {
  let summary = "Lower bits ops to arith (shifts, masks, conversions)";
  let description = [{
    Every bits op becomes arith operations on its operands, target
    neutrally (docs/quant.md gives the formulas).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif

//===- Passes.td - snode dialect passes --------------------*- tablegen -*-===//
#ifndef TIC_DIALECT_SNODE_PASSES_TD
#define TIC_DIALECT_SNODE_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrintSNodeLayout : Pass<"tic-print-snode-layout", "::mlir::ModuleOp"> {
  let summary = "Print the SNodeLayout analysis (sizes, offsets, strides) of every tree";
  let description = [{
    Test helper: writes the computed layout to stdout so lit tests can check
    offsets, strides, the root size and the fields' index shapes.
  }];
}

#endif

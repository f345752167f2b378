//===- TCDialect.td - the tc dialect -----------------------*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_TC_TCDIALECT_TD
#define TIC_DIALECT_TC_TCDIALECT_TD

include "mlir/IR/OpBase.td"

def TC_Dialect : Dialect {
  let name = "tc";
  let cppNamespace = "::tic::tc";
  let summary = "tic kernels, parallel loops and field access";
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::tic::snode::SNodeDialect"];
}

class TC_Op<string mnemonic, list<Trait> traits = []>
    : Op<TC_Dialect, mnemonic, traits>;

#endif // TIC_DIALECT_TC_TCDIALECT_TD

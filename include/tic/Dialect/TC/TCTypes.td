//===- TCTypes.td - tc types -------------------------------*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_TC_TCTYPES_TD
#define TIC_DIALECT_TC_TCTYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "tic/Dialect/TC/TCDialect.td"

def TC_NDArrayType : TypeDef<TC_Dialect, "NDArray"> {
  let mnemonic = "ndarray";
  let summary = "external dense row-major array passed by the host";
  let parameters = (ins "::mlir::Type":$elementType, "unsigned":$rank);
  let assemblyFormat = "`<` $elementType `,` $rank `>`";
  let genVerifyDecl = 1;
}

#endif // TIC_DIALECT_TC_TCTYPES_TD

//===- SNodeTypes.td - snode types -------------------------*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_SNODE_SNODETYPES_TD
#define TIC_DIALECT_SNODE_SNODETYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "tic/Dialect/SNode/SNodeDialect.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def SNode_PtrType : TypeDef<SNode_Dialect, "Ptr"> {
  let mnemonic = "ptr";
  let summary = "opaque pointer to a cell or container of an SNode";
}

#endif // TIC_DIALECT_SNODE_SNODETYPES_TD

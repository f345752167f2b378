//===- SNodeInterfaces.td - the container op interface -----*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_SNODE_SNODEINTERFACES_TD
#define TIC_DIALECT_SNODE_SNODEINTERFACES_TD

include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Container interface
//===----------------------------------------------------------------------===//

def SNode_ContainerOpInterface : OpInterface<"SNodeContainerOpInterface"> {
  let cppNamespace = "::tic::snode";
  let description = [{
    Common view of every container SNode (dense, pointer, bitmasked, hash,
    dynamic, bit_struct, bit_array): a name, the axes it splits, the extent per
    axis and a single-block region holding its children.
  }];
  let methods = [
    InterfaceMethod<"node name", "::llvm::StringRef", "getNodeName", (ins),
      [{}], [{ return $_op.getSymName(); }]>,
    InterfaceMethod<"axes of this level", "::llvm::ArrayRef<int64_t>",
      "getAxesArray", (ins), [{}], [{ return $_op.getAxes(); }]>,
    InterfaceMethod<"extent per axis", "::llvm::ArrayRef<int64_t>",
      "getShapeArray", (ins), [{}], [{ return $_op.getShape(); }]>,
    InterfaceMethod<"node kind", "::tic::snode::SNodeKind", "getKind", (ins),
      [{}], [{ return ConcreteOp::kKind; }]>,
    InterfaceMethod<"children region", "::mlir::Region &", "getChildren",
      (ins), [{}], [{ return $_op.getBody(); }]>,
  ];
}

#endif // TIC_DIALECT_SNODE_SNODEINTERFACES_TD

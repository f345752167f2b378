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
    InterfaceMethod<"cells per chunk of a dynamic node (its `chunk`, at "
      "most its length; the whole length when absent); 0 for other kinds",
      "int64_t", "getChunkCells", (ins), [{}], [{
        if (ConcreteOp::kKind != ::tic::snode::SNodeKind::Dynamic)
          return 0;
        int64_t len = $_op.getShape().empty() ? 1 : $_op.getShape()[0];
        std::optional<uint64_t> c = $_op.getChunk();
        return c && int64_t(*c) > 0 && int64_t(*c) < len ? int64_t(*c) : len;
      }]>,
    InterfaceMethod<"children region", "::mlir::Region &", "getChildren",
      (ins), [{}], [{ return $_op.getBody(); }]>,
    InterfaceMethod<"byte offset of the cell array in the parent's cell "
      "(set by tic-allocate-layout)", "std::optional<uint64_t>",
      "getLayoutOffset", (ins), [{}], [{ return $_op.getOffset(); }]>,
    InterfaceMethod<"size of one cell (set by tic-allocate-layout)",
      "std::optional<uint64_t>", "getLayoutCellSize", (ins), [{}],
      [{ return $_op.getCellSize(); }]>,
    InterfaceMethod<"alignment of one cell (set by tic-allocate-layout)",
      "std::optional<uint64_t>", "getLayoutCellAlign", (ins), [{}],
      [{ return $_op.getCellAlign(); }]>,
    InterfaceMethod<"records the layout of this node", "void", "setLayout",
      (ins "int64_t":$offset, "int64_t":$cellSize, "int64_t":$cellAlign),
      [{}], [{
        $_op.setOffset(uint64_t(offset));
        $_op.setCellSize(uint64_t(cellSize));
        $_op.setCellAlign(uint64_t(cellAlign));
      }]>,
  ];
}

#endif // TIC_DIALECT_SNODE_SNODEINTERFACES_TD

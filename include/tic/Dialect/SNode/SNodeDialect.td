//===- SNodeDialect.td - the snode dialect -----------------*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_SNODE_SNODEDIALECT_TD
#define TIC_DIALECT_SNODE_SNODEDIALECT_TD

include "mlir/IR/OpBase.td"

def SNode_Dialect : Dialect {
  let name = "snode";
  let cppNamespace = "::tic::snode";
  let summary = "Layout trees (SNodes) and micro-access operations";
  let useDefaultTypePrinterParser = 1;
  // Folded snode ops (is_active on an always-active node) become arith
  // constants.
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
                           "::tic::bits::BitsDialect"];
}

class SNode_Op<string mnemonic, list<Trait> traits = []>
    : Op<SNode_Dialect, mnemonic, traits>;

#endif // TIC_DIALECT_SNODE_SNODEDIALECT_TD

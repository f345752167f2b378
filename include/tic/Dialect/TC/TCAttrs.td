//===- TCAttrs.td - tc enums and attributes ----------------*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_TC_TCATTRS_TD
#define TIC_DIALECT_TC_TCATTRS_TD

include "mlir/IR/EnumAttr.td"
include "tic/Dialect/TC/TCDialect.td"

def TC_AtomicKind : I32EnumAttr<"AtomicKind", "atomic read-modify-write kind", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"max", 3>,
    I32EnumAttrCase<"and_", 4, "and">, I32EnumAttrCase<"or_", 5, "or">,
    I32EnumAttrCase<"xor_", 6, "xor">]> {
  let cppNamespace = "::tic::tc";
}

#endif // TIC_DIALECT_TC_TCATTRS_TD

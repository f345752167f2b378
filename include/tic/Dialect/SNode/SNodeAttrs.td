//===- SNodeAttrs.td - snode enums and side-effect resources -*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_SNODE_SNODEATTRS_TD
#define TIC_DIALECT_SNODE_SNODEATTRS_TD

include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tic/Dialect/SNode/SNodeDialect.td"

def SNode_KindAttr : I32EnumAttr<"SNodeKind", "kind of a container SNode", [
    I32EnumAttrCase<"Dense", 0, "dense">,
    I32EnumAttrCase<"Pointer", 1, "pointer">,
    I32EnumAttrCase<"Bitmasked", 2, "bitmasked">,
    I32EnumAttrCase<"Hash", 3, "hash">,
    I32EnumAttrCase<"Dynamic", 4, "dynamic">,
    I32EnumAttrCase<"BitStruct", 5, "bit_struct">,
    I32EnumAttrCase<"BitArray", 6, "bit_array">]> {
  let cppNamespace = "::tic::snode";
}

// The same kinds as tc.atomic_rmw's (the lowering maps them by name): the
// snode dialect does not depend on tc.
def SNode_AtomicKindAttr : I32EnumAttr<"AtomicKind",
    "atomic read-modify-write kind of snode.atomic_rmw", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"max", 3>,
    I32EnumAttrCase<"and_", 4, "and">, I32EnumAttrCase<"or_", 5, "or">,
    I32EnumAttrCase<"xor_", 6, "xor">]> {
  let cppNamespace = "::tic::snode";
}

// Side-effect resources. `Structure` is which cells exist (activation
// state, pointers, hash tables, lengths); `FieldData` is the values stored
// in the placed fields. A lookup on an always-active node (dense,
// bit_struct, bit_array) touches neither; a lookup on a sparse node reads
// the structure and an activating one also writes it; loads, stores and
// atomics touch the field data only.
def SNode_StructureResource : Resource<"::tic::snode::StructureResource">;
def SNode_FieldDataResource : Resource<"::tic::snode::FieldDataResource">;

#endif // TIC_DIALECT_SNODE_SNODEATTRS_TD

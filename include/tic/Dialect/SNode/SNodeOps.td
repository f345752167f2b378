//===- SNodeOps.td - layout tree and micro-access operations ---*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_SNODE_SNODEOPS_TD
#define TIC_DIALECT_SNODE_SNODEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/BuiltinAttributes.td"
include "tic/Dialect/SNode/SNodeDialect.td"
include "tic/Dialect/SNode/SNodeTypes.td"
include "tic/Dialect/SNode/SNodeAttrs.td"
include "tic/Dialect/SNode/SNodeInterfaces.td"
include "tic/Dialect/Bits/BitsAttrs.td"

//===----------------------------------------------------------------------===//
// Layout tree
//===----------------------------------------------------------------------===//

def SNode_BufferOp : SNode_Op<"buffer", [Symbol,
    HasParent<"::mlir::ModuleOp">]> {
  let summary = "a memory buffer that layout trees are allocated in";
  let description = [{
    `snode.buffer @tic.root size 4096 align 64` is one allocation the runtime
    makes per context. It is created by `tic-allocate-layout`, which places
    every `snode.tree` in a buffer at an offset; the size is the end of the
    last tree, rounded up to the alignment (the largest of the trees').
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, I64Attr:$size, I64Attr:$align);
  let assemblyFormat = "$sym_name `size` $size `align` $align attr-dict";
  let hasVerifier = 1;
}

def SNode_TreeOp : SNode_Op<"tree", [Symbol, NoTerminator, SingleBlock,
    NoRegionArguments, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "root of a layout tree";
  let description = [{
    `snode.tree @root { ... }` holds containers and places (0-D fields placed
    directly under the root). Node and place names are unique within the
    module across all trees.

    Its layout is recorded once, by `tic-allocate-layout`, and read by every
    later pass: the tree's `buffer`, its `offset` in that buffer, its root
    cell's `size` and `align`; on each container the `offset` of its cell
    array in the parent's cell, its `cell_size` and `cell_align`; on each
    place the `offset` of its element in the cell and the
    `component_offsets` inside the element. Either all of these are present
    or none; the verifier checks that they describe a layout that fits
    (aligned, non-overlapping, inside the parent's cell and the buffer).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<FlatSymbolRefAttr>:$buffer,
                       OptionalAttr<I64Attr>:$offset,
                       OptionalAttr<I64Attr>:$size,
                       OptionalAttr<I64Attr>:$align);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    /// The layout attributes, if any, describe a layout that fits.
    static ::llvm::LogicalResult verifyLayout(TreeOp tree);
    bool isAllocated() { return getBufferAttr() != nullptr; }
  }];
}

class SNode_ContainerOp<string mnemonic, string kind>
    : SNode_Op<mnemonic, [NoTerminator, SingleBlock, NoRegionArguments,
        SNode_ContainerOpInterface,
        ParentOneOf<["TreeOp", "DenseOp", "PointerOp", "BitmaskedOp", "HashOp",
                     "DynamicOp", "BitStructOp", "BitArrayOp"]>]> {
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$axes,
                       DenseI64ArrayAttr:$shape,
                       OptionalAttr<I64Attr>:$chunk,
                       OptionalAttr<I64Attr>:$bits,
                       OptionalAttr<I64Attr>:$offset,
                       OptionalAttr<I64Attr>:$cell_size,
                       OptionalAttr<I64Attr>:$cell_align,
                       OptionalAttr<I64Attr>:$epoch_offset,
                       OptionalAttr<I64Attr>:$list_offset);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$sym_name `axes` $axes `shape` $shape attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr ::tic::snode::SNodeKind kKind = ::tic::snode::SNodeKind::}] # kind # [{;
  }];
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
      "::llvm::ArrayRef<int64_t>":$axes, "::llvm::ArrayRef<int64_t>":$shape)>];
}

def SNode_DenseOp : SNode_ContainerOp<"dense", "Dense"> {
  let summary = "fixed-size, always-active array of cells";
}
def SNode_PointerOp : SNode_ContainerOp<"pointer", "Pointer"> {
  let summary = "array of pointers to cells allocated on activation";
}
def SNode_BitmaskedOp : SNode_ContainerOp<"bitmasked", "Bitmasked"> {
  let summary = "dense cells + an activity bit per cell";
}
def SNode_HashOp : SNode_ContainerOp<"hash", "Hash"> {
  let summary = "hash map of cells (parsed; lowering not supported yet)";
}
def SNode_DynamicOp : SNode_ContainerOp<"dynamic", "Dynamic"> {
  let summary = "variable-length list on the last axis, stored in chunks";
}
def SNode_BitStructOp : SNode_ContainerOp<"bit_struct", "BitStruct"> {
  let summary = "packs quantized scalars in a word (parsed; lowering not supported yet)";
}
def SNode_BitArrayOp : SNode_ContainerOp<"bit_array", "BitArray"> {
  let summary = "packs quantized scalars along an axis (parsed; lowering not supported yet)";
}

def SNode_PlaceOp : SNode_Op<"place", [
    ParentOneOf<["TreeOp", "DenseOp", "PointerOp", "BitmaskedOp", "HashOp",
                 "DynamicOp", "BitStructOp", "BitArrayOp"]>]> {
  let summary = "places one field in the cells of its parent";
  let description = [{
    `snode.place @u : [f32, f32, f32]` stores one element of field `u` (here
    a vec3, scalarized into three components laid out contiguously) in each
    cell of the enclosing container.

    In a bit_struct or bit_array, every component is quantized:
    `snode.place @p : [f32] {quant = [#bits.quant<fixed, 12, 0.01>]}` stores
    it in 12 bits of the container's word (the component type is the
    compute type loads give and stores take); tic-allocate-layout records
    each component's first bit in `bit_offsets` (least significant first, in
    place order; in a bit_array the offset of lane 0). With
    `shared_exponent`, the quant.float components of every such place of
    the bit_struct share one exponent (QuanTaichi): each keeps `frac` bits
    of digits, and the exponent's `exp` bits follow the last shared
    component (`exponent_offset`, recorded on each of them).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeArrayAttr:$components,
                       OptionalAttr<I64Attr>:$offset,
                       OptionalAttr<DenseI64ArrayAttr>:$component_offsets,
                       OptionalAttr<TypedArrayAttrBase<Bits_QuantAttr,
                           "quantized encodings">>:$quant,
                       OptionalAttr<DenseI64ArrayAttr>:$bit_offsets,
                       UnitAttr:$shared_exponent,
                       OptionalAttr<I64Attr>:$exponent_offset);
  let assemblyFormat = "$sym_name `:` $components attr-dict";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::ArrayAttr":$components), [{
    build($_builder, $_state, $_builder.getStringAttr(name), components,
          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  }]>];
  let extraClassDeclaration = [{
    ::mlir::Type getComponentType(unsigned i) {
      return ::llvm::cast<::mlir::TypeAttr>(getComponents()[i]).getValue();
    }
    unsigned getNumComponents() { return getComponents().size(); }
    /// The encoding of component `i` of a quantized place, else null.
    ::tic::bits::QuantAttr getQuantOf(unsigned i) {
      auto q = getQuantAttr();
      return q && i < q.size()
                 ? ::llvm::cast<::tic::bits::QuantAttr>(q[i])
                 : ::tic::bits::QuantAttr();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Micro-access operations
//===----------------------------------------------------------------------===//

def SNode_RootPtrOp : SNode_Op<"root_ptr", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "pointer to the root cell of a tree in the context's root buffer";
  let arguments = (ins FlatSymbolRefAttr:$tree);
  let results = (outs SNode_PtrType:$result);
  let assemblyFormat = "$tree attr-dict";
}

def SNode_GetChildOp : SNode_Op<"get_child", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "container of child node @child inside a cell of its parent";
  let arguments = (ins SNode_PtrType:$cell, FlatSymbolRefAttr:$child);
  let results = (outs SNode_PtrType:$result);
  let assemblyFormat = "$cell `,` $child attr-dict";
}

def SNode_IndexExtractOp : SNode_Op<"index_extract", [Pure,
    SameOperandsAndResultType,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the part of a global index that selects a cell of one level";
  let description = [{
    `snode.index_extract %i, @blk[0] below 8 : i32` yields
    `(%i / 8) % extent` where `extent` is the extent of `@blk` along axis 0
    and `below` the product of the extents along axis 0 of the levels below
    `@blk` on the accessed field's path (the modulo is dropped on the topmost
    level splitting the axis). Indices are treated as unsigned.
  }];
  let arguments = (ins AnySignlessInteger:$index, FlatSymbolRefAttr:$node,
                       I64Attr:$axis, I64Attr:$below);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat =
      "$index `,` $node `[` $axis `]` `below` $below attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def SNode_LinearizeOp : SNode_Op<"linearize", [Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "row-major linear cell number from per-axis cell indices";
  let arguments = (ins FlatSymbolRefAttr:$node,
                       Variadic<AnySignlessInteger>:$indices);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$node `(` $indices `)` attr-dict `:` type($result)";
  let hasFolder = 1;
}

def SNode_LookupOp : SNode_Op<"lookup", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "cell number %linear of container @node";
  let description = [{
    `snode.lookup dense %cont, @n[%l] : i32` is the cell `%l` of the
    container `%cont` of node `@n`, whose kind is repeated on the op (and
    checked against the node) so that its memory effects are known without a
    symbol lookup. Without `activate` it never activates anything; with it,
    the cell (and what it needs of its container) becomes active first.

    Effects: none on an always-active node (dense, bit_struct, bit_array:
    the lookup is address arithmetic, so CSE and LICM may move it freely);
    on a sparse node, a read of the `Structure` resource, and with `activate`
    also a write. Each node kind supplies its own lowering of this op
    (convert-snode-to-llvm); nothing else depends on the kind.
  }];
  let arguments = (ins SNode_KindAttr:$kind, SNode_PtrType:$container,
                       FlatSymbolRefAttr:$node, AnySignlessInteger:$linear,
                       UnitAttr:$activate, UnitAttr:$known_active);
  let results = (outs SNode_PtrType:$result);
  let assemblyFormat = [{
    $kind $container `,` $node `[` $linear `]` (`activate` $activate^)?
    (`known_active` $known_active^)? attr-dict `:` type($linear)
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::tic::snode::SNodeKind":$kind,
      "::mlir::Value":$container, "::llvm::StringRef":$node,
      "::mlir::Value":$linear, CArg<"bool", "false">:$activate), [{
    build($_builder, $_state, ::tic::snode::PtrType::get($_builder.getContext()),
          kind, container, node, linear, activate);
  }]>];
}

def SNode_IsActiveOp : SNode_Op<"is_active", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "whether cell %linear of container @node is active";
  let description = [{
    `snode.is_active pointer %cont, @p[%l] : i32` reads the `Structure`
    resource. On an always-active node (dense, bit_struct, bit_array) it is
    `true` and has no effect (it folds).
  }];
  let arguments = (ins SNode_KindAttr:$kind, SNode_PtrType:$container,
                       FlatSymbolRefAttr:$node, AnySignlessInteger:$linear);
  let results = (outs I1:$result);
  let assemblyFormat = [{
    $kind $container `,` $node `[` $linear `]` attr-dict `:` type($linear)
  }];
  let hasFolder = 1;
}

def SNode_DeactivateOp : SNode_Op<"deactivate", [
    MemoryEffects<[MemRead<SNode_StructureResource>,
                   MemWrite<SNode_StructureResource>,
                   MemWrite<SNode_FieldDataResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "deactivates cell %linear of a sparse container @node";
  let description = [{
    `snode.deactivate bitmasked %cont, @b[%l] : i32` makes the cell inactive:
    later reads see 0, and a later write activates it again with every field
    reading 0 (its memory is recycled or cleared). It writes the `Structure`
    (and, through the recycling, the `FieldData`) resource, so no lookup of
    the same node moves across it. Only on nodes that can be inactive
    (pointer, bitmasked, hash, dynamic): on an always-active node it is an
    error.
  }];
  let arguments = (ins SNode_KindAttr:$kind, SNode_PtrType:$container,
                       FlatSymbolRefAttr:$node, AnySignlessInteger:$linear);
  let assemblyFormat = [{
    $kind $container `,` $node `[` $linear `]` attr-dict `:` type($linear)
  }];
  let hasVerifier = 1;
}

def SNode_StructurePtrOp : SNode_Op<"structure_ptr", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "address of a sparse node's epoch counter or active-cell list";
  let description = [{
    `%p = snode.structure_ptr @b epoch : !llvm.ptr` is the node's epoch
    counter (i64, bumped by every activation and deactivation of one of its
    cells); `%p = snode.structure_ptr @b list : !llvm.ptr` its list of
    active cells: the stamp it was built at (i64), the number of cells
    (i32, at byte 8) and their linear numbers (i32 each, from byte 16).
    Both live after the tree's root cell (tic-allocate-layout records their
    offsets as `epoch_offset` / `list_offset`).
  }];
  let arguments = (ins FlatSymbolRefAttr:$node, UnitAttr:$list);
  let results = (outs AnyType:$result);
  let assemblyFormat =
      "$node (`list` $list^) : (`epoch`)? attr-dict `:` type($result)";
}

def SNode_AppendOp : SNode_Op<"append", [
    MemoryEffects<[MemRead<SNode_StructureResource>,
                   MemWrite<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "reserves the next element of a dynamic list; yields its index";
  let description = [{
    `%k = snode.append %cont, @d : i32` (`%cont` is the list: the container
    of dynamic node `@d` in a cell of its parent) increments the list's
    length atomically and yields the old length `%k`, the element reserved
    for the caller; its chunk is allocated. On a full list `%k` is at least
    the node's length and nothing is reserved (the length stays the
    maximum). The caller stores into element `%k` (a `known_active` lookup).
  }];
  let arguments = (ins SNode_PtrType:$container, FlatSymbolRefAttr:$node);
  let results = (outs I32:$result);
  let assemblyFormat = "$container `,` $node attr-dict `:` type($result)";
}

def SNode_LengthOp : SNode_Op<"length", [
    MemoryEffects<[MemRead<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the length of a dynamic list";
  let description = [{
    `%n = snode.length %cont, @d : i32` is the number of elements of the list
    `%cont` of dynamic node `@d` (0 in the ambient cell of an inactive
    ancestor; never more than the node's maximum length).
  }];
  let arguments = (ins SNode_PtrType:$container, FlatSymbolRefAttr:$node);
  let results = (outs I32:$result);
  let assemblyFormat = "$container `,` $node attr-dict `:` type($result)";
}

def SNode_HashEntryOp : SNode_Op<"hash_entry", [
    MemoryEffects<[MemRead<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "entry %e of a hash node's pool: whether it is active, its cell indices";
  let description = [{
    `%a, %i, %j = snode.hash_entry %base, @h[%e] : i1, i32, i32` reads entry
    `%e` of the pool of hash node `@h` (`%base` from `snode.pool_view`):
    whether it holds an active cell, and that cell's key: its indices (one
    per axis of `@h`), then, for a hash below dense nodes, the number of its
    parent's cell over the path (getHashKeySlots). A struct-for over a hash
    path runs over the entries.
  }];
  let arguments = (ins AnyType:$base, FlatSymbolRefAttr:$node, I32:$entry);
  let results = (outs I1:$active, Variadic<I32>:$indices);
  let assemblyFormat =
      "$base `,` $node `[` $entry `]` attr-dict `:` type($base) `->` type(results)";
}

def SNode_HashEntryIndexOp : SNode_Op<"hash_entry_index", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the number of the pool entry that holds a cell of a hash node";
  let description = [{
    `%e = snode.hash_entry_index %base, %cell, @h : !llvm.ptr -> i32`: the
    inverse of `snode.hash_entry`: the number `%e` of the entry of `@h`'s pool
    (`%base` from `snode.pool_view`) whose cell is `%cell`. A hash below
    another hash numbers its parent cell with it in its keys (a struct-for
    gets the parent's indices back through `snode.hash_entry`). Meaningless
    for the ambient cell (the lookup of an absent key), whose nested tables
    are empty.
  }];
  let arguments = (ins AnyType:$base, SNode_PtrType:$cell,
                       FlatSymbolRefAttr:$node);
  let results = (outs I32:$result);
  let assemblyFormat =
      "$base `,` $cell `,` $node attr-dict `:` type($base) `->` type($result)";
}

def SNode_LoadOp : SNode_Op<"load", [
    MemoryEffects<[MemRead<SNode_FieldDataResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "reads component `comp` of field @field in a cell";
  let description = [{
    `snode.load %cell, @u[0] : f32` reads the first component of the element
    of `@u` placed in `%cell` (a cell of `@u`'s parent container, or the
    root cell of its tree for a 0-D field). How the element is stored (plain
    bytes, bits of a bit_struct word) is the lowering's business. A field in
    a bit_array is addressed by the container (its word) and the element's
    `lane` in it: `snode.load %word lane %l, @b[0] : i32`; with `whole_word`
    the load gives the container's whole word (an i32 of a 32-bit word: one
    bit per lane of a 1-bit field), as a store with `whole_word` writes it
    (tic-bit-vectorize).
  }];
  let arguments = (ins SNode_PtrType:$cell, FlatSymbolRefAttr:$field,
                       I64Attr:$comp, Optional<I32>:$lane,
                       UnitAttr:$whole_word);
  let results = (outs AnyType:$result);
  let assemblyFormat =
      "$cell (`lane` $lane^)? `,` $field `[` $comp `]` attr-dict `:` type($result)";
}

def SNode_StoreOp : SNode_Op<"store", [
    MemoryEffects<[MemWrite<SNode_FieldDataResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "writes component `comp` of field @field in a cell";
  let description = [{
    `snode.store %v, %cell, @u[0] : f32`. A quantized component shares its
    container word with other fields: the lowering writes its bits with a
    compare-and-swap loop, or, with `exclusive` (no other thread writes the
    word while the kernel runs: tic-demote-bit-stores), with a plain
    load / insert / store.
  }];
  let arguments = (ins AnyType:$value, SNode_PtrType:$cell,
                       FlatSymbolRefAttr:$field, I64Attr:$comp,
                       Optional<I32>:$lane, UnitAttr:$exclusive,
                       UnitAttr:$whole_word);
  let assemblyFormat =
      "$value `,` $cell (`lane` $lane^)? `,` $field `[` $comp `]` attr-dict `:` type($value)";
}

def SNode_StoreFieldsOp : SNode_Op<"store_fields", [
    MemoryEffects<[MemWrite<SNode_FieldDataResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "writes several quantized components of one bit_struct word at once";
  let description = [{
    `snode.store_fields (%a, %b), %cell, [@p, @q] [0, 0] : i32, f32` is the
    stores of `%a` to `@p[0]` and `%b` to `@q[0]` in the word `%cell` of
    their bit_struct, as one write of the word (tic-fuse-bit-stores): one
    plain store when together they cover every bit of it, otherwise one
    compare-and-swap loop (or, `exclusive`, one load / insert / store).
  }];
  let arguments = (ins Variadic<AnyType>:$values, SNode_PtrType:$cell,
                       SymbolRefArrayAttr:$fields, DenseI64ArrayAttr:$comps,
                       UnitAttr:$exclusive);
  let assemblyFormat =
      "` ` `(` $values `)` `,` $cell `,` $fields $comps attr-dict `:` type($values)";
  let hasVerifier = 1;
}

def SNode_AtomicRMWOp : SNode_Op<"atomic_rmw", [
    MemoryEffects<[MemRead<SNode_FieldDataResource>,
                   MemWrite<SNode_FieldDataResource>]>,
    AllTypesMatch<["value", "result"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "atomic read-modify-write of a component in a cell; yields the old value";
  let arguments = (ins SNode_AtomicKindAttr:$kind, AnyType:$value,
                       SNode_PtrType:$cell, FlatSymbolRefAttr:$field,
                       I64Attr:$comp, Optional<I32>:$lane);
  let results = (outs AnyType:$result);
  let assemblyFormat =
      "$kind $value `,` $cell (`lane` $lane^)? `,` $field `[` $comp `]` attr-dict `:` type($value)";
}

def SNode_AtomicAddFieldsOp : SNode_Op<"atomic_add_fields", [
    MemoryEffects<[MemRead<SNode_FieldDataResource>,
                   MemWrite<SNode_FieldDataResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "atomic f32 additions to components of one cell that lie side by side";
  let description = [{
    `snode.atomic_add_fields (%a, %b, %c), %cell, [@v, @v, @m] [0, 1, 0]`
    adds `%a` to `@v[0]`, `%b` to `@v[1]` and `%c` to `@m[0]` of `%cell`,
    each addition atomic, the old values discarded: what three
    `snode.atomic_rmw add` with unused results do (tic-coalesce-atomics
    makes it of them). The components are f32 stored as plain bytes, each
    4 bytes after the previous one in the cell (checked against the
    recorded layout), so the lowering can update two at a time: an
    `llvm.atomicrmw fadd` on a `vector<2xf32>` at an 8-byte-aligned address
    (one 64-bit compare-and-swap loop on x86, which has no float atomic
    add), choosing the pairs by the run's alignment at run time.
  }];
  let arguments = (ins Variadic<F32>:$values, SNode_PtrType:$cell,
                       SymbolRefArrayAttr:$fields, DenseI64ArrayAttr:$comps);
  let assemblyFormat =
      "` ` `(` $values `)` `,` $cell `,` $fields $comps attr-dict";
  let hasVerifier = 1;
}

def SNode_PlacePtrOp : SNode_Op<"place_ptr", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "address of component `comp` of field @field inside a cell";
  let description = [{
    For lowerings that need the raw address of a plainly stored component
    (bulk copies); field accesses use snode.load / store / atomic_rmw.
  }];
  let arguments = (ins SNode_PtrType:$cell, FlatSymbolRefAttr:$field,
                       I64Attr:$comp);
  let results = (outs AnyType:$result);
  let assemblyFormat =
      "$cell `,` $field `[` $comp `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Cells of pointer nodes and chunks of dynamic nodes (runtime services of
// the target's tc conversion)
//===----------------------------------------------------------------------===//

def SNode_AllocCellOp : SNode_Op<"alloc_cell", [
    MemoryEffects<[MemAlloc<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a zeroed cell of pointer node @node (a chunk of a dynamic one), from its pool";
  let description = [{
    `snode.alloc_cell @p : !llvm.ptr` is emitted by the activating lookup of
    a pointer node (convert-snode-to-llvm) and lowered by the target's tc
    conversion through its TargetInfo (CPU: tic_rt_snode_alloc with the
    node's pool number). The result is null when the pool is used up (the
    launch then fails with TC_ERR_OUT_OF_MEMORY naming the node).
  }];
  let arguments = (ins FlatSymbolRefAttr:$node);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$node attr-dict `:` type($result)";
}

def SNode_PoolViewOp : SNode_Op<"pool_view", [
    MemoryEffects<[MemRead<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the elements a node's pool has handed out: base address and count";
  let description = [{
    `%base, %n = snode.pool_view @h : !llvm.ptr, i32`: the elements of the
    pool of node `@h` are at `%base + k * size` for `k < %n` (every element
    ever handed out; free ones read as zero). A runtime service of the
    target's tc conversion (CPU: tic_rt_snode_pool_base / _used).
  }];
  let arguments = (ins FlatSymbolRefAttr:$node);
  let results = (outs AnyType:$base, I32:$count);
  let assemblyFormat = "$node attr-dict `:` type($base) `,` type($count)";
}

def SNode_PoolBoundOp : SNode_Op<"pool_bound", [
    MemoryEffects<[MemRead<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "an upper bound of a pool's count that the host knows";
  let description = [{
    `%n = snode.pool_bound @h : i32`, in host code: at least the count of
    `snode.pool_view @h` between launches, known without reading device
    memory: the count itself on a CPU context, the elements mapped for the
    pool on a GPU (a host-side record of the runtime). The host bound of a
    loop whose `limit` region reads the exact count on the device
    (tic-lower-struct-for: a struct-for over a hash node's entries on a
    GPU). A runtime service (CPU: tic_rt_snode_pool_bound).
  }];
  let arguments = (ins FlatSymbolRefAttr:$node);
  let results = (outs I32:$count);
  let assemblyFormat = "$node attr-dict `:` type($count)";
}

def SNode_HashMaintainOp : SNode_Op<"hash_maintain", [
    MemoryEffects<[MemRead<SNode_StructureResource>,
                   MemWrite<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "keeps a root-level hash node's table at its live entries";
  let description = [{
    `snode.hash_maintain %container, @h` (host code, between launches: no
    kernel may run), `%container` the table (the hash node's container in
    the root cell), with `E` the entries of the node's pool (live: handed
    out and not freed, read from the pool's state) and `B` the buckets:
    1. when `E > 2B` and `E` is more than twice what the last purge left
       (the table header's second word), a purge: every chain is walked,
       the entries whose cell is inactive (deactivated keys) unlinked and
       returned to the pool, and what is left recorded;
    2. while the entries left exceed `2B` and the table has fewer than
       kHashMaxBuckets, the table doubles in place: the chain of bucket
       `b` splits into `b` and `b + B` by the next bit of its keys' mix
       (inactive entries found there go back to the pool too) and the
       header records the new mask.
    So memory follows the live keys, not every key ever activated, at an
    amortized constant cost per insertion. Verified: `@h` is a hash node, a
    child of its tree's root (tables below other nodes are kept by
    snode.hash_maintain_tables).
  }];
  let arguments = (ins SNode_PtrType:$container, FlatSymbolRefAttr:$node);
  let assemblyFormat = "$container `,` $node attr-dict";
}

def SNode_HashMaintainTablesOp : SNode_Op<"hash_maintain_tables", [
    MemoryEffects<[MemRead<SNode_StructureResource>,
                   MemWrite<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "purges and regrows the noted tables of a hash node below another node";
  let description = [{
    `snode.hash_maintain_tables @h {grow}` (host code, between launches:
    no kernel may run). A hash node below another node has a table in
    every parent cell, whose header counts the entries in its chains; an
    insertion that brings a table's count to a power of two at least twice
    its buckets notes the table (one of kHashNoteSlots slots of the node's
    notes; a table that finds them full is noted at its next power of
    two). For each noted table whose count still exceeds twice its
    buckets:
    1. a purge: every chain is walked, the entries whose cell is inactive
       (deactivated keys) returned to the pool, and the count set to the
       live entries left;
    2. with `grow`, while the live entries exceed the buckets (up to
       kHashMaxTableBuckets), the bucket count doubles: the entries move to
       a new zeroed block (snode.hash_block), which the header then names
       with the new mask (the runtime frees a block that no header names
       any more).
    The notes are then empty. So a table's memory follows its live keys,
    at an amortized constant cost per insertion. Verified: `@h` is a hash
    node below another node.
  }];
  let arguments = (ins FlatSymbolRefAttr:$node, UnitAttr:$grow);
  let assemblyFormat = "$node attr-dict";
}

def SNode_HashBlockOp : SNode_Op<"hash_block", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a zeroed block for the grown bucket heads of a hash table";
  let description = [{
    `%blk = snode.hash_block @h, %owner, %bytes : !llvm.ptr -> !llvm.ptr`:
    `%bytes` (i64) zeroed bytes for the bucket heads of a table of hash node
    `@h` below another node, whose header's block slot is `%owner`; null
    when there is no memory (the table keeps its buckets). The runtime
    owns the block: it frees it once `%owner` no longer holds it (after a
    later growth, or when the parent cell was deactivated), and when the
    context goes. A runtime service of the target's tc conversion (CPU:
    tic_rt_hash_block; the GPU has none: its tables do not grow). Created
    by the lowering of snode.hash_maintain_tables.
  }];
  let arguments = (ins FlatSymbolRefAttr:$node, AnyType:$owner, I64:$bytes);
  let results = (outs AnyType:$block);
  let assemblyFormat =
      "$node `,` $owner `,` $bytes attr-dict `:` type($owner) `->` type($block)";
}

def SNode_FreeCellOp : SNode_Op<"free_cell", [
    MemoryEffects<[MemFree<SNode_StructureResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "returns a cell of pointer node @node (a chunk of a dynamic one) to its pool";
  let description = [{
    `snode.free_cell %c, @p : !llvm.ptr` (deactivation of a pointer cell).
    The cell is reused, zeroed, after the launch (the pool's free list is
    only taken from during a launch). With `unused`, the cell was never
    seen by another thread (a hash entry that lost the race to be inserted
    in its bucket): it goes the same way, but it does not make its launch
    one that frees cells (on a GPU, those are followed by a collect before
    the next launch of the entry point; docs/cuda.md).
  }];
  let arguments = (ins AnyType:$cell, FlatSymbolRefAttr:$node,
                       UnitAttr:$unused);
  let assemblyFormat =
      "$cell `,` $node (`unused` $unused^)? attr-dict `:` type($cell)";
}

#endif // TIC_DIALECT_SNODE_SNODEOPS_TD

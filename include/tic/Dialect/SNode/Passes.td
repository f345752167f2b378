//===- Passes.td - snode dialect passes --------------------*- tablegen -*-===//
#ifndef TIC_DIALECT_SNODE_PASSES_TD
#define TIC_DIALECT_SNODE_PASSES_TD

include "mlir/Pass/PassBase.td"

def AllocateLayout : Pass<"tic-allocate-layout", "::mlir::ModuleOp"> {
  let summary = "Compute every SNode's byte layout once and record it in the IR";
  let description = [{
    The one place where layouts are computed. Every `snode.tree` is given a
    buffer (`snode.buffer @tic.root`, created if missing), an offset in it, and
    its root cell's size and alignment; every container the offset of its cell
    array inside the parent's cell and its cell size and alignment; every
    place the offset of its element inside the cell and its component
    offsets. Later passes and the C interface generator read these
    attributes (`SNodeLayout`) and never recompute them.

    Rules (C-like, deterministic): a component has the size of its scalar
    type (i1: one byte) and that alignment; an element is the struct of its
    components; a cell is the struct of its children in declaration order (a
    place contributes its element, a container its whole cell array); trees
    follow each other in the buffer in module order, each aligned to its own
    alignment. Trees that already have a layout keep it; new trees are placed
    after them. A layout larger than 2^62 bytes is an error.
  }];
}

def FuseBitStores : Pass<"tic-fuse-bit-stores", "::mlir::ModuleOp"> {
  let summary = "Merge stores to the fields of one bit_struct word into one write";
  let description = [{
    QuanTaichi's bit-struct store fusion: `snode.store`s in one block to
    quantized components of the same bit_struct word (the same cell value)
    with nothing between them that may read or write field data become one
    `snode.store_fields` at the last of them (a later store of the same
    component wins). Lowered, it is one plain store when the fields cover
    the whole word, else one read-modify-write (a compare-and-swap loop
    unless every merged store was `exclusive`).

    Stores to the components of a shared exponent's group are always
    merged (`all=false` merges only those): together they are encoded with
    one exponent, as a store of the whole vector is (docs/quant.md), so
    the result does not depend on the optimisation.
  }];
  let options = [
    Option<"all", "all", "bool", /*default=*/"true",
           "Merge the stores of every quantized field (false: only those "
           "of shared-exponent components, which the semantics needs)">
  ];
}

def CoalesceAtomics : Pass<"tic-coalesce-atomics", "::mlir::ModuleOp"> {
  let summary = "Merge f32 atomic adds to neighbouring components of one cell into paired updates";
  let description = [{
    x86 has no atomic float add: each `snode.atomic_rmw add` on an f32
    becomes a compare-and-swap loop, the cost of P2G scatters (MPM's
    `grid_v[I] += ...; grid_m[I] += ...`: three loops per grid node). In one
    block, the `snode.atomic_rmw add`s on f32 components of plain bytes
    whose old values are unused and whose components lie side by side in
    the same cell value (AoS placement: a vec2 and the scalar placed after
    it) become one `snode.atomic_add_fields`, which updates two components
    per 64-bit compare-and-swap: two loops instead of three for an MPM
    grid node. Nothing that may touch one of the fields (a load, a store,
    an atomic through another cell value, an unknown effect) may be
    between them; an add to a component already in the group starts a new
    one (the single-thread order of additions to one address is kept, so
    results are bit-identical). Each component still gets its own
    addition, atomic for it: the values are those of the separate atomics.

    The CPU pipeline runs it (`tic --fno-atomic-coalescing` turns it off);
    the CUDA one does not: the GPU adds floats atomically in one
    instruction.
  }];
}

def PrintSNodeLayout : Pass<"tic-print-snode-layout", "::mlir::ModuleOp"> {
  let summary = "Print the SNodeLayout analysis (sizes, offsets, strides) of every tree";
  let description = [{
    Test helper: writes the recorded layout (see tic-allocate-layout) and what
    SNodeLayout derives from it to stdout, so lit tests can check offsets,
    strides, the root size and the fields' index shapes.
  }];
}

#endif

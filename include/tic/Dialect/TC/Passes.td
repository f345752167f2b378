//===- Passes.td - tc dialect transforms -------------------*- tablegen -*-===//
#ifndef TIC_DIALECT_TC_PASSES_TD
#define TIC_DIALECT_TC_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerStructFor : Pass<"tic-lower-struct-for", "::mlir::ModuleOp"> {
  let summary = "Lower tc.struct_for over dense SNodes to tc.parallel_for";
  let description = [{
    A struct-for over a field (or container SNode) whose root-to-leaf path is
    made of dense nodes only iterates over the whole index space: it becomes a
    tc.parallel_for from 0 to the extents. A struct-for over a container gives
    the global index of the first element of each cell (cell index times the
    extents below it), as in Taichi. Sparse paths are reported as not
    supported yet.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def LowerFieldAccess : Pass<"tic-lower-field-access", "::mlir::ModuleOp"> {
  let summary = "Decompose tc.load/store/atomic_rmw into snode micro-access chains";
  let description = [{
    Every access `@f[%i, %j] comp c` becomes root_ptr, then per level
    get_child / index_extract / linearize / lookup, then place_ptr and an
    llvm.load / llvm.store / llvm.atomicrmw on the component address.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::tic::snode::SNodeDialect"];
}

def SNodeAccessCSE : Pass<"tic-snode-access-cse", "::mlir::ModuleOp"> {
  let summary = "Share common prefixes of snode micro-access chains";
  let description = [{
    Simplification II of the Taichi thesis: micro-access operations whose
    operands are defined outside a parallel loop are hoisted out of it, and
    identical micro-access operations are merged into the dominating one, so
    that neighbouring accesses (e.g. the five loads of a 5-point stencil)
    share one root lookup chain and differ only from the first level whose
    index differs.
  }];
}

#endif

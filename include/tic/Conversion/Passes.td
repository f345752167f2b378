//===- Passes.td - tic conversions -------------------------*- tablegen -*-===//
#ifndef TIC_CONVERSION_PASSES_TD
#define TIC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTCToLLVM : Pass<"convert-tc-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower tc kernels to functions calling the tic runtime";
  let description = [{
    Each tc.kernel @k becomes `func.func @k(%ctx: !llvm.ptr, params...)`
    (ndarray parameters: pointer to a tc_ndarray). Each tc.parallel_for is
    outlined into `func.func private @k__par<N>(!llvm.ptr closure, i64 begin,
    i64 end, i32 thread_id)` iterating over the linearized index range
    (the innermost dimension stays a simple counted loop), and replaced by a
    stack closure plus a call to tic_rt_parallel_for. tc.random, tc.print,
    tc.assert, tc.ndarray_* and snode.root_ptr become LLVM code and runtime
    calls.

    Reductions are privatized per chunk: a value captured by a
    tc.parallel_for whose only uses in the loop are `memref.atomic_rmw` ops
    of one kind (addf/addi, minimumf/mins/minu, maximumf/maxs/maxu,
    andi/ori) with unused results is accumulated in a private local of the
    outlined function (initialized with the kind's identity) and combined
    into the shared accumulator by ONE atomic RMW when the chunk ends.
  }];
  let options = [
    Option<"privatizeReductions", "privatize-reductions", "bool",
           /*default=*/"true",
           "Accumulate kernel-scope reductions in a per-chunk private "
           "local and perform one atomic RMW per chunk">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertSNodeToLLVM : Pass<"convert-snode-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower snode micro-access operations to pointer arithmetic";
  let description = [{
    get_child / lookup / place_ptr become llvm.getelementptr with the byte
    offsets and cell sizes of the SNodeLayout analysis; index_extract and
    linearize become arith. The layout trees are erased afterwards.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif

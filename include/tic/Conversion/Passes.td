//===- Passes.td - tic conversions -------------------------*- tablegen -*-===//
#ifndef TIC_CONVERSION_PASSES_TD
#define TIC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTCToLLVM : Pass<"convert-tc-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower tc kernels to functions calling the tic runtime";
  let description = [{
    Each tc.kernel @k becomes `func.func @k(%ctx: !llvm.ptr, params...)`
    (ndarray parameters: pointer to a tc_ndarray). Each tc.task @k__parN
    (tic-outline-tasks) becomes `llvm.func internal @k__parN(!llvm.ptr
    closure, i64 begin, i64 end, i32 thread_id)`, whose context and captures
    are loaded from the closure; each tc.launch becomes a stack closure plus
    a call to tic_rt_parallel_for (a direct call when `serialize`).
    tc.random, tc.print, tc.assert, tc.ndarray_* and snode.root_ptr become
    LLVM code and runtime calls.
  }];
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

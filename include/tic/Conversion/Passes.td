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
    are loaded from the closure (a captured ndarray as its data pointer and
    extents); each tc.launch becomes a stack closure plus a call to
    tic_rt_parallel_for (a direct call when `serialize`). tc.random,
    tc.print, tc.assert, tc.ndarray_* and snode.root_ptr become LLVM code and
    runtime calls through the CPU's TargetInfo. Two pattern sets applied in
    turn (tic/Conversion/TCToLLVM.h): the functions, then what is in them.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertTCToGPU : Pass<"convert-tc-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Turn tc.task ops into GPU kernels (gpu.func in a gpu.module)";
  let description = [{
    The device side of the CUDA target. Each `tc.task @k__parN` (made by
    tic-outline-tasks) becomes `gpu.func @k__parN(%root: !llvm.ptr,
    captures..., %total: i64) kernel` in `gpu.module @tic_cuda` (with an
    `#nvvm.target` of the chosen chip): a grid-stride loop over the linear
    iteration numbers `[0, %total)` that runs the task's body on the range
    `[lin, lin + 1)`. `snode.root_ptr` is the root buffer parameter plus the
    tree's offset; captured `!snode.ptr` values are passed as `!llvm.ptr`.
    The host side (kernels, launches) is removed: launching on a GPU is the
    CUDA runtime's (issue 13), and serial kernel code is not offloaded yet.
    A captured ndarray is passed as its data pointer and extents (the same
    element-access lowering as the CPU's, NDArrayLowering.h). On the
    device, `random()` draws from a PCG32 stream per GPU thread seeded like
    the CPU's per-thread streams (a task that uses it takes a last `%seed:
    i64` parameter), `print` is `gpu.printf` (vprintf) and `assert` and
    bounds checks are `cf.assert` (`__assertfail`: the launch fails).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "NVIDIA GPU architecture of the #nvvm.target (sm_70 ... sm_90)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertSNodeToLLVM : Pass<"convert-snode-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower snode micro-access operations to pointer arithmetic";
  let description = [{
    get_child / lookup / place_ptr become llvm.getelementptr with the byte
    offsets and cell sizes of the SNodeLayout analysis; index_extract and
    linearize become arith. Each node kind has its case of lookup,
    is_active and deactivate (bitmasked: an activity bit per cell, set by
    activating lookups with one atomic `or` when it is clear; deactivation
    clears the bit and zeroes the cell). The layout trees are erased
    afterwards.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif

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
    tic_rt_parallel_for (a direct call when `serialize`), its range stopped
    at the launch's `limit` (inlined before the call) when it has one.
    tc.random,
    tc.print, tc.assert, tc.ndarray_* and snode.root_ptr become LLVM code and
    runtime calls through the CPU's TargetInfo. Two pattern sets applied in
    turn (tic/Conversion/TCToLLVM.h): the functions, then what is in them.

    With `cuda`, the object also runs on a CUDA device (--target=cuda): each
    launch asks the runtime whether the context is on one
    (tic_rt_on_device) and then calls tic_rt_cuda_launch with the task's
    kernel in the module's PTX (`tic_rt_cuda_kernel`: name, whether it
    draws random numbers, block_dim) and a pointer to each of its parameters
    (root buffer, captures, iteration count, seed), in the order
    convert-tc-to-gpu gives them; host memory the task uses (captured
    kernel-scope variables, ndarrays) is staged through the device
    (tic_rt_cuda_stage). A launch's `limit` is evaluated on the CPU branch
    only (the device threads stop themselves). tc.field_copy becomes
    tic_rt_field_read/write, tc.field_fill tic_rt_field_fill.
  }];
  let options = [
    Option<"cuda", "cuda", "bool", /*default=*/"false",
           "Launch tasks on a CUDA device when the context is on one">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect"];
}

def HostFieldAccess : Pass<"tic-host-field-access", "::mlir::ModuleOp"> {
  let summary = "Route the field accesses of host code through tc.field_copy";
  let description = [{
    For --target=cuda, where the root buffer is device memory: in each
    `tc.kernel` (the code of a kernel that runs on the host, outside its
    parallel loops, after tic-outline-tasks and convert-snode-to-llvm),
    every llvm.load / llvm.store / llvm.atomicrmw / llvm.cmpxchg on an
    address derived from `snode.root_ptr` (through getelementptr, select and
    scf values) goes through a host temporary: a load copies the bytes from
    the field first, a store copies them to it after, an atomic does both
    around the same operation on the temporary (host code is one thread,
    and it runs between launches); a memset becomes tc.field_fill. An
    `snode.pool_view` (the bound of a struct-for over a hash node's entries)
    reads one copy of its pool's state. Any other use of such an address in
    host code is an error. Tasks are untouched, and so is a launch's
    `limit`: convert-tc-to-llvm evaluates it on a CPU context only.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::tic::tc::TCDialect"];
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
    The host side (kernels, launches) is removed: it is the host object's
    (convert-tc-to-llvm{cuda} launches these kernels through
    tic_rt_cuda_launch, with the same parameters). A captured ndarray is passed as its data pointer and extents (the same
    element-access lowering as the CPU's, NDArrayLowering.h). On the
    device, `random()` draws from a PCG32 stream per GPU thread seeded like
    the CPU's per-thread streams (a task that uses it takes a last `%seed:
    i64` parameter), `print` is `gpu.printf` (vprintf), and a failing
    `assert` or bounds check claims the module's failure record
    (`__tic_failure`, tic_rt_cuda_failure in rt.h), which the runtime reads
    after the launch. `math.sqrt` / `math.rsqrt` become the correctly
    rounded `llvm.sqrt` (and a division) rather than libdevice's, whose f32
    versions are approximate, so that results match the CPU's.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "NVIDIA GPU architecture of the #nvvm.target (sm_70 ... sm_90)">
  ,
    Option<"unroll", "unroll", "unsigned", /*default=*/"4",
           "Grid-stride iterations per trip of small task bodies">,
    Option<"ftz", "ftz", "bool", /*default=*/"false",
           "Flush f32 denormals to zero (the NVVM target's ftz flag)"> ];
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

// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-outline-tasks --convert-tc-to-gpu -verify-diagnostics | FileCheck %s
// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-outline-tasks "--convert-tc-to-gpu=chip=sm_90" -verify-diagnostics | FileCheck %s --check-prefix=SM90
// RUN: %tic-opt %s --split-input-file --tic-cuda-pipeline -verify-diagnostics | FileCheck %s --check-prefix=NVVM

// convert-tc-to-gpu: each tc.task becomes a kernel of gpu.module @tic_cuda,
// a grid-stride loop over [0, total) running the task's body on [lin, lin+1);
// the host side (kernels, launches) is not generated for the device.

snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f32] }
}
snode.tree @second {
  snode.place @flag : [f32]
}
// CHECK:       module attributes {gpu.container_module}
// CHECK-NOT:   tc.kernel
// CHECK:       gpu.module @tic_cuda [#nvvm.target<chip = "sm_80">] {
// CHECK:         gpu.func @scale__par0(%[[ROOT:.*]]: !llvm.ptr, %[[S:.*]]: f32, %[[N:.*]]: i64) kernel {
// CHECK-DAG:       %[[TID:.*]] = gpu.thread_id  x
// CHECK-DAG:       %[[BID:.*]] = gpu.block_id  x
// CHECK-DAG:       %[[BDIM:.*]] = gpu.block_dim  x
// CHECK-DAG:       %[[GDIM:.*]] = gpu.grid_dim  x
// CHECK:           scf.for %[[LIN:.*]] = %{{.*}} to %[[N]] step %{{.*}} : i64 {
// CHECK:             %[[END:.*]] = arith.addi %[[LIN]], %{{.*}} : i64
// A tree's root cell: the root buffer plus the tree's offset.
// CHECK:             %[[R2:.*]] = llvm.getelementptr inbounds %[[ROOT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:             builtin.unrealized_conversion_cast %[[R2]] : !llvm.ptr to !snode.ptr
// CHECK:             tc.store
// CHECK:           gpu.return
// CHECK-NOT:   tc.task
// SM90: gpu.module @tic_cuda [#nvvm.target<chip = "sm_90">]
// After the whole CUDA pipeline: an NVVM kernel in the LLVM dialect.
// NVVM:        gpu.module @tic_cuda
// NVVM:          llvm.func @scale__par0(%{{.*}}: !llvm.ptr, %{{.*}}: f32, %{{.*}}: i64) attributes {gpu.kernel, nvvm.kernel}
// NVVM-DAG:        nvvm.read.ptx.sreg.tid.x
// NVVM-DAG:        nvvm.read.ptx.sreg.ctaid.x
// NVVM:            llvm.store
// NVVM-NOT:    snode.
// NVVM-NOT:    tc.
tc.kernel @scale(%s: f32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %r = snode.root_ptr @second
    %f = snode.load %r, @flag[0] : f32
    %v = arith.mulf %f, %s : f32
    tc.store %v, @x[%i] : f32
    tc.yield
  }
  tc.return
}

// -----

// Runtime services on the device: random() from a per-thread PCG32 stream
// seeded (like the CPU's threads) from a last %seed parameter and the global
// thread index; print → gpu.printf with the CPU's promotions and newline;
// a failing assert or bounds check claims the module's failure record
// (@__tic_failure: one cmpxchg, then its message and location).
snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f32] }
}
// CHECK-DAG: llvm.mlir.global internal constant @__tic_failure_text_{{[0-9]+}}("x is small")
// CHECK-DAG: llvm.mlir.global external @__tic_failure() {{.*}} : !llvm.struct<(i32, i32, i64, i64, i64, i64, i32, i32)>
// CHECK-LABEL: gpu.func @noise__par0(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %[[N:.*]]: i64, %[[SEED:.*]]: i64) kernel
// CHECK:         %[[STATE:.*]] = memref.alloca() : memref<i64>
// CHECK:         scf.for
// CHECK:           %[[OLD:.*]] = memref.load %[[STATE]][] : memref<i64>
// CHECK:           arith.muli %[[OLD]], %{{.*}} : i64
// CHECK:           arith.uitofp
// CHECK:           gpu.printf "x = %f\0A", %{{.*}} : f64
// CHECK:           scf.if
// CHECK:             llvm.mlir.addressof @__tic_failure : !llvm.ptr
// CHECK:             llvm.cmpxchg
// CHECK:           arith.cmpi uge
// CHECK:           scf.if
// CHECK:             llvm.cmpxchg
// CHECK-NOT:     tc.random
tc.kernel @noise() {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %r = tc.random : f32
    tc.print "x = %f", %r : f32
    %one = arith.constant 1.0 : f32
    %small = arith.cmpf olt, %r, %one : f32
    tc.assert %small, "x is small"
    tc.bounds_check %i, %c64, "x", 0
    tc.store %r, @x[%i] : f32
    tc.yield
  }
  tc.return
}

// -----

// A captured ndarray: its data pointer and extents are kernel parameters;
// the element accesses are lowered as on the CPU (row-major, i64).
snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f32] }
}
// CHECK-LABEL: gpu.func @copy__par0(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %[[DATA:.*]]: !llvm.ptr, %[[E0:.*]]: i64, %[[E1:.*]]: i64, %{{.*}}: i64) kernel
// CHECK:         arith.muli %{{.*}}, %[[E1]] : i64
// CHECK:         llvm.getelementptr inbounds %[[DATA]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NOT:     tc.ndarray
tc.kernel @copy(%a: !tc.ndarray<f32, 2>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %v = tc.ndarray_load %a[%c1, %i] : !tc.ndarray<f32, 2>
    tc.store %v, @x[%i] : f32
    tc.yield
  }
  tc.return
}


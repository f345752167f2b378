// RUN: %tic-opt %s --tic-cpu-pipeline | FileCheck %s
// Everything ends up in the LLVM dialect: no tc/snode/func/arith/memref/cf/casts.

snode.tree @root {
  snode.dense @d axes [0] shape [1024] { snode.place @x : [f32] }
  snode.dense @e axes [0] shape [1024] { snode.place @y : [f32] }
}

// CHECK-NOT: snode.
// CHECK-NOT: tc.
// CHECK-LABEL: llvm.func @saxpy(%{{.*}}: !llvm.ptr, %{{.*}}: f32)
// CHECK:       llvm.call @tic_rt_root
// CHECK:       llvm.call @tic_rt_parallel_for
// CHECK:       llvm.return
// CHECK-LABEL: llvm.func internal @saxpy__par0(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32)
// CHECK:       llvm.fmul
// CHECK:       llvm.fadd
// CHECK:       llvm.store
// CHECK-LABEL: llvm.func @norm(%{{.*}}: !llvm.ptr) -> f32
// CHECK:       llvm.alloca
// CHECK:       llvm.call @tic_rt_parallel_for
// CHECK:       llvm.intr.sqrt
// CHECK-LABEL: llvm.func internal @norm__par0
// CHECK:       llvm.atomicrmw fadd
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK-NOT: {{ (arith|memref|cf|func|scf|math)\.}}
tc.kernel @saxpy(%a: f32) {
  tc.struct_for @y (%i) {
    %xv = tc.load @x[%i] : f32
    %yv = tc.load @y[%i] : f32
    %m = arith.mulf %a, %xv : f32
    %s = arith.addf %m, %yv : f32
    tc.store %s, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// A kernel-scope reduction and a serial loop with early exit in the body.
tc.kernel @norm() -> f32 {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloca() : memref<f32>
  memref.store %zero, %acc[] : memref<f32>
  tc.struct_for @x (%i) {
    %v = tc.load @x[%i] : f32
    %sq = arith.mulf %v, %v : f32
    %old = memref.atomic_rmw addf %sq, %acc[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %s = memref.load %acc[] : memref<f32>
  %r = math.sqrt %s : f32
  tc.return %r : f32
}

// RUN: %tic-opt %s --tic-demote-atomics | FileCheck %s
// RUN: %tic-opt %s --tic-demote-atomics --tic-outline-tasks --tic-privatize-reductions | FileCheck %s --check-prefix=LOWER

// tic-demote-atomics on memref.atomic_rmw (locals): a local allocated in the
// iteration, or updated where one thread runs, is demoted; a kernel-scope
// reduction captured by a parallel loop is left to tic-privatize-reductions,
// which privatizes it per task (one atomic per chunk instead of a plain update of
// the shared slot per iteration).

// CHECK-LABEL: tc.kernel @locals
// Top level: one thread.
// CHECK:         %[[T0:.*]] = memref.load %[[TOP:.*]][] : memref<i32>
// CHECK-NEXT:    %[[T1:.*]] = arith.maxsi %[[T0]], %{{.*}} : i32
// CHECK-NEXT:    memref.store %[[T1]], %[[TOP]][] : memref<i32>
// CHECK:         tc.parallel_for
// A local of the iteration; the old value is used.
// CHECK:         %[[P:.*]] = memref.alloca() : memref<f32>
// CHECK:         %[[O:.*]] = memref.load %[[P]][] : memref<f32>
// CHECK-NEXT:    %[[N:.*]] = arith.addf %[[O]], %{{.*}} : f32
// CHECK-NEXT:    memref.store %[[N]], %[[P]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[O]], %[[P]][] : memref<f32>
// The captured reduction keeps its atomic.
// CHECK:         memref.atomic_rmw addf %{{.*}}, %[[ACC:.*]][] : (f32, memref<f32>) -> f32
// CHECK:         tc.yield
// In a serialized loop a privatizable reduction is still left to the
// privatization; an accumulator also read in the loop is demoted.
// CHECK:         tc.parallel_for {{.*}} attributes {serialize}
// CHECK:         memref.atomic_rmw addf %{{.*}}, %[[ACC]][] : (f32, memref<f32>) -> f32
// CHECK:         memref.load %[[TOP]][]
// CHECK:         memref.load %[[TOP]][]
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    memref.store %{{.*}}, %[[TOP]][]
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         tc.return

// After the outlining: the privatized reduction of the parallel loop has one
// atomic, before the task returns, and the demoted updates none.
// LOWER-LABEL: tc.task @locals__par0
// LOWER:         arith.constant -0.000000e+00 : f32
// LOWER-NOT:     memref.atomic_rmw
// LOWER:         memref.atomic_rmw addf
// LOWER-NEXT:    tc.return
// LOWER-LABEL: tc.task @locals__par1
// LOWER:         arith.constant -0.000000e+00 : f32
// LOWER-NOT:     memref.atomic_rmw
// LOWER:         arith.addi
// LOWER-NOT:     memref.atomic_rmw
// LOWER:         memref.atomic_rmw addf
// LOWER-NEXT:    tc.return
tc.kernel @locals(%w: f32, %k: i32) -> (f32, i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant 0.0 : f32
  %acc = memref.alloca() : memref<f32>
  memref.store %z, %acc[] : memref<f32>
  %top = memref.alloca() : memref<i32>
  memref.store %c0, %top[] : memref<i32>
  %0 = memref.atomic_rmw maxs %k, %top[] : (i32, memref<i32>) -> i32
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %p = memref.alloca() : memref<f32>
    memref.store %w, %p[] : memref<f32>
    %old = memref.atomic_rmw addf %w, %p[] : (f32, memref<f32>) -> f32
    memref.store %old, %p[] : memref<f32>
    %v = memref.load %p[] : memref<f32>
    %1 = memref.atomic_rmw addf %v, %acc[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c64) attributes {serialize} {
    %1 = memref.atomic_rmw addf %w, %acc[] : (f32, memref<f32>) -> f32
    %t = memref.load %top[] : memref<i32>
    %2 = memref.atomic_rmw addi %t, %top[] : (i32, memref<i32>) -> i32
    tc.yield
  }
  %r = memref.load %acc[] : memref<f32>
  %s = memref.load %top[] : memref<i32>
  tc.return %r, %s : f32, i32
}

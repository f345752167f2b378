// RUN: %tic-opt %s --tic-allocate-layout --tic-offload-sparse-access | FileCheck %s

// --target=cuda: host code's accesses through pooled nodes (and cell ops on
// nodes with pooled nodes below) become serialized one-iteration loops, one
// GPU thread; results come out through kernel-scope variables. Accesses
// through dense and bitmasked nodes only, and everything already in a
// parallel loop, stay as they are.
snode.tree @root {
  snode.pointer @p axes [0] shape [8] {
    snode.dense @d axes [0] shape [4] { snode.place @x : [f32] }
  }
  snode.bitmasked @b axes [0] shape [8] {
    snode.pointer @q axes [0] shape [2] { snode.place @z : [f32] }
  }
  snode.dense @e axes [0] shape [8] { snode.place @y : [f32] }
}

// CHECK-LABEL: tc.kernel @host
// CHECK:       %[[SLOT:.*]] = memref.alloca() : memref<f32>
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) attributes {serialize} {
// CHECK-NEXT:    %[[V:.*]] = tc.load @x[%{{.*}}] : f32
// CHECK-NEXT:    memref.store %[[V]], %[[SLOT]][] : memref<f32>
// CHECK:       %[[R:.*]] = memref.load %[[SLOT]][] : memref<f32>
// A dense field stays host code.
// CHECK:       tc.store %[[R]], @y[%{{.*}}] : f32
// CHECK:       tc.parallel_for {{.*}} attributes {serialize} {
// CHECK-NEXT:    tc.deactivate @b[%{{.*}}]
// CHECK:       tc.parallel_for {{.*}} {
// CHECK-NOT:     serialize
// CHECK:         tc.store %{{.*}}, @x[%{{.*}}] : f32
tc.kernel @host(%i: i32, %n: i32) {
  %v = tc.load @x[%i] : f32
  tc.store %v, @y[%i] : f32
  tc.deactivate @b[%i]
  %c0 = arith.constant 0 : i32
  tc.parallel_for (%k) = (%c0) to (%n) {
    tc.store %v, @x[%k] : f32
    tc.yield
  }
  tc.return
}

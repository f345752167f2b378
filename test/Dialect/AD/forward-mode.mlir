// RUN: %tic-opt %s --tic-forward-mode | FileCheck %s

// tic-forward-mode: @k_fwd computes @k and, beside every differentiable
// value, its tangent; loads of needs_dual fields give x.dual, stores write
// y.dual, locals get a tangent local.

snode.tree @root {
  snode.dense @d axes [0] shape [16] {
    snode.place @x : [f32] {ad.dual = @x.dual}
    snode.place @x.dual : [f32]
    snode.place @y : [f32] {ad.dual = @y.dual}
    snode.place @y.dual : [f32]
  }
}

// CHECK-LABEL: tc.kernel @k() attributes {ad.forward}
// CHECK-LABEL: tc.kernel @k_fwd() attributes {ad.tangent_of = @k}
// CHECK:         %[[A:.*]] = memref.alloca() {tc.name = "a"} : memref<f32>
// CHECK-NEXT:    %[[AT:.*]] = memref.alloca() {tc.name = "a.dual"} : memref<f32>
// CHECK:         %[[X:.*]] = tc.load @x[%[[I:.*]]] : f32
// CHECK-NEXT:    %[[XT:.*]] = tc.load @x.dual[%[[I]]] : f32
// CHECK:         %[[S:.*]] = math.sin %[[X]] : f32
// CHECK-NEXT:    %[[C:.*]] = math.cos %[[X]] : f32
// CHECK-NEXT:    %[[ST:.*]] = arith.mulf %[[XT]], %[[C]] : f32
// CHECK:         memref.store %[[S]], %[[A]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[ST]], %[[AT]][] : memref<f32>
// CHECK:         %[[V:.*]] = memref.load %[[A]][] : memref<f32>
// CHECK-NEXT:    %[[VT:.*]] = memref.load %[[AT]][] : memref<f32>
// CHECK:         tc.store %[[V]], @y[%[[I]]] : f32
// CHECK-NEXT:    tc.store %[[VT]], @y.dual[%[[I]]] : f32
tc.kernel @k() attributes {ad.forward} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %a = memref.alloca() {tc.name = "a"} : memref<f32>
    %x = tc.load @x[%i] : f32
    %s = math.sin %x : f32
    memref.store %s, %a[] : memref<f32>
    %v = memref.load %a[] : memref<f32>
    tc.store %v, @y[%i] : f32
    tc.yield
  }
  tc.return
}

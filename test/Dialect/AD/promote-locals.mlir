// RUN: %tic-opt %s --tic-promote-locals | FileCheck %s

// tic-promote-locals: scalar locals become SSA values; a branch that
// assigns one yields it, a loop that assigns one carries it.

// CHECK-LABEL: tc.kernel @branch
// CHECK-NOT:     memref.alloca
// CHECK:         %[[X:.*]] = tc.load @x[%{{.*}}] : f32
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK:           %[[M:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:           scf.yield %[[M]] : f32
// CHECK:         } else {
// CHECK:           scf.yield %[[X]] : f32
// CHECK:         tc.store %[[R]], @x[%{{.*}}] : f32
snode.tree @root {
  snode.dense @d axes [0] shape [8] { snode.place @x : [f32] }
}
tc.kernel @branch() {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %a = memref.alloca() {tc.name = "a"} : memref<f32>
    %x = tc.load @x[%i] : f32
    memref.store %x, %a[] : memref<f32>
    %zero = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %x, %zero : f32
    scf.if %c {
      %v = memref.load %a[] : memref<f32>
      %m = arith.mulf %v, %v : f32
      memref.store %m, %a[] : memref<f32>
    }
    %r = memref.load %a[] : memref<f32>
    tc.store %r, @x[%i] : f32
    tc.yield
  }
  tc.return
}

// CHECK-LABEL: tc.kernel @loop
// CHECK-NOT:     memref.alloca
// CHECK:         %[[S:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK:           %[[N:.*]] = arith.addf %[[ACC]], %{{.*}} : f32
// CHECK:           scf.yield %[[N]] : f32
// CHECK:         } {tc.local_names = ["s"]}
// CHECK:         tc.store %[[S]], @x[%{{.*}}] : f32
tc.kernel @loop() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %s = memref.alloca() {tc.name = "s"} : memref<f32>
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %s[] : memref<f32>
    scf.for %j = %c0 to %c8 step %c1 : i32 {
      %v = memref.load %s[] : memref<f32>
      %x = tc.load @x[%j] : f32
      %n = arith.addf %v, %x : f32
      memref.store %n, %s[] : memref<f32>
    }
    %r = memref.load %s[] : memref<f32>
    tc.store %r, @x[%i] : f32
    tc.yield
  }
  tc.return
}

// A local read through an op other than scf.if/for/while stays in memory.
// CHECK-LABEL: tc.kernel @kept
// CHECK:         memref.alloca
tc.kernel @kept() {
  %a = memref.alloca() : memref<f32>
  %one = arith.constant 1.0 : f32
  memref.store %one, %a[] : memref<f32>
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %v = memref.load %a[] : memref<f32>
    tc.store %v, @x[%i] : f32
    tc.yield
  }
  tc.return
}

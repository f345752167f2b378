// RUN: %tic-opt %s --tic-allocate-layout --tic-offload-host-loops | FileCheck %s

// --target=cuda: a serial loop of host code that touches a field runs whole
// as a serialized one-iteration parallel loop (one GPU thread), its
// results through kernel-scope variables; host loops that touch no field,
// or print, stay host code (a printing loop's inner loops may go), and
// loops in parallel loops are device code already.
snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f32] snode.place @y : [i32] }
}

// CHECK-LABEL: tc.kernel @counted
// CHECK:       %[[SLOT:.*]] = memref.alloca() : memref<f32>
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) attributes {serialize} {
// CHECK-NEXT:    %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32) : i32 {
// CHECK-NEXT:      %[[V:.*]] = tc.load @x[%[[K]]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[V]] : f32
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.store %[[R]], %[[SLOT]][] : memref<f32>
// CHECK-NEXT:    tc.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[OUT:.*]] = memref.load %[[SLOT]][] : memref<f32>
// CHECK-NEXT:  tc.return %[[OUT]] : f32
tc.kernel @counted(%n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%a = %z) -> (f32) : i32 {
    %v = tc.load @x[%k] : f32
    %s = arith.addf %a, %v : f32
    scf.yield %s : f32
  }
  tc.return %r : f32
}

// A while loop whose condition reads a field, inside an if.
// CHECK-LABEL: tc.kernel @searching
// CHECK:       scf.if
// CHECK:         tc.parallel_for {{.*}} attributes {serialize} {
// CHECK-NEXT:      scf.while
// CHECK:             tc.load @y
// CHECK:             tc.store %{{.*}}, @y
// CHECK:           tc.yield
tc.kernel @searching(%c: i1, %n: i32) {
  %j = memref.alloca() : memref<i32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  memref.store %c0, %j[] : memref<i32>
  scf.if %c {
    scf.while : () -> () {
      %i = memref.load %j[] : memref<i32>
      %v = tc.load @y[%i] : i32
      %z = arith.cmpi eq, %v, %c0 : i32
      scf.condition(%z)
    } do {
      %i = memref.load %j[] : memref<i32>
      %i1 = arith.addi %i, %c1 : i32
      tc.store %i1, @y[%i] : i32
      memref.store %i1, %j[] : memref<i32>
      scf.yield
    }
  }
  tc.return
}

// No field: host code. A printing loop: host code, but its inner loop
// over a field goes.
// CHECK-LABEL: tc.kernel @stays
// CHECK-NOT:   serialize
// CHECK:       scf.for
// CHECK:         arith.muli
// CHECK:       scf.for
// CHECK-NEXT:    tc.print
// CHECK:         tc.parallel_for {{.*}} attributes {serialize} {
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        tc.store
tc.kernel @stays(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<i32>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %m = arith.muli %k, %k : i32
    memref.store %m, %s[] : memref<i32>
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    tc.print "row", %k : i32
    scf.for %l = %c0 to %n step %c1 : i32 {
      tc.store %l, @y[%l] : i32
    }
  }
  tc.return
}

// Loops in parallel loops are device code already.
// CHECK-LABEL: tc.kernel @inside
// CHECK:       tc.parallel_for
// CHECK-NOT:     serialize
// CHECK-NEXT:    scf.for
tc.kernel @inside(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tc.parallel_for (%i) = (%c0) to (%n) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      tc.store %k, @y[%k] : i32
    }
    tc.yield
  }
  tc.return
}

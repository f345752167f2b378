// RUN: %tic-opt %s --tic-split-index-set --canonicalize | FileCheck %s
// Boundary tests on parallel-loop indices become loop bounds (issue 7 item
// 16): `if i > 0 and i < n - 1` over [0, n) runs over [1, n - 1) untested.

snode.tree @root {
  snode.dense @d axes [0, 1] shape [64, 64] {
    snode.place @u : [f32]
    snode.place @v : [f32]
  }
}

// Every conjunct is a bound: the test disappears; `0 < j` is `j > 0`.
// CHECK-LABEL: tc.kernel @stencil
// CHECK-DAG:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:   %[[HI:.*]] = arith.constant 63 : i32
// CHECK:       tc.parallel_for (%[[I:.*]], %[[J:.*]]) = (%[[ONE]], %[[ONE]]) to (%[[HI]], %[[HI]]) {
// CHECK-NOT:     scf.if
// CHECK:         tc.store %{{.*}}, @v[%[[I]], %[[J]]] : f32
tc.kernel @stencil() {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c64, %c64) {
    %zero = arith.constant 0 : i32
    %last = arith.constant 63 : i32
    %a = arith.cmpi sgt, %i, %zero : i32
    %b = arith.cmpi slt, %i, %last : i32
    %ab = arith.andi %a, %b : i1
    %c = arith.cmpi slt, %zero, %j : i32
    %abc = arith.andi %ab, %c : i1
    %c62 = arith.constant 62 : i32
    %d = arith.cmpi sle, %j, %c62 : i32
    %abcd = arith.andi %abc, %d : i1
    scf.if %abcd {
      %x = tc.load @u[%i, %j] : f32
      tc.store %x, @v[%i, %j] : f32
    }
    tc.yield
  }
  tc.return
}

// A test that is not a bound on an index stays; run-time bounds use
// `>=` / `<` directly (`i < n` narrows to min(64, n)); `i > n` with a
// run-time n would need n + 1, which could overflow: it stays a test.
// CHECK-LABEL: tc.kernel @partial
// CHECK-SAME:  (%[[N:.*]]: i32, %[[F:.*]]: f32)
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : i32
// CHECK:       %[[UB:.*]] = arith.minsi %[[N]], %[[C64]] : i32
// CHECK:       tc.parallel_for (%[[I:.*]], %[[J:.*]]) = (%[[C2]], %{{.*}}) to (%[[UB]], %[[C64]]) {
// CHECK:         %[[T1:.*]] = arith.cmpf ogt, %[[F]]
// CHECK:         %[[T2:.*]] = arith.cmpi sgt, %[[J]], %[[N]] : i32
// CHECK:         %[[T:.*]] = arith.andi %[[T1]], %[[T2]] : i1
// CHECK:         scf.if %[[T]] {
tc.kernel @partial(%n: i32, %f: f32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c64, %c64) {
    %two = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %a = arith.cmpi sge, %i, %two : i32
    %b = arith.cmpf ogt, %f, %zero : f32
    %ab = arith.andi %a, %b : i1
    %c = arith.cmpi slt, %i, %n : i32
    %abc = arith.andi %ab, %c : i1
    %d = arith.cmpi sgt, %j, %n : i32
    %abcd = arith.andi %abc, %d : i1
    scf.if %abcd {
      tc.store %f, @v[%i, %j] : f32
    }
    tc.yield
  }
  tc.return
}

// Not split: a store before the test (cut iterations would lose it), an
// else branch, and a test on a value that is not an induction variable.
// CHECK-LABEL: tc.kernel @kept
// CHECK:       tc.parallel_for (%{{.*}}) = (%[[Z:.*]]) to (%[[E:.*]]) {
// CHECK:         tc.store
// CHECK:         scf.if
// CHECK:       tc.parallel_for (%{{.*}}) = (%[[Z]]) to (%[[E]]) {
// CHECK:         scf.if
// CHECK:         } else {
// CHECK:       tc.parallel_for (%{{.*}}) = (%[[Z]]) to (%[[E]]) {
// CHECK:         scf.if
tc.kernel @kept(%f: f32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %one = arith.constant 1 : i32
    tc.store %f, @v[%i, %i] : f32
    %a = arith.cmpi sgt, %i, %one : i32
    scf.if %a {
      tc.store %f, @u[%i, %i] : f32
    }
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %one = arith.constant 1 : i32
    %a = arith.cmpi sgt, %i, %one : i32
    scf.if %a {
      tc.store %f, @u[%i, %i] : f32
    } else {
      tc.store %f, @v[%i, %i] : f32
    }
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %one = arith.constant 1 : i32
    %k = arith.muli %i, %one : i32
    %two = arith.constant 2 : i32
    %k2 = arith.addi %i, %two : i32
    %a = arith.cmpi sgt, %k2, %one : i32
    scf.if %a {
      tc.store %f, @u[%i, %i] : f32
    }
    tc.yield
  }
  tc.return
}

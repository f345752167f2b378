// RUN: %tic-opt %s --tic-split-index-set | FileCheck %s
// tic-split-index-set folds the clamps of indices that the loop's bounds
// (after the split) make redundant: `max(j - 1, 0)` where j >= 1 is j - 1,
// `min(j + 1, 63)` where j <= 62 is j + 1. Neighbouring iterations then
// access neighbouring memory (vector loads, not gathers).

snode.tree @root {
  snode.dense @d axes [0, 1] shape [64, 64] {
    snode.place @u : [f32]
    snode.place @v : [f32]
  }
}

// Inside the boundary test (now the bounds [1, 63)), both clamps go; the
// clamp that the bounds do not decide (`min(j + 1, 32)`) stays.
// CHECK-LABEL: tc.kernel @clamped
// CHECK:       tc.parallel_for (%[[I:.*]], %[[J:.*]]) =
// CHECK:         %[[JM:.*]] = arith.subi %[[J]], %{{.*}} : i32
// CHECK:         %[[JP:.*]] = arith.addi %[[J]], %{{.*}} : i32
// CHECK:         %[[HALF:.*]] = arith.minsi %[[JP]], %{{.*}} : i32
// CHECK:         tc.load @u[%[[I]], %[[JM]]] : f32
// CHECK:         tc.load @u[%[[I]], %[[JP]]] : f32
// CHECK:         tc.load @u[%[[I]], %[[HALF]]] : f32
tc.kernel @clamped() {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c64, %c64) {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %last = arith.constant 63 : i32
    %c32 = arith.constant 32 : i32
    %a = arith.cmpi sge, %j, %one : i32
    %b = arith.cmpi slt, %j, %last : i32
    %ab = arith.andi %a, %b : i1
    scf.if %ab {
      %jm = arith.subi %j, %one : i32
      %jmc = arith.maxsi %jm, %zero : i32
      %jp = arith.addi %j, %one : i32
      %jpc0 = arith.maxsi %jp, %zero : i32
      %jpc = arith.minsi %jpc0, %last : i32
      %half = arith.minsi %jp, %c32 : i32
      %x = tc.load @u[%i, %jmc] : f32
      %y = tc.load @u[%i, %jpc] : f32
      %z = tc.load @u[%i, %half] : f32
      %s = arith.addf %x, %y : f32
      %t = arith.addf %s, %z : f32
      tc.store %t, @v[%i, %j] : f32
    }
    tc.yield
  }
  tc.return
}

// Over the whole field the clamps are needed: they stay.
// CHECK-LABEL: tc.kernel @needed
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
tc.kernel @needed() {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c64, %c64) {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %last = arith.constant 63 : i32
    %jm = arith.subi %j, %one : i32
    %jmc = arith.maxsi %jm, %zero : i32
    %jp = arith.addi %j, %one : i32
    %jpc = arith.minsi %jp, %last : i32
    %x = tc.load @u[%i, %jmc] : f32
    %y = tc.load @u[%i, %jpc] : f32
    %s = arith.addf %x, %y : f32
    tc.store %s, @v[%i, %j] : f32
    tc.yield
  }
  tc.return
}

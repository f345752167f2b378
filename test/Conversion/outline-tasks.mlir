// RUN: %tic-opt %s --split-input-file --tic-outline-tasks | FileCheck %s
// RUN: %tic-opt %s --split-input-file --tic-outline-tasks --tic-outline-tasks | FileCheck %s

// tic-outline-tasks turns each tc.parallel_for into a tc.task (placed after
// its kernel, in loop order) and a tc.launch. Target-neutral: nothing here
// says how the range is split or where the thread index comes from. (A
// second run finds no loop left: the same output.)

// 1-D, i32 indices: one scf.for over [begin, end); the loop variable is a
// second induction variable of its own type, incremented with nsw.
// CHECK-LABEL: tc.kernel @one(
// CHECK-SAME:    %[[A:.*]]: f32, %[[N:.*]]: i32)
// CHECK-NOT:     tc.parallel_for
// CHECK:         %[[C1:.*]] = arith.constant 1 : i64
// CHECK:         %[[E:.*]] = arith.maxsi
// CHECK:         %[[T:.*]] = arith.muli %[[C1]], %[[E]] : i64
// CHECK:         tc.launch @one__par0(%[[A]], %[[N]]) total %[[T]] {grain = 64 : i64} : f32, i32
// CHECK:         tc.return
// CHECK-LABEL: tc.task @one__par0 {
// CHECK-NEXT:  ^bb0(%[[B:.*]]: i64, %[[EN:.*]]: i64, %[[TA:.*]]: f32, %[[TN:.*]]: i32):
// The loop's constants are cloned, not captured.
// CHECK:         %[[LO:.*]] = arith.constant 2 : i32
// CHECK:         %[[LO64:.*]] = arith.extsi %[[LO]] : i32 to i64
// CHECK:         %[[S:.*]] = arith.addi %[[LO64]], %[[B]] : i64
// CHECK:         %[[S32:.*]] = arith.trunci %[[S]] overflow<nsw> : i64 to i32
// CHECK:         scf.for %{{.*}} = %[[B]] to %[[EN]] step %{{.*}} iter_args(%[[I:.*]] = %[[S32]]) -> (i32)  : i64 {
// CHECK:           tc.store %[[TA]], @f[%[[I]]] : f32
// CHECK:           %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} overflow<nsw> : i32
// CHECK:           scf.yield %[[NEXT]] : i32
// The loop over the range is marked for the targets (tc.task's description).
// CHECK:         } {tc.iterations}
// CHECK:         tc.return
tc.kernel @one(%a: f32, %n: i32) {
  %c2 = arith.constant 2 : i32
  tc.parallel_for (%i) = (%c2) to (%n) attributes {grain = 64 : i64} {
    tc.store %a, @f[%i] : f32
    tc.yield
  }
  tc.return
}
snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @f : [f32] }
}

// -----

// 2-D: an scf.while over rows of the innermost dimension, each an scf.for
// from r to min(n, r + (end - lin)); the outer index is (lin / n) + lo.
// Two loops make two tasks, in order; a serialized loop keeps `serialize`.
// CHECK-LABEL: tc.kernel @two
// CHECK:         tc.launch @two__par0() total %{{.*}} {block_dim = 32 : i32}
// CHECK:         tc.launch @two__par1() total %{{.*}} {serialize}
// CHECK-LABEL: tc.task @two__par0 {
// CHECK-NEXT:  ^bb0(%[[B:.*]]: i64, %[[E:.*]]: i64):
// CHECK:         arith.maxsi
// CHECK:         %[[NJ:.*]] = arith.maxsi
// CHECK:         scf.while (%[[LIN:.*]] = %[[B]]) : (i64) -> i64 {
// CHECK:           arith.cmpi slt, %[[LIN]], %[[E]] : i64
// CHECK:           scf.condition
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%[[LIN2:.*]]: i64):
// CHECK:           %[[Q:.*]] = arith.divui %[[LIN2]], %[[NJ]] : i64
// CHECK:           %[[R:.*]] = arith.remui %[[LIN2]], %[[NJ]] : i64
// CHECK:           %[[JEND:.*]] = arith.minsi %[[NJ]], %{{.*}} : i64
// CHECK:           scf.for %{{.*}} = %[[R]] to %[[JEND]]
// CHECK:             tc.store
// CHECK:           %[[STEP:.*]] = arith.subi %[[JEND]], %[[R]] : i64
// CHECK:           %[[NL:.*]] = arith.addi %[[LIN2]], %[[STEP]] : i64
// CHECK:           scf.yield %[[NL]] : i64
// CHECK:         } attributes {tc.iterations}
// CHECK:         tc.return
// CHECK-LABEL: tc.task @two__par1 {
tc.kernel @two() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %v = arith.constant 1.0 : f32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c4, %c8) attributes {block_dim = 32 : i32} {
    tc.store %v, @g[%i, %j] : f32
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c4) attributes {serialize} {
    tc.store %v, @g[%i, %c0] : f32
    tc.yield
  }
  tc.return
}
snode.tree @root {
  snode.dense @d axes [0, 1] shape [4, 8] { snode.place @g : [f32] }
}

// -----

// A loop with a limit: each task instance evaluates it in its prologue and
// stops its range at (limit - lo0) times the other dimensions' extents,
// the linear number of the first iteration whose first index reaches it
// (tc.range_end); the launch keeps the host's bound. Values the limit uses
// from the kernel are captured.
// CHECK-LABEL: tc.kernel @limited(
// CHECK-SAME:    %[[H:.*]]: i32, %[[M:.*]]: i32)
// CHECK:         %[[KC0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[KLO:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:         arith.maxsi %{{.*}}, %[[KC0]] : i64
// CHECK:         %[[KN1:.*]] = arith.maxsi %{{.*}}, %[[KC0]] : i64
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[KN1]] : i64
// The launch carries the same stop, from the kernel's values, for a target
// that evaluates it before launching.
// CHECK:         tc.launch @limited__par0(%[[M]], %[[H]]) total %[[TOTAL]] : i32, i32 limit {
// CHECK-NEXT:      %[[KL:.*]] = arith.addi %[[M]], %[[M]] : i32
// CHECK-NEXT:      %[[KL64:.*]] = arith.extsi %[[KL]] : i32 to i64
// CHECK-NEXT:      %[[KD:.*]] = arith.subi %[[KL64]], %[[KLO]] : i64
// CHECK-NEXT:      %[[KF:.*]] = arith.maxsi %[[KD]], %[[KC0]] : i64
// CHECK-NEXT:      %[[KSTOP:.*]] = arith.muli %[[KF]], %[[KN1]] : i64
// CHECK-NEXT:      tc.yield %[[KSTOP]] : i64
// CHECK-NEXT:    }
// CHECK-LABEL: tc.task @limited__par0 {
// CHECK-NEXT:  ^bb0(%[[B:.*]]: i64, %[[E:.*]]: i64, %[[TM:.*]]: i32, %[[TH:.*]]: i32):
// CHECK-DAG:     %[[LO:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i64
// CHECK:         %[[LO64:.*]] = arith.extsi %[[LO]] : i32 to i64
// CHECK:         arith.maxsi %{{.*}}, %[[C0]] : i64
// CHECK:         %[[N1:.*]] = arith.maxsi %{{.*}}, %[[C0]] : i64
// CHECK:         %[[L:.*]] = arith.addi %[[TM]], %[[TM]] : i32
// CHECK:         %[[L64:.*]] = arith.extsi %[[L]] : i32 to i64
// CHECK:         %[[D:.*]] = arith.subi %[[L64]], %[[LO64]] : i64
// CHECK:         %[[F:.*]] = arith.maxsi %[[D]], %[[C0]] : i64
// CHECK:         %[[STOP:.*]] = arith.muli %[[F]], %[[N1]] : i64
// CHECK:         %[[END:.*]] = arith.minsi %[[E]], %[[STOP]] {tc.range_end} : i64
// CHECK:         scf.while (%[[LIN:.*]] = %[[B]]) : (i64) -> i64 {
// CHECK:           arith.cmpi slt, %[[LIN]], %[[END]] : i64
// CHECK:         } do {
// CHECK:           arith.subi %[[END]], %{{.*}} : i64
// CHECK:         } attributes {tc.iterations}
tc.kernel @limited(%h: i32, %m: i32) {
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  tc.parallel_for (%i, %j) = (%c1, %c1) to (%h, %c5) limit {
    %l = arith.addi %m, %m : i32
    tc.yield %l : i32
  } {
    tc.store %c5, @g[%i, %j] : i32
    tc.yield
  }
  tc.return
}
snode.tree @root {
  snode.dense @d axes [0, 1] shape [64, 8] { snode.place @g : [i32] }
}

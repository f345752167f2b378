// RUN: %tic-opt %s --tic-lift-control-flow | FileCheck %s
// RUN: %tic-opt %s --tic-lift-control-flow | FileCheck --check-prefix=NOCF %s
// tic-lift-control-flow: the cf blocks left in kernels, parallel loops and
// scf.execute_region ops become scf; no cf op remains.
// NOCF-NOT: {{[^s]}}cf.

snode.tree @root {
  snode.dense @d axes [0] shape [16] { snode.place @x : [i32] }
}

// A kernel-level loop with an early return: a do-while scf.while, the
// return value chosen after it.
// CHECK-LABEL: tc.kernel @find(
// CHECK: %[[R:.*]]:{{.*}} = scf.while
// CHECK: tc.load @x
// CHECK: scf.condition
// CHECK: tc.return
tc.kernel @find(%v: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %m1 = arith.constant -1 : i32
  cf.br ^head(%c0 : i32)
^head(%i: i32):
  %more = arith.cmpi slt, %i, %c16 : i32
  cf.cond_br %more, ^body, ^none
^body:
  %x = tc.load @x[%i] : i32
  %hit = arith.cmpi eq, %x, %v : i32
  cf.cond_br %hit, ^found, ^next
^found:
  tc.return %i : i32
^next:
  %n = arith.addi %i, %c1 : i32
  cf.br ^head(%n : i32)
^none:
  tc.return %m1 : i32
}

// A parallel loop body with `continue` (a branch to the block that yields).
// CHECK-LABEL: tc.kernel @skip(
// CHECK: tc.parallel_for
// CHECK: scf.if
// CHECK: tc.store
// CHECK: tc.yield
tc.kernel @skip() {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c3 = arith.constant 3 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %r = arith.remsi %i, %c3 : i32
    %z = arith.cmpi eq, %r, %c0 : i32
    cf.cond_br %z, ^cont, ^work
  ^work:
    tc.store %i, @x[%i] : i32
    cf.br ^cont
  ^cont:
    tc.yield
  }
  tc.return
}

// Blocks inside an scf.execute_region (inside an scf.if): lifted, and the
// execute_region inlined into the scf.if.
// CHECK-LABEL: tc.kernel @nested(
// CHECK: scf.if
// CHECK-NOT: scf.execute_region
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: tc.return
tc.kernel @nested(%flag: i1, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.if %flag {
    scf.execute_region {
      cf.br ^h(%c0 : i32)
    ^h(%k: i32):
      %go = arith.cmpi slt, %k, %n : i32
      cf.cond_br %go, ^b, ^x
    ^b:
      tc.store %k, @x[%k] : i32
      %k1 = arith.addi %k, %c1 : i32
      cf.br ^h(%k1 : i32)
    ^x:
      scf.yield
    }
  }
  tc.return
}

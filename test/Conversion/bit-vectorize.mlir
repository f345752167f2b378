// RUN: %tic-opt %s --tic-allocate-layout --tic-bit-vectorize | FileCheck %s

// tic-bit-vectorize: a struct-for over a 1-bit field in a 32-lane bit_array
// becomes a parallel loop over its words (64 rows x 2 words).
snode.tree @root {
  snode.dense @d1 axes [0, 1] shape [64, 2] {
    snode.bit_array @a1 axes [1] shape [32] attributes {bits = 32} {
      snode.place @x : [i32] {quant = [#bits.quant<uint, 1>]}
    }
  }
  snode.dense @d2 axes [0, 1] shape [64, 2] {
    snode.bit_array @a2 axes [1] shape [32] attributes {bits = 32} {
      snode.place @y : [i32] {quant = [#bits.quant<uint, 1>]}
    }
  }
}

// y[i, j] = (x[i, j + 1] + x[i, j]) == 1: lanes j + 1 are the word shifted
// right by one or-ed with the next word shifted left by 31 (its index
// clamped to the field); the sum is two bit planes (a half adder); == 1 is
// plane 0 and not plane 1; the store writes the whole word.
// CHECK-LABEL: tc.kernel @k
// CHECK-NOT:     tc.struct_for
// CHECK:         tc.parallel_for (%[[I:.*]], %[[W:.*]]) = ({{.*}}) to ({{.*}}) {
// CHECK:           %[[LO:.*]] = tc.load @x[%[[I]], %{{.*}}] {tc.word} : i32
// CHECK:           arith.minsi
// CHECK:           %[[HI:.*]] = tc.load @x[%[[I]], %{{.*}}] {tc.word} : i32
// CHECK-DAG:       %[[T:.*]] = arith.shli %[[HI]], %{{.*}} : i32
// CHECK-DAG:       %[[S:.*]] = arith.shrui %[[LO]], %{{.*}} : i32
// CHECK:           %[[XR:.*]] = arith.ori %[[S]], %[[T]] : i32
// CHECK:           %[[X:.*]] = tc.load @x[%[[I]], %{{.*}}] {tc.word} : i32
// CHECK:           %[[P0:.*]] = arith.xori %[[XR]], %[[X]] : i32
// CHECK:           %[[P1:.*]] = arith.andi %[[XR]], %[[X]] : i32
// CHECK:           tc.store %{{.*}}, @y[%[[I]], %{{.*}}] {tc.word} : i32
// CHECK:           tc.yield
tc.kernel @k() attributes {tc.bit_vectorize = 32 : i32} {
  tc.struct_for @x (%i, %j) {
    %c1 = arith.constant 1 : i32
    %jp = arith.addi %j, %c1 : i32
    %a = tc.load @x[%i, %jp] : i32
    %b = tc.load @x[%i, %j] : i32
    %s = arith.addi %a, %b : i32
    %e = arith.cmpi eq, %s, %c1 : i32
    %v = arith.extui %e : i1 to i32
    tc.store %v, @y[%i, %j] : i32
    tc.yield
  }
  tc.return
}

// A kernel without the attribute keeps its struct-for.
// CHECK-LABEL: tc.kernel @plain
// CHECK:         tc.struct_for @x
tc.kernel @plain() {
  tc.struct_for @x (%i, %j) {
    %b = tc.load @x[%i, %j] : i32
    tc.store %b, @y[%i, %j] : i32
    tc.yield
  }
  tc.return
}

// RUN: %tic-opt %s --tic-allocate-layout --tic-bit-vectorize --tic-split-index-set --canonicalize | FileCheck %s

// A border test on the vectorized index that every lane of a word agrees on
// (`j >= 32 and j < 96`) becomes a test on the word index (`w >= 1 and
// w < 3`) in an if without else, which tic-split-index-set turns into the
// word loop's bounds; inside them the neighbour words' clamps are
// redundant and go: the word loop reads consecutive words (vector loads).
snode.tree @root {
  snode.dense @d1 axes [0, 1] shape [64, 4] {
    snode.bit_array @a1 axes [1] shape [32] attributes {bits = 32} {
      snode.place @x : [i32] {quant = [#bits.quant<uint, 1>]}
    }
  }
  snode.dense @d2 axes [0, 1] shape [64, 4] {
    snode.bit_array @a2 axes [1] shape [32] attributes {bits = 32} {
      snode.place @y : [i32] {quant = [#bits.quant<uint, 1>]}
    }
  }
}

// CHECK-LABEL: tc.kernel @bordered
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : i32
// CHECK:         tc.parallel_for (%[[I:.*]], %[[W:.*]]) = (%[[C0]], %[[C1]]) to (%[[C64]], %[[C3]]) {
// CHECK-NOT:       scf.if
// CHECK-NOT:       arith.maxsi
// CHECK-NOT:       arith.minsi
// CHECK:           %[[WM:.*]] = arith.addi %[[W]], %{{.*}} : i32
// CHECK:           %[[EM:.*]] = arith.muli %[[WM]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK:           tc.load @x[%[[I]], %[[EM]]] {tc.word} : i32
// CHECK:           tc.store %{{.*}}, @y[%[[I]], %{{.*}}] {tc.word} : i32
// CHECK:           tc.yield
tc.kernel @bordered() attributes {tc.bit_vectorize = 32 : i32} {
  tc.struct_for @x (%i, %j) {
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %c96 = arith.constant 96 : i32
    %lo = arith.cmpi sge, %j, %c32 : i32
    %hi = arith.cmpi slt, %j, %c96 : i32
    %in = arith.andi %lo, %hi : i1
    scf.if %in {
      %jm = arith.subi %j, %c1 : i32
      %jp = arith.addi %j, %c1 : i32
      %a = tc.load @x[%i, %jm] : i32
      %b = tc.load @x[%i, %jp] : i32
      %s = arith.addi %a, %b : i32
      %e = arith.cmpi eq, %s, %c1 : i32
      %v = arith.extui %e : i1 to i32
      tc.store %v, @y[%i, %j] : i32
    }
    tc.yield
  }
  tc.return
}

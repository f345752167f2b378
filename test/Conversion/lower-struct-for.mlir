// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for | FileCheck %s

snode.tree @root {
  snode.dense @blk axes [0, 1] shape [4, 2] {
    snode.dense @cell axes [0, 1] shape [8, 16] {
      snode.place @u : [f32]
    }
  }
  snode.dense @line axes [0] shape [100] { snode.place @w : [i32] }
}

// CHECK-LABEL: tc.kernel @over_field
// CHECK-NOT:  tc.struct_for
// CHECK-DAG:  %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG:  %[[N0:.*]] = arith.constant 32 : i32
// CHECK-DAG:  %[[N1:.*]] = arith.constant 32 : i32
// CHECK:      tc.parallel_for (%[[I:.*]], %[[J:.*]]) = (%[[Z]], %[[Z]]) to (%[[N0]], %[[N1]]) attributes {block_dim = 64 : i32} {
// CHECK:        tc.store %{{.*}}, @u[%[[I]], %[[J]]] : f32
tc.kernel @over_field(%x: f32) {
  tc.struct_for @u (%i, %j) attributes {block_dim = 64 : i32} {
    tc.store %x, @u[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// Over a container: one iteration per block, bound to the block's own cell
// indices (as in Taichi and the spec), not scaled to its first element.
// CHECK-LABEL: tc.kernel @over_blocks
// CHECK-DAG:  %[[B0:.*]] = arith.constant 4 : i32
// CHECK-DAG:  %[[B1:.*]] = arith.constant 2 : i32
// CHECK:      tc.parallel_for (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%[[B0]], %[[B1]]) {
// CHECK-NOT:    arith.muli
// CHECK:        tc.store %{{.*}}, @u[%[[I]], %[[J]]] : f32
tc.kernel @over_blocks(%x: f32) {
  tc.struct_for @blk (%i, %j) {
    tc.store %x, @u[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// CHECK-LABEL: tc.kernel @one_d
// CHECK: %[[N:.*]] = arith.constant 100 : i32
// CHECK: tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%[[N]]) attributes {serialize} {
tc.kernel @one_d(%x: i32) {
  tc.struct_for @w (%i) attributes {serialize} {
    tc.store %x, @w[%i] : i32
    tc.yield
  }
  tc.return
}

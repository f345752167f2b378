// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-lower-field-access | FileCheck %s

// Field accesses become a chain of micro-access ops that finds the cell
// (root_ptr, get_child, index_extract, linearize, lookup) and one memory op
// on the placed field (snode.load / store / atomic_rmw).

snode.tree @root {
  snode.dense @blk axes [0, 1] shape [4, 4] {
    snode.dense @cell axes [0, 1] shape [8, 8] {
      snode.place @u : [f32]
      snode.place @x : [f32, f32, f32]
    }
  }
  snode.dense @d1 axes [0] shape [16] { snode.place @n : [i32] }
  snode.place @loss : [f32]
}

// CHECK-LABEL: tc.kernel @access
tc.kernel @access(%i: i32, %j: i32, %v: f32, %k: i32) -> f32 {
  // Two-level hierarchy: block index (i / 8) and cell index (i % 8).
  // CHECK-NOT: tc.load
  // CHECK: %[[R:.*]] = snode.root_ptr @root
  // CHECK: %[[B:.*]] = snode.get_child %[[R]], @blk
  // CHECK: %[[BI:.*]] = snode.index_extract %{{.*}}, @blk[0] below 8 : i32
  // CHECK: %[[BJ:.*]] = snode.index_extract %{{.*}}, @blk[1] below 8 : i32
  // CHECK: %[[BL:.*]] = snode.linearize @blk(%[[BI]], %[[BJ]]) : i32
  // CHECK: %[[BC:.*]] = snode.lookup dense %[[B]], @blk[%[[BL]]] : i32
  // CHECK: %[[C:.*]] = snode.get_child %[[BC]], @cell
  // CHECK: %[[CI:.*]] = snode.index_extract %{{.*}}, @cell[0] below 1 : i32
  // CHECK: %[[CJ:.*]] = snode.index_extract %{{.*}}, @cell[1] below 1 : i32
  // CHECK: %[[CL:.*]] = snode.linearize @cell(%[[CI]], %[[CJ]]) : i32
  // CHECK: %[[CC:.*]] = snode.lookup dense %[[C]], @cell[%[[CL]]] : i32
  // CHECK: snode.load %[[CC]], @x[1] : f32
  %a = tc.load @x[%i, %j] {comp = 1} : f32

  // One level: the index is used directly, no extraction. A write to a
  // dense node needs no activation: its lookup is a plain one.
  // CHECK: snode.get_child %{{.*}}, @d1
  // CHECK-NOT: snode.index_extract
  // CHECK: %[[L:.*]] = snode.lookup dense %{{.*}}, @d1[%{{.*}}] : i32
  // CHECK-NOT: activate
  // CHECK: snode.atomic_rmw xor %{{.*}}, %[[L]], @n[0] : i32
  %o = tc.atomic_rmw xor %k, @n[%i] : i32

  // 0-D field: directly in the root cell.
  // CHECK: %[[R0:.*]] = snode.root_ptr @root
  // CHECK-NEXT: snode.store %{{.*}}, %[[R0]], @loss[0] : f32
  tc.store %v, @loss[] : f32
  // CHECK: snode.atomic_rmw add %{{.*}}, %{{.*}}, @loss[0] : f32
  %f = tc.atomic_rmw add %v, @loss[] : f32
  // CHECK: snode.atomic_rmw max %{{.*}}, %{{.*}}, @loss[0] : f32
  %g = tc.atomic_rmw max %v, @loss[] : f32
  // CHECK: snode.atomic_rmw sub %{{.*}}, %{{.*}}, @n[0] : i32
  %h = tc.atomic_rmw sub %k, @n[%j] : i32
  tc.return %a : f32
}

// -----

// Every node kind goes through the same ops. Reads never activate; writes
// and atomics look their cells up with `activate` on the nodes that can be
// inactive (here the pointer, not the dense leaf below it).
snode.tree @root {
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [8] { snode.place @u : [f32] }
  }
}
// CHECK-LABEL: tc.kernel @sparse
tc.kernel @sparse(%i: i32, %v: f32) -> f32 {
  // CHECK: %[[P:.*]] = snode.lookup pointer %{{.*}}, @p[%{{.*}}] : i32
  // CHECK: %[[D:.*]] = snode.lookup dense %{{.*}}, @d[%{{.*}}] : i32
  // CHECK: snode.load %[[D]], @u[0] : f32
  %r = tc.load @u[%i] : f32
  // CHECK: snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
  // CHECK: %[[D2:.*]] = snode.lookup dense %{{.*}}, @d[%{{.*}}] : i32
  // CHECK: snode.store %{{.*}}, %[[D2]], @u[0] : f32
  tc.store %v, @u[%i] : f32
  // CHECK: snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
  // CHECK: snode.atomic_rmw add
  %o = tc.atomic_rmw add %v, @u[%i] : f32
  tc.return %r : f32
}

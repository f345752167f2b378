// RUN: %tic-opt %s --tic-allocate-layout "--tic-lower-struct-for=lists=false" --tic-lower-field-access | FileCheck %s

// Sparse structure ops and struct-fors over a path with a bitmasked node,
// lowered to snode ops: reads never activate, writes and tc.activate do,
// is_active / deactivate ask the node's own level.

snode.tree @root {
  snode.dense @d axes [0] shape [4] {
    snode.bitmasked @b axes [0] shape [8] {
      snode.dense @leaf axes [0] shape [2] { snode.place @x : [f32] }
    }
  }
}

// Without lists (struct-for-lists.mlir has them), a struct-for over x runs
// in parallel over the 32 cells of @b, skips the inactive ones, and visits the 2 elements of each active one
// (index = cell * 2 + r).
// CHECK-LABEL: tc.kernel @sum
// CHECK:       %[[N:.*]] = arith.constant 32 : i32
// CHECK:       tc.parallel_for (%[[C:.*]]) = (%{{.*}}) to (%[[N]])
// CHECK:         %[[BI:.*]] = snode.index_extract %[[C]], @b[0] below 1 : i32
// CHECK:         %[[ACT:.*]] = snode.is_active bitmasked %{{.*}}, @b[%[[BI]]] : i32
// CHECK:         scf.if %[[ACT]] {
// CHECK:           scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:             %[[M:.*]] = arith.muli %[[C]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK:             %[[I:.*]] = arith.addi %[[M]], %[[R]] overflow<nsw, nuw> : i32
// CHECK-NOT:         activate
// CHECK:             snode.index_extract %[[I]], @leaf[0] below 1 : i32
// CHECK:             snode.load %{{.*}}, @x[0] : f32
// CHECK:         tc.yield
tc.kernel @sum() {
  tc.struct_for @x (%i) {
    %v = tc.load @x[%i] : f32
    tc.yield
  }
  tc.return
}

// CHECK-LABEL: tc.kernel @cells
// is_active: non-activating lookups down to @b's container, then its bit.
// CHECK:       %[[D0:.*]] = snode.lookup dense %{{.*}}, @d[%{{.*}}] : i32
// CHECK-NEXT:  %[[B0:.*]] = snode.get_child %[[D0]], @b
// CHECK-NEXT:  %[[L0:.*]] = snode.index_extract %{{.*}}, @b[0] below 1 : i32
// CHECK-NEXT:  %[[A:.*]] = snode.is_active bitmasked %[[B0]], @b[%[[L0]]] : i32
// activate: the lookups a write does, without a value.
// CHECK:       snode.lookup bitmasked %{{.*}}, @b[%{{.*}}] activate : i32
// CHECK-NOT:   snode.store
// deactivate
// CHECK:       snode.deactivate bitmasked %{{.*}}, @b[%{{.*}}] : i32
// A write activates @b (not the dense levels); a read does not.
// CHECK:       snode.lookup dense %{{.*}}, @d[%{{.*}}] : i32
// CHECK:       snode.lookup bitmasked %{{.*}}, @b[%{{.*}}] activate : i32
// CHECK:       snode.lookup dense %{{.*}}, @leaf[%{{.*}}] : i32
// CHECK:       snode.store
// CHECK:       snode.lookup bitmasked %{{.*}}, @b[%{{.*}}] : i32
// CHECK:       snode.load
// CHECK:       tc.return %[[A]] : i1
tc.kernel @cells(%i: i32, %v: f32) -> i1 {
  %a = tc.is_active @b[%i] : i1
  tc.activate @b[%i]
  tc.deactivate @b[%i]
  tc.store %v, @x[%i] : f32
  %r = tc.load @x[%i] : f32
  tc.return %a : i1
}

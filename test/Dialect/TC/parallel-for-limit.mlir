// RUN: %tic-opt %s -split-input-file | FileCheck %s
// RUN: %tic-opt %s -split-input-file | %tic-opt -split-input-file | FileCheck %s
// RUN: %tic-opt %s -split-input-file -mlir-print-op-generic | %tic-opt -split-input-file | FileCheck %s

// A tc.parallel_for's `limit`: iterations whose first index reaches the
// value it yields do nothing; the region is evaluated where the iterations
// run (the host bound may be an estimate: snode.pool_bound).

snode.tree @root {
  snode.hash @h axes [0, 1] shape [4, 4] { snode.place @x : [f32] }
}

// CHECK-LABEL: tc.kernel @limited
// CHECK:       %[[B:.*]] = snode.pool_bound @h : i32
// CHECK:       tc.parallel_for (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%[[B]], %{{.*}}) limit {
// CHECK-NEXT:    %[[N:.*]] = tc.hash_entries @h : i32
// CHECK-NEXT:    tc.yield %[[N]] : i32
// CHECK-NEXT:  } {
// CHECK:         tc.yield
// CHECK-NEXT:  }
tc.kernel @limited() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %b = snode.pool_bound @h : i32
  tc.parallel_for (%e, %k) = (%c0, %c0) to (%b, %c4) limit {
    %n = tc.hash_entries @h : i32
    tc.yield %n : i32
  } {
    tc.yield
  }
  tc.return
}

// With attributes and i64 bounds: the limit is of the loop's index type.
// CHECK-LABEL: tc.kernel @wide
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) : i64 attributes {block_dim = 64 : i32} limit {
// CHECK-NEXT:    tc.yield %{{.*}} : i64
tc.kernel @wide(%m: i64) {
  %c0 = arith.constant 0 : i64
  %c9 = arith.constant 9 : i64
  tc.parallel_for (%i) = (%c0) to (%c9) : i64 attributes {block_dim = 64 : i32} limit {
    tc.yield %m : i64
  } {
    tc.yield
  }
  tc.return
}

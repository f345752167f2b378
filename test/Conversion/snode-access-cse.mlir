// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-snode-access-cse | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access | FileCheck %s --check-prefix=NOCSE

// A 5-point stencil: the five loads of v share ONE root lookup chain
// (root_ptr + get_child hoisted out of the parallel loop), the loads that use
// the same indices share their lookup, and only the per-access index math and
// the final lookups differ.
snode.tree @root {
  snode.dense @grid axes [0, 1] shape [128, 128] {
    snode.place @u : [f32]
    snode.place @v : [f32]
  }
}

// CHECK-LABEL: tc.kernel @laplace
// CHECK:       %[[R:.*]] = snode.root_ptr @root
// CHECK-NEXT:  %[[G:.*]] = snode.get_child %[[R]], @grid
// CHECK-NOT:   snode.root_ptr
// CHECK-NOT:   snode.get_child
// CHECK:       tc.parallel_for
// CHECK-NOT:   snode.root_ptr
// CHECK-NOT:   snode.get_child
// CHECK:       %[[L0:.*]] = snode.linearize @grid(%{{.*}}, %{{.*}}) : i32
// CHECK:       %[[C0:.*]] = snode.lookup %[[G]], @grid[%[[L0]]] : i32
// CHECK:       snode.place_ptr %[[C0]], @v[0]
// CHECK-COUNT-4: snode.lookup %[[G]], @grid
// CHECK-NOT:   snode.root_ptr
// CHECK-NOT:   snode.get_child
// The store to u[i, j] reuses the cell of v[i, j].
// CHECK:       snode.place_ptr %[[C0]], @u[0]
// CHECK-NOT:   snode.lookup
// CHECK:       tc.yield

// Without the pass every access has its own chain.
// NOCSE-COUNT-6: snode.root_ptr @root
tc.kernel @laplace(%scale: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c127 = arith.constant 127 : i32
  tc.parallel_for (%i, %j) = (%c1, %c1) to (%c127, %c127) {
    %c = tc.load @v[%i, %j] : f32
    %ip = arith.addi %i, %c1 : i32
    %im = arith.subi %i, %c1 : i32
    %jp = arith.addi %j, %c1 : i32
    %jm = arith.subi %j, %c1 : i32
    %a = tc.load @v[%ip, %j] : f32
    %b = tc.load @v[%im, %j] : f32
    %d = tc.load @v[%i, %jp] : f32
    %e = tc.load @v[%i, %jm] : f32
    %s1 = arith.addf %a, %b : f32
    %s2 = arith.addf %d, %e : f32
    %s = arith.addf %s1, %s2 : f32
    %four = arith.constant 4.0 : f32
    %c4 = arith.mulf %four, %c : f32
    %lap = arith.subf %c4, %s : f32
    %r = arith.mulf %lap, %scale : f32
    tc.store %r, @u[%i, %j] : f32
    tc.yield
  }
  tc.return
}

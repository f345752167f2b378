// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-lower-field-access --tic-snode-access-cse | FileCheck %s
// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-lower-field-access | FileCheck %s --check-prefix=NOCSE

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
// CHECK:       %[[C0:.*]] = snode.lookup dense %[[G]], @grid[%[[L0]]] : i32
// CHECK:       snode.load %[[C0]], @v[0]
// CHECK-COUNT-4: snode.lookup dense %[[G]], @grid
// CHECK-NOT:   snode.root_ptr
// CHECK-NOT:   snode.get_child
// The store to u[i, j] reuses the cell of v[i, j].
// CHECK:       snode.store %{{.*}}, %[[C0]], @u[0]
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

// -----

// Lookups on a sparse node read the SNode structure. In a kernel that only
// reads, they move and merge like address arithmetic: the pointer lookup of
// a loop-invariant index leaves the loop, and two reads of one cell share it.
snode.tree @root {
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [8] { snode.place @u : [f32] }
  }
}
// CHECK-LABEL: tc.kernel @reads
// CHECK:       snode.lookup pointer
// CHECK:       tc.parallel_for
// CHECK-NOT:   snode.lookup pointer
// CHECK:       tc.yield
tc.kernel @reads(%k: i32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %a = tc.load @u[%k] : f32
    %b = tc.load @u[%k] : f32
    %s = arith.addf %a, %b : f32
    tc.yield
  }
  tc.return
}

// A kernel that activates cells (a write to the sparse field) may change
// what a lookup finds: its non-activating lookups stay where they are, one
// per access, and the activating one is never merged.
// CHECK-LABEL: tc.kernel @writes
// CHECK:       tc.parallel_for
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{[^]]*}}] : i32
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{[^]]*}}] activate : i32
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{[^]]*}}] : i32
// CHECK:       tc.yield
tc.kernel @writes(%k: i32, %v: f32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %a = tc.load @u[%k] : f32
    tc.store %v, @u[%i] : f32
    %b = tc.load @u[%k] : f32
    %s = arith.addf %a, %b : f32
    tc.yield
  }
  tc.return
}

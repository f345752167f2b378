// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --cse --tic-snode-access-cse | FileCheck %s

// Repeated activations of one cell become one (thesis 2.5): in a scope (a
// parallel loop, else the kernel) that deactivates nothing, an activating lookup merges into a dominating
// identical one (activation is idempotent, and the first one's cell stays
// the cell). Two fields placed together (AoS), written at the same index:
// one activation of their pointer cell.
snode.tree @root {
  snode.pointer @p axes [0] shape [8] {
    snode.dense @d axes [0] shape [4] { snode.place @u : [f32] snode.place @v : [f32] }
  }
}
// CHECK-LABEL: tc.kernel @scatter
// CHECK:       %[[CELL:.*]] = snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// CHECK-NOT:   snode.lookup pointer
// CHECK:       snode.atomic_rmw add %{{.*}}, %{{.*}}, @u[0] : f32
// CHECK:       snode.atomic_rmw add %{{.*}}, %{{.*}}, @v[0] : f32
tc.kernel @scatter(%i: i32, %x: f32) {
  %a = tc.atomic_rmw add %x, @u[%i] : f32
  %b = tc.atomic_rmw add %x, @v[%i] : f32
  tc.return
}

// A deactivation in the kernel may free the cell in between: both stay.
// CHECK-LABEL: tc.kernel @kill
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// CHECK:       snode.deactivate pointer
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
tc.kernel @kill(%i: i32, %x: f32) {
  %a = tc.atomic_rmw add %x, @u[%i] : f32
  tc.deactivate @p[%i]
  %b = tc.atomic_rmw add %x, @v[%i] : f32
  tc.return
}

// The scope is the innermost parallel loop: a kernel that frees its blocks in
// one loop and scatters into them in the next (bench/mpm_sparse.tc) merges
// the activations of the second loop.
// CHECK-LABEL: tc.kernel @free_then_scatter
// CHECK:       tc.parallel_for
// CHECK:       snode.deactivate pointer
// CHECK:       tc.parallel_for
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// CHECK-NOT:   snode.lookup pointer
// CHECK:       snode.atomic_rmw add %{{.*}}, %{{.*}}, @u[0] : f32
// CHECK:       snode.atomic_rmw add %{{.*}}, %{{.*}}, @v[0] : f32
// CHECK:       tc.yield
tc.kernel @free_then_scatter(%x: f32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  tc.parallel_for (%k) = (%c0) to (%c8) {
    tc.deactivate @p[%k]
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c32) {
    %a = tc.atomic_rmw add %x, @u[%i] : f32
    %b = tc.atomic_rmw add %x, @v[%i] : f32
    tc.yield
  }
  tc.return
}

// A loop that deactivates keeps its activations apart, and so does the
// kernel around it (a lookup before the loop is not merged into).
// CHECK-LABEL: tc.kernel @scatter_and_free
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// CHECK:       tc.parallel_for
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// CHECK:       snode.deactivate pointer
// CHECK:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// CHECK:       tc.yield
tc.kernel @scatter_and_free(%j: i32, %x: f32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %z = tc.atomic_rmw add %x, @u[%j] : f32
  tc.parallel_for (%i) = (%c0) to (%c32) {
    %a = tc.atomic_rmw add %x, @u[%j] : f32
    tc.deactivate @p[%i]
    %b = tc.atomic_rmw add %x, @v[%j] : f32
    tc.yield
  }
  tc.return
}

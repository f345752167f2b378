// RUN: %tic-opt %s --tic-allocate-layout --tic-privatize-scatter | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-privatize-scatter=cost-factor=0 | FileCheck %s --check-prefix=NEVER
// RUN: %tic-opt %s --tic-cpu-pipeline | FileCheck %s --check-prefix=PIPE

// tic-privatize-scatter: a top-level parallel loop whose only accesses to a
// field are atomic adds with unused results gets a per-thread version,
// chosen at run time, with a merge loop per field; on one thread, plain
// adds into the field; otherwise the original loop.

snode.tree @root {
  snode.pointer @blk axes [0, 1] shape [4, 4] {
    snode.dense @cell axes [0, 1] shape [8, 8] {
      snode.place @v : [f32, f32]
      snode.place @m : [f32]
    }
  }
  snode.dense @d axes [0] shape [100] { snode.place @c : [i32] }
  snode.dense @p axes [0] shape [1000] { snode.place @x : [f32] }
  snode.hash @h axes [0] shape [16] { snode.place @hv : [f32] }
}

// v (two components) and c are only added to: both privatized; m is also
// read: it keeps its atomic in both versions.
// CHECK-LABEL: tc.kernel @p2g
// CHECK:         %[[T:.*]] = tc.num_threads : i32
// CHECK:         %[[VS:.*]] = tc.scratch 0, %{{.*}} : memref<?xf32>
// CHECK:         %[[VF:.*]] = tc.scratch 1, %{{.*}} : memref<?xi8>
// CHECK:         %[[CS:.*]] = tc.scratch 2, %{{.*}} : memref<?xi32>
// CHECK:         %[[CF:.*]] = tc.scratch 3, %{{.*}} : memref<?xi8>
// CHECK:         scf.if %{{.*}} {
// CHECK:           tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// CHECK-NEXT:        %[[TID:.*]] = tc.thread_index : i32
// CHECK-NOT:         tc.atomic_rmw add %{{.*}}, @v
// Each add: inside the field's 32 x 32 cells, this thread's row of the copy.
// CHECK:             arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK:             scf.if
// CHECK:               arith.muli %{{.*}}, %c1024_i64{{.*}} : i64
// CHECK:               memref.load %[[VS]]
// CHECK:               arith.addf
// CHECK:               memref.store %{{.*}}, %[[VS]]
// CHECK:               memref.store %c1_i8, %[[VF]]
// CHECK:             tc.atomic_rmw add %{{.*}}, @m
// CHECK:             memref.load %[[CS]]
// CHECK:             arith.addi
// CHECK:             memref.store %{{.*}}, %[[CS]]
// CHECK:             memref.store %c1_i8, %[[CF]]
// CHECK:             tc.load @m
// CHECK:             tc.yield
// The merges: one iteration per cell, over the threads, the field written
// only where a thread touched it.
// CHECK:           tc.parallel_for (%[[CELL:.*]]) = (%{{.*}}) to (%c1024_i32) {
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %false, %{{.*}} = %cst{{.*}}, %{{.*}} = %cst{{.*}}) -> (i1, f32, f32)
// CHECK:             scf.if %{{.*}} {
// CHECK:               tc.load @v[%{{.*}}, %{{.*}}] : f32
// CHECK:               tc.store %{{.*}}, @v[%{{.*}}, %{{.*}}] : f32
// CHECK:               tc.load @v[%{{.*}}, %{{.*}}] {comp = 1 : i64} : f32
// CHECK:               tc.store %{{.*}}, @v[%{{.*}}, %{{.*}}] {comp = 1 : i64} : f32
// CHECK:           tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%c100_i32) {
// CHECK:               tc.load @c[%{{.*}}] : i32
// CHECK:               tc.store %{{.*}}, @c[%{{.*}}] : i32
// One thread: plain adds into the fields themselves (m, also read, keeps
// its atomic); otherwise the loop as it was.
// CHECK:         } else {
// CHECK:           %[[ALONE:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : i32
// CHECK:           scf.if %[[ALONE]] {
// CHECK:             tc.parallel_for
// CHECK-NOT:           tc.atomic_rmw add %{{.*}}, @v
// CHECK:               %[[OLD:.*]] = tc.load @v[%{{.*}}, %{{.*}}] : f32
// CHECK:               %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK:               tc.store %[[NEW]], @v[%{{.*}}, %{{.*}}] : f32
// CHECK:               tc.load @v[%{{.*}}, %{{.*}}] {comp = 1 : i64} : f32
// CHECK:               tc.store %{{.*}}, @v[%{{.*}}, %{{.*}}] {comp = 1 : i64} : f32
// CHECK:               tc.atomic_rmw add %{{.*}}, @m
// CHECK:               tc.load @c
// CHECK:               arith.addi
// CHECK:               tc.store %{{.*}}, @c
// CHECK:           } else {
// CHECK:             tc.parallel_for
// CHECK:               tc.atomic_rmw add %{{.*}}, @v
// CHECK:               tc.atomic_rmw add %{{.*}}, @v[%{{.*}}, %{{.*}}] {comp = 1 : i64}
// CHECK:               tc.atomic_rmw add %{{.*}}, @m
// CHECK:               tc.atomic_rmw add %{{.*}}, @c
// NEVER-LABEL: tc.kernel @p2g
// NEVER:         tc.scratch
// NEVER:         scf.if
// Lowered: the thread count and the four buffers in the kernel; in the
// per-thread loop only m's add is still atomic.
// PIPE-LABEL: llvm.func @p2g(
// PIPE:         llvm.call @tic_rt_num_threads
// PIPE-COUNT-4: llvm.call @tic_rt_scratch
// PIPE-LABEL: llvm.func internal @p2g__par0(
// PIPE-COUNT-1: llvm.atomicrmw fadd
// PIPE-NOT:     llvm.atomicrmw fadd
// PIPE-LABEL: llvm.func internal @p2g__par1(
// The one-thread version: m's add alone is atomic.
// PIPE-LABEL: llvm.func internal @p2g__par3(
// PIPE-COUNT-1: llvm.atomicrmw fadd
// PIPE-NOT:     llvm.atomicrmw fadd
// PIPE-LABEL: llvm.func internal @p2g__par4(
// PIPE-COUNT-3: llvm.atomicrmw fadd
tc.kernel @p2g() {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1000 : i32
  tc.parallel_for (%p) = (%c0) to (%n) {
    %w = tc.load @x[%p] : f32
    %i = arith.remui %p, %n : i32
    %j = arith.constant 3 : i32
    %a = tc.atomic_rmw add %w, @v[%i, %j] : f32
    %b = tc.atomic_rmw add %w, @v[%i, %j] {comp = 1 : i64} : f32
    %e = tc.atomic_rmw add %w, @m[%i, %j] : f32
    %one = arith.constant 1 : i32
    %k = arith.remui %p, %j : i32
    %f = tc.atomic_rmw add %one, @c[%k] : i32
    %g = tc.load @m[%j, %j] : f32
    tc.yield
  }
  tc.return
}

// Not privatized: the old value is used; a hash field (no finite index
// space); a field below a node that a sparse-structure op of the loop
// names (the deactivation would see the deferred activations); a
// serialized loop.
// CHECK-LABEL: tc.kernel @kept
// CHECK-NOT:     tc.scratch
// CHECK-NOT:     tc.thread_index
// CHECK:         tc.return
tc.kernel @kept() -> f32 {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 100 : i32
  %acc = memref.alloca() : memref<f32>
  tc.parallel_for (%p) = (%c0) to (%n) {
    %one = arith.constant 1.0 : f32
    %old = tc.atomic_rmw add %one, @x[%p] : f32
    memref.atomic_rmw addf %old, %acc[] : (f32, memref<f32>) -> f32
    %h = tc.atomic_rmw add %one, @hv[%p] : f32
    tc.yield
  }
  tc.parallel_for (%p) = (%c0) to (%n) {
    %one = arith.constant 1.0 : f32
    %f = tc.atomic_rmw add %one, @v[%p, %p] : f32
    tc.deactivate @blk[%p, %p]
    tc.yield
  }
  tc.parallel_for (%p) = (%c0) to (%n) attributes {serialize} {
    %one = arith.constant 1 : i32
    %f = tc.atomic_rmw add %one, @c[%p] : i32
    tc.yield
  }
  %r = memref.load %acc[] : memref<f32>
  tc.return %r : f32
}

// Another loop scattering into c (in another kernel) uses c's slots: loops
// run one after another and leave the copies zero.
// CHECK-LABEL: tc.kernel @again
// CHECK:         tc.scratch 2, %{{.*}} : memref<?xi32>
// CHECK:         tc.scratch 3, %{{.*}} : memref<?xi8>
tc.kernel @again() {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1000 : i32
  tc.parallel_for (%p) = (%c0) to (%n) {
    %one = arith.constant 1 : i32
    %k = arith.remui %p, %n : i32
    %f = tc.atomic_rmw add %one, @c[%k] : i32
    tc.yield
  }
  tc.return
}

// A loop with i64 bounds: its trip count is computed without extensions.
// CHECK-LABEL: tc.kernel @wide
// CHECK:         %[[TRIP:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK:         tc.num_threads
// CHECK:         tc.scratch 2
tc.kernel @wide(%n: i64) {
  %c0 = arith.constant 0 : i64
  tc.parallel_for (%p) = (%c0) to (%n) : i64 {
    %one = arith.constant 1 : i32
    %k = arith.trunci %p : i64 to i32
    %f = tc.atomic_rmw add %one, @c[%k] : i32
    tc.yield
  }
  tc.return
}

// A sparse-structure op on a node off the field's path does not keep the
// field's atomics: c is privatized beside the deactivation of blk.
// CHECK-LABEL: tc.kernel @beside
// CHECK:         tc.scratch 2, %{{.*}} : memref<?xi32>
// CHECK:         tc.parallel_for
// CHECK:           tc.thread_index
// CHECK:           tc.deactivate @blk
tc.kernel @beside() {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 100 : i32
  tc.parallel_for (%p) = (%c0) to (%n) {
    %one = arith.constant 1 : i32
    %f = tc.atomic_rmw add %one, @c[%p] : i32
    tc.deactivate @blk[%p, %p]
    tc.yield
  }
  tc.return
}

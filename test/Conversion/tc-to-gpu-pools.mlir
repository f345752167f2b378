// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm --convert-tc-to-gpu | FileCheck %s

// A pointer node on the GPU: the device code allocates cells inline from
// the pool state in the root buffer (byte 128 here), the host globals it
// refers to (the sink cell of a used-up pool; not the ambient cell, which
// only reads use) get device copies in the gpu.module, atomics take the
// device scope, and the pool's collect kernels move freed cells (the
// pending list, its address at byte 72 of the state, its count at 96) to
// the free list (64), zeroed, without atomics, then set the counts (free
// count 80, taken 88).
snode.tree @root {
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [4] { snode.place @x : [f32] }
  }
}

// CHECK-LABEL: gpu.module @tic_cuda
// CHECK:       llvm.mlir.global internal @__tic_sink_cell()
// CHECK-NOT:   @__tic_ambient_cell
// CHECK:       gpu.func @touch__par0
// CHECK-SAME:  (%[[ROOT:[^:]*]]: !llvm.ptr
// The slot is claimed first, then a cell taken from the free list (an
// atomic add on free_taken, 88) or fresh (an atomic add on next, 32).
// CHECK:         llvm.cmpxchg {{.*}} syncscope("device") acq_rel acquire
// CHECK:         %[[S:.*]] = llvm.getelementptr inbounds %[[ROOT]][128]
// CHECK:         llvm.getelementptr inbounds %[[S]][88]
// CHECK:         llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// CHECK:         llvm.getelementptr inbounds %[[S]][32]
// CHECK:         llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// The pool used up: the failure record, no runtime call.
// CHECK:         llvm.mlir.addressof @__tic_failure
// CHECK-NOT:     llvm.call
// CHECK:         gpu.return
// A grid-stride loop over the pending cells' words.
// CHECK:       gpu.func @__tic_pool_collect(%[[R:[^:]*]]: !llvm.ptr) kernel
// CHECK:         gpu.grid_dim x
// CHECK:         %[[ST:.*]] = llvm.getelementptr inbounds %[[R]][128]
// CHECK:         llvm.getelementptr inbounds %[[ST]][96]
// CHECK:         %[[PENDING:.*]] = llvm.load
// CHECK:         %[[WPE:.*]] = arith.divui %{{.*}}, %c8_i64 : i64
// CHECK:         %[[TOTAL:.*]] = arith.muli %[[PENDING]], %[[WPE]] : i64
// CHECK:         scf.for %[[W:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} : i64 {
// CHECK-NOT:       llvm.cmpxchg
// CHECK-NOT:       llvm.atomicrmw
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:           scf.if
// CHECK:             llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         gpu.return
// One thread: free_count = untaken + pending; taken = pending = 0.
// CHECK:       gpu.func @__tic_pool_collect_end(%[[R2:[^:]*]]: !llvm.ptr) kernel
// CHECK:         %[[ST2:.*]] = llvm.getelementptr inbounds %[[R2]][128]
// CHECK:         llvm.getelementptr inbounds %[[ST2]][80]
// CHECK:         llvm.store
// CHECK:         llvm.getelementptr inbounds %[[ST2]][88]
// CHECK:         llvm.store %c0_i64
// CHECK:         llvm.getelementptr inbounds %[[ST2]][96]
// CHECK:         llvm.store %c0_i64
// CHECK:         gpu.return
tc.kernel @touch(%n: i32) {
  %c0 = arith.constant 0 : i32
  %v = arith.constant 2.0 : f32
  tc.parallel_for (%i) = (%c0) to (%n) {
    tc.store %v, @x[%i] : f32
    tc.yield
  }
  tc.return
}

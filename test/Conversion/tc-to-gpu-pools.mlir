// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm --convert-tc-to-gpu | FileCheck %s

// A pointer node on the GPU: the device code allocates cells inline from
// the pool state in the root buffer (byte 128 here), the host globals it
// refers to (the sink cell of a used-up pool; not the ambient cell, which
// only reads use) get device copies in the gpu.module, ordered atomics take the
// device scope, and the pool's collect kernel moves freed cells (pending
// stack, byte 48 of the state) to the free stack (byte 40), zeroed.
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
// CHECK:         llvm.getelementptr inbounds %[[ROOT]][128]
// CHECK:         llvm.cmpxchg {{.*}} syncscope("device") acquire acquire
// CHECK:         llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// The pool used up: the failure record, no runtime call.
// CHECK:         llvm.mlir.addressof @__tic_failure
// CHECK-NOT:     llvm.call
// CHECK:         gpu.return
// CHECK:       gpu.func @__tic_pool_collect(%[[R:[^:]*]]: !llvm.ptr) kernel
// CHECK:         %[[ST:.*]] = llvm.getelementptr inbounds %[[R]][128]
// CHECK:         scf.while
// CHECK:           %[[PH:.*]] = llvm.getelementptr inbounds %[[ST]][48]
// CHECK:           llvm.cmpxchg %[[PH]], {{.*}} syncscope("device") acquire acquire
// CHECK:           scf.for
// CHECK:             llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:           %[[FH:.*]] = llvm.getelementptr inbounds %[[ST]][40]
// CHECK:           llvm.cmpxchg %[[FH]], {{.*}} syncscope("device") release monotonic
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

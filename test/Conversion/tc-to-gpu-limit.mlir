// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-outline-tasks --convert-tc-to-gpu | FileCheck %s

// A loop with a limit on a GPU: each thread evaluates the limit once,
// before its grid-stride loop, which stops at min(total, stop) (the launch's
// total is the host's bound, an estimate: snode.pool_bound); each trip
// runs the body on [lin, lin + 1) with the one-trip loop inlined.

snode.tree @root {
  snode.dense @d axes [0, 1] shape [64, 4] { snode.place @x : [f32] }
  snode.place @count : [i32]
}
// CHECK-LABEL: gpu.func @k__par0(
// CHECK-SAME:    %[[ROOT:.*]]: !llvm.ptr, %{{.*}}: i32, %[[TOTAL:.*]]: i64) kernel {
// CHECK:         %[[START:.*]] = arith.addi
// The limit, read on the device, before the loop.
// CHECK:         %[[L:.*]] = snode.load %{{.*}}, @count[0] : i32
// CHECK:         %[[L64:.*]] = arith.extsi %[[L]] : i32 to i64
// CHECK:         %[[F:.*]] = arith.maxsi %{{.*}}, %{{.*}} : i64
// CHECK:         %[[STOP:.*]] = arith.muli %[[F]], %{{.*}} : i64
// CHECK-NOT:     tc.range_end
// CHECK:         %[[N:.*]] = arith.minsi %[[TOTAL]], %[[STOP]] : i64
// CHECK:         scf.for %[[LIN:.*]] = %[[START]] to %[[N]] step %{{.*}} : i64 {
// CHECK-NOT:       scf.while
// CHECK-NOT:       scf.for
// CHECK:           tc.store
// CHECK:         }
// CHECK:         gpu.return
tc.kernel @k(%b: i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%b, %c4) limit {
    %r = snode.root_ptr @root
    %n = snode.load %r, @count[0] : i32
    tc.yield %n : i32
  } {
    %v = arith.constant 1.0 : f32
    tc.store %v, @x[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// -----

// A 1-D loop, unrolled (tc-to-gpu-unroll.mlir): the main loop's last start
// and the rest both stop at the limit.
snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f32] }
  snode.place @count : [i32]
}
// CHECK-LABEL: gpu.func @one__par0(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %[[B:.*]]: i32, %[[TOTAL:.*]]: i64) kernel {
// CHECK:         %[[N:.*]] = arith.minsi %[[TOTAL]], %{{.*}} : i64
// CHECK:         %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : i64
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[LAST]] step
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step
tc.kernel @one(%b: i32) {
  %c0 = arith.constant 0 : i32
  tc.parallel_for (%i) = (%c0) to (%b) limit {
    %r = snode.root_ptr @root
    %n = snode.load %r, @count[0] : i32
    tc.yield %n : i32
  } {
    %v = arith.sitofp %b : i32 to f32
    tc.store %v, @x[%i] : f32
    tc.yield
  }
  tc.return
}

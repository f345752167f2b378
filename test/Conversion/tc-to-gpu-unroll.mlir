// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --tic-privatize-reductions --convert-snode-to-llvm --convert-tc-to-gpu --canonicalize | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm "--convert-tc-to-gpu=unroll=1" --canonicalize | FileCheck %s --check-prefix=ONE

// convert-tc-to-gpu runs a small 1-D body on `unroll` (default 4)
// grid-stride iterations per trip, their statements interleaved so that the
// four loads are issued before the four stores (ptxas does not move loads
// above stores it cannot tell apart), then the remaining iterations one by
// one.
// CHECK-LABEL: gpu.func @copy__par0(
// CHECK:         %[[C4:.*]] = arith.constant 4 : i64
// CHECK:         %[[C3:.*]] = arith.constant 3 : i64
// CHECK:         %[[START:.*]] = arith.addi
// CHECK:         %[[STRIDE:.*]] = arith.muli
// CHECK:         %[[SPAN:.*]] = arith.muli %[[STRIDE]], %[[C4]] : i64
// CHECK:         %[[BACK:.*]] = arith.muli %[[STRIDE]], %[[C3]] : i64
// CHECK:         %[[LAST:.*]] = arith.subi %{{.*}}, %[[BACK]] : i64
// CHECK:         scf.for %{{.*}} = %[[START]] to %[[LAST]] step %[[SPAN]]
// x is not written by the kernel: its loads are invariant (ld.global.nc).
// CHECK-COUNT-4:   llvm.load {{.*}} invariant
// CHECK-NOT:       llvm.load
// CHECK-COUNT-4:   llvm.store
// CHECK:         }
// CHECK:         arith.ceildivsi
// CHECK:         scf.for
// CHECK-COUNT-1:   llvm.load
// CHECK-NOT:       llvm.load
// CHECK:           llvm.store
// CHECK:         gpu.return
// ONE-LABEL: gpu.func @copy__par0(
// ONE:         scf.for
// ONE-COUNT-1:   llvm.load
// ONE-NOT:       scf.for
// ONE:         gpu.return

// A multi-dimensional body: tic-outline-tasks' scf.while over rows around
// an scf.for over the row runs once each on a unit range, so both are
// inlined: the row and the column come straight from the linear number
// (a division and a remainder by the constant extent) and no loop is left
// per element. It is not unrolled (a 2-D stencil ran slower so).
// CHECK-LABEL: gpu.func @grid__par0(
// CHECK-NOT:     arith.ceildivsi
// CHECK:         scf.for
// CHECK-NOT:       scf.while
// CHECK:           arith.divui %{{.*}}, %c32_i64 : i64
// CHECK:           arith.remui %{{.*}}, %c32_i64 : i64
// CHECK-NOT:       scf.for
// CHECK:           llvm.store
// CHECK-NOT:       llvm.store
// CHECK:         }
// CHECK:         gpu.return

// Nor one whose iterations share the thread's private state: its random
// generator, a privatized accumulator.
// CHECK-LABEL: gpu.func @noise__par0(
// CHECK-NOT:     arith.ceildivsi
// CHECK:         gpu.return
// CHECK-LABEL: gpu.func @total__par0(
// CHECK-NOT:     arith.ceildivsi
// CHECK:         gpu.return

// A field the kernel also writes is loaded as usual, the other one through
// the read-only cache.
// CHECK-LABEL: gpu.func @axpy__par0(
// CHECK:         scf.for
// CHECK-DAG:       llvm.load %{{.*}} invariant {alias_scopes = [#[[XS:.*]]],
// CHECK-DAG:       llvm.load %{{[0-9]+}} {alias_scopes = [#[[YS:.*]]],
// CHECK:         gpu.return


snode.tree @root {
  snode.dense @d axes [0] shape [1024] { snode.place @x : [f32] snode.place @y : [f32] }
  snode.dense @g axes [0, 1] shape [32, 32] { snode.place @z : [f32] }
}
tc.kernel @copy() {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1024 : i32
  tc.parallel_for (%i) = (%c0) to (%n) {
    %v = tc.load @x[%i] : f32
    tc.store %v, @y[%i] : f32
    tc.yield
  }
  tc.return
}
tc.kernel @grid() {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 32 : i32
  %f = arith.constant 1.0 : f32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%n, %n) {
    tc.store %f, @z[%i, %j] : f32
    tc.yield
  }
  tc.return
}
tc.kernel @noise() {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1024 : i32
  tc.parallel_for (%i) = (%c0) to (%n) {
    %r = tc.random : f32
    tc.store %r, @x[%i] : f32
    tc.yield
  }
  tc.return
}
tc.kernel @total() -> f32 {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1024 : i32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  tc.parallel_for (%i) = (%c0) to (%n) {
    %v = tc.load @x[%i] : f32
    %o = memref.atomic_rmw addf %v, %s[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %r = memref.load %s[] : memref<f32>
  tc.return %r : f32
}
tc.kernel @axpy() {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1024 : i32
  tc.parallel_for (%i) = (%c0) to (%n) {
    %v = tc.load @x[%i] : f32
    %w = tc.load @y[%i] : f32
    %s = arith.addf %v, %w : f32
    tc.store %s, @y[%i] : f32
    tc.yield
  }
  tc.return
}

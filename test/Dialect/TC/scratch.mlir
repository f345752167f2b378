// RUN: %tic-opt %s | FileCheck %s
// RUN: %tic-opt %s | %tic-opt | FileCheck %s
// RUN: %tic-opt %s -mlir-print-op-generic | %tic-opt | FileCheck %s

// The ops of tic-privatize-scatter's per-thread copies: the thread count,
// the index of the running thread, per-context scratch memory.
// CHECK-LABEL: tc.kernel @k
// CHECK:         %[[T:.*]] = tc.num_threads : i32
// CHECK:         %[[B:.*]] = tc.scratch 4, %{{.*}} : memref<?xf32>
// CHECK:         %[[F:.*]] = tc.scratch 5, %{{.*}} : memref<?xi8>
// CHECK:         tc.parallel_for
// CHECK:           %[[I:.*]] = tc.thread_index : i32
tc.kernel @k(%n: i64) {
  %t = tc.num_threads : i32
  %b = tc.scratch 4, %n : memref<?xf32>
  %f = tc.scratch 5, %n : memref<?xi8>
  %c0 = arith.constant 0 : i32
  tc.parallel_for (%p) = (%c0) to (%t) {
    %i = tc.thread_index : i32
    %ix = arith.index_cast %i : i32 to index
    %one = arith.constant 1 : i8
    memref.store %one, %f[%ix] : memref<?xi8>
    tc.yield
  }
  tc.return
}

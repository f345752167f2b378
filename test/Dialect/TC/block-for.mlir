// RUN: %tic-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: %tic-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | %tic-opt -split-input-file | FileCheck %s

// tc.block_for and tc.block_buffer (made by tic-block-local): the printed
// form parses back, and the verifier rejects misplaced ones.

// CHECK-LABEL: tc.kernel @ok
// CHECK:         tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// CHECK:           %[[B:.*]] = tc.block_buffer : memref<10x6xf32>
// CHECK:           tc.block_for (%[[T0:.*]], %[[T1:.*]]) to (10, 6) {
// CHECK:             memref.store %{{.*}}, %[[B]][%{{.*}}, %{{.*}}] : memref<10x6xf32>
// CHECK:             tc.yield
// CHECK:           }
// CHECK:           tc.block_for (%{{.*}}) to (8) {
// CHECK:             tc.yield
// CHECK:           }
// CHECK:           tc.block_for (%{{.*}}, %{{.*}}) to (%[[B4:.*]], 3) {
// CHECK:             tc.yield
// CHECK:           }
// CHECK:           tc.yield
tc.kernel @ok() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  tc.parallel_for (%b) = (%c0) to (%c4) {
    %buf = tc.block_buffer : memref<10x6xf32>
    tc.block_for (%t0, %t1) to (10, 6) {
      %x = arith.sitofp %t0 : i32 to f32
      %i = arith.index_cast %t0 : i32 to index
      %j = arith.index_cast %t1 : i32 to index
      memref.store %x, %buf[%i, %j] : memref<10x6xf32>
      tc.yield
    }
    tc.block_for (%e) to (8) {
      tc.yield
    }
    // A dynamic extent (a list's length).
    %n = arith.muli %b, %c4 : i32
    tc.block_for (%k, %l) to (%n, 3) {
      tc.yield
    }
    tc.yield
  }
  tc.return
}

// -----

tc.kernel @outside() {
  // expected-error @below {{must be inside a parallel loop or a task}}
  tc.block_for (%t) to (4) {
    tc.yield
  }
  tc.return
}

// -----

tc.kernel @buffer_outside() {
  // expected-error @below {{must be inside a parallel loop or a task}}
  %buf = tc.block_buffer : memref<4xf32>
  tc.return
}

// -----

tc.kernel @nested() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  tc.parallel_for (%b) = (%c0) to (%c4) {
    tc.block_for (%t) to (4) {
      // expected-error @below {{cannot be nested in another tc.block_for}}
      tc.block_for (%u) to (4) {
        tc.yield
      }
      tc.yield
    }
    tc.yield
  }
  tc.return
}

// -----

tc.kernel @empty_extent() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  tc.parallel_for (%b) = (%c0) to (%c4) {
    // expected-error @below {{extents must be in [1, 2^31 - 1], got 0}}
    tc.block_for (%t) to (0) {
      tc.yield
    }
    tc.yield
  }
  tc.return
}

// -----

tc.kernel @dynamic_buffer() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  tc.parallel_for (%b) = (%c0) to (%c4) {
    // expected-error @below {{needs a static shape, the identity layout and the default memory space}}
    %buf = tc.block_buffer : memref<?xf32>
    tc.yield
  }
  tc.return
}

// -----

// The generic form can leave a dynamic extent without its value.
tc.kernel @dynamic_without_value() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  tc.parallel_for (%b) = (%c0) to (%c4) {
    // expected-error @below {{expects one value per dynamic extent}}
    "tc.block_for"() <{extents = array<i64: -9223372036854775808>}> ({
    ^bb0(%k: i32):
      tc.yield
    }) : () -> ()
    tc.yield
  }
  tc.return
}

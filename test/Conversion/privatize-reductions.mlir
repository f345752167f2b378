// Kernel-scope reductions are privatized per task by tic-privatize-reductions:
// the task @k__parN accumulates into an identity-initialized local and
// performs ONE atomic RMW into the captured accumulator when it returns (on
// the CPU: once per chunk). A captured memref with any other use in the task
// (a load, a store, a used atomic result, mixed kinds) keeps its
// per-iteration atomics.
// RUN: %tic-opt %s --tic-lift-control-flow --tic-outline-tasks --tic-privatize-reductions | FileCheck %s
// RUN: %tic-opt %s --tic-cpu-pipeline | FileCheck %s --check-prefix=PIPE
// RUN: %tic-opt %s --tic-lift-control-flow --tic-outline-tasks | FileCheck %s --check-prefix=OFF

// The privatizable loop (2-D, both branches of an if, -= as add, min on
// i32, max on f32): private slots first, in the order of the captures.
// CHECK-LABEL: tc.task @red__par0
// CHECK-NEXT:  ^bb0(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !tc.ndarray<f32, 2>, %[[S:.*]]: memref<f32>, %[[M:.*]]: memref<i32>, %[[X:.*]]: memref<f32>):
// CHECK-NEXT:    %[[PS:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[Z]], %[[PS]][] : memref<f32>
// CHECK-NEXT:    %[[PM:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT:    %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:    memref.store %[[IMAX]], %[[PM]][] : memref<i32>
// CHECK-NEXT:    %[[PX:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    memref.store %[[NINF]], %[[PX]][] : memref<f32>
// The loop body: plain updates of the private locals, no atomics.
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         %[[A0:.*]] = memref.load %[[PS]][] : memref<f32>
// CHECK-NEXT:    %[[A1:.*]] = arith.addf %[[A0]], %{{.*}} : f32
// CHECK-NEXT:    memref.store %[[A1]], %[[PS]][] : memref<f32>
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         %[[M0:.*]] = memref.load %[[PM]][] : memref<i32>
// CHECK-NEXT:    %[[M1:.*]] = arith.minsi %[[M0]], %{{.*}} : i32
// CHECK-NEXT:    memref.store %[[M1]], %[[PM]][] : memref<i32>
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         arith.addf
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         arith.maximumf
// CHECK-NOT:     memref.atomic_rmw
// Before the task returns: exactly one atomic per accumulator.
// CHECK:         %[[RS:.*]] = memref.load %[[PS]][] : memref<f32>
// CHECK-NEXT:    memref.atomic_rmw addf %[[RS]], %[[S]][] : (f32, memref<f32>) -> f32
// CHECK-NEXT:    %[[RM:.*]] = memref.load %[[PM]][] : memref<i32>
// CHECK-NEXT:    memref.atomic_rmw mins %[[RM]], %[[M]][] : (i32, memref<i32>) -> i32
// CHECK-NEXT:    %[[RX:.*]] = memref.load %[[PX]][] : memref<f32>
// CHECK-NEXT:    memref.atomic_rmw maximumf %[[RX]], %[[X]][] : (f32, memref<f32>) -> f32
// CHECK-NEXT:    tc.return
// CHECK-NEXT:  }

// Not privatizable: the atomic's result is used.
// CHECK-LABEL: tc.task @red__par1
// CHECK-NOT:     memref.alloca
// CHECK:         %[[OLD:.*]] = memref.atomic_rmw addf
// CHECK:         tc.ndarray_store %[[OLD]]
// Not privatizable: mixed kinds on one accumulator.
// CHECK-LABEL: tc.task @red__par2
// CHECK-NOT:     memref.alloca
// CHECK:         memref.atomic_rmw addi
// CHECK:         memref.atomic_rmw maxs
// CHECK:         tc.return
// Not privatizable: the accumulator is also read in the loop.
// CHECK-LABEL: tc.task @red__par3
// CHECK-NOT:     memref.alloca
// CHECK:         memref.load
// CHECK:         memref.atomic_rmw addf
// CHECK:         tc.return

// After the whole pipeline: the privatized chunk function has exactly one
// atomicrmw per accumulator, all just before its return.
// PIPE-LABEL: llvm.func internal @red__par0(
// PIPE-NOT:     llvm.atomicrmw
// PIPE:         llvm.atomicrmw fadd
// PIPE-NOT:     llvm.atomicrmw
// PIPE:         llvm.atomicrmw min
// PIPE-NOT:     llvm.atomicrmw
// PIPE:         llvm.atomicrmw fmaximum
// PIPE-NEXT:    llvm.return
// PIPE-NEXT:  }
// PIPE-LABEL: llvm.func internal @red__par1(
// PIPE:         llvm.atomicrmw fadd

// Without the privatization every update is an atomic in the loop body.
// OFF-LABEL: tc.task @red__par0
// OFF-NOT:     memref.alloca
// OFF:         memref.atomic_rmw addf
// OFF:         memref.atomic_rmw mins
// OFF:         memref.atomic_rmw addf
// OFF:         memref.atomic_rmw maximumf
// OFF:         tc.return

tc.kernel @red(%arr: !tc.ndarray<f32, 2>) -> (f32, i32, f32, f32, i32, f32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant 0.0 : f32
  %izero = arith.constant 0 : i32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  %m = memref.alloca() : memref<i32>
  memref.store %c8, %m[] : memref<i32>
  %x = memref.alloca() : memref<f32>
  memref.store %zero, %x[] : memref<f32>
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c4, %c8) {
    %v = tc.ndarray_load %arr[%i, %j] : !tc.ndarray<f32, 2>
    %pos = arith.cmpf ogt, %v, %zero : f32
    cf.cond_br %pos, ^add, ^sub
  ^add:
    %o1 = memref.atomic_rmw addf %v, %s[] : (f32, memref<f32>) -> f32
    %o2 = memref.atomic_rmw mins %j, %m[] : (i32, memref<i32>) -> i32
    tc.yield
  ^sub:
    %nv = arith.negf %v : f32
    %o3 = memref.atomic_rmw addf %nv, %s[] : (f32, memref<f32>) -> f32
    %o4 = memref.atomic_rmw maximumf %v, %x[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  // Used result.
  %t = memref.alloca() : memref<f32>
  memref.store %zero, %t[] : memref<f32>
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %one = arith.constant 1.0 : f32
    %old = memref.atomic_rmw addf %one, %t[] : (f32, memref<f32>) -> f32
    tc.ndarray_store %old, %arr[%c0, %i] : !tc.ndarray<f32, 2>
    tc.yield
  }
  // Mixed kinds.
  %u = memref.alloca() : memref<i32>
  memref.store %izero, %u[] : memref<i32>
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %a = memref.atomic_rmw addi %i, %u[] : (i32, memref<i32>) -> i32
    %b = memref.atomic_rmw maxs %i, %u[] : (i32, memref<i32>) -> i32
    tc.yield
  }
  // A load of the accumulator inside the loop.
  %w = memref.alloca() : memref<f32>
  memref.store %zero, %w[] : memref<f32>
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %cur = memref.load %w[] : memref<f32>
    %o = memref.atomic_rmw addf %cur, %w[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %rs = memref.load %s[] : memref<f32>
  %rm = memref.load %m[] : memref<i32>
  %rx = memref.load %x[] : memref<f32>
  %rt = memref.load %t[] : memref<f32>
  %ru = memref.load %u[] : memref<i32>
  %rw = memref.load %w[] : memref<f32>
  tc.return %rs, %rm, %rx, %rt, %ru, %rw : f32, i32, f32, f32, i32, f32
}

// RUN: %tic-opt %s --tic-validate-access-rules | FileCheck %s
// RUN: %tic-opt %s --tic-validate-access-rules --tic-cpu-pipeline | FileCheck --check-prefix=CPU %s

// tic-validate-access-rules (tic -g): each access to a needs_grad field in a
// kernel with an adjoint is recorded with its element's linear index
// (row-major, components innermost); the CPU lowers the record to an
// atomic or into the state words tic_rt_ad_access_state gives
// (test/Conversion/access-rules-lowering.mlir).

snode.tree @root {
  snode.dense @d axes [0, 1] shape [4, 8] {
    snode.place @v : [f32, f32] {ad.grad = @v.grad}
    snode.place @v.grad : [f32, f32]
    snode.place @w : [f32]
  }
}

// CHECK-LABEL: tc.kernel @k
// CHECK:         %[[I:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:         %[[J:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:         ad.record_access "read" @v[%{{.*}}] {count = 64 : i64, kernel = "k"}
// CHECK-NEXT:    tc.load @v[
// CHECK-NOT:     ad.record_access "read" @w
// CHECK:         ad.record_access "write" @v[%{{.*}}] {count = 64 : i64, kernel = "k"}
// CHECK-NEXT:    tc.store
// CHECK:         ad.record_access "accumulate" @v
// CHECK-NEXT:    tc.atomic_rmw add
// CPU: llvm.call @tic_rt_ad_access_state
// CPU: llvm.atomicrmw _or
tc.kernel @k() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c4, %c8) {
    %a = tc.load @v[%i, %j] {comp = 1 : i64} : f32
    %b = tc.load @w[%i, %j] : f32
    %s = arith.addf %a, %b : f32
    %j1 = arith.addi %j, %c1 : i32
    %jm = arith.remsi %j1, %c8 : i32
    tc.store %s, @v[%i, %jm] : f32
    %o = tc.atomic_rmw add %s, @v[%c0, %c0] {comp = 1 : i64} : f32
    tc.yield
  }
  tc.return
}

// Kernels without an adjoint are not instrumented.
// CHECK-LABEL: tc.kernel @plain
// CHECK-NOT:     ad.record_access
tc.kernel @plain() {
  %c0 = arith.constant 0 : i32
  %x = tc.load @v[%c0, %c0] : f32
  tc.store %x, @v[%c0, %c0] : f32
  tc.return
}

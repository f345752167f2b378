// Compiles a kernel to an object, links it with a minimal stand-in for the
// runtime (chunks of `grain` iterations, so chunks split rows of the 2-D range)
// and checks the results: field stores, ndarray reads, a kernel-scope
// reduction, print and the return value.
// RUN: tic-cpu-emit %s --lower --emit=obj -o %t.o
// RUN: cc %S/Inputs/stub-runtime.c %t.o -o %t.exe
// RUN: %t.exe | FileCheck %s
// CHECK: sum = 385.000000 dim1 = 7
// CHECK: ret 385.000000 expect 385.000000 total 385.000000

snode.tree @root {
  snode.dense @g axes [0, 1] shape [5, 7] { snode.place @u : [f32] }
  snode.place @total : [f32]
}
tc.kernel @fill(%arr: !tc.ndarray<f32, 2>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloca() : memref<f32>
  memref.store %zero, %sum[] : memref<f32>
  tc.parallel_for (%i, %j) = (%c1, %c0) to (%c5, %c7) attributes {grain = 3 : i64} {
    %fi = arith.sitofp %i : i32 to f32
    %fj = arith.sitofp %j : i32 to f32
    %hundred = arith.constant 100.0 : f32
    %a = arith.mulf %fi, %hundred : f32
    %v = arith.addf %a, %fj : f32
    tc.store %v, @u[%i, %j] : f32
    %x = tc.ndarray_load %arr[%i, %j] : !tc.ndarray<f32, 2>
    %c = arith.cmpf ogt, %x, %zero : f32
    cf.cond_br %c, ^pos, ^done
  ^pos:
    %o = memref.atomic_rmw addf %x, %sum[] : (f32, memref<f32>) -> f32
    tc.yield
  ^done:
    tc.yield
  }
  %r = memref.load %sum[] : memref<f32>
  %d1 = tc.ndarray_dim %arr, 1 : !tc.ndarray<f32, 2>
  tc.print "sum = %f dim1 = %d", %r, %d1 : f32, i32
  tc.store %r, @total[] : f32
  tc.return %r : f32
}

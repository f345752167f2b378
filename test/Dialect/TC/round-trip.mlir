// RUN: %tic-opt %s | FileCheck %s
// RUN: %tic-opt %s | %tic-opt | FileCheck %s
// RUN: %tic-opt %s -mlir-print-op-generic | %tic-opt | FileCheck %s

snode.tree @root {
  snode.dense @d axes [0, 1] shape [64, 64] {
    snode.place @u : [f32]
    snode.place @vel : [f32, f32]
  }
  snode.dense @n axes [0] shape [128] { snode.place @cnt : [i32] }
  snode.place @loss : [f32]
}

// CHECK-LABEL: tc.kernel @fields(%{{.*}}: f32, %{{.*}}: i32) -> f32 {
tc.kernel @fields(%s: f32, %k: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  // CHECK: tc.parallel_for (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) {
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c64, %c64) {
    // CHECK: %[[V:.*]] = tc.load @u[%[[I]], %[[J]]] : f32
    %v = tc.load @u[%i, %j] : f32
    // CHECK: tc.load @vel[%[[I]], %[[J]]] {comp = 1 : i64} : f32
    %w = tc.load @vel[%i, %j] {comp = 1} : f32
    %m = arith.mulf %v, %s : f32
    // CHECK: tc.store %{{.*}}, @u[%[[I]], %[[J]]] : f32
    tc.store %m, @u[%i, %j] : f32
    // CHECK: tc.atomic_rmw add %{{.*}}, @loss[] : f32
    %old = tc.atomic_rmw add %w, @loss[] : f32
    // CHECK: tc.atomic_rmw xor %{{.*}}, @cnt[%[[I]]] : i32
    %o2 = tc.atomic_rmw xor %k, @cnt[%i] : i32
    // CHECK: tc.yield
    tc.yield
  }
  // CHECK: tc.load @loss[] : f32
  %l = tc.load @loss[] : f32
  // CHECK: tc.return %{{.*}} : f32
  tc.return %l : f32
}

// Multi-block bodies (serial inner loop with break), loop_config, i64 bounds.
// CHECK-LABEL: tc.kernel @cfg
tc.kernel @cfg(%n: i64) {
  %c0 = arith.constant 0 : i64
  // CHECK: tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) : i64 attributes {block_dim = 128 : i32, grain = 64 : i64} {
  tc.parallel_for (%i) = (%c0) to (%n) : i64 attributes {block_dim = 128 : i32, grain = 64 : i64} {
    %z = arith.constant 0 : i32
    cf.br ^loop(%z : i32)
  ^loop(%k: i32):
    %ten = arith.constant 10 : i32
    %c = arith.cmpi slt, %k, %ten : i32
    cf.cond_br %c, ^body, ^done
  ^body:
    %one = arith.constant 1 : i32
    %k1 = arith.addi %k, %one : i32
    cf.br ^loop(%k1 : i32)
  ^done:
    tc.yield
  }
  // CHECK: tc.parallel_for {{.*}} attributes {serialize}
  tc.parallel_for (%i) = (%c0) to (%n) : i64 attributes {serialize} {
    tc.yield
  }
  tc.return
}

// CHECK-LABEL: tc.kernel @structfor
tc.kernel @structfor() {
  // CHECK: tc.struct_for @u (%{{.*}}, %{{.*}}) {
  tc.struct_for @u (%i, %j) {
    tc.yield
  }
  // CHECK: tc.struct_for @n (%{{.*}}) attributes {parallelize = 4 : i32} {
  tc.struct_for @n (%i) attributes {parallelize = 4 : i32} {
    tc.yield
  }
  tc.return
}

// CHECK-LABEL: tc.kernel @ndarrays(%{{.*}}: !tc.ndarray<f32, 2>, %{{.*}}: !tc.ndarray<i32, 1>)
tc.kernel @ndarrays(%a: !tc.ndarray<f32, 2>, %b: !tc.ndarray<i32, 1>) -> (i32, f32) {
  %c0 = arith.constant 0 : i32
  // CHECK: %[[D:.*]] = tc.ndarray_dim %{{.*}}, 0 : !tc.ndarray<f32, 2>
  %d0 = tc.ndarray_dim %a, 0 : !tc.ndarray<f32, 2>
  // CHECK: tc.ndarray_load %{{.*}}[%{{.*}}, %{{.*}}] : !tc.ndarray<f32, 2>
  %x = tc.ndarray_load %a[%c0, %c0] : !tc.ndarray<f32, 2>
  // CHECK: tc.ndarray_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !tc.ndarray<f32, 2>
  tc.ndarray_store %x, %a[%c0, %d0] : !tc.ndarray<f32, 2>
  // CHECK: tc.ndarray_atomic_rmw max %{{.*}}, %{{.*}}[%{{.*}}] : !tc.ndarray<i32, 1>
  %o = tc.ndarray_atomic_rmw max %d0, %b[%c0] : !tc.ndarray<i32, 1>
  // CHECK: tc.return %{{.*}}, %{{.*}} : i32, f32
  tc.return %o, %x : i32, f32
}

// CHECK-LABEL: tc.kernel @services
tc.kernel @services(%x: f32, %i: i32) {
  // CHECK: tc.random : f32
  %r = tc.random : f32
  // CHECK: tc.random : i32
  %u = tc.random : i32
  // CHECK: tc.print "x = %f i = %d\0A", %{{.*}}, %{{.*}} : f32, i32
  tc.print "x = %f i = %d\n", %x, %i : f32, i32
  // CHECK: tc.print "hello"
  tc.print "hello"
  %c = arith.cmpf olt, %r, %x : f32
  // CHECK: tc.assert %{{.*}}, "r < x"
  tc.assert %c, "r < x"
  %n = arith.constant 8 : i32
  // CHECK: tc.bounds_check %{{.*}}, %{{.*}}, "x", 1
  tc.bounds_check %i, %n, "x", 1
  // Locals as the frontend emits them.
  %s = memref.alloca() : memref<f32>
  memref.store %x, %s[] : memref<f32>
  tc.return
}

// RUN: %tic-opt %s -split-input-file -verify-diagnostics

snode.tree @root {
  snode.dense @d axes [0, 1] shape [8, 8] {
    snode.place @u : [f32]
    snode.place @vel : [f32, f32]
  }
  snode.place @cnt : [i32]
}
tc.kernel @k(%i: i32) {
  // expected-error @+1 {{field 'u' has 2 indices, got 1}}
  %v = tc.load @u[%i] : f32
  tc.return
}

// -----

snode.tree @root { snode.dense @d axes [0] shape [8] { snode.place @vel : [f32, f32] } }
tc.kernel @k(%i: i32) {
  // expected-error @+1 {{component 2 out of range: field 'vel' has 2 components}}
  %v = tc.load @vel[%i] {comp = 2} : f32
  tc.return
}

// -----

snode.tree @root { snode.dense @d axes [0] shape [8] { snode.place @u : [f32] } }
tc.kernel @k(%i: i32) {
  // expected-error @+1 {{type 'f64' does not match component 0 of field 'u' ('f32')}}
  %v = tc.load @u[%i] : f64
  tc.return
}

// -----

tc.kernel @k(%i: i32, %x: f32) {
  // expected-error @+1 {{references unknown field 'nope'}}
  tc.store %x, @nope[%i] : f32
  tc.return
}

// -----

snode.tree @root { snode.place @loss : [f32] }
tc.kernel @k(%x: f32) {
  // expected-error @+1 {{'xor' needs an integer type, got 'f32'}}
  %o = tc.atomic_rmw xor %x, @loss[] : f32
  tc.return
}

// -----

// expected-error @+1 {{result type 'memref<f32>' is not a scalar}}
tc.kernel @k() -> memref<f32> {
  %m = memref.alloca() : memref<f32>
  tc.return
}

// -----

tc.kernel @k(%x: f32) -> i32 {
  // expected-error @+1 {{type 'f32' does not match the kernel result type 'i32'}}
  tc.return %x : f32
}

// -----

tc.kernel @k(%n: i32) {
  %c0 = arith.constant 0 : i32
  tc.parallel_for (%i) = (%c0) to (%n) {
    // expected-error @+1 {{parallel loops cannot be nested}}
    tc.parallel_for (%j) = (%c0) to (%n) {
      tc.yield
    }
    tc.yield
  }
  tc.return
}

// -----

tc.kernel @k(%n: i32) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'block_dim' must be positive}}
  tc.parallel_for (%i) = (%c0) to (%n) attributes {block_dim = 0 : i32} {
    tc.yield
  }
  tc.return
}

// -----

snode.tree @root { snode.dense @d axes [0, 1] shape [8, 8] { snode.place @u : [f32] } }
tc.kernel @k() {
  // expected-error @+1 {{expects 2 induction variables for 'u', got 1}}
  tc.struct_for @u (%i) {
    tc.yield
  }
  tc.return
}

// -----

tc.kernel @k(%a: !tc.ndarray<f32, 2>, %i: i32) {
  // expected-error @+1 {{ndarray of rank 2 needs 2 indices, got 1}}
  %v = tc.ndarray_load %a[%i] : !tc.ndarray<f32, 2>
  tc.return
}

// -----

tc.kernel @k(%a: !tc.ndarray<f32, 2>) {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %d = tc.ndarray_dim %a, 2 : !tc.ndarray<f32, 2>
  tc.return
}

// -----

// expected-error @+1 {{ndarray rank must be in [1, 8], got 0}}
tc.kernel @k(%a: !tc.ndarray<f32, 0>) {
  tc.return
}

// -----

func.func @f() {
  // expected-error @+1 {{expects parent op to be one of 'tc.kernel, tc.task'}}
  tc.return
}

// -----

tc.kernel @k(%n: i32) {
  %c0 = arith.constant 0 : i32
  tc.parallel_for (%i) = (%c0) to (%n) {
    // expected-error @+1 {{expects parent op to be one of 'tc.kernel, tc.task'}}
    tc.return
  }
  tc.return
}

// -----

// expected-error @+1 {{entry block must start with the range (i64 begin, i64 end)}}
tc.task @t {
^bb0(%b: i32, %e: i64):
  tc.return
}

// -----

tc.task @t {
^bb0(%b: i64, %e: i64, %x: f32):
  // expected-error @+1 {{returns values from a task}}
  tc.return %x : f32
}

// -----

tc.task @t {
^bb0(%b: i64, %e: i64, %x: f32):
  tc.return
}
tc.kernel @k(%n: i64, %y: i32) {
  // expected-error @+1 {{value 0 has type 'i32' but task @t expects 'f32'}}
  tc.launch @t(%y) total %n : i32
  tc.return
}

// -----

tc.kernel @k(%n: i64) {
  // expected-error @+1 {{references unknown task @nowhere}}
  tc.launch @nowhere() total %n
  tc.return
}

// -----

tc.task @t {
^bb0(%b: i64, %e: i64, %x: f32):
  tc.return
}
tc.kernel @k(%n: i64) {
  // expected-error @+1 {{passes 0 values to task @t, which captures 1}}
  tc.launch @t() total %n
  tc.return
}

// -----

tc.kernel @k(%n: i64) {
  // expected-error @+1 {{slot must be non-negative, got -1}}
  %b = tc.scratch -1, %n : memref<?xf32>
  tc.return
}

// -----

tc.kernel @k(%n: i64) {
  // expected-error @+1 {{result must be a memref<?xT> with the identity layout, got 'memref<4xf32>'}}
  %b = tc.scratch 0, %n : memref<4xf32>
  tc.return
}

// -----

// A parallel loop's limit: one value of the loop's index type, no writes.
tc.kernel @k(%n: i64) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) limit {
    // expected-error @+1 {{of a 'limit' must yield one value of the loop's index type 'i32'}}
    tc.yield %n : i64
  } {
    tc.yield
  }
  tc.return
}

// -----

tc.kernel @k() {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    // expected-error @+1 {{ends a loop's iteration: it yields no values}}
    tc.yield %c8 : i32
  }
  tc.return
}

// -----

snode.tree @root { snode.place @cnt : [i32] }
tc.kernel @k() {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) limit {
    // expected-error @+1 {{in a parallel loop's 'limit' may not write memory}}
    tc.store %c8, @cnt[] : i32
    tc.yield %c8 : i32
  } {
    tc.yield
  }
  tc.return
}

// -----

// A launch's limit: one i64 (a stop in linear iteration numbers), no writes.
tc.task @t {
^bb0(%b: i64, %e: i64):
  tc.return
}
tc.kernel @k(%n: i32) {
  %c8 = arith.constant 8 : i64
  tc.launch @t() total %c8 limit {
    // expected-error @+1 {{of a launch's 'limit' must yield one i64}}
    tc.yield %n : i32
  }
  tc.return
}

// -----

snode.tree @root { snode.place @cnt : [i32] }
tc.task @t {
^bb0(%b: i64, %e: i64):
  tc.return
}
tc.kernel @k() {
  %c8 = arith.constant 8 : i64
  %c1 = arith.constant 1 : i32
  tc.launch @t() total %c8 limit {
    // expected-error @+1 {{in a parallel loop's 'limit' may not write memory}}
    tc.store %c1, @cnt[] : i32
    tc.yield %c8 : i64
  }
  tc.return
}

// -----

// tc.on_device is host code.
tc.kernel @k() {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    // expected-error @+1 {{is host code: not inside a parallel loop}}
    %d = tc.on_device : i1
    tc.yield
  }
  tc.return
}

// -----

tc.task @t {
^bb0(%b: i64, %e: i64):
  // expected-error @+1 {{is host code: it must be in a tc.kernel}}
  %d = tc.on_device : i1
  tc.return
}

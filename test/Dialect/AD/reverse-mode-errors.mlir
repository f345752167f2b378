// RUN: %tic-opt %s -split-input-file --tic-reverse-mode -verify-diagnostics

snode.tree @root {
  snode.place @loss : [f32] {ad.grad = @loss.grad}
  snode.place @loss.grad : [f32]
  snode.dense @d axes [0] shape [16] {
    snode.place @x : [f32] {ad.grad = @x.grad}
    snode.place @x.grad : [f32]
  }
}
// A local carried across the iterations of a loop that needs reversing
// and whose trip count is not a constant (the adjoint stack has a size).
tc.kernel @carried(%n: i32) attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %s = memref.alloca() {tc.name = "s"} : memref<f32>
    %one = arith.constant 1.0 : f32
    memref.store %one, %s[] : memref<f32>
    // expected-error @+1 {{local variable 's' is assigned across iterations of this serial loop, whose number of iterations is not a compile-time constant}}
    scf.for %j = %c0 to %n step %c1 : i32 {
      %v = memref.load %s[] : memref<f32>
      %x = tc.load @x[%j] : f32
      %m = arith.mulf %v, %x : f32
      memref.store %m, %s[] : memref<f32>
    }
    %r = memref.load %s[] : memref<f32>
    %o = tc.atomic_rmw add %r, @loss[] : f32
    tc.yield
  }
  tc.return
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [16] {
    snode.place @x : [f32] {ad.grad = @x.grad}
    snode.place @x.grad : [f32]
    snode.place @m : [f32] {ad.grad = @m.grad}
    snode.place @m.grad : [f32]
  }
}
tc.kernel @atomic_max() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %x = tc.load @x[%i] : f32
    // expected-error @+1 {{atomic max on the differentiable field @m has no adjoint}}
    %o = tc.atomic_rmw max %x, @m[%c0] : f32
    tc.yield
  }
  tc.return
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [16] {
    snode.place @x : [f32] {ad.grad = @x.grad}
    snode.place @x.grad : [f32]
    snode.place @y : [f32] {ad.grad = @y.grad}
    snode.place @y.grad : [f32]
  }
}
tc.kernel @no_rule() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %x = tc.load @x[%i] : f32
    // expected-error @+1 {{'math.erf' has no derivative}}
    %e = math.erf %x : f32
    tc.store %e, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [16] {
    snode.place @x : [f32] {ad.grad = @x.grad}
    snode.place @x.grad : [f32]
    snode.place @y : [f32] {ad.grad = @y.grad}
    snode.place @y.grad : [f32]
  }
}
tc.kernel @used_atomic() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %x = tc.load @x[%i] : f32
    // expected-error @+1 {{the value an atomic operation returns cannot be used}}
    %o = tc.atomic_rmw add %x, @x[%c0] : f32
    tc.store %o, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// RUN: %tic-opt %s -split-input-file --tic-reverse-mode -verify-diagnostics
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

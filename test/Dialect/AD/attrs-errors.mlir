// RUN: %tic-opt %s -split-input-file -verify-diagnostics

snode.tree @root {
  // expected-error @+1 {{'ad.grad' names @nope, which is not a place of this tree}}
  snode.place @x : [f32] {ad.grad = @nope}
}

// -----

snode.tree @root {
  // expected-error @+1 {{the companion place @x.grad has other components than "x"}}
  snode.place @x : [f32] {ad.grad = @x.grad}
  snode.place @x.grad : [f64]
}

// -----

// expected-error @+1 {{'ad.differentiable' belongs on tc.kernel}}
snode.tree @root attributes {ad.differentiable} {
}

// -----

// expected-error @+1 {{a custom gradient (ad.grad_of) is not itself differentiated}}
tc.kernel @k() attributes {ad.differentiable, ad.grad_of = @j} {
  tc.return
}

// -----

// expected-error @+1 {{unknown ad attribute 'ad.bogus'}}
tc.kernel @k() attributes {ad.bogus} {
  tc.return
}

// -----

tc.kernel @k() {
  %i = arith.constant 0 : i64
  // expected-error @+1 {{'ad.record_access' op kind must be "read", "write" or "accumulate", got "touch"}}
  ad.record_access "touch" @x[%i] {count = 4 : i64, kernel = "k"}
  tc.return
}

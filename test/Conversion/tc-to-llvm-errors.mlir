// RUN: %tic-opt %s --tic-allocate-layout --convert-tc-to-llvm -split-input-file -verify-diagnostics

snode.tree @root { snode.dense @d axes [0] shape [4] { snode.place @u : [f32] } }
tc.kernel @k(%i: i32) -> f32 {
  // expected-error @+1 {{must be lowered by tic-lower-field-access first}}
  %v = tc.load @u[%i] : f32
  tc.return %v : f32
}

// -----

snode.tree @root { snode.dense @d axes [0] shape [4] { snode.place @u : [f32] } }
tc.kernel @k() {
  // expected-error @+1 {{must be lowered by tic-lower-struct-for first}}
  tc.struct_for @u (%i) {
    tc.yield
  }
  tc.return
}

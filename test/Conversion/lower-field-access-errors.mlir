// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access -split-input-file -verify-diagnostics

snode.tree @root {
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [8] { snode.place @u : [f32] }
  }
}
tc.kernel @k(%i: i32) -> f32 {
  // expected-error @+1 {{access to field 'u' under a 'pointer' SNode is not supported yet}}
  %v = tc.load @u[%i] : f32
  tc.return %v : f32
}

// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for -verify-diagnostics

snode.tree @root {
  snode.hash @top axes [0] shape [2] {
    snode.hash @p axes [0] shape [16] {
      snode.dense @d axes [0] shape [8] { snode.place @u : [f32] }
    }
  }
}
tc.kernel @k(%x: f32) {
  // expected-error @+1 {{struct-for over a path with a 'hash' SNode is not supported yet}}
  tc.struct_for @u (%i) {
    tc.yield
  }
  tc.return
}

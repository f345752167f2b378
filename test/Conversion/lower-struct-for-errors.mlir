// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for -verify-diagnostics

// A hash below 2^32 parent cells (counted up to the hash above) is not
// lowerable: the struct-for says which node kind stops it.
snode.tree @root {
  snode.hash @top axes [0] shape [2] {
    snode.dense @d axes [1, 2] shape [65536, 65536] {
      snode.hash @p axes [3] shape [16] { snode.place @u : [f32] }
    }
  }
}
tc.kernel @k(%x: f32) {
  // expected-error @+1 {{struct-for over a path with a 'hash' SNode is not supported yet}}
  tc.struct_for @u (%i, %j, %k, %l) {
    tc.yield
  }
  tc.return
}

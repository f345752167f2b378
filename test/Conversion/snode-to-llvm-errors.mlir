// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm -split-input-file -verify-diagnostics

// A hash below 2^32 parent cells counted from the hash above: its keys
// number them in 32 bits.
snode.tree @root {
  snode.hash @top axes [0] shape [2] {
    snode.dense @d axes [1, 2] shape [65536, 65536] {
      snode.hash @p axes [3] shape [16] { snode.place @u : [f32] }
    }
  }
}
func.func @f(%c: !snode.ptr) -> !snode.ptr {
  // expected-error @+1 {{lowering of this 'hash' SNode is not supported yet (a hash SNode below other SNodes may have at most 2^31 - 1 parent cells, counted up to the nearest hash SNode above it)}}
  %x = snode.get_child %c, @p
  return %x : !snode.ptr
}


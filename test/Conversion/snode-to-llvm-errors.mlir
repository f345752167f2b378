// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm -split-input-file -verify-diagnostics

snode.tree @root {
  snode.hash @top axes [0] shape [2] {
    snode.hash @p axes [0] shape [16] { snode.place @u : [f32] }
  }
}
func.func @f(%c: !snode.ptr) -> !snode.ptr {
  // expected-error @+1 {{lowering of this 'hash' SNode is not supported yet (hash SNodes are children of their tree's root or of dense, pointer and bitmasked SNodes, below at most 2^31 - 1 parent cells)}}
  %x = snode.get_child %c, @p
  return %x : !snode.ptr
}


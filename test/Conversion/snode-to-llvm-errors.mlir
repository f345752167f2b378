// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm -split-input-file -verify-diagnostics

snode.tree @root {
  snode.dense @top axes [0] shape [2] {
    snode.hash @p axes [0] shape [16] { snode.place @u : [f32] }
  }
}
func.func @f(%c: !snode.ptr) -> !snode.ptr {
  // expected-error @+1 {{lowering of a 'hash' SNode below another SNode is not supported yet (hash SNodes are children of their tree's root)}}
  %x = snode.get_child %c, @p
  return %x : !snode.ptr
}


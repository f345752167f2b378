// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm -split-input-file -verify-diagnostics

snode.tree @root {
  snode.hash @p axes [0] shape [16] { snode.place @u : [f32] }
}
func.func @f(%c: !snode.ptr) -> !snode.ptr {
  // expected-error @+1 {{lowering of 'hash' SNodes (or dense SNodes below them) is not supported yet}}
  %x = snode.get_child %c, @p
  return %x : !snode.ptr
}


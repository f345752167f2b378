// RUN: %tic-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// snode.alloc_cell / snode.free_cell: the cells of pointer nodes.
snode.tree @root {
  snode.pointer @p axes [0] shape [4] { snode.place @x : [f32] }
}
// CHECK-LABEL: tc.kernel @k
// CHECK: %[[C:.*]] = snode.alloc_cell @p : !llvm.ptr
// CHECK: snode.free_cell %[[C]], @p : !llvm.ptr
tc.kernel @k() {
  %c = snode.alloc_cell @p : !llvm.ptr
  snode.free_cell %c, @p : !llvm.ptr
  tc.return
}

// -----

snode.tree @root {
  snode.bitmasked @b axes [0] shape [4] { snode.place @x : [f32] }
}
tc.kernel @k() {
  // expected-error @+1 {{needs a pointer SNode, but 'b' is bitmasked}}
  %c = snode.alloc_cell @b : !llvm.ptr
  tc.return
}

// -----

snode.tree @root {
  snode.pointer @p axes [0] shape [4] { snode.place @x : [f32] }
}
func.func @f(%c: !llvm.ptr) {
  // expected-error @+1 {{references unknown SNode 'q'}}
  snode.free_cell %c, @q : !llvm.ptr
  return
}

// RUN: %tic-opt %s --split-input-file --canonicalize | FileCheck %s
// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-snode-access-cse | FileCheck %s --check-prefix=CSE

// snode.is_active on an always-active node is true and has no effect: it
// folds. On a sparse node it reads the SNode structure and stays.
snode.tree @root {
  snode.dense @d axes [0] shape [4] {
    snode.pointer @p axes [0] shape [4] { snode.place @u : [f32] }
  }
}
// CHECK-LABEL: func.func @fold
// CHECK:         %[[T:.*]] = arith.constant true
// CHECK:         %[[S:.*]] = snode.is_active pointer
// CHECK:         return %[[T]], %[[S]] : i1, i1
func.func @fold(%c: !snode.ptr, %i: i32) -> (i1, i1) {
  %a = snode.is_active dense %c, @d[%i] : i32
  %b = snode.is_active pointer %c, @p[%i] : i32
  return %a, %b : i1, i1
}

// -----

// snode.deactivate writes the SNode structure: in a kernel that deactivates,
// no lookup of a sparse node leaves the loop or merges with another, while
// the dense lookups (no effect) still do.
snode.tree @root {
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [8] { snode.place @u : [f32] }
  }
}
// CSE-LABEL: tc.kernel @clear
// CSE:         snode.get_child
// CSE:         tc.parallel_for
// CSE:         snode.lookup pointer
// CSE:         snode.deactivate pointer
// CSE:         snode.lookup pointer
// CSE:         tc.yield
tc.kernel @clear(%k: i32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %r = snode.root_ptr @root
    %g = snode.get_child %r, @p
    %a = snode.lookup pointer %g, @p[%k] : i32
    snode.deactivate pointer %g, @p[%i] : i32
    %b = snode.lookup pointer %g, @p[%k] : i32
    tc.yield
  }
  tc.return
}

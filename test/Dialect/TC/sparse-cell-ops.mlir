// RUN: %tic-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// tc.is_active / tc.activate / tc.deactivate name a container and pass its
// own cell indices.
snode.tree @root {
  snode.dense @d axes [0] shape [4] {
    snode.bitmasked @b axes [0] shape [8] { snode.place @x : [f32] }
  }
}
// CHECK-LABEL: tc.kernel @k
// CHECK: %{{.*}} = tc.is_active @b[%{{.*}}] : i1
// CHECK: tc.is_active @d[%{{.*}}] : i1
// CHECK: tc.activate @b[%{{.*}}]
// CHECK: tc.deactivate @b[%{{.*}}]
tc.kernel @k(%i: i32) -> i1 {
  %a = tc.is_active @b[%i] : i1
  %d = tc.is_active @d[%i] : i1
  tc.activate @b[%i]
  tc.deactivate @b[%i]
  tc.return %a : i1
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [4] { snode.place @x : [f32] }
}
tc.kernel @k(%i: i32) {
  // expected-error @+1 {{needs a sparse SNode, but 'd' is dense}}
  tc.activate @d[%i]
  tc.return
}

// -----

snode.tree @root {
  snode.bitmasked @b axes [0, 1] shape [4, 4] { snode.place @x : [f32] }
}
tc.kernel @k(%i: i32) {
  // expected-error @+1 {{SNode 'b' has 2 cell indices, got 1}}
  tc.deactivate @b[%i]
  tc.return
}

// -----

snode.tree @root {
  snode.bitmasked @b axes [0] shape [4] { snode.place @x : [f32] }
}
tc.kernel @k(%i: i32) -> i1 {
  // expected-error @+1 {{references unknown SNode 'x'}}
  %a = tc.is_active @x[%i] : i1
  tc.return %a : i1
}

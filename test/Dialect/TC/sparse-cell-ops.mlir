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

// -----

// tc.append / tc.length name a dynamic node and pass the indices of one of
// its lists (its cell indices without its own, last axis).
snode.tree @root {
  snode.dense @blk axes [0] shape [4] {
    snode.dynamic @dl axes [1] shape [16] attributes {chunk = 4 : i64} {
      snode.place @x : [i32]
    }
  }
}
// CHECK-LABEL: tc.kernel @lists
// CHECK: %{{.*}} = tc.append @dl[%{{.*}}] : i32
// CHECK: %{{.*}} = tc.length @dl[%{{.*}}] : i32
tc.kernel @lists(%i: i32) -> i32 {
  %k = tc.append @dl[%i] : i32
  %n = tc.length @dl[%i] : i32
  tc.return %n : i32
}

// -----

snode.tree @root {
  snode.pointer @p axes [0] shape [4] { snode.place @x : [f32] }
}
tc.kernel @k(%i: i32) -> i32 {
  // expected-error @+1 {{needs a dynamic SNode, but 'p' is pointer}}
  %k = tc.append @p[] : i32
  tc.return %k : i32
}

// -----

snode.tree @root {
  snode.dense @blk axes [0] shape [4] {
    snode.dynamic @dl axes [1] shape [16] { snode.place @x : [i32] }
  }
}
tc.kernel @k(%i: i32) -> i32 {
  // expected-error @+1 {{a list of SNode 'dl' has 1 indices, got 2}}
  %n = tc.length @dl[%i, %i] : i32
  tc.return %n : i32
}

// -----

// tc.hash_entries / tc.hash_entry: the entries of a hash node.
snode.tree @root {
  snode.hash @h axes [0, 1] shape [4, 4] { snode.place @x : [f32] }
}
// CHECK-LABEL: tc.kernel @entries
// CHECK: %{{.*}} = tc.hash_entries @h : i32
// CHECK: %{{.*}}, %{{.*}}:2 = tc.hash_entry @h[%{{.*}}] : i1, i32, i32
tc.kernel @entries(%e: i32) -> i32 {
  %n = tc.hash_entries @h : i32
  %a:3 = tc.hash_entry @h[%e] : i1, i32, i32
  tc.return %n : i32
}

// -----

snode.tree @root {
  snode.hash @h axes [0, 1] shape [4, 4] { snode.place @x : [f32] }
}
tc.kernel @k(%e: i32) -> i1 {
  // expected-error @+1 {{hash SNode 'h' has 2 key slots (its axes, and its parent's cell below a node), got 1 indices}}
  %a:2 = tc.hash_entry @h[%e] : i1, i32
  tc.return %a#0 : i1
}

// -----

// Below a dense node, a hash entry's key also numbers its parent's cell.
snode.tree @root {
  snode.dense @d axes [0] shape [3] {
    snode.hash @h axes [1] shape [4] { snode.place @x : [f32] }
  }
}
// CHECK-LABEL: tc.kernel @nested
// CHECK: %{{.*}}, %{{.*}}:2 = tc.hash_entry @h[%{{.*}}] : i1, i32, i32
tc.kernel @nested(%e: i32) -> i1 {
  %a:3 = tc.hash_entry @h[%e] : i1, i32, i32
  tc.return %a#0 : i1
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [3] {
    snode.hash @h axes [1] shape [4] { snode.place @x : [f32] }
  }
}
tc.kernel @k(%e: i32) -> i1 {
  // expected-error @+1 {{hash SNode 'h' has 2 key slots (its axes, and its parent's cell below a node), got 1 indices}}
  %a:2 = tc.hash_entry @h[%e] : i1, i32
  tc.return %a#0 : i1
}

// -----

snode.tree @root {
  snode.pointer @p axes [0] shape [4] { snode.place @x : [f32] }
}
tc.kernel @k() -> i32 {
  // expected-error @+1 {{needs a hash SNode, but 'p' is pointer}}
  %n = tc.hash_entries @p : i32
  tc.return %n : i32
}

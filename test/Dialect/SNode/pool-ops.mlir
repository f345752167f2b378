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
  // expected-error @+1 {{needs a pointer, dynamic or hash SNode, but 'b' is bitmasked}}
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

// -----

// snode.append / snode.length on the list of a dynamic node; its chunks
// come from its pool.
snode.tree @root {
  snode.dynamic @dl axes [0] shape [64] attributes {chunk = 8 : i64} {
    snode.place @x : [f32]
  }
}
// CHECK-LABEL: tc.kernel @k
// CHECK: %{{.*}} = snode.append %{{.*}}, @dl : i32
// CHECK: %{{.*}} = snode.length %{{.*}}, @dl : i32
// CHECK: snode.alloc_cell @dl : !llvm.ptr
tc.kernel @k() -> i32 {
  %r = snode.root_ptr @root
  %c = snode.get_child %r, @dl
  %k = snode.append %c, @dl : i32
  %n = snode.length %c, @dl : i32
  %p = snode.alloc_cell @dl : !llvm.ptr
  tc.return %n : i32
}

// -----

snode.tree @root {
  snode.pointer @p axes [0] shape [4] { snode.place @x : [f32] }
}
tc.kernel @k() -> i32 {
  %r = snode.root_ptr @root
  %c = snode.get_child %r, @p
  // expected-error @+1 {{needs a dynamic SNode, but 'p' is pointer}}
  %k = snode.append %c, @p : i32
  tc.return %k : i32
}

// -----

// snode.pool_view and snode.hash_entry: the entries of a hash node's pool.
snode.tree @root {
  snode.hash @h axes [0] shape [8] { snode.place @x : [f32] }
}
// CHECK-LABEL: tc.kernel @view
// CHECK: %{{.*}}, %{{.*}} = snode.pool_view @h : !llvm.ptr, i32
// CHECK: %{{.*}}, %{{.*}} = snode.hash_entry %{{.*}}, @h[%{{.*}}] : !llvm.ptr -> i1, i32
tc.kernel @view(%e: i32) -> i1 {
  %b, %n = snode.pool_view @h : !llvm.ptr, i32
  %a, %k = snode.hash_entry %b, @h[%e] : !llvm.ptr -> i1, i32
  tc.return %a : i1
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [8] { snode.place @x : [f32] }
}
tc.kernel @k() -> i32 {
  // expected-error @+1 {{needs a pointer, dynamic or hash SNode, but 'd' is dense}}
  %b, %n = snode.pool_view @d : !llvm.ptr, i32
  tc.return %n : i32
}

// -----

// snode.hash_maintain: a root-level hash table follows its pool's live
// entries.
snode.tree @root {
  snode.hash @h axes [0] shape [8] { snode.place @x : [f32] }
}
// CHECK-LABEL: tc.kernel @grow
// CHECK: snode.hash_maintain %{{.*}}, @h
tc.kernel @grow() {
  %r = snode.root_ptr @root
  %t = snode.get_child %r, @h
  snode.hash_maintain %t, @h
  tc.return
}

// -----

// Tables of hash nodes below other nodes have their own maintenance.
snode.tree @root {
  snode.dense @d axes [0] shape [2] {
    snode.hash @h axes [1] shape [8] { snode.place @x : [f32] }
  }
}
tc.kernel @grow() {
  %r = snode.root_ptr @root
  %t = snode.get_child %r, @h
  // expected-error @+1 {{hash SNode 'h' is below another node: its tables are kept by snode.hash_maintain_tables}}
  snode.hash_maintain %t, @h
  tc.return
}

// -----

snode.tree @root {
  snode.pointer @p axes [0] shape [8] { snode.place @x : [f32] }
}
tc.kernel @grow() {
  %r = snode.root_ptr @root
  %t = snode.get_child %r, @p
  // expected-error @+1 {{needs a hash SNode, but 'p' is pointer}}
  snode.hash_maintain %t, @p
  tc.return
}

// -----

// snode.hash_maintain_tables and snode.hash_block: the tables of a hash
// node below another node.
snode.tree @root {
  snode.dense @d axes [0] shape [2] {
    snode.hash @h axes [1] shape [8] { snode.place @x : [f32] }
  }
}
// CHECK-LABEL: func.func @tables
// CHECK: snode.hash_maintain_tables @h {grow}
// CHECK: snode.hash_maintain_tables @h
// CHECK: snode.hash_block @h, %{{.*}}, %{{.*}} : !llvm.ptr -> !llvm.ptr
func.func @tables(%owner: !llvm.ptr, %bytes: i64) -> !llvm.ptr {
  snode.hash_maintain_tables @h {grow}
  snode.hash_maintain_tables @h
  %b = snode.hash_block @h, %owner, %bytes : !llvm.ptr -> !llvm.ptr
  return %b : !llvm.ptr
}

// -----

snode.tree @root {
  snode.hash @h axes [0] shape [8] { snode.place @x : [f32] }
}
tc.kernel @tables() {
  // expected-error @+1 {{hash SNode 'h' is a child of its tree's root: its table is kept by snode.hash_maintain}}
  snode.hash_maintain_tables @h
  tc.return
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [2] {
    snode.pointer @p axes [1] shape [8] { snode.place @x : [f32] }
  }
}
func.func @tables(%owner: !llvm.ptr, %bytes: i64) -> !llvm.ptr {
  // expected-error @+1 {{needs a hash SNode, but 'p' is pointer}}
  %b = snode.hash_block @p, %owner, %bytes : !llvm.ptr -> !llvm.ptr
  return %b : !llvm.ptr
}

// -----

// snode.pool_bound: the host's bound of a pool's count.
snode.tree @root {
  snode.hash @h axes [0] shape [4] { snode.place @x : [f32] }
}
// CHECK-LABEL: tc.kernel @bound
// CHECK: %{{.*}} = snode.pool_bound @h : i32
tc.kernel @bound() {
  %n = snode.pool_bound @h : i32
  tc.return
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [4] { snode.place @x : [f32] }
}
tc.kernel @k() {
  // expected-error @+1 {{needs a pointer, dynamic or hash SNode, but 'd' is dense}}
  %n = snode.pool_bound @d : i32
  tc.return
}

// RUN: %tic-opt %s -split-input-file -verify-diagnostics

snode.tree @root {
  // expected-error @+1 {{axes must be sorted and unique}}
  snode.dense @a axes [1, 0] shape [4, 4] { snode.place @u : [f32] }
}

// -----

snode.tree @root {
  // expected-error @+1 {{extent along axis 0 must be positive, got 0}}
  snode.dense @a axes [0] shape [0] { snode.place @u : [f32] }
}

// -----

snode.tree @root {
  // expected-error @+1 {{has 2 axes but 1 extents}}
  snode.dense @a axes [0, 1] shape [4] { snode.place @u : [f32] }
}

// -----

snode.tree @root {
  // expected-error @+1 {{must contain at least one child SNode or place}}
  snode.dense @a axes [0] shape [4] {
  }
}

// -----

snode.tree @root {
  // expected-error @+1 {{component type 'vector<3xf32>' is not a scalar}}
  snode.place @u : [vector<3xf32>]
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
  // expected-error @+1 {{redefines SNode or field name 'u'}}
  snode.dense @b axes [0] shape [4] { snode.place @u : [f32] }
}

// -----

snode.tree @root {
  // expected-error @+1 {{dynamic SNodes have exactly one axis}}
  snode.dynamic @d axes [0, 1] shape [4, 4] { snode.place @u : [f32] }
}

// -----

snode.tree @root {
  snode.dense @a axes [1] shape [4] {
    // expected-error @+1 {{the axis of a dynamic SNode must be the last one}}
    snode.dynamic @d axes [0] shape [4] { snode.place @u : [f32] }
  }
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] {
    // expected-error @+1 {{the axis of a dynamic SNode must not be split by an ancestor}}
    snode.dynamic @d axes [0] shape [4] { snode.place @u : [f32] }
  }
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] {
    // expected-error @+1 {{dynamic SNodes may only hold places}}
    snode.dynamic @d axes [0] shape [4] {
      snode.dense @e axes [0] shape [4] { snode.place @u : [f32] }
    }
  }
}

// -----

snode.tree @root {
  // expected-error @+1 {{needs 'bits' of 8, 16, 32 or 64}}
  snode.bit_struct @b axes [] shape [] attributes {bits = 12} { snode.place @u : [i32] }
}

// -----

snode.tree @root {
  snode.dense @a axes [1] shape [4] {
    // expected-error @+1 {{index space of field 'u' skips axis 0}}
    snode.place @u : [f32]
  }
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] {
    // expected-error @+1 {{is not allowed inside an SNode}}
    %c = arith.constant 0 : i32
  }
}

// -----

func.func @f() {
  // expected-error @+1 {{references unknown snode.tree 'nope'}}
  %r = snode.root_ptr @nope
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%i: i32) {
  // expected-error @+1 {{SNode 'a' does not split axis 1}}
  %x = snode.index_extract %i, @a[1] below 1 : i32
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0, 1] shape [4, 4] { snode.place @u : [f32] }
}
func.func @f(%i: i32) {
  // expected-error @+1 {{expects 2 indices for SNode 'a', got 1}}
  %x = snode.linearize @a(%i) : i32
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr) {
  // expected-error @+1 {{component 1 out of range: field 'u' has 1 components}}
  %x = snode.place_ptr %p, @u[1] : !llvm.ptr
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr) {
  // expected-error @+1 {{result must be !llvm.ptr}}
  %x = snode.place_ptr %p, @u[0] : i64
  return
}

// -----

func.func @f(%p: !snode.ptr) {
  // expected-error @+1 {{references unknown SNode 'zz'}}
  %x = snode.get_child %p, @zz
  return
}

// -----

snode.tree @root {
  snode.pointer @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr, %i: i32) {
  // expected-error @+1 {{says 'dense' but @a is a 'pointer' SNode}}
  %x = snode.lookup dense %p, @a[%i] : i32
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr) {
  // expected-error @+1 {{type 'i32' does not match component 0 of field 'u' ('f32')}}
  %x = snode.load %p, @u[0] : i32
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr, %v: f32) {
  // expected-error @+1 {{component 2 out of range: field 'u' has 1 components}}
  snode.store %v, %p, @u[2] : f32
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr, %v: f32) {
  // expected-error @+1 {{references unknown field 'w'}}
  %o = snode.atomic_rmw add %v, %p, @w[0] : f32
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr, %i: i32) {
  // expected-error @+1 {{cannot deactivate a cell of a 'dense' SNode: its cells are always active}}
  snode.deactivate dense %p, @a[%i] : i32
  return
}

// -----

snode.tree @root {
  snode.bitmasked @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr, %i: i32) -> i1 {
  // expected-error @+1 {{says 'pointer' but @a is a 'bitmasked' SNode}}
  %x = snode.is_active pointer %p, @a[%i] : i32
  return %x : i1
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @v : [f32, f32] }
  snode.dense @b axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%p: !snode.ptr, %x: f32) {
  // expected-error @+1 {{fields of different cells}}
  snode.atomic_add_fields (%x, %x), %p, [@v, @u] [1, 0]
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @v : [f32, f32] }
}
func.func @f(%p: !snode.ptr, %x: f32) {
  // expected-error @+1 {{needs at least 2 values}}
  snode.atomic_add_fields (%x), %p, [@v] [0]
  return
}

// -----

snode.tree @root {
  snode.dense @a axes [0] shape [4] { snode.place @u : [f32] }
}
func.func @f(%base: !llvm.ptr, %p: !snode.ptr) -> i32 {
  // expected-error @+1 {{needs a hash SNode, but 'a' is dense}}
  %e = snode.hash_entry_index %base, %p, @a : !llvm.ptr -> i32
  return %e : i32
}

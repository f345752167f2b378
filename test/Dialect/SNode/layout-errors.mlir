// RUN: %tic-opt %s -split-input-file -verify-diagnostics

// The verifier checks a recorded layout (tic-allocate-layout) fits.

snode.buffer @tic.root size 16 align 4
// expected-error @below {{does not fit in buffer @tic.root (offset 8, size 12, align 4; buffer size 16, align 4)}}
snode.tree @t attributes {align = 4 : i64, buffer = @tic.root, offset = 8 : i64, size = 12 : i64} {
  snode.place @a : [i32] {component_offsets = array<i64: 0>, offset = 0 : i64}
}

// -----

// expected-error @below {{is allocated in unknown snode.buffer @nowhere}}
snode.tree @t attributes {align = 4 : i64, buffer = @nowhere, offset = 0 : i64, size = 4 : i64} {
  snode.place @a : [i32] {component_offsets = array<i64: 0>, offset = 0 : i64}
}

// -----

snode.buffer @tic.root size 16 align 4
// expected-error @below {{needs all of 'buffer', 'offset', 'size' and 'align' once allocated}}
snode.tree @t attributes {buffer = @tic.root, offset = 0 : i64} {
  snode.place @a : [i32] {component_offsets = array<i64: 0>, offset = 0 : i64}
}

// -----

snode.tree @t {
  // expected-error @below {{has a recorded layout, but its tree has none}}
  snode.place @a : [i32] {component_offsets = array<i64: 0>, offset = 0 : i64}
}

// -----

snode.buffer @tic.root size 16 align 4
snode.tree @t attributes {align = 4 : i64, buffer = @tic.root, offset = 0 : i64, size = 8 : i64} {
  snode.place @a : [i32] {component_offsets = array<i64: 0>, offset = 0 : i64}
  // expected-error @below {{overlaps a sibling in the cell of snode.tree}}
  snode.place @b : [i16, i16] {component_offsets = array<i64: 0, 2>, offset = 0 : i64}
}

// -----

snode.buffer @tic.root size 16 align 4
snode.tree @t attributes {align = 4 : i64, buffer = @tic.root, offset = 0 : i64, size = 4 : i64} {
  // expected-error @below {{component 0 at offset 2 is not aligned to its size 4}}
  snode.place @a : [i32] {component_offsets = array<i64: 2>, offset = 0 : i64}
}

// -----

snode.buffer @tic.root size 16 align 4
snode.tree @t attributes {align = 4 : i64, buffer = @tic.root, offset = 0 : i64, size = 4 : i64} {
  // expected-error @below {{has overlapping components}}
  snode.place @a : [i16, i16] {component_offsets = array<i64: 0, 0>, offset = 0 : i64}
}

// -----

snode.buffer @tic.root size 64 align 4
snode.tree @t attributes {align = 4 : i64, buffer = @tic.root, offset = 0 : i64, size = 16 : i64} {
  // expected-error @below {{bytes [0, 20) do not fit in the parent's cell of 16 bytes}}
  snode.dense @d axes [0] shape [5] attributes {cell_align = 4 : i64, cell_size = 4 : i64, offset = 0 : i64} {
    snode.place @a : [i32] {component_offsets = array<i64: 0>, offset = 0 : i64}
  }
}

// -----

snode.buffer @tic.root size 64 align 8
snode.tree @t attributes {align = 4 : i64, buffer = @tic.root, offset = 0 : i64, size = 16 : i64} {
  // expected-error @below {{offset 0 (alignment 8) is not aligned inside a cell aligned to 4}}
  snode.place @a : [f64] {component_offsets = array<i64: 0>, offset = 0 : i64}
}

// -----

snode.buffer @tic.root size 64 align 4
snode.tree @t attributes {align = 4 : i64, buffer = @tic.root, offset = 0 : i64, size = 16 : i64} {
  // expected-error @below {{has no recorded layout, but its tree has one}}
  snode.dense @d axes [0] shape [4] {
    snode.place @a : [i32]
  }
}

// -----

// expected-error @below {{size 10 must be a non-negative multiple of the alignment}}
snode.buffer @tic.root size 10 align 4

// -----

// expected-error @below {{alignment must be a power of two, got 3}}
snode.buffer @tic.root size 12 align 3

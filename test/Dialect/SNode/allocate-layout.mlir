// RUN: %tic-opt %s --split-input-file --tic-allocate-layout | FileCheck %s
// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-allocate-layout | FileCheck %s
// RUN: %tic-opt %s --split-input-file --tic-allocate-layout | %tic-opt --split-input-file --verify-roundtrip | FileCheck %s --check-prefix=ROUNDTRIP

// tic-allocate-layout records the layout once, in the IR: a buffer, each
// tree's place in it, each container's cell and each place's element. The
// second RUN line shows that it keeps a layout it finds (the same output).

// CHECK-LABEL: module
// CHECK: snode.buffer @tic.root size 2112 align 8
// CHECK: snode.tree @t attributes {align = 8 : i64, buffer = @tic.root, offset = 0 : i64, size = 2104 : i64}
// u (f32) and x ([f32, f32, f32]) share cells of 16 bytes: 8x8 cells, 1024
// bytes per block, 2 blocks.
// CHECK: snode.dense @blk axes [0] shape [2] attributes {cell_align = 4 : i64, cell_size = 1024 : i64, offset = 0 : i64}
// CHECK: snode.dense @cell axes [0, 1] shape [8, 8] attributes {cell_align = 4 : i64, cell_size = 16 : i64, offset = 0 : i64}
// CHECK: snode.place @u : [f32] {component_offsets = array<i64: 0>, offset = 0 : i64}
// CHECK: snode.place @x : [f32, f32, f32] {component_offsets = array<i64: 0, 4, 8>, offset = 4 : i64}
// w's element {i8, f64} is padded: the f64 at 8, 16 bytes, aligned to 8; the
// 2048 bytes of blk come first.
// CHECK: snode.dense @vd axes [0] shape [3] attributes {cell_align = 8 : i64, cell_size = 16 : i64, offset = 2048 : i64}
// CHECK: snode.place @w : [i8, f64] {component_offsets = array<i64: 0, 8>, offset = 0 : i64}
// CHECK: snode.place @loss : [f64] {component_offsets = array<i64: 0>, offset = 2096 : i64}
// The second tree follows the first in the buffer.
// CHECK: snode.tree @s attributes {align = 1 : i64, buffer = @tic.root, offset = 2104 : i64, size = 1 : i64}
// ROUNDTRIP: snode.buffer @tic.root size 2112 align 8
snode.tree @t {
  snode.dense @blk axes [0] shape [2] {
    snode.dense @cell axes [0, 1] shape [8, 8] {
      snode.place @u : [f32]
      snode.place @x : [f32, f32, f32]
    }
  }
  snode.dense @vd axes [0] shape [3] {
    snode.place @w : [i8, f64]
  }
  snode.place @loss : [f64]
}
snode.tree @s {
  snode.place @flag : [i1]
}

// -----

// A tree added to a module whose other tree has a layout goes after it; the
// recorded layout is kept as it is (@old at 64..68); @new (4 x i64, 32 bytes)
// starts at the next multiple of 8 and the buffer grows to its end.
// CHECK-LABEL: module
// CHECK: snode.buffer @tic.root size 104 align 8
// CHECK: snode.tree @old attributes {align = 4 : i64, buffer = @tic.root, offset = 64 : i64, size = 4 : i64}
// CHECK: snode.tree @new attributes {align = 8 : i64, buffer = @tic.root, offset = 72 : i64, size = 32 : i64}
snode.buffer @tic.root size 68 align 4
snode.tree @old attributes {align = 4 : i64, buffer = @tic.root, offset = 64 : i64, size = 4 : i64} {
  snode.place @a : [i32] {component_offsets = array<i64: 0>, offset = 0 : i64}
}
snode.tree @new {
  snode.dense @d axes [0] shape [4] {
    snode.place @b : [i64]
  }
}

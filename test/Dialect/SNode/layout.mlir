// RUN: %tic-opt %s --tic-allocate-layout --tic-print-snode-layout -o /dev/null | FileCheck %s

// AoS: u (f32) and x (vec3 f32) interleaved in 8x8 leaf cells of 4x4 blocks;
// SoA: v in its own 1-D dense; a 0-D f64 placed under the root; a second tree.
snode.tree @root {
  snode.dense @blk axes [0, 1] shape [4, 4] {
    snode.dense @cell axes [0, 1] shape [8, 8] {
      snode.place @u : [f32]
      snode.place @x : [f32, f32, f32]
    }
  }
  snode.dense @vd axes [0] shape [10] {
    snode.place @v : [i8]
    snode.place @w : [f64, i16]
  }
  snode.place @loss : [f64]
}
snode.tree @second {
  snode.place @flag : [i1]
}

// cell: u at 0, x at 4 (12 bytes) -> 16; 64 cells -> 1024 per block;
// 16 blocks -> 16384. vd cell: v at 0, w element {f64 at 0, i16 at 8} = 16,
// aligned to 8 -> w at 8, cell 24, 10 cells = 240 at 16384; loss at 16624.
// CHECK: root_size 16640 root_align 8
// CHECK: tree @root buffer @tic.root offset 0 size 16632 align 8
// CHECK: tree @second buffer @tic.root offset 16632 size 1 align 1
// CHECK: node @blk dense depth 0 axes [0, 1] shape [4, 4] cell_size 1024 cell_align 4 offset 0 byte_strides [4096, 1024] cell_index_shape [4, 4]
// CHECK: node @cell dense depth 1 axes [0, 1] shape [8, 8] cell_size 16 cell_align 4 offset 0 byte_strides [128, 16] cell_index_shape [32, 32]
// CHECK: node @vd dense depth 0 axes [0] shape [10] cell_size 24 cell_align 8 offset 16384
// CHECK: place @u components [f32] shape [32, 32] element_size 4 offset_in_cell 0 component_offsets [0] base 0 levels [@blk below [8, 8], @cell below [1, 1]]
// CHECK: place @x components [f32, f32, f32] shape [32, 32] element_size 12 offset_in_cell 4 component_offsets [0, 4, 8] base 4 levels
// CHECK: place @v components [i8] shape [10] element_size 1 offset_in_cell 0 component_offsets [0] base 16384 strides [24] levels [@vd below [1]]
// CHECK: place @w components [f64, i16] shape [10] element_size 16 offset_in_cell 8 component_offsets [0, 8] base 16392 strides [24]
// CHECK: place @loss components [f64] shape [] element_size 8 offset_in_cell 16624 component_offsets [0] base 16624 strides [] levels []
// CHECK: place @flag components [i1] shape [] element_size 1 offset_in_cell 0 component_offsets [0] base 16632

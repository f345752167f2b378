// RUN: %tic-opt %s --tic-allocate-layout | FileCheck %s --check-prefix=LAYOUT
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s

// The paper's Fig. 6 voxel: a 2-bit category, then a velocity of three
// quant.float(exp: 6, frac: 8) sharing one exponent: the digits at
// [2, 26), the exponent at [26, 32).
snode.tree @root {
  snode.dense @d axes [0] shape [16] {
    snode.bit_struct @voxel axes [] shape [] attributes {bits = 32} {
      snode.place @cat : [i32] {quant = [#bits.quant<uint, 2>]}
      snode.place @v : [f32, f32, f32] {quant = [#bits.quant<float, 6, 8>, #bits.quant<float, 6, 8>, #bits.quant<float, 6, 8>], shared_exponent}
    }
  }
}
// LAYOUT: snode.place @cat : [i32] {bit_offsets = array<i64: 0>
// LAYOUT: snode.place @v : [f32, f32, f32] {bit_offsets = array<i64: 2, 10, 18>, component_offsets = array<i64: 0, 0, 0>, exponent_offset = 26 : i64, offset = 0 : i64

// A component reads its digits and the shared exponent.
// CHECK-LABEL: func.func @load(
// CHECK:       %[[W:.*]] = llvm.load
// CHECK-DAG:   %[[D:.*]] = bits.extract %[[W]] {offset = 10 : i64, width = 8 : i64} : i32 -> i32
// CHECK-DAG:   %[[E:.*]] = bits.extract %[[W]] {offset = 26 : i64, width = 6 : i64} : i32 -> i32
// CHECK:       bits.decode_shared %[[E]], %[[D]] {exp = 6 : i64, frac = 8 : i64, is_signed} : f32
func.func @load(%cell: !snode.ptr) -> f32 {
  %x = snode.load %cell, @v[1] : f32
  return %x : f32
}

// A store to one component re-encodes the group inside the loop: the
// siblings decoded from the word being replaced, one encode_shared, the
// three digit fields and the exponent inserted; the category is kept.
// CHECK-LABEL: func.func @store_one(
// CHECK:       scf.while (%[[OLD:.*]] = %{{.*}}) : (i32) -> i32 {
// CHECK-COUNT-2: bits.decode_shared
// CHECK:         %[[E:.*]], %[[D:.*]]:3 = bits.encode_shared %{{.*}}, %{{.*}}, %{{.*}} {exp = 6 : i64, frac = 8 : i64, is_signed} : f32, f32, f32 -> i32, i32, i32
// CHECK:         bits.insert %[[D]]#0, %[[OLD]] {offset = 2 : i64, width = 8 : i64}
// CHECK:         bits.insert %[[D]]#1, %{{.*}} {offset = 10 : i64, width = 8 : i64}
// CHECK:         bits.insert %[[D]]#2, %{{.*}} {offset = 18 : i64, width = 8 : i64}
// CHECK:         bits.insert %[[E]], %{{.*}} {offset = 26 : i64, width = 6 : i64}
// CHECK:         llvm.cmpxchg
func.func @store_one(%cell: !snode.ptr, %x: f32) {
  snode.store %x, %cell, @v[0] : f32
  return
}

// All three components at once: encoded together, no sibling decoded; the
// category still shares the word: one compare-and-swap loop.
// CHECK-LABEL: func.func @store_all(
// CHECK-NOT:   bits.decode_shared
// CHECK:       scf.while
// CHECK-NOT:   bits.decode_shared
// CHECK:         bits.encode_shared %{{.*}}, %{{.*}}, %{{.*}} {
// CHECK:         llvm.cmpxchg
func.func @store_all(%cell: !snode.ptr, %x: f32, %y: f32, %z: f32) {
  snode.store_fields (%x, %y, %z), %cell, [@v, @v, @v] [0, 1, 2] : f32, f32, f32
  return
}

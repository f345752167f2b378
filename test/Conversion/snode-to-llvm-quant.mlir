// RUN: %tic-opt %s --tic-allocate-layout | FileCheck %s --check-prefix=LAYOUT
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s

// Quantized places: a 32-bit bit_struct word holding a 5-bit int, a 12-bit
// fixed point and a 15-bit int on top; a 16-bit word holding one 16-bit
// float; a bit_array of eight 4-bit lanes in a 32-bit word.
snode.tree @root {
  snode.dense @d axes [0] shape [4] {
    snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
      snode.place @a : [i32] {quant = [#bits.quant<int, 5>]}
      snode.place @c : [f32] {quant = [#bits.quant<fixed, 12, 0.01>]}
      snode.place @t : [i32] {quant = [#bits.quant<int, 15>]}
    }
    snode.bit_struct @h axes [] shape [] attributes {bits = 16} {
      snode.place @f : [f32] {quant = [#bits.quant<float, 5, 11>]}
    }
  }
  snode.bit_array @ba axes [0] shape [8] attributes {bits = 32} {
    snode.place @l : [i32] {quant = [#bits.quant<uint, 4>]}
  }
}
// Fields pack from bit 0 in place order; a bit_array's container is one word.
// LAYOUT: snode.buffer @tic.root size 36 align 4
// LAYOUT: snode.bit_struct @w axes [] shape [] attributes {bits = 32 : i64, cell_align = 4 : i64, cell_size = 4 : i64, offset = 0 : i64}
// LAYOUT: snode.place @a : [i32] {bit_offsets = array<i64: 0>, component_offsets = array<i64: 0>, offset = 0 : i64, quant = [#bits.quant<int, 5>]}
// LAYOUT: snode.place @c : [f32] {bit_offsets = array<i64: 5>
// LAYOUT: snode.place @t : [i32] {bit_offsets = array<i64: 17>
// LAYOUT: snode.bit_array @ba axes [0] shape [8] attributes {bits = 32 : i64, cell_align = 4 : i64, cell_size = 4 : i64, offset = 32 : i64}

// A load reads the word (plainly: loads of one word CSE) and extracts.
// CHECK-LABEL: func.func @load(
// CHECK:       %[[W:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:       %[[D:.*]] = bits.extract %[[W]] {is_signed, offset = 5 : i64, width = 12 : i64} : i32 -> i32
// CHECK:       bits.decode_fixed %[[D]] {is_signed, scale = 1.000000e-02 : f64} : i32 -> f32
func.func @load(%cell: !snode.ptr) -> f32 {
  %v = snode.load %cell, @c[0] : f32
  return %v : f32
}

// A store to a field that shares its word: a compare-and-swap loop that
// inserts the encoded bits into whatever the word holds.
// CHECK-LABEL: func.func @store(
// CHECK:       %[[E:.*]] = bits.encode_fixed %{{.*}} {is_signed, scale = 1.000000e-02 : f64, width = 12 : i64} : f32 -> i32
// CHECK:       %[[W0:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:       scf.while (%[[OLD:.*]] = %[[W0]]) : (i32) -> i32 {
// CHECK:         %[[NEW:.*]] = bits.insert %[[E]], %[[OLD]] {offset = 5 : i64, width = 12 : i64} : i32, i32
// CHECK:         %[[CAS:.*]] = llvm.cmpxchg %{{.*}}, %[[OLD]], %[[NEW]] monotonic monotonic {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK:         scf.condition
func.func @store(%cell: !snode.ptr, %x: f32) {
  snode.store %x, %cell, @c[0] : f32
  return
}

// A field that fills its word: one plain store, no loop.
// CHECK-LABEL: func.func @whole_word(
// CHECK:       bits.encode_float
// CHECK-NOT:   llvm.cmpxchg
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr
// CHECK-NOT:   llvm.cmpxchg
// CHECK:       return
func.func @whole_word(%cell: !snode.ptr, %x: f32) {
  snode.store %x, %cell, @f[0] : f32
  return
}

// An add to the field in the top bits of its word: one atomic add of the
// delta shifted into place (a carry leaves the word); the old field value
// is extracted from the old word.
// CHECK-LABEL: func.func @add_top(
// CHECK:       %[[S:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
// CHECK:       %[[OLD:.*]] = llvm.atomicrmw add %{{.*}}, %[[S]] monotonic : !llvm.ptr, i32
// CHECK:       bits.extract %[[OLD]] {is_signed, offset = 17 : i64, width = 15 : i64}
// CHECK-NOT:   llvm.cmpxchg
func.func @add_top(%cell: !snode.ptr, %v: i32) -> i32 {
  %o = snode.atomic_rmw add %v, %cell, @t[0] : i32
  return %o : i32
}

// An add to a lower field: a compare-and-swap loop adding to its bits only.
// CHECK-LABEL: func.func @add_low(
// CHECK:       scf.while
// CHECK:         bits.extract %{{.*}} {is_signed, offset = 0 : i64, width = 5 : i64}
// CHECK:         arith.addi
// CHECK:         bits.insert %{{.*}}, %{{.*}} {offset = 0 : i64, width = 5 : i64}
// CHECK:         llvm.cmpxchg
func.func @add_low(%cell: !snode.ptr, %v: i32) -> i32 {
  %o = snode.atomic_rmw add %v, %cell, @a[0] : i32
  return %o : i32
}

// A bit_array lane: the word shifted right by lane * 4, then the lane's
// bits (zero-extended: unsigned).
// CHECK-LABEL: func.func @lane(
// CHECK-SAME:    %{{[^:]*}}: !snode.ptr, %[[L:[^:]*]]: i32
// CHECK:       %[[M:.*]] = arith.muli %[[L]], %{{.*}} : i32
// CHECK:       %[[SH:.*]] = arith.addi %{{.*}}, %[[M]] : i32
// CHECK:       %[[W:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK:       %[[X:.*]] = arith.shrui %[[W]], %[[SH]] : i32
// CHECK:       bits.extract %[[X]] {offset = 0 : i64, width = 4 : i64} : i32 -> i32
func.func @lane(%word: !snode.ptr, %l: i32) -> i32 {
  %v = snode.load %word lane %l, @l[0] : i32
  return %v : i32
}

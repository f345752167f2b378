// RUN: %tic-opt %s --tic-allocate-layout --tic-fuse-bit-stores | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-fuse-bit-stores --convert-snode-to-llvm | FileCheck %s --check-prefix=LLVM

// tic-fuse-bit-stores: stores to the fields of one bit_struct word (one cell
// value) in one block, with no field access between them, become one
// snode.store_fields at the last of them.

snode.tree @root {
  snode.dense @d axes [0] shape [64] {
    snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
      snode.place @a : [i32] {quant = [#bits.quant<int, 10>]}
      snode.place @b : [i32] {quant = [#bits.quant<int, 11>]}
      snode.place @c : [f32] {quant = [#bits.quant<fixed, 11, 0.001>]}
    }
  }
}

// All three fields: one store_fields; lowered, one plain store of the word
// (no load, no compare-and-swap), the fields inserted into 0.
// CHECK-LABEL: func.func @all
// CHECK-NOT:     snode.store %
// CHECK:         snode.store_fields (%{{.*}}, %{{.*}}, %{{.*}}), %{{.*}}, [@a, @b, @c] [0, 0, 0] : i32, i32, f32
// CHECK-NEXT:    return
// LLVM-LABEL: func.func @all
// LLVM-NOT:     llvm.load
// LLVM-NOT:     llvm.cmpxchg
// LLVM:         bits.insert
// LLVM:         bits.insert
// LLVM:         bits.insert
// LLVM:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// LLVM-NOT:     llvm.cmpxchg
// LLVM:         return
func.func @all(%cell: !snode.ptr, %x: i32, %y: i32, %z: f32) {
  %k = arith.constant 3 : i32
  snode.store %x, %cell, @a[0] {exclusive} : i32
  %y2 = arith.addi %y, %k : i32
  snode.store %y2, %cell, @b[0] : i32
  snode.store %z, %cell, @c[0] : f32
  return
}

// Two of three fields, the first written twice (the later value wins): one
// compare-and-swap loop inserting both; exclusive only when every merged
// store was.
// CHECK-LABEL: func.func @partial
// CHECK:         snode.store_fields (%{{.*}}, %{{.*}}), %{{.*}}, [@a, @b] [0, 0] : i32, i32
// CHECK-NOT:     exclusive
// CHECK:         return
// LLVM-LABEL: func.func @partial
// LLVM:         scf.while
// LLVM:           bits.insert
// LLVM:           bits.insert
// LLVM:           llvm.cmpxchg
// LLVM-NOT:     llvm.cmpxchg
// LLVM:         return
func.func @partial(%cell: !snode.ptr, %x: i32, %x2: i32, %y: i32) {
  snode.store %x, %cell, @a[0] {exclusive} : i32
  snode.store %y, %cell, @b[0] : i32
  snode.store %x2, %cell, @a[0] {exclusive} : i32
  return
}

// Exclusive stores of two fields: one plain load / insert / insert / store.
// CHECK-LABEL: func.func @exclusive
// CHECK:         snode.store_fields {{.*}} {exclusive}
// LLVM-LABEL: func.func @exclusive
// LLVM-NOT:     llvm.cmpxchg
// LLVM:         %[[W:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// LLVM:         bits.insert %{{.*}}, %[[W]]
// LLVM:         bits.insert
// LLVM:         llvm.store
// LLVM-NOT:     llvm.cmpxchg
// LLVM:         return
func.func @exclusive(%cell: !snode.ptr, %x: i32, %y: i32) {
  snode.store %x, %cell, @a[0] {exclusive} : i32
  snode.store %y, %cell, @b[0] {exclusive} : i32
  return
}

// Not merged: a load between the stores, and stores to different cells.
// CHECK-LABEL: func.func @apart
// CHECK-NOT:     snode.store_fields
// CHECK:         snode.store %{{.*}}, %[[C0:.*]], @a[0]
// CHECK-NEXT:    snode.load
// CHECK-NEXT:    snode.store %{{.*}}, %[[C0]], @b[0]
// CHECK-NEXT:    snode.store %{{.*}}, %[[C1:.*]], @a[0]
// CHECK-NEXT:    snode.store %{{.*}}, %[[C0]], @b[0]
// CHECK-NOT:     snode.store_fields
// CHECK:         return
func.func @apart(%c0: !snode.ptr, %c1: !snode.ptr, %x: i32) -> f32 {
  snode.store %x, %c0, @a[0] : i32
  %v = snode.load %c0, @c[0] : f32
  snode.store %x, %c0, @b[0] : i32
  snode.store %x, %c1, @a[0] : i32
  snode.store %x, %c0, @b[0] : i32
  return %v : f32
}

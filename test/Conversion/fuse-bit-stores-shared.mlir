// RUN: %tic-opt %s --tic-allocate-layout --tic-fuse-bit-stores=all=false | FileCheck %s

// Stores to a shared exponent's components are merged even without `all`
// (their encoding is joint), across memory operations on other resources
// (ndarrays, locals); stores of plain quantized fields then stay apart.

snode.tree @root {
  snode.dense @d axes [0] shape [64] {
    snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
      snode.place @n : [i32] {quant = [#bits.quant<int, 5>]}
      snode.place @r : [f32] {quant = [#bits.quant<float, 5, 9>], shared_exponent}
      snode.place @g : [f32] {quant = [#bits.quant<float, 5, 9>], shared_exponent}
    }
  }
}

// CHECK-LABEL: func.func @k
// CHECK:         snode.store %{{.*}}, %{{.*}}, @n[0] : i32
// CHECK:         tc.ndarray_load
// CHECK:         memref.store
// CHECK:         snode.store %{{.*}}, %{{.*}}, @n[0] : i32
// CHECK-NEXT:    snode.store_fields (%{{.*}}, %{{.*}}), %{{.*}}, [@r, @g] [0, 0] : f32, f32
func.func @k(%cell: !snode.ptr, %a: !tc.ndarray<f32, 1>, %i: i32) {
  %loc = memref.alloca() : memref<f32>
  %x = tc.ndarray_load %a[%i] : !tc.ndarray<f32, 1>
  snode.store %i, %cell, @n[0] : i32
  snode.store %x, %cell, @r[0] : f32
  %y = tc.ndarray_load %a[%i] : !tc.ndarray<f32, 1>
  memref.store %y, %loc[] : memref<f32>
  snode.store %i, %cell, @n[0] : i32
  snode.store %y, %cell, @g[0] : f32
  return
}

// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s

// Lanes of bit_arrays that are naturally aligned bytes or half-words of
// their word (8 or 16 integer or fixed-point bits) are read with one load
// of their own width at lane index + offset / width from the word's
// address (every target is little-endian), extended as the lane's sign
// says; other lanes load the word and shift. Writes keep the word's
// read-modify-write.
snode.tree @root {
  snode.bit_array @b8 axes [0] shape [4] attributes {bits = 32} {
    snode.place @s8 : [i32] {quant = [#bits.quant<int, 8>]}
  }
  snode.bit_array @b16 axes [0] shape [4] attributes {bits = 64} {
    snode.place @f16 : [f32] {quant = [#bits.quant<fixed, 16, 0.001>]}
  }
  snode.bit_array @u16 axes [0] shape [2] attributes {bits = 32} {
    snode.place @h : [i32] {quant = [#bits.quant<uint, 16>]}
  }
  snode.bit_array @b4 axes [0] shape [8] attributes {bits = 32} {
    snode.place @n4 : [i32] {quant = [#bits.quant<int, 4>]}
  }
  snode.bit_array @bf axes [0] shape [2] attributes {bits = 32} {
    snode.place @fl : [f32] {quant = [#bits.quant<float, 5, 11>]}
  }
}

// CHECK-LABEL: func.func @int8(
// CHECK-SAME:    %[[W:[^:]*]]: !snode.ptr, %[[L:[^:]*]]: i32
// CHECK:       %[[LX:.*]] = arith.extui %[[L]] : i32 to i64
// CHECK:       %[[I:.*]] = arith.addi %{{.*}}, %[[LX]] : i64
// CHECK:       %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:       %[[B:.*]] = llvm.load %[[P]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK:       %[[V:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK-NOT:   arith.shrui
// CHECK:       return %[[V]] : i32
func.func @int8(%word: !snode.ptr, %l: i32) -> i32 {
  %v = snode.load %word lane %l, @s8[0] : i32
  return %v : i32
}

// A 16-bit fixed point: the half-word (aligned to 2), sign-extended, then
// scaled.
// CHECK-LABEL: func.func @fixed16(
// CHECK:       llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i16
// CHECK:       %[[H:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK:       %[[D:.*]] = arith.extsi %[[H]] : i16 to i32
// CHECK:       bits.decode_fixed %[[D]] {is_signed, scale = 1.000000e-03 : f64} : i32 -> f32
func.func @fixed16(%word: !snode.ptr, %l: i32) -> f32 {
  %v = snode.load %word lane %l, @f16[0] : f32
  return %v : f32
}

// Unsigned: zero-extended.
// CHECK-LABEL: func.func @uint16(
// CHECK:       %[[U:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK:       arith.extui %[[U]] : i16 to i32
func.func @uint16(%word: !snode.ptr, %l: i32) -> i32 {
  %v = snode.load %word lane %l, @h[0] : i32
  return %v : i32
}

// 4-bit lanes and float lanes (two bit fields each) load the word.
// CHECK-LABEL: func.func @others(
// CHECK:       llvm.load %{{.*}} {{.*}}alignment = 4 : i64{{.*}} : !llvm.ptr -> i32
// CHECK:       arith.shrui
// CHECK:       llvm.load %{{.*}} {{.*}}alignment = 4 : i64{{.*}} : !llvm.ptr -> i32
// CHECK:       arith.shrui
// CHECK-NOT:   -> i8
// CHECK-NOT:   -> i16
// CHECK:       return
func.func @others(%w4: !snode.ptr, %wf: !snode.ptr, %l: i32) -> (i32, f32) {
  %a = snode.load %w4 lane %l, @n4[0] : i32
  %b = snode.load %wf lane %l, @fl[0] : f32
  return %a, %b : i32, f32
}

// A store still writes the word (a compare-and-swap loop: other lanes may
// be written at the same time).
// CHECK-LABEL: func.func @store(
// CHECK:       llvm.cmpxchg %{{.*}} : !llvm.ptr, i32
// CHECK-NOT:   llvm.store %{{.*}} : i8, !llvm.ptr
func.func @store(%word: !snode.ptr, %l: i32, %v: i32) {
  snode.store %v, %word lane %l, @s8[0] : i32
  return
}

// RUN: %tic-opt %s --tic-lower-bits | FileCheck %s
// tic-lower-bits: every bits op becomes arith (and math).
// CHECK-NOT: bits.

// A signed field [5, 8) of an i32: shift its top bit to bit 31, then an
// arithmetic shift down by 29.
// CHECK-LABEL: func.func @extract_signed(
// CHECK-DAG: %[[L:.*]] = arith.constant 24 : i32
// CHECK-DAG: %[[R:.*]] = arith.constant 29 : i32
// CHECK: %[[S:.*]] = arith.shli %arg0, %[[L]] : i32
// CHECK: %[[V:.*]] = arith.shrsi %[[S]], %[[R]] : i32
// CHECK: return %[[V]]
func.func @extract_signed(%w: i32) -> i32 {
  %a = bits.extract %w {offset = 5, width = 3, is_signed} : i32 -> i32
  return %a : i32
}

// Unsigned, widened to i64: logical shift, zero extension.
// CHECK-LABEL: func.func @extract_unsigned(
// CHECK: arith.shli
// CHECK: %[[V:.*]] = arith.shrui
// CHECK: arith.extui %[[V]] : i16 to i64
func.func @extract_unsigned(%w: i16) -> i64 {
  %a = bits.extract %w {offset = 4, width = 9} : i16 -> i64
  return %a : i64
}

// insert: (w & ~mask) | ((zext(v) << offset) & mask), mask = 0xFF00.
// CHECK-LABEL: func.func @insert(
// CHECK-DAG: %[[M:.*]] = arith.constant 65280 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant -65281 : i32
// CHECK: %[[V:.*]] = arith.extui %arg0 : i8 to i32
// CHECK: %[[SH:.*]] = arith.shli %[[V]], %{{.*}} : i32
// CHECK: %[[OLD:.*]] = arith.andi %arg1, %[[K]] : i32
// CHECK: %[[F:.*]] = arith.andi %[[SH]], %[[M]] : i32
// CHECK: arith.ori %[[OLD]], %[[F]] : i32
func.func @insert(%v: i8, %w: i32) -> i32 {
  %b = bits.insert %v, %w {offset = 8, width = 8} : i8, i32
  return %b : i32
}

// encode_fixed: the nearest integer to the exact |x| / scale (floor of the
// f64 quotient, then the sign of |x| - (t + 1/2) scale from one fma), the
// sign, then wrapped to 12 bits (sign-extended).
// CHECK-LABEL: func.func @fixed(
// CHECK-DAG: %[[S:.*]] = arith.constant 0.00999999977 : f32
// CHECK: %[[X:.*]] = arith.extf %arg0 : f32 to f64
// CHECK: %[[A:.*]] = math.absf %[[X]] : f64
// CHECK: %[[Q:.*]] = arith.divf %[[A]], %{{.*}} : f64
// CHECK: %[[T:.*]] = math.floor %[[Q]] : f64
// CHECK: %[[M:.*]] = arith.addf %[[T]], %{{.*}} : f64
// CHECK: %[[NM:.*]] = arith.negf %[[M]] : f64
// CHECK: %[[D:.*]] = math.fma %[[NM]], %{{.*}}, %[[A]] : f64
// CHECK: arith.cmpf oge, %[[D]]
// CHECK: %[[I:.*]] = arith.fptosi %{{.*}} : f64 to i64
// CHECK: arith.cmpf olt, %[[X]]
// CHECK: arith.shli
// CHECK: arith.shrsi
// CHECK: arith.trunci %{{.*}} : i64 to i32
// decode_fixed: sitofp, times the scale.
// CHECK: %[[F:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.mulf %[[F]], %[[S]] : f32
func.func @fixed(%x: f32) -> f32 {
  %c = bits.encode_fixed %x {scale = 0.01 : f64, width = 12, is_signed} : f32 -> i32
  %f = bits.decode_fixed %c {scale = 0.01 : f64, is_signed} : i32 -> f32
  return %f : f32
}

// encode_float / decode_float: integer operations on the f32 bit pattern.
// CHECK-LABEL: func.func @float(
// CHECK: arith.bitcast %arg0 : f32 to i32
// CHECK: arith.maxsi
// CHECK: arith.bitcast %{{.*}} : i32 to f32
func.func @float(%x: f32) -> f32 {
  %e, %d = bits.encode_float %x {exp = 5, frac = 11, is_signed} : f32
  %f = bits.decode_float %e, %d {exp = 5, frac = 11, is_signed} : f32
  return %f : f32
}

// A power-of-two scale: the quotient is a product, exact, and so is its
// fraction; no fma.
// CHECK-LABEL: func.func @fixed_pow2(
// CHECK: %[[Q:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: %[[T:.*]] = math.floor %[[Q]] : f64
// CHECK: %[[F:.*]] = arith.subf %[[Q]], %[[T]] : f64
// CHECK: arith.cmpf oge, %[[F]]
// CHECK-NOT: math.fma
// CHECK: return
func.func @fixed_pow2(%x: f32) -> i32 {
  %c = bits.encode_fixed %x {scale = 0.0009765625 : f64, width = 11, is_signed} : f32 -> i32
  return %c : i32
}

// Shared exponents: the largest f32 exponent (unsigned max of the exponent
// fields), the quotient by 2^(E_max - p + 1) from its bit pattern, rounded
// by floor(x + 1/2) and saturated at 2^p - 1 (p = 7 here: 127).
// CHECK-LABEL: func.func @shared(
// CHECK: %[[C127:.*]] = arith.constant 127 : i32
// CHECK: arith.maxui
// CHECK: arith.maxui
// CHECK: math.floor
// CHECK: arith.minsi %{{.*}}, %[[C127]] : i32
// CHECK-NOT: bits.
// CHECK: return
func.func @shared(%x: f32, %y: f32, %z: f32) -> f32 {
  %e, %d:3 = bits.encode_shared %x, %y, %z {exp = 6, frac = 8, is_signed} : f32, f32, f32 -> i32, i32, i32
  %v = bits.decode_shared %e, %d#1 {exp = 6, frac = 8, is_signed} : f32
  return %v : f32
}

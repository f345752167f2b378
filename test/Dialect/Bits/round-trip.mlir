// RUN: %tic-opt %s | %tic-opt | FileCheck %s
// Every bits op prints and parses back.

// CHECK-LABEL: func.func @ops(
func.func @ops(%w: i32, %v: i8, %x: f32, %e: i32, %d: i32) -> (i32, i32, i32, f32, i32, i32, f32) {
  // CHECK: bits.extract %{{.*}} {is_signed, offset = 5 : i64, width = 3 : i64} : i32 -> i32
  %a = bits.extract %w {offset = 5, width = 3, is_signed} : i32 -> i32
  // CHECK: bits.insert %{{.*}}, %{{.*}} {offset = 8 : i64, width = 8 : i64} : i8, i32
  %b = bits.insert %v, %w {offset = 8, width = 8} : i8, i32
  // CHECK: bits.encode_fixed %{{.*}} {is_signed, scale = 1.000000e-02 : f64, width = 12 : i64} : f32 -> i32
  %c = bits.encode_fixed %x {scale = 0.01 : f64, width = 12, is_signed} : f32 -> i32
  // CHECK: bits.decode_fixed %{{.*}} {scale = 1.000000e-02 : f64} : i32 -> f32
  %f = bits.decode_fixed %c {scale = 0.01 : f64} : i32 -> f32
  // CHECK: bits.encode_float %{{.*}} {exp = 5 : i64, frac = 11 : i64, is_signed} : f32
  %se, %sd = bits.encode_float %x {exp = 5, frac = 11, is_signed} : f32
  // CHECK: bits.decode_float %{{.*}}, %{{.*}} {exp = 6 : i64, frac = 8 : i64} : f32
  %g = bits.decode_float %e, %d {exp = 6, frac = 8} : f32
  return %a, %b, %c, %f, %se, %sd, %g : i32, i32, i32, f32, i32, i32, f32
}

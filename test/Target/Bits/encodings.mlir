// The bits encodings end to end: lowered by tic-lower-bits, compiled to an
// object, linked with a C driver that checks them exhaustively (every code
// point of 16-bit and smaller formats) and on a million reals against a C
// reference written from docs/quant.md.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tic-opt %s --tic-lower-bits --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts -o %t/enc.mlir
// RUN: mlir-translate --mlir-to-llvmir %t/enc.mlir -o %t/enc.ll
// RUN: llc -O2 -filetype=obj -relocation-model=pic %t/enc.ll -o %t/enc.o
// RUN: %cc -std=c99 -O1 -Wall -Wextra -Werror -I %S/../../../integration_test/tests %S/Inputs/encodings_driver.c %t/enc.o -lm -o %t/enc
// RUN: %t/enc | FileCheck %s
// CHECK: extract/insert: ok
// CHECK: fixed: ok
// CHECK: float: ok
// CHECK: all encodings agree

// A signed 5-bit field at bit 3 of an i16, and an unsigned 9-bit one at 4.
func.func @ext_s(%w: i16) -> i32 {
  %a = bits.extract %w {offset = 3, width = 5, is_signed} : i16 -> i32
  return %a : i32
}
func.func @ext_u(%w: i16) -> i64 {
  %a = bits.extract %w {offset = 4, width = 9} : i16 -> i64
  return %a : i64
}
func.func @ins(%v: i32, %w: i16) -> i16 {
  %a = bits.insert %v, %w {offset = 6, width = 7} : i32, i16
  return %a : i16
}

// fixed(12 bits, signed, scale 0.01) and fixed(10 bits, unsigned, range 2).
func.func @sfx_enc(%x: f32) -> i32 {
  %c = bits.encode_fixed %x {scale = 0.01 : f64, width = 12, is_signed} : f32 -> i32
  return %c : i32
}
func.func @sfx_dec(%c: i32) -> f32 {
  %x = bits.decode_fixed %c {scale = 0.01 : f64, is_signed} : i32 -> f32
  return %x : f32
}
func.func @ufx_enc(%x: f32) -> i32 {
  %c = bits.encode_fixed %x {scale = 0.001953125 : f64, width = 10} : f32 -> i32
  return %c : i32
}
func.func @ufx_dec(%c: i32) -> f32 {
  %x = bits.decode_fixed %c {scale = 0.001953125 : f64} : i32 -> f32
  return %x : f32
}

// float(exp 5, frac 11, signed) packed as exponent << 11 | digits, and
// float(exp 6, frac 8, unsigned) as exponent << 8 | digits.
func.func @sfl_enc(%x: f32) -> i32 {
  %e, %d = bits.encode_float %x {exp = 5, frac = 11, is_signed} : f32
  %z = arith.constant 0 : i32
  %w0 = bits.insert %d, %z {offset = 0, width = 11} : i32, i32
  %w1 = bits.insert %e, %w0 {offset = 11, width = 5} : i32, i32
  return %w1 : i32
}
func.func @sfl_dec(%w: i32) -> f32 {
  %d = bits.extract %w {offset = 0, width = 11} : i32 -> i32
  %e = bits.extract %w {offset = 11, width = 5} : i32 -> i32
  %x = bits.decode_float %e, %d {exp = 5, frac = 11, is_signed} : f32
  return %x : f32
}
func.func @ufl_enc(%x: f32) -> i32 {
  %e, %d = bits.encode_float %x {exp = 6, frac = 8} : f32
  %z = arith.constant 0 : i32
  %w0 = bits.insert %d, %z {offset = 0, width = 8} : i32, i32
  %w1 = bits.insert %e, %w0 {offset = 8, width = 6} : i32, i32
  return %w1 : i32
}
func.func @ufl_dec(%w: i32) -> f32 {
  %d = bits.extract %w {offset = 0, width = 8} : i32 -> i32
  %e = bits.extract %w {offset = 8, width = 6} : i32 -> i32
  %x = bits.decode_float %e, %d {exp = 6, frac = 8} : f32
  return %x : f32
}

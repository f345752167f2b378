// RUN: %tic-opt %s -split-input-file -verify-diagnostics
// The verifiers of the bits ops.

func.func @field_outside(%w: i16) -> i32 {
  // expected-error @+1 {{bit field [10, 17) is not inside a 16-bit word}}
  %a = bits.extract %w {offset = 10, width = 7} : i16 -> i32
  return %a : i32
}

// -----

func.func @narrow_result(%w: i32) -> i8 {
  // expected-error @+1 {{result type 'i8' cannot hold 12 bits}}
  %a = bits.extract %w {offset = 0, width = 12} : i32 -> i8
  return %a : i8
}

// -----

func.func @insert_outside(%v: i32, %w: i8) -> i8 {
  // expected-error @+1 {{bit field [4, 12) is not inside a 8-bit word}}
  %a = bits.insert %v, %w {offset = 4, width = 8} : i32, i8
  return %a : i8
}

// -----

func.func @bad_scale(%x: f32) -> i32 {
  // expected-error @+1 {{scale must be positive and finite, got -1.000000e+00}}
  %a = bits.encode_fixed %x {scale = -1.0 : f64, width = 8} : f32 -> i32
  return %a : i32
}

// -----

func.func @wide_exponent(%x: f32) -> i32 {
  // expected-error @+1 {{exponent width must be in [1, 8], got 9}}
  %e, %d = bits.encode_float %x {exp = 9, frac = 8} : f32
  return %e : i32
}

// -----

func.func @no_digits(%e: i32, %d: i32) -> f32 {
  // expected-error @+1 {{fraction width must leave 1 to 23 digit bits under the sign bit, got 1}}
  %f = bits.decode_float %e, %d {exp = 5, frac = 1, is_signed} : f32
  return %f : f32
}

//===- BitsOps.td - bits dialect operations ----------------*- tablegen -*-===//

#ifndef TIC_DIALECT_BITS_OPS_TD
#define TIC_DIALECT_BITS_OPS_TD

include "tic/Dialect/Bits/BitsDialect.td"
include "tic/Dialect/Bits/BitsAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Bits_ExtractOp : Bits_Op<"extract", [Pure]> {
  let summary = "read the bit field [offset, offset + width) of a word";
  let description = [{
    `bits.extract %w {offset = 5, width = 3} : i32 -> i32` gives the field's
    value, zero-extended, or sign-extended with `is_signed` (two's complement),
    to the result type, which must hold `width` bits.
  }];
  let arguments = (ins AnySignlessInteger:$word, I64Attr:$offset,
                       I64Attr:$width, UnitAttr:$is_signed);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$word attr-dict `:` type($word) `->` type($result)";
  let hasVerifier = 1;
}

def Bits_InsertOp : Bits_Op<"insert", [Pure, AllTypesMatch<["word", "result"]>]> {
  let summary = "replace the bit field [offset, offset + width) of a word";
  let description = [{
    `bits.insert %v, %w {offset = 5, width = 3} : i32, i32` is `%w` with the
    field set to the low `width` bits of `%v` (higher bits of `%v` are
    dropped: integers wrap) and every other bit unchanged.
  }];
  let arguments = (ins AnySignlessInteger:$value, AnySignlessInteger:$word,
                       I64Attr:$offset, I64Attr:$width);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$value `,` $word attr-dict `:` type($value) `,` type($word)";
  let hasVerifier = 1;
}

def Bits_EncodeFixedOp : Bits_Op<"encode_fixed", [Pure]> {
  let summary = "a real to the digits of a quant.fixed";
  let description = [{
    `bits.encode_fixed %x {scale = 0.01 : f64, width = 12, is_signed} : f32 -> i32`:
    the integer nearest to the exact quotient `x / scale` (ties away from
    zero), wrapped to `width` bits and sign- (`is_signed`) or zero-extended:
    the value `bits.extract` reads back after `bits.insert`.
  }];
  let arguments = (ins AnyFloat:$input, F64Attr:$scale, I64Attr:$width,
                       UnitAttr:$is_signed);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Bits_DecodeFixedOp : Bits_Op<"decode_fixed", [Pure]> {
  let summary = "the digits of a quant.fixed to a real";
  let description = [{
    `bits.decode_fixed %i {scale = 0.01 : f64, is_signed} : i32 -> f32` is
    `float(i) * scale` in the result type (the scale rounded to it), `i`
    signed with `is_signed`, else unsigned.
  }];
  let arguments = (ins AnySignlessInteger:$digits, F64Attr:$scale,
                       UnitAttr:$is_signed);
  let results = (outs AnyFloat:$result);
  let assemblyFormat = "$digits attr-dict `:` type($digits) `->` type($result)";
  let hasVerifier = 1;
}

def Bits_EncodeFloatOp : Bits_Op<"encode_float", [Pure]> {
  let summary = "an f32 to a quant.float's exponent and digits";
  let description = [{
    `%e, %d = bits.encode_float %x {exp = 5, frac = 11, is_signed} : f32` gives
    the stored exponent (`exp` bits) and the digits field (`frac` bits: the
    mantissa's top `frac - 1` bits, rounded to nearest through the f32 bit
    pattern, under a sign bit with `is_signed`; all `frac` bits without), both
    as i32 (docs/quant.md, as Taichi's codegen_llvm_quant.cpp).
  }];
  let arguments = (ins F32:$input, I64Attr:$exp, I64Attr:$frac,
                       UnitAttr:$is_signed);
  let results = (outs I32:$exponent, I32:$digits);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Bits_DecodeFloatOp : Bits_Op<"decode_float", [Pure]> {
  let summary = "a quant.float's exponent and digits to an f32";
  let description = [{
    `bits.decode_float %e, %d {exp = 5, frac = 11, is_signed} : f32`: the f32
    with that exponent (re-biased; a stored exponent of 0 is zero), the
    digits as the top mantissa bits, and the sign bit.
  }];
  let arguments = (ins I32:$exponent, I32:$digits, I64Attr:$exp,
                       I64Attr:$frac, UnitAttr:$is_signed);
  let results = (outs F32:$result);
  let assemblyFormat = "$exponent `,` $digits attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Bits_EncodeSharedOp : Bits_Op<"encode_shared", [Pure]> {
  let summary = "f32 components to one shared exponent and their digits";
  let description = [{
    `%e, %d:3 = bits.encode_shared %x, %y, %z {exp = 6, frac = 8, is_signed}
    : f32, f32, f32 -> i32, i32, i32`
    (QuanTaichi's shared exponent, docs/quant.md): the stored exponent of
    the largest magnitude (biased by 2^(exp-1) - 1; 0 when every component
    is zero or below the smallest normal) and per component `frac` bits:
    p = frac - 1 digits (frac when unsigned) with an explicit leading one,
    |x| / 2^(E_max - p + 1) rounded to nearest (ties away from zero) and
    saturated at 2^p - 1, under a sign bit with `is_signed`.
  }];
  let arguments = (ins Variadic<F32>:$inputs, I64Attr:$exp, I64Attr:$frac,
                       UnitAttr:$is_signed);
  let results = (outs I32:$exponent, Variadic<I32>:$digits);
  let assemblyFormat =
      "$inputs attr-dict `:` type($inputs) `->` type($digits)";
  let hasVerifier = 1;
}

def Bits_DecodeSharedOp : Bits_Op<"decode_shared", [Pure]> {
  let summary = "one component of a shared-exponent group to an f32";
  let description = [{
    `%x = bits.decode_shared %e, %d {exp = 6, frac = 8, is_signed} : f32`:
    the digits times 2^(e - bias - p + 1), signed by the digits' sign bit;
    0 (with that sign) when `e` or the digits are 0.
  }];
  let arguments = (ins I32:$exponent, I32:$digits, I64Attr:$exp,
                       I64Attr:$frac, UnitAttr:$is_signed);
  let results = (outs F32:$result);
  let assemblyFormat = "$exponent `,` $digits attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif

//===- BitsAttrs.td - bits attributes ----------------------*- tablegen -*-===//
//
// The encoding of a quantized field component (spec section 7,
// docs/quant.md), carried by the snode.place ops of bit_struct and
// bit_array containers.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_BITS_ATTRS_TD
#define TIC_DIALECT_BITS_ATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "tic/Dialect/Bits/BitsDialect.td"

def Bits_QuantAttr : AttrDef<Bits_Dialect, "Quant"> {
  let mnemonic = "quant";
  let summary = "a quantized encoding: quant.int, quant.fixed or quant.float";
  let description = [{
    `#bits.quant<int, 6>` (`uint` when unsigned): a 6-bit integer.
    `#bits.quant<fixed, 12, 0.01>` (`ufixed`): 12 bits of digits times the
    scale 0.01. `#bits.quant<float, 5, 11>` (`ufloat`): 5 exponent bits and
    11 digit bits (the sign counted in them). The width of the field is
    `bits` for ints and fixed points, `exp + frac` for floats; floats keep
    their digits in the low `frac` bits of the field and the exponent above
    them. The component type of the place is the compute type.
  }];
  let parameters = (ins "::tic::bits::QuantKind":$kind, "bool":$isSigned,
                        "unsigned":$bits, APFloatParameter<"scale">:$scale,
                        "unsigned":$exp, "unsigned":$frac);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bits the field occupies in its word.
    unsigned getWidth() const {
      return getKind() == ::tic::bits::QuantKind::Float ? getExp() + getFrac()
                                                        : getBits();
    }
    double getScaleValue() const { return getScale().convertToDouble(); }
    static QuantAttr getInt(::mlir::MLIRContext *ctx, unsigned bits,
                            bool isSigned);
    static QuantAttr getFixed(::mlir::MLIRContext *ctx, unsigned bits,
                              bool isSigned, double scale);
    static QuantAttr getFloat(::mlir::MLIRContext *ctx, unsigned exp,
                              unsigned frac, bool isSigned);
    /// Whether values of the encoding decode to (and encode from) `t`.
    bool isComputeType(::mlir::Type t) const;
  }];
}

#endif

//===- BitsDialect.td - the bits dialect -------------------*- tablegen -*-===//
//
// Bit packing for quantized types (QuanTaichi): fields of a container word
// and the encodings of quant.int, quant.fixed and quant.float. Target
// neutral: lowered to arith by tic-lower-bits. docs/quant.md specifies every
// encoding; docs/dialects.md the ops.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_BITS_DIALECT_TD
#define TIC_DIALECT_BITS_DIALECT_TD

include "mlir/IR/OpBase.td"

def Bits_Dialect : Dialect {
  let name = "bits";
  let cppNamespace = "::tic::bits";
  let summary = "Bit fields of container words and quantized encodings";
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class Bits_Op<string mnemonic, list<Trait> traits = []>
    : Op<Bits_Dialect, mnemonic, traits>;

#endif

// RUN: %tic-opt %s -split-input-file -verify-diagnostics --tic-allocate-layout
// Bit containers whose fields do not fit their word.

snode.tree @root {
  // expected-error @+1 {{needs 36 bits, more than its 32-bit word}}
  snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
    snode.place @a : [i32, i32, i32] {quant = [#bits.quant<int, 12>, #bits.quant<int, 12>, #bits.quant<int, 12>]}
  }
}

// -----

snode.tree @root {
  // expected-error @+1 {{needs 20 bits, more than its 16-bit word}}
  snode.bit_array @b axes [0] shape [5] attributes {bits = 16} {
    snode.place @a : [i32] {quant = [#bits.quant<int, 4>]}
  }
}

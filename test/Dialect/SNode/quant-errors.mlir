// RUN: %tic-opt %s -split-input-file -verify-diagnostics
// Quantized places: where they may be, what they hold, and what fits.

snode.tree @root {
  snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
    // expected-error @+1 {{a place in a bit_struct needs 'quant' encodings}}
    snode.place @a : [i32]
  }
}

// -----

snode.tree @root {
  snode.dense @d axes [0] shape [4] {
    // expected-error @+1 {{quantized components must be placed in a bit_struct or bit_array}}
    snode.place @a : [i32] {quant = [#bits.quant<int, 5>]}
  }
}

// -----

snode.tree @root {
  snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
    // expected-error @+1 {{component 0 of type 'f64' is not a compute type of #bits.quant<float, 5, 9>}}
    snode.place @a : [f64] {quant = [#bits.quant<float, 5, 9>]}
  }
}

// -----

snode.tree @root {
  snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
    // expected-error @+1 {{has 1 encodings for 2 components}}
    snode.place @a : [i32, i32] {quant = [#bits.quant<int, 5>]}
  }
}

// -----

snode.tree @root {
  // expected-error @+1 {{may only hold places of quantized fields}}
  snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
    snode.dense @d axes [0] shape [2] { snode.place @a : [i32] }
  }
}

// -----

// expected-error @+1 {{a quantized integer or fixed point has 1 to 64 bits, got 65}}
snode.tree @root attributes {q = #bits.quant<int, 65>} {
  snode.dense @d axes [0] shape [2] { snode.place @a : [i32] }
}

// -----

// expected-error @+1 {{scale must be positive and finite, got -1}}
snode.tree @root attributes {q = #bits.quant<fixed, 8, -1.0>} {
  snode.dense @d axes [0] shape [2] { snode.place @a : [i32] }
}

// RUN: %tic-opt %s --tic-allocate-layout -verify-diagnostics
// snode.atomic_add_fields needs its components side by side in the cell, in
// the order given: checked once the layout is recorded (v at bytes 0 and 4,
// k at 8, m at 16).
snode.tree @root {
  snode.dense @a axes [0] shape [4] {
    snode.place @v : [f32, f32]
    snode.place @k : [f64]
    snode.place @m : [f32]
  }
}
func.func @f(%p: !snode.ptr, %x: f32) {
  // expected-error @+1 {{component 0 of field 'm' is at byte 16 of the cell, not 8 (right after the previous one)}}
  snode.atomic_add_fields (%x, %x), %p, [@v, @m] [1, 0]
  return
}

// RUN: %tic-opt %s --tic-lower-field-access -verify-diagnostics
// RUN: %tic-opt %s --tic-lower-struct-for -verify-diagnostics
// RUN: %tic-opt %s --convert-snode-to-llvm -verify-diagnostics
// RUN: %tic-opt %s --tic-print-snode-layout -verify-diagnostics -o /dev/null

// Layouts are computed once, by tic-allocate-layout: a pass that needs one
// and finds a tree without it says so instead of computing its own.

// expected-error @below {{'snode.tree' op has no recorded layout: run tic-allocate-layout first}}
snode.tree @root {
  snode.dense @d axes [0] shape [8] { snode.place @u : [f32] }
}
tc.kernel @k(%i: i32) -> f32 {
  %v = tc.load @u[%i] : f32
  tc.return %v : f32
}

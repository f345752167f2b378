// End to end without the front end: hand-written tc/snode IR, the interface
// passes around the CPU pipeline, an object from llc, and a C99 driver that
// uses the generated header (from the same interface) and the static runtime.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tic-opt %s --tic-allocate-layout --tic-generate-field-accessors=module-name=demo --tic-cpu-pipeline --tic-generate-c-entry-points -o %t/demo.mlir
// RUN: FileCheck %s < %t/demo.mlir
// RUN: mlir-translate --mlir-to-llvmir %t/demo.mlir -o %t/demo.ll
// RUN: llc -O2 -filetype=obj -relocation-model=pic %t/demo.ll -o %t/demo.o
// RUN: tic-header-tool mlir %s --name demo > %t/demo.h
// RUN: %cc -std=c99 -Wall -Wextra -pedantic -Werror -I%t -I%runtime_include %S/Inputs/demo_driver.c %t/demo.o %runtime_static -o %t/demo
// RUN: %t/demo | FileCheck %s --check-prefix=OUT
// RUN: llvm-nm --defined-only --extern-only %t/demo.o | FileCheck %s --check-prefix=SYMS

snode.tree @root {
  snode.dense @d2 axes [0, 1] shape [5, 3] {
    snode.place @u : [f32]
  }
  snode.dense @d1 axes [0] shape [4] {
    snode.place @x : [f32, f32, f32]
  }
  snode.place @loss : [f32]
  snode.place @"loss.grad" : [f32]
}

// u[i, j] *= s
tc.kernel @scale(%s: f32) {
  %c0 = arith.constant 0 : i32
  %c5 = arith.constant 5 : i32
  %c3 = arith.constant 3 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c5, %c3) {
    %v = tc.load @u[%i, %j] : f32
    %w = arith.mulf %v, %s : f32
    tc.store %w, @u[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// returns (x[k].x + x[k].y, 2 * x[k].z)
tc.kernel @pair(%k: i32) -> (f32, f32) {
  %a = tc.load @x[%k] {comp = 0} : f32
  %b = tc.load @x[%k] {comp = 1} : f32
  %c = tc.load @x[%k] {comp = 2} : f32
  %s = arith.addf %a, %b : f32
  %t = arith.addf %c, %c : f32
  tc.return %s, %t : f32, f32
}

// u[i, j] = a[i, j] + off
tc.kernel @load_u(%a: !tc.ndarray<f32, 2>, %off: f32) {
  %c0 = arith.constant 0 : i32
  %c5 = arith.constant 5 : i32
  %c3 = arith.constant 3 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c5, %c3) {
    %v = tc.ndarray_load %a[%i, %j] : !tc.ndarray<f32, 2>
    %w = arith.addf %v, %off : f32
    tc.store %w, @u[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// CHECK: llvm.mlir.global internal constant @__tic_module_desc()
// CHECK: llvm.func @demo_create(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.call @tic_rt_context_create
// CHECK: llvm.func @demo_scale(%{{.*}}: !llvm.ptr, %{{.*}}: f32) -> i32
// CHECK: llvm.func @demo_load_u(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 8 : i64, llvm.byval = !llvm.struct<(ptr, i32, array<8 x i64>, i32)>}, %{{.*}}: f32) -> i32
// CHECK: llvm.call @tic_rt_check_ndarray
// CHECK: llvm.func @demo_u_get(%{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.func @demo_x_read(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64) -> i32

// OUT: ok
// OUT-NEXT: u 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14
// OUT-NEXT: scaled 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28
// OUT-NEXT: u[4,2] = 28
// OUT-NEXT: oob: 5 demo_u_get: index 3 is out of bounds for axis 1 of field 'u' with extent 3
// OUT-NEXT: count: 1 demo_u_read: count is 14, but field 'u' has 15 scalars
// OUT-NEXT: ndarray: 1
// OUT-NEXT: loaded 0.5 1.5 2.5
// OUT-NEXT: pair 3 6
// OUT-NEXT: x 1 2 3 0 0 0 0 0 0 0 0 0
// OUT-NEXT: loss.grad 0 -> clear_grads 0
// OUT-NEXT: null ctx: 1
// OUT-NEXT: done

// SYMS-NOT: {{ [Tt] (scale|pair|load_u|__tic_)}}
// SYMS: T demo_clear_grads
// SYMS: T demo_create

// End to end: tc kernel -> LLVM dialect -> LLVM IR / x86-64 assembly / object
// through tic::emitCPU (tic-cpu-emit is a thin test driver over it).
// RUN: tic-cpu-emit %s --lower --emit=llvm -o - | FileCheck %s --check-prefix=IR
// RUN: tic-cpu-emit %s --lower --emit=asm --cpu=x86-64-v2 -o - | FileCheck %s --check-prefix=ASM
// RUN: tic-cpu-emit %s --lower --emit=obj -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=OBJ
// RUN: tic-cpu-emit %s --lower --emit=llvm -O0 -o - | FileCheck %s --check-prefix=O0

snode.tree @root {
  snode.dense @d axes [0] shape [4096] { snode.place @x : [f32] }
  snode.dense @e axes [0] shape [4096] { snode.place @y : [f32] }
}

tc.kernel @saxpy(%a: f32) {
  tc.struct_for @y (%i) {
    %xv = tc.load @x[%i] : f32
    %yv = tc.load @y[%i] : f32
    %m = arith.mulf %a, %xv : f32
    %s = arith.addf %m, %yv : f32
    tc.store %s, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// IR: target triple = "x86_64-unknown-linux-gnu"
// IR: define void @saxpy(ptr {{.*}}, float {{.*}})
// IR: call void @tic_rt_parallel_for(
// IR: define internal void @saxpy__par0(ptr {{.*}}, i64 {{.*}}, i64 {{.*}}, i32 {{.*}})
// The loop over the innermost dimension is vectorized at O3.
// IR: fmul <4 x float>
// IR: attributes #{{[0-9]+}} = { {{.*}}"target-cpu"="x86-64-v2"

// ASM-LABEL: saxpy__par0:
// ASM: mulps
// ASM: addps

// OBJ-DAG: T saxpy
// OBJ-DAG: t saxpy__par0
// OBJ-DAG: U tic_rt_parallel_for
// OBJ-DAG: U tic_rt_root

// O0-NOT: <4 x float>
// O0: define internal void @saxpy__par0

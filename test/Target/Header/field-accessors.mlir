// RUN: tic-opt %s --tic-generate-field-accessors=module-name=acc | FileCheck %s
// RUN: tic-opt %s --tic-generate-field-accessors=module-name=acc --tic-lower-struct-for --tic-lower-field-access | FileCheck %s --check-prefix=LOWERED

snode.tree @root {
  snode.dense @d axes [0, 1] shape [4, 6] {
    snode.place @v : [f64, f64]
  }
  snode.pointer @p axes [0] shape [8] {
    snode.dense @leaf axes [0] shape [4] { snode.place @s : [i32] }
  }
  snode.place @e : [f32]
  snode.place @"e.grad" : [f32]
}

tc.kernel @k(%a: f32) -> f32 {
  tc.return %a : f32
}

// Bytes of each field's elements (v: 4x6 f64x2, s: 32 i32, e and e.grad: one
// f32) for the runtime's out-of-memory message.
// CHECK: module attributes {tic.field_bytes = array<i64: 384, 128, 4, 4>, tic.interface = "{{.*}}\22module\22: \22acc\22
// CHECK-SAME: tic.root_align = {{[0-9]+}} : i64, tic.root_size = {{[0-9]+}} : i64

// CHECK-LABEL: tc.kernel @__tic_get_v(%{{.*}}: i32, %{{.*}}: i32) -> (f64, f64)
// CHECK: tc.load @v[%{{.*}}, %{{.*}}] : f64
// CHECK: tc.load @v[%{{.*}}, %{{.*}}] {comp = 1 : i64} : f64
// CHECK-LABEL: tc.kernel @__tic_set_v(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f64, %{{.*}}: f64)
// CHECK: tc.store %{{.*}}, @v[%{{.*}}, %{{.*}}] {comp = 1 : i64} : f64
// CHECK-LABEL: tc.kernel @__tic_read_v(%{{.*}}: !tc.ndarray<f64, 3>)
// CHECK: tc.parallel_for
// CHECK: tc.ndarray_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : !tc.ndarray<f64, 3>
// CHECK-LABEL: tc.kernel @__tic_write_v(%{{.*}}: !tc.ndarray<f64, 3>)
// CHECK: tc.ndarray_load
// The field below a pointer SNode gets no accessor kernels (not lowerable
// yet): its C functions return TC_ERR_UNSUPPORTED.
// CHECK-NOT: @__tic_get_s
// CHECK-LABEL: tc.kernel @__tic_get_e() -> f32
// CHECK-LABEL: tc.kernel @__tic_read_e(%{{.*}}: !tc.ndarray<f32, 1>)
// CHECK-NOT: tc.parallel_for
// CHECK-LABEL: tc.kernel @__tic_clear_e_grad()
// CHECK: tc.store %{{.*}}, @e.grad[] : f32

// LOWERED-NOT: tc.load
// LOWERED-NOT: tc.store

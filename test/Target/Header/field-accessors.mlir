// RUN: tic-opt %s --tic-allocate-layout --tic-generate-field-accessors=module-name=acc | FileCheck %s
// RUN: tic-opt %s --tic-allocate-layout --tic-generate-field-accessors=module-name=acc --tic-lower-struct-for --tic-lower-field-access | FileCheck %s --check-prefix=LOWERED

snode.tree @root {
  snode.dense @d axes [0, 1] shape [4, 6] {
    snode.place @v : [f64, f64]
  }
  // A hash below 2^32 parent cells: not lowerable.
  snode.dense @pd axes [1, 2] shape [65536, 65536] {
    snode.hash @p axes [0] shape [4] {
      snode.dense @leaf axes [0] shape [4] { snode.place @s : [i32] }
    }
  }
  snode.place @e : [f32]
  snode.place @"e.grad" : [f32]
  // AoS: a's elements are 8 bytes apart, b's components between them.
  snode.dense @aos axes [0] shape [16] {
    snode.place @a : [f32]
    snode.place @b : [f32]
  }
  // 2^20 f32 = 4 MiB: more than the memcpy limit (1 MiB).
  snode.dense @big axes [0] shape [1048576] {
    snode.place @large : [f32]
  }
}

tc.kernel @k(%a: f32) -> f32 {
  tc.return %a : f32
}

// Small fields stored exactly like their C array (v: 4x6 f64x2 at offset 0,
// 384 bytes; the 0-D e and e.grad) are copied with memcpy by their C entry
// points: [byte offset, bytes] per field, and no read/write kernels. The AoS
// fields and the 4 MiB one keep parallel copy kernels.
// CHECK: module attributes {tic.bulk_copy = {e = array<i64: [[EOFF:[0-9]+]], 4>, e.grad = array<i64: {{[0-9]+}}, 4>, v = array<i64: 0, 384>},
// Bytes of each field's elements (v: 4x6 f64x2, s: 2^32 x 16 i32, e and e.grad: one
// f32, a and b: 16 f32, large: 2^20 f32) for the runtime's out-of-memory
// message.
// CHECK-SAME: tic.field_bytes = array<i64: 384, 274877906944, 4, 4, 64, 64, 4194304>, tic.interface = "{{.*}}\22module\22: \22acc\22
// CHECK-SAME: tic.root_align = {{[0-9]+}} : i64, tic.root_size = {{[0-9]+}} : i64

// CHECK-LABEL: tc.kernel @__tic_get_v(%{{.*}}: i32, %{{.*}}: i32) -> (f64, f64)
// CHECK: tc.load @v[%{{.*}}, %{{.*}}] : f64
// CHECK: tc.load @v[%{{.*}}, %{{.*}}] {comp = 1 : i64} : f64
// CHECK-LABEL: tc.kernel @__tic_set_v(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f64, %{{.*}}: f64)
// CHECK: tc.store %{{.*}}, @v[%{{.*}}, %{{.*}}] {comp = 1 : i64} : f64
// CHECK-NOT: @__tic_read_v
// The field below a hash SNode below 2^32 parent cells gets no
// accessor kernels (not lowerable yet): its C functions return
// TC_ERR_UNSUPPORTED.
// CHECK-NOT: @__tic_get_s
// CHECK-LABEL: tc.kernel @__tic_get_e() -> f32
// CHECK-NOT: @__tic_read_e
// CHECK-LABEL: tc.kernel @__tic_clear_e_grad()
// CHECK: tc.store %{{.*}}, @e.grad[] : f32
// CHECK-LABEL: tc.kernel @__tic_read_a(%{{.*}}: !tc.ndarray<f32, 2>)
// CHECK: tc.parallel_for
// CHECK: tc.ndarray_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !tc.ndarray<f32, 2>
// CHECK-LABEL: tc.kernel @__tic_write_a(%{{.*}}: !tc.ndarray<f32, 2>)
// CHECK: tc.ndarray_load
// CHECK-LABEL: tc.kernel @__tic_read_large(%{{.*}}: !tc.ndarray<f32, 2>)
// CHECK: tc.parallel_for

// LOWERED-NOT: tc.load
// LOWERED-NOT: tc.store

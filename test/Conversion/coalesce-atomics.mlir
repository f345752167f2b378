// RUN: %tic-opt %s --tic-allocate-layout --tic-coalesce-atomics | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-coalesce-atomics --convert-snode-to-llvm | FileCheck %s --check-prefix=LLVM

// tic-coalesce-atomics: f32 atomic adds whose old values are unused, to
// components side by side in one cell value, in one block with nothing
// between them that may touch their fields, become one
// snode.atomic_add_fields at the last of them.

snode.tree @root {
  // AoS: v.x at byte 0, v.y at 4, m at 8, k (f64) at 16.
  snode.dense @grid axes [0] shape [64] {
    snode.place @v : [f32, f32]
    snode.place @m : [f32]
    snode.place @k : [f64]
  }
  // SoA: u and w in cells of their own.
  snode.dense @su axes [0] shape [64] { snode.place @u : [f32] }
  snode.dense @sw axes [0] shape [64] { snode.place @w : [f32] }
  // s at 0, q at 4..19: a run of four starting at byte 4.
  snode.dense @pq axes [0] shape [64] {
    snode.place @s : [f32]
    snode.place @q : [f32, f32, f32, f32]
  }
}

// MPM's scatter: the vec2 and the scalar after it, with arithmetic and a
// load of another field between them: one op at the last add, in byte
// order. Lowered: an odd run, so one pair and one single either way,
// chosen by the run's alignment with selects.
// CHECK-LABEL: func.func @p2g
// CHECK-NOT:     snode.atomic_rmw
// CHECK:         snode.load %{{.*}}, @u[0]
// CHECK:         %[[W:.*]] = arith.mulf
// CHECK-NEXT:    snode.atomic_add_fields (%{{.*}}, %{{.*}}, %[[W]]), %{{.*}}, [@v, @v, @m] [0, 1, 0]
// CHECK-NOT:     snode.atomic_rmw
// CHECK:         return
// LLVM-LABEL: func.func @p2g
// LLVM:         llvm.ptrtoint
// LLVM:         llvm.and
// LLVM:         %[[AL:.*]] = llvm.icmp "eq"
// LLVM:         arith.select %[[AL]]
// Tagged with the scopes of v and m, apart from u's.
// LLVM:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alias_scopes = [#{{.*}}, #{{.*}}], alignment = 8 : i64, noalias_scopes = [#{{.*}}]} : !llvm.ptr, vector<2xf32>
// LLVM:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alias_scopes = [#{{.*}}, #{{.*}}], alignment = 4 : i64, noalias_scopes = [#{{.*}}]} : !llvm.ptr, f32
// LLVM-NOT:     llvm.atomicrmw
// LLVM:         return
func.func @p2g(%cell: !snode.ptr, %other: !snode.ptr, %x: f32, %y: f32) {
  %a = snode.atomic_rmw add %x, %cell, @v[0] : f32
  %b = snode.atomic_rmw add %y, %cell, @v[1] : f32
  %u = snode.load %other, @u[0] : f32
  %w = arith.mulf %x, %u : f32
  %c = snode.atomic_rmw add %w, %cell, @m[0] : f32
  return
}

// An even run: one branch on the alignment, two pairs when the run starts
// 8-byte aligned, else a single, a pair and a single.
// CHECK-LABEL: func.func @even
// CHECK:         snode.atomic_add_fields (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}), %{{.*}}, [@q, @q, @q, @q] [0, 1, 2, 3]
// LLVM-LABEL: func.func @even
// LLVM:         scf.if
// LLVM-COUNT-2:   llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alignment = 8 : i64} : !llvm.ptr, vector<2xf32>
// LLVM:         } else {
// LLVM:           llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alignment = 4 : i64} : !llvm.ptr, f32
// LLVM:           llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alignment = 8 : i64} : !llvm.ptr, vector<2xf32>
// LLVM:           llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alignment = 4 : i64} : !llvm.ptr, f32
// LLVM:         }
func.func @even(%cell: !snode.ptr, %x: f32) {
  %a = snode.atomic_rmw add %x, %cell, @q[3] : f32
  %b = snode.atomic_rmw add %x, %cell, @q[1] : f32
  %c = snode.atomic_rmw add %x, %cell, @q[0] : f32
  %d = snode.atomic_rmw add %x, %cell, @q[2] : f32
  return
}

// What stays apart: an old value in use; f64; not side by side (v.x and m,
// with v.y not updated); fields in different cells (SoA); a load of the
// field between the adds (v.y's first add stays alone). A second add to a
// component in the group starts a new group (the thread's order of
// additions to one address is kept): m, v.y, v.y, m make two pairs.
// CHECK-LABEL: func.func @apart
// CHECK-NOT:     snode.atomic_add_fields
// CHECK:         snode.atomic_rmw add %{{.*}}, %{{.*}}, @v[1]
// CHECK:         snode.load
// CHECK-NEXT:    snode.atomic_add_fields (%{{.*}}, %{{.*}}), %{{.*}}, [@v, @m] [1, 0]
// CHECK-NEXT:    snode.atomic_add_fields (%{{.*}}, %{{.*}}), %{{.*}}, [@v, @m] [1, 0]
// CHECK-NOT:     snode.atomic
// CHECK:         return
func.func @apart(%cell: !snode.ptr, %c2: !snode.ptr, %x: f32, %d: f64) -> f32 {
  %a = snode.atomic_rmw add %x, %cell, @v[0] : f32
  %b = snode.atomic_rmw add %x, %cell, @v[1] : f32
  %k = snode.atomic_rmw add %d, %cell, @k[0] : f64
  %u = snode.atomic_rmw add %x, %c2, @u[0] : f32
  %w = snode.atomic_rmw add %x, %c2, @w[0] : f32
  %l = snode.load %cell, @v[0] : f32
  %e = snode.atomic_rmw add %x, %cell, @m[0] : f32
  %f = snode.atomic_rmw add %x, %cell, @v[1] : f32
  %g = snode.atomic_rmw add %x, %cell, @v[1] : f32
  %h = snode.atomic_rmw add %x, %cell, @m[0] : f32
  %s = arith.addf %a, %l : f32
  return %s : f32
}

// Adds to v through another cell value (maybe the same cell) keep their
// order with the group's: the group ends there.
// CHECK-LABEL: func.func @other_cell
// CHECK-NOT:     snode.atomic_add_fields
// CHECK:         return
func.func @other_cell(%cell: !snode.ptr, %maybe: !snode.ptr, %x: f32) {
  %a = snode.atomic_rmw add %x, %cell, @v[0] : f32
  %b = snode.atomic_rmw add %x, %maybe, @v[0] : f32
  %c = snode.atomic_rmw add %x, %cell, @v[1] : f32
  return
}

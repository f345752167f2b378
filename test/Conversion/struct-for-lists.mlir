// RUN: %tic-opt %s --tic-allocate-layout | FileCheck %s --check-prefix=LAYOUT
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout "--tic-lower-struct-for=lists=false" | FileCheck %s --check-prefix=SCAN
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access --convert-snode-to-llvm | FileCheck %s --check-prefix=LLVM

// A struct-for whose deepest sparse node is a pointer node runs over that
// node's cached list of active cells. The list is rebuilt only when the
// stamp it was built at (the sum of the epoch counters of the sparse nodes
// on the path, bumped by every activation and deactivation) changed: a
// time-stepping loop that activates nothing scans the slots once.
snode.tree @root {
  snode.pointer @p axes [0, 1] shape [4, 8] {
    snode.bitmasked @b axes [0, 1] shape [2, 2] {
      snode.pointer @q axes [0, 1] shape [2, 2] {
        snode.dense @d axes [0, 1] shape [4, 4] { snode.place @u : [f32] }
      }
    }
  }
  snode.place @s : [f32]
}
snode.tree @t2 {
  snode.pointer @p2 axes [0] shape [8] {
    snode.bitmasked @b2 axes [0] shape [4] { snode.place @w : [f32] }
  }
}
snode.tree @t3 {
  snode.dense @d3 axes [0] shape [4] {
    snode.bitmasked @b3 axes [0] shape [8] {
      snode.dense @l3 axes [0] shape [2] { snode.place @z : [f32] }
    }
  }
}
// After the root cell: @p's epoch and list (16 bytes of stamp and count,
// then 4 x 8 cells), @b's epoch, @q's epoch and list (16 x 32 cells).
// LAYOUT: snode.pointer @p axes [0, 1] shape [4, 8] attributes {{{.*}}epoch_offset = [[EP:[0-9]+]] : i64, list_offset = [[LP:[0-9]+]] : i64
// LAYOUT: snode.bitmasked @b {{.*}}epoch_offset = {{[0-9]+}} : i64
// LAYOUT-NOT: list_offset
// LAYOUT: snode.pointer @q {{.*}}epoch_offset = {{[0-9]+}} : i64, list_offset = {{[0-9]+}} : i64
// A bitmasked node below a pointer has none (@b2: the pointer's list
// serves); one without a pointer above has its list (@b3).
// LAYOUT: snode.bitmasked @b2
// LAYOUT-NOT: list_offset
// LAYOUT: snode.bitmasked @b3 {{.*}}list_offset = {{[0-9]+}} : i64

// CHECK-LABEL: tc.kernel @sum
// The stamp: the three epochs of the path @p -> @b -> @q.
// CHECK:       %[[E0:.*]] = snode.structure_ptr @p epoch : !llvm.ptr
// CHECK:       llvm.load %[[E0]] atomic monotonic
// CHECK:       snode.structure_ptr @b epoch : !llvm.ptr
// CHECK:       %[[E2:.*]] = snode.structure_ptr @q epoch : !llvm.ptr
// CHECK:       %[[L2:.*]] = llvm.load %[[E2]] atomic monotonic
// CHECK:       %[[STAMP:.*]] = arith.addi %{{.*}}, %[[L2]] : i64
// CHECK:       %[[LIST:.*]] = snode.structure_ptr @q list : !llvm.ptr
// CHECK:       %[[BUILT:.*]] = llvm.load %[[LIST]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       %[[VALID:.*]] = arith.cmpi eq, %[[STAMP]], %[[BUILT]] : i64
// The rebuild: no iteration when the list is current, else every cell of
// @q (16 x 32 = 512), appending the active ones.
// CHECK:       %[[C512:.*]] = arith.constant 512 : i32
// CHECK:       %[[UB:.*]] = arith.select %[[VALID]], %{{.*}}, %[[C512]] : i32
// CHECK:       tc.parallel_for (%[[L:.*]]) = (%{{.*}}) to (%[[UB]]) {
// CHECK:         %[[A:.*]] = tc.is_active @q[%{{.*}}, %{{.*}}] : i1
// CHECK:         scf.if %[[A]] {
// CHECK:           %[[K:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:           llvm.store %[[L]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// The new stamp is recorded; then the loop runs over the list.
// CHECK:       scf.if
// CHECK:         llvm.store %[[STAMP]], %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:       %[[N:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:       tc.parallel_for (%[[E:.*]]) = (%{{.*}}) to (%[[N]]) {
// CHECK:         %[[CELL:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             tc.load @u[%{{.*}}, %{{.*}}] {tc.active = @q} : f32
// CHECK-NOT:   tc.is_active

// Without lists: the scan over @q's cells, each tested.
// SCAN-LABEL: tc.kernel @sum
// SCAN-NOT:   snode.structure_ptr
// SCAN:       tc.parallel_for
// SCAN:         tc.is_active @q

// The epochs are bumped where cells change: a write into @q's cell
// activates @p, @b and @q, each counting it when it made the change.
// LLVM-LABEL: tc.kernel @put
// LLVM-COUNT-3: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
tc.kernel @sum() {
  tc.struct_for @u (%i, %j) {
    %v = tc.load @u[%i, %j] : f32
    tc.store %v, @s[] : f32
    tc.yield
  }
  tc.return
}
tc.kernel @put(%i: i32, %j: i32, %v: f32) {
  tc.store %v, @u[%i, %j] : f32
  tc.return
}

// A bitmasked leaf under a pointer node: the loop runs over the pointer
// node's list (one task per active block) and tests the leaf's cells in
// each block.
// CHECK-LABEL: tc.kernel @sum2
// CHECK:       snode.structure_ptr @p2 list : !llvm.ptr
// CHECK:       tc.parallel_for
// CHECK:         tc.is_active @p2
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%[[N2:.*]]) {
// CHECK:         scf.for %[[R:.*]] =
// CHECK:           %[[A2:.*]] = tc.is_active @b2[%{{.*}}] : i1
// CHECK:           scf.if %[[A2]] {
// CHECK:             tc.load @w[%{{.*}}] {tc.active = @b2} : f32
tc.kernel @sum2() {
  tc.struct_for @w (%i) {
    %v = tc.load @w[%i] : f32
    tc.store %v, @s[] : f32
    tc.yield
  }
  tc.return
}

// A path without a pointer node: the bitmasked node's own list (stamp: its
// epoch), rebuilt from its 4 x 8 cells only when the epoch moved, then one
// task per active cell over its 2 elements.
// CHECK-LABEL: tc.kernel @sum3
// CHECK:       %[[E3:.*]] = snode.structure_ptr @b3 epoch : !llvm.ptr
// CHECK:       llvm.load %[[E3]] atomic monotonic
// CHECK:       snode.structure_ptr @b3 list : !llvm.ptr
// CHECK:       %[[C32:.*]] = arith.constant 32 : i32
// CHECK:       %[[UB3:.*]] = arith.select %{{.*}}, %{{.*}}, %[[C32]] : i32
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%[[UB3]]) {
// CHECK:         tc.is_active @b3[%{{.*}}] : i1
// CHECK:       tc.parallel_for
// CHECK:         scf.for
// CHECK:           tc.load @z[%{{.*}}] {tc.active = @b3} : f32
// CHECK-NOT:   tc.is_active
// CHECK:       tc.return
tc.kernel @sum3() {
  tc.struct_for @z (%i) {
    %v = tc.load @z[%i] : f32
    tc.store %v, @s[] : f32
    tc.yield
  }
  tc.return
}

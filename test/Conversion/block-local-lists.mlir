// RUN: %tic-opt %s --tic-allocate-layout --tic-block-local -verify-diagnostics | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout "--tic-block-local=checked=true" 2>/dev/null | FileCheck %s --check-prefix=CHECKED

// tic-block-local over dynamic lists, one per block of a grid (Taichi's
// particle-to-grid with block local storage): the blocks are the lists
// (the cells of the dynamic node's parent), each list's elements run in
// one tc.block_for bounded by its length, and the hinted field's accesses
// are at assume_in_range(x, list index * s + d, lo, hi): its footprint is
// [i * s + d + lo + c_min, i * s + d + hi - 1 + c_max] per axis.

snode.tree @root {
  snode.pointer @grid axes [0, 1] shape [8, 8] {
    snode.dense @cells axes [0, 1] shape [8, 8] {
      snode.place @g : [f32]
      snode.place @gv : [f32, f32]
    }
  }
  snode.pointer @bucket axes [0, 1] shape [8, 8] {
    snode.dynamic @list axes [2] shape [1024] {
      snode.place @pid : [i32]
    }
  }
  snode.pointer @tb axes [0, 1] shape [8, 8] {
    snode.dense @tcells axes [0, 1] shape [8, 8] {
      snode.place @tg : [f32]
    }
    snode.dynamic @tlist axes [2] shape [1024] {
      snode.place @tpid : [i32]
    }
  }
  snode.dense @parts axes [0] shape [4096] {
    snode.place @cx : [i32]
    snode.place @cy : [i32]
    snode.place @back : [f32]
  }
}

// A scatter to the 3 x 3 cells from a corner in the list's 8 x 8 block:
// a 10 x 10 buffer and flags, filled by 256 threads a list; the elements
// below the list's length; the adds at corner + c - (8 * bi + 0) in the
// buffer; the flush at 8 * bi + t.
// CHECK-LABEL: tc.kernel @scatter
// CHECK:         tc.struct_for @bucket (%[[B0:.*]], %[[B1:.*]]) attributes {block_dim = 256 : i32} {
// CHECK:           %[[I0:.*]] = arith.muli %[[B0]], %{{.*}} overflow<nsw, nuw>
// CHECK:           %[[I1:.*]] = arith.muli %[[B1]], %{{.*}} overflow<nsw, nuw>
// CHECK:           %[[S0:.*]] = arith.muli %[[I0]], %{{.*}} overflow<nsw, nuw>
// CHECK:           %[[S1:.*]] = arith.muli %[[I1]], %{{.*}} overflow<nsw, nuw>
// CHECK:           %[[BUF:.*]] = tc.block_buffer : memref<10x10xf32>
// CHECK:           %[[FLAGS:.*]] = tc.block_buffer : memref<10x10xi8>
// CHECK:           tc.block_for (%{{.*}}, %{{.*}}) to (10, 10) {
// CHECK:           %[[LEN:.*]] = tc.length @list[%[[I0]], %[[I1]]] {tc.active = @bucket} : i32
// CHECK:           tc.block_for (%[[K:.*]]) to (%[[LEN]]) {
// CHECK:             %[[P:.*]] = tc.load @pid[%[[I0]], %[[I1]], %{{.*}}] {tc.active = @list} : i32
// CHECK:             %[[X:.*]] = tc.load @cx[%[[P]]] : i32
// CHECK:             %[[Y:.*]] = tc.load @cy[%[[P]]] : i32
// CHECK-NOT:         tc.atomic_rmw
// CHECK:             %[[LO0:.*]] = arith.addi %[[S0]], %{{.*}} : i32
// CHECK:             %[[SL0:.*]] = arith.subi %[[X]], %[[LO0]] overflow<nsw, nuw>
// CHECK:             %[[LO1:.*]] = arith.addi %[[S1]], %{{.*}} : i32
// CHECK:             %[[SL1:.*]] = arith.subi %[[Y]], %[[LO1]] overflow<nsw, nuw>
// CHECK:             memref.atomic_rmw addf %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}}]
// CHECK:             memref.store %{{.*}}, %[[FLAGS]]
// CHECK:           tc.block_for (%[[T0:.*]], %[[T1:.*]]) to (10, 10) {
// CHECK:             %[[O0:.*]] = arith.addi %[[T0]], %{{.*}} overflow<nsw>
// CHECK:             %[[G0:.*]] = arith.addi %[[S0]], %[[O0]] overflow<nsw>
// CHECK:             scf.if
// The grid's cells are not the lists' (another tree): no cell known active.
// CHECK-NOT:           tc.active
// CHECK:               tc.atomic_rmw add %{{.*}}, @g[%[[G0]], %{{.*}}] : f32
// CHECK-NOT:           tc.active
// CHECK:             tc.yield
tc.kernel @scatter() {
  tc.struct_for @pid (%bi, %bj, %k) attributes {block_local = [@g]} {
    %p = tc.load @pid[%bi, %bj, %k] : i32
    %x = tc.load @cx[%p] : i32
    %y = tc.load @cy[%p] : i32
    %c8 = arith.constant 8 : i32
    %ox = arith.muli %bi, %c8 : i32
    %oy = arith.muli %bj, %c8 : i32
    %ax = tc.assume_in_range %x, %ox, 0, 8 : i32
    %ay = tc.assume_in_range %y, %oy, 0, 8 : i32
    %one = arith.constant 1.0 : f32
    tc.atomic_rmw add %one, @g[%ax, %ay] : f32
    %c2 = arith.constant 2 : i32
    %x2 = arith.addi %ax, %c2 : i32
    %y2 = arith.addi %ay, %c2 : i32
    tc.atomic_rmw add %one, @g[%x2, %y2] : f32
    tc.yield
  }
  tc.return
}

// A gather with a base one row up (d = -1) and a scale of 4 along the
// columns (lists of 4-wide blocks, say): rows [8 bi - 1, 8 bi + 6 + 2],
// columns [4 bj, 4 bj + 3]: a 10 x 4 buffer, read for every slot.
// CHECK-LABEL: tc.kernel @gather
// CHECK:         tc.struct_for @bucket
// CHECK:           %[[RB:.*]] = tc.block_buffer : memref<10x4xf32>
// CHECK:           tc.block_for (%{{.*}}, %{{.*}}) to (10, 4) {
// CHECK:             tc.load @g[
// CHECK:           tc.length @list
// CHECK:           tc.block_for (%{{.*}}) to (%{{.*}}) {
// CHECK:             memref.load %[[RB]]
// CHECK:             memref.load %[[RB]]
// CHECK-NOT:         tc.load @g
// CHECK:             tc.store %{{.*}}, @back
tc.kernel @gather() {
  tc.struct_for @pid (%bi, %bj, %k) attributes {block_local = [@g]} {
    %p = tc.load @pid[%bi, %bj, %k] : i32
    %x = tc.load @cx[%p] : i32
    %y = tc.load @cy[%p] : i32
    %c8 = arith.constant 8 : i32
    %c4 = arith.constant 4 : i32
    %cm1 = arith.constant -1 : i32
    %ox0 = arith.muli %c8, %bi : i32
    %ox = arith.addi %ox0, %cm1 : i32
    %oy = arith.muli %bj, %c4 : i32
    %ax = tc.assume_in_range %x, %ox, 0, 8 : i32
    %ay = tc.assume_in_range %y, %oy, 0, 4 : i32
    %v0 = tc.load @g[%ax, %ay] : f32
    %c2 = arith.constant 2 : i32
    %x2 = arith.addi %ax, %c2 : i32
    %v1 = tc.load @g[%x2, %ay] : f32
    %s = arith.addf %v0, %v1 : f32
    tc.store %s, @back[%p] : f32
    tc.yield
  }
  tc.return
}

// tic -g (checked): a slot at an assume_in_range is tested against the
// buffer (a broken promise would lie outside it; no overflow flags on its
// subtraction), and outside it the access goes to the field.
// CHECKED-LABEL: tc.kernel @gather
// CHECKED:         tc.block_for (%{{.*}}) to (%{{.*}}) {
// CHECKED:           %[[SX:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECKED-NEXT:      %[[IX:.*]] = arith.index_cast %[[SX]] : i32 to index
// CHECKED:           %[[SY:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECKED-NEXT:      %[[IY:.*]] = arith.index_cast %[[SY]] : i32 to index
// CHECKED:           %[[E0:.*]] = arith.constant 10 : i32
// CHECKED-NEXT:      %[[X32:.*]] = arith.index_cast %[[IX]] : index to i32
// CHECKED-NEXT:      %[[OK0:.*]] = arith.cmpi ult, %[[X32]], %[[E0]] : i32
// CHECKED-NEXT:      %[[E1:.*]] = arith.constant 4 : i32
// CHECKED-NEXT:      %[[Y32:.*]] = arith.index_cast %[[IY]] : index to i32
// CHECKED-NEXT:      %[[OK1:.*]] = arith.cmpi ult, %[[Y32]], %[[E1]] : i32
// CHECKED-NEXT:      %[[OK:.*]] = arith.andi %[[OK0]], %[[OK1]] : i1
// CHECKED-NEXT:      %{{.*}} = scf.if %[[OK]] -> (f32) {
// CHECKED-NEXT:        memref.load %{{.*}}[%[[IX]], %[[IY]]] : memref<10x4xf32>
// CHECKED-NEXT:        scf.yield
// CHECKED-NEXT:      } else {
// CHECKED-NEXT:        tc.load @g[%{{.*}}, %{{.*}}] : f32
// CHECKED-NEXT:        scf.yield
// CHECKED-NEXT:      }
// The scatter's adds: to the buffer and its flag, or to the field.
// CHECKED-LABEL: tc.kernel @own_blocks
// CHECKED:         tc.block_for (%{{.*}}) to (%{{.*}}) {
// CHECKED:           scf.if %{{.*}} {
// CHECKED-NEXT:        memref.atomic_rmw addf
// CHECKED-NEXT:        arith.constant 1 : i8
// CHECKED-NEXT:        memref.store
// CHECKED-NEXT:      } else {
// CHECKED-NEXT:        tc.atomic_rmw add %{{.*}}, @tg[%{{.*}}, %{{.*}}] : f32
// CHECKED-NEXT:      }

// Hints it cannot follow, a warning each at the loop.
tc.kernel @scales_differ() {
  // expected-warning @below {{'block_local' is ignored: the accesses to 'g' scale the loop's indices differently}}
  tc.struct_for @pid (%bi, %bj, %k) attributes {block_local = [@g]} {
    %p = tc.load @pid[%bi, %bj, %k] : i32
    %x = tc.load @cx[%p] : i32
    %c8 = arith.constant 8 : i32
    %c4 = arith.constant 4 : i32
    %o8 = arith.muli %bi, %c8 : i32
    %o4 = arith.muli %bi, %c4 : i32
    %a = tc.assume_in_range %x, %o8, 0, 8 : i32
    %b = tc.assume_in_range %x, %o4, 0, 8 : i32
    %v0 = tc.load @g[%a, %bj] : f32
    %v1 = tc.load @g[%b, %bj] : f32
    %s = arith.addf %v0, %v1 : f32
    tc.store %s, @back[%p] : f32
    tc.yield
  }
  tc.return
}

tc.kernel @wrong_rank() {
  // expected-warning @below {{'block_local' is ignored: 'back' does not have the 2 indices of the loop's lists}}
  tc.struct_for @pid (%bi, %bj, %k) attributes {block_local = [@back]} {
    %p = tc.load @pid[%bi, %bj, %k] : i32
    %v = tc.load @back[%p] : f32
    tc.yield
  }
  tc.return
}

// Taichi's layout: the lists in the grid's own pointer blocks. A list's
// 8 x 8 cells of tg (t + lo in [0, 8) per axis) are in the pointer cell the
// loop visits: the flush adds there without activating (tc.active = @tb),
// the halo's with a lookup.
// CHECK-LABEL: tc.kernel @own_blocks
// CHECK:         tc.struct_for @tb
// CHECK:           tc.block_buffer : memref<10x10xf32>
// CHECK:           tc.length @tlist[%{{.*}}, %{{.*}}] {tc.active = @tb} : i32
// CHECK:           tc.block_for (%[[U0:.*]], %[[U1:.*]]) to (10, 10) {
// CHECK:             %[[OFF0:.*]] = arith.addi %[[U0]], %{{.*}} overflow<nsw>
// CHECK:             %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK:             %[[MINE0:.*]] = arith.cmpi ult, %[[OFF0]], %[[EIGHT]] : i32
// CHECK:             %[[MINE:.*]] = arith.andi %[[MINE0]], %{{.*}} : i1
// CHECK:             scf.if
// CHECK:               scf.if %[[MINE]] {
// CHECK-NEXT:            tc.atomic_rmw add %{{.*}}, @tg[%{{.*}}, %{{.*}}] {tc.active = @tb} : f32
// CHECK-NEXT:          } else {
// CHECK-NEXT:            tc.atomic_rmw add %{{.*}}, @tg[%{{.*}}, %{{.*}}] : f32
tc.kernel @own_blocks() {
  tc.struct_for @tpid (%bi, %bj, %k) attributes {block_local = [@tg]} {
    %p = tc.load @tpid[%bi, %bj, %k] : i32
    %x = tc.load @cx[%p] : i32
    %y = tc.load @cy[%p] : i32
    %c8 = arith.constant 8 : i32
    %ox = arith.muli %bi, %c8 : i32
    %oy = arith.muli %bj, %c8 : i32
    %ax = tc.assume_in_range %x, %ox, 0, 8 : i32
    %ay = tc.assume_in_range %y, %oy, 0, 8 : i32
    %one = arith.constant 1.0 : f32
    tc.atomic_rmw add %one, @tg[%ax, %ay] : f32
    %c2 = arith.constant 2 : i32
    %x2 = arith.addi %ax, %c2 : i32
    %y2 = arith.addi %ay, %c2 : i32
    tc.atomic_rmw add %one, @tg[%x2, %y2] : f32
    tc.yield
  }
  tc.return
}

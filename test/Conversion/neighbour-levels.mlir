// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access | FileCheck %s

// Neighbours of a struct-for over two sparse levels (thesis 2.5: accesses
// share the traversal down to their common ancestor). Over a pointer grid
// of single bitmasked cells (examples/sparse's layout), u[i + 1] in
// `for i in u` is never in the loop's own bitmasked cell, but in its
// pointer cell when i's place in its 16 cells plus 1 stays below 16: then
// the loop's pointer cell, known active, and the neighbour's bitmasked
// cell in it (with the inactive fallback); else the plain path.
snode.tree @cells {
  snode.pointer @p axes [0] shape [8] {
    snode.bitmasked @m axes [0] shape [16] { snode.place @u : [f32] snode.place @v : [f32] }
  }
}
tc.kernel @k() {
  tc.struct_for @u (%i) {
    %c1 = arith.constant 1 : i32
    %n = arith.addi %i, %c1 : i32
    %y = tc.load @u[%n] : f32
    tc.store %y, @v[%i] : f32
    tc.yield
  }
  tc.return
}
// CHECK-LABEL: tc.kernel @k
// CHECK:       scf.for %[[E:.*]] = %{{.*}} to %c16{{.*}} step
// CHECK:         %[[I:.*]] = arith.addi %{{.*}}, %[[E]] overflow<nsw, nuw> : i32
// CHECK:         scf.if
// CHECK:           %[[N:.*]] = arith.addi %[[I]], %c1{{.*}} : i32
// CHECK:           %[[E1:.*]] = arith.addi %[[E]], %c1{{.*}} : i32
// CHECK:           %[[IN_P:.*]] = arith.cmpi slt, %[[E1]], %c16{{.*}} : i32
// CHECK:           %[[CELL:.*]] = scf.if %[[IN_P]] -> (!snode.ptr) {
// CHECK:             %[[OWN:.*]] = snode.index_extract %[[I]], @p[0] below 16 : i32
// CHECK:             snode.lookup pointer %{{.*}}, @p[%[[OWN]]] known_active : i32
// CHECK:             %[[NM:.*]] = snode.index_extract %[[N]], @m[0] below 1 : i32
// CHECK:             %[[M:.*]] = snode.lookup bitmasked %{{.*}}, @m[%[[NM]]] : i32
// CHECK:             scf.yield %[[M]] : !snode.ptr
// CHECK:           } else {
// CHECK:             %[[NP:.*]] = snode.index_extract %[[N]], @p[0] below 16 : i32
// CHECK:             snode.lookup pointer %{{.*}}, @p[%[[NP]]] : i32
// CHECK:             snode.lookup bitmasked %{{.*}}, @m[%{{.*}}] : i32
// CHECK:           }
// CHECK:           snode.load %[[CELL]], @u[0] : f32

// Over blocks of elements (pointer -> bitmasked -> dense), the neighbour
// is tested against the loop's own bitmasked cell only: in it the own
// path, else the plain path (a second test, against the pointer cell, at
// the blocks' edges measured slower than the plain path).
snode.tree @blocks {
  snode.pointer @q axes [0] shape [8] {
    snode.bitmasked @b axes [0] shape [4] {
      snode.dense @d axes [0] shape [8] { snode.place @x : [f32] snode.place @y : [f32] }
    }
  }
}
tc.kernel @blk() {
  tc.struct_for @x (%i) {
    %c1 = arith.constant 1 : i32
    %n = arith.addi %i, %c1 : i32
    %t = tc.load @x[%n] : f32
    tc.store %t, @y[%i] : f32
    tc.yield
  }
  tc.return
}
// CHECK-LABEL: tc.kernel @blk
// CHECK:       scf.for %[[E:.*]] = %{{.*}} to %c8{{.*}} step
// CHECK:         %[[E1:.*]] = arith.addi %[[E]], %c1{{.*}} : i32
// CHECK:         %[[IN_B:.*]] = arith.cmpi slt, %[[E1]], %c8{{.*}} : i32
// CHECK:         scf.if %[[IN_B]] -> (!snode.ptr) {
// CHECK:           snode.lookup pointer %{{.*}}, @q[%{{.*}}] known_active : i32
// CHECK:           snode.lookup bitmasked %{{.*}}, @b[%{{.*}}] known_active : i32
// CHECK:         } else {
// CHECK-NOT:       scf.if
// CHECK:           snode.lookup pointer %{{.*}}, @q[%{{.*}}] : i32
// CHECK:           snode.lookup bitmasked %{{.*}}, @b[%{{.*}}] : i32
// CHECK:         }
// CHECK:         snode.load %{{.*}}, @x[0] : f32

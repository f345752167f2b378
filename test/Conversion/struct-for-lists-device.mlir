// RUN: %tic-opt %s --tic-allocate-layout "--tic-lower-struct-for=device=true" | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for | FileCheck %s --check-prefix=HOST

// --target=cuda: a struct-for over a pointer node's cached list of active
// cells reads nothing from field memory in host code (there, every read
// waits for the launches in flight). Three launches with constant bounds:
// one iteration decides whether the list is stale and records it at byte 12
// of the list's header; the rebuild runs over every cell and appends the
// active ones, limited by that flag (every cell, or none); the body's loop
// runs over every cell too, limited by the list's count. A limit is read
// once per task instance (a GPU thread's grid-stride loop stops there, no
// iteration tests it; a CPU context's launch covers the iterations before
// it only), so this holds at any number of cells. The
// elements of a cell are parallel dimensions of the body's loop (a GPU
// thread per element, not per cell), not serial loops.
snode.tree @root {
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [4] { snode.place @u : [f32] }
  }
}
snode.tree @deep {
  snode.pointer @dp axes [0] shape [8] {
    snode.bitmasked @db axes [0] shape [2] {
      snode.dense @dd axes [0] shape [4] { snode.place @w : [f32] }
    }
  }
}
snode.tree @big {
  snode.pointer @bp axes [0, 1] shape [512, 512] {
    snode.dense @bd axes [0, 1] shape [2, 2] { snode.place @v : [f32] }
  }
}

// CHECK-LABEL: tc.kernel @twice
// CHECK:         tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%[[ONE:.*]]) {
// CHECK:           %[[EPOCH:.*]] = snode.structure_ptr @p epoch
// CHECK:           %[[E:.*]] = llvm.load %[[EPOCH]] atomic monotonic
// CHECK:           %[[STAMP:.*]] = arith.addi %{{.*}}, %[[E]] : i64
// CHECK:           %[[LIST:.*]] = snode.structure_ptr @p list
// CHECK:           %[[BUILT:.*]] = llvm.load %[[LIST]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:           %[[STALE:.*]] = arith.cmpi ne, %[[STAMP]], %[[BUILT]] : i64
// CHECK:           scf.if %[[STALE]] {
// CHECK:             %[[COUNT0:.*]] = llvm.getelementptr inbounds %[[LIST]][8]
// CHECK:             llvm.store %{{.*}}, %[[COUNT0]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:             llvm.store %[[STAMP]], %[[LIST]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:           }
// CHECK:           %[[STALE32:.*]] = arith.extui %[[STALE]] : i1 to i32
// CHECK:           %[[FLAG:.*]] = llvm.getelementptr inbounds %[[LIST]][12]
// CHECK:           llvm.store %[[STALE32]], %[[FLAG]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         %[[C16:.*]] = arith.constant 16 : i32
// CHECK:         tc.parallel_for (%[[L:.*]]) = (%{{.*}}) to (%[[C16]]) limit {
// CHECK-NEXT:      %[[FLP:.*]] = snode.structure_ptr @p list
// CHECK-NEXT:      %[[FP:.*]] = llvm.getelementptr inbounds %[[FLP]][12]
// CHECK-NEXT:      %[[F:.*]] = llvm.load %[[FP]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[SET:.*]] = arith.cmpi ne, %[[F]], %[[Z]] : i32
// CHECK-NEXT:      %[[ALL:.*]] = arith.constant 16 : i32
// CHECK-NEXT:      %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[STOP:.*]] = arith.select %[[SET]], %[[ALL]], %[[NONE]] : i32
// CHECK-NEXT:      tc.yield %[[STOP]] : i32
// CHECK-NEXT:    } {
// CHECK-NEXT:      %[[ACTIVE:.*]] = tc.is_active @p[%[[L]]] : i1
// CHECK-NEXT:      scf.if %[[ACTIVE]] {
// CHECK:             llvm.atomicrmw add
// CHECK:             llvm.store %[[L]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         %[[C16B:.*]] = arith.constant 16 : i32
// CHECK:         %[[C4:.*]] = arith.constant 4 : i32
// CHECK:         tc.parallel_for (%[[N:.*]], %[[R:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C16B]], %[[C4]]) limit {
// CHECK-NEXT:      %[[LP:.*]] = snode.structure_ptr @p list
// CHECK-NEXT:      %[[CP:.*]] = llvm.getelementptr inbounds %[[LP]][8]
// CHECK-NEXT:      %[[COUNT:.*]] = llvm.load %[[CP]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:      tc.yield %[[COUNT]] : i32
// CHECK-NEXT:    } {
// CHECK-NOT:       arith.cmpi slt, %[[N]]
// CHECK:           %[[CELL:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NOT:       scf.for
// CHECK:           %[[BASE:.*]] = arith.muli %[[CELL]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK:           %[[I:.*]] = arith.addi %[[BASE]], %[[R]] overflow<nsw, nuw> : i32
// CHECK:           tc.load @u[%[[I]]] {tc.active = @p} : f32
// CHECK:           tc.store %{{.*}}, @u[%[[I]]] {tc.active = @p} : f32
// Host code itself reads and writes nothing of the list.
// CHECK-NOT:     llvm.load
// CHECK:         tc.return
// CHECK-NEXT:  }

// Without `device` the host decides: it reads the stamp and the count and
// launches the rebuild over 0 cells when the list is current.
// HOST-LABEL: tc.kernel @twice
// HOST:         %[[BUILT:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// HOST:         arith.select
// HOST:         tc.parallel_for
// HOST:         %[[COUNT:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// HOST:         tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%[[COUNT]]) {
// HOST:           scf.for
tc.kernel @twice() {
  tc.struct_for @u (%i) {
    %v = tc.load @u[%i] : f32
    %w = arith.addf %v, %v : f32
    tc.store %w, @u[%i] : f32
    tc.yield
  }
  tc.return
}

// A node of 512 x 512 cells decides on the device too: the launches over
// every cell stop at their limits.
// CHECK-LABEL: tc.kernel @large
// CHECK-NOT:     llvm.load
// CHECK:         tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// CHECK:         %[[CELLS:.*]] = arith.constant 262144 : i32
// CHECK:         tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%[[CELLS]]) limit {
// CHECK:           llvm.atomicrmw add
// CHECK:           tc.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[CELLS2:.*]] = arith.constant 262144 : i32
// CHECK:         tc.parallel_for (%{{.*}}, %{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%[[CELLS2]], %{{.*}}, %{{.*}}) limit {
tc.kernel @large() {
  tc.struct_for @v (%i, %j) {
    %x = tc.load @v[%i, %j] : f32
    %y = arith.addf %x, %x : f32
    tc.store %y, @v[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// A deeper sparse node in the listed cells: its cells and their elements
// are parallel dimensions too, each thread testing its bitmasked cell.
// CHECK-LABEL: tc.kernel @nested
// CHECK:         tc.parallel_for (%[[E:.*]], %[[R1:.*]], %[[R2:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%{{.*}}, %[[C2:.*]], %[[C4:.*]]) limit {
// CHECK:         } {
// CHECK:           %[[L:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:           %[[B:.*]] = arith.muli %[[L]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK:           %[[DC:.*]] = arith.addi %[[B]], %[[R1]] overflow<nsw, nuw> : i32
// CHECK:           %[[ACT:.*]] = tc.is_active @db[%[[DC]]] : i1
// CHECK:           scf.if %[[ACT]] {
// CHECK-NOT:         scf.for
// CHECK:             %[[B2:.*]] = arith.muli %[[DC]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK:             %[[I:.*]] = arith.addi %[[B2]], %[[R2]] overflow<nsw, nuw> : i32
// CHECK:             tc.load @w[%[[I]]] {tc.active = @db} : f32
// HOST-LABEL: tc.kernel @nested
// HOST:         tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// HOST:           scf.for
// HOST:             tc.is_active @db
// HOST:             scf.for
tc.kernel @nested() {
  tc.struct_for @w (%i) {
    %x = tc.load @w[%i] : f32
    %y = arith.addf %x, %x : f32
    tc.store %y, @w[%i] : f32
    tc.yield
  }
  tc.return
}

// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s

// Cell of @cell: u (f32) at 0, x (3 x f32) at 4 -> 16 bytes; @blk cell: 64 of
// those = 1024 bytes. @d1 follows @blk (16 blocks) at byte 16384.
snode.tree @root {
  snode.dense @blk axes [0, 1] shape [4, 4] {
    snode.dense @cell axes [0, 1] shape [8, 8] {
      snode.place @u : [f32]
      snode.place @x : [f32, f32, f32]
    }
  }
  snode.dense @d1 axes [0] shape [16] { snode.place @n : [i32] }
}

// CHECK-NOT: snode.tree
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[ROOT:[^:]*]]: !llvm.ptr, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32
func.func @chain(%root: !llvm.ptr, %i: i32, %j: i32) -> f32 {
  %r = builtin.unrealized_conversion_cast %root : !llvm.ptr to !snode.ptr
  // get_child at offset 0 is the cell itself: no GEP.
  %b = snode.get_child %r, @blk
  // CHECK: %[[C8:.*]] = arith.constant 8 : i32
  // CHECK: %[[BI:.*]] = arith.divui %[[I]], %[[C8]] : i32
  // CHECK-NOT: arith.remui %[[BI]]
  %bi = snode.index_extract %i, @blk[0] below 8 : i32
  %bj = snode.index_extract %j, @blk[1] below 8 : i32
  // CHECK: %[[C4:.*]] = arith.constant 4 : i32
  // In-range linearization never wraps: nsw + nuw let SCEV see it as affine.
  // CHECK: %[[M:.*]] = arith.muli %[[BI]], %[[C4]] overflow<nsw, nuw> : i32
  // CHECK: %[[BL:.*]] = arith.addi %[[M]], %{{.*}} overflow<nsw, nuw> : i32
  %bl = snode.linearize @blk(%bi, %bj) : i32
  // CHECK: %[[BL64:.*]] = arith.extsi %[[BL]] : i32 to i64
  // CHECK: %[[BC:.*]] = llvm.getelementptr inbounds %[[ROOT]][%[[BL64]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<1024 x i8>
  %bc = snode.lookup dense %b, @blk[%bl] : i32
  %c = snode.get_child %bc, @cell
  // Lower level: modulo the extent, no division.
  // CHECK: %[[C8b:.*]] = arith.constant 8 : i32
  // CHECK: arith.remui %[[I]], %[[C8b]] : i32
  %ci = snode.index_extract %i, @cell[0] below 1 : i32
  %cj = snode.index_extract %j, @cell[1] below 1 : i32
  %cl = snode.linearize @cell(%ci, %cj) : i32
  // CHECK: %[[CC:.*]] = llvm.getelementptr inbounds %[[BC]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<16 x i8>
  %cc = snode.lookup dense %c, @cell[%cl] : i32
  // x[2] is at 4 + 8 = 12 bytes into the cell.
  // CHECK: %[[O12:.*]] = arith.constant 12 : i64
  // CHECK: %[[P:.*]] = llvm.getelementptr inbounds %[[CC]][%[[O12]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %p = snode.place_ptr %cc, @x[2] : !llvm.ptr
  // CHECK: llvm.load %[[P]]
  %v = llvm.load %p : !llvm.ptr -> f32
  return %v : f32
}

// CHECK-LABEL: func.func @second_container(
// CHECK-SAME:    %[[ROOT:[^:]*]]: !llvm.ptr
func.func @second_container(%root: !llvm.ptr, %i: i32) -> !llvm.ptr {
  %r = builtin.unrealized_conversion_cast %root : !llvm.ptr to !snode.ptr
  // CHECK: %[[OFF:.*]] = arith.constant 16384 : i64
  // CHECK: %[[D:.*]] = llvm.getelementptr inbounds %[[ROOT]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %d = snode.get_child %r, @d1
  // CHECK: llvm.getelementptr inbounds %[[D]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i8>
  %c = snode.lookup dense %d, @d1[%i] : i32
  %p = snode.place_ptr %c, @n[0] : !llvm.ptr
  return %p : !llvm.ptr
}

// The memory ops on a placed field: the component's address in the cell,
// then a load, store or monotonic atomic of the component's type and
// alignment, tagged with alias scopes (field-alias-scopes.mlir).
// CHECK-LABEL: func.func @memory(
// CHECK-SAME:    %[[CELL:[^:]*]]: !llvm.ptr, %[[V:[^:]*]]: f32, %[[K:[^:]*]]: i32
func.func @memory(%cellp: !llvm.ptr, %v: f32, %k: i32) -> f32 {
  %cell = builtin.unrealized_conversion_cast %cellp : !llvm.ptr to !snode.ptr
  // CHECK: %[[O8:.*]] = arith.constant 8 : i64
  // CHECK: %[[X1:.*]] = llvm.getelementptr inbounds %[[CELL]][%[[O8]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  // CHECK: %[[R:.*]] = llvm.load %[[X1]] {{{.*}}alignment = 4 : i64{{.*}}} : !llvm.ptr -> f32
  %r = snode.load %cell, @x[1] : f32
  // u is at offset 0: no GEP.
  // CHECK: llvm.store %[[V]], %[[CELL]] {{{.*}}alignment = 4 : i64{{.*}}} : f32, !llvm.ptr
  snode.store %v, %cell, @u[0] : f32
  // CHECK: llvm.atomicrmw fsub %[[CELL]], %[[V]] monotonic {{.*}}: !llvm.ptr, f32
  %o = snode.atomic_rmw sub %v, %cell, @u[0] : f32
  // CHECK: llvm.atomicrmw _xor %{{.*}}, %[[K]] monotonic {{.*}}: !llvm.ptr, i32
  %n = snode.atomic_rmw xor %k, %cell, @n[0] : i32
  return %r : f32
}

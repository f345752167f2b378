// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access | FileCheck %s

snode.tree @root {
  snode.dense @blk axes [0, 1] shape [4, 4] {
    snode.dense @cell axes [0, 1] shape [8, 8] {
      snode.place @u : [f32]
      snode.place @x : [f32, f32, f32]
    }
  }
  snode.dense @d1 axes [0] shape [16] { snode.place @n : [i32] }
  snode.place @loss : [f32]
}

// CHECK-LABEL: tc.kernel @access
tc.kernel @access(%i: i32, %j: i32, %v: f32, %k: i32) -> f32 {
  // Two-level hierarchy: block index (i / 8) and cell index (i % 8).
  // CHECK-NOT: tc.load
  // CHECK: %[[R:.*]] = snode.root_ptr @root
  // CHECK: %[[B:.*]] = snode.get_child %[[R]], @blk
  // CHECK: %[[BI:.*]] = snode.index_extract %{{.*}}, @blk[0] below 8 : i32
  // CHECK: %[[BJ:.*]] = snode.index_extract %{{.*}}, @blk[1] below 8 : i32
  // CHECK: %[[BL:.*]] = snode.linearize @blk(%[[BI]], %[[BJ]]) : i32
  // CHECK: %[[BC:.*]] = snode.lookup %[[B]], @blk[%[[BL]]] : i32
  // CHECK: %[[C:.*]] = snode.get_child %[[BC]], @cell
  // CHECK: %[[CI:.*]] = snode.index_extract %{{.*}}, @cell[0] below 1 : i32
  // CHECK: %[[CJ:.*]] = snode.index_extract %{{.*}}, @cell[1] below 1 : i32
  // CHECK: %[[CL:.*]] = snode.linearize @cell(%[[CI]], %[[CJ]]) : i32
  // CHECK: %[[CC:.*]] = snode.lookup %[[C]], @cell[%[[CL]]] : i32
  // CHECK: %[[P:.*]] = snode.place_ptr %[[CC]], @x[1] : !llvm.ptr
  // CHECK: llvm.load %[[P]] {{{.*}}alignment = 4 : i64{{.*}}} : !llvm.ptr -> f32
  %a = tc.load @x[%i, %j] {comp = 1} : f32

  // One level: the index is used directly, no extraction.
  // CHECK: snode.get_child %{{.*}}, @d1
  // CHECK-NOT: snode.index_extract
  // CHECK: %[[L:.*]] = snode.lookup %{{.*}}, @d1[%{{.*}}] : i32
  // CHECK: %[[NP:.*]] = snode.place_ptr %[[L]], @n[0] : !llvm.ptr
  // CHECK: llvm.atomicrmw _xor %[[NP]], %{{.*}} monotonic {{.*}}: !llvm.ptr, i32
  %o = tc.atomic_rmw xor %k, @n[%i] : i32

  // 0-D field: directly in the root cell.
  // CHECK: %[[R0:.*]] = snode.root_ptr @root
  // CHECK-NEXT: %[[LP:.*]] = snode.place_ptr %[[R0]], @loss[0] : !llvm.ptr
  // CHECK-NEXT: llvm.store %{{.*}}, %[[LP]] {{{.*}}alignment = 4 : i64{{.*}}} : f32, !llvm.ptr
  tc.store %v, @loss[] : f32
  // CHECK: llvm.atomicrmw fadd
  %f = tc.atomic_rmw add %v, @loss[] : f32
  // CHECK: llvm.atomicrmw fmax
  %g = tc.atomic_rmw max %v, @loss[] : f32
  // CHECK: llvm.atomicrmw max
  %h = tc.atomic_rmw max %k, @n[%j] : i32
  tc.return %a : f32
}


// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --convert-tc-to-llvm | FileCheck %s --check-prefix=CPU

// A dynamic node: in its parent's cell, the list's length (i32, padded to 8
// bytes) and one 8-byte slot per chunk of 16 elements (64 / 16 = 4 slots);
// the chunks come from the node's pool.
snode.tree @root {
  snode.dynamic @dl axes [0] shape [64] attributes {chunk = 16 : i64} {
    snode.place @x : [f32]
  }
}
// CHECK-DAG: llvm.mlir.global internal @__tic_ambient_cell() {{.*}} : !llvm.array<4 x i8>

// CHECK-LABEL: tc.kernel @k
// is_active: the element is below the length.
// CHECK:       %[[LEN0:.*]] = llvm.load %[[LIST:.*]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:       %[[ACTIVE:.*]] = arith.cmpi slt, %{{.*}}, %[[LEN0]] : i32
// A read: the chunk's slot (element / 16), the element in it (element %
// 16), or the ambient zero cell when the slot holds no chunk (null, or
// claimed by an activation in flight). No length test.
// CHECK:       %[[SLOTS:.*]] = llvm.getelementptr inbounds %[[LIST]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:       %[[CI:.*]] = arith.divui %{{.*}}, %{{.*}} : i64
// CHECK:       %[[SLOT:.*]] = llvm.getelementptr inbounds %[[SLOTS]][%[[CI]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK:       %[[IN:.*]] = arith.remui %{{.*}}, %{{.*}} : i64
// CHECK:       %[[CH:.*]] = llvm.load %[[SLOT]] atomic acquire
// CHECK:       %[[AMB:.*]] = llvm.mlir.addressof @__tic_ambient_cell
// CHECK:       %[[CB:.*]] = llvm.ptrtoint %[[CH]] : !llvm.ptr to i64
// CHECK:       %[[HOLDS:.*]] = llvm.icmp "ugt" %[[CB]], %{{.*}} : i64
// CHECK:       %[[E:.*]] = llvm.getelementptr %[[CH]][%[[IN]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i8>
// CHECK:       llvm.select %[[HOLDS]], %[[E]], %[[AMB]]
// A write: the chunk allocated as a pointer cell is, then the length
// raised to element + 1 when shorter.
// CHECK:       scf.while
// CHECK:       llvm.cmpxchg
// CHECK:       snode.alloc_cell @dl : !llvm.ptr
// CHECK:       %[[NEED:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:       %[[LEN1:.*]] = llvm.load %[[LIST]] atomic monotonic
// CHECK:       %[[SHORT:.*]] = arith.cmpi slt, %[[LEN1]], %[[NEED]] : i32
// CHECK:       scf.if %[[SHORT]] {
// CHECK-NEXT:    llvm.atomicrmw max %[[LIST]], %[[NEED]] monotonic : !llvm.ptr, i32
// Append: one atomic add; a full list is set back to 64 and yields 64.
// CHECK:       %[[OLD:.*]] = llvm.atomicrmw add %[[LIST]], %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:       %[[FULL:.*]] = arith.cmpi sge, %[[OLD]], %[[MAX:.*]] : i32
// CHECK:       scf.if %[[FULL]] -> (i32) {
// CHECK-NEXT:    llvm.atomicrmw min %[[LIST]], %[[MAX]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    scf.yield %[[MAX]] : i32
// CHECK:       } else {
// CHECK:         llvm.cmpxchg
// CHECK:         snode.alloc_cell @dl : !llvm.ptr
// Length: at most 64.
// CHECK:       %[[LEN2:.*]] = llvm.load %[[LIST]] atomic monotonic
// CHECK:       arith.minsi %[[LEN2]], %{{.*}} : i32
// Deactivate: the whole list, length 0 and every chunk freed.
// CHECK:       llvm.atomicrmw xchg %[[LIST]], %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:       scf.for
// CHECK:         %[[TAKEN:.*]] = llvm.atomicrmw xchg %{{.*}}, %{{.*}} acq_rel : !llvm.ptr, !llvm.ptr
// CHECK:         %[[TB:.*]] = llvm.ptrtoint %[[TAKEN]] : !llvm.ptr to i64
// CHECK:         %[[HELD:.*]] = llvm.icmp "ugt" %[[TB]], %{{.*}} : i64
// CHECK:         scf.if %[[HELD]]
// CHECK-NEXT:      snode.free_cell %[[TAKEN]], @dl : !llvm.ptr
// CHECK:       tc.return %[[ACTIVE]] : i1

// The pool of @dl: its chunks (16 x 4 bytes), the CPU runtime's pool 0
// (asked only past the committed memory).
// CPU:       llvm.call @tic_rt_snode_alloc_at(%{{.*}}, %c0_i32{{.*}}, %{{.*}})
// CPU-NOT:   snode.
tc.kernel @k(%l: i32, %v: f32) -> i1 {
  %r = snode.root_ptr @root
  %c = snode.get_child %r, @dl
  %a = snode.is_active dynamic %c, @dl[%l] : i32
  %cell = snode.lookup dynamic %c, @dl[%l] : i32
  %w = snode.lookup dynamic %c, @dl[%l] activate : i32
  %k = snode.append %c, @dl : i32
  %n = snode.length %c, @dl : i32
  snode.deactivate dynamic %c, @dl[%l] : i32
  tc.return %a : i1
}

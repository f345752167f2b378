// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --convert-tc-to-llvm | FileCheck %s --check-prefix=CPU

// A pointer node: a slot (8 bytes) per cell in its parent's cell; the cells
// come from the node's pool.
snode.tree @root {
  snode.pointer @q axes [0] shape [4] { snode.place @y : [f64] }
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [4] { snode.place @x : [f32] }
  }
}
// The ambient (reads) and sink (out of memory) cells: as large as the
// largest pointer cell (16 bytes of @p).
// CHECK-DAG: llvm.mlir.global internal @__tic_sink_cell() {{.*}} : !llvm.array<16 x i8>
// CHECK-DAG: llvm.mlir.global internal @__tic_ambient_cell() {{.*}} : !llvm.array<16 x i8>

// CHECK-LABEL: tc.kernel @k
// @p's slots after @q's 4: byte 32.
// CHECK:       %[[C32:.*]] = arith.constant 32 : i64
// CHECK:       %[[CONT:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[C32]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// is_active: the slot is not null.
// CHECK:       %[[S0:.*]] = llvm.getelementptr inbounds %[[CONT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK:       %[[P0:.*]] = llvm.load %[[S0]] atomic acquire {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK:       %[[ACTIVE:.*]] = llvm.icmp "ne" %[[P0]], %{{.*}} : !llvm.ptr
// A read: the cell, or the ambient zero cell for a null slot.
// CHECK:       %[[P1:.*]] = llvm.load %{{.*}} atomic acquire
// CHECK:       %[[AMB:.*]] = llvm.mlir.addressof @__tic_ambient_cell : !llvm.ptr
// CHECK:       %[[NULL1:.*]] = llvm.icmp "eq" %[[P1]], %{{.*}} : !llvm.ptr
// CHECK:       llvm.select %[[NULL1]], %[[AMB]], %[[P1]] : i1, !llvm.ptr
// A write: allocate when null; the thread whose compare-and-swap wins
// installs its cell, the others give theirs back and take the winner's.
// CHECK:       %[[SLOT:.*]] = llvm.getelementptr inbounds %[[CONT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK:       %[[P2:.*]] = llvm.load %[[SLOT]] atomic acquire
// CHECK:       %[[NULL2:.*]] = llvm.icmp "eq" %[[P2]], %{{.*}} : !llvm.ptr
// CHECK:       scf.if %[[NULL2]] -> (!llvm.ptr) {
// CHECK:         %[[NEW:.*]] = snode.alloc_cell @p : !llvm.ptr
// CHECK:         scf.if %{{.*}} -> (!llvm.ptr) {
// CHECK:           llvm.mlir.addressof @__tic_sink_cell
// CHECK:         } else {
// CHECK:           %[[CAS:.*]] = llvm.cmpxchg %[[SLOT]], %{{.*}}, %[[NEW]] acq_rel acquire : !llvm.ptr, !llvm.ptr
// CHECK:           %[[OLD:.*]] = llvm.extractvalue %[[CAS]][0]
// CHECK:           %[[WON:.*]] = llvm.extractvalue %[[CAS]][1]
// CHECK:           scf.if %[[WON]] -> (!llvm.ptr) {
// The winner counts the activation in @p's epoch.
// CHECK:               llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK-NEXT:        scf.yield %[[NEW]] : !llvm.ptr
// CHECK-NEXT:      } else {
// CHECK-NEXT:        snode.free_cell %[[NEW]], @p unused : !llvm.ptr
// CHECK-NEXT:        scf.yield %[[OLD]] : !llvm.ptr
// CHECK:       } else {
// CHECK-NEXT:    scf.yield %[[P2]] : !llvm.ptr
// Deactivation: take the cell out of its slot, give it back if there was one.
// CHECK:       %[[TAKEN:.*]] = llvm.atomicrmw xchg %{{.*}}, %[[Z:.*]] acq_rel : !llvm.ptr, !llvm.ptr
// CHECK:       %[[HAD:.*]] = llvm.icmp "ne" %[[TAKEN]], %[[Z]] : !llvm.ptr
// CHECK:       scf.if %[[HAD]] {
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:         snode.free_cell %[[TAKEN]], @p : !llvm.ptr
// CHECK:       tc.return %[[ACTIVE]] : i1

// On the CPU the pool algorithm runs inline (test/Conversion/pool-lowering.mlir)
// on the state in the root buffer, the runtime called only for memory past
// what is committed: @p has pool 1 (@q pool 0).
// CPU:       func.func @k(%[[CTX:.*]]: !llvm.ptr
// CPU:       scf.while
// CPU:       llvm.cmpxchg {{.*}} acquire acquire : !llvm.ptr, i64
// CPU:       llvm.call @tic_rt_snode_alloc_at(%[[CTX]], %c1_i32, %{{.*}}) : (!llvm.ptr, i32, i64) -> !llvm.ptr
// A cell that lost the race was never seen: back on the free stack, then
// deactivation pushes on the pending one.
// CPU:       llvm.cmpxchg {{.*}} release monotonic : !llvm.ptr, i64
// CPU:       llvm.cmpxchg {{.*}} release monotonic : !llvm.ptr, i64
// CPU-NOT:   snode.
tc.kernel @k(%l: i32, %v: f32) -> i1 {
  %r = snode.root_ptr @root
  %c = snode.get_child %r, @p
  %a = snode.is_active pointer %c, @p[%l] : i32
  %cell = snode.lookup pointer %c, @p[%l] : i32
  %w = snode.lookup pointer %c, @p[%l] activate : i32
  snode.deactivate pointer %c, @p[%l] : i32
  tc.return %a : i1
}

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
// is_active: the slot holds a cell (neither null nor 1, claimed).
// CHECK:       %[[S0:.*]] = llvm.getelementptr inbounds %[[CONT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK:       %[[P0:.*]] = llvm.load %[[S0]] atomic acquire {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK:       %[[B0:.*]] = llvm.ptrtoint %[[P0]] : !llvm.ptr to i64
// CHECK:       %[[ONE0:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:       %[[ACTIVE:.*]] = llvm.icmp "ugt" %[[B0]], %[[ONE0]] : i64
// A read: the cell, or the ambient zero cell for an empty or claimed slot.
// CHECK:       %[[P1:.*]] = llvm.load %{{.*}} atomic acquire
// CHECK:       %[[AMB:.*]] = llvm.mlir.addressof @__tic_ambient_cell : !llvm.ptr
// CHECK:       %[[B1:.*]] = llvm.ptrtoint %[[P1]] : !llvm.ptr to i64
// CHECK:       %[[HOLDS1:.*]] = llvm.icmp "ugt" %[[B1]], %{{.*}} : i64
// CHECK:       llvm.select %[[HOLDS1]], %[[P1]], %[[AMB]] : i1, !llvm.ptr
// A write: while the slot holds no cell, a thread that sees it null claims
// it (compare-and-swap to 1), allocates and publishes the cell; the others
// wait while it is claimed. One allocation per slot, none given back.
// CHECK:       %[[SLOT:.*]] = llvm.getelementptr inbounds %[[CONT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK:       %[[P2:.*]] = llvm.load %[[SLOT]] atomic acquire
// CHECK:       %[[CELL:.*]] = scf.while (%[[SEEN:.*]] = %[[P2]]) : (!llvm.ptr) -> !llvm.ptr {
// CHECK:         %[[SB:.*]] = llvm.ptrtoint %[[SEEN]] : !llvm.ptr to i64
// CHECK:         %[[HOLDS2:.*]] = llvm.icmp "ugt" %[[SB]], %{{.*}} : i64
// CHECK:         %[[WAIT:.*]] = arith.xori %[[HOLDS2]], %{{.*}} : i1
// CHECK:         scf.condition(%[[WAIT]]) %[[SEEN]] : !llvm.ptr
// CHECK:       } do {
// CHECK:       ^bb0(%[[Q:.*]]: !llvm.ptr):
// CHECK:         %[[EMPTY:.*]] = llvm.icmp "eq" %[[Q]], %{{.*}} : !llvm.ptr
// CHECK:         scf.if %[[EMPTY]] -> (!llvm.ptr) {
// CHECK:           %[[CLAIMED:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK:           %[[CAS:.*]] = llvm.cmpxchg %[[SLOT]], %{{.*}}, %[[CLAIMED]] acq_rel acquire : !llvm.ptr, !llvm.ptr
// CHECK:           %[[OLD:.*]] = llvm.extractvalue %[[CAS]][0]
// CHECK:           %[[WON:.*]] = llvm.extractvalue %[[CAS]][1]
// CHECK:           scf.if %[[WON]] -> (!llvm.ptr) {
// CHECK:             %[[NEW:.*]] = snode.alloc_cell @p : !llvm.ptr
// CHECK:             %[[OOM:.*]] = llvm.icmp "eq" %[[NEW]], %{{.*}} : !llvm.ptr
// Published (null again when the pool is used up: the others retry).
// CHECK:             llvm.store %[[NEW]], %[[SLOT]] atomic release {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
// CHECK:             scf.if %[[OOM]] -> (!llvm.ptr) {
// CHECK:               llvm.mlir.addressof @__tic_sink_cell
// CHECK:             } else {
// The claimant counts the activation in @p's epoch.
// CHECK:               llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK-NEXT:          scf.yield %[[NEW]] : !llvm.ptr
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %[[OLD]] : !llvm.ptr
// CHECK:         } else {
// Claimed by another thread: read the slot again.
// CHECK-NEXT:      %[[AGAIN:.*]] = llvm.load %[[SLOT]] atomic acquire
// CHECK-NEXT:      scf.yield %[[AGAIN]] : !llvm.ptr
// CHECK-NOT:   snode.free_cell
// Deactivation: take the cell out of its slot, give it back if there was one.
// CHECK:       %[[TAKEN:.*]] = llvm.atomicrmw xchg %{{.*}}, %[[Z:.*]] acq_rel : !llvm.ptr, !llvm.ptr
// CHECK:       %[[TB:.*]] = llvm.ptrtoint %[[TAKEN]] : !llvm.ptr to i64
// CHECK:       %[[HAD:.*]] = llvm.icmp "ugt" %[[TB]], %{{.*}} : i64
// CHECK:       scf.if %[[HAD]] {
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:         snode.free_cell %[[TAKEN]], @p : !llvm.ptr
// CHECK:       tc.return %[[ACTIVE]] : i1

// On the CPU the pool algorithm runs inline (test/Conversion/pool-lowering.mlir)
// on the state in the root buffer, the runtime called only for memory past
// what is committed: @p has pool 1 (@q pool 0).
// CPU:       func.func @k(%[[CTX:.*]]: !llvm.ptr
// CPU-NOT:   llvm.cmpxchg {{.*}} : !llvm.ptr, i64
// CPU:       llvm.call @tic_rt_snode_alloc_at(%[[CTX]], %c1_i32, %{{.*}}) : (!llvm.ptr, i32, i64) -> !llvm.ptr
// No cell is given back unused: deactivation alone appends to the pending
// list (an index store after an atomic add), no compare-and-swap loop.
// CPU:       llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CPU-NOT:   llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CPU-NOT:   llvm.cmpxchg {{.*}} : !llvm.ptr, i64
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

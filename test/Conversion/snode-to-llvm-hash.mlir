// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --convert-tc-to-llvm | FileCheck %s --check-prefix=CPU

// A hash node (a child of the root): in the root cell an 8-byte header and
// room for 2^22 bucket heads (8 bytes each), of which 4096 (the minimum
// table) are used at first (the table grows in place between launches:
// snode-to-llvm-hash-growth.mlir); entries from its pool hold the next
// entry of the chain (byte 0), the activity flag (byte 8), the key (byte
// 16) and the cell (byte 32).
snode.tree @root {
  snode.hash @h axes [0] shape [8] {
    snode.dense @d axes [0] shape [3] { snode.place @x : [f32] }
  }
}
// The ambient (absent keys) and sink entries: a whole entry, 48 bytes.
// CHECK-DAG: llvm.mlir.global internal @__tic_ambient_cell() {{.*}} : !llvm.array<48 x i8>
// The table (an 8-byte header, room for 2^22 buckets), then its pool state
// (128 bytes, on a cache line of its own) and its epoch counter (8 bytes,
// the root cell padded to 64).
// CHECK-DAG: snode.buffer @tic.root size 33554688 align 64

// CHECK-LABEL: tc.kernel @k
// is_active: the bucket of the mixed key, a walk of its chain comparing
// keys, the flag of the entry found (of the ambient entry: 0).
// CHECK:       %[[B:.*]] = arith.andi %{{.*}}, %{{.*}} : i64
// CHECK:       %[[SLOT:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[B]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK:       %[[HEAD:.*]] = llvm.load %[[SLOT]] atomic acquire
// CHECK:       %[[E:.*]] = scf.while (%[[P:.*]] = %[[HEAD]]) : (!llvm.ptr) -> !llvm.ptr {
// CHECK:         %[[KP:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         %[[K:.*]] = llvm.load %[[KP]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         arith.cmpi ne, %[[K]], %{{.*}} : i32
// CHECK:         scf.condition
// CHECK:       } do {
// CHECK:         llvm.load %{{.*}} atomic acquire
// CHECK:       llvm.mlir.addressof @__tic_ambient_cell
// CHECK:       %[[ENT:.*]] = llvm.select
// CHECK:       %[[FP:.*]] = llvm.getelementptr inbounds %[[ENT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:       %[[FLAG:.*]] = llvm.load %[[FP]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:       %[[ACTIVE:.*]] = arith.cmpi ne, %[[FLAG]], %{{.*}} : i32
// A read: the cell of the entry found, or of the ambient entry (byte 32).
// CHECK:       scf.while
// CHECK:       llvm.select
// CHECK:       arith.constant 32 : i64
// A write: find or insert. A new entry gets the key and the head it was
// looked up from, and goes in front with a compare-and-swap; a loser
// returns it as it is (the collect zeroes it after the launch) and looks
// again.
// CHECK:       scf.while : () -> !llvm.ptr {
// CHECK:         %[[H2:.*]] = llvm.load %{{.*}} atomic acquire
// CHECK:         scf.while
// CHECK:         snode.alloc_cell @h : !llvm.ptr
// CHECK:         llvm.mlir.addressof @__tic_sink_cell
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         llvm.store %[[H2]], %{{.*}} {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
// CHECK:         %[[CAS:.*]] = llvm.cmpxchg %{{.*}}, %[[H2]], %{{.*}} acq_rel acquire
// CHECK-NOT:     "llvm.intr.memset"
// CHECK:         snode.free_cell %{{.*}}, @h unused : !llvm.ptr
// ... then the flag set unless set; the thread that set it counts the
// activation in the node's epoch (the cached lists of hash paths).
// CHECK:       llvm.load %{{.*}} atomic monotonic
// CHECK:       scf.if
// CHECK:         %[[WAS:.*]] = llvm.atomicrmw xchg %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         %[[NEW:.*]] = arith.cmpi eq, %[[WAS]], %{{.*}} : i32
// CHECK:         scf.if %[[NEW]] {
// CHECK:           llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// Deactivation: the flag cleared; if it was set, the epoch counted and the
// cell zeroed.
// CHECK:       scf.while
// CHECK:       %[[OLD:.*]] = llvm.atomicrmw xchg %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:       arith.cmpi ne, %[[OLD]]
// CHECK:       llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:       "llvm.intr.memset"
// Below a hash, indices may be negative: a non-negative remainder (3 is
// not a power of two) and floor division.
// CHECK:       %[[R:.*]] = arith.remsi %{{.*}}, %{{.*}} : i32
// CHECK:       %[[NEG:.*]] = arith.cmpi slt, %[[R]], %{{.*}} : i32
// CHECK:       arith.select %[[NEG]]
// CHECK:       arith.floordivsi %{{.*}}, %{{.*}} : i32
// An entry of the pool: base + e * 48, its flag and key.
// CHECK:       %[[OFF:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:       llvm.getelementptr inbounds %{{.*}}[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:       tc.return %[[ACTIVE]] : i1

// The pool view reads the pool's state in the root buffer: its base and
// min(next, max_elements, INT32_MAX) entries (the count is unused here).
// CPU:       llvm.call @tic_rt_snode_alloc_at(
// CPU:       %[[N:.*]] = arith.minui %{{.*}}, %{{.*}} : i64
// CPU:       arith.minui %[[N]], %c2147483647_i64 : i64
// CPU-NOT:   snode.
tc.kernel @k(%key: i32, %i: i32, %e: i32) -> i1 {
  %r = snode.root_ptr @root
  %c = snode.get_child %r, @h
  %a = snode.is_active hash %c, @h[%key] : i32
  %cell = snode.lookup hash %c, @h[%key] : i32
  %w = snode.lookup hash %c, @h[%key] activate : i32
  snode.deactivate hash %c, @h[%key] : i32
  %x = snode.index_extract %i, @d[0] below 1 : i32
  %y = snode.index_extract %i, @h[0] below 3 : i32
  %b, %n = snode.pool_view @h : !llvm.ptr, i32
  %act, %k0 = snode.hash_entry %b, @h[%e] : !llvm.ptr -> i1, i32
  tc.return %a : i1
}

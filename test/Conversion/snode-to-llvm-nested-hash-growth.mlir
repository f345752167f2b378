// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s

// A hash table below another node (one per cell of @d): a 24-byte header
// (the entries in its chains, its grown block, mask ^ initial mask), then
// the 64 initial bucket heads. A lookup takes the block's heads when the
// header names one, else the initial ones, and the mask from the header.
// An insertion counts itself in the header and, when the count reaches a
// power of two at least twice the buckets, notes the table in the node's
// notes (a count, then 1024 table addresses, after the tree's root cell).
// snode.hash_maintain_tables purges each noted table still over twice its
// buckets and, with `grow`, moves its entries to a snode.hash_block of the
// buckets they need.
snode.tree @root {
  snode.dense @d axes [0] shape [2] {
    snode.hash @h axes [1] shape [4] { snode.place @x : [f32] }
  }
}
// CHECK: snode.hash @h {{.*}}notes_offset = [[NOFF:[0-9]+]] : i64

// CHECK-LABEL: func.func @lookup
// CHECK-DAG:     %[[T:.*]] = builtin.unrealized_conversion_cast %arg0
// CHECK-DAG:     %[[INIT:.*]] = arith.constant 63 : i64
// CHECK:         %[[MS:.*]] = llvm.getelementptr inbounds %[[T]][%c16_i64]
// CHECK:         %[[HDR:.*]] = llvm.load %[[MS]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:         %[[MASK:.*]] = arith.xori %[[HDR]], %[[INIT]] : i64
// CHECK:         %[[BS:.*]] = llvm.getelementptr inbounds %[[T]][%c8_i64]
// CHECK:         %[[BLK:.*]] = llvm.load %[[BS]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[INL:.*]] = llvm.getelementptr inbounds %[[T]][%c24_i64]
// CHECK:         %[[NONE:.*]] = llvm.icmp "eq" %[[BLK]], %{{.*}} : !llvm.ptr
// CHECK:         %[[HEADS:.*]] = llvm.select %[[NONE]], %[[INL]], %[[BLK]] : i1, !llvm.ptr
// CHECK:         %[[B:.*]] = arith.andi %{{.*}}, %[[MASK]] : i64
// CHECK:         llvm.getelementptr inbounds %[[HEADS]][%[[B]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
func.func @lookup(%c: !snode.ptr, %k: i64) -> !snode.ptr {
  %e = snode.lookup hash %c, @h[%k] : i64
  return %e : !snode.ptr
}

// The thread whose compare-and-swap installed the entry counts it; the
// count that is a power of two and at least twice the buckets notes the
// table, in one of 1024 slots.
// CHECK-LABEL: func.func @insert
// CHECK:         %[[T:.*]] = builtin.unrealized_conversion_cast %arg0
// CHECK:         %[[MASK:.*]] = arith.xori
// CHECK:         %[[CAS:.*]] = llvm.cmpxchg
// CHECK:         %[[WON:.*]] = llvm.extractvalue %[[CAS]][1]
// CHECK:         scf.if %[[WON]]
// CHECK:           %[[OLD:.*]] = llvm.atomicrmw add %[[T]], %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:           %[[CNT:.*]] = arith.addi %[[OLD]], %{{.*}} : i64
// CHECK:           %[[BK:.*]] = arith.addi %[[MASK]], %{{.*}} : i64
// CHECK:           %[[TWICE:.*]] = arith.shli %[[BK]], %{{.*}} : i64
// CHECK:           %[[FULL:.*]] = arith.cmpi uge, %[[CNT]], %[[TWICE]] : i64
// CHECK:           %[[LOW:.*]] = arith.andi %[[CNT]], %[[OLD]] : i64
// CHECK:           %[[POW2:.*]] = arith.cmpi eq, %[[LOW]], %{{.*}} : i64
// CHECK:           %[[DUE:.*]] = arith.andi %[[FULL]], %[[POW2]] : i1
// CHECK:           scf.if %[[DUE]] {
// CHECK:             %[[NOTES:.*]] = llvm.getelementptr inbounds %{{.*}}[%c[[NOFF]]_i64]
// CHECK:             %[[SLOT:.*]] = llvm.atomicrmw add %[[NOTES]], %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:             %[[ROOM:.*]] = arith.cmpi ult, %[[SLOT]], %c1024_i64 : i64
// CHECK:             scf.if %[[ROOM]] {
// CHECK:               %[[SLOTS:.*]] = llvm.getelementptr inbounds %[[NOTES]][%c8_i64
// CHECK:               %[[AT:.*]] = llvm.getelementptr inbounds %[[SLOTS]][%[[SLOT]]]
// CHECK:               llvm.store %[[T]], %[[AT]]
func.func @insert(%c: !snode.ptr, %k: i64) -> !snode.ptr {
  %e = snode.lookup hash %c, @h[%k] activate : i64
  return %e : !snode.ptr
}

// CHECK-LABEL: tc.kernel @maintain
// CHECK:         %[[NOTES:.*]] = llvm.getelementptr inbounds %{{.*}}[%c[[NOFF]]_i64]
// CHECK:         %[[N:.*]] = llvm.load %[[NOTES]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:         %[[NOTED:.*]] = arith.minui %[[N]], %c1024_i64 : i64
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[NOTED]] step
// CHECK:           %[[T:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK:           %[[CNT:.*]] = llvm.load %[[T]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:           %[[HEADS:.*]] = llvm.select
// CHECK:           %[[BK:.*]] = arith.addi
// CHECK:           %[[TWICE:.*]] = arith.shli %[[BK]]
// CHECK:           %[[DUE:.*]] = arith.cmpi ugt, %[[CNT]], %[[TWICE]] : i64
// CHECK:           scf.if %[[DUE]] {
// The purge: chains rebuilt from their active entries, the others freed.
// CHECK:             %[[FREED:.*]] = scf.for {{.*}} to %[[BK]] {{.*}} -> (i64)
// CHECK:               snode.free_cell %{{.*}}, @h
// CHECK:             %[[LIVE:.*]] = arith.subi %[[CNT]], %[[FREED]] : i64
// CHECK:             llvm.store %[[LIVE]], %[[T]]
// The buckets the live entries need (at most 2^20).
// CHECK:             %[[NEED:.*]] = scf.while (%[[NB:.*]] = %[[BK]]) : (i64) -> i64 {
// CHECK:               arith.cmpi ult, %[[NB]], %[[LIVE]] : i64
// CHECK:               arith.cmpi ult, %[[NB]], %c1048576_i64 : i64
// CHECK:             %[[MORE:.*]] = arith.cmpi ugt, %[[NEED]], %[[BK]] : i64
// CHECK:             scf.if %[[MORE]] {
// CHECK:               %[[OWNER:.*]] = llvm.getelementptr inbounds %[[T]][%c8_i64
// CHECK:               %[[BYTES:.*]] = arith.muli %[[NEED]], %{{.*}} : i64
// CHECK:               %[[BLOCK:.*]] = snode.hash_block @h, %[[OWNER]], %[[BYTES]] : !llvm.ptr -> !llvm.ptr
// CHECK:               scf.if
// Each entry to the front of its chain in the block, by its key's mix.
// CHECK:                 %[[NMASK:.*]] = arith.subi %[[NEED]], %{{.*}} : i64
// CHECK:                 scf.for {{.*}} to %[[BK]]
// CHECK:                   scf.while
// CHECK:                     arith.andi %{{.*}}, %[[NMASK]] : i64
// CHECK:                     llvm.getelementptr inbounds %[[BLOCK]]
// CHECK:                 llvm.store %[[BLOCK]], %[[OWNER]]
// CHECK:                 %[[XM:.*]] = arith.xori %[[NMASK]], %{{.*}} : i64
// CHECK:                 llvm.store %[[XM]]
// The notes are empty again.
// CHECK:         llvm.store %{{.*}}, %[[NOTES]] {alignment = 8 : i64} : i64, !llvm.ptr
tc.kernel @maintain() {
  snode.hash_maintain_tables @h {grow}
  tc.return
}

// Without `grow` (a GPU), the purge only.
// CHECK-LABEL: tc.kernel @purge
// CHECK:         snode.free_cell
// CHECK-NOT:     snode.hash_block
// CHECK:         tc.return
tc.kernel @purge() {
  snode.hash_maintain_tables @h
  tc.return
}

// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access --convert-snode-to-llvm | FileCheck %s --check-prefix=LLVM

// A struct-for over a hash path in a CPU-only object keeps a list of the
// path's active cells (here: the pointer blocks of the hash cells, as
// entry * 4 + block) in tc.scratch memory with the stamp it was built at,
// the sum of the path's epoch counters (the hash's too). A launch whose
// stamp matches skips the rebuild (its loop runs 0 times) and runs the
// body over the list, one task per listed block, without testing it.
// (lower-hash.mlir: the scan used without lists.)

snode.tree @t2 {
  snode.hash @hp axes [0, 1] shape [4, 4] {
    snode.pointer @pp axes [0, 1] shape [2, 2] {
      snode.dense @pd axes [0, 1] shape [3, 3] { snode.place @z : [f32] }
    }
  }
}

// CHECK-LABEL: tc.kernel @blocks
// CHECK:       %[[N:.*]] = tc.hash_entries @hp : i32
// CHECK:       %[[N64:.*]] = arith.extui %[[N]] : i32 to i64
// CHECK:       %[[CAP:.*]] = arith.muli %[[N64]], %c4_i64 : i64
// CHECK:       %[[SIZE:.*]] = arith.addi %[[CAP]], %c2_i64 : i64
// CHECK:       %[[BUF:.*]] = tc.scratch 0, %[[SIZE]] : memref<?xi64>
// CHECK:       %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK:       %[[OK:.*]] = arith.cmpi ne, %[[P]], %{{.*}} : index
// The stamp: the hash's epoch plus the pointer's.
// CHECK:       snode.structure_ptr @hp epoch
// CHECK:       snode.structure_ptr @pp epoch
// CHECK:       %[[STAMP:.*]] = arith.addi
// CHECK:       %[[STALE:.*]] = scf.if %[[OK]] -> (i1) {
// CHECK:         %[[BUILT:.*]] = memref.load %[[BUF]]
// CHECK:         arith.cmpi ne, %[[BUILT]], %[[STAMP]] : i64
// CHECK:       %[[UB:.*]] = arith.select %[[STALE]], %[[N]], %{{.*}} : i32
// The rebuild: (entries, blocks), active ones appended.
// CHECK:       tc.parallel_for (%[[E:.*]], %[[L:.*]]) = (%{{.*}}, %{{.*}}) to (%[[UB]], %c4_i32) {
// CHECK:         %[[A:.*]], %{{.*}}:2 = tc.hash_entry @hp[%[[E]]]
// CHECK:         scf.if %[[A]] {
// CHECK:           %[[PA:.*]] = tc.is_active @pp
// CHECK:           scf.if %[[PA]] {
// CHECK:             %[[K:.*]] = memref.atomic_rmw addi %{{.*}}, %[[BUF]]
// CHECK:             memref.store %{{.*}}, %[[BUF]]
// CHECK:       scf.if %[[STALE]] {
// CHECK-NEXT:    arith.constant 0 : i64
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    memref.store %[[STAMP]], %[[BUF]]
// The body over the list's count.
// CHECK:       %[[COUNT:.*]] = scf.if %[[OK]] -> (i64) {
// CHECK:         memref.load %[[BUF]]
// CHECK:       } else {
// CHECK:         scf.yield %[[CAP]] : i64
// CHECK:       tc.parallel_for (%[[X:.*]]) = (%{{.*}}) to (%[[COUNT]]) : i64 {
// CHECK:         %[[V:.*]] = scf.if %[[OK]] -> (i64) {
// CHECK:         arith.divui %[[V]], %{{.*}} : i64
// CHECK:         tc.hash_entry @hp
// CHECK:         arith.remui %[[V]], %{{.*}} : i64
// Listed blocks are active; only without the list are they tested.
// CHECK:         %[[GO:.*]] = scf.if %[[OK]] -> (i1) {
// CHECK:           arith.constant true
// CHECK:         } else {
// CHECK:           tc.is_active @pp
// CHECK:         scf.if %[[GO]] {
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               tc.load @z[%{{.*}}, %{{.*}}] {tc.active = @pp} : f32
// Activating and deactivating a hash cell count in its epoch (the stamp).
// LLVM-LABEL: tc.kernel @blocks
// LLVM-LABEL: tc.kernel @flip
// LLVM:         llvm.atomicrmw xchg
// LLVM:         scf.if
// LLVM:           llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
tc.kernel @blocks() {
  tc.struct_for @z (%i, %j) {
    %v = tc.load @z[%i, %j] : f32
    tc.yield
  }
  tc.return
}

tc.kernel @flip(%i: i32) {
  %one = arith.constant 1.0 : f32
  tc.store %one, @z[%i, %i] : f32
  tc.return
}

// Lists below a hash: the cached list holds the hash cells (the stamp is
// the hash's epoch alone: appends change lengths, not which cells are
// active), the body loops over each list's elements up to its length.
snode.tree @t3 {
  snode.hash @hb axes [0] shape [8] {
    snode.dense @cells axes [0] shape [2] {
      snode.dynamic @dl axes [1] shape [32] attributes {chunk = 8 : i64} { snode.place @p : [i32] }
    }
  }
}
// CHECK-LABEL: tc.kernel @lists
// CHECK:       tc.hash_entries @hb
// CHECK:       tc.scratch 1, %{{.*}} : memref<?xi64>
// CHECK:       snode.structure_ptr @hb epoch
// CHECK-NOT:   snode.structure_ptr
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// CHECK:         tc.hash_entry @hb
// CHECK:         memref.atomic_rmw addi
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) : i64 {
// CHECK:         tc.hash_entry @hb
// CHECK:         scf.if
// CHECK:           scf.for
// CHECK:             %[[LEN:.*]] = tc.length @dl
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[LEN]]
// CHECK:               tc.load @p
tc.kernel @lists() {
  tc.struct_for @p (%i, %j) {
    %v = tc.load @p[%i, %j] : i32
    tc.yield
  }
  tc.return
}

// Long lists (3000 elements): the body's loop is also parallel over groups
// of 1024 of each list's elements, its loop from group * 1024 to the
// list's length or the group's end.
snode.tree @t4 {
  snode.hash @hl axes [0] shape [8] {
    snode.dense @lc axes [0] shape [2] {
      snode.dynamic @ll axes [1] shape [3000] attributes {chunk = 128 : i64} { snode.place @lp : [i32] }
    }
  }
}
// CHECK-LABEL: tc.kernel @long_lists
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// CHECK:         tc.hash_entry @hl
// CHECK:       tc.parallel_for (%{{.*}}, %[[G:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %c3_i64) : i64 {
// CHECK:         tc.hash_entry @hl
// CHECK:         scf.if
// CHECK:           %[[G32:.*]] = arith.trunci %[[G]] : i64 to i32
// CHECK:           scf.for
// CHECK:             %[[LEN:.*]] = tc.length @ll
// CHECK:             %[[LO:.*]] = arith.muli %[[G32]], %c1024_i32 overflow<nsw, nuw> : i32
// CHECK:             %[[END:.*]] = arith.addi %[[LO]], %c1024_i32 overflow<nsw, nuw> : i32
// CHECK:             %[[HI:.*]] = arith.minsi %[[END]], %[[LEN]] : i32
// CHECK:             scf.for %{{.*}} = %[[LO]] to %[[HI]]
// CHECK:               tc.load @lp
tc.kernel @long_lists() {
  tc.struct_for @lp (%i, %j) {
    %v = tc.load @lp[%i, %j] : i32
    tc.yield
  }
  tc.return
}

// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for=lists=false --tic-lower-field-access | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for=device=true --tic-lower-field-access | FileCheck %s --check-prefix=DEVICE
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for=lists=false --tic-lower-field-access --cse --tic-snode-access-cse | FileCheck %s --check-prefix=CSE

// Hash nodes at the tc level: an access looks its hash level up by the
// packed key of the cell indices; a struct-for without a cached list (for
// --target=cuda, or with lists=false) runs over the entries of the node's
// pool (struct-for-hash-list.mlir: with one).

snode.tree @root {
  snode.hash @h axes [0, 1] shape [4, 4] {
    snode.dense @d axes [0, 1] shape [4, 3] { snode.place @x : [f32] }
  }
  snode.hash @h3 axes [0, 1, 2] shape [2, 2, 2] { snode.place @y : [f32] }
  snode.place @out : [f32]
}

// Two axes: an i64 key, i from bit 0, j from bit 32.
// CHECK-LABEL: tc.kernel @put
// CHECK:       %[[KI:.*]] = snode.index_extract %{{.*}}, @h[0] below 4 : i32
// CHECK:       %[[KJ:.*]] = snode.index_extract %{{.*}}, @h[1] below 3 : i32
// CHECK:       %[[I64:.*]] = arith.extui %[[KI]] : i32 to i64
// CHECK:       %[[J64:.*]] = arith.extui %[[KJ]] : i32 to i64
// CHECK:       %[[SH:.*]] = arith.shli %[[J64]], %{{.*}} : i64
// CHECK:       %[[KEY:.*]] = arith.ori %[[I64]], %[[SH]] : i64
// CHECK:       snode.lookup hash %{{.*}}, @h[%[[KEY]]] activate : i64
tc.kernel @put(%i: i32, %j: i32, %v: f32) {
  tc.store %v, @x[%i, %j] : f32
  tc.return
}

// Three axes: an i128 key.
// CHECK-LABEL: tc.kernel @put3
// CHECK:       snode.lookup hash %{{.*}}, @h3[%{{.*}}] activate : i128
tc.kernel @put3(%i: i32, %v: f32) {
  tc.store %v, @y[%i, %i, %i] : f32
  tc.return
}

// Parallel over the entries; an active entry's key is its cell's indices,
// the elements of the cell are key * extent + r (no `nuw`: indices may be
// negative); the accesses at the loop's indices are known active.
// CHECK-LABEL: tc.kernel @sum
// CHECK:       %[[B:.*]], %[[N:.*]] = snode.pool_view @h : !llvm.ptr, i32
// CHECK:       tc.parallel_for (%[[E:.*]]) = (%{{.*}}) to (%[[N]])
// CHECK:         %[[B2:.*]], %{{.*}} = snode.pool_view @h : !llvm.ptr, i32
// CHECK:         %[[A:.*]], %[[K:.*]]:2 = snode.hash_entry %[[B2]], @h[%[[E]]] : !llvm.ptr -> i1, i32, i32
// CHECK:         scf.if %[[A]] {
// CHECK:           scf.for %[[R:.*]] =
// CHECK:             %[[M:.*]] = arith.muli %[[K]]#0, %{{.*}} overflow<nsw> : i32
// CHECK:             arith.addi %[[M]], %[[R]] overflow<nsw> : i32
// CHECK:             scf.for
// An element's hash level is extracted from the loop's key directly (the
// struct-for's x * 4 + r, 0 <= r < 4, floor-divided by 4 is x), so every
// element of the cell uses the entry's key ...
// CHECK:               %[[KI:.*]] = arith.extui %[[K]]#0 : i32 to i64
// CHECK:               %[[KJ:.*]] = arith.extui %[[K]]#1 : i32 to i64
// CHECK:               snode.lookup hash %{{.*}}, @h[%{{.*}}] known_active : i64
// CHECK:               snode.index_extract %{{.*}}, @d[0] below 1 : i32
// CHECK:               snode.load %{{.*}}, @x[0] : f32
// ... and tic-snode-access-cse looks the cell up once per entry, out of the
// loops over its elements (they run: constant, non-empty bounds).
// CSE-LABEL: tc.kernel @sum
// CSE:         snode.hash_entry
// CSE:         scf.if
// CSE:           snode.lookup hash %{{.*}}, @h[%{{.*}}] known_active : i64
// CSE:           scf.for
// CSE-NOT:         snode.lookup hash
// CSE:             scf.for
// CSE-NOT:           snode.lookup hash
// CSE:               snode.lookup dense
// CSE:               snode.load %{{.*}}, @x[0] : f32
// For a GPU (device=true) the elements of the cell are parallel too: a
// thread per element, each testing its entry's flag.
// On a GPU, a loop that inserts no entry into the hash is bounded on the
// host by the pool's mapped elements (no copy from the device, which would
// wait for the launches in flight), and each thread stops at the count it
// reads (the loop's limit).
// DEVICE-LABEL: tc.kernel @sum
// DEVICE-NOT:   snode.pool_view
// DEVICE:       %[[B:.*]] = snode.pool_bound @h : i32
// DEVICE:       tc.parallel_for (%[[E:.*]], %[[R0:.*]], %[[R1:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%[[B]], %[[C4:.*]], %[[C3:.*]]) limit {
// DEVICE-NEXT:    %{{.*}}, %[[N:.*]] = snode.pool_view @h : !llvm.ptr, i32
// DEVICE-NEXT:    tc.yield %[[N]] : i32
// DEVICE-NEXT:  } {
// DEVICE:         %[[A:.*]], %[[K:.*]]:2 = snode.hash_entry %{{.*}}, @h[%[[E]]] : !llvm.ptr -> i1, i32, i32
// DEVICE:         scf.if %[[A]] {
// DEVICE-NOT:       scf.for
// DEVICE:           %[[M:.*]] = arith.muli %[[K]]#0, %{{.*}} overflow<nsw> : i32
// DEVICE:           arith.addi %[[M]], %[[R0]] overflow<nsw> : i32
// DEVICE:           %[[M1:.*]] = arith.muli %[[K]]#1, %{{.*}} overflow<nsw> : i32
// DEVICE:           arith.addi %[[M1]], %[[R1]] overflow<nsw> : i32
// DEVICE:           snode.load %{{.*}}, @x[0] : f32
tc.kernel @sum() {
  tc.struct_for @x (%i, %j) {
    %v = tc.load @x[%i, %j] : f32
    tc.store %v, @out[] : f32
    tc.yield
  }
  tc.return
}

// Writes to the loop's own cells (known active) insert nothing: limited on
// the device. A write to a neighbour, an activation or an append below the
// hash may insert an entry that a thread starting later would then see:
// the host reads the count before the launch (a snapshot, as on the CPU).
// DEVICE-LABEL: tc.kernel @scale_own
// DEVICE:       snode.pool_bound @h
// DEVICE:       tc.parallel_for {{.*}} limit {
tc.kernel @scale_own() {
  tc.struct_for @x (%i, %j) {
    %v = tc.load @x[%i, %j] : f32
    %w = arith.addf %v, %v : f32
    tc.store %w, @x[%i, %j] : f32
    tc.yield
  }
  tc.return
}
// DEVICE-LABEL: tc.kernel @push_right
// DEVICE-NOT:   snode.pool_bound
// DEVICE:       %{{.*}}, %[[N:.*]] = snode.pool_view @h : !llvm.ptr, i32
// DEVICE:       tc.parallel_for {{.*}} to (%[[N]], %{{.*}}, %{{.*}}) {
tc.kernel @push_right() {
  tc.struct_for @x (%i, %j) {
    %c1 = arith.constant 1 : i32
    %v = tc.load @x[%i, %j] : f32
    %j1 = arith.addi %j, %c1 : i32
    tc.store %v, @x[%i, %j1] : f32
    tc.yield
  }
  tc.return
}
// DEVICE-LABEL: tc.kernel @wake
// DEVICE-NOT:   snode.pool_bound
// DEVICE:       %{{.*}}, %[[N:.*]] = snode.pool_view @h : !llvm.ptr, i32
// DEVICE:       tc.parallel_for {{.*}} to (%[[N]], %{{.*}}, %{{.*}}) {
tc.kernel @wake() {
  tc.struct_for @x (%i, %j) {
    %c4 = arith.constant 4 : i32
    %i4 = arith.addi %i, %c4 : i32
    tc.activate @h[%i4, %j]
    tc.yield
  }
  tc.return
}

// A pointer node below the hash: the loop is parallel over (entries, the
// 2 x 2 pointer cells of each hash cell), one task per block: each tests
// its entry's flag, then its pointer cell, then visits the block's 3
// elements per axis.
snode.tree @t2 {
  snode.hash @hp axes [0, 1] shape [4, 4] {
    snode.pointer @pp axes [0, 1] shape [2, 2] {
      snode.dense @pd axes [0, 1] shape [3, 3] { snode.place @z : [f32] }
    }
  }
}
// CHECK-LABEL: tc.kernel @blocks
// CHECK:       %{{.*}}, %[[N:.*]] = snode.pool_view @hp : !llvm.ptr, i32
// CHECK:       %[[C4:.*]] = arith.constant 4 : i32
// CHECK:       tc.parallel_for (%[[E:.*]], %[[L:.*]]) = (%{{.*}}, %{{.*}}) to (%[[N]], %[[C4]]) {
// CHECK:         %[[ACT:.*]], %[[K:.*]]:2 = snode.hash_entry %{{.*}}, @hp[%[[E]]] : !llvm.ptr -> i1, i32, i32
// CHECK:         scf.if %[[ACT]] {
// CHECK:           %[[R1:.*]] = arith.remui %[[L]], %{{.*}} : i32
// CHECK:           %[[R0:.*]] = arith.divui %[[L]], %{{.*}} : i32
// CHECK:           %[[P1:.*]] = arith.muli %[[K]]#1, %{{.*}} overflow<nsw> : i32
// CHECK:           %[[Q1:.*]] = arith.addi %[[P1]], %[[R1]] overflow<nsw> : i32
// CHECK:           %[[P0:.*]] = arith.muli %[[K]]#0, %{{.*}} overflow<nsw> : i32
// CHECK:           %[[Q0:.*]] = arith.addi %[[P0]], %[[R0]] overflow<nsw> : i32
// CHECK:           snode.is_active pointer %{{.*}}, @pp[%{{.*}}] : i32
// CHECK:           scf.if
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 snode.load %{{.*}}, @z[0] : f32
// DEVICE-LABEL: tc.kernel @blocks
// DEVICE:       %[[B:.*]] = snode.pool_bound @hp : i32
// DEVICE:       tc.parallel_for (%[[E:.*]], %[[L:.*]], %[[X:.*]], %[[Y:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) to (%[[B]], %{{.*}}, %{{.*}}, %{{.*}}) limit {
// DEVICE:         snode.hash_entry %{{.*}}, @hp[%[[E]]]
// DEVICE:           snode.is_active pointer %{{.*}}, @pp[%{{.*}}] : i32
// DEVICE:           scf.if
// DEVICE-NOT:         scf.for
// DEVICE:             arith.addi %{{.*}}, %[[X]] overflow<nsw> : i32
// DEVICE:             arith.addi %{{.*}}, %[[Y]] overflow<nsw> : i32
// DEVICE:             snode.load %{{.*}}, @z[0] : f32
tc.kernel @blocks() {
  tc.struct_for @z (%i, %j) {
    %v = tc.load @z[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// Long lists below a hash: parallel over (entries, groups of 1024 of each
// list's elements), so one long list runs on every thread; a group's loop
// runs from group * 1024 to the list's length or the group's end. (The
// lists of a hash cell's dense cells, serially.)
snode.tree @lists {
  snode.hash @hb axes [0] shape [8] {
    snode.dense @cells axes [0] shape [2] {
      snode.dynamic @dl axes [1] shape [3000] attributes {chunk = 128 : i64} { snode.place @p : [i32] }
    }
  }
}
// CHECK-LABEL: tc.kernel @long_lists
// CHECK:       %[[N:.*]] = snode.pool_view
// CHECK:       tc.parallel_for (%[[E:.*]], %[[G:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %[[C3:.*]]) {
// CHECK:         snode.hash_entry %{{.*}}, @hb[%[[E]]]
// CHECK:         scf.if
// CHECK:           scf.for
// CHECK:             %[[LEN:.*]] = snode.length
// CHECK:             %[[LO:.*]] = arith.muli %[[G]], %[[C1024:.*]] overflow<nsw, nuw> : i32
// CHECK:             %[[END:.*]] = arith.addi %[[LO]], %[[C1024]] overflow<nsw, nuw> : i32
// CHECK:             %[[HI:.*]] = arith.minsi %[[END]], %[[LEN]] : i32
// CHECK:             scf.for %{{.*}} = %[[LO]] to %[[HI]]
// CHECK:               snode.load
// DEVICE-LABEL: tc.kernel @long_lists
// DEVICE:       tc.parallel_for (%{{.*}}, %[[G:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) limit {
// DEVICE:             arith.muli %[[G]], %{{.*}} overflow<nsw, nuw> : i32
tc.kernel @long_lists() {
  tc.struct_for @p (%i, %j) {
    %v = tc.load @p[%i, %j] : i32
    tc.yield
  }
  tc.return
}

// Short lists below a hash on a GPU: a thread per (entry, list of the hash
// cell, element), each testing its list's length (2 x 32 elements per
// entry); the CPU form keeps the serial loops.
snode.tree @short {
  snode.hash @hs axes [0] shape [8] {
    snode.dense @sc axes [0] shape [2] {
      snode.dynamic @sd axes [1] shape [32] attributes {chunk = 8 : i64} { snode.place @q : [i32] }
    }
  }
}
// CHECK-LABEL: tc.kernel @short_lists
// CHECK:         scf.for
// CHECK:           snode.length
// CHECK:           scf.for
// DEVICE-LABEL: tc.kernel @short_lists
// DEVICE-DAG:   %[[C2:.*]] = arith.constant 2 : i32
// DEVICE-DAG:   %[[C32:.*]] = arith.constant 32 : i32
// DEVICE:       tc.parallel_for (%[[E:.*]], %[[L:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%{{.*}}, %[[C2]], %[[C32]]) limit {
// DEVICE:         snode.hash_entry %{{.*}}, @hs[%[[E]]]
// DEVICE:         scf.if
// DEVICE-NOT:       scf.for
// DEVICE:           arith.addi %{{.*}}, %[[L]] overflow<nsw> : i32
// DEVICE:           %[[N:.*]] = snode.length %{{.*}}, @sd : i32
// DEVICE:           %[[IN:.*]] = arith.cmpi slt, %[[J]], %[[N]] : i32
// DEVICE:           scf.if %[[IN]] {
// DEVICE:             snode.lookup dynamic %{{.*}}, @sd[%[[J]]] known_active : i32
// DEVICE:             snode.load
tc.kernel @short_lists() {
  tc.struct_for @q (%i, %j) {
    %v = tc.load @q[%i, %j] : i32
    tc.yield
  }
  tc.return
}

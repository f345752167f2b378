// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for=lists=false --tic-lower-field-access | FileCheck %s --check-prefix=NOLIST
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for=device=true --tic-lower-field-access | FileCheck %s --check-prefix=DEVICE

// Dynamic lists, lowered to snode ops: an append activates the list's
// ancestors and reserves an element, a length reads the list, and a
// struct-for runs over groups of each list's elements up to its length.

snode.tree @root {
  snode.pointer @blk axes [0] shape [8] {
    snode.dynamic @dl axes [1] shape [4096] attributes {chunk = 64 : i64} {
      snode.place @x : [i32]
    }
  }
}

// The list's container in its (activated) pointer cell, then the append;
// the store into the reserved element is known active (no activation).
// CHECK-LABEL: tc.kernel @push
// CHECK:       %[[BLK:.*]] = snode.lookup pointer %{{.*}}, @blk[%{{.*}}] activate : i32
// CHECK:       %[[LIST:.*]] = snode.get_child %[[BLK]], @dl
// CHECK:       %[[K:.*]] = snode.append %[[LIST]], @dl : i32
// CHECK:       snode.lookup pointer %{{.*}}, @blk[%{{.*}}] known_active : i32
// CHECK:       snode.lookup dynamic %{{.*}}, @dl[%[[K]]] known_active : i32
// CHECK-NOT:   activate
// CHECK:       snode.store
tc.kernel @push(%i: i32, %v: i32) -> i32 {
  %k = tc.append @dl[%i] : i32
  tc.store %v, @x[%i, %k] {tc.active = @dl} : i32
  tc.return %k : i32
}

// A length never activates: the ambient cell of an inactive block holds an
// empty list.
// CHECK-LABEL: tc.kernel @len
// CHECK:       snode.lookup pointer %{{.*}}, @blk[%{{.*}}] : i32
// CHECK:       snode.length %{{.*}}, @dl : i32
tc.kernel @len(%i: i32) -> i32 {
  %n = tc.length @dl[%i] : i32
  tc.return %n : i32
}

// A plain write activates the element (its chunk, and the length).
// CHECK-LABEL: tc.kernel @write
// CHECK:       snode.lookup dynamic %{{.*}}, @dl[%{{.*}}] activate : i32
tc.kernel @write(%i: i32, %j: i32, %v: i32) {
  tc.store %v, @x[%i, %j] : i32
  tc.return
}

// Without a cached list (lists=false): parallel over
// (lists, groups of 1024 elements): 8 x 4; serial over the group's
// elements below the list's length. The body's accesses at the loop's
// indices are known active.
// NOLIST-LABEL: tc.kernel @sum
// NOLIST-DAG:   %[[C8:.*]] = arith.constant 8 : i32
// NOLIST-DAG:   %[[C4:.*]] = arith.constant 4 : i32
// NOLIST:       tc.parallel_for (%[[L:.*]], %[[G:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C8]], %[[C4]])
// NOLIST:         %[[N:.*]] = snode.length %{{.*}}, @dl : i32
// NOLIST:         %[[LO:.*]] = arith.muli %[[G]], %{{.*}} overflow<nsw, nuw> : i32
// NOLIST:         %[[END:.*]] = arith.addi %[[LO]], %{{.*}} overflow<nsw, nuw> : i32
// NOLIST:         %[[HI:.*]] = arith.minsi %[[END]], %[[N]] : i32
// NOLIST:         scf.for %[[J:.*]] = %[[LO]] to %[[HI]]
// NOLIST:           snode.lookup dynamic %{{.*}}, @dl[%[[J]]] known_active : i32
// NOLIST:           snode.load
// With the pointer node's cached list of active cells: parallel over (the
// list's entries, groups): count x 4, the same groups in the listed
// blocks only.
// CHECK-LABEL: tc.kernel @sum
// CHECK:       snode.structure_ptr @blk list
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// CHECK:         snode.is_active pointer
// CHECK:       tc.parallel_for (%[[E:.*]], %[[G:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %c4_i32)
// CHECK:         snode.structure_ptr @blk list
// CHECK:         %[[N:.*]] = snode.length %{{.*}}, @dl : i32
// CHECK:         %[[LO:.*]] = arith.muli %[[G]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK:         %[[END:.*]] = arith.addi %[[LO]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK:         %[[HI:.*]] = arith.minsi %[[END]], %[[N]] : i32
// CHECK:         scf.for %[[J:.*]] = %[[LO]] to %[[HI]]
// CHECK:           snode.lookup dynamic %{{.*}}, @dl[%[[J]]] known_active : i32
// CHECK:           snode.load
tc.kernel @sum() {
  tc.struct_for @x (%i, %j) {
    %v = tc.load @x[%i, %j] : i32
    tc.yield
  }
  tc.return
}

// Short lists (at most one group) below a pointer node with a cached list
// of its active cells: over that list (one task per active block), each
// block's lists up to their lengths; inactive blocks cost nothing.
// NOLIST-LABEL: tc.kernel @short
// NOLIST-NOT:   snode.structure_ptr @sb list
snode.tree @t2 {
  snode.pointer @sb axes [0] shape [64] {
    snode.dense @sc axes [0] shape [2] {
      snode.dynamic @sl axes [1] shape [256] attributes {chunk = 32 : i64} {
        snode.place @y : [i32]
      }
    }
  }
}
// CHECK-LABEL: tc.kernel @short
// CHECK:       snode.structure_ptr @sb list
// CHECK:       tc.parallel_for
// CHECK:         snode.is_active pointer
// CHECK:       tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// CHECK:         scf.for
// CHECK:           %[[N:.*]] = snode.length %{{.*}}, @sl : i32
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[N]]
// CHECK:             snode.load
tc.kernel @short() {
  tc.struct_for @y (%i, %j) {
    %v = tc.load @y[%i, %j] : i32
    tc.yield
  }
  tc.return
}

// On a GPU (device), a thread per element, as for the other sparse nodes:
// over 8 lists of at most 4096 elements (32768 in all), each tested
// against its list's length; no serial loop.
// DEVICE-LABEL: tc.kernel @sum
// DEVICE-DAG:   %[[C8:.*]] = arith.constant 8 : i32
// DEVICE-DAG:   %[[C4096:.*]] = arith.constant 4096 : i32
// DEVICE:       tc.parallel_for (%[[L:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C8]], %[[C4096]]) {
// DEVICE:         %[[N:.*]] = snode.length %{{.*}}, @dl : i32
// DEVICE:         %[[IN:.*]] = arith.cmpi slt, %[[J]], %[[N]] : i32
// DEVICE:         scf.if %[[IN]] {
// DEVICE-NOT:       scf.for
// DEVICE:           snode.lookup dynamic %{{.*}}, @dl[%[[J]]] known_active : i32
// DEVICE:           snode.load
// DEVICE-LABEL: tc.kernel @short

// One list (a particle list): parallel over its elements up to the most it
// holds, limited by its length, which each GPU thread reads once (the
// host reads nothing).
snode.tree @t3 {
  snode.dynamic @pl axes [0] shape [1048576] attributes {chunk = 1024 : i64} {
    snode.place @z : [f32]
  }
}
// DEVICE-LABEL: tc.kernel @particles
// DEVICE:       %[[MAX:.*]] = arith.constant 1048576 : i32
// DEVICE:       tc.parallel_for (%[[P:.*]]) = (%{{.*}}) to (%[[MAX]]) limit {
// DEVICE:         %[[N:.*]] = snode.length %{{.*}}, @pl : i32
// DEVICE-NEXT:    tc.yield %[[N]] : i32
// DEVICE-NEXT:  } {
// DEVICE-NOT:     scf.for
// DEVICE-NOT:     snode.length
// DEVICE:         snode.lookup dynamic %{{.*}}, @pl[%[[P]]] known_active : i32
// DEVICE:         snode.store
tc.kernel @particles() {
  tc.struct_for @z (%p) {
    %v = tc.load @z[%p] : f32
    %w = arith.addf %v, %v : f32
    tc.store %w, @z[%p] : f32
    tc.yield
  }
  tc.return
}

// A body that appends to the list it runs over keeps the groups (each
// reads the length as it starts, as on the CPU).
// DEVICE-LABEL: tc.kernel @grow
// DEVICE:       tc.parallel_for (%[[G:.*]]) = (%{{.*}}) to (%{{.*}}) {
// DEVICE:         snode.length
// DEVICE:         scf.for
// DEVICE:           snode.append
tc.kernel @grow() {
  tc.struct_for @z (%p) {
    %k = tc.append @pl[] : i32
    tc.yield
  }
  tc.return
}

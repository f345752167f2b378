// RUN: %tic-opt %s --tic-allocate-layout --tic-demote-bit-stores | FileCheck %s

// tic-demote-bit-stores: a store to a quantized field is `tc.exclusive` when
// no other thread writes its bit_struct word during the kernel.

snode.tree @root {
  snode.dense @d axes [0] shape [64] {
    snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
      snode.place @a : [i32] {quant = [#bits.quant<int, 10>]}
      snode.place @b : [i32] {quant = [#bits.quant<int, 10>]}
    }
  }
  snode.dense @e axes [0] shape [8] {
    snode.bit_array @l axes [0] shape [8] attributes {bits = 32} {
      snode.place @lane : [i32] {quant = [#bits.quant<uint, 4>]}
    }
  }
  snode.dense @f axes [0] shape [64] { snode.place @x : [i32] }
}

// Every write to the word's fields at the loop's index: the iteration owns
// the word (a read elsewhere does not matter).
// CHECK-LABEL: tc.kernel @own
// CHECK:         tc.store %{{.*}}, @a[%[[I:.*]]] {tc.exclusive} : i32
// CHECK:         tc.store %{{.*}}, @b[%[[I]]] {tc.exclusive} : i32
tc.kernel @own(%v: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c63 = arith.constant 63 : i32
  tc.parallel_for (%i) = (%c0) to (%c63) {
    %n = arith.addi %i, %c1 : i32
    %r = tc.load @b[%n] : i32
    tc.store %r, @a[%i] : i32
    tc.store %v, @b[%i] : i32
    tc.yield
  }
  tc.return
}

// Another field of the word written at i + 1: another iteration writes
// this word too; both keep their CAS loops.
// CHECK-LABEL: tc.kernel @neighbour
// CHECK:         tc.store %{{.*}}, @a[%{{.*}}] : i32
// CHECK:         tc.store %{{.*}}, @b[%{{.*}}] : i32
// CHECK-NOT:     tc.exclusive
// CHECK:         tc.return
tc.kernel @neighbour(%v: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c63 = arith.constant 63 : i32
  tc.parallel_for (%i) = (%c0) to (%c63) {
    %n = arith.addi %i, %c1 : i32
    tc.store %v, @a[%i] : i32
    tc.store %v, @b[%n] : i32
    tc.yield
  }
  tc.return
}

// An atomic on a sibling field at another index counts as a write.
// CHECK-LABEL: tc.kernel @atomic_sibling
// CHECK:         tc.store %{{.*}}, @a[%{{.*}}] : i32
// CHECK-NOT:     tc.exclusive
// CHECK:         tc.return
tc.kernel @atomic_sibling(%v: i32) {
  %c0 = arith.constant 0 : i32
  %c63 = arith.constant 63 : i32
  tc.parallel_for (%i) = (%c0) to (%c63) {
    tc.store %v, @a[%i] : i32
    %o = tc.atomic_rmw add %v, @b[%c0] : i32
    tc.yield
  }
  tc.return
}

// A bit_array word holds several elements (the neighbouring iterations'):
// never exclusive in a parallel loop. Plain fields are not marked.
// CHECK-LABEL: tc.kernel @lanes
// CHECK:         tc.store %{{.*}}, @lane[%{{.*}}] : i32
// CHECK:         tc.store %{{.*}}, @x[%{{.*}}] : i32
// CHECK-NOT:     tc.exclusive
// CHECK:         tc.return
tc.kernel @lanes(%v: i32) {
  %c0 = arith.constant 0 : i32
  %c63 = arith.constant 63 : i32
  tc.parallel_for (%i) = (%c0) to (%c63) {
    tc.store %v, @lane[%i] : i32
    tc.store %v, @x[%i] : i32
    tc.yield
  }
  tc.return
}

// One thread: the kernel's top level and serialized loops.
// CHECK-LABEL: tc.kernel @serial
// CHECK:         tc.store %{{.*}}, @a[%{{.*}}] {tc.exclusive} : i32
// CHECK:         tc.parallel_for
// CHECK:           tc.store %{{.*}}, @b[%{{.*}}] {tc.exclusive} : i32
// CHECK:           tc.store %{{.*}}, @lane[%{{.*}}] {tc.exclusive} : i32
tc.kernel @serial(%v: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c63 = arith.constant 63 : i32
  tc.store %v, @a[%c0] : i32
  tc.parallel_for (%i) = (%c0) to (%c63) attributes {serialize} {
    %n = arith.addi %i, %c1 : i32
    tc.store %v, @b[%n] : i32
    tc.store %v, @lane[%i] : i32
    tc.yield
  }
  tc.return
}

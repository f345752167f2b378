// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --convert-tc-to-llvm --convert-snode-to-llvm | FileCheck %s
// Quantized fields of one container word share the word's alias scope: a
// read-modify-write of the word for one field reads and writes the other
// fields' bits, so it must not be reordered with their accesses. Both the
// load and the store of the read-modify-write are tagged (so that LLVM can
// keep a word in a register across accesses to other fields, as a
// quantized accumulator in a loop over another field's elements).

snode.tree @root {
  snode.dense @d axes [0] shape [64] {
    snode.bit_struct @w axes [] shape [] attributes {bits = 32} {
      snode.place @a : [i32] {quant = [#bits.quant<int, 10>]}
      snode.place @b : [i32] {quant = [#bits.quant<int, 11>]}
    }
  }
  snode.dense @e axes [0] shape [64] {
    snode.place @c : [i32]
  }
}

// CHECK-DAG: #[[SW:alias_scope[0-9]*]] = #llvm.alias_scope<id = {{.*}}, domain = #{{.*}}, description = "word of w">
// CHECK-DAG: #[[SC:alias_scope[0-9]*]] = #llvm.alias_scope<id = {{.*}}, domain = #{{.*}}, description = "c">
// CHECK-NOT: description = "a"
// CHECK-NOT: description = "b"

// CHECK-LABEL: func.func @k
// The read of a: the word, scope of the word.
// CHECK: llvm.load %{{.*}} {alias_scopes = [#[[SW]]], alignment = 4 : i64, noalias_scopes = [#[[SC]]]} : !llvm.ptr -> i32
// The exclusive store to b: load and store of the word, both tagged.
// CHECK: llvm.load %{{.*}} {alias_scopes = [#[[SW]]], alignment = 4 : i64, noalias_scopes = [#[[SC]]]} : !llvm.ptr -> i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alias_scopes = [#[[SW]]], alignment = 4 : i64, noalias_scopes = [#[[SC]]]} : i32, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %{{.*}} {alias_scopes = [#[[SC]]], alignment = 4 : i64, noalias_scopes = [#[[SW]]]} : i32, !llvm.ptr
tc.kernel @k(%i: i32, %v: i32) {
  %x = tc.load @a[%i] : i32
  tc.store %x, @b[%i] {tc.exclusive} : i32
  tc.store %v, @c[%i] : i32
  tc.return
}

// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-lower-field-access --convert-tc-to-llvm --convert-snode-to-llvm | FileCheck %s
// convert-snode-to-llvm tags every field access (snode.load / store /
// atomic_rmw) with its field's alias scope and declares it not to alias the
// accesses of the other fields used in the same function: fields never share bytes, and LLVM
// needs these tags to vectorize loops over fields of one root buffer without
// run-time overlap checks.

snode.tree @root {
  snode.dense @d axes [0] shape [64] {
    snode.place @a : [f32]
    snode.place @b : [f32]
  }
  snode.dense @e axes [0] shape [64] {
    snode.place @c : [i32]
  }
}

// CHECK-DAG: #[[DOM:.*]] = #llvm.alias_scope_domain<{{.*}}description = "tic.fields">
// CHECK-DAG: #[[SA:alias_scope[0-9]*]] = #llvm.alias_scope<id = {{.*}}, domain = #[[DOM]], description = "a">
// CHECK-DAG: #[[SB:alias_scope[0-9]*]] = #llvm.alias_scope<id = {{.*}}, domain = #[[DOM]], description = "b">
// CHECK-DAG: #[[SC:alias_scope[0-9]*]] = #llvm.alias_scope<id = {{.*}}, domain = #[[DOM]], description = "c">

// CHECK-LABEL: func.func @k
tc.kernel @k(%i: i32, %v: i32) {
  // CHECK: llvm.load %{{.*}} {alias_scopes = [#[[SA]]], alignment = 4 : i64, noalias_scopes = [#[[SB]], #[[SC]]]} : !llvm.ptr -> f32
  %x = tc.load @a[%i] : f32
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alias_scopes = [#[[SB]]], alignment = 4 : i64, noalias_scopes = [#[[SA]], #[[SC]]]} : f32, !llvm.ptr
  tc.store %x, @b[%i] : f32
  // CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic {alias_scopes = [#[[SC]]], noalias_scopes = [#[[SA]], #[[SB]]]} : !llvm.ptr, i32
  %o = tc.atomic_rmw add %v, @c[%i] : i32
  tc.return
}

// A function that touches one field needs no tags.
// RUN: %tic-opt %s --split-input-file --tic-allocate-layout --tic-lower-field-access --convert-tc-to-llvm --convert-snode-to-llvm | FileCheck %s --check-prefix=ONE
// -----
snode.tree @root {
  snode.dense @d axes [0] shape [64] {
    snode.place @a : [f32]
  }
}
// ONE-LABEL: func.func @one
// ONE: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
tc.kernel @one(%i: i32) {
  %x = tc.load @a[%i] : f32
  tc.store %x, @a[%i] : f32
  tc.return
}

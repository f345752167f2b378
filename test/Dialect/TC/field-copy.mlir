// RUN: %tic-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: %tic-opt %s -split-input-file -verify-diagnostics | %tic-opt -split-input-file | FileCheck %s

// tc.field_copy: host code's copies between host memory and field memory
// (tic-host-field-access makes them for --target=cuda).
// CHECK-LABEL: tc.kernel @k(
// CHECK:         tc.field_copy %{{.*}}, %{{.*}}, 4 : !llvm.ptr, !llvm.ptr
// CHECK:         tc.field_copy %{{.*}}, %{{.*}}, 8 to_field : !llvm.ptr, !llvm.ptr
// CHECK:         tc.field_fill %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr
tc.kernel @k() {
  %one = llvm.mlir.constant(1 : i64) : i64
  %a = llvm.alloca %one x f64 : (i64) -> !llvm.ptr
  %b = llvm.alloca %one x f64 : (i64) -> !llvm.ptr
  tc.field_copy %a, %b, 4 : !llvm.ptr, !llvm.ptr
  tc.field_copy %b, %a, 8 to_field : !llvm.ptr, !llvm.ptr
  %z = llvm.mlir.constant(0 : i8) : i8
  %n = llvm.mlir.constant(8 : i64) : i64
  tc.field_fill %a, %z, %n : !llvm.ptr
  tc.return
}

// -----

tc.kernel @k() {
  %one = llvm.mlir.constant(1 : i64) : i64
  %a = llvm.alloca %one x f64 : (i64) -> !llvm.ptr
  %b = llvm.alloca %one x f64 : (i64) -> !llvm.ptr
  // expected-error @+1 {{'tc.field_copy' op copies 0 bytes; expected > 0}}
  tc.field_copy %a, %b, 0 : !llvm.ptr, !llvm.ptr
  tc.return
}

// -----

func.func @f(%a: !llvm.ptr, %b: !llvm.ptr) {
  // expected-error @+1 {{'tc.field_copy' op is host code: it must be inside a tc.kernel}}
  tc.field_copy %a, %b, 4 : !llvm.ptr, !llvm.ptr
  return
}

// -----

func.func @g(%a: !llvm.ptr, %z: i8, %n: i64) {
  // expected-error @+1 {{'tc.field_fill' op is host code: it must be inside a tc.kernel}}
  tc.field_fill %a, %z, %n : !llvm.ptr
  return
}

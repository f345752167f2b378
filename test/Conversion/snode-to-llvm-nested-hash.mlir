// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s

// A hash node below a pointer node: each pointer cell holds a table: a
// 24-byte header, then 64 bucket heads (a nested hash's smallest), or the
// heads of the grown block the header names. Deactivating the pointer cell
// first returns every entry of that table to the hash's pool: each chain
// of its current heads walked, each entry's flag cleared (struct-fors over
// the pool skip it) and the entry freed; then the header zeroed (no block:
// the runtime frees it) and the cell freed.
snode.tree @root {
  snode.pointer @p axes [0] shape [4] {
    snode.hash @h axes [1] shape [8] {
      snode.dense @d axes [1] shape [2] { snode.place @x : [f32] }
    }
  }
}
// CHECK-LABEL: func.func @kill
// CHECK:         %[[OLD:.*]] = llvm.atomicrmw xchg
// CHECK:         scf.if
// CHECK:           %[[HEADS:.*]] = llvm.select
// CHECK:           %[[BK:.*]] = arith.addi
// CHECK:           scf.for %[[B:.*]] = %{{.*}} to %[[BK]] step
// CHECK:             %[[HEAD:.*]] = llvm.load
// CHECK:             scf.while (%[[E:.*]] = %[[HEAD]]) : (!llvm.ptr) -> !llvm.ptr {
// CHECK:               scf.condition
// CHECK:             } do {
// CHECK:             ^bb0(%[[E2:.*]]: !llvm.ptr):
// CHECK:               %[[NEXT:.*]] = llvm.load
// CHECK:               %[[FLAG:.*]] = llvm.getelementptr inbounds %[[E2]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:               llvm.store %{{.*}}, %[[FLAG]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:               snode.free_cell %[[E2]], @h
// CHECK:               scf.yield %[[NEXT]] : !llvm.ptr
// CHECK:           %[[HB:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK:           "llvm.intr.memset"(%[[OLD]], %{{.*}}, %[[HB]])
// CHECK:           snode.free_cell %[[OLD]], @p
func.func @kill(%c: !snode.ptr, %l: i32) {
  snode.deactivate pointer %c, @p[%l] : i32
  return
}

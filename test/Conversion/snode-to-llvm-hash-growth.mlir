// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s

// A root-level hash table: an 8-byte header (mask ^ initial mask, 0 at
// first), then the bucket heads. A lookup reads the mask from the header;
// snode.hash_maintain doubles the table in place while the entries exceed
// twice the buckets, splitting each chain of bucket b into b and b + old
// count by the next bit of the keys' mix, then records the new mask.
snode.tree @root {
  snode.hash @h axes [0] shape [4] { snode.place @x : [f32] }
}

// CHECK-LABEL: func.func @lookup
// CHECK-DAG:     %[[INIT:.*]] = arith.constant 4095 : i64
// CHECK-DAG:     %[[C:.*]] = builtin.unrealized_conversion_cast %arg0
// CHECK:         %[[HDR:.*]] = llvm.load %[[C]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:         %[[HEADS:.*]] = llvm.getelementptr inbounds %[[C]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         %[[MASK:.*]] = arith.xori %[[HDR]], %[[INIT]] : i64
// CHECK:         %[[B:.*]] = arith.andi %{{.*}}, %[[MASK]] : i64
// CHECK:         llvm.getelementptr inbounds %[[HEADS]][%[[B]]]
func.func @lookup(%c: !snode.ptr, %k: i32) -> !snode.ptr {
  %e = snode.lookup hash %c, @h[%k] : i32
  return %e : !snode.ptr
}

// CHECK-LABEL: func.func @grow
// CHECK:         %[[N:.*]] = arith.extui %arg1 : i32 to i64
// CHECK:         %[[M0:.*]] = arith.xori %{{.*}}, %[[INIT:.*]] : i64
// CHECK:         scf.while (%[[M:.*]] = %[[M0]]) : (i64) -> i64 {
// CHECK:           %[[OLD:.*]] = arith.addi %[[M]], %{{.*}} : i64
// CHECK:           %[[TWICE:.*]] = arith.shli %[[OLD]], %{{.*}} : i64
// CHECK:           %[[FULL:.*]] = arith.cmpi ugt, %[[N]], %[[TWICE]] : i64
// CHECK:           %[[MAX:.*]] = arith.constant 4194304 : i64
// CHECK:           %[[ROOM:.*]] = arith.cmpi ult, %[[OLD]], %[[MAX]] : i64
// CHECK:           %[[GO:.*]] = arith.andi %[[FULL]], %[[ROOM]] : i1
// CHECK:           scf.condition(%[[GO]])
// CHECK:         } do {
// CHECK:           scf.for %[[BK:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             scf.while
// CHECK:               %[[H:.*]] = arith.andi %{{.*}}, %[[NEWMASK:.*]] : i64
// CHECK:               %[[STAYS:.*]] = arith.cmpi eq, %[[H]], %[[BK]] : i64
// CHECK:               llvm.store
// CHECK:             llvm.store
// CHECK:             llvm.store
// CHECK:           %[[REC:.*]] = arith.xori %[[NEWMASK]], %[[INIT]] : i64
// CHECK:           llvm.store %[[REC]]
func.func @grow(%c: !snode.ptr, %n: i32) {
  snode.hash_maintain %c, %n, @h
  return
}

// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s

// A root-level hash table: a 16-byte header (mask ^ initial mask, 0 at
// first; the entries the last purge left), then the bucket heads. A lookup
// reads the mask from the header; snode.hash_maintain returns the inactive
// entries to the pool when there are many (a purge), then doubles the
// table in place while the entries exceed twice the buckets, splitting each
// chain of bucket b into b and b + old count by the next bit of the keys'
// mix, then records the new mask.
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

// The pool's live entries (from its state after the root cell), the
// table's buckets and what the last purge left (the header's second word).
// CHECK-LABEL: func.func @grow
// CHECK:         %[[M0:.*]] = arith.xori %{{.*}}, %[[INIT:.*]] : i64
// CHECK:         %[[LIVE:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:         %[[LAST:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// A purge when the live entries exceed twice the buckets and twice what the
// last purge left: every chain rebuilt from its active entries, the
// inactive ones freed and counted.
// CHECK:         %[[OVERB:.*]] = arith.cmpi sgt, %[[LIVE]], %{{.*}} : i64
// CHECK:         %[[L2:.*]] = arith.shli %[[LAST]], %{{.*}} : i64
// CHECK:         %[[OVERLAST:.*]] = arith.cmpi sgt, %[[LIVE]], %[[L2]] : i64
// CHECK:         %[[DUE:.*]] = arith.andi %[[OVERB]], %[[OVERLAST]] : i1
// CHECK:         %[[N:.*]] = scf.if %[[DUE]] -> (i64) {
// CHECK:           %[[FREED:.*]] = scf.for
// CHECK:             scf.while
// CHECK:               scf.if
// CHECK:                 snode.free_cell %{{.*}}, @h
// CHECK:           %[[LEFT:.*]] = arith.subi %[[LIVE]], %[[FREED]] : i64
// CHECK:           llvm.store %[[LEFT]]
// CHECK:           scf.yield %[[LEFT]] : i64
// CHECK:         } else {
// CHECK:           scf.yield %[[LIVE]] : i64
// Then the growth, to the entries left.
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
// CHECK:               scf.if
// CHECK:                 snode.free_cell
// CHECK:               } else {
// CHECK:               %[[H:.*]] = arith.andi %{{.*}}, %[[NEWMASK:.*]] : i64
// CHECK:               %[[STAYS:.*]] = arith.cmpi eq, %[[H]], %[[BK]] : i64
// CHECK:               llvm.store
// CHECK:             llvm.store
// CHECK:             llvm.store
// CHECK:           %[[REC:.*]] = arith.xori %[[NEWMASK]], %[[INIT]] : i64
// CHECK:           llvm.store %[[REC]]
func.func @grow(%c: !snode.ptr) {
  snode.hash_maintain %c, @h
  return
}

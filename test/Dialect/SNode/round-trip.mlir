// RUN: %tic-opt %s | FileCheck %s
// RUN: %tic-opt %s | %tic-opt | FileCheck %s

// CHECK-LABEL: snode.tree @root {
// CHECK-NEXT:    snode.dense @blk axes [0, 1] shape [4, 4] {
// CHECK-NEXT:      snode.dense @cell axes [0, 1] shape [8, 8] {
// CHECK-NEXT:        snode.place @u : [f32]
// CHECK-NEXT:        snode.place @x : [f32, f32, f32]
// CHECK:         snode.place @loss : [f64]
// CHECK:         snode.pointer @p axes [0] shape [16] {
// CHECK:         snode.bitmasked @bm axes [0] shape [16] {
// CHECK:         snode.hash @h axes [0] shape [64] {
// CHECK:         snode.dynamic @dyn axes [0] shape [1024] attributes {chunk = 32 : i64} {
// CHECK:         snode.bit_struct @bs axes [] shape [] attributes {bits = 32 : i64} {
// CHECK-NEXT:      snode.place @bsv : [i32, f32] {quant = [#bits.quant<int, 5>, #bits.quant<ufixed, 12, 0.01>]}
// CHECK-NEXT:      snode.place @bsf : [f32] {quant = [#bits.quant<float, 5, 9>]}
// CHECK:         snode.bit_array @ba axes [0] shape [32] attributes {bits = 32 : i64} {
// CHECK-NEXT:      snode.place @bav : [i32] {quant = [#bits.quant<uint, 1>]}
snode.tree @root {
  snode.dense @blk axes [0, 1] shape [4, 4] {
    snode.dense @cell axes [0, 1] shape [8, 8] {
      snode.place @u : [f32]
      snode.place @x : [f32, f32, f32]
    }
  }
  snode.place @loss : [f64]
  snode.pointer @p axes [0] shape [16] {
    snode.dense @pd axes [0] shape [8] { snode.place @pv : [i32] }
  }
  snode.bitmasked @bm axes [0] shape [16] { snode.place @bmv : [i8] }
  snode.hash @h axes [0] shape [64] { snode.place @hv : [i16] }
  snode.dynamic @dyn axes [0] shape [1024] attributes {chunk = 32} { snode.place @dv : [i64] }
  snode.bit_struct @bs axes [] shape [] attributes {bits = 32} {
    snode.place @bsv : [i32, f32] {quant = [#bits.quant<int, 5>, #bits.quant<ufixed, 12, 0.01>]}
    snode.place @bsf : [f32] {quant = [#bits.quant<float, 5, 9>]}
  }
  snode.bit_array @ba axes [0] shape [32] attributes {bits = 32} { snode.place @bav : [i32] {quant = [#bits.quant<uint, 1>]} }
}

// CHECK-LABEL: func.func @micro
func.func @micro(%i: i32, %j: i32) -> f32 {
  // CHECK: %[[R:.*]] = snode.root_ptr @root
  %r = snode.root_ptr @root
  // CHECK: %[[C:.*]] = snode.get_child %[[R]], @blk
  %c = snode.get_child %r, @blk
  // CHECK: %[[I:.*]] = snode.index_extract %{{.*}}, @blk[0] below 8 : i32
  %bi = snode.index_extract %i, @blk[0] below 8 : i32
  %bj = snode.index_extract %j, @blk[1] below 8 : i32
  // CHECK: %[[L:.*]] = snode.linearize @blk(%[[I]], %{{.*}}) : i32
  %l = snode.linearize @blk(%bi, %bj) : i32
  // CHECK: snode.lookup dense %[[C]], @blk[%[[L]]] : i32
  %cell = snode.lookup dense %c, @blk[%l] : i32
  %c2 = snode.get_child %cell, @cell
  %ci = snode.index_extract %i, @cell[0] below 1 : i32
  %cj = snode.index_extract %j, @cell[1] below 1 : i32
  %l2 = snode.linearize @cell(%ci, %cj) : i32
  %cell2 = snode.lookup dense %c2, @cell[%l2] : i32
  // CHECK: snode.place_ptr %{{.*}}, @x[2] : !llvm.ptr
  %p = snode.place_ptr %cell2, @x[2] : !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> f32
  // CHECK: %[[V:.*]] = snode.load %[[CELL:[0-9a-z_]+]], @x[1] : f32
  %w = snode.load %cell2, @x[1] : f32
  // CHECK: snode.store %[[V]], %[[CELL]], @u[0] : f32
  snode.store %w, %cell2, @u[0] : f32
  // CHECK: snode.atomic_rmw max %[[V]], %[[CELL]], @u[0] : f32
  %o = snode.atomic_rmw max %w, %cell2, @u[0] : f32
  return %v : f32
}

// CHECK-LABEL: func.func @sparse_lookups
func.func @sparse_lookups(%i: i32) -> i32 {
  %r = snode.root_ptr @root
  %c = snode.get_child %r, @p
  // CHECK: snode.lookup pointer %{{.*}}, @p[%{{.*}}] : i32
  %cell = snode.lookup pointer %c, @p[%i] : i32
  // CHECK: snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
  %cell2 = snode.lookup pointer %c, @p[%i] activate : i32
  %d = snode.get_child %cell2, @pd
  %leaf = snode.lookup dense %d, @pd[%i] : i32
  %v = snode.load %leaf, @pv[0] : i32
  // CHECK: snode.is_active pointer %{{.*}}, @p[%{{.*}}] : i32
  %a = snode.is_active pointer %c, @p[%i] : i32
  // CHECK: snode.deactivate pointer %{{.*}}, @p[%{{.*}}] : i32
  snode.deactivate pointer %c, @p[%i] : i32
  return %v : i32
}

// The entry number of a hash cell (a hash below it numbers its parent with
// it).
// CHECK-LABEL: func.func @entry_index
// CHECK: snode.hash_entry_index %{{.*}}, %{{.*}}, @h : !llvm.ptr -> i32
func.func @entry_index(%base: !llvm.ptr, %c: !snode.ptr) -> i32 {
  %e = snode.hash_entry_index %base, %c, @h : !llvm.ptr -> i32
  return %e : i32
}

// f32 adds to neighbouring components (tic-coalesce-atomics).
// CHECK-LABEL: func.func @paired_adds
// CHECK: snode.atomic_add_fields (%{{.*}}, %{{.*}}), %{{.*}}, [@x, @x] [1, 2]
func.func @paired_adds(%c: !snode.ptr, %v: f32) {
  snode.atomic_add_fields (%v, %v), %c, [@x, @x] [1, 2]
  return
}

// Quantized accesses: several fields of one word, a bit_array lane, an
// exclusive store.
// CHECK-LABEL: func.func @quant_ops
// CHECK: snode.store_fields (%{{.*}}, %{{.*}}), %{{.*}}, [@bsv, @bsv] [0, 1] {exclusive} : i32, f32
// CHECK: snode.load %{{.*}} lane %{{.*}}, @bav[0] : i32
// CHECK: snode.store %{{.*}}, %{{.*}}, @bsf[0] {exclusive} : f32
func.func @quant_ops(%w: !snode.ptr, %a: !snode.ptr, %i: i32, %x: f32) -> i32 {
  snode.store_fields (%i, %x), %w, [@bsv, @bsv] [0, 1] {exclusive} : i32, f32
  %v = snode.load %a lane %i, @bav[0] : i32
  snode.store %x, %w, @bsf[0] {exclusive} : f32
  return %v : i32
}

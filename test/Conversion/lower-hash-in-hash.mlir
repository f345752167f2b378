// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access --convert-snode-to-llvm | FileCheck %s --check-prefix=LLVM

// A hash below a hash (and a dense level between them): the inner key's
// last slot numbers the parent cell as (entry number of the outer cell) *
// (cells between) + (cell between); a struct-for over the inner hash's
// entries gets the outer indices back from the outer hash's entry.

snode.tree @root {
  snode.hash @a axes [0] shape [8] {
    snode.dense @m axes [1] shape [3] {
      snode.hash @h axes [1] shape [16] {
        snode.dense @d axes [1] shape [4] { snode.place @x : [f32] }
      }
    }
  }
}

// The outer cell's entry number, times the 3 cells of @m, plus @m's cell:
// wrapping arithmetic (the ambient cell of an absent outer key has no
// entry number), packed above the inner key.
// CHECK-LABEL: tc.kernel @put
// CHECK:       %[[A:.*]] = snode.lookup hash %{{.*}}, @a[%{{.*}}] activate : i32
// CHECK:       %[[BASE:.*]], %{{.*}} = snode.pool_view @a
// CHECK:       %[[E:.*]] = snode.hash_entry_index %[[BASE]], %[[A]], @a : !llvm.ptr -> i32
// CHECK:       %[[M:.*]] = snode.index_extract %{{.*}}, @m[1] below 64 : i32
// CHECK:       %[[EM:.*]] = arith.muli %[[E]], %{{.*}} : i32
// CHECK:       %[[P:.*]] = arith.addi %[[EM]], %[[M]] : i32
// CHECK:       %[[P64:.*]] = arith.extui %[[P]] : i32 to i64
// CHECK:       %[[SH:.*]] = arith.shli %[[P64]], %{{.*}} : i64
// CHECK:       %[[KEY:.*]] = arith.ori %{{.*}}, %[[SH]] : i64
// CHECK:       snode.lookup hash %{{.*}}, @h[%[[KEY]]] activate : i64
// LLVM-LABEL: tc.kernel @put
// LLVM:       llvm.ptrtoint
// LLVM:       llvm.ptrtoint
// LLVM:       %[[OFF:.*]] = arith.subi
// LLVM:       %[[CELL:.*]] = arith.subi %[[OFF]], %{{.*}} : i64
// LLVM:       %[[N:.*]] = arith.divui %[[CELL]], %{{.*}} : i64
// LLVM:       arith.trunci %[[N]] : i64 to i32
tc.kernel @put(%i: i32, %j: i32, %v: f32) {
  tc.store %v, @x[%i, %j] : f32
  tc.return
}

// Parallel over @h's entries; the key's last slot splits into @m's cell
// (remainder by 3) and @a's entry number, whose key is the outer index.
// CHECK-LABEL: tc.kernel @visit
// CHECK:       tc.parallel_for
// CHECK:       %[[ACT:.*]], %[[K:.*]]:2 = snode.hash_entry %{{.*}}, @h[%{{.*}}] : !llvm.ptr -> i1, i32, i32
// CHECK:       scf.if %[[ACT]]
// CHECK:       %[[MC:.*]] = arith.remui %[[K]]#1, %{{.*}} : i32
// CHECK:       %[[AE:.*]] = arith.divui %[[K]]#1, %{{.*}} : i32
// CHECK:       %{{.*}}, %[[AK:.*]] = snode.hash_entry %{{.*}}, @a[%[[AE]]] : !llvm.ptr -> i1, i32
// CHECK:       %[[MJ:.*]] = arith.muli %[[MC]], %{{.*}} overflow<nsw> : i32
// CHECK:       arith.addi %[[MJ]], %[[K]]#0 overflow<nsw> : i32
// CHECK:       scf.for
// CHECK:       snode.lookup hash %{{.*}}, @a[%[[AK]]] known_active : i32
// CHECK:       snode.load
tc.kernel @visit() {
  tc.struct_for @x (%i, %j) {
    %v = tc.load @x[%i, %j] : f32
    tc.yield
  }
  tc.return
}

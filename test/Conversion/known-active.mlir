// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for | FileCheck %s --check-prefix=MARK
// RUN: %tic-opt %s --tic-allocate-layout "--tic-lower-struct-for=known-active=false" | FileCheck %s --check-prefix=OFF
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access | FileCheck %s --check-prefix=LOWER
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access --convert-snode-to-llvm | FileCheck %s --check-prefix=LLVM

// Accesses of a sparse struct-for at its own indices, to fields that reach
// the loop's node with the same cells, are known active (thesis 2.5: the
// loop checked): no activation, no inactive-cell fallback. A neighbour
// (other indices) and a field with other cells under the node keep both.
snode.tree @root {
  snode.pointer @p axes [0] shape [8] {
    snode.dense @d axes [0] shape [4] { snode.place @u : [f32] snode.place @v : [f32] }
    snode.dense @e axes [0] shape [2] { snode.place @w : [f32] }
  }
}
tc.kernel @k() {
  tc.struct_for @u (%i) {
    %x = tc.load @u[%i] : f32
    %c1 = arith.constant 1 : i32
    %n = arith.addi %i, %c1 : i32
    %y = tc.load @u[%n] : f32
    tc.store %x, @v[%i] : f32
    tc.store %y, @w[%i] : f32
    tc.yield
  }
  tc.return
}
// MARK:      %[[I:.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw, nuw>
// MARK:      tc.load @u[%[[I]]] {tc.active = @p} : f32
// MARK:      tc.load @u[%{{.*}}] : f32
// MARK:      tc.store %{{.*}}, @v[%[[I]]] {tc.active = @p} : f32
// MARK:      tc.store %{{.*}}, @w[%[[I]]] : f32
// OFF-NOT:   tc.active

// LOWER:     snode.lookup pointer %{{.*}}, @p[%{{.*}}] known_active : i32
// LOWER:     snode.lookup pointer %{{.*}}, @p[%{{.*}}] : i32
// LOWER:     snode.lookup pointer %{{.*}}, @p[%{{.*}}] known_active : i32
// LOWER:     snode.store %{{.*}}, %{{.*}}, @v[0]
// LOWER:     snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// LOWER:     snode.store %{{.*}}, %{{.*}}, @w[0]

// A known-active pointer lookup is the slot's cell, nothing else; the
// neighbour's selects the ambient cell for a null slot.
// LLVM-LABEL: tc.kernel @k
// LLVM:       scf.for
// LLVM:       %[[P:.*]] = llvm.load %{{.*}} atomic acquire {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// LLVM-NOT:   llvm.select
// LLVM:       llvm.getelementptr inbounds %[[P]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<8 x i8>
// LLVM:       %[[Q:.*]] = llvm.load %{{.*}} atomic acquire {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// LLVM:       %[[A:.*]] = llvm.mlir.addressof @__tic_ambient_cell
// LLVM:       llvm.select %{{.*}}, %[[A]], %[[Q]]

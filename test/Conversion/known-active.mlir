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
// MARK:      tc.load @u[%{{.*}}] {tc.near = @p} : f32
// MARK:      tc.store %{{.*}}, @v[%[[I]]] {tc.active = @p} : f32
// MARK:      tc.store %{{.*}}, @w[%[[I]]] : f32
// OFF-NOT:   tc.active

// LOWER:     snode.lookup pointer %{{.*}}, @p[%{{.*}}] known_active : i32
// The neighbour u[i + 1] (tc.near): in the loop's own cell when i's place
// in it plus 1 stays below 4 (the inner index r of i = 4 c + r), then the
// own lookup, known active; else its own, with the inactive fallback.
// LOWER:     %[[R1:.*]] = arith.addi %arg{{[0-9]+}}, %c1{{.*}} : i32
// LOWER:     %[[IN:.*]] = arith.cmpi slt, %[[R1]], %c4{{.*}} : i32
// LOWER:     scf.if %[[IN]] -> (!snode.ptr) {
// LOWER:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] known_active : i32
// LOWER:     } else {
// LOWER:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] : i32
// LOWER:     }
// LOWER:     snode.load %{{.*}}, @u[0] : f32
// LOWER:     snode.lookup pointer %{{.*}}, @p[%{{.*}}] known_active : i32
// LOWER:     snode.store %{{.*}}, %{{.*}}, @v[0]
// LOWER:     snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// LOWER:     snode.store %{{.*}}, %{{.*}}, @w[0]

// A known-active pointer lookup is the slot's cell, nothing else; the
// neighbour's, outside the loop's cell, selects the ambient cell for a
// null slot.
// LLVM-LABEL: tc.kernel @k
// LLVM:       scf.for
// LLVM:       %[[P:.*]] = llvm.load %{{.*}} atomic acquire {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// LLVM-NOT:   llvm.select
// LLVM:       llvm.getelementptr inbounds %[[P]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<8 x i8>
// LLVM:       %[[Q:.*]] = llvm.load %{{.*}} atomic acquire {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// LLVM:       %[[A:.*]] = llvm.mlir.addressof @__tic_ambient_cell
// LLVM:       llvm.select %{{.*}}, %[[Q]], %[[A]]

// A write at a neighbour (a push stencil) takes the same fast path: in the
// loop's own cell the known-active lookup, else the activating one.
tc.kernel @push() {
  tc.struct_for @u (%i) {
    %x = tc.load @u[%i] : f32
    %c1 = arith.constant 1 : i32
    %n = arith.addi %i, %c1 : i32
    %o = tc.atomic_rmw add %x, @v[%n] : f32
    tc.yield
  }
  tc.return
}
// MARK-LABEL: tc.kernel @push
// MARK:      tc.atomic_rmw add %{{.*}}, @v[%{{.*}}] {tc.near = @p} : f32
// LOWER-LABEL: tc.kernel @push
// LOWER:     scf.if %{{.*}} -> (!snode.ptr) {
// LOWER:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] known_active : i32
// LOWER:     } else {
// LOWER:       snode.lookup pointer %{{.*}}, @p[%{{.*}}] activate : i32
// LOWER:     }
// LOWER:     snode.atomic_rmw add %{{.*}}, %{{.*}}, @v[0] : f32

// RUN: %tic-opt %s --tic-allocate-layout --tic-demote-atomics | FileCheck %s

// tic-demote-atomics on fields and ndarrays: an atomic whose element is owned
// by the iteration of its parallel loop (or that runs on one thread) becomes
// load / op / store; the loaded value replaces the atomic's old value.

snode.tree @root {
  snode.dense @l0 axes [0] shape [64] { snode.place @x : [f32] }
  snode.dense @l1 axes [0] shape [64] { snode.place @y : [f32] }
  snode.dense @l2 axes [0] shape [64] { snode.place @c : [i32] }
  snode.dense @l3 axes [0] shape [64] { snode.place @v : [f32, f32, f32] }
  snode.dense @g0 axes [0, 1] shape [8, 8] { snode.place @g : [f32] }
  snode.dense @g1 axes [0, 1] shape [8, 8] {
    snode.dense @g2 axes [0, 1] shape [4, 4] { snode.place @h : [f32] }
  }
  // A hash below 2^32 parent cells: not lowerable.
  snode.dense @spd axes [1, 2] shape [65536, 65536] {
    snode.hash @sp axes [0] shape [32] { snode.place @s : [f32] }
  }
  snode.place @tot : [f32]
}

// x[i] += v, the old value used: load, addf, store; the load is the result.
// CHECK-LABEL: tc.kernel @own_index
// CHECK:         tc.parallel_for (%[[I:.*]]) =
// CHECK-NOT:     tc.atomic_rmw
// CHECK:         %[[OLD:.*]] = tc.load @x[%[[I]]] : f32
// CHECK-NEXT:    %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:    tc.store %[[NEW]], @x[%[[I]]] : f32
// CHECK-NEXT:    tc.store %[[OLD]], @y[%[[I]]] : f32
tc.kernel @own_index(%w: f32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %old = tc.atomic_rmw add %w, @x[%i] : f32
    tc.store %old, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// Injective affine indices: i + n (n invariant), 2 * i + 1 with nsw (exact
// arithmetic), 3 * i - 1 without flags (odd: a bijection mod 2^32), i << 1
// with nsw; a read of the same cell in the same iteration is fine.
// CHECK-LABEL: tc.kernel @affine
// CHECK-NOT:     tc.atomic_rmw
// CHECK:         %[[R:.*]] = tc.load @x[%[[A:.*]]] : f32
// CHECK-NEXT:    %[[OLD:.*]] = tc.load @x[%[[A]]] : f32
// CHECK-NEXT:    arith.addf %[[OLD]], %[[R]]
// CHECK-NEXT:    tc.store %{{.*}}, @x[%[[A]]] : f32
// CHECK:         tc.load @y[%[[B:.*]]] : f32
// CHECK-NEXT:    arith.subf
// CHECK-NEXT:    tc.store %{{.*}}, @y[%[[B]]] : f32
// CHECK:         tc.load @c[%[[C:.*]]] : i32
// CHECK-NEXT:    arith.maxsi
// CHECK-NEXT:    tc.store %{{.*}}, @c[%[[C]]] : i32
// CHECK:         tc.load @g[%[[D:.*]], %{{.*}}] : f32
// CHECK-NEXT:    arith.minnumf
// CHECK-NEXT:    tc.store %{{.*}}, @g[%[[D]], %{{.*}}] : f32
tc.kernel @affine(%n: i32, %w: f32, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %a = arith.addi %i, %n : i32
    %r = tc.load @x[%a] : f32
    %0 = tc.atomic_rmw add %r, @x[%a] : f32
    %t = arith.muli %c2, %i overflow<nsw> : i32
    %b = arith.addi %t, %c1 overflow<nsw> : i32
    %1 = tc.atomic_rmw sub %w, @y[%b] : f32
    %t3 = arith.muli %i, %c3 : i32
    %cc = arith.subi %t3, %c1 : i32
    %2 = tc.atomic_rmw max %k, @c[%cc] : i32
    %d = arith.shli %i, %c1 overflow<nsw> : i32
    %3 = tc.atomic_rmw min %w, @g[%d, %c0] : f32
    tc.yield
  }
  tc.return
}

// A 2-D loop over (i, j): g[i, j] and h[j, i] (a 2-level path); a vector
// field (one atomic per component, same element); and/or/xor.
// CHECK-LABEL: tc.kernel @two_d
// CHECK-NOT:     tc.atomic_rmw
// CHECK:         tc.load @g[%[[I:.*]], %[[J:.*]]] : f32
// CHECK:         tc.store %{{.*}}, @g[%[[I]], %[[J]]] : f32
// CHECK:         tc.load @h[%[[J]], %[[I]]] : f32
// CHECK:         tc.store %{{.*}}, @h[%[[J]], %[[I]]] : f32
// CHECK:         tc.parallel_for (%[[K:.*]]) =
// CHECK:         tc.load @v[%[[K]]] {comp = 2 : i64} : f32
// CHECK:         tc.store %{{.*}}, @v[%[[K]]] {comp = 2 : i64} : f32
// CHECK:         tc.load @v[%[[K]]] {comp = 1 : i64} : f32
// CHECK:         arith.andi
// CHECK:         arith.ori
// CHECK:         arith.xori
// CHECK:         tc.yield
tc.kernel @two_d(%w: f32, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c8, %c32) {
    %0 = tc.atomic_rmw add %w, @g[%i, %j] : f32
    %1 = tc.atomic_rmw add %w, @h[%j, %i] : f32
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c32) {
    %2 = tc.atomic_rmw add %w, @v[%i] {comp = 2} : f32
    %3 = tc.atomic_rmw add %w, @v[%i] {comp = 1} : f32
    %4 = tc.atomic_rmw and %k, @c[%i] : i32
    %5 = tc.atomic_rmw or %k, @c[%i] : i32
    %6 = tc.atomic_rmw xor %k, @c[%i] : i32
    tc.yield
  }
  tc.return
}

// In a serial inner loop over k: x[i] += k and g[i, k] (a free position) are
// owned by iteration i.
// CHECK-LABEL: tc.kernel @inner_serial
// CHECK-NOT:     tc.atomic_rmw
// CHECK:         tc.load @x
// CHECK:         tc.store %{{.*}}, @x
// CHECK:         tc.load @g
// CHECK:         tc.store %{{.*}}, @g
tc.kernel @inner_serial(%m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    cf.br ^head(%c0 : i32)
  ^head(%k: i32):
    %go = arith.cmpi slt, %k, %m : i32
    cf.cond_br %go, ^body, ^done
  ^body:
    %f = arith.sitofp %k : i32 to f32
    %0 = tc.atomic_rmw add %f, @x[%i] : f32
    %1 = tc.atomic_rmw add %f, @g[%i, %k] : f32
    %k1 = arith.addi %k, %c1 : i32
    cf.br ^head(%k1 : i32)
  ^done:
    tc.yield
  }
  tc.return
}

// A struct-for: its induction variables are distinct per iteration too.
// CHECK-LABEL: tc.kernel @struct_for
// CHECK:         tc.struct_for @g (%[[I:.*]], %[[J:.*]])
// CHECK-NOT:     tc.atomic_rmw
// CHECK:         tc.load @g[%[[I]], %[[J]]]
tc.kernel @struct_for(%w: f32) {
  tc.struct_for @g (%i, %j) {
    %0 = tc.atomic_rmw add %w, @g[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// ndarrays: a[i] += b[i] with b of another element type. a[i] with a read of
// another f32 ndarray keeps the atomic: the two parameters may be one buffer.
// CHECK-LABEL: tc.kernel @ndarrays
// CHECK:         %[[OLD:.*]] = tc.ndarray_load %arg0[%[[I:.*]]] : !tc.ndarray<f32, 1>
// CHECK-NEXT:    %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:    tc.ndarray_store %[[NEW]], %arg0[%[[I]]] : !tc.ndarray<f32, 1>
// CHECK:         tc.ndarray_atomic_rmw add %{{.*}}, %arg2[%[[I]]] : !tc.ndarray<f32, 1>
tc.kernel @ndarrays(%a: !tc.ndarray<f32, 1>, %b: !tc.ndarray<i32, 1>,
                    %p: !tc.ndarray<f32, 1>, %q: !tc.ndarray<f32, 1>) {
  %c0 = arith.constant 0 : i32
  %n = tc.ndarray_dim %a, 0 : !tc.ndarray<f32, 1>
  tc.parallel_for (%i) = (%c0) to (%n) {
    %bi = tc.ndarray_load %b[%i] : !tc.ndarray<i32, 1>
    %f = arith.sitofp %bi : i32 to f32
    %0 = tc.ndarray_atomic_rmw add %f, %a[%i] : !tc.ndarray<f32, 1>
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%n) {
    %qi = tc.ndarray_load %q[%i] : !tc.ndarray<f32, 1>
    %0 = tc.ndarray_atomic_rmw add %qi, %p[%i] : !tc.ndarray<f32, 1>
    tc.yield
  }
  tc.return
}

// Outside parallel loops and in a serialized loop one thread runs: every
// atomic is demoted, whatever its index.
// CHECK-LABEL: tc.kernel @serial
// CHECK-NOT:     tc.atomic_rmw
// CHECK:         tc.load @tot[]
// CHECK:         tc.store %{{.*}}, @tot[]
// CHECK:         tc.parallel_for {{.*}} attributes {serialize}
// CHECK:         tc.load @x[%{{.*}}]
// CHECK:         tc.store %{{.*}}, @x[%{{.*}}]
tc.kernel @serial(%w: f32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %0 = tc.atomic_rmw add %w, @tot[] : f32
  tc.parallel_for (%i) = (%c0) to (%c8) attributes {serialize} {
    %1 = tc.atomic_rmw add %w, @x[%c0] : f32
    tc.yield
  }
  tc.return
}

//===----------------------------------------------------------------------===//
// Kept atomic: another iteration may touch the same element.
//===----------------------------------------------------------------------===//

// Non-injective or non-affine indices: x[i // 2], x[0]; in a 2-D loop y[i + j],
// y[i] and y[8 * j + i] (injective only because i < 8, which is not proven);
// 2 * i without nsw (wraps: i and i + 2^31 collide), x[c[i]] (an index read
// from memory), x[k] in a serial inner loop.
// CHECK-LABEL: tc.kernel @not_injective
// CHECK-NOT:     tc.load @x
// CHECK-COUNT-2: tc.atomic_rmw add %{{.*}}, @x
// CHECK:         tc.parallel_for
// CHECK-COUNT-3: tc.atomic_rmw add %{{.*}}, @y
// CHECK:         tc.parallel_for
// CHECK-COUNT-3: tc.atomic_rmw add %{{.*}}, @x
// CHECK-NOT:     tc.load @x
tc.kernel @not_injective(%w: f32, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %h = arith.floordivsi %i, %c2 : i32
    %0 = tc.atomic_rmw add %w, @x[%h] : f32
    %1 = tc.atomic_rmw add %w, @x[%c0] : f32
    tc.yield
  }
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c8, %c8) {
    %s = arith.addi %i, %j overflow<nsw> : i32
    %0 = tc.atomic_rmw add %w, @y[%s] : f32
    %1 = tc.atomic_rmw add %w, @y[%i] : f32
    %j8 = arith.muli %j, %c8 overflow<nsw> : i32
    %l = arith.addi %j8, %i overflow<nsw> : i32
    %2 = tc.atomic_rmw add %w, @y[%l] : f32
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %t = arith.muli %i, %c2 : i32
    %0 = tc.atomic_rmw add %w, @x[%t] : f32
    %ci = tc.load @c[%i] : i32
    %1 = tc.atomic_rmw add %w, @x[%ci] : f32
    cf.br ^head(%c0 : i32)
  ^head(%k: i32):
    %go = arith.cmpi slt, %k, %m : i32
    cf.cond_br %go, ^body, ^done
  ^body:
    %2 = tc.atomic_rmw add %w, @x[%k] : f32
    %k1 = arith.addi %k, %c1 : i32
    cf.br ^head(%k1 : i32)
  ^done:
    tc.yield
  }
  tc.return
}

// The same field accessed with another index in the loop: x[i] += 1 next to
// x[i + 1] += 1, or next to a read of x[i - 1]; every access of @y keeps it.
// CHECK-LABEL: tc.kernel @other_access
// CHECK-NOT:     tc.load @x
// CHECK:         tc.atomic_rmw add %{{.*}}, @x[%[[I:.*]]] : f32
// CHECK:         tc.atomic_rmw add %{{.*}}, @x[%{{.*}}] : f32
// CHECK:         tc.parallel_for
// CHECK:         tc.load @y[%{{.*}}] : f32
// CHECK:         tc.atomic_rmw add %{{.*}}, @y[%{{.*}}] : f32
tc.kernel @other_access(%w: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %0 = tc.atomic_rmw add %w, @x[%i] : f32
    %ip = arith.addi %i, %c1 : i32
    %1 = tc.atomic_rmw add %w, @x[%ip] : f32
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %im = arith.subi %i, %c1 : i32
    %r = tc.load @y[%im] : f32
    %0 = tc.atomic_rmw add %r, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// Only lowerable paths: a hash SNode below more than 2^31 - 1 parent
// cells is left alone.
// CHECK-LABEL: tc.kernel @sparse
// CHECK:         tc.atomic_rmw add %{{.*}}, @s[%{{.*}}, %{{.*}}, %{{.*}}] : f32
tc.kernel @sparse(%w: f32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %0 = tc.atomic_rmw add %w, @s[%i, %c0, %c0] : f32
    tc.yield
  }
  tc.return
}

// A loop holding memory operations the pass does not model (here an
// llvm.load) keeps all its atomics.
// CHECK-LABEL: tc.kernel @opaque
// CHECK:         llvm.load
// CHECK:         tc.atomic_rmw add %{{.*}}, @x[%{{.*}}] : f32
tc.kernel @opaque(%w: f32) {
  %c0 = arith.constant 0 : i32
  %p = llvm.mlir.zero : !llvm.ptr
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    %v = llvm.load %p : !llvm.ptr -> f32
    %0 = tc.atomic_rmw add %v, @x[%i] : f32
    tc.yield
  }
  tc.return
}

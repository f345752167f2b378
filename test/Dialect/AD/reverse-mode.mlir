// RUN: %tic-opt %s --tic-reverse-mode | FileCheck %s

// tic-reverse-mode: the adjoint kernel @k_grad of every kernel marked
// ad.differentiable (DiffTaichi's worked example and the rules of
// docs/autodiff.md).

snode.tree @root {
  snode.place @loss : [f32] {ad.grad = @loss.grad}
  snode.place @loss.grad : [f32]
  snode.dense @d axes [0] shape [16] {
    snode.place @x : [f32] {ad.grad = @x.grad}
    snode.place @x.grad : [f32]
    snode.place @y : [f32] {ad.grad = @y.grad}
    snode.place @y.grad : [f32]
    snode.place @n : [f32]
  }
}

// y[i] = sin(x[i]^2): recompute, take y.grad (and zero it), chain rule,
// one atomic add into x.grad (the two reads of x[i] are one load).
// CHECK-LABEL: tc.kernel @sq_sin_grad(%{{.*}}: f32) attributes {ad.adjoint_of = @sq_sin}
// CHECK:         tc.struct_for @x (%[[I:.*]]) {
// CHECK:           %[[X:.*]] = tc.load @x[%[[I]]] : f32
// CHECK:           %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:           %[[G:.*]] = tc.load @y.grad[%[[I]]] : f32
// CHECK:           tc.store %{{.*}}, @y.grad[%[[I]]] : f32
// CHECK:           %[[C:.*]] = math.cos %[[X2]] : f32
// CHECK:           %[[G2:.*]] = arith.mulf %[[G]], %[[C]] : f32
// CHECK:           tc.atomic_rmw add %{{.*}}, @x.grad[%[[I]]] : f32
// CHECK-NOT:       tc.atomic_rmw
// CHECK:           tc.yield
tc.kernel @sq_sin(%unused: f32) attributes {ad.differentiable} {
  tc.struct_for @x (%i) {
    %a = tc.load @x[%i] : f32
    %b = tc.load @x[%i] : f32
    %m = arith.mulf %a, %b : f32
    %s = math.sin %m : f32
    tc.store %s, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// loss += y[i]: y.grad[i] += loss.grad (an atomic add, loss.grad unchanged).
// CHECK-LABEL: tc.kernel @reduce_grad()
// CHECK:         tc.struct_for @y (%[[I:.*]]) {
// CHECK-NEXT:      %[[L:.*]] = tc.load @loss.grad[] : f32
// CHECK-NEXT:      tc.atomic_rmw add %[[L]], @y.grad[%[[I]]] : f32
// CHECK-NEXT:      tc.yield
tc.kernel @reduce() attributes {ad.differentiable} {
  tc.struct_for @y (%i) {
    %v = tc.load @y[%i] : f32
    %o = tc.atomic_rmw add %v, @loss[] : f32
    tc.yield
  }
  tc.return
}

// A branch is differentiated under the same condition; the untaken one is
// never evaluated (1/x at x = 0 stays out).
// CHECK-LABEL: tc.kernel @recip_grad()
// CHECK:         %[[X:.*]] = tc.load @x[%{{.*}}] : f32
// CHECK:         %[[C:.*]] = arith.cmpf one, %[[X]], %{{.*}} : f32
// CHECK:         %[[GX:.*]] = scf.if %[[C]] -> (f32) {
// CHECK:           arith.divf
// CHECK:           scf.yield
// CHECK:         } else {
// CHECK:           scf.yield %{{.*}} : f32
// CHECK:         tc.atomic_rmw add %[[GX]], @x.grad
tc.kernel @recip() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %x = tc.load @x[%i] : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.cmpf one, %x, %zero : f32
    %r = scf.if %c -> (f32) {
      %d = arith.divf %one, %x : f32
      scf.yield %d : f32
    } else {
      scf.yield %zero : f32
    }
    %o = tc.atomic_rmw add %r, @loss[] : f32
    tc.yield
  }
  tc.return
}

// A serial loop runs backwards: iteration k of the adjoint is iteration
// 3 - k of y[j + 1] = x[j] * y[j] (lower bound 0, 4 iterations).
// CHECK-LABEL: tc.kernel @chain_grad()
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:           %[[J:.*]] = arith.subi %{{.*}}, %[[K]] : i32
// CHECK:           tc.load @y.grad[
// CHECK:           tc.atomic_rmw add %{{.*}}, @y.grad[%[[J]]]
// CHECK:           tc.atomic_rmw add %{{.*}}, @x.grad[%[[J]]]
tc.kernel @chain() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  scf.for %j = %c0 to %c4 step %c1 : i32 {
    %x = tc.load @x[%j] : f32
    %y = tc.load @y[%j] : f32
    %p = arith.mulf %x, %y : f32
    %j1 = arith.addi %j, %c1 : i32
    tc.store %p, @y[%j1] : f32
  }
  tc.return
}

// A field without an adjoint (@n) gets no contribution; select's adjoint
// is select(c, g, 0) / select(c, 0, g), never g * c.
// CHECK-LABEL: tc.kernel @sel_grad()
// CHECK:         %[[C:.*]] = arith.cmpf ogt
// CHECK:         %[[G:.*]] = tc.load @loss.grad[] : f32
// CHECK:         %[[A:.*]] = arith.select %[[C]], %[[G]], %{{.*}} : f32
// CHECK:         tc.atomic_rmw add %[[A]], @x.grad
// CHECK-NOT:     @n.grad
tc.kernel @sel() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %x = tc.load @x[%i] : f32
    %n = tc.load @n[%i] : f32
    %c = arith.cmpf ogt, %x, %n : f32
    %s = arith.select %c, %x, %n : f32
    %o = tc.atomic_rmw add %s, @loss[] : f32
    tc.yield
  }
  tc.return
}

// A custom gradient becomes the adjoint of its kernel.
// CHECK-LABEL: tc.kernel @custom_target_grad(%{{.*}}: f32) attributes {ad.adjoint_of = @custom_target}
// CHECK:         arith.constant 7.0
tc.kernel @custom_target(%s: f32) {
  tc.return
}
tc.kernel @custom(%s: f32) attributes {ad.grad_of = @custom_target} {
  %seven = arith.constant 7.0 : f32
  %c0 = arith.constant 0 : i32
  tc.store %seven, @x.grad[%c0] : f32
  tc.return
}

// A local carried through a serial loop (s = s * x[j] + 1): the recomputed
// loop stores each iteration's incoming s in the adjoint stack (one slot per
// iteration, allocated at the top of the parallel body); the reversed loop
// reads it back and carries the adjoint of s backwards.
// CHECK-LABEL: tc.kernel @carried_grad()
// CHECK:         tc.parallel_for
// CHECK-NEXT:      %[[STACK:.*]] = memref.alloca() : memref<4xf32>
// CHECK:           scf.for %[[J:.*]] = %{{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (f32)
// CHECK:             %[[K:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:             memref.store %[[S]], %[[STACK]][%[[K]]] : memref<4xf32>
// CHECK:           scf.for %{{.*}} iter_args(%[[G:.*]] = %{{.*}}) -> (f32)
// CHECK:             %[[SJ:.*]] = memref.load %[[STACK]][%{{.*}}] : memref<4xf32>
// CHECK:             arith.mulf %[[G]], %[[SJ]]
// CHECK:             tc.atomic_rmw add %{{.*}}, @x.grad
tc.kernel @carried() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %s = memref.alloca() {tc.name = "s"} : memref<f32>
    %one = arith.constant 1.0 : f32
    memref.store %one, %s[] : memref<f32>
    scf.for %j = %c0 to %c4 step %c1 : i32 {
      %v = memref.load %s[] : memref<f32>
      %x = tc.load @x[%j] : f32
      %m = arith.mulf %v, %x : f32
      %p = arith.addf %m, %one : f32
      memref.store %p, %s[] : memref<f32>
    }
    %r = memref.load %s[] : memref<f32>
    tc.store %r, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// A loop carrying a local whose trip count is known at run time only: the
// stack has stack-size slots (256), a longer run fails the launch.
// CHECK-LABEL: tc.kernel @carried_n_grad(%{{.*}}: i32)
// CHECK:         memref.alloca() : memref<256xf32>
// CHECK:         tc.assert %{{.*}}, "adjoint stack overflow: this serial loop, which carries 's', ran more than 256 iterations
// CHECK:         arith.minsi
tc.kernel @carried_n(%n: i32) attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %s = memref.alloca() {tc.name = "s"} : memref<f32>
    %one = arith.constant 1.0 : f32
    memref.store %one, %s[] : memref<f32>
    scf.for %j = %c0 to %n step %c1 : i32 {
      %v = memref.load %s[] : memref<f32>
      %x = tc.load @x[%j] : f32
      %m = arith.mulf %v, %x : f32
      memref.store %m, %s[] : memref<f32>
    }
    %r = memref.load %s[] : memref<f32>
    tc.store %r, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// A while loop carrying a local (s = s * x[0] while t < 8, t doubling): the
// recomputed loop counts its iterations and stacks the `before` arguments;
// the adjoint runs the exiting `before` first, then an scf.for over the
// counted iterations backwards.
// CHECK-LABEL: tc.kernel @doubling_grad()
// CHECK:         %[[COUNT:.*]] = memref.alloca() : memref<i32>
// CHECK:         memref.store %{{.*}}, %[[COUNT]][] : memref<i32>
// CHECK:         scf.while
// CHECK:         tc.store %{{.*}}, @y.grad
// CHECK:         %[[N:.*]] = memref.load %[[COUNT]][] : memref<i32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]]
// CHECK:           tc.atomic_rmw add %{{.*}}, @x.grad
tc.kernel @doubling() attributes {ad.differentiable} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%i) = (%c0) to (%c16) {
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %eight = arith.constant 8.0 : f32
    %r:2 = scf.while (%s = %one, %t = %one) : (f32, f32) -> (f32, f32) {
      %c = arith.cmpf olt, %t, %eight : f32
      scf.condition(%c) %s, %t : f32, f32
    } do {
    ^bb0(%s2: f32, %t2: f32):
      %x = tc.load @x[%c0] : f32
      %m = arith.mulf %s2, %x : f32
      %d = arith.mulf %t2, %two : f32
      scf.yield %m, %d : f32, f32
    }
    tc.store %r#0, @y[%i] : f32
    tc.yield
  }
  tc.return
}

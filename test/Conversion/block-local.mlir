// RUN: %tic-opt %s --tic-allocate-layout --tic-block-local -verify-diagnostics | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout "--tic-block-local=cache=false" | FileCheck %s --check-prefix=OFF

// tic-block-local: a struct-for over a field whose elements sit in a dense
// node, with a block_local hint, becomes a loop over the node's parent's
// cells (the blocks). Each block copies the hinted field's footprint (the
// block's elements plus the reads' constant offsets) into a block buffer,
// then runs the body on its elements, those reads from the buffer.

snode.tree @root {
  snode.pointer @blk axes [0, 1] shape [32, 32] {
    snode.dense @cells axes [0, 1] shape [8, 8] {
      snode.place @u : [f32]
      snode.place @v : [f32]
      snode.place @p : [f32, f32]
    }
  }
  snode.dense @one axes [0] shape [16] {
    snode.place @r : [i32]
    snode.place @s : [i32]
  }
  snode.hash @hb axes [0, 1] shape [16, 16] {
    snode.dense @hcells axes [0, 1] shape [4, 4] {
      snode.place @h : [f32]
      snode.place @hv : [f32]
    }
  }
  snode.pointer @pb axes [0] shape [8] {
    snode.bitmasked @bits axes [0] shape [8] {
      snode.place @m : [f32]
      snode.place @mv : [f32]
    }
  }
  snode.pointer @big axes [0, 1] shape [2, 2] {
    snode.dense @bigcells axes [0, 1] shape [128, 128] {
      snode.place @g : [f32]
    }
  }
}

// A 5-point stencil: rows and columns -1..+1, a 10 x 10 buffer; 64 threads
// a block. The fill reads u where the footprint is inside u's 256 x 256
// (one unsigned comparison per axis), 0 elsewhere; inside the block (g -
// base in [0, 8) per axis) the read is in the block's own active cell.
// CHECK-LABEL: tc.kernel @stencil
// CHECK:         tc.struct_for @blk (%[[B0:.*]], %[[B1:.*]]) attributes {block_dim = 64 : i32} {
// CHECK-DAG:       %[[BASE0:.*]] = arith.muli %[[B0]], %{{.*}} overflow<nsw, nuw>
// CHECK-DAG:       %[[BASE1:.*]] = arith.muli %[[B1]], %{{.*}} overflow<nsw, nuw>
// CHECK:           %[[BUF:.*]] = tc.block_buffer : memref<10x10xf32>
// CHECK:           tc.block_for (%[[T0:.*]], %[[T1:.*]]) to (10, 10) {
// CHECK:             %[[M1:.*]] = arith.constant -1 : i32
// CHECK:             %[[O0:.*]] = arith.addi %[[T0]], %[[M1]] overflow<nsw>
// CHECK:             %[[G0:.*]] = arith.addi %[[BASE0]], %[[O0]] overflow<nsw>
// CHECK:             %[[MINE0:.*]] = arith.cmpi ult, %[[O0]], %{{.*}} : i32
// CHECK:             %[[IN0:.*]] = arith.cmpi ult, %[[G0]], %{{.*}} : i32
// CHECK:             %[[MINE1:.*]] = arith.cmpi ult,
// CHECK:             %[[MINE:.*]] = arith.andi %[[MINE0]], %[[MINE1]]
// CHECK:             %[[IN1:.*]] = arith.cmpi ult,
// CHECK:             %[[IN:.*]] = arith.andi %[[IN0]], %[[IN1]]
// CHECK:             %[[X:.*]] = scf.if %[[MINE]] -> (f32) {
// CHECK-NEXT:          %[[OWN:.*]] = tc.load @u[%[[G0]], %{{.*}}] {tc.active = @blk} : f32
// CHECK-NEXT:          scf.yield %[[OWN]]
// CHECK-NEXT:        } else {
// CHECK-NEXT:          %[[Y:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK-NEXT:            %[[L:.*]] = tc.load @u[%[[G0]], %{{.*}}] : f32
// CHECK-NEXT:            scf.yield %[[L]]
// CHECK-NEXT:          } else {
// CHECK:                 scf.yield %{{.*}} : f32
// CHECK:             memref.store %[[X]], %[[BUF]]
// CHECK:             tc.yield
// CHECK:           tc.block_for (%[[E0:.*]], %[[E1:.*]]) to (8, 8) {
// CHECK:             %[[I:.*]] = arith.addi %[[BASE0]], %[[E0]] overflow<nsw, nuw>
// CHECK:             %[[J:.*]] = arith.addi %[[BASE1]], %[[E1]] overflow<nsw, nuw>
// CHECK-NOT:         tc.load
// CHECK:             memref.load %[[BUF]]
// CHECK-NOT:         tc.load
// CHECK:             tc.store %{{.*}}, @v[%[[I]], %[[J]]] {tc.active = @blk} : f32
// CHECK:             tc.yield
// CHECK:           tc.yield
tc.kernel @stencil() {
  tc.struct_for @u (%i, %j) attributes {block_local = [@u]} {
    %c1 = arith.constant 1 : i32
    %im = arith.subi %i, %c1 : i32
    %ip = arith.addi %i, %c1 : i32
    %jm = arith.subi %j, %c1 : i32
    %jp = arith.addi %j, %c1 : i32
    %a = tc.load @u[%im, %j] : f32
    %b = tc.load @u[%ip, %j] : f32
    %c = tc.load @u[%i, %jm] : f32
    %d = tc.load @u[%i, %jp] : f32
    %e = arith.addf %a, %b : f32
    %f = arith.addf %c, %d : f32
    %g = arith.addf %e, %f : f32
    tc.store %g, @v[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// A footprint of rows 0..+2 and columns -3..0 (a 10 x 11 buffer), read at
// e + c - lo; vector components as the buffer's last dimension.
// CHECK-LABEL: tc.kernel @skew
// CHECK:         tc.block_buffer : memref<10x11x2xf32>
// CHECK:         tc.block_for (%{{.*}}, %{{.*}}) to (10, 11)
// CHECK-COUNT-2:   tc.load @p
// CHECK:         tc.block_for (%[[E0:.*]], %[[E1:.*]]) to (8, 8)
// CHECK:           arith.subi
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[R:.*]] = arith.addi %[[E0]], %[[C2]] overflow<nsw, nuw>
// CHECK-NEXT:      %[[RI:.*]] = arith.index_cast %[[R]]
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[C:.*]] = arith.addi %[[E1]], %[[C0]] overflow<nsw, nuw>
// CHECK-NEXT:      %[[CI:.*]] = arith.index_cast %[[C]]
// CHECK:           %[[K:.*]] = arith.constant 1 : index
// CHECK:           memref.load %{{.*}}[%[[RI]], %[[CI]], %[[K]]] : memref<10x11x2xf32>
tc.kernel @skew() {
  tc.struct_for @u (%i, %j) attributes {block_local = [@p]} {
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %ip = arith.addi %i, %c2 : i32
    %jm = arith.subi %j, %c3 : i32
    %a = tc.load @p[%ip, %jm] {comp = 1 : i64} : f32
    %b = tc.load @p[%i, %j] : f32
    %e = arith.addf %a, %b : f32
    tc.store %e, @v[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// Elements in a dense child of the root: one block (a one-iteration
// parallel loop); loop_config's block_dim is kept. The read at a non-constant
// offset stays a field read; the other one, at +1, spans 16 elements.
// CHECK-LABEL: tc.kernel @root_block
// CHECK:         tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) attributes {block_dim = 128 : i32} {
// CHECK:           tc.block_buffer : memref<16xi32>
// CHECK:           tc.block_for (%{{.*}}) to (16)
// CHECK:           tc.block_for (%{{.*}}) to (16)
// CHECK:             memref.load
// CHECK:             tc.load @r[%{{.*}}] : i32
tc.kernel @root_block(%k: i32) {
  tc.struct_for @r (%i) attributes {block_local = [@r], block_dim = 128 : i32} {
    %c1 = arith.constant 1 : i32
    %ip = arith.addi %i, %c1 : i32
    %a = tc.load @r[%ip] : i32
    %ik = arith.addi %i, %k : i32
    %b = tc.load @r[%ik] : i32
    %e = arith.addi %a, %b : i32
    tc.store %e, @s[%i] : i32
    tc.yield
  }
  tc.return
}

// Below a hash the index space has no edge: the fill reads every cell of
// the footprint (no comparison with an extent), from the block's own
// entry inside the block.
// CHECK-LABEL: tc.kernel @hashed
// CHECK:         tc.struct_for @hb
// CHECK:           tc.block_for (%{{.*}}, %{{.*}}) to (6, 4)
// CHECK-COUNT-2:     arith.cmpi ult, %{{.*}}, %c4_i32{{.*}} : i32
// CHECK-NOT:         arith.cmpi
// CHECK:             scf.if %{{.*}} -> (f32) {
// CHECK-NEXT:          tc.load @h[{{.*}}] {tc.active = @hb}
// CHECK:             } else {
// CHECK-NEXT:          tc.load @h[{{.*}}] : f32
// CHECK:           tc.block_for (%{{.*}}, %{{.*}}) to (4, 4)
tc.kernel @hashed() {
  tc.struct_for @h (%i, %j) attributes {block_local = [@h]} {
    %c1 = arith.constant 1 : i32
    %ip = arith.addi %i, %c1 : i32
    %im = arith.subi %i, %c1 : i32
    %a = tc.load @h[%ip, %j] : f32
    %b = tc.load @h[%im, %j] : f32
    %e = arith.addf %a, %b : f32
    tc.store %e, @hv[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// A scatter (additions only, results unused) into v at the loop's indices
// plus constants: v is accumulated per block. Its buffer and a buffer of
// flags (which slots were added to) start at 0; each addition goes to the
// buffer (atomically: a GPU block's threads share it) and sets its flag;
// after the elements, each flagged slot inside v's index space is added to
// v (activating its cell, as the addition it stands for did).
// CHECK-LABEL: tc.kernel @push
// CHECK:         tc.struct_for @blk
// CHECK:           %[[ACC:.*]] = tc.block_buffer : memref<9x9xf32>
// CHECK:           %[[FLAG:.*]] = tc.block_buffer : memref<9x9xi8>
// CHECK:           tc.block_for (%{{.*}}, %{{.*}}) to (9, 9) {
// CHECK:             memref.store %{{.*}}, %[[FLAG]]
// CHECK:             memref.store %{{.*}}, %[[ACC]]
// CHECK:           tc.block_for (%[[E0:.*]], %[[E1:.*]]) to (8, 8) {
// CHECK-NOT:         tc.atomic_rmw
// CHECK:             memref.atomic_rmw addf %{{.*}}, %[[ACC]]
// CHECK:             memref.store %{{.*}}, %[[FLAG]]
// CHECK:             memref.atomic_rmw addf %{{.*}}, %[[ACC]]
// CHECK:             memref.store %{{.*}}, %[[FLAG]]
// CHECK:           tc.block_for (%{{.*}}, %{{.*}}) to (9, 9) {
// CHECK:             %[[F:.*]] = memref.load %[[FLAG]]
// CHECK:             %[[SET:.*]] = arith.cmpi ne, %[[F]]
// CHECK:             %[[GO:.*]] = arith.andi %{{.*}}, %[[SET]]
// CHECK:             scf.if %[[GO]] {
// CHECK:               %[[S:.*]] = memref.load %[[ACC]]
// CHECK:               scf.if
// CHECK-NEXT:            tc.atomic_rmw add %[[S]], @v[{{.*}}] {tc.active = @blk}
// CHECK:               } else {
// CHECK-NEXT:            tc.atomic_rmw add %[[S]], @v[{{.*}}] : f32
// CHECK:           tc.yield
tc.kernel @push() {
  tc.struct_for @u (%i, %j) attributes {block_local = [@v]} {
    %c1 = arith.constant 1 : i32
    %a = tc.load @u[%i, %j] : f32
    %ip = arith.addi %i, %c1 : i32
    %jm = arith.subi %j, %c1 : i32
    %o1 = tc.atomic_rmw add %a, @v[%ip, %j] : f32
    %o2 = tc.atomic_rmw add %a, @v[%i, %jm] : f32
    tc.yield
  }
  tc.return
}

// Elements in a bitmasked node: the blocks are the pointer's cells, and
// the body runs on the active elements (tc.is_active on the bitmasked
// node, which the accesses at the element's indices then know); the
// footprint's part inside the block is known active down to the pointer.
// CHECK-LABEL: tc.kernel @bitmasked
// CHECK:         tc.struct_for @pb (%{{.*}}) attributes {block_dim = 8 : i32}
// CHECK:           tc.block_for (%{{.*}}) to (8)
// CHECK:             tc.load @m[%{{.*}}] {tc.active = @pb} : f32
// CHECK:           tc.block_for (%{{.*}}) to (8)
// CHECK:             %[[I:.*]] = arith.addi
// CHECK:             %[[ON:.*]] = tc.is_active @bits[%[[I]]]
// CHECK:             scf.if %[[ON]] {
// CHECK:               memref.load
// CHECK:               tc.store %{{.*}}, @mv[%[[I]]] {tc.active = @bits} : f32
tc.kernel @bitmasked() {
  tc.struct_for @m (%i) attributes {block_local = [@m]} {
    %c1 = arith.constant 1 : i32
    %ip = arith.addi %i, %c1 : i32
    %a = tc.load @m[%ip] : f32
    tc.store %a, @mv[%i] : f32
    tc.yield
  }
  tc.return
}

// A read at a data-dependent row that assume_in_range bounds: j0 in
// [i - 1 + 0, i - 1 + 3), so rows -1..+1 (a 10 x 8 buffer) and the slot
// is j0 - (base - 1). The assume_in_range ops are gone afterwards (each is
// its value).
// CHECK-LABEL: tc.kernel @assumed
// CHECK:         tc.struct_for @blk
// CHECK:           %[[BASE0:.*]] = arith.muli
// CHECK:           tc.block_buffer : memref<10x8xf32>
// CHECK:           tc.block_for (%{{.*}}, %{{.*}}) to (10, 8)
// CHECK:           tc.block_for
// CHECK:             arith.remsi
// CHECK-NEXT:        %[[J0:.*]] = arith.addi
// CHECK-NEXT:        %[[M1:.*]] = arith.constant -1 : i32
// CHECK:             %[[FROM:.*]] = arith.addi %[[BASE0]], %[[M1]]
// CHECK:             %[[ROW:.*]] = arith.subi %[[J0]], %[[FROM]] overflow<nsw, nuw>
// CHECK:             %[[R:.*]] = arith.index_cast %[[ROW]]
// CHECK:             memref.load %{{.*}}[%[[R]], %{{.*}}] : memref<10x8xf32>
// CHECK-NOT:     tc.assume_in_range
// OFF-LABEL:   tc.kernel @assumed
// OFF:           tc.struct_for @u (%{{.*}}, %{{.*}}) {
// OFF-NOT:       tc.assume_in_range
// OFF:           tc.load @u[
// OFF-NOT:       block_local
// OFF:         tc.kernel @ignored
tc.kernel @assumed(%k: i32) {
  tc.struct_for @u (%i, %j) attributes {block_local = [@u]} {
    %c1 = arith.constant 1 : i32
    %im = arith.subi %i, %c1 : i32
    %r = arith.remsi %k, %c1 : i32
    %x = arith.addi %i, %r : i32
    %j0 = tc.assume_in_range %x, %im, 0, 3 : i32
    %a = tc.load @u[%j0, %j] : f32
    tc.store %a, @v[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// Hints that cannot be followed: warnings, and the loops stay as they are.
// CHECK-LABEL: tc.kernel @ignored
// CHECK-NOT:     tc.block_for
// CHECK:         tc.struct_for @u
// CHECK:         tc.struct_for @blk
// CHECK:         tc.struct_for @g
// CHECK:         tc.struct_for @u
// CHECK:         tc.struct_for @u
// CHECK:         tc.struct_for @u
// CHECK-NOT:     block_local
// CHECK:         tc.return
tc.kernel @ignored(%k: i32) {
  // expected-warning @below {{'block_local' is ignored: the loop reads and writes 'u'}}
  tc.struct_for @u (%i, %j) attributes {block_local = [@u]} {
    %a = tc.load @u[%i, %j] : f32
    tc.store %a, @u[%i, %j] : f32
    tc.yield
  }
  // expected-warning @below {{'block_local' is ignored: the loop is over the cells of SNode 'blk', not over a field's elements}}
  tc.struct_for @blk (%i, %j) attributes {block_local = [@u]} {
    tc.yield
  }
  // expected-warning @below {{'block_local' is ignored: the buffer of 'g' (65536 bytes) would pass the 49152 bytes of a GPU block's shared memory}}
  tc.struct_for @g (%i, %j) attributes {block_local = [@g]} {
    %c1 = arith.constant 1 : i32
    %ip = arith.addi %i, %c1 : i32
    %a = tc.load @g[%ip, %j] : f32
    tc.yield
  }
  // expected-warning @below {{'block_local' is ignored: no read of 'u' is at the loop's indices plus constants}}
  tc.struct_for @u (%i, %j) attributes {block_local = [@u]} {
    %ik = arith.addi %i, %k : i32
    %a = tc.load @u[%ik, %j] : f32
    tc.store %a, @v[%i, %j] : f32
    tc.yield
  }
  // expected-warning @below {{'block_local' is ignored: the loop writes 'v' other than by adding to it}}
  tc.struct_for @u (%i, %j) attributes {block_local = [@v]} {
    %a = tc.load @u[%i, %j] : f32
    %o = tc.atomic_rmw max %a, @v[%i, %j] : f32
    tc.yield
  }
  // expected-warning @below {{'block_local' is ignored: an addition to 'v' is not at the loop's indices plus constants}}
  tc.struct_for @u (%i, %j) attributes {block_local = [@v]} {
    %a = tc.load @u[%i, %j] : f32
    %ik = arith.addi %i, %k : i32
    %o = tc.atomic_rmw add %a, @v[%ik, %j] : f32
    tc.yield
  }
  tc.return
}

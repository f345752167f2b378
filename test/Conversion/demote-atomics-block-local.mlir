// RUN: %tic-opt %s --tic-allocate-layout "--tic-demote-atomics=block-local=true" | FileCheck %s --check-prefix=CUDA
// RUN: %tic-opt %s --tic-allocate-layout --tic-demote-atomics | FileCheck %s --check-prefix=CPU

// An add into the loop's own element is owned by the iteration, so
// tic-demote-atomics makes it a plain load / add / store (a CPU-only
// object: the hint is ignored there). In a --target=cuda object
// (block-local) it stays atomic when the loop hints the field block_local:
// tic-block-local accumulates it per block. Fields not hinted are demoted.

snode.tree @root {
  snode.pointer @blk axes [0, 1] shape [8, 8] {
    snode.dense @cells axes [0, 1] shape [8, 8] {
      snode.place @u : [f32]
      snode.place @v : [f32]
      snode.place @w : [f32]
    }
  }
}

// CUDA-LABEL: tc.kernel @scatter
// CUDA:         tc.atomic_rmw add %{{.*}}, @v[
// CUDA-NOT:     tc.atomic_rmw
// CUDA:         tc.store %{{.*}}, @w[
// CPU-LABEL:  tc.kernel @scatter
// CPU-NOT:      tc.atomic_rmw
// CPU:          tc.store %{{.*}}, @v[
// CPU:          tc.store %{{.*}}, @w[
tc.kernel @scatter() {
  tc.struct_for @u (%i, %j) attributes {block_local = [@v]} {
    %a = tc.load @u[%i, %j] : f32
    %o = tc.atomic_rmw add %a, @v[%i, %j] : f32
    %p = tc.atomic_rmw add %a, @w[%i, %j] : f32
    tc.yield
  }
  tc.return
}

// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm --convert-tc-to-gpu | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm --convert-tc-to-llvm=cuda | FileCheck %s --check-prefix=HOST

// The block loops of tic-block-local on a GPU: each iteration of the
// parallel loop is a block's (a grid-stride loop over blocks, not
// threads, and no unrolling: the iterations share the buffer); the buffer
// is the kernel's shared memory; each tc.block_for is a loop over its
// linear index from the thread's index in the block by the block's size,
// then a barrier.

snode.tree @root {
  snode.dense @cells axes [0] shape [256] {
    snode.place @u : [f32]
    snode.place @v : [f32]
  }
}

// CHECK-LABEL: gpu.func @smooth__par0(
// CHECK-SAME:      workgroup(%[[BUF:.*]] : memref<18xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME:      kernel
// CHECK:         %[[BID:.*]] = gpu.block_id x
// CHECK:         %[[FIRST:.*]] = arith.index_cast %[[BID]] : index to i64
// CHECK:         %[[GRID:.*]] = gpu.grid_dim x
// CHECK:         %[[STEP:.*]] = arith.index_cast %[[GRID]] : index to i64
// CHECK:         scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step %[[STEP]] : i64 {
// The fill: [tid, 18) by blockDim.
// CHECK:           %[[TID:.*]] = gpu.thread_id x
// CHECK:           %[[T:.*]] = arith.index_cast %[[TID]] : index to i32
// CHECK:           %[[BDIM:.*]] = gpu.block_dim x
// CHECK:           %[[BD:.*]] = arith.index_cast %[[BDIM]] : index to i32
// CHECK:           %[[N18:.*]] = arith.constant 18 : i32
// CHECK:           scf.for %{{.*}} = %[[T]] to %[[N18]] step %[[BD]] : i32 {
// CHECK:             llvm.load
// CHECK:             memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<18xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// The elements: [tid, 16) by blockDim, reading the buffer.
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:             memref.load %[[BUF]]
// CHECK:             memref.load %[[BUF]]
// CHECK:             llvm.store {{.*}} : f32, !llvm.ptr
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK:         }
// CHECK-NOT:     scf.for
// CHECK:         gpu.return

// The host side: the launch asks for a block per iteration
// (TIC_RT_CUDA_BLOCKS = 16) of block_dim threads; the descriptor is
// {name, flags, block_dim}.
// HOST-LABEL: llvm.mlir.global internal constant @__tic_cuda_kernel_smooth__par0
// HOST:         llvm.mlir.constant(16 : i32)
// HOST-NEXT:    llvm.insertvalue %{{.*}}[1]
// HOST-NEXT:    llvm.mlir.constant(32 : i32)
// HOST-NEXT:    llvm.insertvalue %{{.*}}[2]
// On the CPU the same iterations run on one thread each: the buffer on the
// task's stack (allocated once, at entry), the block loops in order.
// HOST-LABEL: llvm.func internal @smooth__par0(
// HOST:         memref.alloca() : memref<18xf32>
// HOST:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// HOST:           memref.store
// HOST:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// HOST:           memref.load
tc.kernel @smooth() {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%b) = (%c0) to (%c16) attributes {block_dim = 32 : i32} {
    %base = arith.muli %b, %c16 : i32
    %buf = tc.block_buffer : memref<18xf32>
    tc.block_for (%t) to (18) {
      %cm1 = arith.constant -1 : i32
      %o = arith.addi %t, %cm1 : i32
      %g = arith.addi %base, %o : i32
      %c256 = arith.constant 256 : i32
      %in = arith.cmpi ult, %g, %c256 : i32
      %x = scf.if %in -> (f32) {
        %l = tc.load @u[%g] : f32
        scf.yield %l : f32
      } else {
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      %ti = arith.index_cast %t : i32 to index
      memref.store %x, %buf[%ti] : memref<18xf32>
      tc.yield
    }
    tc.block_for (%e) to (16) {
      %i = arith.addi %base, %e : i32
      %ei = arith.index_cast %e : i32 to index
      %c2 = arith.constant 2 : index
      %e2 = arith.addi %ei, %c2 : index
      %a = memref.load %buf[%ei] : memref<18xf32>
      %c = memref.load %buf[%e2] : memref<18xf32>
      %s = arith.addf %a, %c : f32
      tc.store %s, @v[%i] : f32
      tc.yield
    }
    tc.yield
  }
  tc.return
}

// A dynamic extent (a list's length, tic-block-local over dynamic lists):
// [tid, max(n, 0)) by blockDim on a GPU, [0, max(n, 0)) on the CPU; the
// barrier after it as after any block loop.
// CHECK-LABEL: gpu.func @lengths__par0(
// CHECK:           %[[N:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK:           %[[TID:.*]] = gpu.thread_id x
// CHECK:           %[[T:.*]] = arith.index_cast %[[TID]] : index to i32
// CHECK:           %[[BDIM:.*]] = gpu.block_dim x
// CHECK:           %[[BD:.*]] = arith.index_cast %[[BDIM]] : index to i32
// CHECK:           %[[Z:.*]] = arith.constant 0 : i32
// CHECK:           %[[M:.*]] = arith.maxsi %[[N]], %[[Z]] : i32
// CHECK:           scf.for %{{.*}} = %[[T]] to %[[M]] step %[[BD]] : i32 {
// CHECK:             llvm.store {{.*}} : f32, !llvm.ptr
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// HOST-LABEL: llvm.func internal @lengths__par0(
// HOST:         %[[HN:.*]] = arith.fptosi %{{.*}} : f32 to i32
// HOST:         %[[HM:.*]] = arith.maxsi %[[HN]], %{{.*}} : i32
// HOST:         scf.for %{{.*}} = %{{.*}} to %[[HM]] step %{{.*}} : i32 {
tc.kernel @lengths() {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  tc.parallel_for (%b) = (%c0) to (%c16) attributes {block_dim = 32 : i32} {
    %n = tc.load @u[%b] : f32
    %ni = arith.fptosi %n : f32 to i32
    tc.block_for (%e) to (%ni) {
      %i = arith.addi %b, %e : i32
      %one = arith.constant 1.0 : f32
      tc.store %one, @v[%i] : f32
      tc.yield
    }
    tc.yield
  }
  tc.return
}

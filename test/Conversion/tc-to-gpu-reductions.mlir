// RUN: %tic-opt %s --split-input-file --tic-outline-tasks --tic-privatize-reductions --tic-allocate-layout --convert-tc-to-gpu | FileCheck %s
// RUN: %tic-opt %s --split-input-file --tic-cuda-pipeline | FileCheck %s --check-prefix=NVVM

// Kernel-scope reductions on the GPU (thread-local storage, thesis 2.5):
// the task's prologue (the private accumulator and its identity) runs once
// per GPU thread before the grid-stride loop, its epilogue once after it.
// There the thread's partial value is combined across its warp (five
// xor-shuffles), each warp's lane 0 puts the warp's value in a shared slot,
// and after a barrier the first warp combines the slots the same way: one
// thread adds the block's value, one atomic per block.

snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f32] }
}
// CHECK-LABEL: gpu.func @sum__par0(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %[[ACC:.*]]: memref<f32>, %[[N:.*]]: i64)
// CHECK-SAME:    workgroup(%[[SLOTS:.*]] : memref<32xf32, #gpu.address_space<workgroup>>) kernel
// CHECK:         %[[PRIV:.*]] = memref.alloca() : memref<f32>
// CHECK:         memref.store %{{.*}}, %[[PRIV]][] : memref<f32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK-NOT:       memref.atomic_rmw
// CHECK:           memref.load %[[PRIV]][]
// CHECK:           arith.addf
// CHECK:           memref.store %{{.*}}, %[[PRIV]][]
// CHECK-NOT:       memref.atomic_rmw
// CHECK:         }
// CHECK-NEXT:    %[[PART:.*]] = memref.load %[[PRIV]][] : memref<f32>
// The warp's 32 partial sums:
// CHECK:         gpu.shuffle xor %[[PART]], %c16_i32, %c32_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c4_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK:         %[[WSUM:.*]] = arith.addf
// CHECK:         %[[LANEIDX:.*]] = gpu.lane_id
// CHECK:         %[[LANE:.*]] = arith.index_cast %[[LANEIDX]]
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]]
// the warp's slot: thread / 32
// CHECK:         gpu.thread_id x
// CHECK:         %[[WARP:.*]] = arith.divui
// CHECK:         %[[SLOT:.*]] = arith.index_cast %[[WARP]] : i32 to index
// CHECK:         scf.if %[[FIRST]] {
// CHECK-NEXT:      memref.store %[[WSUM]], %[[SLOTS]][%[[SLOT]]]
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK:         %[[WARPS:.*]] = arith.divui
// CHECK:         %[[FIRSTWARP:.*]] = arith.cmpi eq, %[[WARP]]
// CHECK:         scf.if %[[FIRSTWARP]] {
// CHECK-NEXT:      %[[OWN:.*]] = memref.load %[[SLOTS]][%[[LANEIDX]]]
// CHECK-NEXT:      %[[HELD:.*]] = arith.cmpi ult, %[[LANE]], %[[WARPS]]
// the lanes past the block's warps take the sum's identity, -0.0
// CHECK-NEXT:      %[[NONE:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:      %[[W:.*]] = arith.select %[[HELD]], %[[OWN]], %[[NONE]]
// CHECK:           gpu.shuffle xor %[[W]], %c16_i32
// CHECK:           gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK:           %[[BSUM:.*]] = arith.addf
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        memref.atomic_rmw addf %[[BSUM]], %[[ACC]][] : (f32, memref<f32>) -> f32
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return
// A serialized loop runs on one thread (not a whole warp): its atomic stays
// as it is.
// CHECK-LABEL: gpu.func @one__par0(
// CHECK-NOT:     gpu.shuffle
// CHECK-NOT:     gpu.barrier
// CHECK:         memref.atomic_rmw addf
// CHECK-NEXT:    gpu.return
// A block of one warp (block_dim: 32) needs no slots, no barrier.
// CHECK-LABEL: gpu.func @warp__par0(
// CHECK-SAME:    kernel
// CHECK:         gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK-NOT:     gpu.barrier
// CHECK:         memref.atomic_rmw addf
// CHECK:         gpu.return
// A partial warp (block_dim: 48) reduces per thread.
// CHECK-LABEL: gpu.func @partial__par0(
// CHECK-NOT:     gpu.shuffle
// CHECK-NOT:     gpu.barrier
// CHECK:         memref.atomic_rmw addf
// CHECK-NEXT:    gpu.return
tc.kernel @sum() -> f32 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %v = tc.load @x[%i] : f32
    %o = memref.atomic_rmw addf %v, %s[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %r = memref.load %s[] : memref<f32>
  tc.return %r : f32
}
tc.kernel @one() -> f32 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  tc.parallel_for (%i) = (%c0) to (%c64) attributes {serialize} {
    %v = tc.load @x[%i] : f32
    %o = memref.atomic_rmw addf %v, %s[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %r = memref.load %s[] : memref<f32>
  tc.return %r : f32
}
tc.kernel @warp() -> f32 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  tc.parallel_for (%i) = (%c0) to (%c64) attributes {block_dim = 32 : i32} {
    %v = tc.load @x[%i] : f32
    %o = memref.atomic_rmw addf %v, %s[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %r = memref.load %s[] : memref<f32>
  tc.return %r : f32
}
tc.kernel @partial() -> f32 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  tc.parallel_for (%i) = (%c0) to (%c64) attributes {block_dim = 48 : i32} {
    %v = tc.load @x[%i] : f32
    %o = memref.atomic_rmw addf %v, %s[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %r = memref.load %s[] : memref<f32>
  tc.return %r : f32
}

// -----

// 64-bit values go through the shuffles as two 32-bit halves; the lanes
// past the block's warps take each kind's identity.
snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f64] snode.place @k : [i64] }
}
// CHECK-LABEL: gpu.func @sum64__par0(
// CHECK-SAME:    workgroup(%{{.*}} : memref<32xf64, #gpu.address_space<workgroup>>) kernel
// CHECK:         scf.for
// CHECK:         }
// CHECK-NEXT:    %[[PART:.*]] = memref.load %{{.*}}[] : memref<f64>
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[PART]] : f64 to i64
// CHECK:         %[[LO:.*]] = arith.trunci %[[BITS]] : i64 to i32
// CHECK:         %[[HI64:.*]] = arith.shrui %[[BITS]], %c32_i64
// CHECK:         %[[HI:.*]] = arith.trunci %[[HI64]] : i64 to i32
// CHECK:         %[[SLO:.*]], %{{.*}} = gpu.shuffle xor %[[LO]], %c16_i32
// CHECK:         %[[ELO:.*]] = arith.extui %[[SLO]] : i32 to i64
// CHECK:         %[[SHI:.*]], %{{.*}} = gpu.shuffle xor %[[HI]], %c16_i32
// CHECK:         %[[EHI:.*]] = arith.extui %[[SHI]] : i32 to i64
// CHECK:         %[[UP:.*]] = arith.shli %[[EHI]], %c32_i64
// CHECK:         %[[JOIN:.*]] = arith.ori %[[UP]], %[[ELO]]
// CHECK:         %[[OTHER:.*]] = arith.bitcast %[[JOIN]] : i64 to f64
// CHECK:         arith.addf %[[PART]], %[[OTHER]] : f64
// CHECK:         gpu.barrier
// CHECK:         arith.constant -0.000000e+00 : f64
// CHECK:         memref.atomic_rmw addf %{{.*}} : (f64, memref<f64>) -> f64
// CHECK-LABEL: gpu.func @max64__par0(
// CHECK-SAME:    workgroup(%{{.*}} : memref<32xi64, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT:     arith.bitcast
// CHECK:         gpu.shuffle xor %{{.*}}, %c16_i32
// CHECK:         arith.maxsi
// CHECK:         gpu.barrier
// CHECK:         arith.constant -9223372036854775808 : i64
// CHECK:         memref.atomic_rmw maxs
tc.kernel @sum64() -> f64 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f64
  %s = memref.alloca() : memref<f64>
  memref.store %zero, %s[] : memref<f64>
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %v = tc.load @x[%i] : f64
    %o = memref.atomic_rmw addf %v, %s[] : (f64, memref<f64>) -> f64
    tc.yield
  }
  %r = memref.load %s[] : memref<f64>
  tc.return %r : f64
}
tc.kernel @max64() -> i64 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %low = arith.constant -100 : i64
  %s = memref.alloca() : memref<i64>
  memref.store %low, %s[] : memref<i64>
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %v = tc.load @k[%i] : i64
    %o = memref.atomic_rmw maxs %v, %s[] : (i64, memref<i64>) -> i64
    tc.yield
  }
  %r = memref.load %s[] : memref<i64>
  tc.return %r : i64
}

// The shared slots are a global of the PTX's shared address space, the
// shuffles NVVM's, the barrier bar.sync.
// NVVM-LABEL: llvm.func @sum64__par0(
// NVVM:         nvvm.shfl.sync bfly
// NVVM:         nvvm.barrier
// NVVM:         llvm.atomicrmw fadd {{.*}} f64

// -----

// A block whose buffers (block_local) fill the 48 KiB of static shared
// memory has no room for the slots: its reduction stays one atomic per warp.
snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f32] }
}
// CHECK-LABEL: gpu.func @full__par0(
// CHECK-SAME:    workgroup(%{{[^ ]*}} : memref<12288xf32, #gpu.address_space<workgroup>>) kernel
// CHECK:         gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK-NOT:     gpu.barrier
// CHECK:         memref.atomic_rmw addf
// CHECK-NEXT:  }
// CHECK-NEXT:  gpu.return
tc.kernel @full() -> f32 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %buf = tc.block_buffer : memref<12288xf32>
    %v = tc.load @x[%i] : f32
    %o = memref.atomic_rmw addf %v, %s[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %r = memref.load %s[] : memref<f32>
  tc.return %r : f32
}

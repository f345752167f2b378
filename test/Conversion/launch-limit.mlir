// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --tic-host-field-access | FileCheck %s --check-prefix=HOST
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --tic-host-field-access "--convert-tc-to-llvm=cuda=1" | FileCheck %s --check-prefix=CUDA
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --convert-tc-to-llvm | FileCheck %s --check-prefix=CPU

// A launch's `limit` (tic-outline-tasks moves a loop's limit there, as a
// stop in linear iteration numbers) is evaluated by the launcher when the
// iterations run on the CPU, the launch then covers [0, min(total, stop))
// only, which the threads share, instead of every iteration up to `total`
// (the work of the few before the stop landing on the first thread). On a
// GPU context the kernel stops itself and the limit is not evaluated: it
// reads memory the host cannot.
snode.tree @root {
  snode.hash @h axes [0] shape [16] { snode.place @x : [f32] }
}

// tic-host-field-access leaves the limit alone (no copy from the device):
// it runs on a CPU context only.
// HOST-LABEL: tc.kernel @scale(
// HOST-NOT:     tc.field_copy
// HOST:         tc.launch @scale__par0(%{{.*}}) total %{{.*}} : i32 limit {
// HOST-NEXT:      snode.pool_view @h
// HOST-NOT:     tc.field_copy
// HOST:         tc.return

// CUDA-LABEL: func.func @scale(
// CUDA-SAME:    %[[CTX:[^:]*]]: !llvm.ptr
// CUDA:         %[[TOTAL:.*]] = arith.constant 16 : i64
// CUDA:         %[[ON:.*]] = llvm.call @tic_rt_on_device(%[[CTX]])
// CUDA:         scf.if
// CUDA-NOT:       llvm.load
// CUDA:           llvm.call @tic_rt_cuda_launch(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[TOTAL]], %{{.*}}, %{{.*}})
// CUDA-NEXT:    } else {
// CUDA:           %[[ROOT:.*]] = llvm.call @tic_rt_root(%[[CTX]])
// CUDA:           %[[NEXT:.*]] = llvm.load %{{.*}} atomic monotonic
// CUDA:           %[[MAX:.*]] = llvm.load
// CUDA:           %[[N:.*]] = arith.minui %[[NEXT]], %[[MAX]] : i64
// CUDA:           %[[STOP:.*]] = arith.extsi %{{.*}} : i32 to i64
// CUDA-NEXT:      %[[END:.*]] = arith.minsi %[[TOTAL]], %[[STOP]] : i64
// CUDA:           llvm.call @tic_rt_parallel_for(%[[CTX]], %{{.*}}, %[[END]],
// CUDA-NEXT:    }

// CPU-LABEL: func.func @scale(
// CPU:         %[[TOTAL:.*]] = arith.constant 16 : i64
// CPU-NOT:     tic_rt_on_device
// CPU:         %[[STOP:.*]] = arith.extsi %{{.*}} : i32 to i64
// CPU-NEXT:    %[[END:.*]] = arith.minsi %[[TOTAL]], %[[STOP]] : i64
// CPU:         llvm.call @tic_rt_parallel_for(%{{.*}}, %{{.*}}, %[[END]],
tc.kernel @scale(%m: i32) {
  %c16 = arith.constant 16 : i64
  tc.launch @scale__par0(%m) total %c16 : i32 limit {
    %b, %n = snode.pool_view @h : !llvm.ptr, i32
    %n64 = arith.extsi %n : i32 to i64
    tc.yield %n64 : i64
  }
  tc.return
}
tc.task @scale__par0 {
^bb0(%begin: i64, %end: i64, %m: i32):
  tc.return
}

// The root's address from the kernel's code (CSE shares it), read in the
// limit: that read is not routed through a copy, the host's read of the
// same address outside it is.
// HOST-LABEL: tc.kernel @shared_root(
// HOST:         %[[ROOT:.*]] = snode.root_ptr @root
// HOST:         %[[R:.*]] = builtin.unrealized_conversion_cast %[[ROOT]]
// HOST:         %[[P:.*]] = llvm.getelementptr inbounds %[[R]][64]
// HOST:         tc.field_copy %[[TMP:.*]], %[[P]], 4
// HOST-NEXT:    %[[V:.*]] = llvm.load %[[TMP]]
// HOST:         tc.launch @scale__par0(%[[V]]) total %{{.*}} : i32 limit {
// HOST-NEXT:      %[[N:.*]] = llvm.load %[[P]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// HOST-NEXT:      %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// HOST-NEXT:      tc.yield %[[N64]] : i64
// HOST-NEXT:    }
tc.kernel @shared_root() {
  %c16 = arith.constant 16 : i64
  %root = snode.root_ptr @root
  %r = builtin.unrealized_conversion_cast %root : !snode.ptr to !llvm.ptr
  %p = llvm.getelementptr inbounds %r[64] : (!llvm.ptr) -> !llvm.ptr, i8
  %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> i32
  tc.launch @scale__par0(%v) total %c16 : i32 limit {
    %n = llvm.load %p atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
    %n64 = arith.extsi %n : i32 to i64
    tc.yield %n64 : i64
  }
  tc.return
}

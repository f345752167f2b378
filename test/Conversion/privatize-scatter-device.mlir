// RUN: %tic-opt %s --tic-allocate-layout "--tic-privatize-scatter=device=1" | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout "--tic-privatize-scatter=device=1" --tic-lower-field-access --tic-outline-tasks | FileCheck %s --check-prefix=TASKS
// RUN: %tic-opt %s --tic-allocate-layout "--tic-privatize-scatter=device=1" --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm "--convert-tc-to-llvm=cuda=1" | FileCheck %s --check-prefix=LLVM

// tic-privatize-scatter{device}: the host module of a --target=host,cuda
// object. A CPU context of the object runs the versions a CPU-only object
// would (the per-thread copies and merges, or plain adds on one thread);
// a GPU context keeps the loop with its atomics, the only one the device
// module (which does not run the pass) has a kernel for. The new loops are
// host_only; their tasks are numbered apart (k__hostN), so the original
// loop's keeps the device kernel's name (k__par0), and their launches have
// no CUDA branch.
snode.tree @root {
  snode.dense @g axes [0] shape [64] { snode.place @m : [f32] }
  snode.dense @p axes [0] shape [1000] { snode.place @x : [f32] }
}

// CHECK-LABEL: tc.kernel @p2g
// CHECK:         %[[T:.*]] = tc.num_threads : i32
// CHECK:         %[[GPU:.*]] = tc.on_device : i1
// CHECK:         %[[CPU:.*]] = arith.xori %[[GPU]], %{{.*}} : i1
// CHECK:         %[[USE:.*]] = arith.andi %{{.*}}, %[[CPU]] : i1
// CHECK:         scf.if %{{.*}} {
// CHECK:           tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) attributes {host_only} {
// CHECK:             tc.thread_index
// CHECK:           tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) attributes {host_only} {
// CHECK:         } else {
// CHECK:           %[[ONE:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : i32
// CHECK:           %[[ALONE:.*]] = arith.andi %[[ONE]], %[[CPU]] : i1
// CHECK:           scf.if %[[ALONE]] {
// CHECK:             tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) attributes {host_only} {
// CHECK-NOT:           tc.atomic_rmw
// CHECK:           } else {
// CHECK:             tc.parallel_for (%{{.*}}) = (%{{.*}}) to (%{{.*}}) {
// CHECK-NEXT:          tc.load @x
// CHECK:               tc.atomic_rmw add %{{.*}}, @m

// TASKS-LABEL: tc.kernel @p2g
// TASKS:         tc.launch @p2g__host0({{.*}}) total %{{.*}} {host_only}
// TASKS:         tc.launch @p2g__host1({{.*}}) total %{{.*}} {host_only}
// TASKS:         tc.launch @p2g__host2({{.*}}) total %{{.*}} {host_only}
// TASKS:         tc.launch @p2g__par0() total %{{.*}}{{$}}
// TASKS:       tc.task @p2g__host0
// TASKS:       tc.task @p2g__host1
// TASKS:       tc.task @p2g__host2
// TASKS:       tc.task @p2g__par0
// TASKS:         snode.atomic_rmw add

// One CUDA launch, the original loop's; the three host_only launches call
// the thread pool only.
// LLVM-LABEL: func.func @p2g(
// LLVM:         llvm.call @tic_rt_on_device
// LLVM:         scf.if
// LLVM:           llvm.mlir.addressof @p2g__host0
// LLVM-NEXT:      llvm.call @tic_rt_parallel_for
// LLVM:           llvm.mlir.addressof @p2g__host1
// LLVM-NEXT:      llvm.call @tic_rt_parallel_for
// LLVM:         } else {
// LLVM:           scf.if
// LLVM-NOT:         tic_rt_cuda_launch
// LLVM:             llvm.mlir.addressof @p2g__host2
// LLVM-NEXT:        llvm.call @tic_rt_parallel_for
// LLVM:           } else {
// LLVM:             llvm.call @tic_rt_on_device
// LLVM:             llvm.mlir.addressof @__tic_cuda_kernel_p2g__par0
// LLVM:             llvm.call @tic_rt_cuda_launch
// LLVM:             llvm.mlir.addressof @p2g__par0
// LLVM-NEXT:        llvm.call @tic_rt_parallel_for
// LLVM-NOT:     tic_rt_cuda_launch
// LLVM:         return
tc.kernel @p2g() {
  %c0 = arith.constant 0 : i32
  %c1000 = arith.constant 1000 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i) = (%c0) to (%c1000) {
    %v = tc.load @x[%i] : f32
    %c = arith.remsi %i, %c64 : i32
    tc.atomic_rmw add %v, @m[%c] : f32
    tc.yield
  }
  tc.return
}

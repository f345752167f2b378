// RUN: %tic-opt %s --tic-allocate-layout --tic-outline-tasks --convert-tc-to-llvm | FileCheck %s

// The CPU's lowering of kernels, tasks and launches (tic-outline-tasks makes
// the tasks: outline-tasks.mlir).

snode.tree @root {
  snode.dense @g axes [0, 1] shape [8, 16] { snode.place @u : [f32] }
}
snode.tree @second {
  snode.place @flag : [i32]
}

// Kernel signature: context first, ndarray as a pointer to tc_ndarray.
// CHECK: func.func @k(%[[CTX:.*]]: !llvm.ptr, %[[ARR:.*]]: !llvm.ptr, %[[S:.*]]: f32) -> f32
// Closure on the stack, in the entry block.
// the context, then the task's captures (the ndarray as its data pointer and
// extents).
// CHECK:       %[[CL:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, i64, f32, i32)>
// ndarray data pointer and extents loaded once (for the kernel's own uses).
// CHECK:       %[[DATA:.*]] = llvm.load %[[ARR]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK:       %[[E0P:.*]] = llvm.getelementptr inbounds %[[ARR]][0, 2, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i32, array<8 x i64>, i32)>
// CHECK-NEXT:  %[[E0:.*]] = llvm.load %[[E0P]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       %[[E1P:.*]] = llvm.getelementptr inbounds %[[ARR]][0, 2, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i32, array<8 x i64>, i32)>
// CHECK-NEXT:  %[[E1:.*]] = llvm.load %[[E1P]] {alignment = 8 : i64} : !llvm.ptr -> i64
// Second tree: root buffer + tree offset.
// CHECK:       %[[RT:.*]] = llvm.call @tic_rt_root(%[[CTX]])
// CHECK:       llvm.getelementptr inbounds %[[RT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// Trip count = product of the extents (computed by tic-outline-tasks).
// CHECK:       %[[T0:.*]] = arith.muli
// CHECK:       %[[TOT:.*]] = arith.muli %[[T0]],
// Capture stores: ctx first; grain from loop_config.
// CHECK:       %[[F0:.*]] = llvm.getelementptr inbounds %[[CL]][0, 0]
// CHECK-NEXT:  llvm.store %[[CTX]], %[[F0]]
// CHECK:       llvm.store %[[DATA]],
// CHECK:       llvm.store %[[E0]],
// CHECK:       llvm.store %[[E1]],
// CHECK:       llvm.store %[[S]],
// CHECK:       %[[GR:.*]] = arith.constant 16 : i64
// CHECK:       %[[FN:.*]] = llvm.mlir.addressof @k__par0 : !llvm.ptr
// CHECK:       llvm.call @tic_rt_parallel_for(%[[CTX]], %{{.*}}, %[[TOT]], %[[GR]], %[[FN]], %[[CL]])
// A serialized loop calls its body directly.
// CHECK:       llvm.call @k__par1(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i64, i32) -> ()
// Kernel-scope random uses thread 0; print promotes f32 to f64.
// CHECK:       llvm.call @tic_rt_rand_f32(%[[CTX]], %{{.*}}) : (!llvm.ptr, i32) -> f32
// CHECK:       %[[D:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK:       llvm.call @tic_rt_print(%[[CTX]], %{{.*}}, %[[D]]) vararg(!llvm.func<void (ptr, ptr, ...)>)
// CHECK:       scf.if
// CHECK:         llvm.call @tic_rt_report_assert(%[[CTX]],
// CHECK:       %[[BAD:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : i32
// CHECK:       scf.if %[[BAD]]
// CHECK:         llvm.call @tic_rt_report_out_of_bounds(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i32, i64, i64, !llvm.ptr) -> i32
// CHECK:       return %{{.*}} : f32

// Outlined body: (closure, begin, end, thread_id), captured values reloaded.
// CHECK: llvm.func internal @k__par0(%[[C:.*]]: !llvm.ptr, %[[B:.*]]: i64, %[[E:.*]]: i64, %[[TID:.*]]: i32)
// CHECK:       %[[P0:.*]] = llvm.getelementptr inbounds %[[C]][0, 0]
// CHECK:       %[[BCTX:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// The captured ndarray: its data pointer and extents, once per chunk.
// CHECK:       %[[P1:.*]] = llvm.getelementptr inbounds %[[C]][0, 1]
// CHECK-NEXT:  %[[TDATA:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK:       %[[P3:.*]] = llvm.getelementptr inbounds %[[C]][0, 3]
// CHECK-NEXT:  %[[TE1:.*]] = llvm.load %[[P3]] : !llvm.ptr -> i64
// The task's iterations over [begin, end), as tic-outline-tasks made them.
// CHECK:       scf.while (%[[LIN:.*]] = %[[B]]) : (i64) -> i64
// CHECK:       arith.cmpi slt, %[[LIN]], %[[E]] : i64
// The element address uses the captured extents and data pointer.
// CHECK:       arith.muli %{{.*}}, %[[TE1]] : i64
// CHECK:       llvm.getelementptr inbounds %[[TDATA]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// Random inside the loop uses the worker's thread id.
// CHECK:       llvm.call @tic_rt_rand_f32(%[[BCTX]], %[[TID]])
// CHECK:       llvm.return
// CHECK-LABEL: llvm.func internal @k__par1(
// CHECK-DAG:   llvm.func @tic_rt_parallel_for(!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr)
// CHECK-DAG:   llvm.func @tic_rt_rand_f32(!llvm.ptr, i32) -> f32
// CHECK-DAG:   llvm.func @tic_rt_print(!llvm.ptr, !llvm.ptr, ...)
// CHECK-DAG:   llvm.func @tic_rt_report_assert(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG:   llvm.func @tic_rt_report_out_of_bounds(!llvm.ptr, !llvm.ptr, i32, i64, i64, !llvm.ptr) -> i32
// CHECK-NOT:   tc.
tc.kernel @k(%arr: !tc.ndarray<f32, 2>, %s: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %r2 = snode.root_ptr @second
  %fp = snode.place_ptr %r2, @flag[0] : !llvm.ptr
  %flag = llvm.load %fp : !llvm.ptr -> i32
  tc.parallel_for (%i, %j) = (%c0, %c0) to (%c8, %c16) attributes {grain = 16 : i64} {
    %x = tc.ndarray_load %arr[%i, %j] : !tc.ndarray<f32, 2>
    %rnd = tc.random : f32
    %y = arith.mulf %x, %s : f32
    %z = arith.addf %y, %rnd : f32
    %w = arith.sitofp %flag : i32 to f32
    %q = arith.addf %z, %w : f32
    tc.ndarray_store %q, %arr[%i, %j] : !tc.ndarray<f32, 2>
    tc.yield
  }
  tc.parallel_for (%i) = (%c0) to (%c8) attributes {serialize} {
    tc.yield
  }
  %r = tc.random : f32
  tc.print "r = %f", %r : f32
  %ok = arith.cmpf olt, %r, %s : f32
  tc.assert %ok, "r < s"
  tc.bounds_check %flag, %c8, "flag", 0
  tc.return %r : f32
}

// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --tic-privatize-reductions --convert-snode-to-llvm --tic-host-field-access | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --tic-privatize-reductions --convert-snode-to-llvm --tic-host-field-access "--convert-tc-to-llvm=cuda=1" | FileCheck %s --check-prefix=LAUNCH

// The host side of a --target=cuda object. tic-host-field-access: the code
// of a kernel outside its parallel loops accesses fields through a host
// temporary and tc.field_copy (the root buffer may be device memory); the
// task's accesses stay plain loads and stores.
// CHECK-LABEL: tc.kernel @k(
// CHECK:         %[[T0:.*]] = llvm.alloca %{{.*}} x f32
// CHECK:         %[[F0:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %{{.*}}, %[[T0]] {{.*}} : f32, !llvm.ptr
// CHECK-NEXT:    tc.field_copy %[[F0]], %[[T0]], 4 to_field : !llvm.ptr, !llvm.ptr
// CHECK:         tc.launch @k__par0
// CHECK:         %[[F1:.*]] = llvm.getelementptr inbounds
// CHECK-NEXT:    tc.field_copy %[[T1:.*]], %[[F1]], 4 : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.load %[[T1]] {{.*}} : !llvm.ptr -> f32
// CHECK:         tc.field_copy %{{.*}}, %{{.*}}, 4 to_field
// CHECK:         tc.return
// CHECK-LABEL: tc.task @k__par0
// CHECK-NOT:     tc.field_copy
// CHECK:         llvm.store
// CHECK:         tc.return

// A memset of field memory (a bitmasked cell's deactivation) becomes
// tc.field_fill, then tic_rt_field_fill.
// CHECK-LABEL: tc.kernel @clear(
// CHECK:         %[[F:.*]] = llvm.getelementptr
// CHECK:         tc.field_fill %[[F]], %{{.*}}, %{{.*}} : !llvm.ptr
// CHECK-NOT:     llvm.intr.memset

// convert-tc-to-llvm{cuda}: each launch asks tic_rt_on_device and then
// either passes pointers to the kernel's parameters (root, the ndarray's
// data and extent, the scale, the reduction's slot, the count) to
// tic_rt_cuda_launch, with the ndarray and the slot staged through the
// device, or runs the CPU's tic_rt_parallel_for.
// The kernel descriptors {name, flags, block_dim}: the serialized loop that
// draws random numbers has flags RANDOM | SERIAL = 3 (and a seed
// parameter), the other 0.
// LAUNCH:      llvm.mlir.global internal constant @__tic_cuda_kernel_rnd__par0() {{.*}} : !llvm.struct<(ptr, i32, i32)>
// LAUNCH:        llvm.mlir.addressof @__tic_cuda_name_1
// LAUNCH:        llvm.mlir.constant(3 : i32) : i32
// LAUNCH:      llvm.mlir.global internal constant @__tic_cuda_kernel_k__par0() {{.*}} : !llvm.struct<(ptr, i32, i32)>
// LAUNCH:        llvm.mlir.constant(0 : i32) : i32
// LAUNCH-LABEL: func.func @k(
// LAUNCH:        %[[ON:.*]] = llvm.call @tic_rt_on_device(
// LAUNCH:        %[[C:.*]] = arith.cmpi ne, %[[ON]]
// LAUNCH:        scf.if %[[C]] {
// LAUNCH:          llvm.call @tic_rt_root(
// LAUNCH:          %[[D:.*]] = llvm.mlir.addressof @__tic_cuda_kernel_k__par0
// LAUNCH:          %[[NP:.*]] = llvm.mlir.constant(6 : i32) : i32
// LAUNCH:          %[[NS:.*]] = llvm.mlir.constant(2 : i32) : i32
// LAUNCH:          llvm.call @tic_rt_cuda_launch(%{{.*}}, %[[D]], %{{.*}}, %[[NP]], %{{.*}}, %{{.*}}, %[[NS]])
// LAUNCH:        } else {
// LAUNCH:          llvm.call @tic_rt_parallel_for(
// LAUNCH:        }
// tc.field_copy: the runtime's copies.
// LAUNCH:        llvm.call @tic_rt_field_read(
// LAUNCH:        llvm.call @tic_rt_field_write(
// Three parameters (root, count, seed), no stage; on the CPU a serialized
// loop is a direct call.
// LAUNCH-LABEL: func.func @rnd(
// LAUNCH:        llvm.mlir.constant(3 : i32) : i32
// LAUNCH-NEXT:   llvm.mlir.constant(0 : i32) : i32
// LAUNCH-NEXT:   llvm.call @tic_rt_cuda_launch(
// LAUNCH:        llvm.call @rnd__par0(
// LAUNCH-LABEL: func.func @clear(
// LAUNCH:        llvm.call @tic_rt_field_fill(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i8, i64) -> ()

snode.tree @root {
  snode.dense @d axes [0] shape [64] { snode.place @x : [f32] }
  snode.place @total : [f32]
}

tc.kernel @k(%arr: !tc.ndarray<f32, 1>, %a: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  tc.store %zero, @total[] : f32
  tc.parallel_for (%i) = (%c0) to (%c64) {
    %v = tc.ndarray_load %arr[%i] : !tc.ndarray<f32, 1>
    %w = arith.mulf %v, %a : f32
    tc.store %w, @x[%i] : f32
    %o = memref.atomic_rmw addf %w, %s[] : (f32, memref<f32>) -> f32
    tc.yield
  }
  %t = tc.load @total[] : f32
  %u = arith.addf %t, %a : f32
  tc.store %u, @total[] : f32
  %r = memref.load %s[] : memref<f32>
  tc.return %r : f32
}

tc.kernel @rnd() {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  tc.parallel_for (%i) = (%c0) to (%c64) attributes {serialize} {
    %r = tc.random : f32
    tc.store %r, @x[%i] : f32
    tc.yield
  }
  tc.return
}

tc.kernel @clear() {
  %r = snode.root_ptr @root
  %p = builtin.unrealized_conversion_cast %r : !snode.ptr to !llvm.ptr
  %c = llvm.mlir.constant(16 : i64) : i64
  %q = llvm.getelementptr inbounds %p[%c] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %z = llvm.mlir.constant(0 : i8) : i8
  %n = llvm.mlir.constant(32 : i64) : i64
  "llvm.intr.memset"(%q, %z, %n) <{isVolatile = false}> : (!llvm.ptr, i8, i64) -> ()
  tc.return
}

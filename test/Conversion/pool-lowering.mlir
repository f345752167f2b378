// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --convert-tc-to-llvm | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout | FileCheck %s --check-prefix=LAYOUT

// The pools of sparse nodes, allocated and freed inline on their state in
// the root buffer (tic_rt_pool_state, ABI 6: base 0, element_size 8,
// capacity 16, max_elements 24, next 32, live 56, free_list 64,
// pending_list 72, free_count 80, free_taken 88, pending_count 96), the
// algorithm of runtime/src/Pool.cpp (include/tic/Conversion/PoolLowering.h):
// atomic adds on list counters, no compare-and-swap retry loop.
snode.tree @root {
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [4] { snode.place @x : [f32] }
  }
}
// The state: after the root cell's 16 slots, on a cache line of its own,
// 128 bytes; the epoch counter follows it.
// LAYOUT: snode.pointer @p {{.*}}epoch_offset = 256 : i64{{.*}}pool_state_offset = 128 : i64

// CHECK-LABEL: func.func @alloc(
// CHECK-SAME:  %[[CTX:[^:]*]]: !llvm.ptr
// CHECK:       %[[ROOT:.*]] = llvm.call @tic_rt_root(%[[CTX]])
// CHECK:       %[[ST:.*]] = llvm.getelementptr inbounds %[[ROOT]][128] : (!llvm.ptr) -> !llvm.ptr, i8
// Take from the free list: free_count, and free_taken while below it.
// CHECK:       llvm.getelementptr inbounds %[[ST]][80]
// CHECK:       %[[COUNT:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       llvm.getelementptr inbounds %[[ST]][88]
// CHECK:       %[[SEEN:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       arith.cmpi ult, %[[SEEN]], %[[COUNT]] : i64
// CHECK:       %[[T:.*]] = scf.if
// CHECK:         llvm.getelementptr inbounds %[[ST]][88]
// CHECK:         llvm.atomicrmw add
// CHECK:       } else {
// CHECK:         scf.yield %[[COUNT]] : i64
// CHECK:       arith.cmpi ult, %[[T]], %[[COUNT]] : i64
// Entry count - 1 - t of the free list (64): an i32 element index.
// CHECK:       %[[AT0:.*]] = arith.subi %[[COUNT]], %{{.*}} : i64
// CHECK:       %[[AT:.*]] = arith.subi %[[AT0]], %[[T]] : i64
// CHECK:       llvm.getelementptr inbounds %[[ST]][64]
// CHECK:       %[[FL:.*]] = llvm.inttoptr
// CHECK:       llvm.getelementptr inbounds %[[FL]][%[[AT]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK:       llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// Else bump `next`, and below the capacity the element is there.
// CHECK:       } else {
// CHECK:       llvm.getelementptr inbounds %[[ST]][32]
// CHECK:       %[[I:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:       %[[CAP:.*]] = llvm.load %{{.*}} atomic acquire {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       arith.cmpi ult, %[[I]], %[[CAP]] : i64
// Past it the target decides: the CPU's runtime commits more memory.
// CHECK:       llvm.call @tic_rt_snode_alloc_at(%[[CTX]], %{{.*}}, %[[I]])
// The cell goes back unused: to the pending list as a freed one (the free
// list is only taken from during a launch), `live` (56) counted down.
// CHECK:       %[[ST2:.*]] = llvm.getelementptr inbounds %{{.*}}[128] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:       %[[IDX:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK:       llvm.getelementptr inbounds %[[ST2]][96]
// CHECK:       %[[SLOT:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:       llvm.getelementptr inbounds %[[ST2]][72]
// CHECK:       %[[PL:.*]] = llvm.inttoptr
// CHECK:       %[[E:.*]] = llvm.getelementptr inbounds %[[PL]][%[[SLOT]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK:       llvm.store %[[IDX]], %[[E]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:       %[[L1:.*]] = llvm.getelementptr inbounds %[[ST2]][56]
// CHECK:       llvm.atomicrmw add %[[L1]], %c-1_i64 monotonic
// CHECK-NOT:   llvm.cmpxchg
// CHECK:       return
tc.kernel @alloc() {
  %c = snode.alloc_cell @p : !llvm.ptr
  snode.free_cell %c, @p unused : !llvm.ptr
  tc.return
}

// A freed (deactivated) cell goes on the pending list (72, counted at 96):
// reused after the launch, when tic_rt_pool_collect (a GPU: the collect
// kernels) has zeroed it.
// CHECK-LABEL: func.func @free(
// CHECK:       llvm.call @tic_rt_snode_alloc_at
// CHECK:       %[[ST3:.*]] = llvm.getelementptr inbounds %{{.*}}[128] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:       llvm.getelementptr inbounds %[[ST3]][96]
// CHECK:       llvm.atomicrmw add
// CHECK:       llvm.getelementptr inbounds %[[ST3]][72]
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NOT:   llvm.call
// CHECK-NOT:   llvm.cmpxchg
// CHECK:       return
tc.kernel @free() {
  %c = snode.alloc_cell @p : !llvm.ptr
  snode.free_cell %c, @p : !llvm.ptr
  tc.return
}

// The elements handed out: min(next, max_elements, INT32_MAX).
// CHECK-LABEL: func.func @view(
// CHECK:       %[[NEXT:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       %[[MAX:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       %[[M:.*]] = arith.minui %[[NEXT]], %[[MAX]] : i64
// CHECK:       arith.minui %[[M]], %c2147483647_i64 : i64
tc.kernel @view() -> i32 {
  %base, %n = snode.pool_view @p : !llvm.ptr, i32
  tc.return %n : i32
}

// The host's bound without reading device memory: a runtime call with the
// pool's number (tic_rt_snode_pool_bound: the count on a CPU context, the
// elements mapped on a GPU).
// CHECK-LABEL: func.func @bound(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr
// CHECK:       %[[B:.*]] = llvm.call @tic_rt_snode_pool_bound(%[[CTX]], %c0_i32{{.*}}) : (!llvm.ptr, i32) -> i32
// CHECK-NOT:   llvm.load
// CHECK:       return %[[B]]
tc.kernel @bound() -> i32 {
  %n = snode.pool_bound @p : i32
  tc.return %n : i32
}

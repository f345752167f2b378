// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --convert-tc-to-llvm | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout | FileCheck %s --check-prefix=LAYOUT

// The pools of sparse nodes, allocated and freed inline on their state in
// the root buffer (tic_rt_pool_state: base 0, element_size 8, capacity 16,
// max_elements 24, next 32, free_head 40, pending_head 48, live 56), the
// algorithm of runtime/src/Pool.cpp (include/tic/Conversion/PoolLowering.h).
snode.tree @root {
  snode.pointer @p axes [0] shape [16] {
    snode.dense @d axes [0] shape [4] { snode.place @x : [f32] }
  }
}
// The state: after the root cell's 16 slots, on a cache line of its own.
// LAYOUT: snode.pointer @p {{.*}}pool_state_offset = 128 : i64

// CHECK-LABEL: func.func @alloc(
// CHECK-SAME:  %[[CTX:[^:]*]]: !llvm.ptr
// CHECK:       %[[ROOT:.*]] = llvm.call @tic_rt_root(%[[CTX]])
// CHECK:       %[[ST:.*]] = llvm.getelementptr inbounds %[[ROOT]][128] : (!llvm.ptr) -> !llvm.ptr, i8
// Pop the free stack: the head (tag << 32 | index + 1), the link read from
// the element, a compare-and-swap with the tag advanced.
// CHECK:       %[[FH:.*]] = llvm.getelementptr inbounds %[[ST]][40]
// CHECK:       %[[H0:.*]] = llvm.load %{{.*}} atomic acquire {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       scf.while (%[[H:.*]] = %[[H0]]) : (i64) -> i64 {
// CHECK:         llvm.load %{{.*}} atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         llvm.cmpxchg %[[FH]], %[[H]], %{{.*}} acquire acquire : !llvm.ptr, i64
// Nothing to pop: bump `next`, and below the capacity the element is there.
// CHECK:       llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:       %[[I:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:       %[[CAP:.*]] = llvm.load %{{.*}} atomic acquire {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:       arith.cmpi ult, %[[I]], %[[CAP]] : i64
// Past it the target decides: the CPU's runtime commits more memory.
// CHECK:       llvm.call @tic_rt_snode_alloc_at(%[[CTX]], %{{.*}}, %[[I]])
// The cell goes back unused: on the free stack (40) at once, `live` (56)
// counted down.
// CHECK:       %[[FH2:.*]] = llvm.getelementptr inbounds %{{.*}}[40] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:       scf.while
// CHECK:         llvm.store %{{.*}}, %{{.*}} atomic monotonic {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         llvm.cmpxchg %[[FH2]], %{{.*}}, %{{.*}} release monotonic : !llvm.ptr, i64
// CHECK:       %[[L1:.*]] = llvm.getelementptr inbounds %{{.*}}[56]
// CHECK:       llvm.atomicrmw add %[[L1]], %c-1_i64 monotonic
tc.kernel @alloc() {
  %c = snode.alloc_cell @p : !llvm.ptr
  snode.free_cell %c, @p unused : !llvm.ptr
  tc.return
}

// A freed (deactivated) cell goes on the pending stack (48): reused after
// the launch, when tic_rt_pool_collect (a GPU: the collect kernel) has
// zeroed it.
// CHECK-LABEL: func.func @free(
// CHECK:       llvm.call @tic_rt_snode_alloc_at
// CHECK:       %[[PH:.*]] = llvm.getelementptr inbounds %{{.*}}[48] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:       scf.while
// CHECK:         llvm.cmpxchg %[[PH]], %{{.*}}, %{{.*}} release monotonic : !llvm.ptr, i64
// CHECK-NOT:   llvm.call
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

// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --tic-host-field-access | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --tic-host-field-access "--convert-tc-to-llvm=cuda=1" | FileCheck %s --check-prefix=LLVM

// The bound of a struct-for over a hash node's entries (snode.pool_view)
// in host code: on a GPU context the pool's state is device memory, so it
// is read as one 128-byte copy to a host temporary, and the view (the
// pool's base, and its entries handed out: min(next, max_elements)) is
// computed from the copy.
snode.tree @root {
  snode.hash @h axes [0] shape [16] { snode.place @x : [f32] }
}

// CHECK-LABEL: tc.kernel @entries(
// CHECK:         %[[N16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK:         %[[COPY:.*]] = llvm.alloca %[[N16]] x i64 {alignment = 8 : i64}
// CHECK:         %[[ROOT:.*]] = snode.root_ptr @root
// CHECK:         %[[R:.*]] = builtin.unrealized_conversion_cast %[[ROOT]]
// CHECK:         %[[STATE:.*]] = llvm.getelementptr inbounds %[[R]][{{[0-9]+}}]
// CHECK-NEXT:    tc.field_copy %[[COPY]], %[[STATE]], 128 : !llvm.ptr, !llvm.ptr
// CHECK-NOT:     snode.pool_view
// CHECK:         llvm.getelementptr inbounds %[[COPY]]
// CHECK:         arith.minui
// CHECK:         tc.return
// LLVM-LABEL: func.func @entries(
// LLVM:         llvm.call @tic_rt_field_read(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> ()
// LLVM-NOT:     llvm.call @tic_rt_field_read
// LLVM:         return
tc.kernel @entries() -> i32 {
  %b, %n = snode.pool_view @h : !llvm.ptr, i32
  tc.return %n : i32
}

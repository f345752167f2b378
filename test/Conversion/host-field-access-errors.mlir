// RUN: %tic-opt %s --tic-host-field-access -verify-diagnostics

// A use of a field address in host code that tic-host-field-access cannot
// route through a host temporary is a located error, not a host access to
// device memory.
snode.tree @root { snode.dense @d axes [0] shape [8] { snode.place @x : [f32] } }
tc.kernel @k() {
  %r = snode.root_ptr @root
  %p = builtin.unrealized_conversion_cast %r : !snode.ptr to !llvm.ptr
  %one = llvm.mlir.constant(1 : i64) : i64
  %tmp = llvm.alloca %one x !llvm.array<32 x i8> : (i64) -> !llvm.ptr
  %n = llvm.mlir.constant(32 : i64) : i64
  // expected-error @+1 {{'llvm.intr.memcpy' on a field address in host code (outside parallel loops) is not supported with --target=cuda yet}}
  "llvm.intr.memcpy"(%tmp, %p, %n) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
  tc.return
}

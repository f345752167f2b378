// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm | FileCheck %s --check-prefix=SNODE
// RUN: %tic-opt %s --tic-allocate-layout --convert-snode-to-llvm --convert-tc-to-llvm | FileCheck %s --check-prefix=BOTH
// RUN: %tic-opt %s --tic-allocate-layout --convert-tc-to-llvm --convert-snode-to-llvm | FileCheck %s --check-prefix=BOTH

// The recorded layout stays while an op still needs it and goes with its
// last user, in either order of the two conversions: after
// convert-snode-to-llvm alone, snode.root_ptr (a runtime service of the
// target's tc conversion) still names the tree.
snode.tree @root { snode.place @u : [f32] }
tc.kernel @k() -> f32 {
  %r = snode.root_ptr @root
  %p = snode.place_ptr %r, @u[0] : !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> f32
  tc.return %v : f32
}
// SNODE: snode.buffer @tic.root
// SNODE: snode.tree @root
// SNODE: snode.root_ptr @root
// SNODE-NOT: snode.place_ptr

// BOTH-NOT: {{^ *(%.* = )?snode\.}}
// BOTH: llvm.call @tic_rt_root
// BOTH-NOT: {{^ *(%.* = )?snode\.}}

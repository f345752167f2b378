// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --tic-hash-maintenance | FileCheck %s
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-hash-maintenance=offload=true | FileCheck %s --check-prefix=GPU

// tic-hash-maintenance: a kernel that may insert into a root-level hash
// node (a store below it, in a task it launches or in its own code) ends
// with snode.hash_maintain of that node, after its launches; into a hash
// node below another node, with snode.hash_maintain_tables (growing the
// tables on the CPU; offloaded to one GPU thread, purging only). Kernels
// that only read get none.
snode.tree @root {
  snode.hash @h axes [0] shape [4] {
    snode.dense @b axes [0] shape [4] { snode.place @x : [f32] }
  }
  snode.dense @d axes [0] shape [2] {
    snode.hash @n axes [1] shape [4] { snode.place @y : [f32] }
  }
}

// CHECK-LABEL: tc.kernel @insert
// CHECK:         tc.launch @insert__par0
// CHECK:         %[[R:.*]] = snode.root_ptr @root
// CHECK:         %[[T:.*]] = snode.get_child %[[R]], @h
// CHECK:         snode.hash_maintain %[[T]], @h
// CHECK-NEXT:    tc.return
tc.kernel @insert(%v: f32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  tc.parallel_for (%i) = (%c0) to (%c8) {
    tc.store %v, @x[%i] : f32
    tc.yield
  }
  tc.return
}

// Host code of the kernel itself (no launch).
// CHECK-LABEL: tc.kernel @one
// CHECK:         snode.lookup hash {{.*}} activate
// CHECK:         snode.hash_maintain %{{.*}}, @h
// CHECK-NEXT:    tc.return
tc.kernel @one(%i: i32, %v: f32) {
  tc.store %v, @x[%i] : f32
  tc.return
}

// CHECK-LABEL: tc.kernel @read
// CHECK-NOT:     snode.hash_maintain
// CHECK:         tc.return
tc.kernel @read(%i: i32) -> f32 {
  %v = tc.load @x[%i] : f32
  tc.return %v : f32
}

// CHECK-LABEL: tc.kernel @nested
// CHECK:         snode.lookup hash {{.*}} activate
// CHECK:         snode.hash_maintain_tables @n {grow}
// CHECK-NEXT:    tc.return
// GPU-LABEL:   tc.kernel @nested
// GPU:           tc.parallel_for
// GPU-NEXT:        snode.hash_maintain_tables @n{{$}}
// GPU-NEXT:        tc.yield
// GPU:           tc.return
tc.kernel @nested(%i: i32, %j: i32, %v: f32) {
  tc.store %v, @y[%i, %j] : f32
  tc.return
}

// CHECK-LABEL: tc.kernel @read_nested
// CHECK-NOT:     snode.hash_maintain
// CHECK:         tc.return
tc.kernel @read_nested(%i: i32, %j: i32) -> f32 {
  %v = tc.load @y[%i, %j] : f32
  tc.return %v : f32
}

// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm --convert-tc-to-llvm | FileCheck %s --check-prefix=CPU
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm --convert-tc-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-field-access --tic-outline-tasks --convert-snode-to-llvm --convert-tc-to-llvm=cuda | FileCheck %s --check-prefix=HOST

// The run-time validation of the access rules (tic -g): every target runs
// the same code for an ad.record_access; only where the state words live
// and how a violation is reported are the target's. While a tape records
// (the words non-null) and the element is one of the field's, the access's
// bit (read 1, written 2, accumulated 4) is or-ed atomically into the
// element's byte (byte i % 4 of word i / 4); a write reports a write before
// it (1), else an accumulation (2), else a read (3); an accumulation a read
// (4).

snode.tree @root {
  snode.dense @cells axes [0] shape [10] {
    snode.place @y : [f32]
  }
}

// CPU-LABEL: llvm.func internal @k__par0(
// CPU:         %[[I:.*]] = arith.extsi %arg{{[0-9]+}} : i32 to i64
// CPU:         %[[S:.*]] = llvm.call @tic_rt_ad_access_state(%{{.*}}, %{{.*}}, %c10_i64{{.*}}) : (!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
// CPU:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CPU:         %[[REC:.*]] = llvm.icmp "ne" %[[S]], %[[NULL]] : !llvm.ptr
// CPU:         %[[IN:.*]] = arith.cmpi ult, %[[I]], %c10_i64{{.*}} : i64
// CPU:         %[[GO:.*]] = arith.andi %[[REC]], %[[IN]] : i1
// CPU:         scf.if %[[GO]] {
// CPU:           %[[W:.*]] = arith.shrui %[[I]], %c2_i64{{.*}} : i64
// CPU:           %[[P:.*]] = llvm.getelementptr inbounds %[[S]][%[[W]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CPU:           %[[LOW:.*]] = arith.andi %[[I]], %c3_i64{{.*}} : i64
// CPU:           %[[BITS:.*]] = arith.shli %[[LOW]], %c3_i64{{.*}} : i64
// CPU:           %[[SH:.*]] = arith.trunci %[[BITS]] : i64 to i32
// CPU:           %[[M:.*]] = arith.shli %c1_i32{{.*}}, %[[SH]] : i32
// CPU:           llvm.atomicrmw _or %[[P]], %[[M]] monotonic : !llvm.ptr, i32
// The read reports nothing.
// CPU-NOT:       tic_rt_ad_access_violation
// CPU:         }
// The write: bit 2, then the rule it breaks: a write before it (1) over an
// accumulation (2) over a read (3).
// CPU:         llvm.call @tic_rt_ad_access_state
// CPU:           %[[M2:.*]] = arith.shli %c2_i32{{.*}}, %[[SH2:.*]] : i32
// CPU:           %[[OLD:.*]] = llvm.atomicrmw _or %{{.*}}, %[[M2]] monotonic : !llvm.ptr, i32
// CPU:           %[[B:.*]] = arith.shrui %[[OLD]], %[[SH2]] : i32
// CPU:           %[[HR:.*]] = arith.andi %[[B]], %c1_i32{{.*}} : i32
// CPU:           %[[R:.*]] = arith.cmpi ne, %[[HR]], %c0_i32{{.*}} : i32
// CPU:           %[[W3:.*]] = arith.select %[[R]], %c3_i32{{.*}}, %c0_i32{{.*}} : i32
// CPU:           %[[HA:.*]] = arith.andi %[[B]], %c4_i32{{.*}} : i32
// CPU:           %[[A:.*]] = arith.cmpi ne, %[[HA]], %c0_i32{{.*}} : i32
// CPU:           %[[W2:.*]] = arith.select %[[A]], %c2_i32{{.*}}, %[[W3]] : i32
// CPU:           %[[HW:.*]] = arith.andi %[[B]], %c2_i32{{.*}} : i32
// CPU:           %[[WW:.*]] = arith.cmpi ne, %[[HW]], %c0_i32{{.*}} : i32
// CPU:           %[[WHAT:.*]] = arith.select %[[WW]], %c1_i32{{.*}}, %[[W2]] : i32
// CPU:           %[[BAD:.*]] = arith.cmpi ne, %[[WHAT]], %c0_i32{{.*}} : i32
// CPU:           scf.if %[[BAD]] {
// CPU:             llvm.call @tic_rt_ad_access_violation(%{{.*}}, %{{.*}}, %{{.*}}, %[[I]], %[[WHAT]])
// The accumulation: bit 4; a read before it is rule 4.
// CPU:           %[[M4:.*]] = arith.shli %c4_i32{{.*}}, %{{.*}} : i32
// CPU:           %[[OLD4:.*]] = llvm.atomicrmw _or %{{.*}}, %[[M4]] monotonic : !llvm.ptr, i32
// CPU:           %[[B4:.*]] = arith.shrui %[[OLD4]], %{{.*}} : i32
// CPU:           %[[HR4:.*]] = arith.andi %[[B4]], %c1_i32{{.*}} : i32
// CPU:           %[[R4:.*]] = arith.cmpi ne, %[[HR4]], %c0_i32{{.*}} : i32
// CPU:           %[[WHAT4:.*]] = arith.select %[[R4]], %c4_i32{{.*}}, %c0_i32{{.*}} : i32
// CPU:             llvm.call @tic_rt_ad_access_violation(%{{.*}}, %{{.*}}, %{{.*}}, %[[I]], %[[WHAT4]])

// On a GPU the words are a global of the module per field (3 words for 10
// elements), valid while the module's flag is set; a violation claims the
// failure record with "k\0y" as its text, axis -1, the element and the rule.
// GPU-DAG:     llvm.mlir.global external @__tic_ad_recording() {addr_space = 0 : i32, alignment = 4 : i64} : i32
// GPU-DAG:     llvm.mlir.global external @__tic_ad_state_0() {addr_space = 0 : i32, alignment = 4 : i64} : !llvm.array<3 x i32>
// GPU-DAG:     llvm.mlir.global internal constant @__tic_failure_text_{{[0-9]+}}("k\00y")
// GPU-LABEL: gpu.func @k__par0(
// GPU:         %[[FLAG:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// GPU:         %[[ON:.*]] = arith.cmpi ne, %[[FLAG]], %{{.*}} : i32
// GPU:         %[[WORDS:.*]] = llvm.mlir.addressof @__tic_ad_state_0 : !llvm.ptr
// GPU:         %[[GS:.*]] = llvm.select %[[ON]], %[[WORDS]], %{{.*}} : i1, !llvm.ptr
// GPU:         llvm.atomicrmw _or
// GPU:         llvm.cmpxchg
// GPU:         %[[AX:.*]] = llvm.mlir.constant(-1 : i32) : i32
// GPU:         llvm.store %[[AX]]

// The host side of a cuda object waits for such a launch (checked) and
// reads the record.
// HOST-LABEL: llvm.mlir.global internal constant @__tic_cuda_kernel_k__par0
// HOST:         llvm.mlir.constant(4 : i32)
// HOST-NEXT:    llvm.insertvalue %{{.*}}[1]
tc.kernel @k() {
  %c0 = arith.constant 0 : i32
  %c10 = arith.constant 10 : i32
  tc.parallel_for (%i) = (%c0) to (%c10) {
    %i64 = arith.extsi %i : i32 to i64
    ad.record_access "read" @y[%i64] {count = 10 : i64, kernel = "k"}
    %v = tc.load @y[%i] : f32
    ad.record_access "write" @y[%i64] {count = 10 : i64, kernel = "k"}
    tc.store %v, @y[%i] : f32
    ad.record_access "accumulate" @y[%i64] {count = 10 : i64, kernel = "k"}
    tc.atomic_rmw add %v, @y[%i] : f32
    tc.yield
  }
  tc.return
}

// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --tic-lower-field-access --canonicalize | FileCheck %s --check-prefix=KEY
// RUN: %tic-opt %s --tic-allocate-layout --tic-lower-struct-for --canonicalize | FileCheck %s --check-prefix=LOOP

// A hash SNode below dense SNodes: each parent cell holds a bucket array,
// and the key ends with the parent's cell number over the path (row-major
// over the dense levels), so a struct-for over the pool's entries recovers
// the parent's indices from the key's last slot.
snode.tree @root {
  snode.dense @d1 axes [0] shape [3] {
    snode.dense @d2 axes [0, 1] shape [2, 5] {
      snode.hash @h axes [2] shape [16] {
        snode.dense @b axes [2] shape [4] { snode.place @x : [f32] }
      }
    }
  }
}
snode.tree @out {
  snode.dense @od axes [0, 1, 2] shape [8, 8, 8] { snode.place @o : [i32] }
}

// The key: (k // 4) in bits 0-31, the parent's cell number
// d1 * 10 + d2 in bits 32-63, looked up in the bucket array of the parent.
// KEY-LABEL: tc.kernel @get
// KEY-SAME:    (%[[I:.*]]: i32, %[[J:.*]]: i32, %[[K:.*]]: i32)
// KEY-DAG:     %[[C10:.*]] = arith.constant 10 : i32
// KEY-DAG:     %[[C32:.*]] = arith.constant 32 : i64
// KEY:         %[[L1:.*]] = snode.index_extract %[[I]], @d1[0] below 2 : i32
// KEY:         %[[P1:.*]] = snode.lookup dense %{{.*}}, @d1[%[[L1]]] : i32
// KEY:         %[[L2:.*]] = snode.linearize @d2
// KEY:         %[[M:.*]] = arith.muli %[[L1]], %[[C10]] overflow<nsw, nuw> : i32
// KEY:         %[[ID:.*]] = arith.addi %[[M]], %[[L2]] overflow<nsw, nuw> : i32
// KEY:         %[[P2:.*]] = snode.lookup dense %{{.*}}, @d2[%[[L2]]] : i32
// KEY:         %[[BUCKETS:.*]] = snode.get_child %[[P2]], @h
// KEY:         %[[HK:.*]] = snode.index_extract %[[K]], @h[2] below 4 : i32
// KEY:         %[[K0:.*]] = arith.extui %[[HK]] : i32 to i64
// KEY:         %[[K1:.*]] = arith.extui %[[ID]] : i32 to i64
// KEY:         %[[K1S:.*]] = arith.shli %[[K1]], %[[C32]] : i64
// KEY:         %[[KEY:.*]] = arith.ori %[[K0]], %[[K1S]] : i64
// KEY:         snode.lookup hash %[[BUCKETS]], @h[%[[KEY]]] : i64
tc.kernel @get(%i: i32, %j: i32, %k: i32) -> f32 {
  %v = tc.load @x[%i, %j, %k] : f32
  tc.return %v : f32
}

// A struct-for over the hash node: its cell indices (i, j, k // 4) from
// the entry: i = (id // 10) * 2 + (id % 10) // 5, j = id % 5, k // 4 from
// the first slot.
// LOOP-LABEL: tc.kernel @visit
// LOOP:         %[[A:.*]], %[[E:.*]]:2 = tc.hash_entry @h[%{{.*}}] : i1, i32, i32
// LOOP:         scf.if %[[A]] {
// LOOP-DAG:       %[[R:.*]] = arith.remui %[[E]]#1, %{{.*}} : i32
// LOOP-DAG:       %[[Q:.*]] = arith.divui %[[E]]#1, %{{.*}} : i32
// LOOP-DAG:       %[[JJ:.*]] = arith.remui %[[R]], %{{.*}} : i32
// LOOP-DAG:       %[[II:.*]] = arith.divui %[[R]], %{{.*}} : i32
// LOOP:           %[[I2:.*]] = arith.muli %[[Q]], %{{.*}} overflow<nsw, nuw> : i32
// LOOP:           %[[IC:.*]] = arith.addi %[[I2]], %[[II]] overflow<nsw, nuw> : i32
// LOOP:           tc.store %{{.*}}, @o[%[[IC]], %[[JJ]], %[[E]]#0] : i32
tc.kernel @visit() {
  tc.struct_for @h (%i, %j, %kb) {
    %c1 = arith.constant 1 : i32
    tc.store %c1, @o[%i, %j, %kb] : i32
    tc.yield
  }
  tc.return
}

// RUN: %tic-opt %s --tic-allocate-layout | FileCheck %s --check-prefix=LAYOUT
// RUN: %tic-opt %s --tic-allocate-layout --convert-tc-to-llvm --convert-snode-to-llvm | FileCheck %s

// A bitmasked node: its cells as a dense node's, then one activity bit per
// cell in 32-bit words (the container is aligned to 4 for them).
snode.tree @root {
  snode.dense @d axes [0] shape [3] { snode.place @y : [i8] }
  snode.bitmasked @b axes [0] shape [40] { snode.place @x : [i8] }
}
// 3 bytes of @d, @b at 4: 40 cells of 1 byte, then 2 mask words; after the
// root cell (52 bytes), @b's epoch counter at 56 and its list of active
// cells at 64 (stamp and count in 16 bytes, then 4 bytes per cell).
// LAYOUT: snode.buffer @tic.root size 240 align 8
// LAYOUT: snode.bitmasked @b axes [0] shape [40] attributes {cell_align = 1 : i64, cell_size = 1 : i64, epoch_offset = 56 : i64, list_offset = 64 : i64, offset = 4 : i64}

// CHECK-LABEL: func.func @k
// CHECK:       %[[CONT:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// is_active: the word (cells end at byte 40, word l / 32) and bit l % 32.
// CHECK:       %[[L:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK:       %[[C40:.*]] = arith.constant 40 : i64
// CHECK:       %[[WORDS:.*]] = llvm.getelementptr inbounds %[[CONT]][%[[C40]]]
// CHECK:       %[[WI:.*]] = arith.shrui %[[L]], %{{.*}} : i64
// CHECK:       %[[WORD:.*]] = llvm.getelementptr inbounds %[[WORDS]][%[[WI]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK:       %[[BIT:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
// CHECK:       %[[W:.*]] = llvm.load %[[WORD]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:       %[[SET:.*]] = arith.andi %[[W]], %[[BIT]] : i32
// CHECK:       %[[ACTIVE:.*]] = arith.cmpi ne, %[[SET]], %{{.*}} : i32
// An activating lookup sets the bit with one atomic `or`, only when clear.
// CHECK:       %[[W2:.*]] = llvm.load %[[WORD2:.*]] atomic monotonic
// CHECK:       %[[CLEAR:.*]] = arith.xori %{{.*}}, %true : i1
// CHECK:       scf.if %[[CLEAR]] {
// CHECK-NEXT:    %[[OLD:.*]] = llvm.atomicrmw _or %[[WORD2]], %{{.*}} monotonic : !llvm.ptr, i32
// The thread that set it counts the activation in @b's epoch (byte 56).
// CHECK:         %[[WAS:.*]] = arith.andi %[[OLD]], %{{.*}} : i32
// CHECK:         scf.if
// CHECK:           %[[C56:.*]] = arith.constant 56 : i64
// CHECK:           %[[EP:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[C56]]]
// CHECK:           llvm.atomicrmw add %[[EP]], %{{.*}} monotonic : !llvm.ptr, i64
// ... and the cell is the dense address.
// CHECK:       %[[CELL:.*]] = llvm.getelementptr inbounds %[[CONT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<1 x i8>
// CHECK:       llvm.store %{{.*}}, %[[CELL]]
// Deactivation clears the bit, then (when it was set) counts it in the
// epoch and zeroes the cell.
// CHECK:       %[[NOT:.*]] = arith.xori %{{.*}}, %c-1_i32 : i32
// CHECK:       llvm.atomicrmw _and %{{.*}}, %[[NOT]] monotonic : !llvm.ptr, i32
// CHECK:       llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:       %[[DCELL:.*]] = llvm.getelementptr inbounds %[[CONT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<1 x i8>
// CHECK:       "llvm.intr.memset"(%[[DCELL]], %{{.*}}, %{{.*}}) <{isVolatile = false}>
// CHECK:       return %[[ACTIVE]] : i1
tc.kernel @k(%l: i32, %v: i8) -> i1 {
  %r = snode.root_ptr @root
  %c = snode.get_child %r, @b
  %a = snode.is_active bitmasked %c, @b[%l] : i32
  %w = snode.lookup bitmasked %c, @b[%l] activate : i32
  snode.store %v, %w, @x[0] : i8
  snode.deactivate bitmasked %c, @b[%l] : i32
  tc.return %a : i1
}

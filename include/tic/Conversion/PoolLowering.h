//===- PoolLowering.h - inline pool operations for every target -*- C++ -*-===//
//
// The cells of pointer, dynamic and hash SNodes come from pools whose state
// (tic_rt_pool_state in rt.h) lives in the root buffer. Generated code
// allocates and frees them inline, with the same algorithm as the runtime
// (runtime/src/Pool.cpp, ABI 6): a list of free element indices taken from
// with an atomic add, a bump index over fresh memory, a list of elements
// freed during a launch appended to with an atomic add. Only fresh memory
// past the pool's capacity needs the target
// (TargetInfo::allocateBeyondCapacity): the CPU commits more, a GPU reports
// the pool used up. The same helpers build the GPU's collect kernels, which
// zero the freed elements after a launch and make them free.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_CONVERSION_POOLLOWERING_H
#define TIC_CONVERSION_POOLLOWERING_H

#include "mlir/IR/Builders.h"

#include <functional>

namespace tic::pools {

/// The address of the pool state at byte `offset` of the root buffer.
mlir::Value statePtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value root,
                     int64_t offset);

/// A zeroed element of the pool at `state` (!llvm.ptr): from its free stack,
/// else the next fresh one; `beyond(index, capacity)` gives fresh element
/// `index` (i64) at or past the capacity (i64; null when there is none).
mlir::Value
allocate(mlir::OpBuilder &b, mlir::Location loc, mlir::Value state,
         const std::function<mlir::Value(mlir::OpBuilder &, mlir::Value,
                                         mlir::Value)> &beyond);

/// Returns `cell` to the pool: to its pending list, reused after the launch
/// (also a cell that was never published: the free list is only taken from
/// during a launch).
void free(mlir::OpBuilder &b, mlir::Location loc, mlir::Value state,
          mlir::Value cell);

/// The elements the pool has handed out: base address and count (i32, at
/// most INT32_MAX).
std::pair<mlir::Value, mlir::Value> view(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value state);

/// The collect, in parallel, while no kernel uses the pool: collectBegin
/// reads the state once (`words`: the number of 8-byte words of its
/// pending elements, i64); collectWord for each word `w` < words (i64; any
/// order, any thread) zeroes it and, for an element's first word, appends
/// the element to the free list; then collectEnd, once after all of them,
/// sets the counts.
struct Collect {
  mlir::Value base, size, wordsPerElement, pendingList, freeList, untaken,
      words;
};
Collect collectBegin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value state);
void collectWord(mlir::OpBuilder &b, mlir::Location loc, const Collect &c,
                 mlir::Value w);
void collectEnd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value state);

} // namespace tic::pools

#endif

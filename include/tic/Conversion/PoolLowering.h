//===- PoolLowering.h - inline pool operations for every target -*- C++ -*-===//
//
// The cells of pointer, dynamic and hash SNodes come from pools whose state
// (tic_rt_pool_state in rt.h) lives in the root buffer. Generated code
// allocates and frees them inline, with the same lock-free algorithm as the
// runtime (runtime/src/Pool.cpp): a Treiber stack of free elements with a
// tagged head, a bump index over fresh memory, a stack of elements freed
// during a launch. Only fresh memory past the pool's capacity needs the
// target (TargetInfo::allocateBeyondCapacity): the CPU commits more, a GPU
// reports the pool used up. The same helpers build the GPU's collect
// kernel, which zeroes the freed elements after a launch.
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

/// Returns `cell` to the pool: to its pending stack (reused after the
/// launch), or to its free stack when `unused` (it was never published).
void free(mlir::OpBuilder &b, mlir::Location loc, mlir::Value state,
          mlir::Value cell, bool unused);

/// The elements the pool has handed out: base address and count (i32, at
/// most INT32_MAX).
std::pair<mlir::Value, mlir::Value> view(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value state);

/// Moves one element from the pending stack to the free stack, zeroed;
/// yields whether there was one (i1). Only while no kernel uses the pool.
mlir::Value collectOne(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value state);

} // namespace tic::pools

#endif

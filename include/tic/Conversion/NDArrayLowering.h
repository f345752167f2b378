//===- NDArrayLowering.h - tc.ndarray_* ops -> LLVM -------------*- C++ -*-===//
//
// Shared by the targets: how an ndarray's data pointer and extents reach a
// function is the target's (CPU: loaded from the tc_ndarray the kernel
// receives; CUDA: kernel parameters); the element accesses are the same.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_CONVERSION_NDARRAYLOWERING_H
#define TIC_CONVERSION_NDARRAYLOWERING_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace tic {

/// An ndarray inside one function: its data pointer (!llvm.ptr), its
/// extents (i64, one per dimension) and its element type.
struct NDArrayInfo {
  mlir::Value data;
  llvm::SmallVector<mlir::Value> shape;
  mlir::Type elementType;
};

/// Lowers every tc.ndarray_load / store / atomic_rmw / dim in `fn` whose
/// ndarray operand is a key of `nd` to address arithmetic (row-major, i64)
/// and llvm.load / store / atomicrmw (monotonic). Any other ndarray operand
/// is an error.
mlir::LogicalResult
lowerNDArrayOps(mlir::Operation *fn,
                llvm::DenseMap<mlir::Value, NDArrayInfo> &nd);

} // namespace tic

#endif

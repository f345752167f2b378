//===- StructForShared.h - struct-for helpers of two passes ------*- C++
//-*-===//
//
// Internal to lib/Dialect/TC/Transforms, shared by tic-lower-struct-for and
// tic-block-local: the sub-cells of a cell per axis, and the marking of field
// accesses at a sparse struct-for's own indices (tc.active) and at constant
// offsets from them (tc.near).
//
//===----------------------------------------------------------------------===//
#ifndef TIC_LIB_DIALECT_TC_TRANSFORMS_STRUCTFORSHARED_H
#define TIC_LIB_DIALECT_TC_TRANSFORMS_STRUCTFORSHARED_H

#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/IR/Region.h"

namespace tic {
/// How many sub-cells of extents `inner` a cell of an index space of
/// extents `outer` holds along axis a (inner[a] past outer's rank).
inline int64_t ratioAt(llvm::ArrayRef<int64_t> outer,
                       llvm::ArrayRef<int64_t> inner, size_t a) {
  return a < outer.size() ? inner[a] / outer[a] : inner[a];
}

/// The level of `levels` at `node`, or null.
const snode::LevelAccess *levelAt(llvm::ArrayRef<snode::LevelAccess> levels,
                                  const snode::NodeLayout &node);

/// Marks the field accesses in `region` at exactly `indices` whose field
/// reaches `node`'s cells as the loop's own level `own` does (same extents
/// below it): their cells down to `node` are the active cell the loop is in
/// (tc.active). Those at `indices` plus constants are marked tc.near.
void markKnownActive(mlir::Region &region, const snode::SNodeLayout &layout,
                     const snode::NodeLayout &node,
                     const snode::LevelAccess &own,
                     llvm::ArrayRef<mlir::Value> indices);
} // namespace tic

#endif

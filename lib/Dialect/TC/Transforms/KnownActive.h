//===- KnownActive.h - accesses a struct-for knows are active ---*- C++ -*-===//
//
// Internal to lib/Dialect/TC/Transforms: the marking of field accesses at a
// sparse struct-for's own indices (tc.active) and at constant offsets from
// them (tc.near), shared by tic-lower-struct-for and tic-block-local.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_LIB_DIALECT_TC_TRANSFORMS_KNOWNACTIVE_H
#define TIC_LIB_DIALECT_TC_TRANSFORMS_KNOWNACTIVE_H

#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/IR/Region.h"

namespace tic {
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

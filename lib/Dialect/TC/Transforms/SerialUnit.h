//===- SerialUnit.h - host code moved into a one-thread loop ----*- C++ -*-===//
//
// Internal to lib/Dialect/TC/Transforms (tic-offload-host-loops,
// tic-offload-sparse-access): an op of a kernel's host code moved into a
// serialized one-iteration tc.parallel_for (one GPU thread on a device
// context), its results passed out through kernel-scope variables, which
// launches stage:
//
//   %r = OP ...          %slot = memref.alloca()
//                  =>    tc.parallel_for (%t) = (0) to (1) serialize {
//                          %w = OP ...
//                          memref.store %w, %slot[]
//                        }
//                        %r = memref.load %slot[]
//
//===----------------------------------------------------------------------===//
#ifndef TIC_LIB_DIALECT_TC_TRANSFORMS_SERIALUNIT_H
#define TIC_LIB_DIALECT_TC_TRANSFORMS_SERIALUNIT_H

#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace tic {

/// Moves `op` (and its regions) into a serialized one-iteration parallel
/// loop at its place; its results' uses read them from kernel-scope
/// variables after the loop. `op` is erased.
inline void moveIntoSerialUnit(mlir::Operation *op) {
  mlir::OpBuilder b(op);
  mlir::Location loc = op->getLoc();
  llvm::SmallVector<mlir::Value> slots;
  for (mlir::Type t : op->getResultTypes())
    slots.push_back(
        mlir::memref::AllocaOp::create(b, loc, mlir::MemRefType::get({}, t)));
  auto unit = tc::ParallelForOp::createSerialUnit(b, loc);
  mlir::OpBuilder ib(unit.getBody().front().getTerminator());
  mlir::Operation *moved = ib.clone(*op);
  for (auto [r, slot] : llvm::zip_equal(moved->getResults(), slots))
    mlir::memref::StoreOp::create(ib, loc, r, slot);
  b.setInsertionPointAfter(unit);
  for (auto [r, slot] : llvm::zip_equal(op->getResults(), slots)) {
    mlir::Value v = mlir::memref::LoadOp::create(b, loc, slot);
    r.replaceAllUsesWith(v);
  }
  op->erase();
}

} // namespace tic

#endif

//===- LowerFieldAccess.cpp - tic-lower-field-access ----------------------===//
//
// tc.load / tc.store / tc.atomic_rmw -> snode micro-access chains (the
// cell) + snode.load / snode.store / snode.atomic_rmw on the placed field.
// Writes look their cells up with `activate`; reads never activate. Every
// node kind goes through the same ops: whether a kind can be lowered further
// is convert-snode-to-llvm's question.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_LOWERFIELDACCESS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// Builds root_ptr -> (get_child, [index_extract], [linearize], lookup)*
/// for one access: the cell of `pl`'s parent that holds the element at
/// `indices` (the tree's root cell for a 0-D field). With `activate`, the
/// lookups of nodes that can be inactive activate their cells (writes).
static Value buildCell(OpBuilder &b, Location loc, const snode::PlaceLayout &pl,
                       ValueRange indices, bool activate) {
  MLIRContext *ctx = b.getContext();
  Type ptrTy = snode::PtrType::get(ctx);
  Value cur = snode::RootPtrOp::create(b, loc, ptrTy, pl.tree->name);
  for (const snode::LevelAccess &lv : pl.levels) {
    const snode::NodeLayout *n = lv.node;
    Value container = snode::GetChildOp::create(b, loc, ptrTy, cur, n->name);
    SmallVector<Value> levelIdx;
    for (auto [k, axis] : llvm::enumerate(n->axes)) {
      Value i = indices[axis];
      if (lv.below[k] == 1 && !n->needsMod[k])
        levelIdx.push_back(i);
      else
        levelIdx.push_back(snode::IndexExtractOp::create(
            b, loc, i.getType(), i, n->name, axis, lv.below[k]));
    }
    // Indices are i32 (every axis extent fits), but a node's cell count may
    // not: linearize in i64 where it exceeds 2^31 - 1.
    if (levelIdx.size() > 1 && n->numCells > INT32_MAX &&
        !levelIdx[0].getType().isInteger(64))
      for (Value &v : levelIdx)
        v = arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
    Value linear = levelIdx.size() == 1
                       ? levelIdx[0]
                       : Value(snode::LinearizeOp::create(
                             b, loc, levelIdx[0].getType(), n->name, levelIdx));
    // An always-active node has nothing to activate: its lookups stay
    // plain, so a read and a write of one cell share them.
    cur = snode::LookupOp::create(b, loc, n->kind, container, n->name, linear,
                                  activate && !snode::isAlwaysActive(n->kind));
  }
  return cur;
}

static snode::AtomicKind toSNodeAtomicKind(tc::AtomicKind kind) {
  // Same cases, same spellings (SNodeAttrs.td).
  return *snode::symbolizeAtomicKind(tc::stringifyAtomicKind(kind));
}

struct LowerFieldAccessPass
    : tic::impl::LowerFieldAccessBase<LowerFieldAccessPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    SmallVector<Operation *> accesses;
    module.walk([&](Operation *op) {
      if (isa<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      StringRef field = op->getAttrOfType<FlatSymbolRefAttr>("field").getValue();
      const snode::PlaceLayout *pl = layout.lookupPlace(field);
      if (!pl) {
        op->emitOpError("references unknown field '") << field << "'";
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<tc::LoadOp>(op)) {
        Value cell =
            buildCell(b, loc, *pl, load.getIndices(), /*activate=*/false);
        load.replaceAllUsesWith(snode::LoadOp::create(b, loc, load.getType(),
                                                      cell, field,
                                                      load.getComp())
                                    .getResult());
      } else if (auto store = dyn_cast<tc::StoreOp>(op)) {
        Value cell =
            buildCell(b, loc, *pl, store.getIndices(), /*activate=*/true);
        snode::StoreOp::create(b, loc, store.getValue(), cell, field,
                               store.getComp());
      } else if (auto rmw = dyn_cast<tc::AtomicRMWOp>(op)) {
        Value cell =
            buildCell(b, loc, *pl, rmw.getIndices(), /*activate=*/true);
        auto old = snode::AtomicRMWOp::create(
            b, loc, rmw.getType(), toSNodeAtomicKind(rmw.getKind()),
            rmw.getValue(), cell, field, rmw.getComp());
        rmw.replaceAllUsesWith(old.getResult());
      }
      op->erase();
    }
  }
};
} // namespace

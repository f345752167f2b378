//===- DemoteBitStores.cpp - tic-demote-bit-stores ------------------------===//
//
// Stores to quantized fields whose container word no other thread writes
// during the kernel get `tc.exclusive` (Passes.td says when); the lowering
// then writes the word with a plain load / insert / store instead of a
// compare-and-swap loop.
//
//===----------------------------------------------------------------------===//
#include "LoopOwnership.h"

#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "llvm/ADT/StringMap.h"

namespace tic {
#define GEN_PASS_DEF_DEMOTEBITSTORES
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;
using namespace tic::ownership;

namespace {

/// The bit_struct whose word holds `field`, or null (plain bytes, or a
/// bit_array, whose word holds several elements).
const snode::NodeLayout *wordOf(const snode::SNodeLayout &layout,
                                StringRef field) {
  const snode::PlaceLayout *p = layout.lookupPlace(field);
  if (!p || !p->isQuant() || p->inBitArray || !p->supported)
    return nullptr;
  return p->parent;
}

StringRef fieldOf(Operation *op) {
  return op->getAttrOfType<FlatSymbolRefAttr>("field").getValue();
}

ValueRange indicesOf(Operation *op) {
  if (auto s = dyn_cast<tc::StoreOp>(op))
    return s.getIndices();
  return cast<tc::AtomicRMWOp>(op).getIndices();
}

/// The nearest parallel loop around `op` (null: the kernel's top level).
Operation *loopOf(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<tc::KernelOp>(p);
       p = p->getParentOp())
    if (isParallelLoop(p))
      return p;
  return nullptr;
}

struct DemoteBitStoresPass
    : tic::impl::DemoteBitStoresBase<DemoteBitStoresPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    module.walk([&](tc::StoreOp store) {
      const snode::PlaceLayout *p = layout.lookupPlace(store.getField());
      if (!p || !p->isQuant())
        return;
      if (exclusive(store, wordOf(layout, store.getField()), layout))
        store->setAttr(tc::kExclusiveAttrName, UnitAttr::get(ctx));
    });
  }

  bool exclusive(tc::StoreOp store, const snode::NodeLayout *word,
                 const snode::SNodeLayout &layout) {
    Operation *loop = loopOf(store);
    if (!loop || isSerialized(loop))
      return true;
    if (!word)
      return false; // a bit_array: the word holds other iterations' elements
    LoopAnalysis la(loop);
    auto keys = la.ownershipKeys(store.getIndices());
    if (!keys)
      return false;
    // Every write in the loop to the word's fields: the same keys. A
    // memory effect the pass does not understand (calls, lowered accesses)
    // keeps the loop.
    bool ok = true;
    loop->walk([&](Operation *op) {
      if (!ok || op == loop)
        return;
      if (isa<tc::StoreOp, tc::AtomicRMWOp>(op)) {
        if (wordOf(layout, fieldOf(op)) == word &&
            !la.hasKeys(indicesOf(op), *keys))
          ok = false;
        return;
      }
      Dialect *d = op->getDialect();
      if (!d || isa<snode::SNodeDialect>(d))
        ok = false;
    });
    return ok;
  }
};

} // namespace

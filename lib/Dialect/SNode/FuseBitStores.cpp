//===- FuseBitStores.cpp - tic-fuse-bit-stores ----------------------------===//
//
// Stores to the quantized components of one bit_struct word, in one block
// with no field access or unknown memory effect between them, become one
// snode.store_fields (Passes.td). Cells are compared as SSA values: the
// lowering of field accesses and CSE give one cell value per word and
// iteration, so two stores to the same element's word share it.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace tic {
#define GEN_PASS_DEF_FUSEBITSTORES
#include "tic/Dialect/SNode/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic::snode;

namespace {

/// Stores to one word waiting to be merged, in program order.
struct Group {
  SmallVector<StoreOp> stores;
};

/// The bit_struct of a store's place, or null (plain bytes, bit_array).
const NodeLayout *wordOf(const SNodeLayout &layout, StoreOp st) {
  const PlaceLayout *p = layout.lookupPlace(st.getField());
  if (!p || !p->isQuant() || p->inBitArray || st.getLane())
    return nullptr;
  return p->parent;
}

struct FuseBitStoresPass : tic::impl::FuseBitStoresBase<FuseBitStoresPass> {
  void runOnOperation() override {
    SNodeLayout layout(getOperation());
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    getOperation()->walk([&](Block *block) { fuseIn(*block, layout); });
  }

  void fuseIn(Block &block, const SNodeLayout &layout) {
    // Open groups by (cell, word); any other memory effect closes them all.
    llvm::MapVector<std::pair<Value, const NodeLayout *>, Group> open;
    auto closeAll = [&] {
      for (auto &[key, g] : open)
        emit(g);
      open.clear();
    };
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto st = dyn_cast<StoreOp>(op)) {
        if (const NodeLayout *word = wordOf(layout, st)) {
          // Stores to other words may be to this word through another cell
          // value: only one word's group stays open.
          auto key = std::make_pair(st.getCell(), word);
          if (!open.count(key))
            closeAll();
          open[key].stores.push_back(st);
          continue;
        }
      }
      if (!isMemoryEffectFree(&op))
        closeAll();
    }
    closeAll();
  }

  /// Replaces a group of two or more stores by one store_fields at the
  /// last one; a later store of a component replaces an earlier one.
  void emit(Group &g) {
    if (g.stores.size() < 2)
      return;
    StoreOp last = g.stores.back();
    SmallVector<Value> values;
    SmallVector<Attribute> fields;
    SmallVector<int64_t> comps;
    bool exclusive = true;
    for (StoreOp st : g.stores) {
      exclusive &= st.getExclusive();
      FlatSymbolRefAttr f = st.getFieldAttr();
      bool replaced = false;
      for (size_t k = 0; k < fields.size(); ++k)
        if (fields[k] == f && comps[k] == int64_t(st.getComp())) {
          values[k] = st.getValue();
          replaced = true;
        }
      if (!replaced) {
        values.push_back(st.getValue());
        fields.push_back(f);
        comps.push_back(int64_t(st.getComp()));
      }
    }
    OpBuilder b(last);
    auto fused = StoreFieldsOp::create(b, last.getLoc(), values, last.getCell(),
                                       b.getArrayAttr(fields), comps);
    fused.setExclusive(exclusive);
    for (StoreOp st : g.stores)
      st.erase();
    numFused += g.stores.size();
  }
};

} // namespace

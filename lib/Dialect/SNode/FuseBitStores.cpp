//===- FuseBitStores.cpp - tic-fuse-bit-stores ----------------------------===//
//
// Stores to the quantized components of one bit_struct word, in one block
// with no field access or unknown memory effect between them, become one
// snode.store_fields (Passes.td). Those of a shared exponent's group always
// are: the semantics encodes them together. Cells are compared as SSA values:
// the lowering of field accesses and CSE give one cell value per word and
// iteration, so two stores to the same element's word share it.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/IR/Builders.h"
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

/// The bit_struct of a store's place, or null (plain bytes, bit_array;
/// without `all`, a field without a shared exponent).
const NodeLayout *wordOf(const SNodeLayout &layout, StoreOp st, bool all) {
  const PlaceLayout *p = layout.lookupPlace(st.getField());
  if (!p || !p->isQuant() || p->inBitArray || st.getLane() ||
      (!all && p->exponentOffset < 0))
    return nullptr;
  return p->parent;
}

struct FuseBitStoresPass : tic::impl::FuseBitStoresBase<FuseBitStoresPass> {
  using FuseBitStoresBase::FuseBitStoresBase;
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
        if (const NodeLayout *word = wordOf(layout, st, all)) {
          // Stores to other words may be to this word through another cell
          // value: only one word's group stays open.
          auto key = std::make_pair(st.getCell(), word);
          if (!open.count(key))
            closeAll();
          open[key].stores.push_back(st);
          continue;
        }
      }
      if (!keepsFieldData(&op) && conflicts(&op, open, layout))
        closeAll();
    }
    closeAll();
  }

  /// Whether `op`, which may touch field data, must stay ordered with the
  /// open groups' stores: a store to another field commutes with them
  /// (disjoint bits; a shared exponent's re-encoding only rewrites its own
  /// group's bits), a load or atomic of a field outside their words too.
  template <typename Map>
  static bool conflicts(Operation *op, const Map &open,
                        const SNodeLayout &layout) {
    auto field = op->getAttrOfType<FlatSymbolRefAttr>("field");
    if (!field || !isa<StoreOp, LoadOp, AtomicRMWOp>(op))
      return true;
    const PlaceLayout *p = layout.lookupPlace(field.getValue());
    if (!p)
      return true;
    for (const auto &[key, g] : open) {
      if (isa<StoreOp>(op)) {
        for (StoreOp st : g.stores)
          if (st.getField() == field.getValue())
            return true;
      } else if (p->parent == key.second) {
        return true;
      }
    }
    return false;
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
  }
};

} // namespace

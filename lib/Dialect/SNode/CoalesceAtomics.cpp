//===- CoalesceAtomics.cpp - tic-coalesce-atomics -------------------------===//
//
// f32 atomic adds with unused results to components of one cell value that
// lie side by side in the cell become one snode.atomic_add_fields
// (Passes.td), lowered two components per 64-bit compare-and-swap. Groups
// are collected per block and cell value, in program order; whatever may
// touch one of a group's fields in between closes it. Cells are compared as
// SSA values: the lowering of field accesses, CSE and tic-snode-access-cse
// give one cell value per grid node and iteration, so `grid_v[I] += ...;
// grid_m[I] += ...` share it.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace tic {
#define GEN_PASS_DEF_COALESCEATOMICS
#include "tic/Dialect/SNode/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic::snode;

namespace {

/// An add waiting to be merged and the byte of the cell it updates.
struct Pending {
  mutable AtomicRMWOp op; // a handle (its accessors are not const)
  int64_t offset;
};

/// The byte offset in its cell of the f32 component an add updates, when
/// the add can be merged: f32, plain bytes, old value unused.
std::optional<int64_t> mergeableOffset(const SNodeLayout &layout,
                                       AtomicRMWOp op) {
  if (op.getKind() != AtomicKind::add || op.getLane() ||
      !op.getValue().getType().isF32() || !op.getResult().use_empty())
    return std::nullopt;
  const PlaceLayout *p = layout.lookupPlace(op.getField());
  if (!p || p->isQuant())
    return std::nullopt;
  return p->offsetInCell + p->componentOffsets[op.getComp()];
}

struct CoalesceAtomicsPass
    : tic::impl::CoalesceAtomicsBase<CoalesceAtomicsPass> {
  void runOnOperation() override {
    SNodeLayout layout(getOperation());
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    getOperation()->walk([&](Block *block) { coalesceIn(*block, layout); });
  }

  void coalesceIn(Block &block, const SNodeLayout &layout) {
    llvm::MapVector<Value, SmallVector<Pending>> open;
    // Closes the groups that hold an add to `field` (every group: none).
    auto close = [&](std::optional<StringRef> field) {
      for (auto &[cell, group] : open) {
        if (field && llvm::none_of(group, [&](const Pending &p) {
              return p.op.getField() == *field;
            }))
          continue;
        emit(group);
        group.clear();
      }
    };
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto rmw = dyn_cast<AtomicRMWOp>(op);
      std::optional<int64_t> offset =
          rmw ? mergeableOffset(layout, rmw) : std::nullopt;
      if (offset) {
        SmallVector<Pending> &group = open[rmw.getCell()];
        // A second add to the same byte: the first one's group ends (the
        // thread's order of additions to one address is kept).
        if (llvm::any_of(group,
                         [&](const Pending &p) { return p.offset == *offset; }))
          close(rmw.getField());
        // Adds to the field through other cell values may be to the same
        // address: their order is kept too.
        for (auto &[cell, other] : open)
          if (cell != rmw.getCell() && llvm::any_of(other, [&](auto &p) {
                return p.op.getField() == rmw.getField();
              })) {
            emit(other);
            other.clear();
          }
        open[rmw.getCell()].push_back({rmw, *offset});
        continue;
      }
      if (keepsFieldData(&op))
        continue;
      // A load, store or atomic of one field commutes with adds to others
      // (fields occupy disjoint bytes); anything else closes every group.
      auto field = op.getAttrOfType<FlatSymbolRefAttr>("field");
      if (field && isa<LoadOp, StoreOp, AtomicRMWOp>(op))
        close(field.getValue());
      else
        close(std::nullopt);
    }
    close(std::nullopt);
  }

  /// Replaces each run of two or more adds to consecutive 4-byte
  /// components by one snode.atomic_add_fields at the run's last add.
  static void emit(SmallVector<Pending> &group) {
    if (group.size() < 2)
      return;
    SmallVector<Pending> sorted(group);
    llvm::stable_sort(sorted, [](const Pending &a, const Pending &b) {
      return a.offset < b.offset;
    });
    size_t begin = 0;
    for (size_t i = 1; i <= sorted.size(); ++i) {
      if (i < sorted.size() && sorted[i].offset == sorted[i - 1].offset + 4)
        continue;
      if (i - begin >= 2)
        replaceRun(ArrayRef<Pending>(sorted).slice(begin, i - begin));
      begin = i;
    }
  }

  static void replaceRun(ArrayRef<Pending> run) {
    // At the last add in program order: every value is defined there.
    AtomicRMWOp last = run.front().op;
    for (const Pending &p : run)
      if (last->isBeforeInBlock(p.op))
        last = p.op;
    SmallVector<Value> values;
    SmallVector<Attribute> fields;
    SmallVector<int64_t> comps;
    for (const Pending &p : run) {
      values.push_back(p.op.getValue());
      fields.push_back(p.op.getFieldAttr());
      comps.push_back(int64_t(p.op.getComp()));
    }
    OpBuilder b(last);
    AtomicAddFieldsOp::create(b, last.getLoc(), values, last.getCell(),
                              b.getArrayAttr(fields), comps);
    for (const Pending &p : run)
      p.op.erase();
  }
};

} // namespace

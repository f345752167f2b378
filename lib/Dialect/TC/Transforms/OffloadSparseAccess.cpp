//===- OffloadSparseAccess.cpp - tic-offload-sparse-access ----------------===//
//
// --target=cuda: kernel code outside parallel loops runs on the host, and
// tic-host-field-access copies the values of its field accesses to and from
// the device. An access through a pointer, dynamic or hash node cannot be
// copied that way: it follows cell pointers stored in (device) field memory
// and may allocate cells from a (device) pool. Such an access becomes a
// serialized one-iteration parallel loop, one GPU thread on a device
// context (and one iteration on the CPU's), its result passed out through a
// kernel-scope variable:
//
//   %v = tc.load @x[%i]          %slot = memref.alloca() : memref<f32>
//                          =>    tc.parallel_for (%t) = (0) to (1) serialize {
//                                  %w = tc.load @x[%i]
//                                  memref.store %w, %slot[]
//                                }
//                                %v = memref.load %slot[]
//
//===----------------------------------------------------------------------===//
#include "SerialUnit.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_OFFLOADSPARSEACCESS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// Whether `n` or an ancestor keeps its cells in a pool.
bool pooled(const snode::NodeLayout *n) {
  for (; n; n = n->parent)
    if (snode::hasPool(n->kind))
      return true;
  return false;
}

struct OffloadSparseAccessPass
    : tic::impl::OffloadSparseAccessBase<OffloadSparseAccessPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    // Nodes with a pooled node below them: deactivating one of their cells
    // frees the cells below.
    llvm::SmallPtrSet<const snode::NodeLayout *, 8> poolBelow;
    for (const snode::NodeLayout &n : layout.getNodes())
      if (snode::hasPool(n.kind))
        for (const snode::NodeLayout *a = n.parent; a; a = a->parent)
          poolBelow.insert(a);
    auto needsDevice = [&](Operation *op) -> bool {
      if (isa<tc::IsActiveOp, tc::ActivateOp, tc::DeactivateOp, tc::AppendOp,
              tc::LengthOp>(op)) {
        const snode::NodeLayout *n = layout.lookupNode(
            op->getAttrOfType<FlatSymbolRefAttr>("node").getValue());
        return pooled(n) || poolBelow.contains(n);
      }
      StringRef field;
      if (auto l = dyn_cast<tc::LoadOp>(op))
        field = l.getField();
      else if (auto s = dyn_cast<tc::StoreOp>(op))
        field = s.getField();
      else if (auto a = dyn_cast<tc::AtomicRMWOp>(op))
        field = a.getField();
      else
        return false;
      const snode::PlaceLayout *p = layout.lookupPlace(field);
      return p && pooled(p->parent);
    };
    SmallVector<Operation *> worklist;
    module.walk([&](tc::KernelOp kernel) {
      kernel.walk([&](Operation *op) {
        if (!needsDevice(op) || op->getParentOfType<tc::ParallelForOp>() ||
            op->getParentOfType<tc::StructForOp>())
          return;
        worklist.push_back(op);
      });
    });
    for (Operation *op : worklist)
      moveIntoSerialUnit(op);
  }
};

} // namespace

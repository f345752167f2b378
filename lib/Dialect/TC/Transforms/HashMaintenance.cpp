//===- HashMaintenance.cpp - tic-hash-maintenance -------------------------===//
//
// Hash tables grow between launches (docs/sparse.md): every kernel that may
// insert into a hash node (an activating snode.lookup of it, in the kernel
// or in a task it launches) ends with `snode.hash_maintain` of that node
// when it is a child of its tree's root, which doubles the table in place
// while its entries exceed twice its buckets, or, below another node, with
// `snode.hash_maintain_tables`, which purges and regrows the tables that
// insertions noted (a table in each parent cell). It runs in the
// kernel's host code after its launches, when no task runs; with
// `offload` (--target=cuda, before tic-outline-tasks) in a serialized
// one-iteration parallel loop: one GPU thread on a device context.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_HASHMAINTENANCE
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

struct HashMaintenancePass
    : tic::impl::HashMaintenanceBase<HashMaintenancePass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    // The root-level hash nodes each kernel or task may insert into.
    DenseMap<Operation *, SetVector<const snode::NodeLayout *>> inserts;
    module.walk([&](snode::LookupOp op) {
      if (op.getKind() != snode::SNodeKind::Hash || !op.getActivate())
        return;
      const snode::NodeLayout *n = layout.lookupNode(op.getNode());
      if (!n || (n->nestedHash && n->notesOffset < 0))
        return;
      Operation *fn = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
      inserts[fn].insert(n);
    });
    if (inserts.empty())
      return;
    module.walk([&](tc::KernelOp kernel) {
      SetVector<const snode::NodeLayout *> nodes;
      if (auto it = inserts.find(kernel); it != inserts.end())
        nodes.insert(it->second.begin(), it->second.end());
      kernel.walk([&](tc::LaunchOp launch) {
        Operation *task =
            SymbolTable::lookupNearestSymbolFrom(kernel, launch.getTaskAttr());
        if (auto it = inserts.find(task); it != inserts.end())
          nodes.insert(it->second.begin(), it->second.end());
      });
      if (nodes.empty())
        return;
      SmallVector<tc::ReturnOp> returns;
      for (Block &block : kernel.getBody())
        if (auto ret = dyn_cast<tc::ReturnOp>(block.getTerminator()))
          returns.push_back(ret);
      Type ptrTy = snode::PtrType::get(&getContext());
      for (tc::ReturnOp ret : returns) {
        OpBuilder b(ret);
        Location loc = ret.getLoc();
        if (offload) // one GPU thread: the table is in device memory
          b.setInsertionPointToStart(
              &tc::ParallelForOp::createSerialUnit(b, loc).getBody().front());
        for (const snode::NodeLayout *n : nodes) {
          if (n->nestedHash) {
            // Purged on every target; grown into blocks the CPU runtime
            // hands out (offloaded to one GPU thread: purged only).
            snode::HashMaintainTablesOp::create(b, loc, n->name, !offload);
            continue;
          }
          Value root = snode::RootPtrOp::create(b, loc, ptrTy, n->tree->name);
          Value table = snode::GetChildOp::create(b, loc, ptrTy, root, n->name);
          snode::HashMaintainOp::create(b, loc, table, n->name);
        }
      }
    });
  }
};

} // namespace

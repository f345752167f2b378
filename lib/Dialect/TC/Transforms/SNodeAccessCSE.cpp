//===- SNodeAccessCSE.cpp - tic-snode-access-cse --------------------------===//
//
// Simplification II of the Taichi thesis: neighbouring accesses share the
// common prefix of their micro-access chains.
//  1. Micro-access ops whose operands are all defined outside a parallel loop
//     (root_ptr, the first get_child, lookups with loop-invariant indices...)
//     are hoisted out of the loop, so they run once per kernel launch.
//  2. Structurally identical micro-access ops are merged into a dominating
//     one, across blocks and regions.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseMap.h"

namespace tic {
#define GEN_PASS_DEF_SNODEACCESSCSE
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

static bool isMicroAccess(Operation *op) {
  return isa<snode::RootPtrOp, snode::GetChildOp, snode::IndexExtractOp,
             snode::LinearizeOp, snode::LookupOp, snode::PlacePtrOp>(op);
}

struct SNodeAccessCSEPass : tic::impl::SNodeAccessCSEBase<SNodeAccessCSEPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();

    // 1. Hoist loop-invariant micro-access ops out of parallel loops.
    SmallVector<Operation *> loops;
    module.walk([&](Operation *op) {
      if (isa<tc::ParallelForOp, tc::StructForOp>(op)) loops.push_back(op);
    });
    for (Operation *loop : loops) {
      SmallVector<Operation *> candidates;
      loop->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isMicroAccess(op)) candidates.push_back(op);
      });
      for (Operation *op : candidates) {
        bool invariant = llvm::all_of(op->getOperands(), [&](Value v) {
          return !loop->isAncestor(v.getParentRegion()->getParentOp());
        });
        if (invariant) op->moveBefore(loop);
      }
    }

    // 2. Merge identical micro-access ops into a dominating one.
    DominanceInfo dom(module);
    SmallVector<Operation *> ops;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isMicroAccess(op)) ops.push_back(op);
    });
    // Buckets per kernel (an op never dominates one in another function):
    // module-wide buckets compared every kernel's root_ptr with all others,
    // quadratic in the number of kernels.
    llvm::DenseMap<std::pair<Operation *, llvm::hash_code>,
                   SmallVector<Operation *, 2>>
        seen;
    auto hashOf = [](Operation *op) {
      return OperationEquivalence::computeHash(
          op, OperationEquivalence::directHashValue,
          OperationEquivalence::ignoreHashValue,
          OperationEquivalence::IgnoreLocations);
    };
    for (Operation *op : ops) {
      llvm::hash_code h = hashOf(op);
      auto &bucket =
          seen[{op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>(), h}];
      Operation *replacement = nullptr;
      for (Operation *prev : bucket)
        if (OperationEquivalence::isEquivalentTo(
                prev, op, OperationEquivalence::exactValueMatch, nullptr,
                OperationEquivalence::IgnoreLocations) &&
            dom.properlyDominates(prev, op)) {
          replacement = prev;
          break;
        }
      if (replacement) {
        op->replaceAllUsesWith(replacement);
        op->erase();
      } else {
        bucket.push_back(op);
      }
    }
  }
};
} // namespace

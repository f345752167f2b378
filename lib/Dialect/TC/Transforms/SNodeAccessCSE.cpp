//===- SNodeAccessCSE.cpp - tic-snode-access-cse --------------------------===//
//
// Simplification II of the Taichi thesis: neighbouring accesses share the
// common prefix of their micro-access chains.
//  1. Micro-access ops whose operands are all defined outside a parallel loop
//     (root_ptr, the first get_child, lookups with loop-invariant indices...)
//     are hoisted out of the loop, so they run once per kernel launch (with
//     `device`, for --target=cuda, only those that read no structure); out
//     of a serial scf.for that runs at least once (constant bounds), they
//     go with the pure arithmetic computing their operands (a struct-for's
//     loops over the elements of one cell then look the cell up once).
//  2. Structurally identical micro-access ops are merged into a dominating
//     one, across blocks and regions. Repeated activations of one cell
//     become one (thesis 2.5): an activating lookup merges into a dominating
//     identical one whose scope (its innermost parallel loop, else its
//     function) deactivates nothing (activation is idempotent; the first
//     one's cell stays the cell), so a kernel may free its blocks in one
//     loop and activate them again in the next.
// Both rely on the ops' declared memory effects, not on their kind: address
// arithmetic (root_ptr, get_child, index_extract, linearize, place_ptr,
// lookups on always-active nodes) has none and moves freely; a lookup that
// reads the `Structure` resource (sparse nodes) moves only in a function, and
// merges only in a scope, where nothing writes that resource (no activation
// or deactivation), and an activating lookup never moves.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

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

/// Whether `op` may write the SNode structure (or has unknown effects).
static bool mayWriteStructure(Operation *op) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface) // unknown effects, unless its nested ops (walked too) say
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
    // A write to a kernel-local buffer (a reduction's accumulator) is not
    // one to the SNode structure.
    if (Value v = e.getValue())
      if (v.getDefiningOp<memref::AllocaOp>())
        return false;
    return isa<MemoryEffects::Write>(e.getEffect()) &&
           (isa<snode::StructureResource>(e.getResource()) ||
            isa<SideEffects::DefaultResource>(e.getResource()));
  });
}

/// Whether `op` may be moved or merged: it has no memory effect, or it only
/// reads the structure and `structureWritten` is false.
static bool isMovable(Operation *op, bool structureWritten) {
  if (isMemoryEffectFree(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface || structureWritten)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect()) &&
           isa<snode::StructureResource>(e.getResource());
  });
}

static Operation *functionOf(Operation *op) {
  return op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
}

/// The innermost parallel loop around `op`, else its function.
static Operation *scopeOf(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<tc::ParallelForOp, tc::StructForOp>(p) ||
        p->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return p;
  return nullptr;
}

/// The scope around scope `s`, or null for a function.
static Operation *enclosingScope(Operation *s) {
  return s->hasTrait<OpTrait::IsIsolatedFromAbove>() ? nullptr : scopeOf(s);
}

/// Whether `op` is an activating lookup (it writes the structure only by
/// activating cells).
static bool isActivatingLookup(Operation *op) {
  auto l = dyn_cast<snode::LookupOp>(op);
  return l && l.getActivate();
}

struct SNodeAccessCSEPass : tic::impl::SNodeAccessCSEBase<SNodeAccessCSEPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();

    // Scopes in which something other than an activation may write the
    // structure (a deactivation, an unknown op), and scopes in which
    // anything may: a scope is a parallel loop or a function, and what an op
    // writes, every scope around it writes.
    llvm::DenseSet<Operation *> deactivates, writesStructure;
    module.walk([&](Operation *op) {
      if (!mayWriteStructure(op))
        return;
      bool activation = isActivatingLookup(op);
      for (Operation *s = scopeOf(op); s; s = enclosingScope(s)) {
        writesStructure.insert(s);
        if (!activation)
          deactivates.insert(s);
      }
    });
    // Hoisting looks at the whole function: the op leaves its loop.
    auto movable = [&](Operation *op) {
      return isMovable(op, writesStructure.contains(functionOf(op)));
    };
    // Merging looks at the scope of the dominating op, which holds both: a
    // parallel loop that deactivates nothing keeps the cells that one
    // iteration activated active to its end, whatever the rest of the
    // kernel does.
    auto mergeable = [&](Operation *op, Operation *scope) {
      if (isActivatingLookup(op))
        return !deactivates.contains(scope);
      return isMovable(op, writesStructure.contains(scope));
    };

    // 1. Hoist loop-invariant micro-access ops out of parallel loops.
    SmallVector<Operation *> loops;
    module.walk([&](Operation *op) {
      if (isa<tc::ParallelForOp, tc::StructForOp>(op)) loops.push_back(op);
    });
    for (Operation *loop : loops) {
      SmallVector<Operation *> candidates;
      loop->walk<WalkOrder::PreOrder>([&](Operation *op) {
        // With `device`, what reads the structure stays on the device.
        if (isMicroAccess(op) && movable(op) &&
            !(device && !isMemoryEffectFree(op)))
          candidates.push_back(op);
      });
      for (Operation *op : candidates) {
        bool invariant = llvm::all_of(op->getOperands(), [&](Value v) {
          return !loop->isAncestor(v.getParentRegion()->getParentOp());
        });
        if (invariant) op->moveBefore(loop);
      }
    }

    // 1b. The same out of serial loops known to run (innermost first, so
    // what leaves an inner loop may leave the outer one too).
    SmallVector<scf::ForOp> serial;
    module.walk([&](scf::ForOp loop) {
      APInt lb, ub;
      if (matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) &&
          matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) && lb.slt(ub))
        serial.push_back(loop);
    });
    for (scf::ForOp loop : serial) {
      SmallVector<Operation *> candidates;
      loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
        bool pureArith = isa<arith::ArithDialect>(op->getDialect()) &&
                         op->getNumRegions() == 0 && isMemoryEffectFree(op);
        if ((isMicroAccess(op) && movable(op)) || pureArith)
          candidates.push_back(op);
      });
      for (Operation *op : candidates) {
        bool invariant = llvm::all_of(op->getOperands(), [&](Value v) {
          return !loop->isAncestor(v.getParentRegion()->getParentOp());
        });
        if (invariant)
          op->moveBefore(loop);
      }
    }

    // 2. Merge identical micro-access ops into a dominating one.
    DominanceInfo dom(module);
    SmallVector<Operation *> ops;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isMicroAccess(op) && mergeable(op, scopeOf(op)))
        ops.push_back(op);
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
      auto &bucket = seen[{functionOf(op), h}];
      Operation *replacement = nullptr;
      for (Operation *prev : bucket)
        if (OperationEquivalence::isEquivalentTo(
                prev, op, OperationEquivalence::exactValueMatch, nullptr,
                OperationEquivalence::IgnoreLocations) &&
            dom.properlyDominates(prev, op) && mergeable(prev, scopeOf(prev))) {
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

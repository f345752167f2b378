//===- DemoteAtomics.cpp - tic-demote-atomics -----------------------------===//
//
// Atomic read-modify-writes that no other thread can race with become plain
// load / op / store (Taichi's demote_atomics):
//  * everything outside parallel loops (the kernel's top level runs on the
//    calling thread) and in `serialize`d loops;
//  * field and ndarray atomics in a parallel loop whose element is owned by
//    the iteration: for every induction variable one index position is an
//    injective affine function of it, and every access of the same storage
//    in the loop has the same expressions at those positions;
//  * memref.atomic_rmw on a local allocated inside the parallel loop.
// Kernel-scope reductions captured by a parallel loop are left alone:
// tic-privatize-reductions privatizes them per task.
//
//===----------------------------------------------------------------------===//
#include "LoopOwnership.h"

#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace tic {
#define GEN_PASS_DEF_DEMOTEATOMICS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;
using namespace tic::ownership;

namespace {

/// `old KIND v` for a tc atomic kind (float min/max ignore NaNs, as LLVM's
/// atomicrmw fmin/fmax; integer min/max are signed).
static Value combine(OpBuilder &b, Location loc, tc::AtomicKind kind, Value old,
                     Value v) {
  bool f = isa<FloatType>(v.getType());
  switch (kind) {
  case tc::AtomicKind::add:
    return f ? Value(arith::AddFOp::create(b, loc, old, v))
             : Value(arith::AddIOp::create(b, loc, old, v));
  case tc::AtomicKind::sub:
    return f ? Value(arith::SubFOp::create(b, loc, old, v))
             : Value(arith::SubIOp::create(b, loc, old, v));
  case tc::AtomicKind::min:
    return f ? Value(arith::MinNumFOp::create(b, loc, old, v))
             : Value(arith::MinSIOp::create(b, loc, old, v));
  case tc::AtomicKind::max:
    return f ? Value(arith::MaxNumFOp::create(b, loc, old, v))
             : Value(arith::MaxSIOp::create(b, loc, old, v));
  case tc::AtomicKind::and_:
    return arith::AndIOp::create(b, loc, old, v);
  case tc::AtomicKind::or_:
    return arith::OrIOp::create(b, loc, old, v);
  case tc::AtomicKind::xor_:
    return arith::XOrIOp::create(b, loc, old, v);
  }
  llvm_unreachable("unknown atomic kind");
}

/// `old KIND v` for a memref.atomic_rmw kind.
static Value combine(OpBuilder &b, Location loc, arith::AtomicRMWKind kind,
                     Value old, Value v) {
  using K = arith::AtomicRMWKind;
  switch (kind) {
  case K::addf:
    return arith::AddFOp::create(b, loc, old, v);
  case K::addi:
    return arith::AddIOp::create(b, loc, old, v);
  case K::andi:
    return arith::AndIOp::create(b, loc, old, v);
  case K::assign:
    return v;
  case K::maximumf:
    return arith::MaximumFOp::create(b, loc, old, v);
  case K::maxnumf:
    return arith::MaxNumFOp::create(b, loc, old, v);
  case K::maxs:
    return arith::MaxSIOp::create(b, loc, old, v);
  case K::maxu:
    return arith::MaxUIOp::create(b, loc, old, v);
  case K::minimumf:
    return arith::MinimumFOp::create(b, loc, old, v);
  case K::minnumf:
    return arith::MinNumFOp::create(b, loc, old, v);
  case K::mins:
    return arith::MinSIOp::create(b, loc, old, v);
  case K::minu:
    return arith::MinUIOp::create(b, loc, old, v);
  case K::mulf:
    return arith::MulFOp::create(b, loc, old, v);
  case K::muli:
    return arith::MulIOp::create(b, loc, old, v);
  case K::ori:
    return arith::OrIOp::create(b, loc, old, v);
  case K::xori:
    return arith::XOrIOp::create(b, loc, old, v);
  }
  llvm_unreachable("unknown atomic kind");
}

static void demote(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value old;
  if (auto a = dyn_cast<tc::AtomicRMWOp>(op)) {
    old = tc::LoadOp::create(b, loc, a.getType(), a.getFieldAttr(),
                             a.getIndices(), a.getCompAttr());
    tc::StoreOp::create(b, loc, combine(b, loc, a.getKind(), old, a.getValue()),
                        a.getFieldAttr(), a.getIndices(), a.getCompAttr());
  } else if (auto a = dyn_cast<tc::NDArrayAtomicRMWOp>(op)) {
    old = tc::NDArrayLoadOp::create(b, loc, a.getType(), a.getArray(),
                                    a.getIndices());
    tc::NDArrayStoreOp::create(b, loc,
                               combine(b, loc, a.getKind(), old, a.getValue()),
                               a.getArray(), a.getIndices());
  } else {
    auto m = cast<memref::AtomicRMWOp>(op);
    old = memref::LoadOp::create(b, loc, m.getMemref(), m.getIndices());
    memref::StoreOp::create(b, loc,
                            combine(b, loc, m.getKind(), old, m.getValue()),
                            m.getMemref(), m.getIndices());
  }
  op->getResult(0).replaceAllUsesWith(old);
  op->erase();
}

static bool isAtomic(Operation *op) {
  return isa<tc::AtomicRMWOp, tc::NDArrayAtomicRMWOp, memref::AtomicRMWOp>(op);
}

/// A value captured by `loop` that tic-privatize-reductions privatizes:
/// inside the loop, only the memref of atomics of one kind whose results are
/// unused (what CodeGen emits for kernel-scope reductions).
static bool isCapturedReduction(Value memref, Operation *loop) {
  std::optional<arith::AtomicRMWKind> kind;
  for (OpOperand &use : memref.getUses()) {
    if (!loop->isProperAncestor(use.getOwner()))
      continue;
    auto rmw = dyn_cast<memref::AtomicRMWOp>(use.getOwner());
    if (!rmw || use.get() != rmw.getMemref() || !rmw.getResult().use_empty() ||
        (kind && *kind != rmw.getKind()))
      return false;
    kind = rmw.getKind();
  }
  return true;
}

/// The field and ndarray accesses of one parallel loop, by storage.
struct LoopAccesses {
  llvm::StringMap<SmallVector<Operation *>> fields;
  SmallVector<Operation *> ndarrays;
  /// The loop holds memory operations this pass does not understand
  /// (already lowered field accesses, calls): nothing is demoted in it.
  bool opaque = false;
};

static ValueRange indicesOf(Operation *op) {
  return TypeSwitch<Operation *, ValueRange>(op)
      .Case<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp, tc::NDArrayLoadOp,
            tc::NDArrayStoreOp, tc::NDArrayAtomicRMWOp>(
          [](auto o) { return o.getIndices(); })
      .Default([](Operation *) { return ValueRange(); });
}

static Value ndarrayOf(Operation *op) {
  return TypeSwitch<Operation *, Value>(op)
      .Case<tc::NDArrayLoadOp, tc::NDArrayStoreOp, tc::NDArrayAtomicRMWOp>(
          [](auto o) { return o.getArray(); })
      .Default([](Operation *) { return Value(); });
}

static LoopAccesses collectAccesses(Operation *loop) {
  LoopAccesses acc;
  loop->walk([&](Operation *op) {
    if (op == loop)
      return;
    if (auto l = dyn_cast<tc::LoadOp>(op))
      acc.fields[l.getField()].push_back(op);
    else if (auto s = dyn_cast<tc::StoreOp>(op))
      acc.fields[s.getField()].push_back(op);
    else if (auto a = dyn_cast<tc::AtomicRMWOp>(op))
      acc.fields[a.getField()].push_back(op);
    else if (ndarrayOf(op))
      acc.ndarrays.push_back(op);
    else if (Dialect *d = op->getDialect();
             !d || isa<snode::SNodeDialect>(d) ||
             (!isa<tc::TCDialect, memref::MemRefDialect>(d) &&
              !isMemoryEffectFree(op) &&
              !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()))
      acc.opaque = true;
  });
  return acc;
}

/// Whether the element `op` (a field or ndarray atomic in `loop`) is owned
/// by the iteration.
static bool ownedByIteration(Operation *op, const LoopAnalysis &la,
                             const LoopAccesses &acc,
                             const snode::SNodeLayout &layout) {
  if (acc.opaque)
    return false;
  auto keys = la.ownershipKeys(indicesOf(op));
  if (!keys)
    return false;
  if (auto a = dyn_cast<tc::AtomicRMWOp>(op)) {
    const snode::PlaceLayout *pl = layout.lookupPlace(a.getField());
    // Only dense paths: distinct in-range indices are distinct bytes.
    if (!pl || !pl->supported)
      return false;
    return llvm::all_of(acc.fields.lookup(a.getField()), [&](Operation *o) {
      return la.hasKeys(indicesOf(o), *keys);
    });
  }
  // ndarrays: two parameters may be the same host buffer, so every access
  // to an ndarray of the same element type must be this one with the keys.
  Value array = ndarrayOf(op);
  Type elem = cast<tc::NDArrayType>(array.getType()).getElementType();
  return llvm::all_of(acc.ndarrays, [&](Operation *o) {
    Value other = ndarrayOf(o);
    if (cast<tc::NDArrayType>(other.getType()).getElementType() != elem)
      return true;
    return other == array && la.hasKeys(indicesOf(o), *keys);
  });
}

struct DemoteAtomicsPass : tic::impl::DemoteAtomicsBase<DemoteAtomicsPass> {
  using DemoteAtomicsBase::DemoteAtomicsBase;

  /// Whether `op` (a tc.atomic_rmw) updates a field its innermost struct-for
  /// hints block_local.
  static bool isBlockLocal(Operation *op) {
    auto rmw = dyn_cast<tc::AtomicRMWOp>(op);
    auto sf = op->getParentOfType<tc::StructForOp>();
    if (!rmw || !sf || !sf.getBlockLocalAttr())
      return false;
    return llvm::is_contained(sf.getBlockLocalAttr().getValue(),
                              rmw.getFieldAttr());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    SmallVector<Operation *> toDemote;
    for (tc::KernelOp kernel : module.getOps<tc::KernelOp>()) {
      // Top level: one thread.
      kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isParallelLoop(op))
          return WalkResult::skip();
        if (isAtomic(op))
          toDemote.push_back(op);
        return WalkResult::advance();
      });
      SmallVector<Operation *> loops;
      kernel.walk([&](Operation *op) {
        if (isParallelLoop(op))
          loops.push_back(op);
      });
      for (Operation *loop : loops) {
        LoopAnalysis la(loop);
        LoopAccesses acc = collectAccesses(loop);
        bool serial = isSerialized(loop);
        loop->walk([&](Operation *op) {
          if (!isAtomic(op))
            return;
          bool demotable;
          if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op)) {
            // A local allocated in the iteration is private to it.
            Value m = rmw.getMemref();
            bool priv = m.getDefiningOp<memref::AllocaOp>() &&
                        loop->isAncestor(m.getParentRegion()->getParentOp());
            demotable = priv || (serial && !isCapturedReduction(m, loop));
          } else {
            // Adds into a block_local field stay for tic-block-local,
            // which accumulates them per block (in shared memory on a GPU).
            demotable = (serial || ownedByIteration(op, la, acc, layout)) &&
                        !(blockLocal && isBlockLocal(op));
          }
          if (demotable)
            toDemote.push_back(op);
        });
      }
    }
    for (Operation *op : toDemote)
      demote(op);
  }
};
} // namespace

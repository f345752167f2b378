//===- HostFieldAccess.cpp - tic-host-field-access ------------------------===//
//
// With --target=cuda the root buffer of a context on a GPU is device
// memory, which the code of a kernel that runs on the host (what is outside
// its parallel loops, and the C interface's get/set kernels) cannot
// dereference. This pass finds the memory operations of that code whose
// address derives from snode.root_ptr and routes them through a host
// temporary and tc.field_copy (lowered to tic_rt_field_read/write: a copy
// from or to the device after the launches in flight, or a memcpy on a CPU
// context). Host code is a single thread and runs between launches, so an
// atomic can run on the temporary between the two copies. A memset becomes
// tc.field_fill (tic_rt_field_fill). The snode.pool_view of host code (the
// bound of a struct-for over a hash node's entries) reads one copy of its
// pool's state. A launch's `limit` is left alone: it runs on a CPU context
// only (convert-tc-to-llvm), where the root buffer is host memory.
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/Passes.h"
#include "tic/Conversion/PoolLowering.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/RuntimeABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace tic {
#define GEN_PASS_DEF_HOSTFIELDACCESS
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// Bytes of a value of LLVM-compatible type `t` in memory.
int64_t storeSize(Operation *op, Type t) {
  DataLayout dl = DataLayout::closest(op);
  return int64_t(dl.getTypeSize(t).getFixedValue());
}

/// Whether `op` is in the `limit` of a tc.launch: code that runs on a CPU
/// context only (a GPU's launch ignores it), where the root buffer is host
/// memory.
bool inLaunchLimit(Operation *op) {
  return op->getParentOfType<tc::LaunchOp>() != nullptr;
}

struct HostFieldAccessPass
    : tic::impl::HostFieldAccessBase<HostFieldAccessPass> {
  using Base::Base;

  /// The addresses derived from the kernel's root pointers, and the memory
  /// operations on them; false after an error on an unsupported use.
  bool collect(tc::KernelOp kernel, llvm::SetVector<Operation *> &accesses) {
    SmallVector<Value> work;
    llvm::SmallPtrSet<Value, 32> seen;
    auto track = [&](Value v) {
      if (seen.insert(v).second)
        work.push_back(v);
    };
    kernel.walk([&](snode::RootPtrOp r) { track(r.getResult()); });
    bool ok = true;
    while (!work.empty() && ok) {
      Value v = work.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        unsigned n = use.getOperandNumber();
        if (inLaunchLimit(user))
          continue;
        if (isa<UnrealizedConversionCastOp, LLVM::GEPOp>(user) && n == 0) {
          for (Value r : user->getResults())
            track(r);
        } else if (isa<LLVM::SelectOp, arith::SelectOp>(user) && n > 0) {
          track(user->getResult(0));
        } else if (isa<scf::YieldOp>(user)) {
          Operation *parent = user->getParentOp();
          if (isa<scf::IfOp, scf::ForOp>(parent))
            track(parent->getResult(n));
          if (auto f = dyn_cast<scf::ForOp>(parent))
            track(f.getRegionIterArgs()[n]);
          if (!isa<scf::IfOp, scf::ForOp>(parent))
            ok = false;
        } else if (auto f = dyn_cast<scf::ForOp>(user)) {
          if (n < 3) {
            ok = false;
          } else {
            track(f.getRegionIterArgs()[n - 3]);
            track(f.getResult(n - 3));
          }
        } else if (isa<LLVM::MemsetOp>(user) && n == 0) {
          accesses.insert(user);
        } else if (auto load = dyn_cast<LLVM::LoadOp>(user);
                   load && isa<LLVM::LLVMPointerType>(load.getType())) {
          // A pointer stored in field memory (a pointer SNode's cell)
          // would be a device address too: not routed yet.
          ok = false;
        } else if (isa<LLVM::LoadOp>(user) ||
                   (isa<LLVM::StoreOp>(user) && n == 1) ||
                   (isa<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>(user) &&
                    n == 0)) {
          accesses.insert(user);
        } else if (isa<tc::LaunchOp, tc::FieldCopyOp, tc::FieldFillOp>(user) ||
                   isa_and_nonnull<snode::SNodeDialect>(user->getDialect())) {
          // A launch passes the device address on; snode ops (still to be
          // lowered) keep it an address; copies are routed already.
        } else {
          ok = false;
        }
        if (!ok)
          user->emitError("'")
              << user->getName()
              << "' on a field address in host code (outside parallel "
                 "loops) is not supported with --target=cuda yet";
      }
    }
    return ok;
  }

  /// Replaces each snode.pool_view of `kernel` (host code) by one copy of
  /// its pool's state from the root buffer to a host temporary, and the
  /// lowering's loads from that. False after an error.
  bool expandPoolViews(tc::KernelOp kernel, const snode::SNodeLayout &layout) {
    SmallVector<snode::PoolViewOp> views;
    kernel.walk([&](snode::PoolViewOp v) {
      if (!inLaunchLimit(v))
        views.push_back(v);
    });
    MLIRContext *ctx = &getContext();
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    for (snode::PoolViewOp v : views) {
      const snode::NodeLayout *n = layout.lookupNode(v.getNode());
      if (!n || n->poolStateOffset < 0) {
        v.emitOpError("has no pool for SNode '") << v.getNode() << "'";
        return false;
      }
      Location loc = v.getLoc();
      OpBuilder b(ctx);
      b.setInsertionPointToStart(&kernel.getBody().front());
      Value words = LLVM::ConstantOp::create(
          b, loc, b.getI64Type(),
          b.getI64IntegerAttr(abi::kPoolStateBytes / 8));
      Value copy =
          LLVM::AllocaOp::create(b, loc, ptrTy, b.getI64Type(), words, 8);
      b.setInsertionPoint(v);
      Value root = snode::RootPtrOp::create(b, loc, snode::PtrType::get(ctx),
                                            n->tree->name);
      Value rootAddr =
          UnrealizedConversionCastOp::create(b, loc, ptrTy, root).getResult(0);
      Value state = pools::statePtr(b, loc, rootAddr, n->poolStateOffset);
      tc::FieldCopyOp::create(b, loc, copy, state,
                              b.getI64IntegerAttr(abi::kPoolStateBytes),
                              UnitAttr());
      auto [base, count] = pools::view(b, loc, copy);
      v.replaceAllUsesWith(ValueRange{base, count});
      v.erase();
    }
    return true;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    snode::SNodeLayout layout(module);
    for (auto kernel : module.getOps<tc::KernelOp>()) {
      if (!expandPoolViews(kernel, layout))
        return signalPassFailure();
      llvm::SetVector<Operation *> accesses;
      if (!collect(kernel, accesses))
        return signalPassFailure();
      if (accesses.empty())
        continue;
      Block &entry = kernel.getBody().front();
      auto temp = [&](OpBuilder &b, Location loc, Type t) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&entry);
        Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                             b.getI64IntegerAttr(1));
        return LLVM::AllocaOp::create(b, loc, ptrTy, t, one).getResult();
      };
      for (Operation *op : accesses) {
        OpBuilder b(op);
        Location loc = op->getLoc();
        auto copy = [&](Value dst, Value src, Type t, bool toField) {
          tc::FieldCopyOp::create(b, loc, dst, src,
                                  b.getI64IntegerAttr(storeSize(op, t)),
                                  toField ? b.getUnitAttr() : UnitAttr());
        };
        if (auto set = dyn_cast<LLVM::MemsetOp>(op)) {
          tc::FieldFillOp::create(b, loc, set.getDst(), set.getVal(),
                                  set.getLen());
          set.erase();
        } else if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
          Value tmp = temp(b, loc, load.getType());
          copy(tmp, load.getAddr(), load.getType(), false);
          load.getAddrMutable().assign(tmp);
        } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
          Type t = store.getValue().getType();
          Value field = store.getAddr();
          Value tmp = temp(b, loc, t);
          store.getAddrMutable().assign(tmp);
          b.setInsertionPointAfter(store);
          copy(field, tmp, t, true);
        } else {
          // atomicrmw / cmpxchg: read, the same operation on the temporary,
          // write back.
          Type t = isa<LLVM::AtomicRMWOp>(op)
                       ? cast<LLVM::AtomicRMWOp>(op).getVal().getType()
                       : cast<LLVM::AtomicCmpXchgOp>(op).getVal().getType();
          Value field = op->getOperand(0);
          Value tmp = temp(b, loc, t);
          copy(tmp, field, t, false);
          op->setOperand(0, tmp);
          b.setInsertionPointAfter(op);
          copy(field, tmp, t, true);
        }
      }
    }
  }
};

} // namespace

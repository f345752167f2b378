//===- OffloadHostLoops.cpp - tic-offload-host-loops ----------------------===//
//
// --target=cuda: kernel code outside parallel loops runs on the host, and
// tic-host-field-access turns each of its field accesses into a copy to or
// from the device, which waits for the launches in flight. A serial loop
// over a field in host code would wait once per iteration. Such a loop
// runs whole as a serialized one-iteration parallel loop instead: one GPU
// thread on a device context (one iteration on the CPU's), its results
// passed out through kernel-scope variables:
//
//   %r = scf.for ... iter_args(%a = %x) {      %slot = memref.alloca()
//     %v = tc.load @f[%k]                =>    tc.parallel_for (%t) = (0) to
//     (1)
//     ...                                          serialize {
//   }                                            %w = scf.for ... { ... }
//                                                memref.store %w, %slot[]
//                                              }
//                                              %r = memref.load %slot[]
//
//===----------------------------------------------------------------------===//
#include "SerialUnit.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_OFFLOADHOSTLOOPS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// Ops that touch field memory or the SNode structure.
bool touchesFields(Operation *op) {
  return isa<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp, tc::IsActiveOp,
             tc::ActivateOp, tc::DeactivateOp, tc::AppendOp, tc::LengthOp>(op);
}

/// Ops that run the same in one GPU thread as on the host: arithmetic,
/// structured control flow, kernel-scope variables, field and ndarray
/// accesses, cell operations and checks. Not print (its lines would come
/// at the next wait, out of order with the host's), random() (another
/// stream), the thread count or index, nor anything with regions of its
/// own but scf's.
bool runsOnDevice(Operation *op) {
  Dialect *d = op->getDialect();
  if (isa_and_nonnull<arith::ArithDialect, math::MathDialect, ub::UBDialect>(d))
    return op->getNumRegions() == 0;
  if (isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::YieldOp, scf::ConditionOp>(
          op))
    return true;
  if (isa<memref::LoadOp, memref::StoreOp, memref::AllocaOp,
          memref::AtomicRMWOp>(op))
    return true;
  return touchesFields(op) ||
         isa<tc::NDArrayLoadOp, tc::NDArrayStoreOp, tc::NDArrayAtomicRMWOp,
             tc::NDArrayDimOp, tc::AssertOp, tc::BoundsCheckOp,
             tc::AssumeInRangeOp>(op);
}

/// Whether `loop` is to run on the device: it touches a field, and all of
/// it runs there.
bool offloadable(Operation *loop) {
  bool fields = false, ok = true;
  loop->walk([&](Operation *op) {
    if (!runsOnDevice(op)) {
      ok = false;
      return WalkResult::interrupt();
    }
    fields |= touchesFields(op);
    return WalkResult::advance();
  });
  return ok && fields;
}

/// The outermost offloadable loops of host code in `region`: a loop that
/// is not (it prints, say) is searched for inner ones.
void collect(Region &region, SmallVectorImpl<Operation *> &loops) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (isa<tc::ParallelForOp, tc::StructForOp>(op))
        continue; // device code already, or lowered to it
      if (isa<scf::ForOp, scf::WhileOp>(op) && offloadable(&op)) {
        loops.push_back(&op);
        continue;
      }
      for (Region &inner : op.getRegions())
        collect(inner, loops);
    }
}

struct OffloadHostLoopsPass
    : tic::impl::OffloadHostLoopsBase<OffloadHostLoopsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> loops;
    getOperation().walk(
        [&](tc::KernelOp kernel) { collect(kernel.getBody(), loops); });
    for (Operation *loop : loops)
      moveIntoSerialUnit(loop);
  }
};

} // namespace

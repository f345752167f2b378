//===- LowerStructFor.cpp - tic-lower-struct-for --------------------------===//
//
// tc.struct_for over a dense path -> tc.parallel_for over its index space.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_LOWERSTRUCTFOR
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {
struct LowerStructForPass : tic::impl::LowerStructForBase<LowerStructForPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    SmallVector<tc::StructForOp> loops;
    module.walk([&](tc::StructForOp op) { loops.push_back(op); });
    for (tc::StructForOp sf : loops) {
      SmallVector<int64_t> shape;
      bool supported = true;
      StringRef unsupportedKind;
      if (const auto *pl = layout.lookupPlace(sf.getTarget())) {
        shape.assign(pl->shape.begin(), pl->shape.end());
        supported = pl->supported;
        for (const auto &lv : pl->levels)
          if (lv.node->kind != snode::SNodeKind::Dense) {
            unsupportedKind = snode::stringifySNodeKind(lv.node->kind);
            break;
          }
      } else if (const auto *nl = layout.lookupNode(sf.getTarget())) {
        // A container's own cell indices, as in Taichi and the spec: the
        // indices is_active / deactivate take for it.
        shape.assign(nl->cellIndexShape.begin(), nl->cellIndexShape.end());
        supported = nl->supported;
        for (const auto *n = nl; n; n = n->parent)
          if (n->kind != snode::SNodeKind::Dense)
            unsupportedKind = snode::stringifySNodeKind(n->kind);
      } else {
        sf.emitOpError("references unknown field or SNode '")
            << sf.getTarget() << "'";
        return signalPassFailure();
      }
      if (!supported) {
        sf.emitOpError("struct-for over a path with a '")
            << unsupportedKind << "' SNode is not supported yet";
        return signalPassFailure();
      }
      if (shape.size() != sf.getInductionVars().size()) {
        sf.emitOpError("induction variables do not match the index space");
        return signalPassFailure();
      }
      OpBuilder b(sf);
      Location loc = sf.getLoc();
      Type i32 = b.getI32Type();
      SmallVector<Value> lbs, ubs;
      Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
      for (int64_t s : shape) {
        lbs.push_back(zero);
        ubs.push_back(arith::ConstantIntOp::create(b, loc, i32, s));
      }
      auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
      pf.getBody().takeBody(sf.getBody());
      if (sf.getSerialize()) pf.setSerialize(true);
      if (auto v = sf.getParallelizeAttr()) pf.setParallelizeAttr(v);
      if (auto v = sf.getBlockDimAttr()) pf.setBlockDimAttr(v);
      if (auto v = sf.getGrainAttr())
        pf.setGrainAttr(v);
      sf.erase();
    }
  }
};
} // namespace

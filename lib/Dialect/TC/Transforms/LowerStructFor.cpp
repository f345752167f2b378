//===- LowerStructFor.cpp - tic-lower-struct-for --------------------------===//
//
// tc.struct_for -> tc.parallel_for over the index space of its target. On
// a path with nodes that can be inactive, the body runs under
// `tc.is_active` of the deepest such node's cell (an inactive ancestor makes
// it inactive too), so the loop visits the active cells only.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_LOWERSTRUCTFOR
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// Runs the body of `pf` (over index space `shape`) only where the cell of
/// `node` holding the iteration is active: its cell indices are the
/// iteration's divided by the extents below it (node.cellIndexShape is a
/// divisor of `shape` on every axis of its path).
void guardActive(tc::ParallelForOp pf, const snode::NodeLayout &node,
                 ArrayRef<int64_t> shape) {
  Block &body = pf.getBody().front();
  Location loc = pf.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  SmallVector<Value> cell;
  for (auto [a, extent] : llvm::enumerate(node.cellIndexShape)) {
    Value i = body.getArgument(a);
    int64_t ratio = shape[a] / extent;
    if (ratio != 1)
      i = arith::DivUIOp::create(
          b, loc, i, arith::ConstantIntOp::create(b, loc, i.getType(), ratio));
    cell.push_back(i);
  }
  Value active = tc::IsActiveOp::create(b, loc, b.getI1Type(), node.name, cell);
  auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
  // Everything after the guard (the old body, without its terminator)
  // moves into the `then` block.
  Block *thenBlock = ifOp.thenBlock();
  thenBlock->getOperations().splice(thenBlock->begin(), body.getOperations(),
                                    std::next(Block::iterator(ifOp)),
                                    std::prev(body.end()));
}

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
      ArrayRef<snode::LevelAccess> levels;
      if (const auto *pl = layout.lookupPlace(sf.getTarget())) {
        shape.assign(pl->shape.begin(), pl->shape.end());
        supported = pl->supported;
        levels = pl->levels;
      } else if (const auto *nl = layout.lookupNode(sf.getTarget())) {
        // A container's own cell indices, as in Taichi and the spec: the
        // indices is_active / deactivate take for it.
        shape.assign(nl->cellIndexShape.begin(), nl->cellIndexShape.end());
        supported = nl->supported;
        levels = nl->levels;
      } else {
        sf.emitOpError("references unknown field or SNode '")
            << sf.getTarget() << "'";
        return signalPassFailure();
      }
      // The deepest node on the path that can be inactive.
      const snode::LevelAccess *sparse = nullptr;
      for (const snode::LevelAccess &lv : levels) {
        if (!snode::isLowerableKind(lv.node->kind) && unsupportedKind.empty())
          unsupportedKind = snode::stringifySNodeKind(lv.node->kind);
        if (!snode::isAlwaysActive(lv.node->kind))
          sparse = &lv;
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
      if (sparse)
        guardActive(pf, *sparse->node, shape);
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

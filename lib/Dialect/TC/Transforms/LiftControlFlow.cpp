//===- LiftControlFlow.cpp - tic-lift-control-flow ------------------------===//
//
// The cf blocks code generation leaves in a kernel (statements that a break,
// continue or return leaves; see docs/codegen.md) -> scf, with MLIR's
// transformCFGToSCF. Regions are lifted innermost first: an
// scf.execute_region, then the parallel loop or kernel around it.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Conversion/ControlFlowToSCF/ControlFlowToSCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tic {
#define GEN_PASS_DEF_LIFTCONTROLFLOW
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// upstream's cf -> scf transformation, with the terminators of our regions
/// where a lifted loop never exits.
struct TCControlFlowToSCF : ControlFlowToSCFTransformation {
  FailureOr<Operation *> createUnreachableTerminator(Location loc,
                                                     OpBuilder &builder,
                                                     Region &region) override {
    Operation *parent = region.getParentOp();
    auto poison = [&](TypeRange types) {
      SmallVector<Value> vals;
      for (Type t : types)
        vals.push_back(ub::PoisonOp::create(builder, loc, t));
      return vals;
    };
    if (auto k = dyn_cast<tc::KernelOp>(parent))
      return tc::ReturnOp::create(builder, loc,
                                  poison(k.getFunctionType().getResults()))
          .getOperation();
    if (isa<tc::ParallelForOp, tc::StructForOp>(parent))
      return tc::YieldOp::create(builder, loc).getOperation();
    if (auto er = dyn_cast<scf::ExecuteRegionOp>(parent))
      return scf::YieldOp::create(builder, loc, poison(er.getResultTypes()))
          .getOperation();
    return failure();
  }
};

struct LiftControlFlowPass
    : tic::impl::LiftControlFlowBase<LiftControlFlowPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Innermost first (post-order), every region that holds blocks.
    SmallVector<Region *> regions;
    module.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (!isa<tc::KernelOp, tc::ParallelForOp, tc::StructForOp,
               scf::ExecuteRegionOp>(op))
        return;
      for (Region &r : op->getRegions())
        if (!r.empty() && !r.hasOneBlock())
          regions.push_back(&r);
    });
    TCControlFlowToSCF transformation;
    for (Region *region : regions) {
      DominanceInfo dominance(region->getParentOp());
      if (failed(transformCFGToSCF(*region, transformation, dominance))) {
        region->getParentOp()->emitError(
            "cannot lift this control flow to scf");
        return signalPassFailure();
      }
    }
    // Execute regions that hold one block now are inlined; nothing else is
    // touched (no folding, constants stay where they are).
    SmallVector<Operation *> executeRegions;
    module.walk([&](scf::ExecuteRegionOp op) { executeRegions.push_back(op); });
    if (executeRegions.empty())
      return;
    RewritePatternSet patterns(&getContext());
    scf::ExecuteRegionOp::getCanonicalizationPatterns(patterns, &getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    (void)applyOpPatternsGreedily(executeRegions, std::move(patterns), config);
  }
};

} // namespace

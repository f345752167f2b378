//===- RuntimeServices.cpp - tc runtime services through a TargetInfo -----===//
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tic;

TargetInfo::~TargetInfo() = default;

LogicalResult tic::lowerRuntimeServices(Operation *fn, const TargetInfo &target,
                                        const FunctionEnv &env,
                                        const snode::SNodeLayout &layout) {
  SmallVector<Operation *> ops;
  fn->walk([&](Operation *op) {
    if (isa<tc::RandomOp, tc::PrintOp, tc::AssertOp, tc::BoundsCheckOp,
            snode::RootPtrOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto r = dyn_cast<tc::RandomOp>(op)) {
      r.replaceAllUsesWith(target.random(b, loc, r.getType(), env));
    } else if (auto p = dyn_cast<tc::PrintOp>(op)) {
      // C's default argument promotions (the formats are printf's).
      SmallVector<Value> args;
      for (Value v : p.getArgs()) {
        Type t = v.getType();
        if (isa<FloatType>(t) && !t.isF64())
          v = arith::ExtFOp::create(b, loc, b.getF64Type(), v);
        else if (t.isInteger(1))
          v = arith::ExtUIOp::create(b, loc, b.getI32Type(), v);
        else if (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() < 32)
          v = arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
        args.push_back(v);
      }
      target.print(b, loc, p.getFormat(), args, env);
    } else if (auto a = dyn_cast<tc::AssertOp>(op)) {
      target.assertTrue(b, loc, a.getCond(), a.getMessage(), env);
    } else if (auto bc = dyn_cast<tc::BoundsCheckOp>(op)) {
      target.checkIndex(b, loc, bc.getIndex(), bc.getExtent(), bc.getField(),
                        bc.getAxis(), env);
    } else if (auto rp = dyn_cast<snode::RootPtrOp>(op)) {
      const snode::TreeLayout *tl = layout.lookupTree(rp.getTree());
      if (!tl)
        return rp.emitOpError("unknown tree");
      Value root = target.getRootBuffer(b, loc, env);
      if (tl->offset != 0) {
        Value off =
            arith::ConstantIntOp::create(b, loc, b.getI64Type(), tl->offset);
        root = LLVM::GEPOp::create(b, loc, root.getType(), b.getI8Type(), root,
                                   ValueRange{off},
                                   LLVM::GEPNoWrapFlags::inbounds);
      }
      rp.replaceAllUsesWith(
          UnrealizedConversionCastOp::create(b, loc, rp.getType(), root)
              .getResult(0));
    }
    op->erase();
  }
  return success();
}

//===- NDArrayLowering.cpp - tc.ndarray_* ops -> LLVM ---------------------===//
#include "tic/Conversion/NDArrayLowering.h"
#include "tic/Conversion/LLVMUtils.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tic;

LogicalResult tic::lowerNDArrayOps(Operation *fn,
                                   DenseMap<Value, NDArrayInfo> &nd) {
  Type ptrTy = LLVM::LLVMPointerType::get(fn->getContext());
  SmallVector<Operation *> ops;
  fn->walk([&](Operation *op) {
    if (isa<tc::NDArrayLoadOp, tc::NDArrayStoreOp, tc::NDArrayAtomicRMWOp,
            tc::NDArrayDimOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value arr =
        op->getOperand(isa<tc::NDArrayLoadOp, tc::NDArrayDimOp>(op) ? 0 : 1);
    auto it = nd.find(arr);
    if (it == nd.end())
      return op->emitOpError(
          "ndarray is not a kernel parameter or task capture");
    NDArrayInfo &info = it->second;
    if (auto dim = dyn_cast<tc::NDArrayDimOp>(op)) {
      Value v = arith::TruncIOp::create(b, loc, b.getI32Type(),
                                        info.shape[dim.getAxis()]);
      dim.replaceAllUsesWith(v);
      op->erase();
      continue;
    }
    ValueRange indices =
        op->getOperands().drop_front(isa<tc::NDArrayLoadOp>(op) ? 1 : 2);
    Value lin;
    for (auto [d, idx] : llvm::enumerate(indices)) {
      Value i = arith::ExtSIOp::create(b, loc, b.getI64Type(), idx);
      lin = d == 0 ? i
                   : Value(arith::AddIOp::create(
                         b, loc,
                         arith::MulIOp::create(b, loc, lin, info.shape[d]), i));
    }
    Value addr =
        LLVM::GEPOp::create(b, loc, ptrTy, info.elementType, info.data,
                            ValueRange{lin}, LLVM::GEPNoWrapFlags::inbounds);
    unsigned align = snode::getComponentSize(info.elementType);
    if (auto ld = dyn_cast<tc::NDArrayLoadOp>(op)) {
      ld.replaceAllUsesWith(
          LLVM::LoadOp::create(b, loc, info.elementType, addr, align)
              .getResult());
    } else if (auto st = dyn_cast<tc::NDArrayStoreOp>(op)) {
      LLVM::StoreOp::create(b, loc, st.getValue(), addr, align);
    } else if (auto rmw = dyn_cast<tc::NDArrayAtomicRMWOp>(op)) {
      Value old = LLVM::AtomicRMWOp::create(
          b, loc, toLLVMAtomicBinOp(rmw.getKind(), info.elementType), addr,
          rmw.getValue(), LLVM::AtomicOrdering::monotonic);
      rmw.replaceAllUsesWith(old);
    }
    op->erase();
  }
  return success();
}

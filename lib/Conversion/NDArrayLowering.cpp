//===- NDArrayLowering.cpp - tc.ndarray_* ops -> LLVM ---------------------===//
//
// Element accesses on an ndarray descriptor (createNDArrayDescriptor): the
// same on every target.
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/LLVMUtils.h"
#include "tic/Conversion/TCToLLVM.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tic;

Value tic::createNDArrayDescriptor(OpBuilder &b, Location loc,
                                   tc::NDArrayType type, Value data,
                                   ValueRange extents) {
  SmallVector<Value> parts{data};
  parts.append(extents.begin(), extents.end());
  return UnrealizedConversionCastOp::create(b, loc, type, parts).getResult(0);
}

std::optional<NDArrayParts> tic::getNDArrayParts(Value ndarray) {
  auto t = dyn_cast<tc::NDArrayType>(ndarray.getType());
  auto cast = ndarray.getDefiningOp<UnrealizedConversionCastOp>();
  if (!t || !cast || cast.getInputs().size() != 1 + t.getRank())
    return std::nullopt;
  return NDArrayParts{cast.getInputs()[0], cast.getInputs().drop_front()};
}

namespace {

/// One access: the ndarray operand must be a descriptor.
template <typename Op> struct NDArrayPattern : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<Op>::OpAdaptor;

  virtual void lower(Op op, OpAdaptor adaptor, tc::NDArrayType type,
                     const NDArrayParts &nd,
                     ConversionPatternRewriter &rewriter) const = 0;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    std::optional<NDArrayParts> nd = getNDArrayParts(adaptor.getArray());
    if (!nd)
      return op.emitOpError(
          "ndarray is not a kernel parameter or task capture");
    lower(op, adaptor, cast<tc::NDArrayType>(op.getArray().getType()), *nd,
          rewriter);
    return success();
  }
};

/// The address of element `indices` (row-major, i64 arithmetic).
Value elementAddress(OpBuilder &b, Location loc, tc::NDArrayType type,
                     const NDArrayParts &nd, ValueRange indices) {
  Value lin;
  for (auto [d, idx] : llvm::enumerate(indices)) {
    Value i = arith::ExtSIOp::create(b, loc, b.getI64Type(), idx);
    lin = d == 0 ? i
                 : Value(arith::AddIOp::create(
                       b, loc,
                       arith::MulIOp::create(b, loc, lin, nd.extents[d]), i));
  }
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                             type.getElementType(), nd.data, ValueRange{lin},
                             LLVM::GEPNoWrapFlags::inbounds);
}

unsigned elementAlign(tc::NDArrayType type) {
  return snode::getComponentSize(type.getElementType());
}

struct NDArrayLoadLowering : NDArrayPattern<tc::NDArrayLoadOp> {
  using NDArrayPattern::NDArrayPattern;
  void lower(tc::NDArrayLoadOp op, OpAdaptor adaptor, tc::NDArrayType type,
             const NDArrayParts &nd,
             ConversionPatternRewriter &rewriter) const override {
    Value addr =
        elementAddress(rewriter, op.getLoc(), type, nd, adaptor.getIndices());
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, type.getElementType(), addr,
                                              elementAlign(type));
  }
};

struct NDArrayStoreLowering : NDArrayPattern<tc::NDArrayStoreOp> {
  using NDArrayPattern::NDArrayPattern;
  void lower(tc::NDArrayStoreOp op, OpAdaptor adaptor, tc::NDArrayType type,
             const NDArrayParts &nd,
             ConversionPatternRewriter &rewriter) const override {
    Value addr =
        elementAddress(rewriter, op.getLoc(), type, nd, adaptor.getIndices());
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, adaptor.getValue(), addr,
                                               elementAlign(type));
  }
};

struct NDArrayAtomicRMWLowering : NDArrayPattern<tc::NDArrayAtomicRMWOp> {
  using NDArrayPattern::NDArrayPattern;
  void lower(tc::NDArrayAtomicRMWOp op, OpAdaptor adaptor, tc::NDArrayType type,
             const NDArrayParts &nd,
             ConversionPatternRewriter &rewriter) const override {
    Value addr =
        elementAddress(rewriter, op.getLoc(), type, nd, adaptor.getIndices());
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
        op, toLLVMAtomicBinOp(op.getKind(), type.getElementType()), addr,
        adaptor.getValue(), LLVM::AtomicOrdering::monotonic);
  }
};

struct NDArrayDimLowering : NDArrayPattern<tc::NDArrayDimOp> {
  using NDArrayPattern::NDArrayPattern;
  void lower(tc::NDArrayDimOp op, OpAdaptor, tc::NDArrayType,
             const NDArrayParts &nd,
             ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::TruncIOp>(op, rewriter.getI32Type(),
                                                 nd.extents[op.getAxis()]);
  }
};

} // namespace

void tic::populateTCNDArrayToLLVMPatterns(RewritePatternSet &patterns) {
  patterns.add<NDArrayLoadLowering, NDArrayStoreLowering,
               NDArrayAtomicRMWLowering, NDArrayDimLowering>(
      patterns.getContext());
}

//===- SNodeToLLVM.cpp - convert-snode-to-llvm ----------------------------===//
//
// snode micro-access ops -> pointer arithmetic using the SNodeLayout:
//   get_child  %cell, @n      -> gep i8 %cell[offset of @n in its parent cell]
//   lookup     %cont, @n[%l]  -> gep [cell_size x i8] %cont[sext %l]
//   place_ptr  %cell, @f[c]   -> gep i8 %cell[offset of component c]
//   index_extract / linearize -> arith.divui / remui / muli<nsw,nuw> /
//   addi<nsw,nuw>
// snode.root_ptr is lowered by convert-tc-to-llvm (it needs the context).
// The layout trees and buffers are erased at the end (the C entry points
// carry the root buffer's size in tic.root_size, set by the interface
// generator from the recorded layout).
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tic {
#define GEN_PASS_DEF_CONVERTSNODETOLLVM
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;
using namespace tic::snode;

namespace {

template <typename Op>
struct SNodePattern : OpConversionPattern<Op> {
  SNodePattern(const TypeConverter &tc, MLIRContext *ctx, const SNodeLayout &layout)
      : OpConversionPattern<Op>(tc, ctx), layout(layout) {}
  const SNodeLayout &layout;

  const NodeLayout *node(Op op, StringRef name,
                         ConversionPatternRewriter &rewriter) const {
    const NodeLayout *n = layout.lookupNode(name);
    if (!n) {
      (void)rewriter.notifyMatchFailure(op, "unknown SNode");
      return nullptr;
    }
    if (!n->supported) {
      (void)rewriter.notifyMatchFailure(op, "unsupported SNode kind");
      return nullptr;
    }
    return n;
  }
};

static Value byteOffset(OpBuilder &b, Location loc, Value base, int64_t off) {
  if (off == 0) return base;
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value c = arith::ConstantIntOp::create(b, loc, b.getI64Type(), off);
  return LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), base, ValueRange{c},
                             LLVM::GEPNoWrapFlags::inbounds);
}

struct GetChildLowering : SNodePattern<GetChildOp> {
  using SNodePattern::SNodePattern;
  LogicalResult matchAndRewrite(GetChildOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getChild(), rewriter);
    if (!n) return failure();
    rewriter.replaceOp(op, byteOffset(rewriter, op.getLoc(), adaptor.getCell(),
                                      n->offsetInParent));
    return success();
  }
};

struct LookupLowering : SNodePattern<LookupOp> {
  using SNodePattern::SNodePattern;
  LogicalResult matchAndRewrite(LookupOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n) return failure();
    Location loc = op.getLoc();
    Value lin = adaptor.getLinear();
    // Sign extension distributes over the `nsw` index arithmetic (the
    // value is non-negative in range, so zero extension would be equal).
    if (!lin.getType().isInteger(64))
      lin = arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), lin);
    Type cellTy = LLVM::LLVMArrayType::get(rewriter.getI8Type(), n->cellSize);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, LLVM::LLVMPointerType::get(op.getContext()), cellTy,
        adaptor.getContainer(), ValueRange{lin}, LLVM::GEPNoWrapFlags::inbounds);
    return success();
  }
};

struct PlacePtrLowering : SNodePattern<PlacePtrOp> {
  using SNodePattern::SNodePattern;
  LogicalResult matchAndRewrite(PlacePtrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const PlaceLayout *p = layout.lookupPlace(op.getField());
    if (!p) return rewriter.notifyMatchFailure(op, "unknown field");
    int64_t off = p->offsetInCell + p->componentOffsets[op.getComp()];
    rewriter.replaceOp(op, byteOffset(rewriter, op.getLoc(), adaptor.getCell(), off));
    return success();
  }
};

struct IndexExtractLowering : SNodePattern<IndexExtractOp> {
  using SNodePattern::SNodePattern;
  LogicalResult matchAndRewrite(IndexExtractOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n) return failure();
    Location loc = op.getLoc();
    Type t = op.getType();
    Value v = adaptor.getIndex();
    if (op.getBelow() != 1)
      v = arith::DivUIOp::create(rewriter, loc, v,
                                 arith::ConstantIntOp::create(rewriter, loc, t, op.getBelow()));
    for (auto [k, a] : llvm::enumerate(n->axes))
      if (a == int64_t(op.getAxis()) && n->needsMod[k])
        v = arith::RemUIOp::create(rewriter, loc, v,
                                   arith::ConstantIntOp::create(rewriter, loc, t, n->shape[k]));
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct LinearizeLowering : SNodePattern<LinearizeOp> {
  using SNodePattern::SNodePattern;
  LogicalResult matchAndRewrite(LinearizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n) return failure();
    Location loc = op.getLoc();
    Type t = op.getType();
    ValueRange idx = adaptor.getIndices();
    // In-range indices are non-negative and their linearization stays below
    // the node's cell count: the arithmetic neither wraps signed nor
    // unsigned (an out-of-range index is undefined behaviour by the spec).
    // The flags let LLVM's SCEV see accesses as affine in the loop indices.
    auto flags = arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
    Value lin = idx[0];
    for (size_t k = 1; k < idx.size(); ++k) {
      Value s = arith::ConstantIntOp::create(rewriter, loc, t, n->shape[k]);
      lin = arith::AddIOp::create(
          rewriter, loc, arith::MulIOp::create(rewriter, loc, lin, s, flags),
          idx[k], flags);
    }
    rewriter.replaceOp(op, lin);
    return success();
  }
};

struct ConvertSNodeToLLVMPass
    : tic::impl::ConvertSNodeToLLVMBase<ConvertSNodeToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();

    LLVMTypeConverter converter(ctx);
    converter.addConversion([ctx](PtrType) -> Type {
      return LLVM::LLVMPointerType::get(ctx);
    });

    // Sparse / quantized containers parse and verify, but have no lowering.
    bool unsupported = false;
    module.walk([&](Operation *op) {
      StringRef name;
      if (auto g = dyn_cast<GetChildOp>(op)) name = g.getChild();
      else if (auto l = dyn_cast<LookupOp>(op)) name = l.getNode();
      else if (auto e = dyn_cast<IndexExtractOp>(op)) name = e.getNode();
      else if (auto l = dyn_cast<LinearizeOp>(op)) name = l.getNode();
      else return;
      const NodeLayout *n = layout.lookupNode(name);
      if (n && !n->supported) {
        op->emitOpError("lowering of '") << stringifySNodeKind(n->kind)
            << "' SNodes (or dense SNodes below them) is not supported yet";
        unsupported = true;
      }
    });
    if (unsupported) return signalPassFailure();

    ConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect, arith::ArithDialect>();
    target.addIllegalOp<GetChildOp, LookupOp, PlacePtrOp, IndexExtractOp,
                        LinearizeOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

    RewritePatternSet patterns(ctx);
    patterns.add<GetChildLowering, LookupLowering, PlacePtrLowering,
                 IndexExtractLowering, LinearizeLowering>(converter, ctx, layout);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    bool rootLeft = false;
    module.walk([&](RootPtrOp op) {
      op.emitOpError("must be lowered by convert-tc-to-llvm (it needs the context)");
      rootLeft = true;
    });
    if (rootLeft) return signalPassFailure();
    for (TreeOp tree : llvm::make_early_inc_range(module.getOps<TreeOp>()))
      tree.erase();
    for (BufferOp buf : llvm::make_early_inc_range(module.getOps<BufferOp>()))
      buf.erase();
  }
};
} // namespace

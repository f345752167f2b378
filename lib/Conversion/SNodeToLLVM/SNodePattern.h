//===- SNodePattern.h - shared by the snode -> LLVM patterns ----*- C++ -*-===//
//
// Internal to lib/Conversion/SNodeToLLVM: the base of every snode pattern
// (the recorded layout and a node lookup) and the address arithmetic the
// generic patterns (SNodeToLLVM.cpp) and the per-kind ones (NodeKinds.cpp)
// share.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_LIB_CONVERSION_SNODETOLLVM_SNODEPATTERN_H
#define TIC_LIB_CONVERSION_SNODETOLLVM_SNODEPATTERN_H

#include "tic/Conversion/SNodeToLLVM.h"
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tic::snode::lowering {

template <typename Op> struct SNodePattern : mlir::OpConversionPattern<Op> {
  SNodePattern(const mlir::TypeConverter &tc, mlir::MLIRContext *ctx,
               const SNodeLayout &layout, unsigned benefit = 1)
      : mlir::OpConversionPattern<Op>(tc, ctx, benefit), layout(layout) {}
  const SNodeLayout &layout;

  const NodeLayout *node(Op op, llvm::StringRef name,
                         mlir::ConversionPatternRewriter &rewriter) const {
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

/// `base` + `off` bytes.
mlir::Value byteOffset(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                       int64_t off);
/// Cell %l of a dense container: %cont + %l * cell_size.
mlir::Value lowerDenseLookup(mlir::OpBuilder &b, mlir::Location loc,
                             const NodeLayout &n, mlir::Value container,
                             mlir::Value linear);
/// Byte `off` after the root cell of `n`'s tree (its epoch counter or
/// active-cell list; docs/sparse.md).
mlir::Value structureAddress(mlir::OpBuilder &b, mlir::Location loc,
                             const NodeLayout &n, int64_t off);
/// The per-kind lowerings of snode.lookup, snode.is_active and
/// snode.deactivate (NodeKinds.cpp).
void populateNodeKindPatterns(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns,
                              const SNodeLayout &layout);

/// snode.load / store / atomic_rmw of quantized places (QuantAccess.cpp).
void populateQuantAccessPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 const SNodeLayout &layout,
                                 FieldAliasTags &tags);
} // namespace tic::snode::lowering

#endif

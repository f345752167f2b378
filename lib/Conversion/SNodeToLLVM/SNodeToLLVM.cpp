//===- SNodeToLLVM.cpp - convert-snode-to-llvm ----------------------------===//
//
// snode micro-access ops -> pointer arithmetic using the SNodeLayout:
//   get_child  %cell, @n      -> gep i8 %cell[offset of @n in its parent cell]
//   lookup     %cont, @n[%l]  -> gep [cell_size x i8] %cont[sext %l]
//   place_ptr  %cell, @f[c]   -> gep i8 %cell[offset of component c]
//   index_extract / linearize -> arith.divui / remui / muli<nsw,nuw> /
//   addi<nsw,nuw>
// lookup / is_active / deactivate have one case per node kind
// (NodeKinds.cpp). snode.root_ptr, snode.alloc_cell and snode.free_cell
// are left to the target's tc conversion (they need the runtime). The
// layout trees and buffers are erased by whichever runs last.
//
//===----------------------------------------------------------------------===//
#include "SNodePattern.h"

#include "tic/Conversion/SNodeToLLVM.h"
#include "tic/Conversion/LLVMUtils.h"
#include "tic/Conversion/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/MathExtras.h"

namespace tic {
#define GEN_PASS_DEF_CONVERTSNODETOLLVM
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;
using namespace tic::snode;
using namespace tic::snode::lowering;

static Operation *functionOf(Operation *op) {
  return op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
}

FieldAliasTags::FieldAliasTags(ModuleOp module, const SNodeLayout &layout)
    : ctx(module.getContext()), layout(layout) {
  domain =
      LLVM::AliasScopeDomainAttr::get(ctx, StringAttr::get(ctx, "tic.fields"));
  module.walk([&](Operation *op) {
    if (isa<LoadOp, StoreOp, AtomicRMWOp>(op))
      fieldsOf[functionOf(op)].insert(
          key(op->getAttrOfType<FlatSymbolRefAttr>("field").getValue()));
    else if (auto sf = dyn_cast<StoreFieldsOp>(op))
      fieldsOf[functionOf(op)].insert(
          key(cast<FlatSymbolRefAttr>(sf.getFields()[0]).getValue()));
    else if (auto af = dyn_cast<AtomicAddFieldsOp>(op))
      for (Attribute f : af.getFields())
        fieldsOf[functionOf(op)].insert(
            key(cast<FlatSymbolRefAttr>(f).getValue()));
  });
}

StringRef FieldAliasTags::key(StringRef field) {
  const PlaceLayout *p = layout.lookupPlace(field);
  if (!p || !p->isQuant() || !p->parent)
    return field;
  std::string &k = wordKeys[field];
  if (k.empty())
    k = "word of " + p->parent->name;
  return k;
}

void FieldAliasTags::tag(Operation *mem, Operation *access, StringRef field) {
  Operation *fn = functionOf(access);
  const llvm::SetVector<StringRef> &used = fieldsOf[fn];
  if (used.size() < 2)
    return; // one field: nothing to tell apart
  StringRef k = key(field);
  ArrayAttr &others = noAliasLists[{fn, k}];
  if (!others) {
    SmallVector<Attribute> list;
    for (StringRef name : used)
      if (name != k)
        list.push_back(scope(name));
    others = ArrayAttr::get(ctx, list);
  }
  auto aa = cast<LLVM::AliasAnalysisOpInterface>(mem);
  aa.setAliasScopes(ArrayAttr::get(ctx, {scope(k)}));
  aa.setNoAliasScopes(others);
}

void FieldAliasTags::tag(Operation *mem, Operation *access,
                         ArrayRef<StringRef> fields) {
  const llvm::SetVector<StringRef> &used = fieldsOf[functionOf(access)];
  llvm::SetVector<StringRef> keys;
  for (StringRef f : fields)
    keys.insert(key(f));
  if (used.size() <= keys.size())
    return; // nothing else to tell apart
  SmallVector<Attribute> own, others;
  for (StringRef k : keys)
    own.push_back(scope(k));
  for (StringRef name : used)
    if (!keys.contains(name))
      others.push_back(scope(name));
  auto aa = cast<LLVM::AliasAnalysisOpInterface>(mem);
  aa.setAliasScopes(ArrayAttr::get(ctx, own));
  aa.setNoAliasScopes(ArrayAttr::get(ctx, others));
}

LLVM::AliasScopeAttr FieldAliasTags::scope(StringRef field) {
  LLVM::AliasScopeAttr &s = scopes[field];
  if (!s)
    s = LLVM::AliasScopeAttr::get(domain, StringAttr::get(ctx, field));
  return s;
}

Value lowering::structureAddress(OpBuilder &b, Location loc,
                                 const NodeLayout &n, int64_t off) {
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value root =
      RootPtrOp::create(b, loc, PtrType::get(b.getContext()), n.tree->name);
  Value p =
      UnrealizedConversionCastOp::create(b, loc, ptrTy, root).getResult(0);
  return byteOffset(b, loc, p, off);
}

namespace {

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

/// The epoch counter or active-cell list of a node: after its tree's root
/// cell (snode.root_ptr, a runtime service) at the recorded offset.
struct StructurePtrLowering : SNodePattern<StructurePtrOp> {
  using SNodePattern::SNodePattern;
  LogicalResult
  matchAndRewrite(StructurePtrOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    int64_t off = op.getList() ? n->listOffset : n->epochOffset;
    if (off < 0)
      return rewriter.notifyMatchFailure(op, "no epoch or list recorded");
    rewriter.replaceOp(op, structureAddress(rewriter, op.getLoc(), *n, off));
    return success();
  }
};

/// arith.select between cells: the same select on the converted pointers.
struct CellSelectLowering : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, adaptor.getCondition(),
                                                 adaptor.getTrueValue(),
                                                 adaptor.getFalseValue());
    return success();
  }
};

/// Address of component `comp` of the element of `field` in `cell`.
static Value componentAddress(OpBuilder &b, Location loc, const PlaceLayout &p,
                              Value cell, int64_t comp) {
  return byteOffset(b, loc, cell, p.offsetInCell + p.componentOffsets[comp]);
}

struct PlacePtrLowering : SNodePattern<PlacePtrOp> {
  using SNodePattern::SNodePattern;
  LogicalResult matchAndRewrite(PlacePtrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const PlaceLayout *p = layout.lookupPlace(op.getField());
    if (!p) return rewriter.notifyMatchFailure(op, "unknown field");
    rewriter.replaceOp(op, componentAddress(rewriter, op.getLoc(), *p,
                                            adaptor.getCell(), op.getComp()));
    return success();
  }
};

/// Memory ops on places stored as plain bytes (a place in a bit_struct or
/// bit_array has its own patterns, QuantAccess.cpp): the
/// component's address, then the LLVM memory op `lower` builds, tagged with
/// the field's alias scopes, replaces the op.
template <typename Op> struct FieldMemoryPattern : SNodePattern<Op> {
  FieldMemoryPattern(const TypeConverter &tc, MLIRContext *ctx,
                     const SNodeLayout &layout, FieldAliasTags &tags)
      : SNodePattern<Op>(tc, ctx, layout), tags(tags) {}
  FieldAliasTags &tags;
  using OpAdaptor = typename SNodePattern<Op>::OpAdaptor;

  virtual Operation *lower(OpBuilder &b, Op op, OpAdaptor adaptor,
                           Value addr) const = 0;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const PlaceLayout *p = this->layout.lookupPlace(op.getField());
    if (!p)
      return rewriter.notifyMatchFailure(op, "unknown field");
    if (p->isQuant())
      return rewriter.notifyMatchFailure(op, "quantized (QuantAccess.cpp)");
    Value addr = componentAddress(rewriter, op.getLoc(), *p, adaptor.getCell(),
                                  op.getComp());
    Operation *mem = lower(rewriter, op, adaptor, addr);
    tags.tag(mem, op, op.getField());
    rewriter.replaceOp(op, mem->getResults());
    return success();
  }
};

struct LoadLowering : FieldMemoryPattern<LoadOp> {
  using FieldMemoryPattern::FieldMemoryPattern;
  Operation *lower(OpBuilder &b, LoadOp op, OpAdaptor,
                   Value addr) const override {
    return LLVM::LoadOp::create(b, op.getLoc(), op.getType(), addr,
                                getComponentSize(op.getType()));
  }
};

struct StoreLowering : FieldMemoryPattern<StoreOp> {
  using FieldMemoryPattern::FieldMemoryPattern;
  Operation *lower(OpBuilder &b, StoreOp op, OpAdaptor adaptor,
                   Value addr) const override {
    return LLVM::StoreOp::create(b, op.getLoc(), adaptor.getValue(), addr,
                                 getComponentSize(op.getValue().getType()));
  }
};

struct AtomicRMWLowering : FieldMemoryPattern<AtomicRMWOp> {
  using FieldMemoryPattern::FieldMemoryPattern;
  Operation *lower(OpBuilder &b, AtomicRMWOp op, OpAdaptor adaptor,
                   Value addr) const override {
    return LLVM::AtomicRMWOp::create(
        b, op.getLoc(),
        toLLVMAtomicBinOp(op.getKind(), op.getValue().getType()), addr,
        adaptor.getValue(), LLVM::AtomicOrdering::monotonic);
  }
};

/// f32 adds to a run of components 4 bytes apart (tic-coalesce-atomics):
/// two at a time, as one `atomicrmw fadd <2 x float>` at an 8-byte-aligned
/// address (x86: one 64-bit compare-and-swap loop for two components). Which
/// components pair up depends on whether the run starts 8-byte aligned,
/// known only at run time (cells are 4-aligned): an odd run has as many
/// pairs either way (selects choose them), an even one takes a branch.
struct AtomicAddFieldsLowering : SNodePattern<AtomicAddFieldsOp> {
  AtomicAddFieldsLowering(const TypeConverter &tc, MLIRContext *ctx,
                          const SNodeLayout &layout, FieldAliasTags &tags)
      : SNodePattern(tc, ctx, layout), tags(tags) {}
  FieldAliasTags &tags;
  LogicalResult
  matchAndRewrite(AtomicAddFieldsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t first = 0;
    SmallVector<StringRef> fields;
    for (auto [k, f, c] : llvm::enumerate(op.getFields(), op.getComps())) {
      fields.push_back(cast<FlatSymbolRefAttr>(f).getValue());
      const PlaceLayout *p =
          layout.lookupPlace(cast<FlatSymbolRefAttr>(f).getValue());
      if (!p || p->isQuant())
        return rewriter.notifyMatchFailure(op, "unknown or quantized field");
      int64_t at = p->offsetInCell + p->componentOffsets[c];
      if (k == 0)
        first = at;
      else if (at != first + 4 * int64_t(k))
        return rewriter.notifyMatchFailure(op, "components not side by side");
    }
    OpBuilder &b = rewriter;
    Value base = byteOffset(b, loc, adaptor.getCell(), first);
    SmallVector<Value> v(adaptor.getValues());
    int64_t n = v.size();
    Value aligned = isAligned8(b, loc, base);
    auto at = [&](int64_t k) { return byteOffset(b, loc, base, 4 * k); };
    // Each update may touch any of the run's fields.
    auto addOne = [&](OpBuilder &bb, Location l, Value ptr, Value x) {
      tags.tag(addAtomic(bb, l, ptr, x, 4), op, fields);
    };
    auto addPair = [&](OpBuilder &bb, Location l, Value ptr, Value lo,
                       Value hi) {
      tags.tag(addAtomic(bb, l, ptr, pairOf(bb, l, lo, hi), 8), op, fields);
    };
    if (n % 2) {
      // Aligned: pairs (0,1), (2,3)..., then n-1 alone; else 0 alone, then
      // pairs (1,2), (3,4)...
      for (int64_t k = 0; k + 1 < n; k += 2) {
        Value here = at(k), next = at(k + 1);
        Value p = arith::SelectOp::create(b, loc, aligned, here, next);
        Value lo = arith::SelectOp::create(b, loc, aligned, v[k], v[k + 1]);
        Value hi = arith::SelectOp::create(b, loc, aligned, v[k + 1], v[k + 2]);
        addPair(b, loc, p, lo, hi);
      }
      Value last = at(n - 1);
      Value p = arith::SelectOp::create(b, loc, aligned, last, base);
      addOne(b, loc, p,
             arith::SelectOp::create(b, loc, aligned, v[n - 1], v[0]));
    } else {
      scf::IfOp::create(
          b, loc, aligned,
          [&](OpBuilder &t, Location l) {
            for (int64_t k = 0; k < n; k += 2)
              addPair(t, l, byteOffset(t, l, base, 4 * k), v[k], v[k + 1]);
            scf::YieldOp::create(t, l);
          },
          [&](OpBuilder &e, Location l) {
            addOne(e, l, base, v[0]);
            for (int64_t k = 1; k + 1 < n; k += 2)
              addPair(e, l, byteOffset(e, l, base, 4 * k), v[k], v[k + 1]);
            addOne(e, l, byteOffset(e, l, base, 4 * (n - 1)), v[n - 1]);
            scf::YieldOp::create(e, l);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }

  static Value isAligned8(OpBuilder &b, Location loc, Value ptr) {
    Value i = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
    Value low = LLVM::AndOp::create(
        b, loc, i, LLVM::ConstantOp::create(b, loc, b.getI64Type(), 4));
    return LLVM::ICmpOp::create(
        b, loc, LLVM::ICmpPredicate::eq, low,
        LLVM::ConstantOp::create(b, loc, b.getI64Type(), 0));
  }
  /// One atomicrmw fadd of `x` (f32 or vector<2xf32>) at `ptr`.
  static Operation *addAtomic(OpBuilder &b, Location loc, Value ptr, Value x,
                              int64_t align) {
    auto rmw = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::fadd, ptr,
                                         x, LLVM::AtomicOrdering::monotonic);
    rmw.setAlignment(align);
    return rmw;
  }
  static Value pairOf(OpBuilder &b, Location loc, Value lo, Value hi) {
    auto ty = VectorType::get({2}, b.getF32Type());
    Value vec = LLVM::PoisonOp::create(b, loc, ty);
    Value lanes[] = {lo, hi};
    for (int64_t k = 0; k < 2; ++k)
      vec = LLVM::InsertElementOp::create(
          b, loc, vec, lanes[k],
          LLVM::ConstantOp::create(b, loc, b.getI32Type(), k));
    return vec;
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
    auto cst = [&](int64_t c) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, t, c);
    };
    // Below a hash, indices may be negative: floor division and a
    // non-negative remainder (a cell's elements are those of [k * B, k * B
    // + B) for any integer k). Elsewhere they are in range: unsigned.
    bool floor = n->underHash;
    if (op.getBelow() != 1)
      v = floor ? Value(arith::FloorDivSIOp::create(rewriter, loc, v,
                                                    cst(op.getBelow())))
                : Value(arith::DivUIOp::create(rewriter, loc, v,
                                               cst(op.getBelow())));
    for (auto [k, a] : llvm::enumerate(n->axes)) {
      if (a != int64_t(op.getAxis()) || !n->needsMod[k])
        continue;
      int64_t e = n->shape[k];
      if (!floor) {
        v = arith::RemUIOp::create(rewriter, loc, v, cst(e));
      } else if (llvm::isPowerOf2_64(uint64_t(e))) {
        v = arith::AndIOp::create(rewriter, loc, v, cst(e - 1));
      } else {
        Value r = arith::RemSIOp::create(rewriter, loc, v, cst(e));
        Value neg = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::slt, r, cst(0));
        v = arith::SelectOp::create(
            rewriter, loc, neg, arith::AddIOp::create(rewriter, loc, r, cst(e)),
            r);
      }
    }
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

    // Hash nodes below other nodes parse and verify, but have no lowering.
    bool unsupported = false;
    module.walk([&](Operation *op) {
      StringRef name;
      if (auto g = dyn_cast<GetChildOp>(op)) name = g.getChild();
      else if (auto l = dyn_cast<LookupOp>(op)) name = l.getNode();
      else if (auto e = dyn_cast<IndexExtractOp>(op)) name = e.getNode();
      else if (auto l = dyn_cast<LinearizeOp>(op)) name = l.getNode();
      else if (auto a = dyn_cast<IsActiveOp>(op))
        name = a.getNode();
      else if (auto d = dyn_cast<DeactivateOp>(op))
        name = d.getNode();
      else return;
      const NodeLayout *n = layout.lookupNode(name);
      if (n && !n->supported) {
        // The topmost node the lowering cannot handle.
        const NodeLayout *why = n;
        for (const NodeLayout *p = n; p; p = p->parent)
          if (!p->supported)
            why = p;
        if (why->kind == SNodeKind::Hash)
          op->emitOpError("lowering of this 'hash' SNode is not supported "
                          "yet (a hash SNode below other SNodes may have at "
                          "most 2^31 - 1 parent cells, counted up to the "
                          "nearest hash SNode above it)");
        else
          op->emitOpError("lowering of '")
              << stringifySNodeKind(why->kind)
              << "' SNodes (or dense SNodes below them) is not supported yet";
        unsupported = true;
      }
    });
    if (unsupported) return signalPassFailure();

    ConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect, arith::ArithDialect,
                           scf::SCFDialect>();
    target.addLegalOp<AllocCellOp, FreeCellOp, PoolViewOp, PoolBoundOp,
                      HashBlockOp>();
    target.addIllegalOp<
        GetChildOp, LookupOp, PlacePtrOp, IndexExtractOp, LinearizeOp, LoadOp,
        StoreOp, StoreFieldsOp, AtomicRMWOp, AtomicAddFieldsOp, IsActiveOp,
        DeactivateOp, AppendOp, LengthOp, HashEntryOp, HashEntryIndexOp,
        HashMaintainOp, HashMaintainTablesOp, StructurePtrOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

    // The ambient and sink cells of pointer nodes (and elements of dynamic
    // ones, entries of hash ones).
    int64_t pointerCell = 0;
    for (const NodeLayout &n : layout.getNodes())
      if (hasPool(n.kind))
        pointerCell =
            std::max(pointerCell,
                     n.kind == SNodeKind::Hash ? n.poolCellSize : n.cellSize);
    if (pointerCell > 0)
      for (StringRef name : {kAmbientCell, kSinkCell}) {
        if (module.lookupSymbol(name))
          continue;
        auto b = OpBuilder::atBlockBegin(module.getBody());
        auto ty = LLVM::LLVMArrayType::get(b.getI8Type(), pointerCell);
        auto g = LLVM::GlobalOp::create(b, module.getLoc(), ty,
                                        /*isConstant=*/false,
                                        LLVM::Linkage::Internal, name,
                                        Attribute(), /*alignment=*/64);
        Block *init = b.createBlock(&g.getInitializerRegion());
        b.setInsertionPointToStart(init);
        LLVM::ReturnOp::create(
            b, module.getLoc(),
            ValueRange{LLVM::ZeroOp::create(b, module.getLoc(), ty)});
      }

    RewritePatternSet patterns(ctx);
    // scf ops that carry cells (an scf.if choosing a neighbour's cell, or
    // the select the canonicalizer made of it) take the converted pointer
    // type.
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    target.addDynamicallyLegalOp<arith::SelectOp>([&](arith::SelectOp op) {
      return converter.isLegal(op.getOperation());
    });
    patterns.add<CellSelectLowering>(converter, ctx);
    FieldAliasTags tags(module, layout);
    populateSNodeToLLVMPatterns(converter, patterns, layout, tags);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // The layout goes with its last user: snode.root_ptr (and the cell
    // allocations of sparse nodes) are runtime services of the target's tc
    // conversion, which may run after this one.
    eraseLayoutIfUnused(module);
  }
};
} // namespace

void tic::populateSNodeToLLVMPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      const SNodeLayout &layout,
                                      FieldAliasTags &tags) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GetChildLowering, PlacePtrLowering, IndexExtractLowering,
               LinearizeLowering, StructurePtrLowering>(converter, ctx, layout);
  populateNodeKindPatterns(converter, patterns, layout);
  patterns.add<LoadLowering, StoreLowering, AtomicRMWLowering,
               AtomicAddFieldsLowering>(converter, ctx, layout, tags);
  populateQuantAccessPatterns(converter, patterns, layout, tags);
}

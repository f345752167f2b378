//===- RuntimeServices.cpp - tc runtime services through a TargetInfo -----===//
//
// tc.random, tc.print, tc.assert, tc.bounds_check and snode.root_ptr, the
// same patterns on every target: what each does is the TargetInfo's hook,
// with the implicit values of the function it is in (FunctionEnvs).
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/PoolLowering.h"
#include "tic/Conversion/TCToLLVM.h"
#include "tic/Dialect/AD/ADDialect.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/RuntimeABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tic;

TargetInfo::~TargetInfo() = default;

const FunctionEnv *FunctionEnvs::lookup(Operation *op) const {
  Operation *fn = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  auto it = envs.find(fn);
  return it == envs.end() ? nullptr : &it->second;
}

namespace {

/// A runtime service: the target's hook with the env of the function.
template <typename Op> struct ServicePattern : OpConversionPattern<Op> {
  ServicePattern(MLIRContext *ctx, const TargetInfo &target,
                 const FunctionEnvs &envs, const snode::SNodeLayout &layout)
      : OpConversionPattern<Op>(ctx), target(target), envs(envs),
        layout(layout) {}
  using OpAdaptor = typename OpConversionPattern<Op>::OpAdaptor;

  virtual LogicalResult lower(Op op, OpAdaptor adaptor, const FunctionEnv &env,
                              ConversionPatternRewriter &rewriter) const = 0;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const FunctionEnv *env = envs.lookup(op);
    if (!env)
      return op.emitOpError("is not inside a function of this target");
    return lower(op, adaptor, *env, rewriter);
  }

  /// Replaces `op` by `v`, the target's value for it; a null `v` means
  /// the target has no such service.
  LogicalResult replaceOrReject(Op op, Value v,
                                ConversionPatternRewriter &rewriter) const {
    if (!v)
      return op.emitOpError("is not supported on the ")
             << target.getName() << " target";
    rewriter.replaceOp(op, v);
    return success();
  }

  const TargetInfo &target;
  const FunctionEnvs &envs;
  const snode::SNodeLayout &layout;
};

struct RandomLowering : ServicePattern<tc::RandomOp> {
  using ServicePattern::ServicePattern;
  LogicalResult lower(tc::RandomOp op, OpAdaptor, const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       target.random(rewriter, op.getLoc(), op.getType(), env));
    return success();
  }
};

/// An op without operands whose value the target gives: `Query`.
template <typename Op, Value (TargetInfo::*Query)(OpBuilder &, Location,
                                                  const FunctionEnv &) const>
struct QueryLowering : ServicePattern<Op> {
  using ServicePattern<Op>::ServicePattern;
  using typename ServicePattern<Op>::OpAdaptor;
  LogicalResult lower(Op op, OpAdaptor, const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    return this->replaceOrReject(
        op, (this->target.*Query)(rewriter, op.getLoc(), env), rewriter);
  }
};
using NumThreadsLowering =
    QueryLowering<tc::NumThreadsOp, &TargetInfo::numThreads>;
using OnDeviceLowering = QueryLowering<tc::OnDeviceOp, &TargetInfo::onDevice>;

struct ThreadIndexLowering : ServicePattern<tc::ThreadIndexOp> {
  using ServicePattern::ServicePattern;
  LogicalResult lower(tc::ThreadIndexOp op, OpAdaptor, const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    return replaceOrReject(op, env.threadId, rewriter);
  }
};

/// tc.scratch -> the target's scratch pointer as a memref<?xT> descriptor
/// (allocated = aligned = the pointer, offset 0, the size, stride 1).
struct ScratchLowering : ServicePattern<tc::ScratchOp> {
  using ServicePattern::ServicePattern;
  LogicalResult lower(tc::ScratchOp op, OpAdaptor adaptor,
                      const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemRefType t = op.getBuffer().getType();
    Type i64 = rewriter.getI64Type();
    int64_t elemBytes = (t.getElementTypeBitWidth() + 7) / 8;
    Value width = arith::ConstantIntOp::create(rewriter, loc, i64, elemBytes);
    Value bytes =
        arith::MulIOp::create(rewriter, loc, adaptor.getSize(), width);
    Value ptr = target.scratch(rewriter, loc, op.getSlot(), bytes, env);
    if (!ptr)
      return op.emitOpError("is not supported on the ")
             << target.getName() << " target";
    MLIRContext *ctx = getContext();
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    Type arrTy = LLVM::LLVMArrayType::get(i64, 1);
    auto descTy = LLVM::LLVMStructType::getLiteral(
        ctx, {ptrTy, ptrTy, i64, arrTy, arrTy});
    Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
    Value one = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
    Value d = LLVM::PoisonOp::create(rewriter, loc, descTy);
    d = LLVM::InsertValueOp::create(rewriter, loc, d, ptr,
                                    ArrayRef<int64_t>{0});
    d = LLVM::InsertValueOp::create(rewriter, loc, d, ptr,
                                    ArrayRef<int64_t>{1});
    d = LLVM::InsertValueOp::create(rewriter, loc, d, zero,
                                    ArrayRef<int64_t>{2});
    d = LLVM::InsertValueOp::create(rewriter, loc, d, adaptor.getSize(),
                                    ArrayRef<int64_t>{3, 0});
    d = LLVM::InsertValueOp::create(rewriter, loc, d, one,
                                    ArrayRef<int64_t>{4, 0});
    rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(op, t, d);
    return success();
  }
};

struct PrintLowering : ServicePattern<tc::PrintOp> {
  using ServicePattern::ServicePattern;
  LogicalResult lower(tc::PrintOp op, OpAdaptor adaptor, const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    // C's default argument promotions (the formats are printf's).
    Location loc = op.getLoc();
    SmallVector<Value> args;
    for (Value v : adaptor.getArgs()) {
      Type t = v.getType();
      if (isa<FloatType>(t) && !t.isF64())
        v = arith::ExtFOp::create(rewriter, loc, rewriter.getF64Type(), v);
      else if (t.isInteger(1))
        v = arith::ExtUIOp::create(rewriter, loc, rewriter.getI32Type(), v);
      else if (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() < 32)
        v = arith::ExtSIOp::create(rewriter, loc, rewriter.getI32Type(), v);
      args.push_back(v);
    }
    target.print(rewriter, loc, op.getFormat(), args, env);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertLowering : ServicePattern<tc::AssertOp> {
  using ServicePattern::ServicePattern;
  LogicalResult lower(tc::AssertOp op, OpAdaptor adaptor,
                      const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    target.assertTrue(rewriter, op.getLoc(), adaptor.getCond(), op.getMessage(),
                      env);
    rewriter.eraseOp(op);
    return success();
  }
};

struct BoundsCheckLowering : ServicePattern<tc::BoundsCheckOp> {
  using ServicePattern::ServicePattern;
  LogicalResult lower(tc::BoundsCheckOp op, OpAdaptor adaptor,
                      const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    target.checkIndex(rewriter, op.getLoc(), adaptor.getIndex(),
                      adaptor.getExtent(), op.getField(), op.getAxis(), env);
    rewriter.eraseOp(op);
    return success();
  }
};

/// ad.record_access -> the same code on every target: while a tape
/// records (the target's state words non-null), an atomic or of the
/// access's bit into the element's state byte, and for a write or an
/// accumulation, a report through the target when the byte held an access
/// the rules forbid before it (tic/rt.h, TIC_RT_AD_*).
struct RecordAccessLowering : ServicePattern<ad::RecordAccessOp> {
  using ServicePattern::ServicePattern;
  LogicalResult lower(ad::RecordAccessOp op, OpAdaptor adaptor,
                      const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    StringRef k = op.getKind();
    int32_t bit = k == "read"    ? TIC_RT_AD_READ
                  : k == "write" ? TIC_RT_AD_WRITTEN
                                 : TIC_RT_AD_ACCUMULATED;
    Value state = target.accessRuleState(rewriter, loc, op.getField(),
                                         op.getCount(), env);
    if (!state) {
      rewriter.eraseOp(op);
      return success();
    }
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto c32 = [&](OpBuilder &cb, int64_t v) -> Value {
      return arith::ConstantIntOp::create(cb, loc, i32, v);
    };
    auto c64 = [&](OpBuilder &cb, int64_t v) -> Value {
      return arith::ConstantIntOp::create(cb, loc, i64, v);
    };
    Value index = adaptor.getIndex();
    Value null = LLVM::ZeroOp::create(b, loc, state.getType());
    Value recording =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, state, null);
    Value count = c64(b, op.getCount());
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, count);
    Value go = arith::AndIOp::create(b, loc, recording, inside);
    auto ifOp = scf::IfOp::create(b, loc, go, false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    // Byte index % 4 of word index / 4 (little-endian: bits 8 * (i % 4)).
    // (One value per statement: the IR's order does not depend on the C++
    // compiler's order of evaluating arguments.)
    Value wordIndex = arith::ShRUIOp::create(tb, loc, index, c64(tb, 2));
    Value word = LLVM::GEPOp::create(tb, loc, state.getType(), i32, state,
                                     ValueRange{wordIndex},
                                     LLVM::GEPNoWrapFlags::inbounds);
    Value low = arith::AndIOp::create(tb, loc, index, c64(tb, 3));
    Value bits = arith::ShLIOp::create(tb, loc, low, c64(tb, 3));
    Value shift = arith::TruncIOp::create(tb, loc, i32, bits);
    Value mask = arith::ShLIOp::create(tb, loc, c32(tb, bit), shift);
    Value old =
        LLVM::AtomicRMWOp::create(tb, loc, LLVM::AtomicBinOp::_or, word, mask,
                                  LLVM::AtomicOrdering::monotonic);
    if (bit != TIC_RT_AD_READ) {
      Value before = arith::ShRUIOp::create(tb, loc, old, shift);
      auto has = [&](int32_t b2) -> Value {
        Value m = c32(tb, b2);
        Value set = arith::AndIOp::create(tb, loc, before, m);
        Value zero = c32(tb, 0);
        return arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::ne, set,
                                     zero);
      };
      Value what = c32(tb, 0);
      auto pick = [&](int32_t seen, int32_t rule) {
        Value cond = has(seen);
        Value r = c32(tb, rule);
        what = arith::SelectOp::create(tb, loc, cond, r, what);
      };
      // The first rule broken, as the CPU's runtime orders them (the last
      // select decides).
      if (bit == TIC_RT_AD_WRITTEN) {
        pick(TIC_RT_AD_READ, TIC_RT_AD_WRITE_AFTER_READ);
        pick(TIC_RT_AD_ACCUMULATED, TIC_RT_AD_WRITE_AFTER_ACCUMULATE);
        pick(TIC_RT_AD_WRITTEN, TIC_RT_AD_WRITE_AFTER_WRITE);
      } else {
        pick(TIC_RT_AD_READ, TIC_RT_AD_ACCUMULATE_AFTER_READ);
      }
      Value zero = c32(tb, 0);
      Value broken =
          arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::ne, what, zero);
      auto report = scf::IfOp::create(tb, loc, broken, false);
      OpBuilder rb = report.getThenBodyBuilder();
      target.reportAccessRule(rb, loc, op.getKernel(), op.getField(), index,
                              what, env);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The root buffer plus the tree's offset in it.
struct RootPtrLowering : ServicePattern<snode::RootPtrOp> {
  using ServicePattern::ServicePattern;
  LogicalResult lower(snode::RootPtrOp op, OpAdaptor, const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const override {
    const snode::TreeLayout *tl = layout.lookupTree(op.getTree());
    if (!tl)
      return op.emitOpError("unknown tree");
    Location loc = op.getLoc();
    Value root = target.getRootBuffer(rewriter, loc, env);
    if (tl->offset != 0) {
      Value off = arith::ConstantIntOp::create(
          rewriter, loc, rewriter.getI64Type(), tl->offset);
      root = LLVM::GEPOp::create(rewriter, loc, root.getType(),
                                 rewriter.getI8Type(), root, ValueRange{off},
                                 LLVM::GEPNoWrapFlags::inbounds);
    }
    rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(op, op.getType(),
                                                            root);
    return success();
  }
};

/// The pool's state in the root buffer.
static Value poolState(OpBuilder &b, Location loc, const TargetInfo &target,
                       const FunctionEnv &env, const snode::NodeLayout &n) {
  return pools::statePtr(b, loc, target.getRootBuffer(b, loc, env),
                         n.poolStateOffset);
}

/// A runtime service on the pool of the op's pointer, dynamic or hash node
/// (its `node` attribute), found in the layout: an error when it has none.
template <typename Op> struct PoolServicePattern : ServicePattern<Op> {
  using ServicePattern<Op>::ServicePattern;
  using OpAdaptor = typename ServicePattern<Op>::OpAdaptor;

  virtual LogicalResult
  lowerPool(Op op, OpAdaptor adaptor, const snode::NodeLayout &n,
            const FunctionEnv &env,
            ConversionPatternRewriter &rewriter) const = 0;

  LogicalResult lower(Op op, OpAdaptor adaptor, const FunctionEnv &env,
                      ConversionPatternRewriter &rewriter) const final {
    const snode::NodeLayout *n = this->layout.lookupNode(op.getNode());
    if (!n || n->poolIndex < 0 || n->poolStateOffset < 0)
      return op.emitOpError("has no pool for SNode '") << op.getNode() << "'";
    return lowerPool(op, adaptor, *n, env, rewriter);
  }
};

struct AllocCellLowering : PoolServicePattern<snode::AllocCellOp> {
  using PoolServicePattern::PoolServicePattern;
  LogicalResult lowerPool(snode::AllocCellOp op, OpAdaptor,
                          const snode::NodeLayout &n, const FunctionEnv &env,
                          ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value state = poolState(rewriter, loc, target, env, n);
    Value cell = pools::allocate(
        rewriter, loc, state, [&](OpBuilder &b, Value index, Value capacity) {
          return target.allocateBeyondCapacity(b, loc, n.poolIndex, n.name,
                                               index, capacity, env);
        });
    rewriter.replaceOp(op, cell);
    return success();
  }
};

struct FreeCellLowering : PoolServicePattern<snode::FreeCellOp> {
  using PoolServicePattern::PoolServicePattern;
  LogicalResult lowerPool(snode::FreeCellOp op, OpAdaptor adaptor,
                          const snode::NodeLayout &n, const FunctionEnv &env,
                          ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    pools::free(rewriter, loc, poolState(rewriter, loc, target, env, n),
                adaptor.getCell());
    rewriter.eraseOp(op);
    return success();
  }
};

struct PoolViewLowering : PoolServicePattern<snode::PoolViewOp> {
  using PoolServicePattern::PoolServicePattern;
  LogicalResult lowerPool(snode::PoolViewOp op, OpAdaptor,
                          const snode::NodeLayout &n, const FunctionEnv &env,
                          ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [base, count] =
        pools::view(rewriter, loc, poolState(rewriter, loc, target, env, n));
    rewriter.replaceOp(op, ValueRange{base, count});
    return success();
  }
};

/// snode.pool_bound -> the target's hook (CPU: tic_rt_snode_pool_bound).
struct PoolBoundLowering : PoolServicePattern<snode::PoolBoundOp> {
  using PoolServicePattern::PoolServicePattern;
  LogicalResult lowerPool(snode::PoolBoundOp op, OpAdaptor,
                          const snode::NodeLayout &n, const FunctionEnv &env,
                          ConversionPatternRewriter &rewriter) const override {
    return replaceOrReject(
        op, target.poolBound(rewriter, op.getLoc(), n.poolIndex, env),
        rewriter);
  }
};

/// snode.hash_block -> the target's hook (CPU: tic_rt_hash_block).
struct HashBlockLowering : PoolServicePattern<snode::HashBlockOp> {
  using PoolServicePattern::PoolServicePattern;
  LogicalResult lowerPool(snode::HashBlockOp op, OpAdaptor adaptor,
                          const snode::NodeLayout &n, const FunctionEnv &env,
                          ConversionPatternRewriter &rewriter) const override {
    return replaceOrReject(op,
                           target.hashBlock(rewriter, op.getLoc(), n.poolIndex,
                                            adaptor.getOwner(),
                                            adaptor.getBytes(), env),
                           rewriter);
  }
};

} // namespace

void tic::populateTCRuntimeToLLVMPatterns(RewritePatternSet &patterns,
                                          const TargetInfo &target,
                                          const FunctionEnvs &envs,
                                          const snode::SNodeLayout &layout) {
  patterns.add<RandomLowering, NumThreadsLowering, OnDeviceLowering,
               ThreadIndexLowering, ScratchLowering, PrintLowering,
               AssertLowering, BoundsCheckLowering, RecordAccessLowering,
               RootPtrLowering, AllocCellLowering, FreeCellLowering,
               PoolViewLowering, PoolBoundLowering, HashBlockLowering>(
      patterns.getContext(), target, envs, layout);
  populateTCNDArrayToLLVMPatterns(patterns);
}

void tic::addTCRuntimeIllegalOps(ConversionTarget &target) {
  target.addIllegalOp<tc::RandomOp, tc::NumThreadsOp, tc::OnDeviceOp,
                      tc::ThreadIndexOp, tc::ScratchOp, tc::PrintOp,
                      tc::AssertOp, tc::BoundsCheckOp, ad::RecordAccessOp,
                      snode::RootPtrOp, snode::AllocCellOp, snode::FreeCellOp,
                      snode::PoolViewOp, snode::PoolBoundOp, snode::HashBlockOp,
                      tc::NDArrayLoadOp, tc::NDArrayStoreOp,
                      tc::NDArrayAtomicRMWOp, tc::NDArrayDimOp>();
}

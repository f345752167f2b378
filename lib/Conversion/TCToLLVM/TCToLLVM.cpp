//===- TCToLLVM.cpp - convert-tc-to-llvm ----------------------------------===//
//
//  * tc.kernel @k(params) -> func.func @k(%ctx: !llvm.ptr, params') where an
//    ndarray parameter becomes a pointer to the runtime's tc_ndarray (its data
//    pointer and extents are loaded once at kernel entry);
//  * tc.parallel_for -> llvm.func internal @k__parN(closure, begin, end, tid)
//    over the linearized index range (innermost dimension: a plain counted
//    loop) + a stack closure + tic_rt_parallel_for (or a direct call when
//    `serialize` is set);
//  * reductions privatized per chunk (privatizeReductions below): a captured
//    accumulator updated only by memref.atomic_rmw of one kind accumulates
//    in a local of @k__parN and is combined by one atomic RMW per chunk;
//  * tc.random / tc.print / tc.assert / tc.ndarray_* / snode.root_ptr ->
//    LLVM code and runtime calls.
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/LLVMUtils.h"
#include "tic/Conversion/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/RuntimeABI.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace tic {
#define GEN_PASS_DEF_CONVERTTCTOLLVM
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

struct NDArrayInfo {
  Value data;
  SmallVector<Value> shape; // i64
  Type elementType;
};

/// Per generated function: where the context and the thread id come from.
struct FnContext {
  Value ctx;
  Value tid;
};

class Lowering {
public:
  Lowering(ModuleOp module, snode::SNodeLayout &layout, bool privatize)
      : module(module), layout(layout), privatize(privatize),
        ctx(module.getContext()), ptrTy(LLVM::LLVMPointerType::get(ctx)),
        converter(ctx), strings(module, "__tic_str_"), runtimeFuncs(module) {
    converter.addConversion(
        [&](snode::PtrType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
  }

  LogicalResult run();

private:
  LLVM::LLVMFuncOp runtimeFunc(StringRef name, Type result, ArrayRef<Type> args,
                               bool vararg = false) {
    return runtimeFuncs.get(name, result, args, vararg);
  }
  Value globalString(OpBuilder &b, Location loc, StringRef value) {
    return strings.get(b, loc, value);
  }
  /// "file:line:col" of `loc` as a string constant (null without a file).
  Value sourceLocation(OpBuilder &b, Location loc) {
    if (auto fl = dyn_cast<FileLineColLoc>(loc))
      return globalString(b, loc,
                          (fl.getFilename().getValue() + ":" +
                           Twine(fl.getLine()) + ":" + Twine(fl.getColumn()))
                              .str());
    return LLVM::ZeroOp::create(b, loc, ptrTy);
  }
  Value constI64(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }

  FailureOr<func::FuncOp> convertKernel(tc::KernelOp kernel);
  LogicalResult lowerNDArrayOps(func::FuncOp fn, DenseMap<Value, NDArrayInfo> &nd);
  LogicalResult outline(tc::ParallelForOp pf, func::FuncOp kernelFn, Value kctx,
                        unsigned index);
  LogicalResult lowerContextOps(Operation *fn, FnContext fc);
  void hoistAllocas(Region &body);

  ModuleOp module;
  snode::SNodeLayout &layout;
  bool privatize;
  MLIRContext *ctx;
  Type ptrTy;
  LLVMTypeConverter converter;
  GlobalStrings strings;
  RuntimeFunctions runtimeFuncs;
  SmallVector<std::pair<Operation *, FnContext>> functions;
  Operation *lastOutlined = nullptr; // keeps bodies in loop order
};

FailureOr<func::FuncOp> Lowering::convertKernel(tc::KernelOp kernel) {
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  SmallVector<Type> inputs{ptrTy};
  for (Type t : kernel.getArgumentTypes())
    inputs.push_back(isa<tc::NDArrayType>(t) ? ptrTy : t);
  auto fn = func::FuncOp::create(
      b, loc, kernel.getSymName(),
      b.getFunctionType(inputs, kernel.getResultTypes()));
  fn.getBody().takeBody(kernel.getBody());
  Block &entry = fn.getBody().front();
  Value kctx = entry.insertArgument(0u, ptrTy, loc);

  // ndarray parameters: load the data pointer and the extents once.
  DenseMap<Value, NDArrayInfo> nd;
  OpBuilder eb = OpBuilder::atBlockBegin(&entry);
  Type ndTy = abi::ndarrayType(ctx);
  for (BlockArgument arg : entry.getArguments().drop_front()) {
    auto t = dyn_cast<tc::NDArrayType>(arg.getType());
    if (!t) continue;
    NDArrayInfo info;
    info.elementType = t.getElementType();
    info.data = LLVM::LoadOp::create(eb, loc, ptrTy, arg, /*alignment=*/8);
    for (unsigned d = 0; d < t.getRank(); ++d) {
      Value p = LLVM::GEPOp::create(
          eb, loc, ptrTy, ndTy, arg,
          ArrayRef<LLVM::GEPArg>{0, abi::kNDShape, int32_t(d)},
          LLVM::GEPNoWrapFlags::inbounds);
      info.shape.push_back(LLVM::LoadOp::create(eb, loc, eb.getI64Type(), p, 8));
    }
    nd[arg] = info;
  }
  if (failed(lowerNDArrayOps(fn, nd))) return failure();
  for (BlockArgument arg : entry.getArguments())
    if (isa<tc::NDArrayType>(arg.getType())) arg.setType(ptrTy);

  SmallVector<tc::ReturnOp> rets;
  fn.walk([&](tc::ReturnOp r) { rets.push_back(r); });
  for (tc::ReturnOp r : rets) {
    OpBuilder rb(r);
    func::ReturnOp::create(rb, r.getLoc(), r.getOperands());
    r.erase();
  }
  if (auto attrs = kernel.getArgAttrsAttr()) {
    SmallVector<Attribute> all{DictionaryAttr::get(ctx)};
    all.append(attrs.begin(), attrs.end());
    fn.setArgAttrsAttr(ArrayAttr::get(ctx, all));
  }
  (void)kctx;
  kernel.erase();
  return fn;
}

LogicalResult Lowering::lowerNDArrayOps(func::FuncOp fn,
                                        DenseMap<Value, NDArrayInfo> &nd) {
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (isa<tc::NDArrayLoadOp, tc::NDArrayStoreOp, tc::NDArrayAtomicRMWOp,
            tc::NDArrayDimOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value arr = op->getOperand(isa<tc::NDArrayLoadOp, tc::NDArrayDimOp>(op) ? 0 : 1);
    auto it = nd.find(arr);
    if (it == nd.end()) return op->emitOpError("ndarray is not a kernel parameter");
    NDArrayInfo &info = it->second;
    if (auto dim = dyn_cast<tc::NDArrayDimOp>(op)) {
      Value v = arith::TruncIOp::create(b, loc, b.getI32Type(), info.shape[dim.getAxis()]);
      dim.replaceAllUsesWith(v);
      op->erase();
      continue;
    }
    ValueRange indices = op->getOperands().drop_front(isa<tc::NDArrayLoadOp>(op) ? 1 : 2);
    Value lin;
    for (auto [d, idx] : llvm::enumerate(indices)) {
      Value i = arith::ExtSIOp::create(b, loc, b.getI64Type(), idx);
      lin = d == 0 ? i
                   : Value(arith::AddIOp::create(
                         b, loc, arith::MulIOp::create(b, loc, lin, info.shape[d]), i));
    }
    Value addr = LLVM::GEPOp::create(b, loc, ptrTy, info.elementType, info.data,
                                     ValueRange{lin}, LLVM::GEPNoWrapFlags::inbounds);
    unsigned align = snode::getComponentSize(info.elementType);
    if (auto ld = dyn_cast<tc::NDArrayLoadOp>(op)) {
      ld.replaceAllUsesWith(
          LLVM::LoadOp::create(b, loc, info.elementType, addr, align).getResult());
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

//===----------------------------------------------------------------------===//
// Per-chunk privatization of reductions
//
// CodeGen lowers a kernel-scope `var` updated with `+= -= min= max=` inside a
// parallel loop to `memref.atomic_rmw` on the var's rank-0 stack slot, which
// the loop captures. Chunks ([begin, end) of @k__parN) only exist here, so
// this is where the privatization happens: when every use of the captured
// memref inside the loop is a `memref.atomic_rmw` of one kind whose result
// is unused, the outlined function gets a private slot initialized with the
// kind's identity, the updates become plain load/op/store on it (promoted
// to registers by LLVM), and the chunk's exit performs ONE atomic RMW of
// the same kind into the shared slot.
//===----------------------------------------------------------------------===//

/// The identity of `kind` on `t`, or null when `kind` is not privatized.
/// Floats: -0.0 for addf (x + -0.0 == x for every x, signed zeros and NaN
/// included; +0.0 would turn a -0.0 sum into +0.0), +inf for minimumf and
/// -inf for maximumf (minimum(+inf, x) == x for every x, NaN propagates).
static TypedAttr reductionIdentity(arith::AtomicRMWKind kind, Type t) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case arith::AtomicRMWKind::addf:
      return FloatAttr::get(t, APFloat::getZero(sem, /*Negative=*/true));
    case arith::AtomicRMWKind::minimumf:
      return FloatAttr::get(t, APFloat::getInf(sem, /*Negative=*/false));
    case arith::AtomicRMWKind::maximumf:
      return FloatAttr::get(t, APFloat::getInf(sem, /*Negative=*/true));
    default: return {};
    }
  }
  auto it = dyn_cast<IntegerType>(t);
  if (!it) return {};
  unsigned w = it.getWidth();
  switch (kind) {
  case arith::AtomicRMWKind::addi:
  case arith::AtomicRMWKind::maxu:
  case arith::AtomicRMWKind::ori: return IntegerAttr::get(t, APInt::getZero(w));
  case arith::AtomicRMWKind::mins: return IntegerAttr::get(t, APInt::getSignedMaxValue(w));
  case arith::AtomicRMWKind::maxs: return IntegerAttr::get(t, APInt::getSignedMinValue(w));
  case arith::AtomicRMWKind::minu:
  case arith::AtomicRMWKind::andi: return IntegerAttr::get(t, APInt::getAllOnes(w));
  default: return {};
  }
}

/// `acc OP v` for a privatizable kind.
static Value combine(OpBuilder &b, Location loc, arith::AtomicRMWKind kind,
                     Value acc, Value v) {
  switch (kind) {
  case arith::AtomicRMWKind::addf: return arith::AddFOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::addi: return arith::AddIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::minimumf: return arith::MinimumFOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::maximumf: return arith::MaximumFOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::mins: return arith::MinSIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::maxs: return arith::MaxSIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::minu: return arith::MinUIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::maxu: return arith::MaxUIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::andi: return arith::AndIOp::create(b, loc, acc, v);
  case arith::AtomicRMWKind::ori: return arith::OrIOp::create(b, loc, acc, v);
  default: llvm_unreachable("not a privatizable reduction kind");
  }
}

/// The reduction kind when `v` (captured by `pf`) can be privatized: rank 0,
/// used inside the loop only as the memref of `memref.atomic_rmw` ops of one
/// privatizable kind whose results are unused. Any other use (load, store,
/// a used result, mixed kinds) keeps the atomics.
static std::optional<arith::AtomicRMWKind> privatizableKind(Value v,
                                                            tc::ParallelForOp pf) {
  auto mt = dyn_cast<MemRefType>(v.getType());
  if (!mt || mt.getRank() != 0) return std::nullopt;
  std::optional<arith::AtomicRMWKind> kind;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (!pf->isProperAncestor(user)) continue;
    auto rmw = dyn_cast<memref::AtomicRMWOp>(user);
    if (!rmw || use.get() != rmw.getMemref() ||
        !rmw.getResult().use_empty())
      return std::nullopt;
    if (kind && *kind != rmw.getKind()) return std::nullopt;
    kind = rmw.getKind();
  }
  if (!kind || !reductionIdentity(*kind, mt.getElementType())) return std::nullopt;
  return kind;
}

LogicalResult Lowering::outline(tc::ParallelForOp pf, func::FuncOp kernelFn,
                                Value kctx, unsigned index) {
  Location loc = pf.getLoc();
  unsigned rank = pf.getRank();
  Type ivTy = pf.getLowerBounds()[0].getType();
  Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);

  // Values the body needs: captured from the kernel, or cloned constants.
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(pf.getBody(), used);
  for (Value v : pf->getOperands()) used.insert(v);
  SmallVector<Value> captures, constants;
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>() && def->getNumOperands() == 0 &&
        def->getNumRegions() == 0)
      constants.push_back(v);
    else
      captures.push_back(v);
  }
  SmallVector<Type> fieldTypes{ptrTy};
  for (Value v : captures) {
    Type t = v.getType();
    if (!LLVM::isCompatibleType(t)) t = converter.convertType(t);
    if (!t) return pf.emitOpError("cannot capture a value of type ") << v.getType();
    fieldTypes.push_back(t);
  }
  auto closureTy = LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);

  // Captured accumulators that are privatized (index into `captures`).
  SmallVector<std::pair<unsigned, arith::AtomicRMWKind>> reductions;
  if (privatize)
    for (auto [i, v] : llvm::enumerate(captures))
      if (auto kind = privatizableKind(v, pf)) reductions.push_back({unsigned(i), *kind});

  // --- the body function -------------------------------------------------
  std::string name = (kernelFn.getSymName() + "__par" + Twine(index)).str();
  OpBuilder mb(kernelFn);
  mb.setInsertionPointAfter(lastOutlined ? lastOutlined : kernelFn.getOperation());
  auto fty = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                         {ptrTy, i64, i64, i32});
  auto body = LLVM::LLVMFuncOp::create(mb, loc, name, fty, LLVM::Linkage::Internal);
  Block *entry = body.addEntryBlock(mb);
  Value closure = entry->getArgument(0), begin = entry->getArgument(1),
        end = entry->getArgument(2), tid = entry->getArgument(3);
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  IRMapping map;
  auto loadField = [&](unsigned i) -> Value {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, closureTy, closure,
                                  ArrayRef<LLVM::GEPArg>{0, int32_t(i)},
                                  LLVM::GEPNoWrapFlags::inbounds);
    return LLVM::LoadOp::create(b, loc, fieldTypes[i], p);
  };
  Value bctx = loadField(0);
  for (auto [i, v] : llvm::enumerate(captures)) {
    Value x = loadField(i + 1);
    if (x.getType() != v.getType())
      x = UnrealizedConversionCastOp::create(b, loc, v.getType(), x).getResult(0);
    map.map(v, x);
  }
  for (Value c : constants) b.clone(*c.getDefiningOp(), map);

  // Bounds and extents in i64.
  auto toI64 = [&](OpBuilder &bb, Value v) -> Value {
    return v.getType() == i64 ? v : Value(arith::ExtSIOp::create(bb, loc, i64, v));
  };
  // Loop variables lie in [lo, hi) of the loop's own type: the truncation
  // never wraps, and `nsw` lets LLVM fold sext(trunc(iv)) back to the i64
  // induction variable, so that field accesses stay affine (vectorizable
  // with contiguous loads).
  auto fromI64 = [&](OpBuilder &bb, Value v) -> Value {
    if (ivTy == i64)
      return v;
    return arith::TruncIOp::create(
        bb, loc, ivTy, v,
        arith::IntegerOverflowFlagsAttr::get(bb.getContext(),
                                             arith::IntegerOverflowFlags::nsw));
  };
  // The innermost loop variable is also carried as an induction variable of
  // its own (narrower) type, incremented with `nsw`, instead of being
  // truncated from the i64 counter in every iteration: SCEV then sees
  // `a[i, j - 1]` as an affine function of the loop (like C's `int j`), and
  // the vectorizer emits contiguous loads instead of per-lane addresses.
  bool narrowIV = ivTy != i64;
  auto stepVar = [&](OpBuilder &bb, Value v) -> Value {
    Value oneV = arith::ConstantIntOp::create(bb, loc, ivTy, 1);
    return arith::AddIOp::create(bb, loc, v, oneV,
                                 arith::IntegerOverflowFlags::nsw);
  };
  Value zero = constI64(b, loc, 0), one = constI64(b, loc, 1);
  SmallVector<Value> lo, n;
  for (unsigned d = 0; d < rank; ++d) {
    Value l = toI64(b, map.lookup(pf.getLowerBounds()[d]));
    Value h = toI64(b, map.lookup(pf.getUpperBounds()[d]));
    lo.push_back(l);
    n.push_back(arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, h, l), zero));
  }

  Region &fr = body.getBody();
  Region cloned;  // the loop body, spliced after the loop skeleton below
  pf.getBody().cloneInto(&cloned, map);
  Block *bodyEntry = map.lookup(&pf.getBody().front());
  Block *exit = new Block();
  fr.push_back(exit);
  {
    OpBuilder xb = OpBuilder::atBlockEnd(exit);
    LLVM::ReturnOp::create(xb, loc, ValueRange{});
  }

  Block *latch = new Block(); // target of tc.yield
  SmallVector<Value> ivs;
  if (rank == 1) {
    Block *header = new Block();
    Value k = header->addArgument(i64, loc);
    // The loop variable in its own type, as a second induction variable
    // (see stepVar).
    Value kv = narrowIV ? header->addArgument(ivTy, loc) : Value();
    Block *pre = new Block();
    fr.push_back(header);
    fr.push_back(pre);
    fr.push_back(latch);
    SmallVector<Value, 2> start{begin};
    if (narrowIV)
      start.push_back(fromI64(b, arith::AddIOp::create(b, loc, lo[0], begin)));
    LLVM::BrOp::create(b, loc, start, header);
    OpBuilder hb = OpBuilder::atBlockEnd(header);
    Value c = arith::CmpIOp::create(hb, loc, arith::CmpIPredicate::slt, k, end);
    LLVM::CondBrOp::create(hb, loc, c, pre, exit);
    OpBuilder pb = OpBuilder::atBlockEnd(pre);
    ivs.push_back(narrowIV ? kv
                           : fromI64(pb, arith::AddIOp::create(pb, loc, lo[0], k)));
    LLVM::BrOp::create(pb, loc, ivs, bodyEntry);
    OpBuilder lb = OpBuilder::atBlockEnd(latch);
    SmallVector<Value, 2> next{arith::AddIOp::create(lb, loc, k, one)};
    if (narrowIV)
      next.push_back(stepVar(lb, kv));
    LLVM::BrOp::create(lb, loc, next, header);
  } else {
    // Outer loop over rows of the innermost dimension, inner counted loop.
    Value nInner = n[rank - 1];
    Block *outer = new Block();
    Value lin = outer->addArgument(i64, loc);
    Block *obody = new Block(), *inner = new Block(), *ibody = new Block(),
          *olatch = new Block();
    Value j = inner->addArgument(i64, loc);
    Value jv = narrowIV ? inner->addArgument(ivTy, loc) : Value();
    for (Block *blk : {outer, obody, inner, ibody, latch, olatch}) fr.push_back(blk);
    LLVM::BrOp::create(b, loc, ValueRange{begin}, outer);
    OpBuilder ob = OpBuilder::atBlockEnd(outer);
    Value c = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::slt, lin, end);
    LLVM::CondBrOp::create(ob, loc, c, obody, exit);
    OpBuilder bb = OpBuilder::atBlockEnd(obody);
    Value q = arith::DivUIOp::create(bb, loc, lin, nInner);
    Value r = arith::RemUIOp::create(bb, loc, lin, nInner);
    Value rest = arith::SubIOp::create(bb, loc, end, lin);
    Value jend = arith::MinSIOp::create(bb, loc, nInner,
                                        arith::AddIOp::create(bb, loc, r, rest));
    SmallVector<Value> outerIvs(rank - 1);
    for (int d = int(rank) - 2; d >= 0; --d) {
      Value i = d == 0 ? q : Value(arith::RemUIOp::create(bb, loc, q, n[d]));
      if (d > 0) q = arith::DivUIOp::create(bb, loc, q, n[d]);
      outerIvs[d] = fromI64(bb, arith::AddIOp::create(bb, loc, lo[d], i));
    }
    SmallVector<Value, 2> innerStart{r};
    if (narrowIV)
      innerStart.push_back(
          fromI64(bb, arith::AddIOp::create(bb, loc, lo[rank - 1], r)));
    LLVM::BrOp::create(bb, loc, innerStart, inner);
    OpBuilder ib = OpBuilder::atBlockEnd(inner);
    Value c2 = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::slt, j, jend);
    LLVM::CondBrOp::create(ib, loc, c2, ibody, olatch);
    OpBuilder ibb = OpBuilder::atBlockEnd(ibody);
    ivs.assign(outerIvs.begin(), outerIvs.end());
    ivs.push_back(narrowIV ? jv
                           : fromI64(ibb, arith::AddIOp::create(
                                              ibb, loc, lo[rank - 1], j)));
    LLVM::BrOp::create(ibb, loc, ivs, bodyEntry);
    OpBuilder lb = OpBuilder::atBlockEnd(latch);
    SmallVector<Value, 2> innerNext{arith::AddIOp::create(lb, loc, j, one)};
    if (narrowIV)
      innerNext.push_back(stepVar(lb, jv));
    LLVM::BrOp::create(lb, loc, innerNext, inner);
    OpBuilder olb = OpBuilder::atBlockEnd(olatch);
    Value step = arith::SubIOp::create(olb, loc, jend, r);
    LLVM::BrOp::create(olb, loc, ValueRange{arith::AddIOp::create(olb, loc, lin, step).getResult()},
                       outer);
  }
  fr.getBlocks().splice(fr.end(), cloned.getBlocks());
  SmallVector<tc::YieldOp> yields;
  body.walk([&](tc::YieldOp y) { yields.push_back(y); });
  for (tc::YieldOp y : yields) {
    OpBuilder yb(y);
    LLVM::BrOp::create(yb, y.getLoc(), ValueRange{}, latch);
    y.erase();
  }
  // Move the exit block to the end.
  exit->moveBefore(&fr, fr.end());

  // Privatized reductions: identity-initialized local in the entry block,
  // plain updates in the body, one atomic RMW in the exit block.
  for (auto [ci, kind] : reductions) {
    Value shared = map.lookup(captures[ci]);
    auto mt = cast<MemRefType>(shared.getType());
    OpBuilder eb(entry->getTerminator());
    Value priv = memref::AllocaOp::create(eb, loc, mt);
    Value init = arith::ConstantOp::create(
        eb, loc, reductionIdentity(kind, mt.getElementType()));
    memref::StoreOp::create(eb, loc, init, priv);
    SmallVector<memref::AtomicRMWOp> updates;
    for (Operation *user : shared.getUsers())
      if (auto rmw = dyn_cast<memref::AtomicRMWOp>(user)) updates.push_back(rmw);
    for (memref::AtomicRMWOp rmw : updates) {
      OpBuilder ub(rmw);
      Value acc = memref::LoadOp::create(ub, rmw.getLoc(), priv);
      memref::StoreOp::create(ub, rmw.getLoc(),
                              combine(ub, rmw.getLoc(), kind, acc, rmw.getValue()),
                              priv);
      rmw.erase();
    }
    OpBuilder xb(exit->getTerminator());
    Value part = memref::LoadOp::create(xb, loc, priv);
    memref::AtomicRMWOp::create(xb, loc, kind, part, shared, ValueRange{});
  }
  functions.push_back({body, FnContext{bctx, tid}});
  lastOutlined = body;

  // --- the launch in the kernel -----------------------------------------
  OpBuilder kb(pf);
  Block &kentry = kernelFn.getBody().front();
  OpBuilder ab = OpBuilder::atBlockBegin(&kentry);
  Value cnt = LLVM::ConstantOp::create(ab, loc, i64, ab.getI64IntegerAttr(1));
  Value clos = LLVM::AllocaOp::create(ab, loc, ptrTy, closureTy, cnt, 8);
  auto storeField = [&](unsigned i, Value v) {
    if (v.getType() != fieldTypes[i])
      v = UnrealizedConversionCastOp::create(kb, loc, fieldTypes[i], v).getResult(0);
    Value p = LLVM::GEPOp::create(kb, loc, ptrTy, closureTy, clos,
                                  ArrayRef<LLVM::GEPArg>{0, int32_t(i)},
                                  LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(kb, loc, v, p);
  };
  storeField(0, kctx);
  for (auto [i, v] : llvm::enumerate(captures)) storeField(i + 1, v);
  Value total = constI64(kb, loc, 1);
  Value kzero = constI64(kb, loc, 0);
  for (unsigned d = 0; d < rank; ++d) {
    Value l = toI64(kb, pf.getLowerBounds()[d]), h = toI64(kb, pf.getUpperBounds()[d]);
    Value e = arith::MaxSIOp::create(kb, loc, arith::SubIOp::create(kb, loc, h, l), kzero);
    total = arith::MulIOp::create(kb, loc, total, e);
  }
  if (pf.getSerialize()) {
    Value t0 = arith::ConstantIntOp::create(kb, loc, i32, 0);
    LLVM::CallOp::create(kb, loc, body, ValueRange{clos, kzero, total, t0});
  } else {
    Value grain = constI64(kb, loc, pf.getGrain() ? int64_t(*pf.getGrain()) : 0);
    Value fnPtr = LLVM::AddressOfOp::create(kb, loc, ptrTy, name);
    auto rt = runtimeFunc("tic_rt_parallel_for", LLVM::LLVMVoidType::get(ctx),
                          {ptrTy, i64, i64, i64, ptrTy, ptrTy});
    LLVM::CallOp::create(kb, loc, rt, ValueRange{kctx, kzero, total, grain, fnPtr, clos});
  }
  pf.erase();
  return success();
}

void Lowering::hoistAllocas(Region &body) {
  if (body.empty()) return;
  Block &entry = body.front();
  SmallVector<memref::AllocaOp> allocas;
  body.walk([&](memref::AllocaOp a) {
    if (a->getBlock() != &entry && a.getDynamicSizes().empty() &&
        a.getSymbolOperands().empty() && !a->getParentOfType<tc::ParallelForOp>())
      allocas.push_back(a);
  });
  for (memref::AllocaOp a : allocas) a->moveBefore(&entry, entry.begin());
}

LogicalResult Lowering::lowerContextOps(Operation *fn, FnContext fc) {
  SmallVector<Operation *> ops;
  fn->walk([&](Operation *op) {
    if (isa<tc::RandomOp, tc::PrintOp, tc::AssertOp, tc::BoundsCheckOp,
            snode::RootPtrOp>(op))
      ops.push_back(op);
  });
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto r = dyn_cast<tc::RandomOp>(op)) {
      Type t = r.getType();
      StringRef name = t.isF32() ? "tic_rt_rand_f32"
                       : t.isF64() ? "tic_rt_rand_f64"
                                   : "tic_rt_rand_u32";
      auto f = runtimeFunc(name, t, {ptrTy, i32});
      r.replaceAllUsesWith(LLVM::CallOp::create(b, loc, f, ValueRange{fc.ctx, fc.tid}).getResult());
    } else if (auto p = dyn_cast<tc::PrintOp>(op)) {
      SmallVector<Value> args{fc.ctx, globalString(b, loc, p.getFormat())};
      for (Value v : p.getArgs()) {
        Type t = v.getType();
        if (isa<FloatType>(t) && !t.isF64())
          v = arith::ExtFOp::create(b, loc, b.getF64Type(), v);
        else if (t.isInteger(1))
          v = arith::ExtUIOp::create(b, loc, i32, v);
        else if (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() < 32)
          v = arith::ExtSIOp::create(b, loc, i32, v);
        args.push_back(v);
      }
      auto f = runtimeFunc("tic_rt_print", LLVM::LLVMVoidType::get(ctx),
                           {ptrTy, ptrTy}, /*vararg=*/true);
      LLVM::CallOp::create(b, loc, f, args);
    } else if (auto a = dyn_cast<tc::AssertOp>(op)) {
      Value t = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      Value notCond = arith::XOrIOp::create(b, loc, a.getCond(), t);
      auto ifOp = scf::IfOp::create(b, loc, notCond, /*withElse=*/false);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      Value msg = globalString(tb, loc, a.getMessage());
      Value where = sourceLocation(tb, loc);
      auto f = runtimeFunc("tic_rt_report_assert", i32, {ptrTy, ptrTy, ptrTy});
      LLVM::CallOp::create(tb, loc, f, ValueRange{fc.ctx, msg, where});
    } else if (auto bc = dyn_cast<tc::BoundsCheckOp>(op)) {
      Value bad = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        bc.getIndex(), bc.getExtent());
      auto ifOp = scf::IfOp::create(b, loc, bad, /*withElse=*/false);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      Value field = globalString(tb, loc, bc.getField());
      Value where = sourceLocation(tb, loc);
      Value axis = arith::ConstantIntOp::create(tb, loc, i32, bc.getAxis());
      Value index = arith::ExtSIOp::create(tb, loc, i64, bc.getIndex());
      Value extent = arith::ExtSIOp::create(tb, loc, i64, bc.getExtent());
      auto f = runtimeFunc("tic_rt_report_out_of_bounds", i32,
                           {ptrTy, ptrTy, i32, i64, i64, ptrTy});
      LLVM::CallOp::create(tb, loc, f,
                           ValueRange{fc.ctx, field, axis, index, extent, where});
    } else if (auto rp = dyn_cast<snode::RootPtrOp>(op)) {
      const snode::TreeLayout *tl = layout.lookupTree(rp.getTree());
      if (!tl) return rp.emitOpError("unknown tree");
      auto f = runtimeFunc("tic_rt_root", ptrTy, {ptrTy});
      Value root = LLVM::CallOp::create(b, loc, f, ValueRange{fc.ctx}).getResult();
      if (tl->offset != 0) {
        Value off = arith::ConstantIntOp::create(b, loc, i64, tl->offset);
        root = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), root, ValueRange{off},
                                   LLVM::GEPNoWrapFlags::inbounds);
      }
      Value cast = UnrealizedConversionCastOp::create(b, loc, rp.getType(), root).getResult(0);
      rp.replaceAllUsesWith(cast);
    }
    op->erase();
  }
  return success();
}

LogicalResult Lowering::run() {
  // Preconditions.
  WalkResult w = module.walk([&](Operation *op) {
    if (isa<tc::StructForOp>(op)) {
      op->emitOpError("must be lowered by tic-lower-struct-for first");
      return WalkResult::interrupt();
    }
    if (isa<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp>(op)) {
      op->emitOpError("must be lowered by tic-lower-field-access first");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (w.wasInterrupted()) return failure();

  SmallVector<tc::KernelOp> kernels;
  for (auto k : module.getOps<tc::KernelOp>()) kernels.push_back(k);
  for (tc::KernelOp k : kernels) {
    FailureOr<func::FuncOp> fn = convertKernel(k);
    if (failed(fn)) return failure();
    Value kctx = fn->getBody().front().getArgument(0);
    OpBuilder eb = OpBuilder::atBlockBegin(&fn->getBody().front());
    Value tid0 = arith::ConstantIntOp::create(eb, fn->getLoc(), eb.getI32Type(), 0);
    SmallVector<tc::ParallelForOp> loops;
    fn->walk([&](tc::ParallelForOp pf) { loops.push_back(pf); });
    lastOutlined = nullptr;
    for (auto [i, pf] : llvm::enumerate(loops))
      if (failed(outline(pf, *fn, kctx, i))) return failure();
    functions.push_back({*fn, FnContext{kctx, tid0}});
  }
  for (auto &[fn, fc] : functions) {
    hoistAllocas(fn->getRegion(0));
    if (failed(lowerContextOps(fn, fc))) return failure();
  }
  // Anything left outside kernels is an error.
  w = module.walk([&](Operation *op) {
    if (isa<tc::TCDialect>(op->getDialect()) || isa<snode::RootPtrOp>(op)) {
      op->emitOpError("cannot be lowered outside a tc.kernel");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(w.wasInterrupted());
}

struct ConvertTCToLLVMPass
    : tic::impl::ConvertTCToLLVMBase<ConvertTCToLLVMPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    Lowering lowering(module, layout, privatizeReductions);
    if (failed(lowering.run())) signalPassFailure();
  }
};
} // namespace

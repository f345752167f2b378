//===- PrivatizeScatter.cpp - tic-privatize-scatter -----------------------===//
//
// A parallel loop that only adds into a field (the particle-to-grid scatter
// of MPM: `grid[base + offset] += w * v`) makes every iteration's additions
// atomics, and on a CPU every thread's atomics pull the same cache lines
// back and forth: two threads then run no faster than one. As Kokkos'
// ScatterView does on hosts, the loop accumulates in a private copy of the
// field per thread, plain loads and stores, and a second loop adds the
// copies into the field, one iteration per cell:
//
//   n = tc.num_threads
//   if n > 1 and n * cells <= factor * iterations * adds and scratch ok:
//     parallel_for p:  buf[tid][cell] += v; touched[tid][cell] = 1
//     parallel_for c:  s = sum of buf[t][c] over the threads t that touched
//                      c (zeroed again); if any did: F[c] = F[c] + s
//   else:
//     the loop as it was
//
// The merge writes a cell exactly when some iteration added to it, so a
// sparse field's cells are activated as the atomics would have activated
// them (F[c] = F[c] + s reads 0 from an inactive cell, the store activates
// it and its ancestors). The additions are reassociated (per-thread partial
// sums), as an OpenMP array reduction does: floating-point results may
// differ from the atomic version's in the last bits.
//
// A field qualifies when every access to it in the loop is a
// `tc.atomic_rmw add` whose old value is unused, and its path is dense,
// pointer and bitmasked nodes only (a finite index space: no hash, dynamic
// or quantized places), unless a sparse-structure op of the loop
// (activate, deactivate, is_active, append, length, hash entries) names a
// node of its path. A loop qualifies when it is a top-level
// `tc.parallel_for` (not serialized) with no op of the snode dialect. The
// CPU pipeline alone runs this pass (a GPU has float atomics in its L2, and
// a thread count there is a different question); in the host module of an
// object that also runs on a GPU (`device`) the new loops are host_only,
// chosen on CPU contexts only (tc.on_device), so that a GPU context runs
// the loop its device module has.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

namespace tic {
#define GEN_PASS_DEF_PRIVATIZESCATTER
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// Bytes of one thread's copy of one field at most (its partial sums and
/// touched flags); larger fields keep their atomics.
constexpr int64_t kMaxBytesPerThread = int64_t(64) << 20;
/// Bytes of all threads' copies at most (checked at run time).
constexpr int64_t kMaxBytesTotal = int64_t(512) << 20;

/// A field the loop only adds into.
struct Scatter {
  const snode::PlaceLayout *place = nullptr;
  Type elem;
  int64_t cells = 0, comps = 0;
  int64_t adds = 0;                   ///< atomic adds to it in the loop body
  llvm::SmallVector<int64_t> strides; ///< row-major, per axis
  int32_t slot = 0;                   ///< partial sums; slot + 1: touched flags
};

/// Can a private copy stand for `p`: plain scalar components of one type
/// on a path of dense, pointer and bitmasked nodes, not too large?
bool isPrivatizable(const snode::PlaceLayout &p) {
  if (!p.supported || p.isQuant() || p.shape.empty() || p.components.empty())
    return false;
  for (const snode::LevelAccess &l : p.levels) {
    snode::SNodeKind k = l.node->kind;
    if (l.node->underHash ||
        (k != snode::SNodeKind::Dense && k != snode::SNodeKind::Pointer &&
         k != snode::SNodeKind::Bitmasked))
      return false;
  }
  Type t = p.components.front();
  if (!llvm::all_equal(p.components) || !t.isIntOrFloat() ||
      t.getIntOrFloatBitWidth() % 8 != 0)
    return false;
  int64_t cells = p.numElements();
  if (cells <= 0 || cells > std::numeric_limits<int32_t>::max())
    return false;
  int64_t bytes = t.getIntOrFloatBitWidth() / 8;
  return cells <=
         kMaxBytesPerThread / (int64_t(p.components.size()) * bytes + 1);
}

/// The node a sparse-structure op (activate, deactivate, is_active,
/// append, length, hash entries) observes or changes, or null.
StringAttr structureNode(Operation *op) {
  if (!isa<tc::IsActiveOp, tc::ActivateOp, tc::DeactivateOp, tc::AppendOp,
           tc::LengthOp, tc::HashEntriesOp, tc::HashEntryOp>(op))
    return {};
  auto ref = op->getAttrOfType<FlatSymbolRefAttr>("node");
  return ref ? ref.getAttr() : StringAttr();
}

/// Ops a privatized loop must not contain: they address field memory
/// directly, or nest parallelism. (Sparse-structure ops only exclude the
/// fields on whose paths their nodes are: findScatters.)
bool blocksPrivatization(Operation *op, tc::ParallelForOp loop) {
  if (op != loop.getOperation() && isa<tc::ParallelForOp>(op))
    return true;
  if (isa<tc::FieldCopyOp, tc::FieldFillOp, tc::ThreadIndexOp, tc::ScratchOp>(
          op))
    return true;
  // (The address of a node's epoch or active-cell list, which the loops
  // over cached lists read, addresses no field.)
  if (isa<snode::SNodeDialect>(op->getDialect()) &&
      !isa<snode::StructurePtrOp>(op))
    return true;
  // Raw memory writes (llvm.store, calls) could reach a field.
  if (isa<LLVM::LLVMDialect>(op->getDialect())) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    return !iface || iface.hasEffect<MemoryEffects::Write>();
  }
  return false;
}

/// The fields `loop` only adds into (in first-use order); empty when the
/// loop does not qualify.
llvm::MapVector<StringAttr, Scatter>
findScatters(tc::ParallelForOp loop, const snode::SNodeLayout &layout) {
  llvm::MapVector<StringAttr, Scatter> found;
  llvm::DenseSet<StringAttr> excluded;
  llvm::StringSet<> structure; // nodes the loop's structure ops name
  bool blocked = false;
  loop.walk([&](Operation *op) {
    if (blocksPrivatization(op, loop)) {
      blocked = true;
      return WalkResult::interrupt();
    }
    if (StringAttr node = structureNode(op)) {
      structure.insert(node.getValue());
      return WalkResult::advance();
    }
    StringAttr field;
    bool isAdd = false;
    if (auto a = dyn_cast<tc::AtomicRMWOp>(op)) {
      field = a.getFieldAttr().getAttr();
      isAdd = a.getKind() == tc::AtomicKind::add && a.getResult().use_empty();
    } else if (auto l = dyn_cast<tc::LoadOp>(op)) {
      field = l.getFieldAttr().getAttr();
    } else if (auto s = dyn_cast<tc::StoreOp>(op)) {
      field = s.getFieldAttr().getAttr();
    } else {
      return WalkResult::advance();
    }
    const snode::PlaceLayout *p = layout.lookupPlace(field.getValue());
    if (!isAdd || !p || !isPrivatizable(*p)) {
      excluded.insert(field);
      return WalkResult::advance();
    }
    Scatter &s = found[field];
    s.place = p;
    ++s.adds;
    return WalkResult::advance();
  });
  if (blocked)
    return {};
  llvm::MapVector<StringAttr, Scatter> result;
  for (auto &[name, s] : found) {
    if (excluded.contains(name))
      continue;
    const snode::PlaceLayout &p = *s.place;
    // An op that observes or changes the activity of a node on the path
    // would see the activations the copies defer.
    if (llvm::any_of(p.levels, [&](const snode::LevelAccess &l) {
          return structure.contains(l.node->name);
        }))
      continue;
    s.elem = p.components.front();
    s.comps = int64_t(p.components.size());
    s.cells = p.numElements();
    s.strides.assign(p.shape.size(), 1);
    for (int64_t d = int64_t(p.shape.size()) - 2; d >= 0; --d)
      s.strides[d] = s.strides[d + 1] * p.shape[d + 1];
    result.insert({name, s});
  }
  return result;
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}
Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
/// A loop bound as i64 (sign-extended when narrower).
Value toI64(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(64))
    return v;
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
}
Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}
Value addOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

/// The buffers of one privatized field.
struct Buffers {
  Value sums, touched;
};

/// Replaces `op` (an atomic add into a privatized field) by plain updates
/// of this thread's copy: sums[(tid * cells + cell) * comps + comp] += v and
/// touched[tid * cells + cell] = 1, for indices inside the field (outside
/// them the access is undefined behaviour; the copy is not written).
void privatizeAdd(tc::AtomicRMWOp op, const Scatter &s, const Buffers &bufs,
                  Value tid) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  const snode::PlaceLayout &p = *s.place;
  Value inside, lin;
  for (auto [d, idx] : llvm::enumerate(op.getIndices())) {
    Value ext = i32Const(b, loc, p.shape[d]);
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx, ext);
    inside =
        inside ? arith::AndIOp::create(b, loc, inside, ok).getResult() : ok;
    Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), idx);
    Value term =
        arith::MulIOp::create(b, loc, wide, i64Const(b, loc, s.strides[d]));
    lin = lin ? arith::AddIOp::create(b, loc, lin, term).getResult() : term;
  }
  auto ifOp = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  Value tid64 = arith::ExtUIOp::create(tb, loc, tb.getI64Type(), tid);
  Value rowBase =
      arith::MulIOp::create(tb, loc, tid64, i64Const(tb, loc, s.cells));
  Value row = arith::AddIOp::create(tb, loc, rowBase, lin);
  Value scaled =
      arith::MulIOp::create(tb, loc, row, i64Const(tb, loc, s.comps));
  Value elem =
      arith::AddIOp::create(tb, loc, scaled, i64Const(tb, loc, op.getComp()));
  Value at = toIndex(tb, loc, elem);
  Value old = memref::LoadOp::create(tb, loc, bufs.sums, ValueRange{at});
  Value sum = addOf(tb, loc, old, op.getValue());
  memref::StoreOp::create(tb, loc, sum, bufs.sums, ValueRange{at});
  Value one = arith::ConstantIntOp::create(tb, loc, tb.getI8Type(), 1);
  Value flagAt = toIndex(tb, loc, row);
  memref::StoreOp::create(tb, loc, one, bufs.touched, ValueRange{flagAt});
  op.erase();
}

/// The identity of the partial sums' addition: -0.0 for floats (x + -0.0
/// == x, signed zeros included), 0 for integers.
Value sumIdentity(OpBuilder &b, Location loc, Type t) {
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantFloatOp::create(
        b, loc, ft, APFloat::getZero(ft.getFloatSemantics(), true));
  return arith::ConstantIntOp::create(b, loc, t, 0);
}

/// parallel_for over the field's cells: sums the copies of the threads
/// that touched the cell (clearing them) and adds the sum into the field
/// when any did.
void buildMerge(OpBuilder &b, Location loc, StringAttr field, const Scatter &s,
                const Buffers &bufs, Value numThreads) {
  const snode::PlaceLayout &p = *s.place;
  Value lo = i32Const(b, loc, 0), hi = i32Const(b, loc, s.cells);
  auto merge =
      tc::ParallelForOp::create(b, loc, ValueRange{lo}, ValueRange{hi});
  Block *body = &merge.getBody().front();
  OpBuilder mb = OpBuilder::atBlockEnd(body);
  Value cell = body->getArgument(0);
  SmallVector<Value> indices;
  for (auto [d, extent] : llvm::enumerate(p.shape)) {
    Value q =
        arith::DivUIOp::create(mb, loc, cell, i32Const(mb, loc, s.strides[d]));
    indices.push_back(
        d == 0 ? q
               : arith::RemUIOp::create(mb, loc, q, i32Const(mb, loc, extent))
                     .getResult());
  }
  Value cell64 = arith::ExtUIOp::create(mb, loc, mb.getI64Type(), cell);
  Value zeroIdx = arith::ConstantIndexOp::create(mb, loc, 0);
  Value oneIdx = arith::ConstantIndexOp::create(mb, loc, 1);
  Value threads = toIndex(mb, loc, numThreads);
  SmallVector<Value> init{
      arith::ConstantIntOp::create(mb, loc, mb.getI1Type(), 0)};
  for (int64_t c = 0; c < s.comps; ++c)
    init.push_back(sumIdentity(mb, loc, s.elem));
  auto threadLoop = scf::ForOp::create(mb, loc, zeroIdx, threads, oneIdx, init);
  {
    OpBuilder fb = OpBuilder::atBlockBegin(threadLoop.getBody());
    Value t = threadLoop.getInductionVar();
    Value t64 = arith::IndexCastUIOp::create(fb, loc, fb.getI64Type(), t);
    Value rowBase =
        arith::MulIOp::create(fb, loc, t64, i64Const(fb, loc, s.cells));
    Value row = arith::AddIOp::create(fb, loc, rowBase, cell64);
    Value flagAt = toIndex(fb, loc, row);
    Value flag =
        memref::LoadOp::create(fb, loc, bufs.touched, ValueRange{flagAt});
    Value zero8 = arith::ConstantIntOp::create(fb, loc, fb.getI8Type(), 0);
    Value touched =
        arith::CmpIOp::create(fb, loc, arith::CmpIPredicate::ne, flag, zero8);
    SmallVector<Type> sumTypes(s.comps, s.elem);
    auto ifOp = scf::IfOp::create(fb, loc, sumTypes, touched,
                                  /*withElseRegion=*/true);
    {
      OpBuilder tb = ifOp.getThenBodyBuilder();
      Value scaled =
          arith::MulIOp::create(tb, loc, row, i64Const(tb, loc, s.comps));
      // (The copies go back to all-zero bytes: +0.0, not the identity.)
      Value zero = arith::ConstantOp::create(tb, loc, tb.getZeroAttr(s.elem));
      SmallVector<Value> sums;
      for (int64_t c = 0; c < s.comps; ++c) {
        Value e = arith::AddIOp::create(tb, loc, scaled, i64Const(tb, loc, c));
        Value at = toIndex(tb, loc, e);
        Value part = memref::LoadOp::create(tb, loc, bufs.sums, ValueRange{at});
        memref::StoreOp::create(tb, loc, zero, bufs.sums, ValueRange{at});
        sums.push_back(
            addOf(tb, loc, threadLoop.getRegionIterArgs()[1 + c], part));
      }
      memref::StoreOp::create(tb, loc, zero8, bufs.touched, ValueRange{flagAt});
      scf::YieldOp::create(tb, loc, sums);
      OpBuilder eb = ifOp.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc,
                           threadLoop.getRegionIterArgs().drop_front());
    }
    Value any = arith::OrIOp::create(fb, loc, threadLoop.getRegionIterArgs()[0],
                                     touched);
    SmallVector<Value> next{any};
    llvm::append_range(next, ifOp.getResults());
    scf::YieldOp::create(fb, loc, next);
  }
  auto write = scf::IfOp::create(mb, loc, threadLoop.getResult(0),
                                 /*withElse=*/false);
  {
    OpBuilder wb = write.getThenBodyBuilder();
    FlatSymbolRefAttr ref = FlatSymbolRefAttr::get(field);
    for (int64_t c = 0; c < s.comps; ++c) {
      IntegerAttr comp = wb.getI64IntegerAttr(c);
      Value old = tc::LoadOp::create(wb, loc, s.elem, ref, indices, comp);
      Value sum = addOf(wb, loc, old, threadLoop.getResult(1 + c));
      tc::StoreOp::create(wb, loc, sum, ref, indices, comp);
    }
  }
  tc::YieldOp::create(mb, loc);
}

/// The atomic adds of `loop` into the fields of `scatters`.
SmallVector<tc::AtomicRMWOp>
scatterAdds(tc::ParallelForOp loop,
            const llvm::MapVector<StringAttr, Scatter> &scatters) {
  SmallVector<tc::AtomicRMWOp> adds;
  loop.walk([&](tc::AtomicRMWOp a) {
    if (scatters.count(a.getFieldAttr().getAttr()))
      adds.push_back(a);
  });
  return adds;
}

/// `op` (an atomic add whose old value is unused) as a plain load, add and
/// store of the same component: for a loop that runs on one thread.
void demoteAdd(tc::AtomicRMWOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value old =
      tc::LoadOp::create(b, loc, op.getValue().getType(), op.getFieldAttr(),
                         op.getIndices(), op.getCompAttr());
  Value sum = addOf(b, loc, old, op.getValue());
  tc::StoreOp::create(b, loc, sum, op.getFieldAttr(), op.getIndices(),
                      op.getCompAttr());
  op.erase();
}

struct PrivatizeScatterPass
    : tic::impl::PrivatizeScatterBase<PrivatizeScatterPass> {
  using PrivatizeScatterBase::PrivatizeScatterBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    int32_t nextSlot = tc::getNextScratchSlot(module);
    llvm::DenseMap<StringAttr, int32_t> slotOf;
    SmallVector<tc::ParallelForOp> loops;
    for (tc::KernelOp kernel : module.getOps<tc::KernelOp>())
      kernel.walk<WalkOrder::PreOrder>([&](tc::ParallelForOp loop) {
        if (!loop.getSerialize())
          loops.push_back(loop);
        return WalkResult::skip(); // its nested loops run on its threads
      });
    for (tc::ParallelForOp loop : loops) {
      auto scatters = findScatters(loop, layout);
      if (scatters.empty())
        continue;
      for (auto &[name, s] : scatters) {
        // One pair of slots per field, shared by every loop that scatters
        // into it: loops run one after another, and each leaves the copies
        // zero.
        auto [it, fresh] = slotOf.try_emplace(name, nextSlot);
        if (fresh)
          nextSlot += 2;
        s.slot = it->second;
      }
      privatize(loop, scatters);
    }
  }

  void privatize(tc::ParallelForOp loop,
                 llvm::MapVector<StringAttr, Scatter> &scatters) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Type i64 = b.getI64Type();
    // The iterations, and what privatizing costs and saves.
    Value trip = i64Const(b, loc, 1);
    for (auto [lo, hi] :
         llvm::zip(loop.getLowerBounds(), loop.getUpperBounds())) {
      Value l = toI64(b, loc, lo);
      Value h = toI64(b, loc, hi);
      Value n = arith::SubIOp::create(b, loc, h, l);
      n = arith::MaxSIOp::create(b, loc, n, i64Const(b, loc, 0));
      trip = arith::MulIOp::create(b, loc, trip, n);
    }
    int64_t adds = 0, cells = 0, bytesPerThread = 0;
    for (auto &[name, s] : scatters) {
      adds += s.adds;
      cells += s.cells;
      bytesPerThread +=
          s.cells * (s.comps * int64_t(s.elem.getIntOrFloatBitWidth() / 8) + 1);
    }
    Value threads = tc::NumThreadsOp::create(b, loc, b.getI32Type());
    Value t64 = arith::ExtUIOp::create(b, loc, i64, threads);
    Value several = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                          t64, i64Const(b, loc, 1));
    // The merge reads every thread's flags of every cell; an atomic costs
    // far more than those loads. Saturating products: trip counts near
    // 2^63 must not wrap into "cheap".
    Value capped =
        arith::MinUIOp::create(b, loc, trip, i64Const(b, loc, 1LL << 40));
    Value weight = i64Const(b, loc, adds * int64_t(costFactor));
    Value work = arith::MulIOp::create(b, loc, capped, weight);
    Value cost = arith::MulIOp::create(b, loc, t64, i64Const(b, loc, cells));
    Value cheap =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, cost, work);
    Value bytes =
        arith::MulIOp::create(b, loc, t64, i64Const(b, loc, bytesPerThread));
    Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, bytes,
                                       i64Const(b, loc, kMaxBytesTotal));
    Value use = arith::AndIOp::create(b, loc, several, cheap);
    use = arith::AndIOp::create(b, loc, use, fits);
    // In an object that also runs on a GPU: on a CPU context only.
    Value onCPU;
    if (device) {
      Value gpu = tc::OnDeviceOp::create(b, loc, b.getI1Type());
      onCPU = arith::XOrIOp::create(
          b, loc, gpu, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
      use = arith::AndIOp::create(b, loc, use, onCPU);
    }
    // The buffers (empty when unused), then whether they were allocated.
    Value zero = i64Const(b, loc, 0);
    llvm::MapVector<StringAttr, Buffers> bufs;
    for (auto &[name, s] : scatters) {
      Value nCells =
          arith::MulIOp::create(b, loc, t64, i64Const(b, loc, s.cells));
      Value nSums =
          arith::MulIOp::create(b, loc, nCells, i64Const(b, loc, s.comps));
      nSums = arith::SelectOp::create(b, loc, use, nSums, zero);
      nCells = arith::SelectOp::create(b, loc, use, nCells, zero);
      Buffers &bf = bufs[name];
      bf.sums = tc::ScratchOp::create(
          b, loc, MemRefType::get({ShapedType::kDynamic}, s.elem), s.slot,
          nSums);
      bf.touched = tc::ScratchOp::create(
          b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type()),
          s.slot + 1, nCells);
      for (Value buf : {bf.sums, bf.touched}) {
        Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buf);
        Value nz =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, p,
                                  arith::ConstantIndexOp::create(b, loc, 0));
        use = arith::AndIOp::create(b, loc, use, nz);
      }
    }
    auto ifOp = scf::IfOp::create(b, loc, use, /*withElse=*/true);
    // Else, on one thread: plain adds into the field itself (the same
    // additions in the same order as the atomics: the same bits).
    // Otherwise: the loop as it was.
    OpBuilder elseB = ifOp.getElseBodyBuilder();
    Value one32 = i32Const(elseB, loc, 1);
    Value alone = arith::CmpIOp::create(elseB, loc, arith::CmpIPredicate::eq,
                                        threads, one32);
    if (onCPU)
      alone = arith::AndIOp::create(elseB, loc, alone, onCPU);
    auto serial = scf::IfOp::create(elseB, loc, alone, /*withElse=*/true);
    loop->moveBefore(serial.elseBlock()->getTerminator());
    OpBuilder sb = serial.getThenBodyBuilder();
    auto plain = cast<tc::ParallelForOp>(sb.clone(*loop));
    for (tc::AtomicRMWOp a : scatterAdds(plain, scatters))
      demoteAdd(a);
    // Then: the private copy, and the merges.
    OpBuilder tb = ifOp.getThenBodyBuilder();
    auto priv = cast<tc::ParallelForOp>(tb.clone(*loop));
    Block &entry = priv.getBody().front();
    OpBuilder eb = OpBuilder::atBlockBegin(&entry);
    Value tid = tc::ThreadIndexOp::create(eb, loc, eb.getI32Type());
    for (tc::AtomicRMWOp a : scatterAdds(priv, scatters)) {
      StringAttr f = a.getFieldAttr().getAttr();
      privatizeAdd(a, scatters.find(f)->second, bufs.find(f)->second, tid);
    }
    for (auto &[name, s] : scatters)
      buildMerge(tb, loc, name, s, bufs.find(name)->second, threads);
    // The device module has no kernels for the new loops.
    if (device) {
      auto mark = [](Region &r) {
        r.walk([](tc::ParallelForOp pf) { pf.setHostOnly(true); });
      };
      mark(ifOp.getThenRegion());
      mark(serial.getThenRegion());
    }
  }
};

} // namespace

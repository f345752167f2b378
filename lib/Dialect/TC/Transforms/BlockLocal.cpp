//===- BlockLocal.cpp - tic-block-local -----------------------------------===//
//
// block_local(x) in a struct-for over a field f whose elements sit in a
// dense, bitmasked or pointer node P (Taichi's block local storage): the
// loop becomes one over P's containers, the blocks, each a cell of P's
// parent G,
//
//   tc.struct_for @G (%b...) {                 (G the root: one iteration)
//     %buf = tc.block_buffer : memref<E0 x E1 [x C] x T>
//     tc.block_for (%t0, %t1) to (E0, E1) {    the footprint, copied once
//       %g_a = %b_a * r_a + lo_a + %t_a
//       buf[t] = in range(g) ? x[g] : 0
//     }
//     tc.block_for (%e0, %e1) to (r0, r1) {    the elements
//       %i_a = %b_a * r_a + %e_a
//       body, with x[i + c] read as buf[e + c - lo] (if P is sparse:
//       under tc.is_active @P[i])
//     }
//   }
//
// where r_a is the block's extent along axis a (the elements of P in a cell
// of G) and [lo_a, hi_a] the range of the constant offsets c_a of the
// body's reads of x, so E_a = r_a + hi_a - lo_a. A field the body only adds
// to (atomic adds with unused results: a scatter) is accumulated instead:
// the buffer starts at 0, the adds go to it (atomically: the block's
// threads share it), a second buffer notes the slots added to, and after
// the elements one more tc.block_for adds each noted slot to the field
// (activating its cell, as the add it stands for did). On a GPU a block of
// threads runs each iteration and the buffers are its shared memory; on a
// CPU one thread runs it, the buffers on its stack.
//
//===----------------------------------------------------------------------===//
#include "StructForShared.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace tic {
#define GEN_PASS_DEF_BLOCKLOCAL
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// Static shared memory a GPU block may use (48 KiB without opting in).
constexpr int64_t kMaxBufferBytes = 48 * 1024;
/// The most threads a GPU block has.
constexpr int64_t kMaxBlockThreads = 1024;
/// The threads of a block of a list's elements, by default.
constexpr int64_t kListThreads = 256;

/// Where an access's index lies along one axis from the loop's index i:
/// i * scale + lo exactly (`exact`: iv times a constant, plus a constant),
/// or somewhere in [i * scale + lo, i * scale + hi] (an assume_in_range
/// with the loop's index, or a multiple of it, as its base).
struct Offset {
  int64_t lo = 0, hi = 0;
  bool exact = true;
  int64_t scale = 1;
};

/// One block_local field: its accesses at constant offsets from the loop's
/// indices and the buffers they become.
struct Cached {
  StringRef field;
  const snode::PlaceLayout *place = nullptr;
  /// Reads (tc.load), or additions (tc.atomic_rmw add, result unused).
  bool adds = false;
  SmallVector<Operation *> accesses;
  /// Per access, per axis: where the index lies from the loop's index.
  SmallVector<SmallVector<Offset>> offsets;
  SmallVector<int64_t> lo, hi, extents;
  /// Per axis: the accesses' scale of the loop's index (the same for all).
  SmallVector<int64_t> scales;
  /// Per axis: the block's first element times the scale, in the
  /// iteration over blocks (the footprint starts at it plus lo).
  SmallVector<Value> scaledBase;
  Type elementType;
  unsigned components = 1;
  /// The values (reads: copied in; adds: summed), and for adds which slots
  /// were added to (i8).
  Value buffer, touched;
};

/// s when `x` is `iv` (1) or `iv * s` for a constant s > 0.
static std::optional<int64_t> scaleOf(Value x, Value iv) {
  if (x == iv)
    return 1;
  auto mul = x.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  APInt c;
  if ((mul.getLhs() == iv && matchPattern(mul.getRhs(), m_ConstantInt(&c))) ||
      (mul.getRhs() == iv && matchPattern(mul.getLhs(), m_ConstantInt(&c))))
    if (c.getSExtValue() > 0 && c.getSExtValue() <= (int64_t(1) << 30))
      return c.getSExtValue();
  return std::nullopt;
}

/// Where `v` lies from the loop's index `iv`: iv * s plus a constant, or an
/// assume_in_range(x, iv * s + d, lo, hi) plus a constant c (in
/// [iv * s + d + lo + c, iv * s + d + hi - 1 + c]); nothing otherwise.
static std::optional<Offset> offsetFrom(Value v, Value iv) {
  auto [x, k] = tc::splitConstantOffset(v);
  if (std::optional<int64_t> s = scaleOf(x, iv))
    return Offset{k, k, true, *s};
  auto assume = x.getDefiningOp<tc::AssumeInRangeOp>();
  if (!assume)
    return std::nullopt;
  auto [b, d] = tc::splitConstantOffset(assume.getBase());
  std::optional<int64_t> s = scaleOf(b, iv);
  if (!s)
    return std::nullopt;
  return Offset{d + assume.getLoAttr().getInt() + k,
                d + assume.getHiAttr().getInt() - 1 + k, false, *s};
}

/// Where `indices` lie from the loop's `ivs`, per position, or nothing.
static std::optional<SmallVector<Offset>> offsetsFrom(ValueRange indices,
                                                      ValueRange ivs) {
  SmallVector<Offset> off;
  for (auto [v, iv] : llvm::zip(indices, ivs)) {
    std::optional<Offset> o = offsetFrom(v, iv);
    if (!o)
      return std::nullopt;
    off.push_back(*o);
  }
  return off;
}

/// Finds how the body uses field `c.field`: reads only or additions only,
/// all at the loop's indices plus constants (reads elsewhere stay field
/// reads). A reason when the hint cannot be followed.
static std::optional<std::string> classify(Cached &c, Region &body,
                                           ValueRange ivs) {
  SmallVector<tc::LoadOp> loads;
  SmallVector<Operation *> writes;
  body.walk([&](Operation *op) {
    auto field = op->getAttrOfType<FlatSymbolRefAttr>("field");
    if (!field || field.getValue() != c.field)
      return;
    if (auto load = dyn_cast<tc::LoadOp>(op)) {
      if (!load->hasAttr(tc::kWholeWordAttrName))
        loads.push_back(load);
    } else if (isa<tc::StoreOp, tc::AtomicRMWOp>(op)) {
      writes.push_back(op);
    }
  });
  std::string name = ("'" + c.field + "'").str();
  if (!writes.empty()) {
    if (!loads.empty())
      return "the loop reads and writes " + name;
    for (Operation *op : writes) {
      auto rmw = dyn_cast<tc::AtomicRMWOp>(op);
      if (!rmw || rmw.getKind() != tc::AtomicKind::add ||
          !rmw.getResult().use_empty())
        return "the loop writes " + name + " other than by adding to it";
      std::optional<SmallVector<Offset>> off =
          offsetsFrom(rmw.getIndices(), ivs);
      if (!off)
        return "an addition to " + name +
               " is not at the loop's indices plus constants (or an "
               "assume_in_range of them)";
      c.accesses.push_back(rmw);
      c.offsets.push_back(std::move(*off));
    }
    c.adds = true;
    return std::nullopt;
  }
  for (tc::LoadOp load : loads)
    if (std::optional<SmallVector<Offset>> off =
            offsetsFrom(load.getIndices(), ivs)) {
      c.accesses.push_back(load);
      c.offsets.push_back(std::move(*off));
    }
  if (c.accesses.empty())
    return "no read of " + name +
           " is at the loop's indices plus constants (or an assume_in_range "
           "of them)";
  return std::nullopt;
}

struct BlockLocalPass : tic::impl::BlockLocalBase<BlockLocalPass> {
  using BlockLocalBase::BlockLocalBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    SmallVector<tc::StructForOp> loops;
    module.walk([&](tc::StructForOp op) {
      if (op.getBlockLocalAttr())
        loops.push_back(op);
    });
    for (tc::StructForOp sf : loops) {
      if (cache) {
        rewrite(sf, layout);
      } else {
        sf.removeBlockLocalAttr();
        sf->removeAttr(tc::kDerivedHintAttrName);
      }
    }
    // The promises have served: each assume_in_range is its value.
    module.walk([](tc::AssumeInRangeOp op) {
      op.getResult().replaceAllUsesWith(op.getValue());
      op.erase();
    });
  }

  void rewrite(tc::StructForOp sf, const snode::SNodeLayout &layout) {
    ArrayAttr hint = sf.getBlockLocalAttr();
    sf.removeBlockLocalAttr();
    bool derived = sf->removeAttr(tc::kDerivedHintAttrName) != nullptr;
    auto ignore = [&](const Twine &why) {
      if (warn && !derived)
        sf.emitWarning("'block_local' is ignored: ") << why;
    };
    const snode::PlaceLayout *pl = layout.lookupPlace(sf.getTarget());
    if (!pl)
      return ignore("the loop is over the cells of SNode '" + sf.getTarget() +
                    "', not over a field's elements");
    // The node holding the elements: dense, or bitmasked or pointer (an
    // element is then visited when its cell is active, as the loop does),
    // or dynamic (`lists`: a block is a list, its elements those below its
    // length; the cached fields are indexed by the lists' indices, the
    // loop's but the last).
    const snode::NodeLayout *P = pl->parent;
    if (!P || (P->kind != snode::SNodeKind::Dense &&
               P->kind != snode::SNodeKind::Bitmasked &&
               P->kind != snode::SNodeKind::Pointer &&
               P->kind != snode::SNodeKind::Dynamic))
      return ignore("the elements of '" + sf.getTarget() +
                    "' are not in a dense, bitmasked, pointer or dynamic "
                    "SNode");
    bool lists = P->kind == snode::SNodeKind::Dynamic;
    bool sparseElements = P->kind != snode::SNodeKind::Dense && !lists;
    const snode::NodeLayout *G = P->parent;
    if (lists && (!G || G->cellIndexShape.empty()))
      return ignore("'" + sf.getTarget() + "' is a single list");
    if (G && G->kind != snode::SNodeKind::Dense &&
        G->kind != snode::SNodeKind::Pointer &&
        G->kind != snode::SNodeKind::Bitmasked &&
        G->kind != snode::SNodeKind::Hash)
      return ignore("the blocks of '" + sf.getTarget() + "' are in a " +
                    snode::stringifySNodeKind(G->kind) + " SNode");
    unsigned rank = pl->shape.size();
    // The block's extent per axis: P's elements in one cell of G.
    SmallVector<int64_t> ratios;
    int64_t threads = 1;
    for (unsigned a = 0; a < rank; ++a) {
      ratios.push_back(ratioAt(
          G ? ArrayRef(G->cellIndexShape) : ArrayRef<int64_t>(), pl->shape, a));
      threads *= ratios.back();
    }
    if (threads < 2)
      return ignore("a block of '" + sf.getTarget() + "' has one element");
    // The axes of the cached fields: the loop's, or its lists'.
    unsigned frank = rank - lists;

    ValueRange ivs = sf.getInductionVars().take_front(frank);
    SmallVector<Cached, 2> cached;
    int64_t bytes = 0;
    for (Attribute a : hint) {
      Cached c;
      c.field = cast<FlatSymbolRefAttr>(a).getValue();
      c.place = layout.lookupPlace(c.field);
      if (!c.place || c.place->shape.size() != frank) {
        ignore("'" + c.field + "' does not have the " + Twine(frank) +
               " indices of the loop's " + (lists ? "lists" : "elements"));
        continue;
      }
      c.elementType = c.place->components.front();
      c.components = c.place->components.size();
      if (llvm::any_of(c.place->components,
                       [&](Type t) { return t != c.elementType; })) {
        ignore("the components of '" + c.field + "' differ in type");
        continue;
      }
      if (std::optional<std::string> why = classify(c, sf.getBody(), ivs)) {
        ignore(*why);
        continue;
      }
      c.lo.assign(frank, INT64_MAX);
      c.hi.assign(frank, INT64_MIN);
      c.scales.assign(frank, 0);
      bool oneScale = true;
      for (auto &off : c.offsets)
        for (unsigned k = 0; k < frank; ++k) {
          c.lo[k] = std::min(c.lo[k], off[k].lo);
          c.hi[k] = std::max(c.hi[k], off[k].hi);
          oneScale &= !c.scales[k] || c.scales[k] == off[k].scale;
          c.scales[k] = off[k].scale;
        }
      if (!oneScale) {
        ignore("the accesses to '" + c.field +
               "' scale the loop's indices differently");
        continue;
      }
      // Bytes per slot: the value, and an i8 flag per component for adds.
      int64_t n = c.components *
                  ((c.elementType.getIntOrFloatBitWidth() + 7) / 8 + c.adds);
      for (unsigned k = 0; k < frank; ++k) {
        // The block's elements span (r - 1) * s + 1 indices of the field.
        c.extents.push_back((ratios[k] - 1) * c.scales[k] + 1 + c.hi[k] -
                            c.lo[k]);
        n *= c.extents.back();
      }
      if (bytes + n > kMaxBufferBytes) {
        ignore("the buffer of '" + c.field + "' (" + Twine(n) +
               " bytes) would pass the " + Twine(kMaxBufferBytes) +
               " bytes of a GPU block's shared memory");
        continue;
      }
      bytes += n;
      cached.push_back(std::move(c));
    }
    if (cached.empty())
      return;

    // The loop over the blocks.
    OpBuilder b(sf);
    Location loc = sf.getLoc();
    Type i32 = b.getI32Type();
    auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
      return arith::ConstantIntOp::create(bb, loc, i32, v);
    };
    // A block of threads per block of elements (a list: up to
    // kListThreads), unless loop_config chose.
    IntegerAttr blockDim = sf.getBlockDimAttr();
    if (!blockDim)
      blockDim = b.getI32IntegerAttr(
          std::min(threads, lists ? kListThreads : kMaxBlockThreads));
    Operation *outer;
    SmallVector<Value> blockIdx;
    if (G) {
      auto loop = tc::StructForOp::create(b, loc, G->name, sf.getSerialize(),
                                          sf.getParallelizeAttr(), blockDim,
                                          sf.getGrainAttr(), nullptr);
      Block *entry = new Block();
      loop.getBody().push_back(entry);
      for (size_t k = 0; k < G->cellIndexShape.size(); ++k)
        blockIdx.push_back(entry->addArgument(i32, loc));
      outer = loop;
    } else {
      // The root's one cell: one block.
      Value lo = cst(b, 0), hi = cst(b, 1);
      auto loop =
          tc::ParallelForOp::create(b, loc, ValueRange{lo}, ValueRange{hi});
      if (sf.getSerialize())
        loop.setSerialize(true);
      if (auto v = sf.getParallelizeAttr())
        loop.setParallelizeAttr(v);
      if (auto v = sf.getGrainAttr())
        loop.setGrainAttr(v);
      loop.setBlockDimAttr(blockDim);
      outer = loop;
    }
    Block *outerBody = &outer->getRegion(0).front();
    b.setInsertionPointToStart(outerBody);
    bool unbounded = G && G->underHash;
    auto flags = arith::IntegerOverflowFlags::nsw;
    if (!unbounded)
      flags = flags | arith::IntegerOverflowFlags::nuw;
    // The block's first element, per axis.
    SmallVector<Value> base;
    for (unsigned a = 0; a < rank; ++a)
      base.push_back(a < blockIdx.size()
                         ? Value(arith::MulIOp::create(
                               b, loc, blockIdx[a], cst(b, ratios[a]), flags))
                         : cst(b, 0));
    auto index = [&](OpBuilder &ib, Value v) -> Value {
      return arith::IndexCastOp::create(ib, loc, ib.getIndexType(), v);
    };
    Type i8 = b.getI8Type();
    auto zeroOf = [&](OpBuilder &bb, Type t) -> Value {
      return arith::ConstantOp::create(bb, loc, t, bb.getZeroAttr(t));
    };

    // The deepest node of the loop's path that can be inactive (`sparse`:
    // an element the body runs on is active down to it), and the deepest
    // at or above the blocks (`blockSparse`: the block is active down to
    // it; the same node unless the elements' own node is sparse).
    const snode::LevelAccess *sparse = nullptr, *blockSparse = nullptr;
    for (const snode::LevelAccess &lv : pl->levels)
      if (!snode::isAlwaysActive(lv.node->kind)) {
        sparse = &lv;
        if (lv.node != P)
          blockSparse = &lv;
      }
    // Whether field `c`'s elements inside the block (indices [base * s,
    // (base + r) * s) per axis) are in the block's own active cell down to
    // `blockSparse`: the field reaches that node, s times the loop's
    // elements below it per axis (the same cells when s = 1; a list's
    // block of s cells of a grid beside it). Their accesses need no
    // activation and no test there.
    auto sharesCells = [&](const Cached &c) {
      if (!knownActive || !blockSparse)
        return false;
      const snode::LevelAccess *lv =
          levelAt(c.place->levels, *blockSparse->node);
      if (!lv || lv->below.size() != blockSparse->below.size())
        return false;
      for (auto [k, axis] : llvm::enumerate(blockSparse->node->axes))
        if (axis >= int64_t(frank) ||
            lv->below[k] != blockSparse->below[k] * c.scales[axis])
          return false;
      return true;
    };
    // `op` (a field access of `c` at g), or, when g is inside the block and
    // `c` shares its cells, the same access marked known active.
    auto inOwnCell = [&](OpBuilder &fb, const Cached &c, Value inBlock,
                         function_ref<Value(OpBuilder &, bool)> access,
                         Type result) -> Value {
      if (!inBlock || !sharesCells(c))
        return access(fb, false);
      auto ifOp = scf::IfOp::create(
          fb, loc, result ? TypeRange{result} : TypeRange{}, inBlock,
          /*withElse=*/true);
      OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
      Value v = access(tb, true);
      if (result)
        scf::YieldOp::create(tb, loc, v);
      OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
      Value w = access(eb, false);
      if (result)
        scf::YieldOp::create(eb, loc, w);
      return result ? ifOp.getResult(0) : Value();
    };
    auto markActive = [&](Operation *op) {
      op->setAttr(
          tc::kKnownActiveAttrName,
          FlatSymbolRefAttr::get(op->getContext(), blockSparse->node->name));
    };

    // A tc.block_for over a field's footprint: `each(builder, global
    // indices, in range (null: always), in the block, slot of component
    // k)` per component, at the builder's insertion point.
    using EachSlot = function_ref<void(OpBuilder &, ArrayRef<Value>, Value,
                                       Value, ArrayRef<Value>)>;
    auto footprintLoop = [&](Cached &c, EachSlot each) {
      auto loop = tc::BlockForOp::create(b, loc, c.extents);
      Block *fb = new Block();
      loop.getBody().push_back(fb);
      OpBuilder fbB = OpBuilder::atBlockEnd(fb);
      SmallVector<Value> g, at;
      Value inside, inBlock;
      bool fieldUnbounded = llvm::any_of(
          c.place->levels, [](auto &lv) { return lv.node->underHash; });
      for (unsigned a = 0; a < frank; ++a) {
        Value t = fb->addArgument(i32, loc);
        at.push_back(index(fbB, t));
        Value off = arith::AddIOp::create(fbB, loc, t, cst(fbB, c.lo[a]),
                                          arith::IntegerOverflowFlags::nsw);
        Value ga = arith::AddIOp::create(fbB, loc, c.scaledBase[a], off,
                                         arith::IntegerOverflowFlags::nsw);
        g.push_back(ga);
        // 0 <= g - base * s < r * s: the element is the block's.
        Value mine =
            arith::CmpIOp::create(fbB, loc, arith::CmpIPredicate::ult, off,
                                  cst(fbB, ratios[a] * c.scales[a]));
        inBlock =
            inBlock ? arith::AndIOp::create(fbB, loc, inBlock, mine) : mine;
        if (fieldUnbounded)
          continue;
        // 0 <= g < extent, as one unsigned comparison.
        Value in = arith::CmpIOp::create(fbB, loc, arith::CmpIPredicate::ult,
                                         ga, cst(fbB, c.place->shape[a]));
        inside = inside ? arith::AndIOp::create(fbB, loc, inside, in) : in;
      }
      for (unsigned comp = 0; comp < c.components; ++comp) {
        SmallVector<Value> slot(at);
        if (c.components > 1)
          slot.push_back(arith::ConstantIndexOp::create(fbB, loc, comp));
        each(fbB, g, inside, inBlock, slot);
      }
      tc::YieldOp::create(fbB, loc);
    };

    // Before the elements: each read field's footprint copied in (x[g], 0
    // outside the field's index space), each added one's buffers zeroed.
    for (Cached &c : cached) {
      for (unsigned a = 0; a < frank; ++a)
        c.scaledBase.push_back(
            c.scales[a] == 1
                ? base[a]
                : Value(arith::MulIOp::create(b, loc, base[a],
                                              cst(b, c.scales[a]), flags)));
      SmallVector<int64_t> shape(c.extents);
      if (c.components > 1)
        shape.push_back(c.components);
      c.buffer = tc::BlockBufferOp::create(
          b, loc, MemRefType::get(shape, c.elementType));
      if (c.adds)
        c.touched =
            tc::BlockBufferOp::create(b, loc, MemRefType::get(shape, i8));
      footprintLoop(c, [&](OpBuilder &fb, ArrayRef<Value> g, Value inside,
                           Value inBlock, ArrayRef<Value> slot) {
        Value v;
        if (c.adds) {
          memref::StoreOp::create(fb, loc, zeroOf(fb, i8), c.touched, slot);
          v = zeroOf(fb, c.elementType);
        } else {
          int64_t k = 0;
          if (c.components > 1)
            k = getConstantIntValue(slot.back()).value_or(0);
          auto read = [&](OpBuilder &rb, bool own) -> Value {
            auto load =
                tc::LoadOp::create(rb, loc, c.elementType, c.field, g, k);
            if (own)
              markActive(load);
            return load.getResult();
          };
          // Outside the field's index space: 0 (nothing to read).
          auto guarded = [&](OpBuilder &gb, bool own) -> Value {
            if (own || !inside)
              return read(gb, own);
            auto ifOp = scf::IfOp::create(gb, loc, TypeRange{c.elementType},
                                          inside, /*withElse=*/true);
            OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
            scf::YieldOp::create(tb, loc, read(tb, false));
            OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
            scf::YieldOp::create(eb, loc, zeroOf(eb, c.elementType));
            return ifOp.getResult(0);
          };
          v = inOwnCell(fb, c, inBlock, guarded, c.elementType);
        }
        memref::StoreOp::create(fb, loc, v, c.buffer, slot);
      });
    }

    // The elements: the loop's body, its indices base + e (a list's: the
    // list's indices, then e below its length).
    tc::BlockForOp elems;
    if (lists) {
      auto length = tc::LengthOp::create(b, loc, i32, P->name,
                                         ArrayRef(base).take_front(frank));
      // The list is in the active cell of G the loop visits.
      if (knownActive && blockSparse)
        markActive(length);
      elems = tc::BlockForOp::create(b, loc, ValueRange{length},
                                     ArrayRef<int64_t>{ShapedType::kDynamic});
    } else {
      elems = tc::BlockForOp::create(b, loc, ratios);
    }
    elems.getBody().takeBody(sf.getBody());
    Block *body = &elems.getBody().front();
    OpBuilder eb = OpBuilder::atBlockBegin(body);
    SmallVector<Value> elemIdx, indices;
    for (unsigned a = 0; a < rank; ++a) {
      if (lists && a < frank) {
        elemIdx.push_back(cst(eb, 0));
        indices.push_back(base[a]);
        body->getArgument(a).replaceAllUsesWith(base[a]);
        continue;
      }
      Value e = body->addArgument(i32, loc);
      elemIdx.push_back(e);
      Value i = arith::AddIOp::create(eb, loc, base[a], e, flags);
      body->getArgument(a).replaceAllUsesWith(i);
      indices.push_back(i);
    }
    body->eraseArguments(0, rank);
    // Elements in a sparse node: the body runs on the active ones.
    if (sparseElements) {
      Value active =
          tc::IsActiveOp::create(eb, loc, eb.getI1Type(), P->name, indices);
      auto guard = scf::IfOp::create(eb, loc, active, /*withElse=*/false);
      Block *then = guard.thenBlock();
      then->getOperations().splice(then->begin(), body->getOperations(),
                                   std::next(guard->getIterator()),
                                   body->getTerminator()->getIterator());
    }

    // The accesses, to the buffers: at e + c - lo (in [0, E)), or for an
    // index v an assume_in_range bounds, v - (base + lo).
    auto inBuffer =
        arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
    for (Cached &c : cached)
      for (auto [op, off] : llvm::zip(c.accesses, c.offsets)) {
        OpBuilder lb(op);
        ValueRange idx = isa<tc::LoadOp>(op) ? op->getOperands()
                                             : op->getOperands().drop_front();
        SmallVector<Value> slot;
        for (unsigned a = 0; a < frank; ++a) {
          Value at;
          if (off[a].exact) {
            // e * s + k - lo.
            Value e = elemIdx[a];
            if (c.scales[a] != 1)
              e = arith::MulIOp::create(lb, loc, e, cst(lb, c.scales[a]),
                                        inBuffer);
            at = arith::AddIOp::create(lb, loc, e, cst(lb, off[a].lo - c.lo[a]),
                                       inBuffer);
          } else {
            // In [0, E) as promised; checked, possibly not (no flags: the
            // guard below tests it).
            at = arith::SubIOp::create(
                lb, loc, idx[a],
                arith::AddIOp::create(lb, loc, c.scaledBase[a],
                                      cst(lb, c.lo[a])),
                checked ? arith::IntegerOverflowFlags::none : inBuffer);
          }
          slot.push_back(index(lb, at));
        }
        int64_t comp = op->getAttrOfType<IntegerAttr>("comp")
                           ? op->getAttrOfType<IntegerAttr>("comp").getInt()
                           : 0;
        if (c.components > 1)
          slot.push_back(arith::ConstantIndexOp::create(lb, loc, comp));
        // -g: a broken promise (a slot outside the buffer) goes to the
        // field, as the access did without the hint (code generation
        // reports the promise).
        std::optional<scf::IfOp> guard;
        if (checked &&
            llvm::any_of(off, [](const Offset &o) { return !o.exact; })) {
          Value ok;
          for (unsigned a = 0; a < frank; ++a) {
            if (off[a].exact)
              continue;
            // (One op per statement: the IR's order must not depend on the
            // C++ compiler's order of evaluating arguments.)
            Value extent = cst(lb, c.extents[a]);
            Value s32 = arith::IndexCastOp::create(lb, loc, i32, slot[a]);
            Value in = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult,
                                             s32, extent);
            ok = ok ? arith::AndIOp::create(lb, loc, ok, in) : in;
          }
          auto load = dyn_cast<tc::LoadOp>(op);
          guard = scf::IfOp::create(
              lb, loc, load ? TypeRange{load.getType()} : TypeRange{}, ok,
              /*withElse=*/true);
          OpBuilder fb = OpBuilder::atBlockBegin(guard->elseBlock());
          Operation *plain = fb.clone(*op);
          if (load)
            scf::YieldOp::create(fb, loc, plain->getResult(0));
          lb.setInsertionPointToStart(guard->thenBlock());
        }
        if (auto load = dyn_cast<tc::LoadOp>(op)) {
          Value v = memref::LoadOp::create(lb, load.getLoc(), c.buffer, slot);
          if (guard) {
            scf::YieldOp::create(lb, loc, v);
            v = guard->getResult(0);
          }
          load.getResult().replaceAllUsesWith(v);
        } else {
          auto rmw = cast<tc::AtomicRMWOp>(op);
          auto kind = isa<FloatType>(c.elementType)
                          ? arith::AtomicRMWKind::addf
                          : arith::AtomicRMWKind::addi;
          memref::AtomicRMWOp::create(lb, rmw.getLoc(), kind, rmw.getValue(),
                                      c.buffer, slot);
          memref::StoreOp::create(
              lb, rmw.getLoc(),
              arith::ConstantOp::create(lb, loc, i8, lb.getIntegerAttr(i8, 1)),
              c.touched, slot);
        }
        op->erase();
      }

    // After the elements: each added field's noted slots added to it.
    for (Cached &c : cached) {
      if (!c.adds)
        continue;
      footprintLoop(c, [&](OpBuilder &fb, ArrayRef<Value> g, Value inside,
                           Value inBlock, ArrayRef<Value> slot) {
        Value flag = memref::LoadOp::create(fb, loc, c.touched, slot);
        Value noted = arith::CmpIOp::create(fb, loc, arith::CmpIPredicate::ne,
                                            flag, zeroOf(fb, i8));
        Value go =
            inside ? arith::AndIOp::create(fb, loc, inside, noted) : noted;
        auto ifOp = scf::IfOp::create(fb, loc, go, /*withElse=*/false);
        OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
        int64_t k = 0;
        if (c.components > 1)
          k = getConstantIntValue(slot.back()).value_or(0);
        Value sum = memref::LoadOp::create(tb, loc, c.buffer, slot);
        inOwnCell(
            tb, c, inBlock,
            [&](OpBuilder &ab, bool own) -> Value {
              auto add = tc::AtomicRMWOp::create(ab, loc, tc::AtomicKind::add,
                                                 sum, c.field, g, k);
              if (own)
                markActive(add);
              return Value();
            },
            Type());
      });
    }
    tc::YieldOp::create(b, loc);

    // The element's own cell is active down to the deepest node of its
    // path that can be inactive (it is in an active block, and the block's
    // elements are dense): as tic-lower-struct-for marks the original loop.
    if (knownActive && sparse)
      markKnownActive(elems.getBody(), layout, *sparse->node, *sparse, indices);
    sf.erase();
  }
};
} // namespace

//===- BlockLocal.cpp - tic-block-local -----------------------------------===//
//
// block_local(x) in a struct-for over a field f whose elements sit in a
// dense node P (Taichi's block local storage): the loop becomes one over
// P's containers, the blocks, each a cell of P's parent G,
//
//   tc.struct_for @G (%b...) {                 (G the root: one iteration)
//     %buf = tc.block_buffer : memref<E0 x E1 [x C] x T>
//     tc.block_for (%t0, %t1) to (E0, E1) {    the footprint, copied once
//       %g_a = %b_a * r_a + lo_a + %t_a
//       buf[t] = in range(g) ? x[g] : 0
//     }
//     tc.block_for (%e0, %e1) to (r0, r1) {    the elements
//       %i_a = %b_a * r_a + %e_a
//       body, with x[i + c] read as buf[e + c - lo]
//     }
//   }
//
// where r_a is the block's extent along axis a (the elements of P in a cell
// of G) and [lo_a, hi_a] the range of the constant offsets c_a of the
// body's reads of x, so E_a = r_a + hi_a - lo_a. On a GPU a block of
// threads runs each iteration and the buffer is its shared memory; on a
// CPU one thread runs it, the buffer on its stack.
//
//===----------------------------------------------------------------------===//
#include "KnownActive.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

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

/// One block_local field: its reads at constant offsets from the loop's
/// indices and the buffer they become.
struct Cached {
  StringRef field;
  const snode::PlaceLayout *place = nullptr;
  SmallVector<tc::LoadOp> loads;
  /// Per load, per axis: the constant offset.
  SmallVector<SmallVector<int64_t>> offsets;
  SmallVector<int64_t> lo, hi, extents;
  Type elementType;
  unsigned components = 1;
  Value buffer;
};

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
    for (tc::StructForOp sf : loops)
      rewrite(sf, layout);
  }

  /// Whether `op` writes field `name`.
  static bool writes(Operation *op, StringRef name) {
    auto field = op->getAttrOfType<FlatSymbolRefAttr>("field");
    return field && field.getValue() == name &&
           isa<tc::StoreOp, tc::AtomicRMWOp>(op);
  }

  void rewrite(tc::StructForOp sf, const snode::SNodeLayout &layout) {
    ArrayAttr hint = sf.getBlockLocalAttr();
    sf.removeBlockLocalAttr();
    auto ignore = [&](const Twine &why) {
      if (warn)
        sf.emitWarning("'block_local' is ignored: ") << why;
    };
    const snode::PlaceLayout *pl = layout.lookupPlace(sf.getTarget());
    if (!pl)
      return ignore("the loop is over the cells of SNode '" + sf.getTarget() +
                    "', not over a field's elements");
    const snode::NodeLayout *P = pl->parent;
    if (!P || P->kind != snode::SNodeKind::Dense)
      return ignore("the elements of '" + sf.getTarget() +
                    "' are not in a dense SNode (a block)");
    const snode::NodeLayout *G = P->parent;
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
      int64_t r = pl->shape[a];
      if (G && a < G->cellIndexShape.size())
        r /= G->cellIndexShape[a];
      ratios.push_back(r);
      threads *= r;
    }
    if (threads < 2)
      return ignore("a block of '" + sf.getTarget() + "' has one element");

    ValueRange ivs = sf.getInductionVars();
    // The reads of each hinted field at the loop's indices plus constants.
    SmallVector<Cached, 2> cached;
    int64_t bytes = 0;
    for (Attribute a : hint) {
      Cached c;
      c.field = cast<FlatSymbolRefAttr>(a).getValue();
      c.place = layout.lookupPlace(c.field);
      if (!c.place || c.place->shape.size() != rank) {
        ignore("'" + c.field + "' does not have the loop's " + Twine(rank) +
               " indices");
        continue;
      }
      if (sf.getBody()
              .walk([&](Operation *op) {
                return writes(op, c.field) ? WalkResult::interrupt()
                                           : WalkResult::advance();
              })
              .wasInterrupted()) {
        ignore("the loop writes '" + c.field + "'");
        continue;
      }
      c.elementType = c.place->components.front();
      c.components = c.place->components.size();
      if (llvm::any_of(c.place->components,
                       [&](Type t) { return t != c.elementType; })) {
        ignore("the components of '" + c.field + "' differ in type");
        continue;
      }
      sf.getBody().walk([&](tc::LoadOp load) {
        if (load.getField() != c.field || load->hasAttr(tc::kWholeWordAttrName))
          return;
        SmallVector<int64_t> off;
        for (auto [v, iv] : llvm::zip(load.getIndices(), ivs)) {
          auto [base, k] = tc::splitConstantOffset(v);
          if (v != iv && base != iv)
            return;
          off.push_back(v == iv ? 0 : k);
        }
        c.loads.push_back(load);
        c.offsets.push_back(std::move(off));
      });
      if (c.loads.empty()) {
        ignore("no read of '" + c.field +
               "' is at the loop's indices plus constants");
        continue;
      }
      c.lo.assign(rank, INT64_MAX);
      c.hi.assign(rank, INT64_MIN);
      for (auto &off : c.offsets)
        for (unsigned k = 0; k < rank; ++k) {
          c.lo[k] = std::min(c.lo[k], off[k]);
          c.hi[k] = std::max(c.hi[k], off[k]);
        }
      int64_t n =
          c.components * (c.elementType.getIntOrFloatBitWidth() + 7) / 8;
      for (unsigned k = 0; k < rank; ++k) {
        c.extents.push_back(ratios[k] + c.hi[k] - c.lo[k]);
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
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i32, v);
    };
    // A block of threads per block of elements, unless loop_config chose.
    IntegerAttr blockDim = sf.getBlockDimAttr();
    if (!blockDim)
      blockDim = b.getI32IntegerAttr(std::min(threads, kMaxBlockThreads));
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
      auto loop = tc::ParallelForOp::create(b, loc, ValueRange{cst(0)},
                                            ValueRange{cst(1)});
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
                         ? Value(arith::MulIOp::create(b, loc, blockIdx[a],
                                                       cst(ratios[a]), flags))
                         : cst(0));
    auto index = [&](OpBuilder &ib, Value v) -> Value {
      return arith::IndexCastOp::create(ib, loc, ib.getIndexType(), v);
    };

    // Fill each buffer: element t of it is x[base + lo + t], 0 outside the
    // field's index space (there is nothing to read).
    for (Cached &c : cached) {
      SmallVector<int64_t> shape(c.extents);
      if (c.components > 1)
        shape.push_back(c.components);
      c.buffer = tc::BlockBufferOp::create(
          b, loc, MemRefType::get(shape, c.elementType));
      auto fill = tc::BlockForOp::create(b, loc, c.extents);
      Block *fb = new Block();
      fill.getBody().push_back(fb);
      OpBuilder fbB = OpBuilder::atBlockEnd(fb);
      SmallVector<Value> g, at;
      Value inside;
      bool fieldUnbounded = llvm::any_of(
          c.place->levels, [](auto &lv) { return lv.node->underHash; });
      for (unsigned a = 0; a < rank; ++a) {
        Value t = fb->addArgument(i32, loc);
        at.push_back(index(fbB, t));
        Value ga = arith::AddIOp::create(
            fbB, loc, base[a],
            arith::AddIOp::create(
                fbB, loc, t,
                arith::ConstantIntOp::create(fbB, loc, i32, c.lo[a]),
                arith::IntegerOverflowFlags::nsw),
            arith::IntegerOverflowFlags::nsw);
        g.push_back(ga);
        if (fieldUnbounded)
          continue;
        Value ext =
            arith::ConstantIntOp::create(fbB, loc, i32, c.place->shape[a]);
        // 0 <= g < extent, as one unsigned comparison.
        Value in =
            arith::CmpIOp::create(fbB, loc, arith::CmpIPredicate::ult, ga, ext);
        inside = inside ? arith::AndIOp::create(fbB, loc, inside, in) : in;
      }
      for (unsigned comp = 0; comp < c.components; ++comp) {
        SmallVector<Value> slot(at);
        if (c.components > 1)
          slot.push_back(arith::ConstantIndexOp::create(fbB, loc, comp));
        auto readAt = [&](OpBuilder &rb) {
          auto load =
              tc::LoadOp::create(rb, loc, c.elementType, c.field, g, comp);
          return load.getResult();
        };
        Value v;
        if (inside) {
          auto ifOp = scf::IfOp::create(fbB, loc, TypeRange{c.elementType},
                                        inside, /*withElse=*/true);
          OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
          scf::YieldOp::create(tb, loc, readAt(tb));
          OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
          scf::YieldOp::create(
              eb, loc,
              arith::ConstantOp::create(eb, loc, c.elementType,
                                        eb.getZeroAttr(c.elementType))
                  .getResult());
          v = ifOp.getResult(0);
        } else {
          v = readAt(fbB);
        }
        memref::StoreOp::create(fbB, loc, v, c.buffer, slot);
      }
      tc::YieldOp::create(fbB, loc);
    }

    // The elements: the loop's body, its indices base + e.
    auto elems = tc::BlockForOp::create(b, loc, ratios);
    tc::YieldOp::create(b, loc);
    elems.getBody().takeBody(sf.getBody());
    Block *body = &elems.getBody().front();
    OpBuilder eb = OpBuilder::atBlockBegin(body);
    SmallVector<Value> elemIdx, indices;
    for (unsigned a = 0; a < rank; ++a) {
      Value e = body->addArgument(i32, loc);
      elemIdx.push_back(e);
      Value i = arith::AddIOp::create(eb, loc, base[a], e, flags);
      body->getArgument(a).replaceAllUsesWith(i);
      indices.push_back(i);
    }
    body->eraseArguments(0, rank);

    // The reads, from the buffers (at e + c - lo, in [0, E)).
    auto inBuffer =
        arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
    for (Cached &c : cached)
      for (auto [load, off] : llvm::zip(c.loads, c.offsets)) {
        OpBuilder lb(load);
        SmallVector<Value> slot;
        for (unsigned a = 0; a < rank; ++a)
          slot.push_back(index(
              lb, arith::AddIOp::create(lb, loc, elemIdx[a],
                                        arith::ConstantIntOp::create(
                                            lb, loc, i32, off[a] - c.lo[a]),
                                        inBuffer)));
        if (c.components > 1)
          slot.push_back(
              arith::ConstantIndexOp::create(lb, loc, load.getComp()));
        Value v = memref::LoadOp::create(lb, load.getLoc(), c.buffer, slot);
        load.getResult().replaceAllUsesWith(v);
        load.erase();
      }

    // The element's own cell is active down to the deepest node of its
    // path that can be inactive (it is in an active block, and the block's
    // elements are dense): as tic-lower-struct-for marks the original loop.
    if (knownActive) {
      const snode::LevelAccess *sparse = nullptr;
      for (const snode::LevelAccess &lv : pl->levels)
        if (!snode::isAlwaysActive(lv.node->kind))
          sparse = &lv;
      if (sparse)
        markKnownActive(elems.getBody(), layout, *sparse->node, *sparse,
                        indices);
    }
    sf.erase();
  }
};
} // namespace

//===- LowerStructFor.cpp - tic-lower-struct-for --------------------------===//
//
// tc.struct_for -> tc.parallel_for over the index space of its target. On
// a path with nodes that can be inactive, the loop runs over the cells of
// the deepest such node, skips the inactive ones (an inactive ancestor
// makes a cell inactive too) and visits the elements of the active ones
// (buildSparseLoop); on a dynamic node, over the elements of its lists up
// to their lengths (buildListLoop).
//
//===----------------------------------------------------------------------===//
#include "StructForShared.h"
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace tic {
#define GEN_PASS_DEF_LOWERSTRUCTFOR
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

/// The level of `levels` at `node`, or null.
const snode::LevelAccess *tic::levelAt(ArrayRef<snode::LevelAccess> levels,
                                       const snode::NodeLayout &node) {
  for (const snode::LevelAccess &lv : levels)
    if (lv.node == &node)
      return &lv;
  return nullptr;
}

/// Marks the field accesses in `region` at exactly `indices` whose field
/// reaches `node`'s cells as the loop's own level `own` does (same extents
/// below it): their cells down to `node` are the active cell the loop is in.
void tic::markKnownActive(Region &region, const snode::SNodeLayout &layout,
                          const snode::NodeLayout &node,
                          const snode::LevelAccess &own,
                          ArrayRef<Value> indices) {
  auto attr = FlatSymbolRefAttr::get(region.getContext(), node.name);
  region.walk([&](Operation *op) {
    if (!isa<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp>(op))
      return;
    auto field = op->getAttrOfType<FlatSymbolRefAttr>("field");
    const snode::PlaceLayout *pl = layout.lookupPlace(field.getValue());
    if (!pl)
      return;
    const snode::LevelAccess *lv = levelAt(pl->levels, node);
    if (!lv || lv->below != own.below)
      return;
    ValueRange idx = isa<tc::LoadOp>(op) ? op->getOperands()
                                         : op->getOperands().drop_front();
    if (idx.size() != indices.size())
      return;
    if (llvm::equal(idx, indices)) {
      op->setAttr(tc::kKnownActiveAttrName, attr);
      return;
    }
    // An access at the loop's indices plus constants (a stencil's
    // neighbour, a push to one): it may lie in the loop's own cell.
    for (auto [v, i] : llvm::zip(idx, indices))
      if (v != i && tc::splitConstantOffset(v).first != i)
        return;
    op->setAttr(tc::kNeighbourAttrName, attr);
  });
}

namespace {

/// A struct-for whose path has a node that can be inactive: parallel over
/// the cells of the deepest such node `node`, each visited only when
/// active, and serial over the indices inside the cell:
///
///   tc.parallel_for (%c...) over node's cell index space {
///     scf.if (tc.is_active @node[%c...]) {
///       scf.for %r_a in [0, ratio_a) ...      (one per axis with ratio > 1)
///         body with i_a = %c_a * ratio_a + %r_a
///
/// where ratio_a = shape[a] / node.cellIndexShape[a] (the extent below the
/// node along axis a; axes below it only: shape[a]). Inactive cells cost
/// one test, not one per element.
/// Serial loops at `ib` over the sub-cells of extents `inner` (per axis)
/// inside the cell `cell` of an index space of extents `outer`: along axis
/// a, i_a = cell_a * ratio_a + r_a with ratio_a = inner[a] / outer[a]
/// (inner[a] past outer's rank), an scf.for over r_a where ratio_a > 1.
/// `nonNegative`: the indices are known non-negative (not below a hash).
/// `given`: the r_a already bound (the induction variables of a parallel
/// loop over the ratios, splitRatios), one per axis with ratio_a > 1; no
/// loops are built then. Leaves `ib` in the innermost loop.
static void splitCell(OpBuilder &ib, Location loc, ArrayRef<Value> cell,
                      ArrayRef<int64_t> outer, ArrayRef<int64_t> inner,
                      bool nonNegative, SmallVectorImpl<Value> &indices,
                      ValueRange given = {}) {
  Type i32 = ib.getI32Type();
  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIntOp::create(bb, loc, i32, v);
  };
  unsigned cellRank = outer.size();
  for (size_t a = 0; a < inner.size(); ++a) {
    int64_t ratio = ratioAt(outer, inner, a);
    Value r;
    if (ratio > 1 && !given.empty()) {
      r = given.front();
      given = given.drop_front();
    } else if (ratio > 1) {
      Value lb = cst(ib, 0), ub = cst(ib, ratio), step = cst(ib, 1);
      auto loop = scf::ForOp::create(ib, loc, lb, ub, step);
      ib.setInsertionPointToStart(loop.getBody());
      r = loop.getInductionVar();
    }
    Value i;
    if (a < cellRank) {
      i = cell[a];
      if (ratio > 1) {
        auto flags = arith::IntegerOverflowFlags::nsw;
        if (nonNegative)
          flags = flags | arith::IntegerOverflowFlags::nuw;
        i = arith::AddIOp::create(
            ib, loc, arith::MulIOp::create(ib, loc, i, cst(ib, ratio), flags),
            r, flags);
      }
    } else {
      i = r ? r : cst(ib, 0);
    }
    indices.push_back(i);
  }
}

/// The ratios of splitCell(outer, inner) that are > 1, in axis order.
static SmallVector<int64_t> splitRatios(ArrayRef<int64_t> outer,
                                        ArrayRef<int64_t> inner) {
  SmallVector<int64_t> ratios;
  for (size_t a = 0; a < inner.size(); ++a)
    if (int64_t ratio = ratioAt(outer, inner, a); ratio > 1)
      ratios.push_back(ratio);
  return ratios;
}

/// The parallel dimensions (their extents) that visitElements can take
/// instead of its serial loops: the ratios > 1 from `outer`'s cells to
/// `deep`'s, then from `deep`'s to the elements.
static SmallVector<int64_t> elementRatios(const snode::NodeLayout &outer,
                                          const snode::NodeLayout &deep,
                                          ArrayRef<int64_t> shape) {
  if (&deep == &outer)
    return splitRatios(outer.cellIndexShape, shape);
  SmallVector<int64_t> r =
      splitRatios(outer.cellIndexShape, deep.cellIndexShape);
  llvm::append_range(r, splitRatios(deep.cellIndexShape, shape));
  return r;
}

/// Serial loops at `ib` over the elements (index space `shape`) of the
/// active cell `cell` of node `outer`: directly when `deep` is `outer`,
/// else over the cells of the deeper sparse node `deep` inside it, each
/// tested with tc.is_active, then over their elements. With `given` (the
/// induction variables of parallel dimensions over elementRatios), no
/// loops: one element per iteration. Leaves `ib` in the innermost loop.
static void visitElements(OpBuilder &ib, Location loc, ArrayRef<Value> cell,
                          const snode::NodeLayout &outer,
                          const snode::NodeLayout &deep,
                          ArrayRef<int64_t> shape, bool nonNegative,
                          SmallVectorImpl<Value> &indices,
                          ValueRange given = {}) {
  if (&deep == &outer) {
    splitCell(ib, loc, cell, outer.cellIndexShape, shape, nonNegative, indices,
              given);
    return;
  }
  size_t toDeep =
      given.empty()
          ? 0
          : splitRatios(outer.cellIndexShape, deep.cellIndexShape).size();
  SmallVector<Value> deepCell;
  splitCell(ib, loc, cell, outer.cellIndexShape, deep.cellIndexShape,
            nonNegative, deepCell, given.take_front(toDeep));
  Value active =
      tc::IsActiveOp::create(ib, loc, ib.getI1Type(), deep.name, deepCell);
  auto ifDeep = scf::IfOp::create(ib, loc, active, false);
  ib.setInsertionPointToStart(ifDeep.thenBlock());
  splitCell(ib, loc, deepCell, deep.cellIndexShape, shape, nonNegative, indices,
            given.drop_front(toDeep));
}

/// Moves the struct-for's body (without its terminator) to `ib`'s
/// insertion point, its induction variables replaced by `indices`.
static void spliceBody(OpBuilder &ib, tc::StructForOp sf,
                       ArrayRef<Value> indices) {
  Block &body = sf.getBody().front();
  for (auto [arg, i] : llvm::zip(body.getArguments(), indices))
    arg.replaceAllUsesWith(i);
  Block *dest = ib.getInsertionBlock();
  dest->getOperations().splice(ib.getInsertionPoint(), body.getOperations(),
                               body.begin(), std::prev(body.end()));
}

static tc::ParallelForOp buildSparseLoop(OpBuilder &b, tc::StructForOp sf,
                                         const snode::NodeLayout &node,
                                         ArrayRef<int64_t> shape,
                                         SmallVectorImpl<Value> &indices) {
  Location loc = sf.getLoc();
  Type i32 = b.getI32Type();
  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIntOp::create(bb, loc, i32, v);
  };
  unsigned cellRank = node.cellIndexShape.size();
  SmallVector<Value> lbs, ubs;
  for (int64_t e : node.cellIndexShape) {
    lbs.push_back(cst(b, 0));
    ubs.push_back(cst(b, e));
  }
  auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
  Block *outer = &pf.getBody().front();
  OpBuilder ob = OpBuilder::atBlockEnd(outer);
  Value active = tc::IsActiveOp::create(ob, loc, ob.getI1Type(), node.name,
                                        outer->getArguments());
  auto ifOp = scf::IfOp::create(ob, loc, active, /*withElseRegion=*/false);
  tc::YieldOp::create(ob, loc);
  OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
  SmallVector<Value> cell(outer->getArguments());
  splitCell(ib, loc, cell, node.cellIndexShape, shape, /*nonNegative=*/true,
            indices);
  spliceBody(ib, sf, indices);
  return pf;
}

/// Folds the cell indices of the cell of hash node `hash` with key slots
/// `key` into `cell` (one value per global axis, outermost levels first):
/// the cells above it (decoded from the key's last slot below other nodes,
/// through the entry of a hash above), then its own key.
static void decodeHashCell(OpBuilder &b, Location loc,
                           const snode::NodeLayout &hash, ValueRange key,
                           SmallVectorImpl<Value> &cell) {
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  // Below a hash, indices may be negative.
  auto flags = hash.hashAncestor ? arith::IntegerOverflowFlags::nsw
                                 : arith::IntegerOverflowFlags::nsw |
                                       arith::IntegerOverflowFlags::nuw;
  auto fold = [&](int64_t a, int64_t extent, Value i) {
    cell[a] =
        matchPattern(cell[a], m_Zero())
            ? i
            : arith::AddIOp::create(
                  b, loc,
                  arith::MulIOp::create(b, loc, cell[a], cst(extent), flags), i,
                  flags);
  };
  if (hash.nestedHash) {
    // The levels between the hash above (or the root) and this one.
    ArrayRef<snode::LevelAccess> path = ArrayRef(hash.levels).drop_back();
    if (hash.hashAncestor)
      path = path.drop_front(hash.hashAncestor->depth + 1);
    SmallVector<SmallVector<Value>> coords(path.size());
    Value id = key.back();
    for (size_t l = path.size(); l-- > 0;) {
      const snode::NodeLayout &d = *path[l].node;
      Value lin = id;
      if (l > 0 || hash.hashAncestor) {
        lin = arith::RemUIOp::create(b, loc, id, cst(d.numCells));
        id = arith::DivUIOp::create(b, loc, id, cst(d.numCells));
      }
      coords[l].resize(d.axes.size());
      for (size_t k = d.axes.size(); k-- > 0;) {
        Value c = lin;
        if (k > 0) {
          c = arith::RemUIOp::create(b, loc, lin, cst(d.shape[k]));
          lin = arith::DivUIOp::create(b, loc, lin, cst(d.shape[k]));
        }
        coords[l][k] = c;
      }
    }
    if (const snode::NodeLayout *above = hash.hashAncestor) {
      // What is left is the entry number of the hash above.
      SmallVector<Type> types(
          1 + snode::getHashKeySlots(above->axes.size(), above->nestedHash),
          i32);
      types[0] = b.getI1Type();
      auto parent = tc::HashEntryOp::create(b, loc, types, above->name, id);
      decodeHashCell(b, loc, *above, parent.getIndices(), cell);
    }
    for (auto [l, lv] : llvm::enumerate(path))
      for (auto [k, a] : llvm::enumerate(lv.node->axes))
        fold(a, lv.node->shape[k], coords[l][k]);
  }
  for (auto [k, a] : llvm::enumerate(hash.axes))
    fold(a, hash.shape[k], key[k]);
}

/// Elements of a dynamic node's lists that one parallel iteration runs
/// serially: a long list runs on every thread, a group at a time.
static constexpr int64_t kListGroup = 1024;
/// The most elements (lists times their most) over which a GPU runs a
/// struct-for over several lists with a thread per element, each testing
/// its list's length (past that, mostly idle trips: a group per thread).
static constexpr int64_t kDeviceListElements = int64_t(1) << 22;

/// The most elements (the lists of a hash cell times their most) over
/// which a GPU runs a struct-for over the lists below a hash node with a
/// thread per element and entry, each testing its list's length.
static constexpr int64_t kDeviceEntryListElements = int64_t(1) << 12;

/// Moves `b` into an scf.if that runs only when element `j` lies below
/// the length of the list of dynamic node `node` at `list` (its indices).
static void enterIfInList(OpBuilder &b, Location loc,
                          const snode::NodeLayout &node, ValueRange list,
                          Value j) {
  Value len = tc::LengthOp::create(b, loc, b.getI32Type(), node.name, list);
  Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, len);
  auto ifIn = scf::IfOp::create(b, loc, in, /*withElse=*/false);
  b.setInsertionPointToStart(ifIn.thenBlock());
}

/// Whether the struct-for's body appends to the lists of dynamic node
/// `node`.
static bool appendsTo(tc::StructForOp sf, const snode::NodeLayout &node) {
  return sf.getBody()
      .walk([&](tc::AppendOp a) {
        return a.getNode() == node.name ? WalkResult::interrupt()
                                        : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The groups of kListGroup elements of a list of dynamic node `list`.
static int64_t listGroups(const snode::NodeLayout &list) {
  int64_t len = list.cellIndexShape.back();
  return (len + kListGroup - 1) / kListGroup;
}

/// Serial loops at `ib` over the lists of dynamic node `list` in the active
/// cell `cell` of node `outer` (a hash node, a listed pointer node), then
/// over each list's elements up to its length (with `group`, only those of
/// the group-th `groupSize` elements). Leaves `ib` in the innermost loop.
static void visitListElements(OpBuilder &ib, Location loc, ArrayRef<Value> cell,
                              const snode::NodeLayout &outer,
                              const snode::NodeLayout &list,
                              SmallVectorImpl<Value> &indices, Value group = {},
                              int64_t groupSize = 0) {
  Type i32 = ib.getI32Type();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(ib, loc, i32, v);
  };
  SmallVector<Value> lists;
  splitCell(ib, loc, cell, outer.cellIndexShape,
            ArrayRef<int64_t>(list.cellIndexShape).drop_back(), false, lists);
  Value len = tc::LengthOp::create(ib, loc, i32, list.name, lists);
  Value lo = cst(0), hi = len, one = cst(1);
  if (group) {
    // Group `group` of `groupSize` elements of each list.
    auto flags =
        arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
    Value size = cst(groupSize);
    lo = arith::MulIOp::create(ib, loc, group, size, flags);
    Value end = arith::AddIOp::create(ib, loc, lo, size, flags);
    hi = arith::MinSIOp::create(ib, loc, end, len);
  }
  auto loop = scf::ForOp::create(ib, loc, lo, hi, one);
  ib.setInsertionPointToStart(loop.getBody());
  indices.append(lists.begin(), lists.end());
  indices.push_back(loop.getInductionVar());
}

/// The cell of the deeper sparse node in the hash cell `cell` with
/// `ratio[a]` of its cells along axis a per hash cell: number `l` (i32,
/// row-major over the ratios) of them, i.e. the hash cell's indices times
/// the ratio plus `l`'s place.
static SmallVector<Value> deepCellOf(OpBuilder &ib, Location loc,
                                     ArrayRef<Value> cell,
                                     ArrayRef<int64_t> ratio, Value l) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(ib, loc, ib.getI32Type(), v);
  };
  SmallVector<Value> deepCell(ratio.size());
  auto nsw = arith::IntegerOverflowFlags::nsw;
  for (size_t a = ratio.size(); a-- > 0;) {
    Value r = l;
    if (a > 0) {
      r = arith::RemUIOp::create(ib, loc, l, cst(ratio[a]));
      l = arith::DivUIOp::create(ib, loc, l, cst(ratio[a]));
    }
    if (a < cell.size()) {
      Value scaled =
          arith::MulIOp::create(ib, loc, cell[a], cst(ratio[a]), nsw);
      r = arith::AddIOp::create(ib, loc, scaled, r, nsw);
    }
    deepCell[a] = r;
  }
  return deepCell;
}

/// tc.hash_entry of entry `e` (i32) of hash node `hash`: its flag and key.
static tc::HashEntryOp createHashEntry(OpBuilder &b, Location loc,
                                       const snode::NodeLayout &hash, Value e) {
  SmallVector<Type> types(
      1 + snode::getHashKeySlots(hash.axes.size(), hash.nestedHash),
      b.getI32Type());
  types[0] = b.getI1Type();
  return tc::HashEntryOp::create(b, loc, types, hash.name, e);
}

/// A tc.parallel_for over the entries of hash node `hash` below `ub` (i32)
/// and, when `sub` > 1, the `sub` deeper cells in each (then dimensions of
/// the `extra` extents); the tc.hash_entry
/// of the entry, and a builder where the entry is active.
struct EntryLoop {
  tc::ParallelForOp loop;
  tc::HashEntryOp entry;
  OpBuilder active;
};
static EntryLoop buildEntryLoop(OpBuilder &b, Location loc,
                                const snode::NodeLayout &hash, Value ub,
                                int64_t sub, ArrayRef<int64_t> extra = {}) {
  Type i32 = b.getI32Type();
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  SmallVector<Value> lbs{zero}, ubs{ub};
  if (sub > 1) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIntOp::create(b, loc, i32, sub));
  }
  for (int64_t e : extra) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIntOp::create(b, loc, i32, e));
  }
  auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
  Block *outer = &pf.getBody().front();
  OpBuilder ob = OpBuilder::atBlockEnd(outer);
  auto entry = createHashEntry(ob, loc, hash, outer->getArgument(0));
  auto ifOp = scf::IfOp::create(ob, loc, entry.getActive(), false);
  tc::YieldOp::create(ob, loc);
  return {pf, entry, OpBuilder::atBlockBegin(ifOp.thenBlock())};
}

/// A struct-for over a path under a hash node (a child of the root or of
/// dense nodes):
/// parallel over the entries of the hash node's pool, each visited when
/// active, with its key as the hash cell's indices:
///
///   %n = tc.hash_entries @h
///   tc.parallel_for (%e) = (0) to (%n) {
///     %a, %k... = tc.hash_entry @h[%e]
///     scf.if (%a) {
///       [serial over the cells of the deepest sparse node `deep` in the
///        hash cell, scf.if (tc.is_active @deep[...])]
///       serial over the elements of the cell: body
///
/// Indices may be negative (floor division places them in cells).
static tc::ParallelForOp buildCachedHashLoop(
    OpBuilder &b, tc::StructForOp sf, const snode::NodeLayout &hash,
    const snode::NodeLayout &deep, ArrayRef<int64_t> ratio, int64_t sub,
    ArrayRef<const snode::NodeLayout *> sparsePath, int32_t slot,
    ArrayRef<int64_t> shape, SmallVectorImpl<Value> &indices);

static tc::ParallelForOp
buildHashLoop(OpBuilder &b, tc::StructForOp sf, const snode::NodeLayout &hash,
              const snode::NodeLayout &deep, ArrayRef<int64_t> shape,
              SmallVectorImpl<Value> &indices, bool device,
              ArrayRef<const snode::NodeLayout *> cachePath = {},
              int32_t slot = 0) {
  Location loc = sf.getLoc();
  Type i32 = b.getI32Type();
  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIntOp::create(bb, loc, i32, v);
  };
  // A deeper sparse node (not a list): the loop is also parallel over its
  // cells in each hash cell, `sub` of them (one task per block of a
  // hash -> pointer grid, however few hash cells there are).
  SmallVector<int64_t> ratio;
  int64_t sub = 1;
  if (&deep != &hash && deep.kind != snode::SNodeKind::Dynamic)
    for (size_t a = 0; a < deep.cellIndexShape.size(); ++a) {
      ratio.push_back(ratioAt(hash.cellIndexShape, deep.cellIndexShape, a));
      sub *= ratio.back();
    }
  bool split = sub > 1 && sub <= INT32_MAX;
  if (!cachePath.empty() && sub <= INT32_MAX)
    return buildCachedHashLoop(
        b, sf, hash, deep, split ? ratio : ArrayRef<int64_t>{}, split ? sub : 1,
        cachePath, slot, shape, indices);
  // On a GPU the elements of a cell are parallel too (a thread per
  // element, as for the pointer lists).
  SmallVector<int64_t> elements;
  if (device && deep.kind != snode::SNodeKind::Dynamic) {
    if (split)
      elements = splitRatios(deep.cellIndexShape, shape);
    else if (sub == 1)
      elements = elementRatios(hash, deep, shape);
  }
  // Lists: also parallel over groups of their elements (one long list runs
  // on every thread), or on a GPU over the hash cell's lists and their
  // elements (a thread per element, each testing its list's length) when
  // the body appends nothing to them and they are few.
  int64_t groups =
      deep.kind == snode::SNodeKind::Dynamic ? listGroups(deep) : 1;
  SmallVector<int64_t> listRatios;
  bool listThreads = false;
  if (device && deep.kind == snode::SNodeKind::Dynamic &&
      !appendsTo(sf, deep)) {
    listRatios =
        splitRatios(hash.cellIndexShape,
                    ArrayRef<int64_t>(deep.cellIndexShape).drop_back());
    int64_t perEntry = deep.cellIndexShape.back();
    for (int64_t r : listRatios)
      perEntry *= r;
    listThreads = perEntry <= kDeviceEntryListElements;
  }
  if (listThreads) {
    elements.assign(listRatios.begin(), listRatios.end());
    elements.push_back(deep.cellIndexShape.back());
    groups = 1;
  } else if (groups > 1) {
    elements.assign({groups});
  }
  Value n = tc::HashEntriesOp::create(b, loc, i32, hash.name);
  auto [pf, entry, ib] =
      buildEntryLoop(b, loc, hash, n, split ? sub : 1, elements);
  Block *outer = &pf.getBody().front();
  ValueRange given = outer->getArguments().take_back(elements.size());
  // The hash cell's indices: below other nodes, theirs from the key's
  // last slot (the parent's cell number over the levels above, up to a
  // hash above, whose entry number it holds too: that hash's cell indices
  // come from its entry, and so on up), times the hash's extent along axes
  // it shares with them; plus its key along its axes (0 along the others).
  SmallVector<Value> cell(hash.cellIndexShape.size(), cst(ib, 0));
  decodeHashCell(ib, loc, hash, entry.getIndices(), cell);
  if (split) {
    SmallVector<Value> deepCell =
        deepCellOf(ib, loc, cell, ratio, outer->getArgument(1));
    Value active =
        tc::IsActiveOp::create(ib, loc, ib.getI1Type(), deep.name, deepCell);
    auto ifDeep = scf::IfOp::create(ib, loc, active, false);
    ib.setInsertionPointToStart(ifDeep.thenBlock());
    splitCell(ib, loc, deepCell, deep.cellIndexShape, shape,
              /*nonNegative=*/false, indices, given);
  } else if (listThreads) {
    SmallVector<Value> lists;
    splitCell(ib, loc, cell, hash.cellIndexShape,
              ArrayRef<int64_t>(deep.cellIndexShape).drop_back(),
              /*nonNegative=*/false, lists, given.drop_back());
    enterIfInList(ib, loc, deep, lists, given.back());
    indices.append(lists.begin(), lists.end());
    indices.push_back(given.back());
  } else if (deep.kind == snode::SNodeKind::Dynamic) {
    visitListElements(ib, loc, cell, hash, deep, indices,
                      groups > 1 ? given.front() : Value(), kListGroup);
  } else {
    visitElements(ib, loc, cell, hash, deep, shape, /*nonNegative=*/false,
                  indices, given);
  }
  spliceBody(ib, sf, indices);
  return pf;
}

/// The stamp of a cached list: the sum of the epoch counters of the sparse
/// nodes of its path (every activation or deactivation of one of their
/// cells adds 1 to its node's).
static Value pathStamp(OpBuilder &b, Location loc,
                       ArrayRef<const snode::NodeLayout *> sparsePath) {
  Type i64 = b.getI64Type();
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value stamp = arith::ConstantIntOp::create(b, loc, i64, 0);
  for (const snode::NodeLayout *n : sparsePath) {
    Value p = snode::StructurePtrOp::create(b, loc, ptrTy, n->name, false);
    Value e = LLVM::LoadOp::create(b, loc, i64, p, 8, false, false, false,
                                   false, LLVM::AtomicOrdering::monotonic);
    stamp = arith::AddIOp::create(b, loc, stamp, e);
  }
  return stamp;
}

/// A struct-for over a hash path with a cached list of its active cells
/// (CPU-only objects): the cells of the deepest sparse node `deep` (`sub`
/// of them per hash cell, `ratio` per axis; sub = 1: the hash cells), as
/// entry * sub + l, in `tc.scratch` memory (i64: the stamp, the count, the
/// list), rebuilt only when the stamp of the path changed:
///
///   %n = tc.hash_entries @h
///   %buf = tc.scratch slot, %n * sub + 2 : memref<?xi64>   (null: %ok false)
///   %stale = %ok and buf[0] != stamp
///   if %stale { buf[1] = 0 }
///   tc.parallel_for (%e, %l) = (0, 0) to (%stale ? %n : 0, sub) {
///     if tc.hash_entry @h[%e] active and tc.is_active @deep[...] {
///       buf[2 + atomic buf[1]++] = %e * sub + %l } }
///   if %stale { buf[0] = stamp }
///   tc.parallel_for (%x) = (0) to (%ok ? buf[1] : %n * sub) {
///     %v = %ok ? buf[2 + %x] : %x
///     cell of entry %v / sub, deep cell %v % sub; when not %ok, tested
///     serial over the elements: body }
///
/// (Without its scratch memory the loop is the scan of buildHashLoop.) A
/// time-stepping loop that activates nothing builds the list once.
static tc::ParallelForOp buildCachedHashLoop(
    OpBuilder &b, tc::StructForOp sf, const snode::NodeLayout &hash,
    const snode::NodeLayout &deep, ArrayRef<int64_t> ratio, int64_t sub,
    ArrayRef<const snode::NodeLayout *> sparsePath, int32_t slot,
    ArrayRef<int64_t> shape, SmallVectorImpl<Value> &indices) {
  Location loc = sf.getLoc();
  Type i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c32 = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIntOp::create(bb, loc, i32, v);
  };
  auto c64 = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIntOp::create(bb, loc, i64, v);
  };
  auto at = [&](OpBuilder &bb, Value i64Index) -> Value {
    return arith::IndexCastOp::create(bb, loc, bb.getIndexType(), i64Index);
  };
  bool split = !ratio.empty();
  Value n = tc::HashEntriesOp::create(b, loc, i32, hash.name);
  Value n64 = arith::ExtUIOp::create(b, loc, i64, n);
  Value total = arith::MulIOp::create(b, loc, n64, c64(b, sub));
  Value size = arith::AddIOp::create(b, loc, total, c64(b, 2));
  Value buf = tc::ScratchOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, i64), slot, size);
  Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buf);
  Value zeroIdx = arith::ConstantIndexOp::create(b, loc, 0);
  Value ok =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, ptr, zeroIdx);
  Value stamp = pathStamp(b, loc, sparsePath);
  auto ifOk = scf::IfOp::create(b, loc, TypeRange{i1}, ok, true);
  {
    OpBuilder tb = ifOk.getThenBodyBuilder();
    Value built =
        memref::LoadOp::create(tb, loc, buf, ValueRange{at(tb, c64(tb, 0))});
    Value stale =
        arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::ne, built, stamp);
    scf::YieldOp::create(tb, loc, stale);
    OpBuilder eb = ifOk.getElseBodyBuilder();
    scf::YieldOp::create(
        eb, loc, ValueRange{arith::ConstantIntOp::create(eb, loc, i1, 0)});
  }
  Value stale = ifOk.getResult(0);
  {
    auto ifStale = scf::IfOp::create(b, loc, stale, false);
    OpBuilder tb = ifStale.getThenBodyBuilder();
    Value zero = c64(tb, 0);
    memref::StoreOp::create(tb, loc, zero, buf, ValueRange{at(tb, c64(tb, 1))});
  }
  // The rebuild: every entry (and deep cell in it) when stale.
  Value ub = arith::SelectOp::create(b, loc, stale, n, c32(b, 0));
  {
    auto [rebuild, entry, ab] = buildEntryLoop(b, loc, hash, ub, sub);
    Block *body = &rebuild.getBody().front();
    Value e = body->getArgument(0);
    Value l = split ? body->getArgument(1) : c32(ab, 0);
    if (split) {
      SmallVector<Value> cell(hash.cellIndexShape.size(), c32(ab, 0));
      decodeHashCell(ab, loc, hash, entry.getIndices(), cell);
      SmallVector<Value> deepCell = deepCellOf(ab, loc, cell, ratio, l);
      Value active = tc::IsActiveOp::create(ab, loc, i1, deep.name, deepCell);
      auto ifDeep = scf::IfOp::create(ab, loc, active, false);
      ab = ifDeep.getThenBodyBuilder();
    }
    Value one = c64(ab, 1);
    Value k =
        memref::AtomicRMWOp::create(ab, loc, arith::AtomicRMWKind::addi, one,
                                    buf, ValueRange{at(ab, c64(ab, 1))});
    Value e64 = arith::ExtUIOp::create(ab, loc, i64, e);
    Value l64 = arith::ExtUIOp::create(ab, loc, i64, l);
    Value scaled = arith::MulIOp::create(ab, loc, e64, c64(ab, sub));
    Value v = arith::AddIOp::create(ab, loc, scaled, l64);
    Value pos = arith::AddIOp::create(ab, loc, k, c64(ab, 2));
    memref::StoreOp::create(ab, loc, v, buf, ValueRange{at(ab, pos)});
  }
  {
    auto ifStale = scf::IfOp::create(b, loc, stale, false);
    OpBuilder tb = ifStale.getThenBodyBuilder();
    memref::StoreOp::create(tb, loc, stamp, buf,
                            ValueRange{at(tb, c64(tb, 0))});
  }
  // The body: over the list, or (no scratch memory) over every entry and
  // deep cell, tested.
  auto ifCount = scf::IfOp::create(b, loc, TypeRange{i64}, ok, true);
  {
    OpBuilder tb = ifCount.getThenBodyBuilder();
    Value count =
        memref::LoadOp::create(tb, loc, buf, ValueRange{at(tb, c64(tb, 1))});
    scf::YieldOp::create(tb, loc, count);
    OpBuilder eb = ifCount.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, total);
  }
  // Lists: also parallel over groups of their elements.
  int64_t groups =
      deep.kind == snode::SNodeKind::Dynamic ? listGroups(deep) : 1;
  SmallVector<Value> lbs{c64(b, 0)}, ubs{ifCount.getResult(0)};
  if (groups > 1) {
    lbs.push_back(c64(b, 0));
    ubs.push_back(c64(b, groups));
  }
  auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
  Block *outer = &pf.getBody().front();
  OpBuilder ob = OpBuilder::atBlockEnd(outer);
  tc::YieldOp::create(ob, loc);
  OpBuilder ib = OpBuilder::atBlockBegin(outer);
  Value x = outer->getArgument(0);
  auto ifV = scf::IfOp::create(ib, loc, TypeRange{i64}, ok, true);
  {
    OpBuilder tb = ifV.getThenBodyBuilder();
    Value pos = arith::AddIOp::create(tb, loc, x, c64(tb, 2));
    Value v = memref::LoadOp::create(tb, loc, buf, ValueRange{at(tb, pos)});
    scf::YieldOp::create(tb, loc, v);
    OpBuilder eb = ifV.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, x);
  }
  Value v = ifV.getResult(0);
  Value e64 = arith::DivUIOp::create(ib, loc, v, c64(ib, sub));
  Value e = arith::TruncIOp::create(ib, loc, i32, e64);
  auto entry = createHashEntry(ib, loc, hash, e);
  SmallVector<Value> cell(hash.cellIndexShape.size(), c32(ib, 0));
  decodeHashCell(ib, loc, hash, entry.getIndices(), cell);
  SmallVector<Value> deepCell;
  if (split) {
    Value l64 = arith::RemUIOp::create(ib, loc, v, c64(ib, sub));
    Value l = arith::TruncIOp::create(ib, loc, i32, l64);
    deepCell = deepCellOf(ib, loc, cell, ratio, l);
  }
  // Listed cells are active; without the list, test them.
  auto ifActive = scf::IfOp::create(ib, loc, TypeRange{i1}, ok, true);
  {
    OpBuilder tb = ifActive.getThenBodyBuilder();
    scf::YieldOp::create(
        tb, loc, ValueRange{arith::ConstantIntOp::create(tb, loc, i1, 1)});
    OpBuilder eb = ifActive.getElseBodyBuilder();
    Value active = entry.getActive();
    if (split) {
      auto ifEntry = scf::IfOp::create(eb, loc, TypeRange{i1}, active, true);
      OpBuilder et = ifEntry.getThenBodyBuilder();
      Value deepActive =
          tc::IsActiveOp::create(et, loc, i1, deep.name, deepCell);
      scf::YieldOp::create(et, loc, deepActive);
      OpBuilder ee = ifEntry.getElseBodyBuilder();
      scf::YieldOp::create(
          ee, loc, ValueRange{arith::ConstantIntOp::create(ee, loc, i1, 0)});
      active = ifEntry.getResult(0);
    }
    scf::YieldOp::create(eb, loc, active);
  }
  auto ifRun = scf::IfOp::create(ib, loc, ifActive.getResult(0), false);
  ib.setInsertionPointToStart(ifRun.thenBlock());
  if (split)
    splitCell(ib, loc, deepCell, deep.cellIndexShape, shape,
              /*nonNegative=*/false, indices);
  else if (deep.kind == snode::SNodeKind::Dynamic)
    visitListElements(ib, loc, cell, hash, deep, indices,
                      groups > 1 ? Value(arith::TruncIOp::create(
                                       ib, loc, i32, outer->getArgument(1)))
                                 : Value(),
                      kListGroup);
  else
    visitElements(ib, loc, cell, hash, deep, shape, /*nonNegative=*/false,
                  indices);
  spliceBody(ib, sf, indices);
  return pf;
}

/// Elements of the lists of a dynamic node, a group at a time per
/// parallel iteration (so one long list still runs on every thread, and
/// short lists cost one length load each):
///
///   tc.parallel_for (%c..., %g) over (the lists' index space, groups) {
///     %n = tc.length @node[%c...]
///     scf.for %j in [%g * G, min(%g * G + G, %n))
///       body with (%c..., %j)
///
/// (a dynamic node holds only fields: its elements are the loop's).
///
/// With `device` (a GPU runs a thread per element, as for the other
/// sparse nodes, not a thread per group) and a body that appends nothing
/// to the lists:
/// - one list: parallel over its elements up to the most it holds, the
///   loop's limit its length (each thread reads it once, and its
///   grid-stride loop stops there: no read on the host, no idle trips);
/// - several, with at most kDeviceListElements elements in all: parallel
///   over (lists, elements), each tested against its list's length.
static tc::ParallelForOp buildListLoop(OpBuilder &b, tc::StructForOp sf,
                                       const snode::NodeLayout &node,
                                       SmallVectorImpl<Value> &indices,
                                       bool device) {
  Location loc = sf.getLoc();
  Type i32 = b.getI32Type();
  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIntOp::create(bb, loc, i32, v);
  };
  int64_t len = node.cellIndexShape.back();
  int64_t lists = 1;
  for (int64_t e : ArrayRef<int64_t>(node.cellIndexShape).drop_back())
    lists *= e;
  bool appends = appendsTo(sf, node);
  if (device && !appends &&
      (lists == 1 || lists * len <= kDeviceListElements)) {
    SmallVector<Value> lbs, ubs, list;
    for (int64_t e : ArrayRef<int64_t>(node.cellIndexShape).drop_back()) {
      if (lists == 1) {
        list.push_back(cst(b, 0));
        continue;
      }
      lbs.push_back(cst(b, 0));
      ubs.push_back(cst(b, e));
    }
    lbs.push_back(cst(b, 0));
    ubs.push_back(cst(b, len));
    auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
    Block *outer = &pf.getBody().front();
    OpBuilder ob = OpBuilder::atBlockEnd(outer);
    Value j = outer->getArguments().back();
    if (lists == 1) {
      OpBuilder lb = OpBuilder::atBlockEnd(pf.createLimitBlock());
      SmallVector<Value> at;
      for (size_t a = 0; a < list.size(); ++a)
        at.push_back(cst(lb, 0));
      Value n = tc::LengthOp::create(lb, loc, i32, node.name, at);
      tc::YieldOp::create(lb, loc, ValueRange{n});
    } else {
      list.assign(outer->getArguments().begin(),
                  std::prev(outer->getArguments().end()));
      enterIfInList(ob, loc, node, list, j);
    }
    indices.append(list.begin(), list.end());
    indices.push_back(j);
    spliceBody(ob, sf, indices);
    OpBuilder yb = OpBuilder::atBlockEnd(outer);
    tc::YieldOp::create(yb, loc);
    return pf;
  }
  int64_t group = std::min(len, kListGroup);
  SmallVector<Value> lbs, ubs;
  for (int64_t e : ArrayRef<int64_t>(node.cellIndexShape).drop_back()) {
    lbs.push_back(cst(b, 0));
    ubs.push_back(cst(b, e));
  }
  lbs.push_back(cst(b, 0));
  ubs.push_back(cst(b, (len + group - 1) / group));
  auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
  Block *outer = &pf.getBody().front();
  OpBuilder ob = OpBuilder::atBlockEnd(outer);
  ValueRange list = outer->getArguments().drop_back();
  Value n = tc::LengthOp::create(ob, loc, i32, node.name, list);
  auto flags =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  Value lo = arith::MulIOp::create(ob, loc, outer->getArguments().back(),
                                   cst(ob, group), flags);
  Value hi = arith::MinSIOp::create(
      ob, loc, arith::AddIOp::create(ob, loc, lo, cst(ob, group), flags), n);
  auto loop = scf::ForOp::create(ob, loc, lo, hi, cst(ob, 1));
  tc::YieldOp::create(ob, loc);
  indices.append(list.begin(), list.end());
  indices.push_back(loop.getInductionVar());
  Block &body = sf.getBody().front();
  for (auto [arg, i] : llvm::zip(body.getArguments(), indices))
    arg.replaceAllUsesWith(i);
  Block *dest = loop.getBody();
  dest->getOperations().splice(std::prev(dest->end()), body.getOperations(),
                               body.begin(), std::prev(body.end()));
  return pf;
}

/// The cell indices of the linear cell number `l` (row-major over `shape`).
static SmallVector<Value> decodeCell(OpBuilder &b, Location loc, Value l,
                                     ArrayRef<int64_t> shape) {
  Type i32 = b.getI32Type();
  SmallVector<Value> c(shape.size());
  int64_t stride = 1;
  for (int a = int(shape.size()) - 1; a >= 0; --a) {
    Value v = l;
    if (stride != 1)
      v = arith::DivUIOp::create(
          b, loc, v, arith::ConstantIntOp::create(b, loc, i32, stride));
    if (a > 0)
      v = arith::RemUIOp::create(
          b, loc, v, arith::ConstantIntOp::create(b, loc, i32, shape[a]));
    c[a] = v;
    stride *= shape[a];
  }
  return c;
}

/// A struct-for whose deepest listed node is a pointer node with a list
/// (or a bitmasked one without a pointer above; tic-allocate-layout): its
/// active cells are kept in a list in the root
/// buffer with the stamp it was built at, the sum of the epoch counters of
/// the sparse nodes on the path (every activation or deactivation of one
/// of their cells bumps its node's counter). The loop rebuilds the list
/// only when the stamp changed, then runs in parallel over the list:
///
///   %stamp = sum of load(structure_ptr @n epoch) over the path's nodes
///   %valid = %stamp == list.stamp
///   if !%valid { list.count = 0 }
///   tc.parallel_for (%l) = (0) to (%valid ? 0 : cells) {   // rebuild
///     if tc.is_active @node[decode(%l)] { list[atomic count++] = %l } }
///   if !%valid { list.stamp = %stamp }
///   tc.parallel_for (%e) = (0) to (list.count) {
///     serial over the elements of cell decode(list[%e]): body }
///
/// A time-stepping loop that activates nothing builds the list once.
///
/// With `device` (--target=cuda, where the root buffer may be device
/// memory and every host read of it waits for the launches in flight), the
/// host reads nothing: three launches with constant bounds decide on the
/// device, their limits stopping them where the list says.
///
///   tc.parallel_for (%t) = (0) to (1) {                   // prepare
///     %stale = %stamp != list.stamp
///     if %stale { list.count = 0; list.stamp = %stamp }
///     list.rebuild = %stale }
///   tc.parallel_for (%l) = (0) to (cells)                 // rebuild
///       limit { list.rebuild ? cells : 0 } {
///     if tc.is_active @node[decode(%l)] { list[atomic count++] = %l } }
///   tc.parallel_for (%e) = (0) to (cells) limit { list.count } {
///     serial over the elements: body }
///
/// A GPU thread evaluates a limit once, before its grid-stride loop: the
/// launch of a list that is up to date costs one read per thread, whatever
/// the number of cells. A CPU context evaluates the limits on the host
/// before launching (convert-tc-to-llvm), so its threads share the
/// iterations that run.
///
/// With `device`, the elements of a cell (and the cells of a deeper
/// sparse node in it, each tested) are parallel dimensions of the body's
/// loop, not serial loops: tc.parallel_for (%e, %r...) = (0, 0...) to
/// (ub, ratios).
static tc::ParallelForOp buildCachedListLoop(
    OpBuilder &b, tc::StructForOp sf, const snode::NodeLayout &node,
    const snode::NodeLayout &deep,
    ArrayRef<const snode::NodeLayout *> sparsePath, ArrayRef<int64_t> shape,
    SmallVectorImpl<Value> &indices, bool device) {
  Location loc = sf.getLoc();
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto c32 = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIntOp::create(bb, loc, i32, v);
  };
  auto listPtr = [&](OpBuilder &bb) -> Value {
    return snode::StructurePtrOp::create(bb, loc, ptrTy, node.name,
                                         /*list=*/true);
  };
  auto field = [&](OpBuilder &bb, Value base, int64_t off) -> Value {
    return LLVM::GEPOp::create(bb, loc, ptrTy, bb.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{int32_t(off)},
                               LLVM::GEPNoWrapFlags::inbounds);
  };
  auto stampOf = [&](OpBuilder &bb) {
    return ::pathStamp(bb, loc, sparsePath);
  };
  int64_t total = 1;
  for (int64_t e : node.cellIndexShape)
    total *= e;
  // Appends cell %l to the list when it is active.
  auto appendIfActive = [&](OpBuilder &rb, Value l) {
    Value active =
        tc::IsActiveOp::create(rb, loc, rb.getI1Type(), node.name,
                               decodeCell(rb, loc, l, node.cellIndexShape));
    auto ifActive = scf::IfOp::create(rb, loc, active, false);
    OpBuilder ab = OpBuilder::atBlockBegin(ifActive.thenBlock());
    Value lp = listPtr(ab);
    Value countPtr = field(ab, lp, 8);
    Value one = c32(ab, 1);
    Value k =
        LLVM::AtomicRMWOp::create(ab, loc, LLVM::AtomicBinOp::add, countPtr,
                                  one, LLVM::AtomicOrdering::monotonic);
    Value entries = field(ab, lp, 16);
    Value k64 = arith::ExtUIOp::create(ab, loc, i64, k);
    Value slot =
        LLVM::GEPOp::create(ab, loc, ptrTy, i32, entries, ValueRange{k64},
                            LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(ab, loc, l, slot, 4);
  };
  // The body's loop over the list's entries 0 to `ub`; `bounded`: only
  // those below the list's count run the body (the loop's limit, read once
  // per task instance: a GPU thread's grid-stride loop stops there).
  // Long lists below the node: also parallel over groups of their
  // elements (one long list runs on every thread).
  int64_t groups =
      deep.kind == snode::SNodeKind::Dynamic ? listGroups(deep) : 1;
  // On a GPU the elements of a listed cell are parallel too, as in
  // Taichi's struct-fors (a thread per element, the cell's elements on
  // consecutive threads: coalesced): a thread per cell looping over its
  // elements left most of the device idle (an 8x8 block was 64 serial
  // iterations). A deeper sparse node's cells are tested per thread.
  SmallVector<int64_t> ratios;
  if (device && deep.kind != snode::SNodeKind::Dynamic)
    ratios = elementRatios(node, deep, shape);
  auto bodyLoop = [&](Value ub, bool bounded) {
    SmallVector<Value> lbs{c32(b, 0)}, ubs{ub};
    if (groups > 1) {
      lbs.push_back(c32(b, 0));
      ubs.push_back(c32(b, groups));
    }
    for (int64_t ratio : ratios) {
      lbs.push_back(c32(b, 0));
      ubs.push_back(c32(b, ratio));
    }
    auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
    Block *outer = &pf.getBody().front();
    OpBuilder ob = OpBuilder::atBlockEnd(outer);
    tc::YieldOp::create(ob, loc);
    OpBuilder ib = OpBuilder::atBlockBegin(outer);
    Value e = outer->getArgument(0);
    if (bounded) {
      OpBuilder lb = OpBuilder::atBlockEnd(pf.createLimitBlock());
      Value count =
          LLVM::LoadOp::create(lb, loc, i32, field(lb, listPtr(lb), 8), 4);
      tc::YieldOp::create(lb, loc, ValueRange{count});
    }
    Value lp = listPtr(ib);
    Value entries = field(ib, lp, 16);
    Value e64 = arith::ExtUIOp::create(ib, loc, i64, e);
    Value slot =
        LLVM::GEPOp::create(ib, loc, ptrTy, i32, entries, ValueRange{e64},
                            LLVM::GEPNoWrapFlags::inbounds);
    Value l = LLVM::LoadOp::create(ib, loc, i32, slot, 4);
    SmallVector<Value> cell = decodeCell(ib, loc, l, node.cellIndexShape);
    if (deep.kind == snode::SNodeKind::Dynamic)
      visitListElements(ib, loc, cell, node, deep, indices,
                        groups > 1 ? outer->getArgument(1) : Value(),
                        kListGroup);
    else
      visitElements(ib, loc, cell, node, deep, shape, /*nonNegative=*/true,
                    indices, outer->getArguments().drop_front());
    spliceBody(ib, sf, indices);
    return pf;
  };
  if (device) {
    // Prepare: one iteration decides (and records at byte 12) whether the
    // list is stale.
    Value prepLo = c32(b, 0), prepHi = c32(b, 1);
    auto prep = tc::ParallelForOp::create(b, loc, ValueRange{prepLo},
                                          ValueRange{prepHi});
    {
      Block *body = &prep.getBody().front();
      OpBuilder pb = OpBuilder::atBlockEnd(body);
      Value stamp = stampOf(pb);
      Value list = listPtr(pb);
      Value built = LLVM::LoadOp::create(pb, loc, i64, list, 8);
      Value stale = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::ne,
                                          stamp, built);
      auto ifStale = scf::IfOp::create(pb, loc, stale, false);
      {
        OpBuilder tb = OpBuilder::atBlockBegin(ifStale.thenBlock());
        Value countPtr = field(tb, list, 8);
        LLVM::StoreOp::create(tb, loc, c32(tb, 0), countPtr, 4);
        LLVM::StoreOp::create(tb, loc, stamp, list, 8);
      }
      Value flag = arith::ExtUIOp::create(pb, loc, i32, stale);
      LLVM::StoreOp::create(pb, loc, flag, field(pb, list, 12), 4);
      tc::YieldOp::create(pb, loc);
    }
    Value rebuildLo = c32(b, 0), rebuildHi = c32(b, total);
    auto rebuild = tc::ParallelForOp::create(b, loc, ValueRange{rebuildLo},
                                             ValueRange{rebuildHi});
    {
      OpBuilder lb = OpBuilder::atBlockEnd(rebuild.createLimitBlock());
      Value flag =
          LLVM::LoadOp::create(lb, loc, i32, field(lb, listPtr(lb), 12), 4);
      Value stale = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ne,
                                          flag, c32(lb, 0));
      Value all = c32(lb, total);
      Value none = c32(lb, 0);
      Value stop = arith::SelectOp::create(lb, loc, stale, all, none);
      tc::YieldOp::create(lb, loc, ValueRange{stop});
      Block *body = &rebuild.getBody().front();
      OpBuilder rb = OpBuilder::atBlockEnd(body);
      tc::YieldOp::create(rb, loc);
      rb.setInsertionPointToStart(body);
      appendIfActive(rb, body->getArgument(0));
    }
    return bodyLoop(c32(b, total), /*bounded=*/true);
  }
  Value stamp = stampOf(b);
  Value list = listPtr(b);
  Value built = LLVM::LoadOp::create(b, loc, i64, list, 8);
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, stamp, built);
  Value stale = arith::XOrIOp::create(
      b, loc, valid, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  {
    auto ifStale = scf::IfOp::create(b, loc, stale, false);
    OpBuilder tb = OpBuilder::atBlockBegin(ifStale.thenBlock());
    Value countPtr = field(tb, list, 8);
    LLVM::StoreOp::create(tb, loc, c32(tb, 0), countPtr, 4);
  }
  Value none = c32(b, 0), all = c32(b, total);
  Value ub = arith::SelectOp::create(b, loc, valid, none, all);
  auto rebuild =
      tc::ParallelForOp::create(b, loc, ValueRange{c32(b, 0)}, ValueRange{ub});
  {
    Block *body = &rebuild.getBody().front();
    OpBuilder rb = OpBuilder::atBlockEnd(body);
    tc::YieldOp::create(rb, loc);
    rb.setInsertionPointToStart(body);
    appendIfActive(rb, body->getArgument(0));
  }
  {
    auto ifStale = scf::IfOp::create(b, loc, stale, false);
    OpBuilder tb = OpBuilder::atBlockBegin(ifStale.thenBlock());
    LLVM::StoreOp::create(tb, loc, stamp, listPtr(tb), 8);
  }
  Value count = LLVM::LoadOp::create(b, loc, i32, field(b, listPtr(b), 8), 4);
  return bodyLoop(count, /*bounded=*/false);
}

/// The deepest node of `levels` with an active-cell list (a pointer node,
/// or a bitmasked one without a pointer above it), or null.
static const snode::NodeLayout *
listedNode(ArrayRef<snode::LevelAccess> levels) {
  const snode::NodeLayout *n = nullptr;
  for (const snode::LevelAccess &lv : levels)
    if (lv.node->listOffset >= 0)
      n = lv.node;
  return n;
}

/// Whether the body of a loop may insert a cell into hash node `hash`: a
/// write to a field below it whose cell is not known active through it
/// (tc.active), an activation or an append below it. (Deactivations do
/// not change its entries: a purge runs between launches.)
static bool mayInsertInto(Region &body, const snode::SNodeLayout &layout,
                          const snode::NodeLayout &hash) {
  auto below = [&](const snode::NodeLayout *n) {
    return n && levelAt(n->levels, hash) != nullptr;
  };
  WalkResult w = body.walk([&](Operation *op) {
    if (isa<tc::StoreOp, tc::AtomicRMWOp>(op)) {
      auto field = op->getAttrOfType<FlatSymbolRefAttr>("field");
      const snode::PlaceLayout *pl = layout.lookupPlace(field.getValue());
      if (!pl || !levelAt(pl->levels, hash))
        return WalkResult::advance();
      auto active =
          op->getAttrOfType<FlatSymbolRefAttr>(tc::kKnownActiveAttrName);
      return active && below(layout.lookupNode(active.getValue()))
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    }
    if (isa<tc::ActivateOp, tc::AppendOp>(op)) {
      auto node = op->getAttrOfType<FlatSymbolRefAttr>("node");
      return below(layout.lookupNode(node.getValue())) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
    }
    return WalkResult::advance();
  });
  return w.wasInterrupted();
}

/// On a GPU, a loop over the entries of hash node `hash` (upper bound
/// tc.hash_entries, in host code: a copy of the pool's state from the
/// device, which waits for the launches in flight) whose body inserts no
/// entry: bounded on the host by snode.pool_bound (the elements mapped for
/// the pool, a record of the runtime's), each thread reading the exact
/// count in the loop's `limit`.
static void boundOnDevice(tc::ParallelForOp pf, const snode::NodeLayout &hash) {
  auto entries = pf.getUpperBounds()[0].getDefiningOp<tc::HashEntriesOp>();
  if (!entries || entries.getNode() != hash.name || !pf.getLimit().empty())
    return;
  Location loc = pf.getLoc();
  OpBuilder b(pf);
  Type i32 = b.getI32Type();
  Value bound = snode::PoolBoundOp::create(b, loc, i32, hash.name);
  pf->setOperand(pf.getLowerBounds().size(), bound);
  OpBuilder lb = OpBuilder::atBlockEnd(pf.createLimitBlock());
  Value n = tc::HashEntriesOp::create(lb, loc, i32, hash.name);
  tc::YieldOp::create(lb, loc, ValueRange{n});
  if (entries->use_empty())
    entries->erase();
}

struct LowerStructForPass : tic::impl::LowerStructForBase<LowerStructForPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    SmallVector<tc::StructForOp> loops;
    module.walk([&](tc::StructForOp op) { loops.push_back(op); });
    int32_t nextSlot = tc::getNextScratchSlot(module);
    for (tc::StructForOp sf : loops) {
      SmallVector<int64_t> shape;
      bool supported = true;
      StringRef unsupportedKind;
      ArrayRef<snode::LevelAccess> levels;
      if (const auto *pl = layout.lookupPlace(sf.getTarget())) {
        shape.assign(pl->shape.begin(), pl->shape.end());
        supported = pl->supported;
        levels = pl->levels;
      } else if (const auto *nl = layout.lookupNode(sf.getTarget())) {
        // A container's own cell indices, as in Taichi and the spec: the
        // indices is_active / deactivate take for it.
        shape.assign(nl->cellIndexShape.begin(), nl->cellIndexShape.end());
        supported = nl->supported;
        levels = nl->levels;
      } else {
        sf.emitOpError("references unknown field or SNode '")
            << sf.getTarget() << "'";
        return signalPassFailure();
      }
      // The deepest node on the path that can be inactive.
      const snode::LevelAccess *sparse = nullptr;
      for (const snode::LevelAccess &lv : levels) {
        if (!lv.node->supported && unsupportedKind.empty())
          unsupportedKind = snode::stringifySNodeKind(lv.node->kind);
        if (!snode::isAlwaysActive(lv.node->kind))
          sparse = &lv;
      }
      if (!supported) {
        sf.emitOpError("struct-for over a path with a '")
            << unsupportedKind << "' SNode is not supported yet";
        return signalPassFailure();
      }
      if (shape.size() != sf.getInductionVars().size()) {
        sf.emitOpError("induction variables do not match the index space");
        return signalPassFailure();
      }
      OpBuilder b(sf);
      Location loc = sf.getLoc();
      Type i32 = b.getI32Type();
      tc::ParallelForOp pf;
      if (sparse) {
        SmallVector<Value> indices;
        // The deepest hash on the path enumerates its entries (each knows
        // its parent cell, and so the hashes above).
        const snode::NodeLayout *hash = nullptr;
        for (const snode::LevelAccess &lv : levels)
          if (lv.node->kind == snode::SNodeKind::Hash)
            hash = lv.node;
        if (hash) {
          // A cached list of the active cells (CPU-only objects: in
          // scratch memory), when every sparse node of the path counts its
          // changes.
          SmallVector<const snode::NodeLayout *> path;
          bool counted = lists && !device;
          // (A dynamic node below the hash is not counted: the list holds
          // the hash cells, and the loop reads the lengths of their lists.)
          for (const snode::LevelAccess &lv : levels) {
            if (!snode::isAlwaysActive(lv.node->kind) &&
                lv.node->kind != snode::SNodeKind::Dynamic) {
              path.push_back(lv.node);
              counted &= lv.node->epochOffset >= 0;
            }
            if (lv.node == sparse->node)
              break;
          }
          if (!counted)
            path.clear();
          int32_t slot = path.empty() ? 0 : nextSlot++;
          pf = buildHashLoop(b, sf, *hash, *sparse->node, shape, indices,
                             device, path, slot);
        } else if (sparse->node->kind == snode::SNodeKind::Dynamic &&
                   (device || !lists || !listedNode(levels))) {
          pf = buildListLoop(b, sf, *sparse->node, indices, device);
        } else if (const snode::NodeLayout *listed =
                       lists ? listedNode(levels) : nullptr) {
          // (Lists below it, in a CPU-only object: their lengths are read
          // in the listed cells only, a task per (cell, group of 1024
          // elements) as in buildListLoop.)
          // The deepest node with a list (a pointer, else a bitmasked
          // node): its cells come from the list (one task each); a deeper
          // sparse node's cells in them are tested.
          SmallVector<const snode::NodeLayout *> path;
          for (const snode::LevelAccess &lv : levels) {
            if (!snode::isAlwaysActive(lv.node->kind))
              path.push_back(lv.node);
            if (lv.node == listed)
              break;
          }
          pf = buildCachedListLoop(b, sf, *listed, *sparse->node, path, shape,
                                   indices, device);
        } else {
          pf = buildSparseLoop(b, sf, *sparse->node, shape, indices);
        }
        if (knownActive)
          markKnownActive(pf.getBody(), layout, *sparse->node, *sparse,
                          indices);
        if (hash && device && !mayInsertInto(pf.getBody(), layout, *hash))
          boundOnDevice(pf, *hash);
      } else {
        SmallVector<Value> lbs, ubs;
        Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
        for (int64_t s : shape) {
          lbs.push_back(zero);
          ubs.push_back(arith::ConstantIntOp::create(b, loc, i32, s));
        }
        pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
        pf.getBody().takeBody(sf.getBody());
      }
      if (sf.getSerialize()) pf.setSerialize(true);
      if (auto v = sf.getParallelizeAttr()) pf.setParallelizeAttr(v);
      if (auto v = sf.getBlockDimAttr()) pf.setBlockDimAttr(v);
      if (auto v = sf.getGrainAttr())
        pf.setGrainAttr(v);
      sf.erase();
    }
  }
};
} // namespace

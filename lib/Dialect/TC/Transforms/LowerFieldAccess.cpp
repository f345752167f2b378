//===- LowerFieldAccess.cpp - tic-lower-field-access ----------------------===//
//
// tc.load / tc.store / tc.atomic_rmw -> snode micro-access chains (the
// cell) + snode.load / snode.store / snode.atomic_rmw on the placed field.
// Writes look their cells up with `activate`; reads never activate. Every
// node kind goes through the same ops: whether a kind can be lowered further
// is convert-snode-to-llvm's question.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace tic {
#define GEN_PASS_DEF_LOWERFIELDACCESS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// One level of an access path, before its lookup: the container and the
/// linear number of the cell in it.
struct LevelCell {
  const snode::NodeLayout *node;
  Value container, linear;
};

/// The key of a hash node's cell from its cell indices (i32 each).
static Value packHashKey(OpBuilder &b, Location loc, ArrayRef<Value> idx) {
  unsigned bits = snode::getHashKeyBits(idx.size());
  if (bits == 32)
    return idx[0];
  Type t = b.getIntegerType(bits);
  Value key;
  for (auto [k, i] : llvm::enumerate(idx)) {
    Value v = arith::ExtUIOp::create(b, loc, t, i);
    if (k)
      v = arith::ShLIOp::create(
          b, loc, v, arith::ConstantIntOp::create(b, loc, t, 32 * k));
    key = key ? Value(arith::OrIOp::create(b, loc, key, v)) : v;
  }
  return key;
}

/// `i` as `x * c + r` with `r` the induction variable of an scf.for from 0
/// to at most `c` by 1 (how a struct-for splits a cell into its elements).
struct SplitIndex {
  Value x, r;
  int64_t c = 0;
};
static std::optional<SplitIndex> matchSplitIndex(Value i) {
  auto add = i.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  for (unsigned s = 0; s < 2; ++s) {
    auto mul = add->getOperand(s).getDefiningOp<arith::MulIOp>();
    Value r = add->getOperand(1 - s);
    auto iv = dyn_cast<BlockArgument>(r);
    auto loop =
        iv ? dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp()) : scf::ForOp();
    if (!mul || !loop || loop.getInductionVar() != r)
      continue;
    APInt c, lb, ub, step;
    if (!matchPattern(mul.getRhs(), m_ConstantInt(&c)) ||
        !matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) ||
        !matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) ||
        !matchPattern(loop.getStep(), m_ConstantInt(&step)))
      continue;
    if (lb.getSExtValue() != 0 || step.getSExtValue() != 1 ||
        c.getSExtValue() <= 0 || ub.getSExtValue() > c.getSExtValue())
      continue;
    return SplitIndex{mul.getLhs(), r, c.getSExtValue()};
  }
  return std::nullopt;
}

/// snode.index_extract of `i` for level `k` of `n`. Below a hash (floor
/// semantics: exact for any sign), an element index `x * c + r` of a
/// struct-for (0 <= r < c) simplifies: with c = below, to the extraction
/// of x alone; with c a multiple of below * extent (the modulo drops the
/// x part), to that of r. So every element of a hash cell looks the cell up
/// with the loop's own key, which the lookups then share.
static Value extractIndex(OpBuilder &b, Location loc,
                          const snode::NodeLayout &n, unsigned k, int64_t below,
                          Value i) {
  int64_t axis = n.axes[k];
  if (n.underHash)
    if (std::optional<SplitIndex> s = matchSplitIndex(i)) {
      if (s->c == below)
        return extractIndex(b, loc, n, k, 1, s->x);
      if (n.needsMod[k] && s->c % (below * n.shape[k]) == 0)
        return extractIndex(b, loc, n, k, below, s->r);
    }
  if (below == 1 && !n.needsMod[k])
    return i;
  return snode::IndexExtractOp::create(b, loc, i.getType(), i, n.name, axis,
                                       below);
}

/// The container and linear cell number of `lv` inside the cell `cur` of
/// its parent (get_child, [index_extract], [linearize]). `parentCell`: for
/// a hash below other nodes, its parent's cell number over the path.
static LevelCell buildLevel(OpBuilder &b, Location loc,
                            const snode::LevelAccess &lv, Value cur,
                            ValueRange indices, Value parentCell = {}) {
  Type ptrTy = snode::PtrType::get(b.getContext());
  const snode::NodeLayout *n = lv.node;
  Value container = snode::GetChildOp::create(b, loc, ptrTy, cur, n->name);
  SmallVector<Value> levelIdx;
  for (auto [k, axis] : llvm::enumerate(n->axes))
    levelIdx.push_back(extractIndex(b, loc, *n, k, lv.below[k], indices[axis]));
  // A hash node's cell is found by its key: the cell indices, 32 bits
  // each, packed from bit 0 in axis order, then its parent's cell number
  // below another node (getHashKeySlots).
  if (n->kind == snode::SNodeKind::Hash) {
    if (n->nestedHash) {
      assert(parentCell && "a hash below a node needs its parent's cell");
      levelIdx.push_back(parentCell);
    }
    return {n, container, packHashKey(b, loc, levelIdx)};
  }
  // A node without axes (a bit_struct) has one cell.
  if (levelIdx.empty())
    return {n, container,
            arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0)};
  // Indices are i32 (every axis extent fits), but a node's cell count may
  // not: linearize in i64 where it exceeds 2^31 - 1.
  if (levelIdx.size() > 1 && n->numCells > INT32_MAX &&
      !levelIdx[0].getType().isInteger(64))
    for (Value &v : levelIdx)
      v = arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
  Value linear = levelIdx.size() == 1
                     ? levelIdx[0]
                     : Value(snode::LinearizeOp::create(
                           b, loc, levelIdx[0].getType(), n->name, levelIdx));
  return {n, container, linear};
}

/// Builds root_ptr -> (get_child, [index_extract], [linearize], lookup)*
/// along `levels` of tree `tree` and returns the last cell (the tree's root
/// cell when there are no levels). With `activate`, the lookups of nodes
/// that can be inactive activate their cells (writes). With `last`, the
/// last level is not looked up: `*last` receives its container and cell
/// number, and the result is its parent's cell. Levels down to the node
/// named `activeThrough` are known active (a sparse struct-for's own cell):
/// looked up without activation and without the inactive-cell fallback.
static Value walkLevels(OpBuilder &b, Location loc, Value cur,
                        ArrayRef<snode::LevelAccess> levels, ValueRange indices,
                        bool activate, LevelCell *last,
                        StringRef activeThrough);
static Value buildPath(OpBuilder &b, Location loc,
                       const snode::TreeLayout &tree,
                       ArrayRef<snode::LevelAccess> levels, ValueRange indices,
                       bool activate, LevelCell *last = nullptr,
                       StringRef activeThrough = {}) {
  Type ptrTy = snode::PtrType::get(b.getContext());
  Value root = snode::RootPtrOp::create(b, loc, ptrTy, tree.name);
  return walkLevels(b, loc, root, levels, indices, activate, last,
                    activeThrough);
}

/// The levels of buildPath from the cell `cur` on.
static Value walkLevels(OpBuilder &b, Location loc, Value cur,
                        ArrayRef<snode::LevelAccess> levels, ValueRange indices,
                        bool activate, LevelCell *last,
                        StringRef activeThrough) {
  bool known = !activeThrough.empty();
  // The number of the current cell over the path's levels above a hash
  // below them (its key names its parent's cell), counted from the hash
  // above it (its entry number) or the root. Every walk that reaches such a
  // hash starts at the root (buildNeighbourCell makes sure).
  auto nestedBelow = [&](size_t from) {
    return llvm::any_of(
        levels.drop_front(from),
        [](const snode::LevelAccess &lv) { return lv.node->nestedHash; });
  };
  bool nestedHash = nestedBelow(0);
  Value pathCell;
  bool fromEntry = false;
  for (auto [l, lv] : llvm::enumerate(levels)) {
    assert((!lv.node->nestedHash || int64_t(l) == lv.node->depth) &&
           "a walk to a nested hash starts at the root");
    LevelCell c = buildLevel(b, loc, lv, cur, indices, pathCell);
    if (nestedHash && c.node->kind != snode::SNodeKind::Hash &&
        c.linear.getType().isInteger(32)) {
      // From an entry number, wrapping: the ambient cell of an absent key
      // has none (its tables are empty, whatever the key).
      auto flags = fromEntry ? arith::IntegerOverflowFlags::none
                             : arith::IntegerOverflowFlags::nsw |
                                   arith::IntegerOverflowFlags::nuw;
      pathCell = pathCell
                     ? Value(arith::AddIOp::create(
                           b, loc,
                           arith::MulIOp::create(
                               b, loc, pathCell,
                               arith::ConstantIntOp::create(
                                   b, loc, b.getI32Type(), c.node->numCells),
                               flags),
                           c.linear, flags))
                     : c.linear;
    }
    if (last && l + 1 == levels.size()) {
      *last = c;
      return cur;
    }
    bool sparse = !snode::isAlwaysActive(c.node->kind);
    // An always-active node has nothing to activate: its lookups stay
    // plain, so a read and a write of one cell share them.
    auto lookup =
        snode::LookupOp::create(b, loc, c.node->kind, c.container, c.node->name,
                                c.linear, activate && sparse && !known);
    if (known && sparse)
      lookup.setKnownActive(true);
    if (c.node->name == activeThrough)
      known = false;
    cur = lookup;
    // A hash with a hash below: the parent cells below it count from its
    // entry's number.
    if (c.node->kind == snode::SNodeKind::Hash && nestedBelow(l + 1)) {
      Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
      auto view = snode::PoolViewOp::create(b, loc, ptrTy, b.getI32Type(),
                                            c.node->name);
      pathCell = snode::HashEntryIndexOp::create(
          b, loc, b.getI32Type(), view.getBase(), cur, c.node->name);
      fromEntry = true;
    }
  }
  return cur;
}

/// An access at a sparse struct-for's indices plus constant offsets
/// (tc.near = @node): when the element lies in the loop's own cell of
/// `node` (a test per offset axis: the own index's place in that cell plus
/// the offset stays inside it), the path down to `node` is the loop's own,
/// known active (and shared with the loop's other accesses once hoisted);
/// otherwise the plain path (a write's activating). When an offset is as
/// large as the cell of `node` (a cell of one element: the element is never
/// in it), the same with the loop's own cell of the deepest sparse level
/// above that may hold it (a neighbouring cell of the same pointer cell):
/// the loop's path down to that level, then the element's own levels.
/// Below `node`, the element's own levels.
static Value buildNeighbourCell(OpBuilder &b, Location loc,
                                const snode::PlaceLayout &pl,
                                ValueRange indices, StringRef node,
                                bool activate) {
  size_t at = 0;
  while (at < pl.levels.size() && pl.levels[at].node->name != node)
    ++at;
  // (A walk to a hash below another node needs its parents' cell number,
  // which only a walk from the root computes: the plain path.)
  auto hashIn = [&](size_t from, size_t to) {
    return llvm::any_of(
        ArrayRef(pl.levels).slice(from, to - from),
        [](const snode::LevelAccess &lv) { return lv.node->nestedHash; });
  };
  if (at == pl.levels.size() || hashIn(at + 1, pl.levels.size()))
    return buildPath(b, loc, *pl.tree, pl.levels, indices, activate);
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  SmallVector<Value> own;
  SmallVector<int64_t> offsets;
  for (Value i : indices) {
    auto [x, k] = tc::splitConstantOffset(i);
    own.push_back(x);
    offsets.push_back(k);
  }
  // Elements per cell of level `l` along axis `a`: the `below` of the
  // deepest level down to `l` that splits the axis (0: none does, the cell
  // spans it).
  auto extentOf = [&](size_t l, size_t a) {
    int64_t extent = 0;
    for (size_t m = 0; m <= l; ++m)
      for (auto [p, ax] : llvm::enumerate(pl.levels[m].node->axes))
        if (ax == int64_t(a))
          extent = pl.levels[m].below[p];
    return extent;
  };
  // Whether the loop's own cell of level `l` can hold the element (no
  // offset as large as the cell).
  auto mayHold = [&](size_t l) {
    for (auto [a, k] : llvm::enumerate(offsets))
      if (int64_t e = extentOf(l, a); k != 0 && e != 0 && std::abs(k) >= e)
        return false;
    return true;
  };
  // The level: the deepest sparse one down to `node` (the loop's own cells,
  // all active) that may hold the element, while the walk from it down to
  // `node` meets no hash below another node. Only that one is tested: a
  // second test at the edges of the loop's cells, where most neighbours of
  // a block of elements fall, measured slower than the plain path.
  std::optional<size_t> level;
  for (size_t l = at + 1; l-- > 0 && !hashIn(l + 1, at + 1);)
    if (!snode::isAlwaysActive(pl.levels[l].node->kind) && mayHold(l)) {
      level = l;
      break;
    }
  ArrayRef<snode::LevelAccess> levels(pl.levels);
  auto plainPath = [&](OpBuilder &ob) {
    return buildPath(ob, loc, *pl.tree, levels.take_front(at + 1), indices,
                     activate);
  };
  Value cell;
  if (!level) {
    cell = plainPath(b);
  } else {
    size_t l = *level;
    // The loop's own path down to level l, then the element's levels.
    auto ownThrough = [&](OpBuilder &ob) {
      Value c = buildPath(ob, loc, *pl.tree, levels.take_front(l + 1), own,
                          false, nullptr, levels[l].node->name);
      return walkLevels(ob, loc, c, levels.slice(l + 1, at - l), indices,
                        activate, nullptr, {});
    };
    // In the own cell of level l: per offset axis, the own index's place
    // in it (the struct-for's inner index when it is x * extent + r, else
    // the floor remainder) plus the offset stays inside it.
    Value inCell;
    for (auto [a, k] : llvm::enumerate(offsets)) {
      int64_t extent = extentOf(l, a);
      if (k == 0 || extent == 0)
        continue;
      Value x = own[a], pos;
      if (std::optional<SplitIndex> si = matchSplitIndex(x);
          si && si->c == extent)
        pos = si->r;
      else if (llvm::isPowerOf2_64(uint64_t(extent)))
        pos = arith::AndIOp::create(b, loc, x, cst(extent - 1));
      else { // floor remainder (indices below a hash may be negative)
        Value r = arith::RemSIOp::create(b, loc, x, cst(extent));
        Value neg =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, cst(0));
        Value wrapped = arith::AddIOp::create(b, loc, r, cst(extent));
        pos = arith::SelectOp::create(b, loc, neg, wrapped, r);
      }
      Value p = arith::AddIOp::create(b, loc, pos, cst(k));
      Value ok = k > 0 ? Value(arith::CmpIOp::create(
                             b, loc, arith::CmpIPredicate::slt, p, cst(extent)))
                       : Value(arith::CmpIOp::create(
                             b, loc, arith::CmpIPredicate::sge, p, cst(0)));
      inCell = inCell ? Value(arith::AndIOp::create(b, loc, inCell, ok)) : ok;
    }
    if (!inCell) {
      cell = ownThrough(b);
    } else {
      Type ptrTy = snode::PtrType::get(b.getContext());
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{ptrTy}, inCell, true);
      OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
      scf::YieldOp::create(tb, loc, ValueRange{ownThrough(tb)});
      OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
      scf::YieldOp::create(eb, loc, ValueRange{plainPath(eb)});
      cell = ifOp.getResult(0);
    }
  }
  return walkLevels(b, loc, cell, levels.drop_front(at + 1), indices, activate,
                    nullptr, {});
}

/// Where an element lives: the cell of its place's parent, and for a field
/// in a bit_array, the container (its word) and the element's lane in it.
struct ElementRef {
  Value cell, lane;
};

/// The element of `pl` at `indices` for the access `op` (whose tc.active
/// names the levels known active).
static ElementRef buildCell(OpBuilder &b, Operation *op,
                            const snode::PlaceLayout &pl, ValueRange indices,
                            bool activate) {
  StringRef through;
  if (auto a = op->getAttrOfType<FlatSymbolRefAttr>(tc::kKnownActiveAttrName))
    through = a.getValue();
  if (pl.inBitArray) {
    // The bit_array level is not looked up: its cell number is the lane.
    LevelCell word;
    buildPath(b, op->getLoc(), *pl.tree, pl.levels, indices, activate, &word,
              through);
    return {word.container, word.linear};
  }
  if (auto a = op->getAttrOfType<FlatSymbolRefAttr>(tc::kNeighbourAttrName))
    return {buildNeighbourCell(b, op->getLoc(), pl, indices, a.getValue(),
                               activate),
            Value()};
  return {buildPath(b, op->getLoc(), *pl.tree, pl.levels, indices, activate,
                    nullptr, through),
          Value()};
}

/// tc.is_active / activate / deactivate on the cell of container `n` at its
/// cell indices.
static LogicalResult lowerCellOp(Operation *op, const snode::NodeLayout &n,
                                 ValueRange indices) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (isa<tc::HashEntriesOp, tc::HashEntryOp>(op)) {
    // The entries of the hash node's pool (a runtime service) and, for
    // one of them, its flag and key.
    Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
    auto view =
        snode::PoolViewOp::create(b, loc, ptrTy, b.getI32Type(), n.name);
    if (auto he = dyn_cast<tc::HashEntryOp>(op)) {
      auto e = snode::HashEntryOp::create(
          b, loc, he->getResultTypes(), view.getBase(), n.name, he.getEntry());
      he->replaceAllUsesWith(e);
    } else {
      op->getResult(0).replaceAllUsesWith(view.getCount());
    }
    op->erase();
    return success();
  }
  if (isa<tc::AppendOp, tc::LengthOp>(op)) {
    // A list: the container of the dynamic node in its parent's cell (the
    // path with 0 for the node's own axis, which only it splits). An append
    // activates the ancestors, as a write would. tc.active names the
    // levels known active, as on a field access.
    SmallVector<Value> full(indices.begin(), indices.end());
    full.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
    LevelCell list;
    bool append = isa<tc::AppendOp>(op);
    StringRef through;
    if (auto a = op->getAttrOfType<FlatSymbolRefAttr>(tc::kKnownActiveAttrName))
      through = a.getValue();
    buildPath(b, loc, *n.tree, n.levels, full, /*activate=*/append, &list,
              through);
    Value r = append ? Value(snode::AppendOp::create(b, loc, b.getI32Type(),
                                                     list.container, n.name))
                     : Value(snode::LengthOp::create(b, loc, b.getI32Type(),
                                                     list.container, n.name));
    op->getResult(0).replaceAllUsesWith(r);
    op->erase();
    return success();
  }
  if (isa<tc::ActivateOp>(op)) {
    // The lookups a write would do; the last one's result is not needed,
    // its activation is.
    buildPath(b, loc, *n.tree, n.levels, indices, /*activate=*/true);
    op->erase();
    return success();
  }
  LevelCell last;
  buildPath(b, loc, *n.tree, n.levels, indices, /*activate=*/false, &last);
  if (auto ia = dyn_cast<tc::IsActiveOp>(op)) {
    // A cell below an inactive ancestor is inside that ancestor's ambient
    // (all-zero) cell, where every node reads as inactive: only the node's
    // own level is asked.
    Value active = snode::IsActiveOp::create(b, loc, n.kind, last.container,
                                             n.name, last.linear);
    ia.replaceAllUsesWith(active);
  } else {
    snode::DeactivateOp::create(b, loc, n.kind, last.container, n.name,
                                last.linear);
  }
  op->erase();
  return success();
}

static snode::AtomicKind toSNodeAtomicKind(tc::AtomicKind kind) {
  // Same cases, same spellings (SNodeAttrs.td).
  return *snode::symbolizeAtomicKind(tc::stringifyAtomicKind(kind));
}

struct LowerFieldAccessPass
    : tic::impl::LowerFieldAccessBase<LowerFieldAccessPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    SmallVector<Operation *> accesses;
    module.walk([&](Operation *op) {
      if (isa<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp, tc::IsActiveOp,
              tc::ActivateOp, tc::DeactivateOp, tc::AppendOp, tc::LengthOp,
              tc::HashEntriesOp, tc::HashEntryOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      if (auto node = op->getAttrOfType<FlatSymbolRefAttr>("node")) {
        const snode::NodeLayout *n = layout.lookupNode(node.getValue());
        if (!n) {
          op->emitOpError("references unknown SNode ") << node;
          return signalPassFailure();
        }
        if (failed(lowerCellOp(op, *n, op->getOperands())))
          return signalPassFailure();
        continue;
      }
      StringRef field = op->getAttrOfType<FlatSymbolRefAttr>("field").getValue();
      const snode::PlaceLayout *pl = layout.lookupPlace(field);
      if (!pl) {
        op->emitOpError("references unknown field '") << field << "'";
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<tc::LoadOp>(op)) {
        ElementRef e =
            buildCell(b, op, *pl, load.getIndices(), /*activate=*/false);
        auto ld = snode::LoadOp::create(b, loc, load.getType(), e.cell, field,
                                        load.getComp(), e.lane);
        if (load->hasAttr(tc::kWholeWordAttrName))
          ld.setWholeWord(true);
        load.replaceAllUsesWith(ld.getResult());
      } else if (auto store = dyn_cast<tc::StoreOp>(op)) {
        ElementRef e =
            buildCell(b, op, *pl, store.getIndices(), /*activate=*/true);
        auto st = snode::StoreOp::create(b, loc, store.getValue(), e.cell,
                                         field, store.getComp(), e.lane);
        if (store->hasAttr(tc::kExclusiveAttrName))
          st.setExclusive(true);
        if (store->hasAttr(tc::kWholeWordAttrName))
          st.setWholeWord(true);
      } else if (auto rmw = dyn_cast<tc::AtomicRMWOp>(op)) {
        ElementRef e =
            buildCell(b, op, *pl, rmw.getIndices(), /*activate=*/true);
        auto old = snode::AtomicRMWOp::create(
            b, loc, rmw.getType(), toSNodeAtomicKind(rmw.getKind()),
            rmw.getValue(), e.cell, field, rmw.getComp(), e.lane);
        rmw.replaceAllUsesWith(old.getResult());
      }
      op->erase();
    }
  }
};
} // namespace

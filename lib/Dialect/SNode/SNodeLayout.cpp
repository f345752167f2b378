//===- SNodeLayout.cpp - byte layout of SNode trees -----------------------===//
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tic::snode;

static int64_t alignTo(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

SNodeLayout::SNodeLayout(Operation *moduleOp) {
  for (Region &r : moduleOp->getRegions())
    for (Block &b : r) {
      for (BufferOp buf : b.getOps<BufferOp>())
        if (buf.getSymName() == kRootBuffer) {
          rootSize = buf.getSize();
          rootAlign = buf.getAlign();
        }
      for (TreeOp tree : b.getOps<TreeOp>()) {
        if (!tree.isAllocated()) {
          if (!unallocated)
            unallocated = tree;
          continue;
        }
        trees.emplace_back();
        TreeLayout &t = trees.back();
        t.op = tree;
        t.name = tree.getSymName().str();
        t.buffer = tree.getBufferAttr().getValue().str();
        t.offset = *tree.getOffset();
        t.size = *tree.getSize();
        t.align = *tree.getAlign();
        layoutChildren(tree.getBody(), nullptr, &t);
        treeMap[t.name] = &t;
      }
    }
  if (unallocated) {
    trees.clear(), nodes.clear(), places.clear();
    treeMap.clear(), nodeMap.clear(), placeMap.clear();
    rootSize = 0, rootAlign = 1;
    return;
  }

  // Per-node data that depends only on the ancestors.
  for (NodeLayout &n : nodes) {
    llvm::SmallVector<const NodeLayout *> chain;
    for (const NodeLayout *p = n.parent; p; p = p->parent) chain.push_back(p);
    int64_t lin = 1;
    n.needsMod.assign(n.axes.size(), false);
    n.linearStride.assign(n.axes.size(), 1);
    n.byteStride.assign(n.axes.size(), 0);
    for (int k = int(n.axes.size()) - 1; k >= 0; --k) {
      n.linearStride[k] = lin;
      n.byteStride[k] = lin * n.cellSize;
      lin *= n.shape[k];
      for (const NodeLayout *p : chain)
        if (llvm::is_contained(p->axes, n.axes[k])) n.needsMod[k] = true;
    }
    if (n.kind == SNodeKind::Hash && n.parent) {
      // Below dense, pointer, bitmasked and hash nodes (deactivating a
      // parent cell frees the entries of its table). The key's last slot
      // numbers the parent's cell: among the cells of the levels below the
      // nearest hash above (times that hash's entry number), or of the
      // whole path; at most 2^31 - 1 of them (a hash above gets at most
      // that many entries over these cells, see the pools below).
      n.nestedHash = true;
      for (const NodeLayout *p : chain) {
        if (p->kind == SNodeKind::Hash) {
          n.hashAncestor = p;
          break;
        }
        if ((p->kind != SNodeKind::Dense && p->kind != SNodeKind::Pointer &&
             p->kind != SNodeKind::Bitmasked) ||
            __builtin_mul_overflow(n.hashParentCells, p->numCells,
                                   &n.hashParentCells))
          n.supported = false;
      }
      if (n.hashParentCells > INT32_MAX)
        n.supported = false;
    }
    n.underHash = n.kind == SNodeKind::Hash;
    for (const NodeLayout *p : chain)
      n.underHash |= p->kind == SNodeKind::Hash;
    for (const NodeLayout *p : chain)
      if (!p->supported) n.supported = false;
  }

  // Per-place access levels, shapes and offsets.
  for (PlaceLayout &p : places) {
    llvm::SmallVector<const NodeLayout *> path;
    for (const NodeLayout *n = p.parent; n; n = n->parent) path.push_back(n);
    std::reverse(path.begin(), path.end());
    int64_t maxAxis = -1;
    for (const NodeLayout *n : path)
      for (int64_t a : n->axes) maxAxis = std::max(maxAxis, a);
    p.shape.assign(maxAxis + 1, 1);
    for (const NodeLayout *n : path) {
      if (!n->supported) p.supported = false;
      for (auto [a, s] : llvm::zip(n->axes, n->shape)) p.shape[a] *= s;
    }
    llvm::SmallVector<int64_t> acc(maxAxis + 1, 1); // extents below, per axis
    p.levels.resize(path.size());
    for (int l = int(path.size()) - 1; l >= 0; --l) {
      const NodeLayout *n = path[l];
      p.levels[l].node = n;
      for (auto [a, s] : llvm::zip(n->axes, n->shape)) {
        p.levels[l].below.push_back(acc[a]);
      }
      for (auto [a, s] : llvm::zip(n->axes, n->shape)) acc[a] *= s;
    }
    llvm::SmallVector<int64_t> zeros(p.shape.size(), 0);
    p.baseOffset = getElementOffset(p, zeros, 0);
    // Strided arrays: one dense level (or none). A sparse level's bytes are
    // not the field's values alone (masks, pool pointers).
    if (path.size() <= 1 &&
        (path.empty() || path[0]->kind == SNodeKind::Dense)) {
      llvm::SmallVector<int64_t> strides(p.shape.size(), 0);
      if (!path.empty())
        for (auto [k, a] : llvm::enumerate(path[0]->axes))
          strides[a] = path[0]->byteStride[k];
      p.strides = strides;
    }
  }

  // Index space of each container's cells, and how those indices reach
  // each level of its path.
  for (NodeLayout &n : nodes) {
    llvm::SmallVector<const NodeLayout *> path;
    for (const NodeLayout *q = &n; q; q = q->parent) path.push_back(q);
    std::reverse(path.begin(), path.end());
    int64_t maxAxis = -1;
    for (const NodeLayout *q : path)
      for (int64_t a : q->axes) maxAxis = std::max(maxAxis, a);
    n.cellIndexShape.assign(maxAxis + 1, 1);
    for (const NodeLayout *q : path)
      for (auto [a, s] : llvm::zip(q->axes, q->shape))
        n.cellIndexShape[a] *= s;
    llvm::SmallVector<int64_t> acc(maxAxis + 1, 1);
    n.levels.resize(path.size());
    for (int l = int(path.size()) - 1; l >= 0; --l) {
      n.levels[l].node = path[l];
      for (int64_t a : path[l]->axes)
        n.levels[l].below.push_back(acc[a]);
      for (auto [a, s] : llvm::zip(path[l]->axes, path[l]->shape))
        acc[a] *= s;
    }
    if (n.kind == SNodeKind::Bitmasked)
      n.maskOffset = getBitmaskOffset(n.numCells, n.cellSize);
    if (hasPool(n.kind)) {
      n.poolIndex = numPools++;
      n.poolCellSize = n.cellSize;
      n.maxCells = 1;
      int64_t own = n.numCells;
      if (n.kind == SNodeKind::Hash) {
        // Entries: as many as the pool's address space holds (2^38 bytes),
        // whatever the shape (it sizes the bucket array only).
        n.hashBuckets = getHashBuckets(n.numCells, n.nestedHash);
        n.hashCellOffset = getHashCellOffset(n.cellAlign);
        n.poolCellSize = getHashEntryBytes(n.cellSize, n.cellAlign);
        n.maxCells = std::max<int64_t>(
            1, std::min<int64_t>(0xFFFFFFFEll,
                                 (int64_t(1) << 38) / n.poolCellSize));
        continue;
      }
      if (n.kind == SNodeKind::Dynamic) {
        // Pool cells are chunks; a parent cell has one slot per chunk.
        own = n.numCells / n.chunkCells + (n.numCells % n.chunkCells != 0);
        if (__builtin_mul_overflow(n.cellSize, n.chunkCells, &n.poolCellSize))
          n.poolCellSize = INT64_MAX;
      }
      for (const NodeLayout *q : path)
        if (__builtin_mul_overflow(n.maxCells, q == &n ? own : q->numCells,
                                   &n.maxCells))
          n.maxCells = INT64_MAX;
      // Below a hash, the cells are as unbounded as its entries: as many as
      // 2^38 bytes of address space hold.
      if (n.underHash && n.poolCellSize > 0)
        n.maxCells = std::max<int64_t>(
            1, (int64_t(1) << 38) / std::max<int64_t>(n.poolCellSize, 1));
    }
  }
  // A hash with hashes below: its entry numbers times their parent cells
  // per entry must fit their keys' last slot.
  for (NodeLayout &n : nodes)
    if (n.hashAncestor) {
      auto *a = const_cast<NodeLayout *>(n.hashAncestor);
      a->maxCells = std::min<int64_t>(
          a->maxCells, std::max<int64_t>(1, INT32_MAX / n.hashParentCells));
    }
}

void SNodeLayout::layoutChildren(Region &region, const NodeLayout *parent,
                                 const TreeLayout *tree) {
  if (region.empty())
    return;
  for (Operation &child : region.front()) {
    if (auto c = dyn_cast<SNodeContainerOpInterface>(child)) {
      nodes.emplace_back();
      NodeLayout &n = nodes.back();
      n.op = c;
      n.name = c.getNodeName().str();
      n.kind = c.getKind();
      n.parent = parent;
      n.tree = tree;
      n.depth = parent ? parent->depth + 1 : 0;
      n.axes.assign(c.getAxesArray().begin(), c.getAxesArray().end());
      n.shape.assign(c.getShapeArray().begin(), c.getShapeArray().end());
      for (int64_t s : n.shape) n.numCells *= s;
      n.chunkCells = c.getChunkCells();
      if (auto a = c->getAttrOfType<IntegerAttr>("epoch_offset"))
        n.epochOffset = a.getInt();
      if (auto a = c->getAttrOfType<IntegerAttr>("list_offset"))
        n.listOffset = a.getInt();
      if (auto a = c->getAttrOfType<IntegerAttr>("notes_offset"))
        n.notesOffset = a.getInt();
      if (auto a = c->getAttrOfType<IntegerAttr>("pool_state_offset"))
        n.poolStateOffset = tree->offset + a.getInt();
      n.cellSize = c.getLayoutCellSize().value_or(0);
      n.cellAlign = c.getLayoutCellAlign().value_or(1);
      n.offsetInParent = c.getLayoutOffset().value_or(0);
      nodeMap[n.name] = &n;
      layoutChildren(c.getChildren(), &n, tree);
    } else if (auto po = dyn_cast<PlaceOp>(child)) {
      places.emplace_back();
      PlaceLayout &p = places.back();
      p.op = po;
      p.name = po.getSymName().str();
      p.parent = parent;
      p.tree = tree;
      int64_t end = 0, ealign = 1;
      ArrayRef<int64_t> offs;
      if (auto a = po.getComponentOffsets())
        offs = *a;
      for (unsigned i = 0; i < po.getNumComponents(); ++i) {
        Type t = po.getComponentType(i);
        int64_t sz = getComponentSize(t), off = i < offs.size() ? offs[i] : 0;
        p.components.push_back(t);
        p.componentOffsets.push_back(off);
        end = std::max(end, off + sz);
        ealign = std::max(ealign, sz);
      }
      p.elementAlign = ealign;
      p.elementSize = alignTo(end, ealign);
      p.offsetInCell = po.getOffset().value_or(0);
      if (parent && isBitContainer(parent->kind)) {
        // Bits of the container's word (the parent's cell).
        p.wordBits = unsigned(parent->cellSize * 8);
        p.inBitArray = parent->kind == SNodeKind::BitArray;
        p.elementSize = parent->cellSize;
        p.elementAlign = parent->cellAlign;
        for (unsigned i = 0; i < po.getNumComponents(); ++i)
          p.quant.push_back(po.getQuantOf(i));
        if (auto b = po.getBitOffsets())
          p.bitOffsets.assign(b->begin(), b->end());
        if (po.getSharedExponent() && po.getExponentOffset())
          p.exponentOffset = int64_t(*po.getExponentOffset());
      }
      placeMap[p.name] = &p;
    }
  }
}

LogicalResult SNodeLayout::checkAllocated() const {
  if (!unallocated)
    return success();
  return TreeOp(unallocated)
      .emitOpError("has no recorded layout: run tic-allocate-layout first");
}

const TreeLayout *SNodeLayout::lookupTree(StringRef name) const {
  return treeMap.lookup(name);
}
const NodeLayout *SNodeLayout::lookupNode(StringRef name) const {
  return nodeMap.lookup(name);
}
const PlaceLayout *SNodeLayout::lookupPlace(StringRef name) const {
  return placeMap.lookup(name);
}

int64_t SNodeLayout::getElementOffset(const PlaceLayout &p,
                                      ArrayRef<int64_t> indices,
                                      unsigned comp) const {
  int64_t off = p.tree->offset;
  for (const LevelAccess &lv : p.levels) {
    const NodeLayout *n = lv.node;
    int64_t lin = 0;
    for (size_t k = 0; k < n->axes.size(); ++k) {
      int64_t i = indices[n->axes[k]] / lv.below[k];
      if (n->needsMod[k]) i %= n->shape[k];
      lin += i * n->linearStride[k];
    }
    off += n->offsetInParent + lin * n->cellSize;
  }
  return off + p.offsetInCell + p.componentOffsets[comp];
}

template <typename R> static void printList(llvm::raw_ostream &os, const R &r) {
  os << "[";
  llvm::interleaveComma(r, os);
  os << "]";
}

void SNodeLayout::print(llvm::raw_ostream &os) const {
  os << "root_size " << rootSize << " root_align " << rootAlign << "\n";
  for (const TreeLayout &t : trees)
    os << "tree @" << t.name << " buffer @" << t.buffer << " offset "
       << t.offset << " size " << t.size << " align " << t.align << "\n";
  for (const NodeLayout &n : nodes) {
    os << "node @" << n.name << " " << stringifySNodeKind(n.kind) << " depth "
       << n.depth << " axes ";
    printList(os, n.axes);
    os << " shape ";
    printList(os, n.shape);
    os << " cell_size " << n.cellSize << " cell_align " << n.cellAlign
       << " offset " << n.offsetInParent << " byte_strides ";
    printList(os, n.byteStride);
    os << " cell_index_shape ";
    printList(os, n.cellIndexShape);
    if (!n.supported) os << " unsupported";
    os << "\n";
  }
  for (const PlaceLayout &p : places) {
    os << "place @" << p.name << " components ";
    os << "[";
    llvm::interleaveComma(p.components, os, [&](Type t) { t.print(os); });
    os << "] shape ";
    printList(os, p.shape);
    os << " element_size " << p.elementSize << " offset_in_cell "
       << p.offsetInCell << " component_offsets ";
    printList(os, p.componentOffsets);
    os << " base " << p.baseOffset;
    if (p.strides) {
      os << " strides ";
      printList(os, *p.strides);
    }
    os << " levels [";
    llvm::interleaveComma(p.levels, os, [&](const LevelAccess &lv) {
      os << "@" << lv.node->name << " below ";
      printList(os, lv.below);
    });
    os << "]\n";
  }
}

void tic::snode::eraseLayoutIfUnused(ModuleOp module) {
  // The names the layout defines: trees, containers, places, buffers.
  llvm::StringSet<> names;
  for (Operation &top : module.getBody()->getOperations()) {
    if (auto buf = dyn_cast<BufferOp>(top))
      names.insert(buf.getSymName());
    if (auto tree = dyn_cast<TreeOp>(top)) {
      names.insert(tree.getSymName());
      tree.walk([&](Operation *op) {
        if (auto c = dyn_cast<SNodeContainerOpInterface>(op))
          names.insert(c.getNodeName());
        else if (auto p = dyn_cast<PlaceOp>(op))
          names.insert(p.getSymName());
      });
    }
  }
  // Used while an snode op is left, or any op names one of them.
  bool used = false;
  for (Operation &top : module.getBody()->getOperations()) {
    if (isa<TreeOp, BufferOp>(top))
      continue;
    top.walk([&](Operation *op) {
      used = isa<SNodeDialect>(op->getDialect());
      for (NamedAttribute a : op->getAttrs())
        if (auto ref = dyn_cast<FlatSymbolRefAttr>(a.getValue()))
          used |= names.contains(ref.getValue());
      return used ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (used)
      return;
  }
  for (Operation &op :
       llvm::make_early_inc_range(module.getBody()->getOperations()))
    if (isa<TreeOp, BufferOp>(op))
      op.erase();
}

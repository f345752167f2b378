//===- AllocateLayout.cpp - tic-allocate-layout ---------------------------===//
//
// The one place where the byte layout of SNode trees is computed. The result
// is recorded as attributes on the tree, container and place ops and in an
// snode.buffer op; SNodeLayout reads it back for every later pass.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "mlir/IR/Builders.h"

namespace tic {
#define GEN_PASS_DEF_ALLOCATELAYOUT
#include "tic/Dialect/SNode/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic::snode;

namespace {

/// Layouts beyond this are refused (the front end limits them to 2^47).
constexpr int64_t kMaxBytes = int64_t(1) << 62;

static int64_t alignTo(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

/// A bit_struct's or bit_array's word: the quantized components of its
/// places from bit 0 upward, in place order (a bit_array's one component
/// at lane 0; lane k follows at k times its width).
static LogicalResult layoutBits(SNodeContainerOpInterface c, int64_t &size,
                                int64_t &align) {
  int64_t wordBits = c->getAttrOfType<IntegerAttr>("bits").getInt();
  int64_t bit = 0;
  SmallVector<PlaceOp> shared;
  for (Operation &child : c.getChildren().front())
    if (auto p = dyn_cast<PlaceOp>(child); p && p.getSharedExponent())
      shared.push_back(p);
  for (Operation &child : c.getChildren().front()) {
    auto p = dyn_cast<PlaceOp>(child);
    if (!p)
      continue;
    SmallVector<int64_t> offsets;
    for (unsigned i = 0; i < p.getNumComponents(); ++i) {
      tic::bits::QuantAttr q = p.getQuantOf(i);
      if (!q)
        return p.emitOpError("component ")
               << i << " of a place in a " << stringifySNodeKind(c.getKind())
               << " needs a quantized encoding";
      offsets.push_back(bit);
      // A shared exponent's components keep their digits only.
      bit += p.getSharedExponent() ? q.getFrac() : q.getWidth();
    }
    p.setOffset(0);
    p.setComponentOffsets(SmallVector<int64_t>(p.getNumComponents(), 0));
    p.setBitOffsets(offsets);
    if (!shared.empty() && p == shared.back()) {
      // The shared exponent follows the last shared component.
      for (PlaceOp s : shared)
        s.setExponentOffset(bit);
      bit += p.getQuantOf(0).getExp();
    }
  }
  int64_t need = bit;
  if (c.getKind() == SNodeKind::BitArray)
    need *= c.getShapeArray()[0];
  if (need > wordBits)
    return c.emitOpError("needs ")
           << need << " bits, more than its " << wordBits << "-bit word";
  size = align = wordBits / 8;
  return success();
}

/// Lays out the children of one cell in declaration order; returns the
/// cell's unpadded size and its alignment, or failure on overflow.
static LogicalResult layoutCell(Region &region, int64_t &size, int64_t &align) {
  MLIRContext *ctx = region.getContext();
  Builder b(ctx);
  int64_t offset = 0;
  align = 1;
  for (Operation &child : region.front()) {
    if (auto c = dyn_cast<SNodeContainerOpInterface>(child)) {
      int64_t cellSize, cellAlign, cells = 1;
      if (failed(isBitContainer(c.getKind())
                     ? layoutBits(c, cellSize, cellAlign)
                     : layoutCell(c.getChildren(), cellSize, cellAlign)))
        return failure();
      cellSize = alignTo(cellSize, cellAlign);
      for (int64_t e : c.getShapeArray())
        cells *= e; // < 2^62 / 1 by the checks below
      // By kind (getContainerBytes): dense and bitmasked hold their cells
      // (bitmasked then its mask words), pointer a slot per cell, a
      // bit_array one word (its cells are lanes of it).
      int64_t containerAlign = getContainerAlign(c.getKind(), cellAlign);
      offset = alignTo(offset, containerAlign);
      c.setLayout(offset, cellSize, cellAlign);
      std::optional<int64_t> bytes =
          getContainerBytes(c.getKind(), cells, cellSize, c.getChunkCells(),
                            isa<SNodeContainerOpInterface>(c->getParentOp()));
      if (!bytes || *bytes > kMaxBytes || offset + *bytes > kMaxBytes)
        return child.emitOpError("layout exceeds 2^62 bytes");
      offset += *bytes;
      align = std::max(align, containerAlign);
    } else if (auto p = dyn_cast<PlaceOp>(child)) {
      int64_t eoff = 0, ealign = 1;
      SmallVector<int64_t> compOffsets;
      for (unsigned i = 0; i < p.getNumComponents(); ++i) {
        int64_t sz = getComponentSize(p.getComponentType(i));
        eoff = alignTo(eoff, sz);
        compOffsets.push_back(eoff);
        eoff += sz;
        ealign = std::max(ealign, sz);
      }
      offset = alignTo(offset, ealign);
      p.setOffset(uint64_t(offset));
      p.setComponentOffsets(compOffsets);
      offset += alignTo(eoff, ealign);
      align = std::max(align, ealign);
    }
  }
  size = offset;
  return success();
}

/// After the root cell of `tree` (`size` bytes): the state of the pool of
/// each pointer, dynamic and hash node (read and written by the runtime and
/// by the code that allocates cells), an epoch counter (i64) per
/// bitmasked, pointer and hash node, and per pointer node, and bitmasked node
/// without a pointer node above it, with at most kMaxListCells cells in all
/// its parents' cells, its list of active cells (stamp i64, count i32, pad,
/// then an i32 per cell). Grows `size`. (Below a pointer node, a struct-for
/// runs over the pointer's list and tests the bitmasked cells in each
/// block: one task per block; below a hash, over the hash's entries.)
constexpr int64_t kMaxListCells = int64_t(1) << 26;
static void layoutStructure(TreeOp tree, int64_t &size, int64_t &align) {
  tree.walk([&](Operation *op) {
    auto c = dyn_cast<SNodeContainerOpInterface>(op);
    if (c && hasPool(c.getKind())) {
      // The state of its pool (tic_rt_pool_state: two cache lines).
      size = alignTo(size, 64);
      align = std::max<int64_t>(align, 64);
      op->setAttr(
          "pool_state_offset",
          IntegerAttr::get(IntegerType::get(op->getContext(), 64), size));
      size += kPoolStateBytes;
    }
    if (!c ||
        (c.getKind() != SNodeKind::Bitmasked &&
         c.getKind() != SNodeKind::Pointer && c.getKind() != SNodeKind::Hash))
      return;
    size = alignTo(size, 8);
    align = std::max<int64_t>(align, 8);
    op->setAttr("epoch_offset",
                IntegerAttr::get(IntegerType::get(op->getContext(), 64), size));
    size += 8;
    // A hash path's list of active cells is in scratch memory
    // (tic-lower-struct-for): its length is not known here. A hash below
    // another node has the notes of its tables to regrow (count, then
    // kHashNoteSlots containers).
    if (c.getKind() == SNodeKind::Hash) {
      if (isa<SNodeContainerOpInterface>(op->getParentOp())) {
        op->setAttr(
            "notes_offset",
            IntegerAttr::get(IntegerType::get(op->getContext(), 64), size));
        size += 8 + 8 * kHashNoteSlots;
      }
      return;
    }
    int64_t cells = 1;
    for (SNodeContainerOpInterface q : getContainerPath(op)) {
      if (c.getKind() == SNodeKind::Bitmasked &&
          (q.getKind() == SNodeKind::Pointer || q.getKind() == SNodeKind::Hash))
        return;
      for (int64_t e : q.getShapeArray())
        if (__builtin_mul_overflow(cells, e, &cells))
          cells = INT64_MAX;
    }
    if (cells > kMaxListCells)
      return;
    op->setAttr("list_offset",
                IntegerAttr::get(IntegerType::get(op->getContext(), 64), size));
    size += 16 + 4 * cells;
  });
}

struct AllocateLayoutPass : tic::impl::AllocateLayoutBase<AllocateLayoutPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<TreeOp> trees(module.getOps<TreeOp>());
    if (trees.empty())
      return;
    OpBuilder b(module.getBodyRegion());
    auto bufferName = StringAttr::get(&getContext(), SNodeLayout::kRootBuffer);
    auto buffer = module.lookupSymbol<BufferOp>(bufferName);
    if (!buffer) {
      b.setInsertionPointToStart(module.getBody());
      buffer = BufferOp::create(b, module.getLoc(), bufferName, 0, 1);
    }
    // Trees laid out before keep their place; new ones follow them.
    int64_t end = 0, bufAlign = buffer.getAlign();
    for (TreeOp t : trees)
      if (t.isAllocated() && t.getBufferAttr().getAttr() == bufferName) {
        end = std::max<int64_t>(end, *t.getOffset() + *t.getSize());
        bufAlign = std::max<int64_t>(bufAlign, *t.getAlign());
      }
    for (TreeOp t : trees) {
      if (t.isAllocated())
        continue;
      int64_t size, align;
      if (failed(layoutCell(t.getBody(), size, align)))
        return signalPassFailure();
      layoutStructure(t, size, align);
      size = alignTo(size, align);
      int64_t offset = alignTo(end, align);
      if (offset + size > kMaxBytes) {
        t.emitOpError("layout exceeds 2^62 bytes");
        return signalPassFailure();
      }
      t.setBufferAttr(FlatSymbolRefAttr::get(bufferName));
      t.setOffset(uint64_t(offset));
      t.setSize(uint64_t(size));
      t.setAlign(uint64_t(align));
      end = offset + size;
      bufAlign = std::max(bufAlign, align);
    }
    buffer.setSize(alignTo(std::max<int64_t>(end, buffer.getSize()), bufAlign));
    buffer.setAlign(bufAlign);
  }
};
} // namespace

//===- SNodeLayout.h - byte layout of SNode trees ---------------*- C++ -*-===//
//
// Reads, for every snode.tree of a module, the layout that
// tic-allocate-layout recorded (where each container and each field
// component lives in its buffer), and derives from it what the lowerings
// need: paths, per-level index extraction, strides, index shapes. Used by the
// lowering of field accesses and struct-fors, by the LLVM conversions and by
// the header/runtime generators (root_size, root_align, field shapes).
//
// The layout rules themselves are in one place, AllocateLayout.cpp. A module
// with an unallocated tree yields an empty layout: passes call
// checkAllocated() and fail with a located error.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_DIALECT_SNODE_SNODELAYOUT_H
#define TIC_DIALECT_SNODE_SNODELAYOUT_H

#include "mlir/IR/BuiltinOps.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include <deque>
#include <optional>

namespace tic::snode {

struct TreeLayout;
struct NodeLayout;

/// How a field's global index reaches one level of its path.
struct LevelAccess {
  const NodeLayout *node = nullptr;
  /// Per axis of `node`: product of the extents along that axis of the levels
  /// below `node` on this field's path. level index = (i / below) [% extent].
  llvm::SmallVector<int64_t> below;
};

/// One container SNode.
struct NodeLayout {
  SNodeContainerOpInterface op;
  std::string name;
  SNodeKind kind = SNodeKind::Dense;
  const NodeLayout *parent = nullptr; ///< null: child of the tree's root cell
  const TreeLayout *tree = nullptr;
  unsigned depth = 0;                 ///< 0 for children of the root cell
  llvm::SmallVector<int64_t> axes, shape;
  int64_t numCells = 1;               ///< product of shape
  int64_t cellSize = 0, cellAlign = 1;///< one cell (struct of the children)
  int64_t offsetInParent = 0;         ///< byte offset inside the parent's cell
  /// Per axis of this node (same order as `axes`): whether a level index
  /// must be reduced modulo the extent (false on the topmost level splitting
  /// the axis, which only depends on the ancestors).
  llvm::SmallVector<bool> needsMod;
  /// Per axis: stride of the per-level index in the row-major linear cell
  /// number, and the byte stride between neighbouring cells along that axis.
  llvm::SmallVector<int64_t> linearStride, byteStride;
  /// Extent of the node's own index space (its cells, counted from the
  /// root), per global axis 0..rank-1 of the node's path: the indices a
  /// struct-for over the node binds.
  llvm::SmallVector<int64_t> cellIndexShape;
  /// How the node's cell indices reach each level of its path, root ->
  /// this node (inclusive).
  llvm::SmallVector<LevelAccess> levels;
  /// bitmasked: byte offset of the mask words in the container.
  int64_t maskOffset = 0;
  /// dynamic: cells per chunk (the unit its pool hands out).
  int64_t chunkCells = 0;
  /// pointer and dynamic (hasPool): the number of its pool (such nodes in
  /// tree order), the bytes of what the pool hands out (a pointer cell, a
  /// dynamic chunk) and the most of those it can have at once (in every
  /// parent cell: pointer cells, or chunk slots).
  int32_t poolIndex = -1;
  int64_t poolCellSize = 0;
  int64_t maxCells = 0;
  /// hasPool: byte offset of its pool's state (tic_rt_pool_state) in the
  /// root buffer (-1: not recorded).
  int64_t poolStateOffset = -1;
  /// bitmasked and pointer: byte offset of the epoch counter in its tree's
  /// root cell (-1: none); pointer: of its active-cell list (-1: none, too
  /// many cells).
  int64_t epochOffset = -1, listOffset = -1;
  /// hash below another node: byte offset of the notes of its tables to
  /// regrow in its tree's structure area (-1: none; kHashNoteSlots).
  int64_t notesOffset = -1;
  /// The node or an ancestor is a hash: indices are unbounded (floor
  /// division and modulo extract each level's index).
  bool underHash = false;
  /// hash: its buckets (a power of two) and the offset of the cell in an
  /// entry (docs/sparse.md).
  int64_t hashBuckets = 0, hashCellOffset = 0;
  /// hash below other (dense) nodes: each parent cell holds a bucket array,
  /// and a key ends with the parent cell's number among the
  /// `hashParentCells` cells of the path above (getHashKeySlots).
  bool nestedHash = false;
  int64_t hashParentCells = 1;
  /// A nested hash below another hash: the nearest one (its entry number
  /// times `hashParentCells`, the cells of the levels between, numbers the
  /// parent cell in the key).
  const NodeLayout *hashAncestor = nullptr;
  /// Lowerable with today's code (a nested hash below at most 2^31 - 1
  /// parent cells, on every node of the path)?
  bool supported = true;
};

/// One field (snode.place).
struct PlaceLayout {
  PlaceOp op;
  std::string name;
  const NodeLayout *parent = nullptr; ///< null: 0-D field in the root cell
  const TreeLayout *tree = nullptr;
  llvm::SmallVector<LevelAccess> levels; ///< containers, root -> leaf
  llvm::SmallVector<mlir::Type> components;
  llvm::SmallVector<int64_t> componentOffsets; ///< inside the element
  int64_t elementSize = 0, elementAlign = 1;
  int64_t offsetInCell = 0;    ///< element offset inside the parent's cell
  /// Quantized places (in a bit_struct or bit_array): per component, its
  /// encoding and first bit in the container word (lane 0 of a bit_array);
  /// the word's bits. Empty / 0 for places of plain bytes.
  llvm::SmallVector<tic::bits::QuantAttr> quant;
  llvm::SmallVector<int64_t> bitOffsets;
  unsigned wordBits = 0;
  bool isQuant() const { return !quant.empty(); }
  /// In a bit_array: addressed by (container word, lane).
  bool inBitArray = false;
  /// Components sharing their bit_struct's exponent: its first bit (-1:
  /// none). The group is every such place of the same parent.
  int64_t exponentOffset = -1;
  /// Full index shape (one extent per axis 0..rank-1; empty for 0-D).
  llvm::SmallVector<int64_t> shape;
  /// Byte offset of component 0 of element (0, ..., 0) in the root buffer.
  int64_t baseOffset = 0;
  /// For a single-level dense path (or 0-D), the fields are strided arrays:
  /// byte stride per axis. std::nullopt for hierarchical layouts (use
  /// SNodeLayout::getElementOffset).
  std::optional<llvm::SmallVector<int64_t>> strides;
  bool supported = true;
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
};

struct TreeLayout {
  TreeOp op;
  std::string name;
  std::string buffer; ///< snode.buffer symbol the tree lives in
  int64_t offset = 0; ///< of the root cell in its buffer
  int64_t size = 0, align = 1;
};

class SNodeLayout {
public:
  /// Analyses every snode.tree directly inside `moduleOp`. Usable as an
  /// MLIR analysis (getAnalysis<SNodeLayout>()).
  explicit SNodeLayout(mlir::Operation *moduleOp);

  /// Name of the buffer the runtime allocates per context (the only one
  /// today; sparse pools will add others).
  static constexpr llvm::StringLiteral kRootBuffer = "tic.root";

  /// Success when every tree has a recorded layout; otherwise an error at
  /// the first tree without one.
  mlir::LogicalResult checkAllocated() const;

  int64_t getRootSize() const { return rootSize; }
  /// Number of pointer and dynamic nodes (each has a pool).
  int32_t getNumPools() const { return numPools; }
  int64_t getRootAlign() const { return rootAlign; }

  const TreeLayout *lookupTree(llvm::StringRef name) const;
  const NodeLayout *lookupNode(llvm::StringRef name) const;
  const PlaceLayout *lookupPlace(llvm::StringRef name) const;

  const std::deque<TreeLayout> &getTrees() const { return trees; }
  const std::deque<NodeLayout> &getNodes() const { return nodes; }
  /// Places in tree/declaration order.
  const std::deque<PlaceLayout> &getPlaces() const { return places; }

  /// Byte offset in the root buffer of component `comp` of the element at
  /// `indices` (in range) of `field`.
  int64_t getElementOffset(const PlaceLayout &field, llvm::ArrayRef<int64_t> indices,
                           unsigned comp) const;

  /// Human-readable dump (used by tic-print-snode-layout).
  void print(llvm::raw_ostream &os) const;

private:
  void layoutChildren(mlir::Region &region, const NodeLayout *parent,
                      const TreeLayout *tree);
  mlir::Operation *unallocated = nullptr;
  std::deque<TreeLayout> trees;
  std::deque<NodeLayout> nodes;
  std::deque<PlaceLayout> places;
  llvm::StringMap<const TreeLayout *> treeMap;
  llvm::StringMap<const NodeLayout *> nodeMap;
  llvm::StringMap<const PlaceLayout *> placeMap;
  int64_t rootSize = 0, rootAlign = 1;
  int32_t numPools = 0;
};

/// Erases the snode.tree and snode.buffer ops of `module` once no op of the
/// snode dialect is left outside them: the last conversion that needs the
/// recorded layout (convert-snode-to-llvm, or the target's tc conversion
/// when it runs later) drops it.
void eraseLayoutIfUnused(mlir::ModuleOp module);

} // namespace tic::snode

#endif

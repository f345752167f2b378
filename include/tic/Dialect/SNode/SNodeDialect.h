//===- SNodeDialect.h - the snode dialect -----------------------*- C++ -*-===//
#ifndef TIC_DIALECT_SNODE_SNODEDIALECT_H
#define TIC_DIALECT_SNODE_SNODEDIALECT_H

#include <optional>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tic/Dialect/Bits/BitsDialect.h"

// SNodeKind and AtomicKind.
#include "tic/Dialect/SNode/SNodeEnums.h.inc"

namespace tic::snode {
/// Which cells exist: activation state, pointers, hash tables, lengths.
struct StructureResource
    : mlir::SideEffects::Resource::Base<StructureResource> {
  llvm::StringRef getName() final { return "snode::Structure"; }
};
/// The values stored in placed fields.
struct FieldDataResource
    : mlir::SideEffects::Resource::Base<FieldDataResource> {
  llvm::StringRef getName() final { return "snode::FieldData"; }
};
/// Nodes whose cells are all active, always: a lookup is address
/// arithmetic with no memory effect.
inline bool isAlwaysActive(SNodeKind kind) {
  return kind == SNodeKind::Dense || kind == SNodeKind::BitStruct ||
         kind == SNodeKind::BitArray;
}
} // namespace tic::snode

#include "tic/Dialect/SNode/SNodeDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tic/Dialect/SNode/SNodeTypes.h.inc"

#include "tic/Dialect/SNode/SNodeInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tic/Dialect/SNode/SNodeOps.h.inc"

namespace tic::snode {
/// The module (closest ancestor ModuleOp, or the top-level op) of `from`.
mlir::Operation *getSymbolScope(mlir::Operation *from);
/// Tree `name` among the snode.tree ops of the module of `from`.
TreeOp lookupTree(mlir::Operation *from, llvm::StringRef name,
                  mlir::SymbolTableCollection *tables = nullptr);
/// Container op (SNodeContainerOpInterface) named `name` in any tree.
///
/// With `tables` (from verifySymbolUses) the lookup is O(1): it uses the
/// name index that snode.tree's verifier builds for the module in the same
/// verification run (nested ops are verified before the module's symbol
/// uses), checked against `tables` to be current. Without, or when there is
/// no current index, it walks the trees.
SNodeContainerOpInterface
lookupNode(mlir::Operation *from, llvm::StringRef name,
           mlir::SymbolTableCollection *tables = nullptr);
/// Place op named `name` in any tree (see lookupNode).
PlaceOp lookupPlace(mlir::Operation *from, llvm::StringRef name,
                    mlir::SymbolTableCollection *tables = nullptr);
/// Containers from the tree down to `nodeOrPlace` (inclusive when it is a
/// container; a place's own path ends at its parent container).
llvm::SmallVector<SNodeContainerOpInterface> getContainerPath(mlir::Operation *nodeOrPlace);
/// Number of indices of the index space of a place or container: one more
/// than the largest axis on its path (0 for a place directly under a tree).
unsigned getIndexRank(mlir::Operation *nodeOrPlace);
/// True for scalar types that may be field components.
bool isComponentType(mlir::Type type);
/// Size in bytes of a scalar component type (i1 takes one byte).
int64_t getComponentSize(mlir::Type type);

/// What a container takes in its parent's cell, by kind (the layout rule
/// tic-allocate-layout applies and the verifier and SNodeLayout read back):
///   dense      numCells cells of cellSize bytes;
///   bitmasked  the same cells, then one activity bit per cell in 32-bit
///              words from getBitmaskOffset on;
///   pointer    one 8-byte slot per cell, null or the address of the cell
///              in the node's pool (the cells are not in the parent);
///   dynamic    its length (i32, padded to 8 bytes), then one 8-byte slot
///              per chunk of `chunkCells` cells, null or the address of the
///              chunk in the node's pool;
///   hash       getHashBuckets(numCells, nested) 8-byte bucket heads, null
///              or the first entry of the bucket's chain (entries, with
///              their cells, come from the node's pool); below another
///              node after a kHashTableHeaderBytes header (the table in
///              each parent cell grows into a block of its own); a child
///              of the root: a 16-byte header (its bucket count, see
///              kHashGrowthHeaderBytes) and room for kHashMaxBuckets, of
///              which the first getHashBuckets(numCells) are used at first
///              (the table grows in place between launches).
/// std::nullopt when the size overflows int64_t. `nested`: a hash below
/// another node (a table in each parent cell).
std::optional<int64_t> getContainerBytes(SNodeKind kind, int64_t numCells,
                                         int64_t cellSize,
                                         int64_t chunkCells = 0,
                                         bool nested = false);
/// Byte offset of a dynamic container's chunk slots (after its length).
constexpr int64_t kDynamicSlotsOffset = 8;
/// A hash node's entry: the next entry of its bucket's chain (8 bytes),
/// its activity flag (i32), its key (the cell indices, 32 bits each,
/// packed from bit 0 in axis order, in an i32, i64 or i128 from byte 16),
/// then the cell at getHashCellOffset.
constexpr int64_t kHashNextOffset = 0, kHashFlagOffset = 8, kHashKeyOffset = 16,
                  kHashHeaderBytes = 32;
/// Buckets of a hash node of `numCells` cells (its `shape` sizes the
/// table): the power of two at or above 4 * numCells, from 4096 to 2^22
/// (bucket pages nobody touched cost no memory; the chains grow past it);
/// below another node (a table in each parent cell), from 64.
inline int64_t getHashBuckets(int64_t numCells, bool nested = false) {
  int64_t b = nested ? 64 : 4096;
  while (b < numCells * 4 && b < (int64_t(1) << 22))
    b *= 2;
  return b;
}
/// A root-level hash table: its header holds mask ^ (initial buckets - 1)
/// (0 at first: the initial table) and the entries its last purge left (0
/// at first), 8 bytes each; the bucket heads follow; it grows in place by
/// powers of two (snode.hash_maintain) up to kHashMaxBuckets.
constexpr int64_t kHashGrowthHeaderBytes = 16, kHashMaxBuckets = int64_t(1)
                                                                 << 22;
/// A hash table below another node (one in each parent cell): a header,
/// then its initial bucket heads. The header holds the entries in the
/// table's chains (i64, counted at insertion, reset by a purge), the block
/// of its grown heads (null: the initial ones, after the header) and its
/// mask ^ (initial buckets - 1) (i64, 0 at first). An insertion that brings
/// the count to a power of two at least twice the buckets notes the table
/// in its node's notes (kHashNoteSlots containers after a count, in the
/// tree's structure area); snode.hash_maintain_tables purges and regrows
/// the noted tables between launches.
constexpr int64_t kHashTableCountOffset = 0, kHashTableBlockOffset = 8,
                  kHashTableMaskOffset = 16, kHashTableHeaderBytes = 24;
constexpr int64_t kHashNoteSlots = 1024;

/// Bytes of the state of a pool (the runtime's tic_rt_pool_state, ABI 6)
/// that tic-allocate-layout reserves after a tree's root cell, aligned to
/// 64 (RuntimeABI.h checks the two agree).
constexpr int64_t kPoolStateBytes = 128;
/// The most buckets a table below another node grows to.
constexpr int64_t kHashMaxTableBuckets = int64_t(1) << 20;
inline int64_t getHashCellOffset(int64_t cellAlign) {
  return (kHashHeaderBytes + cellAlign - 1) / cellAlign * cellAlign;
}
inline int64_t getHashEntryBytes(int64_t cellSize, int64_t cellAlign) {
  return (getHashCellOffset(cellAlign) + cellSize + 15) / 16 * 16;
}
/// The 32-bit slots of a hash node's key: its cell indices, one per axis,
/// then, for a hash below other nodes (`nested`: dense ones), the number of
/// its parent's cell among all the parent node's cells (row-major over the
/// path from the root).
inline unsigned getHashKeySlots(unsigned numAxes, bool nested) {
  return numAxes + (nested ? 1 : 0);
}
/// The key slots of hash node `c` (nested when its parent is a node).
unsigned getHashKeySlots(SNodeContainerOpInterface c);
/// Bits of a hash node's packed key of `numSlots` slots (getHashKeySlots):
/// 32 per slot, in an i32, i64 or i128.
inline unsigned getHashKeyBits(unsigned numSlots) {
  return numSlots <= 1 ? 32 : numSlots == 2 ? 64 : 128;
}
/// The alignment of the container (of its first byte in the parent's cell).
int64_t getContainerAlign(SNodeKind kind, int64_t cellAlign);
/// Byte offset of a bitmasked container's mask words (after its cells).
inline int64_t getBitmaskOffset(int64_t numCells, int64_t cellSize) {
  return (numCells * cellSize + 3) / 4 * 4;
}
/// Containers whose cells hold bits of one word (quantized places).
inline bool isBitContainer(SNodeKind kind) {
  return kind == SNodeKind::BitStruct || kind == SNodeKind::BitArray;
}
class PlaceOp;
/// The container word type (i8..i64) of a place in a bit_struct or
/// bit_array; null for places of plain bytes.
mlir::Type getWordType(PlaceOp place);
/// Whether the cells of the kind come from a memory pool of the node
/// (snode.alloc_cell / free_cell): pointer cells, dynamic chunks, hash
/// entries.
inline bool hasPool(SNodeKind kind) {
  return kind == SNodeKind::Pointer || kind == SNodeKind::Dynamic ||
         kind == SNodeKind::Hash;
}
/// Whether `op` neither reads nor writes field data: no memory effect, or
/// only effects on other named resources (the SNode structure, ndarrays)
/// and on locals it can see allocated (memref.alloca). What field-access
/// transformations (tic-fuse-bit-stores, tic-coalesce-atomics) may move
/// their accesses across.
bool keepsFieldData(mlir::Operation *op);
} // namespace tic::snode

#endif

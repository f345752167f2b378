//===- SNodeDialect.cpp - the snode dialect -------------------------------===//
#include "tic/Dialect/SNode/SNodeDialect.h"

#include <mutex>
#include <optional>

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tic::snode;

#include "tic/Dialect/SNode/SNodeDialect.cpp.inc"
#include "tic/Dialect/SNode/SNodeEnums.cpp.inc"
#include "tic/Dialect/SNode/SNodeInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tic/Dialect/SNode/SNodeTypes.cpp.inc"

void SNodeDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tic/Dialect/SNode/SNodeTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tic/Dialect/SNode/SNodeOps.cpp.inc"
      >();
}

Operation *SNodeDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Operation *tic::snode::getSymbolScope(Operation *from) {
  if (!from) return nullptr;
  if (isa<ModuleOp>(from)) return from;
  if (auto m = from->getParentOfType<ModuleOp>()) return m;
  Operation *op = from;
  while (op->getParentOp()) op = op->getParentOp();
  return op;
}

static void forEachTree(Operation *from, llvm::function_ref<bool(TreeOp)> fn) {
  Operation *scope = getSymbolScope(from);
  if (!scope) return;
  for (Region &r : scope->getRegions())
    for (Block &b : r)
      for (auto tree : b.getOps<TreeOp>())
        if (!fn(tree)) return;
}

namespace {
/// The names of every node and place of a module's trees, built by the
/// snode.tree verifier: symbol-use verifiers look names up here instead of
/// walking the trees (a walk per use was quadratic in the number of
/// fields). `trees` lets a lookup check, through the verification run's
/// SymbolTableCollection, that the trees indexed are the module's trees.
struct NameIndex {
  SmallVector<std::pair<std::string, Operation *>> trees;
  llvm::StringMap<Operation *> names;
};
std::mutex &indexMutex() {
  static std::mutex m;
  return m;
}
llvm::DenseMap<Operation *, NameIndex> &nameIndexes() {
  static llvm::DenseMap<Operation *, NameIndex> indexes;
  return indexes;
}

/// The op named `name` from the current index of `from`'s module; nullopt
/// when there is no current index (the caller walks the trees).
std::optional<Operation *> indexedLookup(Operation *from, StringRef name,
                                         SymbolTableCollection &tables) {
  Operation *scope = getSymbolScope(from);
  if (!scope || !scope->hasTrait<OpTrait::SymbolTable>())
    return std::nullopt;
  std::lock_guard<std::mutex> lock(indexMutex());
  auto it = nameIndexes().find(scope);
  if (it == nameIndexes().end())
    return std::nullopt;
  for (auto &[treeName, tree] : it->second.trees)
    if (tables.lookupSymbolIn(
            scope, StringAttr::get(from->getContext(), treeName)) != tree) {
      nameIndexes().erase(it);
      return std::nullopt;
    }
  auto n = it->second.names.find(name);
  return n == it->second.names.end() ? nullptr : n->second;
}
} // namespace

TreeOp tic::snode::lookupTree(Operation *from, StringRef name,
                              SymbolTableCollection *tables) {
  if (tables) {
    Operation *scope = getSymbolScope(from);
    if (scope && scope->hasTrait<OpTrait::SymbolTable>())
      return dyn_cast_or_null<TreeOp>(tables->lookupSymbolIn(
          scope, StringAttr::get(from->getContext(), name)));
  }
  TreeOp found;
  forEachTree(from, [&](TreeOp t) {
    if (t.getSymName() == name) { found = t; return false; }
    return true;
  });
  return found;
}

SNodeContainerOpInterface
tic::snode::lookupNode(Operation *from, StringRef name,
                       SymbolTableCollection *tables) {
  if (tables)
    if (std::optional<Operation *> op = indexedLookup(from, name, *tables))
      return dyn_cast_or_null<SNodeContainerOpInterface>(*op);
  SNodeContainerOpInterface found;
  forEachTree(from, [&](TreeOp t) {
    t.walk([&](SNodeContainerOpInterface n) {
      if (n.getNodeName() == name) { found = n; return WalkResult::interrupt(); }
      return WalkResult::advance();
    });
    return !found;
  });
  return found;
}

PlaceOp tic::snode::lookupPlace(Operation *from, StringRef name,
                                SymbolTableCollection *tables) {
  if (tables)
    if (std::optional<Operation *> op = indexedLookup(from, name, *tables))
      return dyn_cast_or_null<PlaceOp>(*op);
  PlaceOp found;
  forEachTree(from, [&](TreeOp t) {
    t.walk([&](PlaceOp p) {
      if (p.getSymName() == name) { found = p; return WalkResult::interrupt(); }
      return WalkResult::advance();
    });
    return !found;
  });
  return found;
}

SmallVector<SNodeContainerOpInterface>
tic::snode::getContainerPath(Operation *nodeOrPlace) {
  SmallVector<SNodeContainerOpInterface> path;
  for (Operation *op = nodeOrPlace; op && !isa<TreeOp>(op); op = op->getParentOp())
    if (auto c = dyn_cast<SNodeContainerOpInterface>(op)) path.push_back(c);
  std::reverse(path.begin(), path.end());
  return path;
}

unsigned tic::snode::getIndexRank(Operation *nodeOrPlace) {
  int64_t maxAxis = -1;
  for (auto c : getContainerPath(nodeOrPlace))
    for (int64_t a : c.getAxesArray()) maxAxis = std::max(maxAxis, a);
  return unsigned(maxAxis + 1);
}

bool tic::snode::isComponentType(Type type) {
  if (auto it = dyn_cast<IntegerType>(type))
    return it.isSignless() && llvm::is_contained({1u, 8u, 16u, 32u, 64u}, it.getWidth());
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

int64_t tic::snode::getComponentSize(Type type) {
  if (auto it = dyn_cast<IntegerType>(type)) return std::max<int64_t>(1, (it.getWidth() + 7) / 8);
  if (auto ft = dyn_cast<FloatType>(type)) return ft.getWidth() / 8;
  return 0;
}

unsigned tic::snode::getHashKeySlots(SNodeContainerOpInterface c) {
  return getHashKeySlots(
      unsigned(c.getAxesArray().size()),
      isa_and_nonnull<SNodeContainerOpInterface>(c->getParentOp()));
}

std::optional<int64_t> tic::snode::getContainerBytes(SNodeKind kind,
                                                     int64_t numCells,
                                                     int64_t cellSize,
                                                     int64_t chunkCells,
                                                     bool nested) {
  int64_t bytes;
  switch (kind) {
  case SNodeKind::Pointer:
    if (__builtin_mul_overflow(numCells, int64_t(8), &bytes))
      return std::nullopt;
    return bytes;
  case SNodeKind::Hash:
    return nested ? kHashTableHeaderBytes + getHashBuckets(numCells, true) * 8
                  : kHashGrowthHeaderBytes + kHashMaxBuckets * 8;
  case SNodeKind::Dynamic: {
    if (chunkCells <= 0 || chunkCells > numCells)
      chunkCells = numCells;
    int64_t chunks = numCells / chunkCells + (numCells % chunkCells != 0);
    return kDynamicSlotsOffset + chunks * 8;
  }
  case SNodeKind::BitArray:
    return cellSize; // one word; the cells are its lanes
  case SNodeKind::Bitmasked: {
    int64_t words = numCells / 32 + (numCells % 32 != 0);
    if (__builtin_mul_overflow(numCells, cellSize, &bytes) ||
        bytes > INT64_MAX - 3 ||
        __builtin_add_overflow(getBitmaskOffset(numCells, cellSize), words * 4,
                               &bytes))
      return std::nullopt;
    return bytes;
  }
  default:
    if (__builtin_mul_overflow(numCells, cellSize, &bytes))
      return std::nullopt;
    return bytes;
  }
}

int64_t tic::snode::getContainerAlign(SNodeKind kind, int64_t cellAlign) {
  switch (kind) {
  case SNodeKind::Pointer:
  case SNodeKind::Dynamic:
  case SNodeKind::Hash:
    return 8;
  case SNodeKind::Bitmasked:
    return std::max<int64_t>(cellAlign, 4);
  default:
    return cellAlign;
  }
}

//===----------------------------------------------------------------------===//
// Tree
//===----------------------------------------------------------------------===//

void TreeOp::build(OpBuilder &b, OperationState &st, StringRef name) {
  st.addAttribute(getSymNameAttrName(st.name), b.getStringAttr(name));
  Region *r = st.addRegion();
  r->push_back(new Block());
}

static LogicalResult verifyChildren(Operation *op, Region &region) {
  if (region.empty() || region.front().empty())
    return op->emitOpError("must contain at least one child SNode or place");
  for (Operation &child : region.front())
    if (!isa<SNodeContainerOpInterface, PlaceOp>(child))
      return child.emitOpError("is not allowed inside an SNode; expected a "
                               "container SNode or snode.place");
  return success();
}

//===----------------------------------------------------------------------===//
// Recorded layout (tic-allocate-layout)
//===----------------------------------------------------------------------===//

static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

LogicalResult BufferOp::verify() {
  if (!isPow2(getAlign()))
    return emitOpError("alignment must be a power of two, got ") << getAlign();
  if (getSize() < 0 || getSize() % getAlign() != 0)
    return emitOpError("size ")
           << getSize() << " must be a non-negative multiple of the alignment";
  return success();
}

LogicalResult TreeOp::verifySymbolUses(SymbolTableCollection &tables) {
  if (!getBuffer())
    return success();
  auto buffer =
      tables.lookupNearestSymbolFrom<BufferOp>(*this, getBufferAttr());
  if (!buffer)
    return emitOpError("is allocated in unknown snode.buffer ")
           << getBufferAttr();
  if (int64_t(*getOffset() + *getSize()) > int64_t(buffer.getSize()) ||
      buffer.getAlign() % int64_t(*getAlign()) != 0)
    return emitOpError("does not fit in buffer ")
           << getBufferAttr() << " (offset " << *getOffset() << ", size "
           << *getSize() << ", align " << *getAlign() << "; buffer size "
           << buffer.getSize() << ", align " << buffer.getAlign() << ")";
  return success();
}

/// Size and alignment of one element of `place` with the recorded component
/// offsets (which must each be aligned to their component's size).
static LogicalResult placeExtent(PlaceOp place, int64_t &size, int64_t &align) {
  ArrayRef<int64_t> offs = *place.getComponentOffsets();
  if (offs.size() != place.getNumComponents())
    return place.emitOpError("has ")
           << offs.size() << " component offsets for "
           << place.getNumComponents() << " components";
  llvm::SmallVector<std::pair<int64_t, int64_t>> spans;
  size = 0;
  align = 1;
  for (auto [i, off] : llvm::enumerate(offs)) {
    int64_t sz = getComponentSize(place.getComponentType(i));
    if (off < 0 || off % sz != 0)
      return place.emitOpError("component ")
             << i << " at offset " << off << " is not aligned to its size "
             << sz;
    spans.push_back({off, off + sz});
    size = std::max(size, off + sz);
    align = std::max(align, sz);
  }
  llvm::sort(spans);
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second)
      return place.emitOpError("has overlapping components");
  size = (size + align - 1) / align * align;
  return success();
}

/// Checks the children of one cell (`cellSize` bytes, aligned to
/// `cellAlign`): every child allocated, aligned, inside the cell, and no two
/// overlapping.
/// The word of a bit_struct or bit_array (`cellSize` bytes): every place
/// quantized, with a bit offset per component, the fields (every lane of a
/// bit_array's) inside the word and apart.
static LogicalResult verifyBitLayout(SNodeContainerOpInterface owner,
                                     int64_t cellSize) {
  int64_t wordBits = owner->getAttrOfType<IntegerAttr>("bits").getInt();
  if (cellSize * 8 != wordBits)
    return owner.emitOpError("cell of ")
           << cellSize << " bytes is not its " << wordBits << "-bit word";
  int64_t lanes =
      owner.getKind() == SNodeKind::BitArray ? owner.getShapeArray()[0] : 1;
  llvm::SmallVector<std::pair<int64_t, int64_t>> spans;
  std::optional<int64_t> exponent; // the shared exponent's offset
  for (Operation &child : owner.getChildren().front()) {
    auto p = cast<PlaceOp>(child);
    std::optional<ArrayRef<int64_t>> offs = p.getBitOffsets();
    if (!offs || offs->size() != p.getNumComponents())
      return p.emitOpError("needs a bit offset per component in a ")
             << stringifySNodeKind(owner.getKind());
    if (p.getSharedExponent()) {
      if (!p.getExponentOffset() ||
          (exponent && *exponent != int64_t(*p.getExponentOffset())))
        return p.emitOpError("needs the 'exponent_offset' of its bit_struct's "
                             "shared exponent");
      if (!exponent)
        spans.push_back({int64_t(*p.getExponentOffset()),
                         int64_t(*p.getExponentOffset()) +
                             int64_t(p.getQuantOf(0).getExp())});
      exponent = *p.getExponentOffset();
    }
    for (auto [i, off] : llvm::enumerate(*offs)) {
      int64_t w = p.getSharedExponent() ? p.getQuantOf(i).getFrac()
                                        : p.getQuantOf(i).getWidth();
      for (int64_t l = 0; l < lanes; ++l)
        spans.push_back({off + l * w, off + (l + 1) * w});
    }
  }
  llvm::sort(spans);
  for (auto [k, s] : llvm::enumerate(spans))
    if (s.first < 0 || s.second > wordBits ||
        (k && s.first < spans[k - 1].second))
      return owner.emitOpError("bit fields overlap or leave the ")
             << wordBits << "-bit word";
  return success();
}

static LogicalResult verifyCellLayout(Operation *owner, Region &region,
                                      int64_t cellSize, int64_t cellAlign) {
  if (auto c = dyn_cast<SNodeContainerOpInterface>(owner);
      c && isBitContainer(c.getKind()))
    return verifyBitLayout(c, cellSize);
  llvm::SmallVector<std::tuple<int64_t, int64_t, Operation *>> spans;
  for (Operation &child : region.front()) {
    int64_t off, size, align;
    if (auto c = dyn_cast<SNodeContainerOpInterface>(child)) {
      if (!c.getLayoutOffset() || !c.getLayoutCellSize() ||
          !c.getLayoutCellAlign())
        return child.emitOpError(
            "has no recorded layout, but its tree has one");
      int64_t cs = *c.getLayoutCellSize(), ca = *c.getLayoutCellAlign();
      if (!isPow2(ca) || cs < 0 || cs % ca != 0)
        return child.emitOpError("cell size ")
               << cs << " must be a multiple of its power-of-two alignment "
               << ca;
      int64_t cells = 1;
      for (int64_t e : c.getShapeArray())
        if (__builtin_mul_overflow(cells, e, &cells))
          return child.emitOpError("has too many cells");
      std::optional<int64_t> bytes =
          getContainerBytes(c.getKind(), cells, cs, c.getChunkCells(),
                            isa<SNodeContainerOpInterface>(c->getParentOp()));
      if (!bytes)
        return child.emitOpError("cell array size overflows");
      size = *bytes;
      off = *c.getLayoutOffset();
      align = getContainerAlign(c.getKind(), ca);
      if (failed(verifyCellLayout(&child, c.getChildren(), cs, ca)))
        return failure();
    } else if (auto p = dyn_cast<PlaceOp>(child)) {
      if (!p.getOffset() || !p.getComponentOffsets())
        return child.emitOpError(
            "has no recorded layout, but its tree has one");
      if (failed(placeExtent(p, size, align)))
        return failure();
      off = *p.getOffset();
    } else {
      continue;
    }
    if (off < 0 || off % align != 0 || cellAlign % align != 0)
      return child.emitOpError("offset ")
             << off << " (alignment " << align
             << ") is not aligned inside a cell aligned to " << cellAlign;
    if (off > cellSize || size > cellSize - off)
      return child.emitOpError("bytes [")
             << off << ", " << off + size
             << ") do not fit in the parent's cell of " << cellSize << " bytes";
    spans.push_back({off, off + size, &child});
  }
  llvm::sort(spans,
             [](auto &a, auto &b) { return std::get<0>(a) < std::get<0>(b); });
  for (size_t i = 1; i < spans.size(); ++i)
    if (std::get<0>(spans[i]) < std::get<1>(spans[i - 1]))
      return std::get<2>(spans[i])->emitOpError(
                 "overlaps a sibling in the cell of ")
             << owner->getName();
  return success();
}

LogicalResult TreeOp::verifyLayout(TreeOp tree) {
  bool any =
      tree.getBuffer() || tree.getOffset() || tree.getSize() || tree.getAlign();
  if (!any) {
    // Unallocated: no node may carry a layout either.
    WalkResult w = tree.walk([&](Operation *op) {
      auto c = dyn_cast<SNodeContainerOpInterface>(op);
      auto p = dyn_cast<PlaceOp>(op);
      if ((c && (c.getLayoutOffset() || c.getLayoutCellSize() ||
                 c.getLayoutCellAlign())) ||
          (p && (p.getOffset() || p.getComponentOffsets()))) {
        op->emitOpError("has a recorded layout, but its tree has none");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(w.wasInterrupted());
  }
  if (!tree.getBuffer() || !tree.getOffset() || !tree.getSize() ||
      !tree.getAlign())
    return tree.emitOpError(
        "needs all of 'buffer', 'offset', 'size' and 'align' "
        "once allocated");
  int64_t size = *tree.getSize(), align = *tree.getAlign(),
          off = *tree.getOffset();
  if (!isPow2(align) || size < 0 || size % align != 0 || off < 0 ||
      off % align != 0)
    return tree.emitOpError("offset ")
           << off << " and size " << size
           << " must be multiples of the power-of-two alignment " << align;
  return verifyCellLayout(tree, tree.getBody(), size, align);
}

LogicalResult TreeOp::verifyRegions() {
  if (failed(verifyChildren(*this, getBody()))) return failure();
  // Names are unique across every tree of the module.
  llvm::StringMap<Operation *> names;
  auto record = [&](Operation *op, StringRef name) -> LogicalResult {
    auto [it, inserted] = names.try_emplace(name, op);
    if (!inserted && it->second != op)
      return op->emitOpError("redefines SNode or field name '") << name << "'";
    return success();
  };
  LogicalResult result = success();
  forEachTree(*this, [&](TreeOp tree) {
    tree.walk([&](Operation *op) {
      if (auto c = dyn_cast<SNodeContainerOpInterface>(op)) {
        if (failed(record(op, c.getNodeName()))) result = failure();
      } else if (auto p = dyn_cast<PlaceOp>(op)) {
        if (failed(record(op, p.getSymName()))) result = failure();
      }
    });
    return succeeded(result);
  });
  {
    // The name index of this verification run (see lookupNode).
    Operation *scope = getSymbolScope(*this);
    std::lock_guard<std::mutex> lock(indexMutex());
    if (failed(result)) {
      nameIndexes().erase(scope);
    } else {
      NameIndex &index = nameIndexes()[scope];
      index.trees.clear();
      forEachTree(*this, [&](TreeOp tree) {
        index.trees.push_back({tree.getSymName().str(), tree});
        return true;
      });
      index.names = std::move(names);
    }
  }
  if (failed(result)) return failure();
  if (failed(verifyLayout(*this)))
    return failure();
  // Index spaces: the axes of a path to a place are 0..d-1.
  WalkResult w = walk([&](PlaceOp place) {
    llvm::SmallBitVector seen(8);
    unsigned rank = getIndexRank(place);
    for (auto c : getContainerPath(place))
      for (int64_t a : c.getAxesArray()) seen.set(a);
    for (unsigned a = 0; a < rank; ++a)
      if (!seen.test(a)) {
        place.emitOpError("index space of field '")
            << place.getSymName() << "' skips axis " << a
            << " (the axes on a path must be 0..d-1)";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(w.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Containers
//===----------------------------------------------------------------------===//

static LogicalResult verifyContainer(SNodeContainerOpInterface node,
                                     std::optional<int64_t> chunk,
                                     std::optional<int64_t> bits) {
  Operation *op = node;
  SNodeKind kind = node.getKind();
  ArrayRef<int64_t> axes = node.getAxesArray(), shape = node.getShapeArray();
  if (node.getNodeName().empty()) return op->emitOpError("needs a name");
  if (axes.size() != shape.size())
    return op->emitOpError("has ") << axes.size() << " axes but "
                                    << shape.size() << " extents";
  if (axes.empty() && kind != SNodeKind::BitStruct)
    return op->emitOpError("needs at least one axis");
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= 8)
      return op->emitOpError("axis ") << axes[i] << " out of range [0, 8)";
    if (i > 0 && axes[i] <= axes[i - 1])
      return op->emitOpError("axes must be sorted and unique");
    if (shape[i] <= 0)
      return op->emitOpError("extent along axis ")
             << axes[i] << " must be positive, got " << shape[i];
  }
  if (chunk && kind != SNodeKind::Dynamic)
    return op->emitOpError("'chunk' is only valid on snode.dynamic");
  if (bits && kind != SNodeKind::BitStruct && kind != SNodeKind::BitArray)
    return op->emitOpError("'bits' is only valid on bit_struct and bit_array");
  if (failed(verifyChildren(op, node.getChildren()))) return failure();
  switch (kind) {
  case SNodeKind::Dynamic: {
    if (axes.size() != 1)
      return op->emitOpError("dynamic SNodes have exactly one axis");
    if (chunk && *chunk <= 0) return op->emitOpError("'chunk' must be positive");
    for (Operation &child : node.getChildren().front())
      if (!isa<PlaceOp>(child))
        return op->emitOpError("dynamic SNodes may only hold places");
    // The dynamic axis is the last one of the index space, and no
    // ancestor splits it (a list's cells are its elements).
    for (auto c : getContainerPath(op)) {
      if (c.getOperation() == op)
        continue;
      for (int64_t a : c.getAxesArray()) {
        if (a > axes[0])
          return op->emitOpError(
              "the axis of a dynamic SNode must be the last one");
        if (a == axes[0])
          return op->emitOpError("the axis of a dynamic SNode must not be "
                                 "split by an ancestor");
      }
    }
    break;
  }
  case SNodeKind::BitStruct:
  case SNodeKind::BitArray:
    if (!bits || !llvm::is_contained({8, 16, 32, 64}, *bits))
      return op->emitOpError("needs 'bits' of 8, 16, 32 or 64");
    for (Operation &child : node.getChildren().front())
      if (!isa<PlaceOp>(child))
        return op->emitOpError("may only hold places of quantized fields");
    if (kind == SNodeKind::BitArray && axes.size() != 1)
      return op->emitOpError("bit_array SNodes have exactly one axis");
    break;
  default:
    break;
  }
  return success();
}

#define TIC_CONTAINER_IMPL(OP)                                                 \
  void OP::build(OpBuilder &b, OperationState &st, StringRef name,            \
                 ArrayRef<int64_t> axes, ArrayRef<int64_t> shape) {            \
    st.addAttribute(getSymNameAttrName(st.name), b.getStringAttr(name));      \
    st.addAttribute(getAxesAttrName(st.name), b.getDenseI64ArrayAttr(axes));   \
    st.addAttribute(getShapeAttrName(st.name), b.getDenseI64ArrayAttr(shape)); \
    Region *r = st.addRegion();                                                \
    r->push_back(new Block());                                                 \
  }                                                                            \
  LogicalResult OP::verify() {                                                 \
    return verifyContainer(*this, getChunk(), getBits());                      \
  }
TIC_CONTAINER_IMPL(DenseOp)
TIC_CONTAINER_IMPL(PointerOp)
TIC_CONTAINER_IMPL(BitmaskedOp)
TIC_CONTAINER_IMPL(HashOp)
TIC_CONTAINER_IMPL(DynamicOp)
TIC_CONTAINER_IMPL(BitStructOp)
TIC_CONTAINER_IMPL(BitArrayOp)
#undef TIC_CONTAINER_IMPL

//===----------------------------------------------------------------------===//
// Place
//===----------------------------------------------------------------------===//

LogicalResult PlaceOp::verify() {
  if (getComponents().empty())
    return emitOpError("needs at least one component type");
  auto parent = dyn_cast<SNodeContainerOpInterface>((*this)->getParentOp());
  bool bitsParent = parent && isBitContainer(parent.getKind());
  if (ArrayAttr q = getQuantAttr()) {
    if (!bitsParent)
      return emitOpError("quantized components must be placed in a "
                         "bit_struct or bit_array");
    if (q.size() != getNumComponents())
      return emitOpError("has ") << q.size() << " encodings for "
                                 << getNumComponents() << " components";
    for (unsigned i = 0; i < getNumComponents(); ++i)
      if (!getQuantOf(i).isComputeType(getComponentType(i)))
        return emitOpError("component ")
               << i << " of type " << getComponentType(i)
               << " is not a compute type of " << getQuantOf(i);
    if (parent.getKind() == SNodeKind::BitArray && q.size() != 1)
      return emitOpError("a bit_array holds one scalar quantized field");
    if (getSharedExponent()) {
      if (parent.getKind() != SNodeKind::BitStruct)
        return emitOpError("shared exponents are only in a bit_struct");
      // One group per bit_struct: the same float format everywhere.
      tic::bits::QuantAttr first;
      for (Operation &sib : parent.getChildren().front())
        if (auto p = dyn_cast<PlaceOp>(sib); p && p.getSharedExponent())
          for (unsigned i = 0; i < p.getNumComponents(); ++i) {
            tic::bits::QuantAttr qi = p.getQuantOf(i);
            if (!qi || qi.getKind() != tic::bits::QuantKind::Float ||
                (first && qi != first))
              return emitOpError("components sharing an exponent must all "
                                 "be the same quant.float format");
            first = first ? first : qi;
          }
    }
  } else if (getSharedExponent()) {
    return emitOpError("'shared_exponent' needs quantized float components");
  } else if (bitsParent) {
    return emitOpError("a place in a ") << stringifySNodeKind(parent.getKind())
                                        << " needs 'quant' encodings";
  } else if (getBitOffsets()) {
    return emitOpError("'bit_offsets' needs 'quant' encodings");
  }
  for (Attribute a : getComponents()) {
    Type t = cast<TypeAttr>(a).getValue();
    if (!isComponentType(t))
      return emitOpError("component type ") << t << " is not a scalar "
             "(i1/i8/i16/i32/i64/f16/bf16/f32/f64)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Micro-access ops
//===----------------------------------------------------------------------===//

static SNodeContainerOpInterface verifyNodeRef(Operation *op, StringRef name,
                                               SymbolTableCollection &tables) {
  auto node = lookupNode(op, name, &tables);
  if (!node) op->emitOpError("references unknown SNode '") << name << "'";
  return node;
}

LogicalResult RootPtrOp::verifySymbolUses(SymbolTableCollection &tables) {
  if (!lookupTree(*this, getTree(), &tables))
    return emitOpError("references unknown snode.tree '") << getTree() << "'";
  return success();
}

LogicalResult GetChildOp::verifySymbolUses(SymbolTableCollection &tables) {
  return success(bool(verifyNodeRef(*this, getChild(), tables)));
}

LogicalResult IndexExtractOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto node = verifyNodeRef(*this, getNode(), tables);
  if (!node) return failure();
  if (!llvm::is_contained(node.getAxesArray(), int64_t(getAxis())))
    return emitOpError("SNode '") << getNode() << "' does not split axis "
                                  << getAxis();
  return success();
}

LogicalResult IndexExtractOp::verify() {
  if (getBelow() <= 0 || int64_t(getBelow()) <= 0)
    return emitOpError("'below' must be positive");
  return success();
}

LogicalResult LinearizeOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto node = verifyNodeRef(*this, getNode(), tables);
  if (!node) return failure();
  if (node.getAxesArray().size() != getIndices().size())
    return emitOpError("expects ") << node.getAxesArray().size()
                                   << " indices for SNode '" << getNode()
                                   << "', got " << getIndices().size();
  return success();
}

OpFoldResult LinearizeOp::fold(FoldAdaptor) {
  if (getIndices().size() == 1) return getIndices()[0];
  return {};
}

/// The node an op names exists and is of the kind the op says.
static LogicalResult verifyKindedNodeRef(Operation *op, SNodeKind kind,
                                         StringRef name,
                                         SymbolTableCollection &tables) {
  auto node = verifyNodeRef(op, name, tables);
  if (!node)
    return failure();
  if (node.getKind() != kind)
    return op->emitOpError("says '")
           << stringifySNodeKind(kind) << "' but @" << name << " is a '"
           << stringifySNodeKind(node.getKind()) << "' SNode";
  return success();
}

LogicalResult LookupOp::verify() {
  if (getActivate() && getKnownActive())
    return emitOpError("cannot both activate and be known active");
  return success();
}

LogicalResult LookupOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyKindedNodeRef(*this, getKind(), getNode(), tables);
}

void LookupOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (isAlwaysActive(getKind()))
    return; // address arithmetic only
  effects.emplace_back(MemoryEffects::Read::get(), StructureResource::get());
  if (getActivate())
    effects.emplace_back(MemoryEffects::Write::get(), StructureResource::get());
}

LogicalResult IsActiveOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyKindedNodeRef(*this, getKind(), getNode(), tables);
}

void IsActiveOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isAlwaysActive(getKind()))
    effects.emplace_back(MemoryEffects::Read::get(), StructureResource::get());
}

OpFoldResult IsActiveOp::fold(FoldAdaptor) {
  if (isAlwaysActive(getKind()))
    return BoolAttr::get(getContext(), true);
  return {};
}

LogicalResult DeactivateOp::verify() {
  if (isAlwaysActive(getKind()))
    return emitOpError("cannot deactivate a cell of a '")
           << stringifySNodeKind(getKind())
           << "' SNode: its cells are always active";
  return success();
}

LogicalResult DeactivateOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyKindedNodeRef(*this, getKind(), getNode(), tables);
}

/// `name` is a node of one of `kinds`.
static LogicalResult verifyNodeRefOfKind(Operation *op, StringRef name,
                                         ArrayRef<SNodeKind> kinds,
                                         StringRef what,
                                         SymbolTableCollection &tables) {
  SNodeContainerOpInterface c = lookupNode(op, name, &tables);
  if (!c)
    return op->emitOpError("references unknown SNode '") << name << "'";
  if (!llvm::is_contained(kinds, c.getKind()))
    return op->emitOpError("needs a ")
           << what << " SNode, but '" << name << "' is "
           << stringifySNodeKind(c.getKind());
  return success();
}
// The nodes whose cells (chunks) come from a pool.
LogicalResult AllocCellOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNodeRefOfKind(
      *this, getNode(),
      {SNodeKind::Pointer, SNodeKind::Dynamic, SNodeKind::Hash},
      "pointer, dynamic or hash", tables);
}
LogicalResult FreeCellOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNodeRefOfKind(
      *this, getNode(),
      {SNodeKind::Pointer, SNodeKind::Dynamic, SNodeKind::Hash},
      "pointer, dynamic or hash", tables);
}
LogicalResult HashMaintainOp::verifySymbolUses(SymbolTableCollection &tables) {
  if (failed(verifyNodeRefOfKind(*this, getNode(), {SNodeKind::Hash}, "hash",
                                 tables)))
    return failure();
  if (isa<SNodeContainerOpInterface>(
          lookupNode(*this, getNode(), &tables)->getParentOp()))
    return emitOpError("hash SNode '")
           << getNode()
           << "' is below another node: its tables are kept by "
              "snode.hash_maintain_tables";
  return success();
}
/// A hash node below another node (a table in each parent cell).
static LogicalResult verifyNestedHash(Operation *op, StringRef node,
                                      SymbolTableCollection &tables) {
  if (failed(verifyNodeRefOfKind(op, node, {SNodeKind::Hash}, "hash", tables)))
    return failure();
  if (!isa<SNodeContainerOpInterface>(
          lookupNode(op, node, &tables)->getParentOp()))
    return op->emitOpError("hash SNode '")
           << node << "' is a child of its tree's root: its table is kept by "
           << "snode.hash_maintain";
  return success();
}
LogicalResult
HashMaintainTablesOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNestedHash(*this, getNode(), tables);
}
LogicalResult HashBlockOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNestedHash(*this, getNode(), tables);
}
LogicalResult PoolViewOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNodeRefOfKind(
      *this, getNode(),
      {SNodeKind::Pointer, SNodeKind::Dynamic, SNodeKind::Hash},
      "pointer, dynamic or hash", tables);
}
LogicalResult PoolBoundOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNodeRefOfKind(
      *this, getNode(),
      {SNodeKind::Pointer, SNodeKind::Dynamic, SNodeKind::Hash},
      "pointer, dynamic or hash", tables);
}
LogicalResult
HashEntryIndexOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNodeRefOfKind(*this, getNode(), {SNodeKind::Hash}, "hash",
                             tables);
}

LogicalResult HashEntryOp::verifySymbolUses(SymbolTableCollection &tables) {
  if (failed(verifyNodeRefOfKind(*this, getNode(), {SNodeKind::Hash}, "hash",
                                 tables)))
    return failure();
  auto c = lookupNode(*this, getNode(), &tables);
  if (getIndices().size() != getHashKeySlots(c))
    return emitOpError("hash SNode '")
           << getNode() << "' has " << getHashKeySlots(c)
           << " key slots (its axes, and its parent's cell below a node), got "
           << getIndices().size() << " indices";
  return success();
}
LogicalResult StructurePtrOp::verifySymbolUses(SymbolTableCollection &tables) {
  SNodeContainerOpInterface c = lookupNode(*this, getNode(), &tables);
  if (!c)
    return emitOpError("references unknown SNode '") << getNode() << "'";
  StringRef attr = getList() ? "list_offset" : "epoch_offset";
  if (!c->hasAttr(attr))
    return emitOpError("SNode '")
           << getNode() << "' has no " << (getList() ? "list" : "epoch")
           << " (run tic-allocate-layout; only bitmasked, pointer and hash "
              "nodes have epochs, and pointer nodes lists)";
  return success();
}
LogicalResult AppendOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNodeRefOfKind(*this, getNode(), {SNodeKind::Dynamic}, "dynamic",
                             tables);
}
LogicalResult LengthOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyNodeRefOfKind(*this, getNode(), {SNodeKind::Dynamic}, "dynamic",
                             tables);
}

bool tic::snode::keepsFieldData(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface) // unknown (calls), or regions with effects inside
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  for (const MemoryEffects::EffectInstance &e : effects) {
    if (isa<FieldDataResource>(e.getResource()))
      return false;
    if (!isa<SideEffects::DefaultResource,
             SideEffects::AutomaticAllocationScopeResource>(e.getResource()))
      continue;
    // The default resource: only a value allocated by its defining op.
    Value v = e.getValue();
    Operation *def = v ? v.getDefiningOp() : nullptr;
    if (!def || !hasSingleEffect<MemoryEffects::Allocate>(def, v))
      return false;
  }
  return true;
}

Type tic::snode::getWordType(PlaceOp place) {
  auto parent = dyn_cast<SNodeContainerOpInterface>(place->getParentOp());
  if (!parent || !isBitContainer(parent.getKind()))
    return {};
  auto bits = parent->getAttrOfType<IntegerAttr>("bits");
  return bits ? IntegerType::get(place.getContext(), bits.getInt()) : Type();
}

/// Field `name` exists, `comp` is one of its components, and `type` (when
/// given) is that component's type.
/// `lane`: whether the access gives a lane (std::nullopt: an op that has
/// none, snode.place_ptr, which needs a place of plain bytes).
static LogicalResult verifyFieldComponent(Operation *op, StringRef name,
                                          int64_t comp, Type type,
                                          SymbolTableCollection &tables,
                                          std::optional<bool> lane,
                                          bool word = false) {
  PlaceOp place = lookupPlace(op, name, &tables);
  if (!place)
    return op->emitOpError("references unknown field '") << name << "'";
  auto parent = dyn_cast<SNodeContainerOpInterface>(place->getParentOp());
  bool inArray = parent && parent.getKind() == SNodeKind::BitArray;
  if (!lane && place.getQuantAttr())
    return op->emitOpError("field '")
           << name << "' is quantized: its components have no address";
  if (lane && *lane != inArray)
    return op->emitOpError(inArray ? "needs" : "takes no")
           << " lane: field '" << name << "' is " << (inArray ? "" : "not ")
           << "in a bit_array";
  if (comp < 0 || uint64_t(comp) >= place.getNumComponents())
    return op->emitOpError("component ")
           << comp << " out of range: field '" << name << "' has "
           << place.getNumComponents() << " components";
  if (word) {
    // The whole container word.
    Type w = getWordType(place);
    if (!w)
      return op->emitOpError("'whole_word' on field '")
             << name << "', which is not in a bit_struct or bit_array";
    if (type != w)
      return op->emitOpError("type ") << type << " is not the " << w
                                      << " word of field '" << name << "'";
    return success();
  }
  if (type && type != place.getComponentType(comp))
    return op->emitOpError("type ")
           << type << " does not match component " << comp << " of field '"
           << name << "' (" << place.getComponentType(comp) << ")";
  return success();
}

LogicalResult LoadOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyFieldComponent(*this, getField(), getComp(), getType(), tables,
                              bool(getLane()), getWholeWord());
}
LogicalResult StoreOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyFieldComponent(*this, getField(), getComp(),
                              getValue().getType(), tables, bool(getLane()),
                              getWholeWord());
}
/// The ops on several components of one cell (snode.store_fields,
/// snode.atomic_add_fields): at least `least` values, one field and one
/// component per value.
static LogicalResult verifyFieldList(Operation *op, ValueRange values,
                                     ArrayAttr fields, ArrayRef<int64_t> comps,
                                     size_t least) {
  if (values.size() < least)
    return op->emitOpError("needs at least ")
           << least << (least == 1 ? " value" : " values");
  if (fields.size() != values.size() || comps.size() != values.size())
    return op->emitOpError("needs one field and one component per value");
  return success();
}

/// Checks each (value, field, component) of such an op like a single access
/// does, then hands its place to `check`.
static LogicalResult verifyFieldListUses(
    Operation *op, ValueRange values, ArrayAttr fields, ArrayRef<int64_t> comps,
    SymbolTableCollection &tables,
    function_ref<LogicalResult(PlaceOp, StringRef, int64_t)> check) {
  for (auto [v, f, c] : llvm::zip(values, fields, comps)) {
    StringRef name = cast<FlatSymbolRefAttr>(f).getValue();
    if (failed(verifyFieldComponent(op, name, c, v.getType(), tables, false)) ||
        failed(check(lookupPlace(op, name, &tables), name, c)))
      return failure();
  }
  return success();
}

LogicalResult StoreFieldsOp::verify() {
  return verifyFieldList(*this, getValues(), getFields(), getComps(), 1);
}

LogicalResult StoreFieldsOp::verifySymbolUses(SymbolTableCollection &tables) {
  Operation *word = nullptr;
  return verifyFieldListUses(
      *this, getValues(), getFields(), getComps(), tables,
      [&](PlaceOp place, StringRef name, int64_t) -> LogicalResult {
        auto parent = dyn_cast<SNodeContainerOpInterface>(place->getParentOp());
        if (!parent || parent.getKind() != SNodeKind::BitStruct)
          return emitOpError("field '") << name << "' is not in a bit_struct";
        if (word && parent.getOperation() != word)
          return emitOpError("fields of different bit_structs");
        word = parent;
        return success();
      });
}

LogicalResult AtomicRMWOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyFieldComponent(*this, getField(), getComp(),
                              getValue().getType(), tables, bool(getLane()));
}

LogicalResult AtomicAddFieldsOp::verify() {
  return verifyFieldList(*this, getValues(), getFields(), getComps(), 2);
}

LogicalResult
AtomicAddFieldsOp::verifySymbolUses(SymbolTableCollection &tables) {
  Operation *cell = nullptr;
  std::optional<int64_t> next;
  return verifyFieldListUses(
      *this, getValues(), getFields(), getComps(), tables,
      [&](PlaceOp place, StringRef name, int64_t c) -> LogicalResult {
        if (cell && place->getParentOp() != cell)
          return emitOpError("fields of different cells");
        cell = place->getParentOp();
        // With a recorded layout: side by side, in the order given.
        auto offsets = place.getComponentOffsets();
        if (!place.getOffset() || !offsets)
          return success();
        int64_t at = *place.getOffset() + (*offsets)[c];
        if (next && at != *next)
          return emitOpError("component ")
                 << c << " of field '" << name << "' is at byte " << at
                 << " of the cell, not " << *next
                 << " (right after the previous one)";
        next = at + 4;
        return success();
      });
}

LogicalResult PlacePtrOp::verify() {
  if (!isa<LLVM::LLVMPointerType>(getResult().getType()))
    return emitOpError("result must be !llvm.ptr");
  return success();
}

LogicalResult PlacePtrOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyFieldComponent(*this, getField(), getComp(), Type(), tables,
                              std::nullopt);
}

#define GET_OP_CLASSES
#include "tic/Dialect/SNode/SNodeOps.cpp.inc"

//===- NodeKinds.cpp - snode.lookup / is_active / deactivate by kind ------===//
//
// Part of convert-snode-to-llvm: the one place that differs per node kind.
//   dense      lookup = container + l * cell_size; always active
//   bitmasked  the same cells; one activity bit per cell in 32-bit words
//              after them; activation sets it (one atomic `or` when clear),
//              deactivation clears it and zeroes the cell
//   pointer    an 8-byte slot per cell; reads of a null slot get the ambient
//              zero cell, activation allocates (snode.alloc_cell) and
//              installs with a compare-and-swap, deactivation exchanges the
//              slot with null and frees the cell (snode.free_cell)
//   dynamic    a list: its length (i32) and a slot per chunk of cells, the
//              chunks allocated like pointer cells; element %l is active
//              when %l < length; activation allocates its chunk and raises
//              the length to %l + 1, snode.append reserves the next
//              element, deactivation empties the whole list
//   hash       a bucket array of chains of entries (key, activity flag,
//              cell) from the node's pool; lookups walk the key's chain,
//              activation inserts a new entry at the chain's head with a
//              compare-and-swap and sets the flag, deactivation clears the
//              flag and zeroes the cell (entries stay, so a key keeps its
//              entry for good)
// Deactivation first returns the pool cells nested below to their pools.
// docs/sparse.md.
//
//===----------------------------------------------------------------------===//
#include "SNodePattern.h"

#include "tic/Conversion/SNodeToLLVM.h"
#include "tic/Target/RuntimeABI.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tic;
using namespace tic::snode;
using namespace tic::snode::lowering;

Value lowering::byteOffset(OpBuilder &b, Location loc, Value base,
                           int64_t off) {
  if (off == 0)
    return base;
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value c = arith::ConstantIntOp::create(b, loc, b.getI64Type(), off);
  return LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), base, ValueRange{c},
                             LLVM::GEPNoWrapFlags::inbounds);
}

Value lowering::lowerDenseLookup(OpBuilder &b, Location loc,
                                 const NodeLayout &n, Value container,
                                 Value linear) {
  // Sign extension distributes over the `nsw` index arithmetic (the value
  // is non-negative in range, so zero extension would be equal).
  if (!linear.getType().isInteger(64))
    linear = arith::ExtSIOp::create(b, loc, b.getI64Type(), linear);
  Type cellTy = LLVM::LLVMArrayType::get(b.getI8Type(), n.cellSize);
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                             cellTy, container, ValueRange{linear},
                             LLVM::GEPNoWrapFlags::inbounds);
}

namespace {

/// memset(p, 0, bytes).
static void zeroBytes(OpBuilder &b, Location loc, Value p, int64_t bytes) {
  Value zero =
      LLVM::ConstantOp::create(b, loc, b.getI8Type(), b.getI8IntegerAttr(0));
  Value len = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                       b.getI64IntegerAttr(bytes));
  LLVM::MemsetOp::create(b, loc, p, zero, len, /*isVolatile=*/false);
}

/// A bitmasked cell's activity bit: the address of its 32-bit mask word
/// and the bit in it.
struct MaskBit {
  Value word, bit;
};
static MaskBit maskBit(OpBuilder &b, Location loc, const NodeLayout &n,
                       Value container, Value linear) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (!linear.getType().isInteger(64))
    linear = arith::ExtUIOp::create(b, loc, i64, linear);
  Value words = byteOffset(b, loc, container, n.maskOffset);
  Value w = arith::ShRUIOp::create(
      b, loc, linear, arith::ConstantIntOp::create(b, loc, i64, 5));
  Value word = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i32, words,
      ValueRange{w}, LLVM::GEPNoWrapFlags::inbounds);
  Value pos = arith::TruncIOp::create(
      b, loc, i32,
      arith::AndIOp::create(b, loc, linear,
                            arith::ConstantIntOp::create(b, loc, i64, 31)));
  Value bit = arith::ShLIOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, i32, 1), pos);
  return {word, bit};
}

/// Counts a change of `n`'s active cells (an activation or deactivation) in
/// its epoch counter, which invalidates the cached lists of active cells
/// of the paths through it.
static void bumpEpoch(OpBuilder &b, Location loc, const NodeLayout &n) {
  if (n.epochOffset < 0)
    return;
  Value epoch = structureAddress(b, loc, n, n.epochOffset);
  LLVM::AtomicRMWOp::create(
      b, loc, LLVM::AtomicBinOp::add, epoch,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), 1),
      LLVM::AtomicOrdering::monotonic);
}

/// Whether the bit is set (an atomic read: other threads may be setting
/// bits of the same word).
static Value testBit(OpBuilder &b, Location loc, const MaskBit &m) {
  Type i32 = b.getI32Type();
  Value w =
      LLVM::LoadOp::create(b, loc, i32, m.word, /*alignment=*/4,
                           /*isVolatile=*/false, /*isNonTemporal=*/false,
                           /*isInvariant=*/false, /*isInvariantGroup=*/false,
                           LLVM::AtomicOrdering::monotonic);
  Value set = arith::AndIOp::create(b, loc, w, m.bit);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, set,
                               arith::ConstantIntOp::create(b, loc, i32, 0));
}

/// Sets the bit unless it is set already (most writes find it set: no
/// atomic, no contention on the word); the thread that sets it counts the
/// activation in `n`'s epoch.
static void setBit(OpBuilder &b, Location loc, const NodeLayout &n,
                   const MaskBit &m) {
  Value set = testBit(b, loc, m);
  Value clear = arith::XOrIOp::create(
      b, loc, set, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  auto ifOp = scf::IfOp::create(b, loc, clear, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value old = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::_or, m.word,
                                        m.bit, LLVM::AtomicOrdering::monotonic);
  if (n.epochOffset < 0)
    return;
  Value was = arith::AndIOp::create(b, loc, old, m.bit);
  auto ifNew = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, was,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0)),
      false);
  b.setInsertionPointToStart(ifNew.thenBlock());
  bumpEpoch(b, loc, n);
}

/// The zero cell every non-activating lookup of an inactive pointer cell
/// returns (reads see 0, nested nodes read as inactive), and the cell an
/// activating lookup returns when the pool is used up (the launch fails;
/// its writes go nowhere). Internal zero-initialized globals, as large as
/// the largest pointer cell.

/// The slot of cell %l of a pointer container (8-byte pointers).
static Value pointerSlot(OpBuilder &b, Location loc, Value container,
                         Value linear) {
  if (!linear.getType().isInteger(64))
    linear = arith::ExtSIOp::create(b, loc, b.getI64Type(), linear);
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  return LLVM::GEPOp::create(b, loc, ptrTy, ptrTy, container,
                             ValueRange{linear},
                             LLVM::GEPNoWrapFlags::inbounds);
}

static Value loadSlot(OpBuilder &b, Location loc, Value slot) {
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  return LLVM::LoadOp::create(b, loc, ptrTy, slot, /*alignment=*/8,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/false,
                              /*isInvariantGroup=*/false,
                              LLVM::AtomicOrdering::acquire);
}

static Value isNull(OpBuilder &b, Location loc, Value p) {
  Value null = LLVM::ZeroOp::create(b, loc, p.getType());
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, p, null);
}

/// A pointer slot (of a pointer node's cell, or a dynamic list's chunk)
/// holds null (inactive), kClaimed while one thread allocates its cell, or
/// the cell.
static constexpr int64_t kClaimed = 1;

/// Whether slot value `p` is a cell (neither null nor kClaimed: a claimed
/// slot reads as inactive until its cell is published).
static Value holdsCell(OpBuilder &b, Location loc, Value p) {
  Type i64 = b.getI64Type();
  Value bits = LLVM::PtrToIntOp::create(b, loc, i64, p);
  return LLVM::ICmpOp::create(
      b, loc, LLVM::ICmpPredicate::ugt, bits,
      LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(kClaimed)));
}

/// The cell of slot `slot` of pointer node `n`, allocated from its pool
/// when null. One thread claims the null slot (a compare-and-swap to
/// kClaimed), allocates the cell and publishes it (a release store); the
/// others wait while the slot is claimed and use the cell published. So a
/// slot costs one allocation however many threads activate it at once (a
/// GPU's whole grid may), and no thread holds a cell it must give back.
/// When the pool is used up, the claimant puts null back (the others then
/// fail in turn) and gets the scratch cell.
///
///   p = load acquire slot
///   while p is not a cell:
///     if p == null:
///       (old, won) = cmpxchg slot, null, kClaimed
///       if won: c = alloc; store release (c ? c : null), slot; p = c ?: sink
///       else: p = old
///     else: p = load acquire slot         // claimed: wait
static Value activatePointerCell(OpBuilder &b, Location loc,
                                 const NodeLayout &n, Value slot) {
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value first = loadSlot(b, loc, slot);
  // The common case, a slot holding its cell, is one branch; the loop is
  // out of its way.
  auto ifHolds = scf::IfOp::create(b, loc, TypeRange{ptrTy},
                                   holdsCell(b, loc, first), true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifHolds.thenBlock());
  scf::YieldOp::create(b, loc, ValueRange{first});
  b.setInsertionPointToStart(ifHolds.elseBlock());
  auto loop = scf::WhileOp::create(b, loc, TypeRange{ptrTy}, ValueRange{first});
  scf::YieldOp::create(b, loc, loop.getResults());
  Block *before = b.createBlock(&loop.getBefore(), {}, {ptrTy}, {loc});
  Value seen = before->getArgument(0);
  Value one = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value waiting = arith::XOrIOp::create(b, loc, holdsCell(b, loc, seen), one);
  scf::ConditionOp::create(b, loc, waiting, ValueRange{seen});
  Block *after = b.createBlock(&loop.getAfter(), {}, {ptrTy}, {loc});
  Value p = after->getArgument(0);
  auto ifNull = scf::IfOp::create(b, loc, TypeRange{ptrTy}, isNull(b, loc, p),
                                  /*withElseRegion=*/true);
  scf::YieldOp::create(b, loc, ifNull.getResults());
  b.setInsertionPointToStart(ifNull.thenBlock());
  Value null = LLVM::ZeroOp::create(b, loc, ptrTy);
  Value claimedBits = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                               b.getI64IntegerAttr(kClaimed));
  Value claimed = LLVM::IntToPtrOp::create(b, loc, ptrTy, claimedBits);
  auto cas = LLVM::AtomicCmpXchgOp::create(b, loc, slot, null, claimed,
                                           LLVM::AtomicOrdering::acq_rel,
                                           LLVM::AtomicOrdering::acquire);
  Value old = LLVM::ExtractValueOp::create(b, loc, cas, 0);
  Value won = LLVM::ExtractValueOp::create(b, loc, cas, 1);
  auto ifWon = scf::IfOp::create(b, loc, TypeRange{ptrTy}, won, true);
  scf::YieldOp::create(b, loc, ifWon.getResults());
  {
    b.setInsertionPointToStart(ifWon.thenBlock());
    Value fresh = AllocCellOp::create(b, loc, ptrTy, n.name);
    Value oom = isNull(b, loc, fresh);
    // The cell, or null again when there is none.
    LLVM::StoreOp::create(b, loc, fresh, slot, /*alignment=*/8,
                          /*isVolatile=*/false, /*isNonTemporal=*/false,
                          /*isInvariantGroup=*/false,
                          LLVM::AtomicOrdering::release);
    auto ifOOM = scf::IfOp::create(b, loc, TypeRange{ptrTy}, oom, true);
    scf::YieldOp::create(b, loc, ifOOM.getResults());
    b.setInsertionPointToStart(ifOOM.thenBlock());
    Value sink = LLVM::AddressOfOp::create(b, loc, ptrTy, kSinkCell);
    scf::YieldOp::create(b, loc, ValueRange{sink});
    b.setInsertionPointToStart(ifOOM.elseBlock());
    bumpEpoch(b, loc, n);
    scf::YieldOp::create(b, loc, ValueRange{fresh});
  }
  b.setInsertionPointToStart(ifWon.elseBlock());
  scf::YieldOp::create(b, loc, ValueRange{old});
  b.setInsertionPointToStart(ifNull.elseBlock());
  scf::YieldOp::create(b, loc, ValueRange{loadSlot(b, loc, slot)});
  return ifHolds.getResult(0);
}

/// Element %l of a dynamic list (`container`): the slot of its chunk and
/// its number in the chunk.
struct ListElement {
  Value slot, inChunk;
};
static ListElement listElement(OpBuilder &b, Location loc, const NodeLayout &n,
                               Value container, Value linear) {
  Type i64 = b.getI64Type();
  if (!linear.getType().isInteger(64))
    linear = arith::ExtUIOp::create(b, loc, i64, linear);
  Value slots = byteOffset(b, loc, container, kDynamicSlotsOffset);
  if (n.chunkCells >= n.numCells)
    return {slots, linear};
  Value c = arith::ConstantIntOp::create(b, loc, i64, n.chunkCells);
  return {pointerSlot(b, loc, slots, arith::DivUIOp::create(b, loc, linear, c)),
          arith::RemUIOp::create(b, loc, linear, c)};
}

/// Element `inChunk` of `chunk` (plain address arithmetic: `chunk` may be
/// null when the result is selected away).
static Value chunkElement(OpBuilder &b, Location loc, const NodeLayout &n,
                          Value chunk, Value inChunk, bool inbounds) {
  Type cellTy = LLVM::LLVMArrayType::get(b.getI8Type(), n.cellSize);
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                             cellTy, chunk, ValueRange{inChunk},
                             inbounds ? LLVM::GEPNoWrapFlags::inbounds
                                      : LLVM::GEPNoWrapFlags::none);
}

/// The length word of a dynamic list (its first 4 bytes), read atomically:
/// other threads may be appending.
static Value loadLength(OpBuilder &b, Location loc, Value container) {
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), container,
                              /*alignment=*/4, /*isVolatile=*/false,
                              /*isNonTemporal=*/false, /*isInvariant=*/false,
                              /*isInvariantGroup=*/false,
                              LLVM::AtomicOrdering::monotonic);
}

/// Whether `p` is the scratch cell (the pool was used up).
static Value isSink(OpBuilder &b, Location loc, Value p) {
  Value sink = LLVM::AddressOfOp::create(b, loc, p.getType(), kSinkCell);
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, p, sink);
}

/// Activating lookup of element %l of a dynamic list: its chunk allocated,
/// the length raised to %l + 1 (one atomic `max`, only when shorter).
static Value activateListElement(OpBuilder &b, Location loc,
                                 const NodeLayout &n, Value container,
                                 Value linear) {
  ListElement e = listElement(b, loc, n, container, linear);
  Value chunk = activatePointerCell(b, loc, n, e.slot);
  Type i32 = b.getI32Type();
  Value l = linear.getType().isInteger(32)
                ? linear
                : arith::TruncIOp::create(b, loc, i32, linear);
  Value need = arith::AddIOp::create(
      b, loc, l, arith::ConstantIntOp::create(b, loc, i32, 1));
  Value shorter = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        loadLength(b, loc, container), need);
  auto ifShorter = scf::IfOp::create(b, loc, shorter, false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifShorter.thenBlock());
    LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::max, container, need,
                              LLVM::AtomicOrdering::monotonic);
  }
  // Out of memory: the scratch cell itself (it is as large as one element,
  // not a chunk).
  Value sink = isSink(b, loc, chunk);
  return LLVM::SelectOp::create(
      b, loc, sink, chunk,
      chunkElement(b, loc, n, chunk, e.inChunk, /*inbounds=*/false));
}

/// Empties a dynamic list: length 0, every chunk back to its pool (`reset`:
/// the slots set to null too; not needed when the list itself goes).
static void freeListChunks(OpBuilder &b, Location loc, const NodeLayout &n,
                           Value container, bool reset) {
  Type i64 = b.getI64Type();
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  int64_t chunks = n.numCells / n.chunkCells + (n.numCells % n.chunkCells != 0);
  Value slots = byteOffset(b, loc, container, kDynamicSlotsOffset);
  Value lb = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value ub = arith::ConstantIntOp::create(b, loc, i64, chunks);
  Value step = arith::ConstantIntOp::create(b, loc, i64, 1);
  auto loop = scf::ForOp::create(b, loc, lb, ub, step);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value slot = pointerSlot(b, loc, slots, loop.getInductionVar());
  Value null = LLVM::ZeroOp::create(b, loc, ptrTy);
  Value p = reset ? Value(LLVM::AtomicRMWOp::create(
                        b, loc, LLVM::AtomicBinOp::xchg, slot, null,
                        LLVM::AtomicOrdering::acq_rel))
                  : Value(LLVM::LoadOp::create(b, loc, ptrTy, slot, 8));
  auto ifSet = scf::IfOp::create(b, loc, holdsCell(b, loc, p), false);
  b.setInsertionPointToStart(ifSet.thenBlock());
  FreeCellOp::create(b, loc, p, n.name);
}

/// The 64-bit mix of a hash key (murmur3's finalizer) that, masked to the
/// bucket count, chooses its bucket.
static Value hashMix(OpBuilder &b, Location loc, Value key) {
  Type i64 = b.getI64Type();
  auto c64 = [&](uint64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, int64_t(v));
  };
  unsigned bits = key.getType().getIntOrFloatBitWidth();
  Value k = key;
  if (bits < 64)
    k = arith::ExtUIOp::create(b, loc, i64, key);
  else if (bits > 64) {
    Value hi = arith::ShRUIOp::create(
        b, loc, key, arith::ConstantIntOp::create(b, loc, key.getType(), 64));
    Value lo64 = arith::TruncIOp::create(b, loc, i64, key);
    Value hi64 = arith::TruncIOp::create(b, loc, i64, hi);
    hi64 = arith::MulIOp::create(b, loc, hi64, c64(0x9E3779B97F4A7C15ull));
    k = arith::XOrIOp::create(b, loc, lo64, hi64);
  }
  auto mix = [&](Value h, uint64_t m) -> Value {
    h = arith::XOrIOp::create(b, loc, h,
                              arith::ShRUIOp::create(b, loc, h, c64(33)));
    return m ? Value(arith::MulIOp::create(b, loc, h, c64(m))) : h;
  };
  return mix(mix(mix(k, 0xff51afd7ed558ccdull), 0xc4ceb9fe1a85ec53ull), 0);
}

/// A hash node's bucket heads and their mask (snode.hash_maintain and
/// snode.hash_maintain_tables change them between launches): at the root
/// after the growth header, the mask read from it; below another node the
/// grown block the table header names, else the initial heads after the
/// header, and the mask read from the header.
struct HashTable {
  Value heads, mask;
};
static HashTable hashTable(OpBuilder &b, Location loc, const NodeLayout &n,
                           Value container) {
  Type i64 = b.getI64Type();
  Value initial = arith::ConstantIntOp::create(b, loc, i64, n.hashBuckets - 1);
  if (n.nestedHash) {
    Value header = LLVM::LoadOp::create(
        b, loc, i64, byteOffset(b, loc, container, kHashTableMaskOffset), 8);
    Value mask = arith::XOrIOp::create(b, loc, header, initial);
    // (Set between launches only: a plain load.)
    Value block = LLVM::LoadOp::create(
        b, loc, container.getType(),
        byteOffset(b, loc, container, kHashTableBlockOffset), 8);
    Value inlineHeads = byteOffset(b, loc, container, kHashTableHeaderBytes);
    return {LLVM::SelectOp::create(b, loc, isNull(b, loc, block), inlineHeads,
                                   block),
            mask};
  }
  Value header = LLVM::LoadOp::create(b, loc, i64, container, 8);
  return {byteOffset(b, loc, container, kHashGrowthHeaderBytes),
          arith::XOrIOp::create(b, loc, header, initial)};
}

/// The bucket of a hash key, and the table's mask.
struct HashBucket {
  Value slot, mask;
};
static HashBucket hashBucket(OpBuilder &b, Location loc, const NodeLayout &n,
                             Value container, Value key) {
  HashTable t = hashTable(b, loc, n, container);
  Value idx = arith::AndIOp::create(b, loc, hashMix(b, loc, key), t.mask);
  return {pointerSlot(b, loc, t.heads, idx), t.mask};
}

/// A new entry in a table below another node: its count goes up, and the
/// insertion that brings it to a power of two at least twice the buckets
/// notes the table for snode.hash_maintain_tables (when the notes are
/// full, the next power of two notes it again).
static void countInsertion(OpBuilder &b, Location loc, const NodeLayout &n,
                           Value container, Value mask) {
  if (!n.nestedHash || n.notesOffset < 0)
    return;
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value countSlot = byteOffset(b, loc, container, kHashTableCountOffset);
  Value old =
      LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, countSlot,
                                c64(1), LLVM::AtomicOrdering::monotonic);
  Value count = arith::AddIOp::create(b, loc, old, c64(1));
  Value twice = arith::AddIOp::create(b, loc, mask, c64(1));
  twice = arith::ShLIOp::create(b, loc, twice, c64(1));
  Value full =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, count, twice);
  Value bitsInCommon = arith::AndIOp::create(b, loc, count, old);
  Value pow2 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     bitsInCommon, c64(0));
  auto ifDue = scf::IfOp::create(
      b, loc, arith::AndIOp::create(b, loc, full, pow2), false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifDue.thenBlock());
  Value notes = structureAddress(b, loc, n, n.notesOffset);
  Value slot =
      LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, notes, c64(1),
                                LLVM::AtomicOrdering::monotonic);
  auto ifRoom =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                              slot, c64(kHashNoteSlots)),
                        false);
  b.setInsertionPointToStart(ifRoom.thenBlock());
  LLVM::StoreOp::create(b, loc, container,
                        pointerSlot(b, loc, byteOffset(b, loc, notes, 8), slot),
                        8);
}

/// Field `off` of a hash entry.
static Value entryField(OpBuilder &b, Location loc, Value entry, int64_t off) {
  return byteOffset(b, loc, entry, off);
}

/// The entry of `key` in the chain starting at `head`, or null: a walk
/// along the `next` links (entries are immutable once in a chain, and
/// chains only grow at their heads).
static Value findEntry(OpBuilder &b, Location loc, Value head, Value key) {
  Type ptrTy = head.getType();
  auto loop = scf::WhileOp::create(b, loc, TypeRange{ptrTy}, ValueRange{head});
  OpBuilder::InsertionGuard g(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, {ptrTy}, {loc});
  Value p = before->getArgument(0);
  auto ifNull = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()},
                                  isNull(b, loc, p), true);
  b.setInsertionPointToStart(ifNull.thenBlock());
  scf::YieldOp::create(
      b, loc,
      ValueRange{arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0)});
  b.setInsertionPointToStart(ifNull.elseBlock());
  unsigned bits = key.getType().getIntOrFloatBitWidth();
  Value k = LLVM::LoadOp::create(b, loc, key.getType(),
                                 entryField(b, loc, p, kHashKeyOffset),
                                 std::min(16u, bits / 8));
  scf::YieldOp::create(b, loc,
                       ValueRange{arith::CmpIOp::create(
                           b, loc, arith::CmpIPredicate::ne, k, key)});
  b.setInsertionPointAfter(ifNull);
  scf::ConditionOp::create(b, loc, ifNull.getResult(0), ValueRange{p});
  Block *after = b.createBlock(&loop.getAfter(), {}, {ptrTy}, {loc});
  scf::YieldOp::create(
      b, loc,
      ValueRange{loadSlot(
          b, loc, entryField(b, loc, after->getArgument(0), kHashNextOffset))});
  return loop.getResult(0);
}

/// The entry of `key` in its bucket, inserted when missing: a new entry
/// (key, next = the head it was looked up from) goes in front with a
/// compare-and-swap; a thread that loses the race clears and returns its
/// entry and looks again (the winner may have inserted the same key). The
/// scratch cell when the pool is used up.
static Value findOrInsertEntry(OpBuilder &b, Location loc, const NodeLayout &n,
                               Value container, HashBucket bucketOf,
                               Value key) {
  Value bucket = bucketOf.slot;
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Type i1 = b.getI1Type();
  auto loop = scf::WhileOp::create(b, loc, TypeRange{ptrTy}, ValueRange{});
  OpBuilder::InsertionGuard g(b);
  b.createBlock(&loop.getBefore());
  Value head = loadSlot(b, loc, bucket);
  Value found = findEntry(b, loc, head, key);
  auto yield2 = [&](bool again, Value p) {
    scf::YieldOp::create(
        b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, i1, again), p});
  };
  auto ifFound = scf::IfOp::create(b, loc, TypeRange{i1, ptrTy},
                                   isNull(b, loc, found), true);
  b.setInsertionPointToStart(ifFound.elseBlock());
  yield2(false, found);
  b.setInsertionPointToStart(ifFound.thenBlock());
  Value fresh = AllocCellOp::create(b, loc, ptrTy, n.name);
  auto ifOOM = scf::IfOp::create(b, loc, TypeRange{i1, ptrTy},
                                 isNull(b, loc, fresh), true);
  b.setInsertionPointToStart(ifOOM.thenBlock());
  yield2(false, LLVM::AddressOfOp::create(b, loc, ptrTy, kSinkCell));
  b.setInsertionPointToStart(ifOOM.elseBlock());
  unsigned bits = key.getType().getIntOrFloatBitWidth();
  LLVM::StoreOp::create(b, loc, key, entryField(b, loc, fresh, kHashKeyOffset),
                        std::min(16u, bits / 8));
  LLVM::StoreOp::create(b, loc, head,
                        entryField(b, loc, fresh, kHashNextOffset), 8);
  auto cas = LLVM::AtomicCmpXchgOp::create(b, loc, bucket, head, fresh,
                                           LLVM::AtomicOrdering::acq_rel,
                                           LLVM::AtomicOrdering::acquire);
  Value won = LLVM::ExtractValueOp::create(b, loc, cas, 1);
  auto ifWon = scf::IfOp::create(b, loc, TypeRange{i1, ptrTy}, won, true);
  b.setInsertionPointToStart(ifWon.thenBlock());
  countInsertion(b, loc, n, container, bucketOf.mask);
  yield2(false, fresh);
  b.setInsertionPointToStart(ifWon.elseBlock());
  // Never published: back to the pool, reused (zeroed) after the launch.
  FreeCellOp::create(b, loc, fresh, n.name, /*unused=*/true);
  yield2(true, LLVM::ZeroOp::create(b, loc, ptrTy));
  b.setInsertionPointAfter(ifWon);
  scf::YieldOp::create(b, loc, ifWon.getResults());
  b.setInsertionPointAfter(ifOOM);
  scf::YieldOp::create(b, loc, ifOOM.getResults());
  b.setInsertionPointAfter(ifFound);
  scf::ConditionOp::create(b, loc, ifFound.getResult(0),
                           ValueRange{ifFound.getResult(1)});
  b.createBlock(&loop.getAfter(), {}, {ptrTy}, {loc});
  scf::YieldOp::create(b, loc, ValueRange{});
  return loop.getResult(0);
}

/// The entry of `key`, or the ambient entry (all zero: an inactive flag and
/// a cell that reads 0) when it has none.
static Value entryOrAmbient(OpBuilder &b, Location loc, Value bucket,
                            Value key) {
  Value e = findEntry(b, loc, loadSlot(b, loc, bucket), key);
  Value ambient = LLVM::AddressOfOp::create(b, loc, e.getType(), kAmbientCell);
  return LLVM::SelectOp::create(b, loc, isNull(b, loc, e), ambient, e);
}

static Value loadFlag(OpBuilder &b, Location loc, Value entry) {
  return LLVM::LoadOp::create(
      b, loc, b.getI32Type(), entryField(b, loc, entry, kHashFlagOffset),
      /*alignment=*/4, /*isVolatile=*/false, /*isNonTemporal=*/false,
      /*isInvariant=*/false, /*isInvariantGroup=*/false,
      LLVM::AtomicOrdering::monotonic);
}

/// Lookups of a bitmasked node: its cells are in the container, and
/// inactive ones hold zeros (deactivation clears them), so a lookup that
/// does not activate is the dense address and reads of an inactive cell see
/// 0. A pointer node's cells are in its pool: a lookup that does not
/// activate returns the ambient cell for a slot that holds none.
struct LookupLowering : SNodePattern<LookupOp> {
  using SNodePattern::SNodePattern;
  LogicalResult
  matchAndRewrite(LookupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    Location loc = op.getLoc();
    // One case per node kind; `activate` means nothing on a dense node.
    switch (op.getKind()) {
    case SNodeKind::Dense:
    case SNodeKind::BitStruct: // one cell: its word
      rewriter.replaceOp(op, lowerDenseLookup(rewriter, loc, *n,
                                              adaptor.getContainer(),
                                              adaptor.getLinear()));
      return success();
    case SNodeKind::Bitmasked:
      if (op.getActivate())
        setBit(rewriter, loc, *n,
               maskBit(rewriter, loc, *n, adaptor.getContainer(),
                       adaptor.getLinear()));
      rewriter.replaceOp(op, lowerDenseLookup(rewriter, loc, *n,
                                              adaptor.getContainer(),
                                              adaptor.getLinear()));
      return success();
    case SNodeKind::Pointer: {
      Value slot = pointerSlot(rewriter, loc, adaptor.getContainer(),
                               adaptor.getLinear());
      if (op.getActivate()) {
        rewriter.replaceOp(op, activatePointerCell(rewriter, loc, *n, slot));
        return success();
      }
      Value p = loadSlot(rewriter, loc, slot);
      if (op.getKnownActive()) {
        // The struct-for's own cell: active, so the slot holds it.
        rewriter.replaceOp(op, p);
        return success();
      }
      Value ambient = LLVM::AddressOfOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(getContext()),
          kAmbientCell);
      rewriter.replaceOpWithNewOp<LLVM::SelectOp>(
          op, holdsCell(rewriter, loc, p), p, ambient);
      return success();
    }
    case SNodeKind::Hash: {
      HashBucket hb = hashBucket(rewriter, loc, *n, adaptor.getContainer(),
                                 adaptor.getLinear());
      Value bucket = hb.slot;
      Value entry;
      if (op.getActivate()) {
        // Find or insert the entry, then set its flag unless set (the
        // scratch entry's flag is set harmlessly).
        entry = findOrInsertEntry(rewriter, loc, *n, adaptor.getContainer(), hb,
                                  adaptor.getLinear());
        Type i32 = rewriter.getI32Type();
        Value flag = loadFlag(rewriter, loc, entry);
        Value clear = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, flag,
            arith::ConstantIntOp::create(rewriter, loc, i32, 0));
        auto ifClear = scf::IfOp::create(rewriter, loc, clear, false);
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(ifClear.thenBlock());
        Value flagPtr = entryField(rewriter, loc, entry, kHashFlagOffset);
        Value old = LLVM::AtomicRMWOp::create(
            rewriter, loc, LLVM::AtomicBinOp::xchg, flagPtr,
            arith::ConstantIntOp::create(rewriter, loc, i32, 1),
            LLVM::AtomicOrdering::monotonic);
        // The thread that set it counts the activation in the epoch (the
        // cached lists of hash paths).
        if (n->epochOffset >= 0) {
          Value zero = arith::ConstantIntOp::create(rewriter, loc, i32, 0);
          Value was = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq, old, zero);
          auto ifNew = scf::IfOp::create(rewriter, loc, was, false);
          rewriter.setInsertionPointToStart(ifNew.thenBlock());
          bumpEpoch(rewriter, loc, *n);
        }
      } else if (op.getKnownActive()) {
        entry = findEntry(rewriter, loc, loadSlot(rewriter, loc, bucket),
                          adaptor.getLinear());
      } else {
        entry = entryOrAmbient(rewriter, loc, bucket, adaptor.getLinear());
      }
      rewriter.replaceOp(op,
                         byteOffset(rewriter, loc, entry, n->hashCellOffset));
      return success();
    }
    case SNodeKind::Dynamic: {
      if (op.getActivate()) {
        rewriter.replaceOp(op, activateListElement(rewriter, loc, *n,
                                                   adaptor.getContainer(),
                                                   adaptor.getLinear()));
        return success();
      }
      ListElement e = listElement(rewriter, loc, *n, adaptor.getContainer(),
                                  adaptor.getLinear());
      Value chunk = loadSlot(rewriter, loc, e.slot);
      if (op.getKnownActive()) {
        rewriter.replaceOp(op, chunkElement(rewriter, loc, *n, chunk, e.inChunk,
                                            /*inbounds=*/true));
        return success();
      }
      // Elements past the length in an allocated chunk are zero (the
      // length only shrinks by emptying the list), so no length test.
      Value ambient = LLVM::AddressOfOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(getContext()),
          kAmbientCell);
      Value holds = holdsCell(rewriter, loc, chunk);
      Value element = chunkElement(rewriter, loc, *n, chunk, e.inChunk,
                                   /*inbounds=*/false);
      rewriter.replaceOpWithNewOp<LLVM::SelectOp>(op, holds, element, ambient);
      return success();
    }
    default:
      return rewriter.notifyMatchFailure(op, "no lowering for this node kind");
    }
  }
};

/// is_active: one case per node kind (always-active nodes usually fold
/// first).
struct IsActiveLowering : SNodePattern<IsActiveOp> {
  using SNodePattern::SNodePattern;
  LogicalResult
  matchAndRewrite(IsActiveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isAlwaysActive(op.getKind())) {
      rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(
          op, rewriter.getI1Type(), 1);
      return success();
    }
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    switch (op.getKind()) {
    case SNodeKind::Bitmasked:
      rewriter.replaceOp(
          op, testBit(rewriter, op.getLoc(),
                      maskBit(rewriter, op.getLoc(), *n, adaptor.getContainer(),
                              adaptor.getLinear())));
      return success();
    case SNodeKind::Pointer: {
      Location loc = op.getLoc();
      Value p = loadSlot(rewriter, loc,
                         pointerSlot(rewriter, loc, adaptor.getContainer(),
                                     adaptor.getLinear()));
      rewriter.replaceOp(op, holdsCell(rewriter, loc, p));
      return success();
    }
    case SNodeKind::Hash: {
      // The entry's flag (the ambient entry's is 0).
      Location loc = op.getLoc();
      Value entry =
          entryOrAmbient(rewriter, loc,
                         hashBucket(rewriter, loc, *n, adaptor.getContainer(),
                                    adaptor.getLinear())
                             .slot,
                         adaptor.getLinear());
      Value flag = loadFlag(rewriter, loc, entry);
      rewriter.replaceOpWithNewOp<arith::CmpIOp>(
          op, arith::CmpIPredicate::ne, flag,
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                       0));
      return success();
    }
    case SNodeKind::Dynamic: {
      // Element %l exists when %l < length (both fit in i32).
      Location loc = op.getLoc();
      Value l = adaptor.getLinear();
      Value len = loadLength(rewriter, loc, adaptor.getContainer());
      if (l.getType().isInteger(64))
        len = arith::ExtSIOp::create(rewriter, loc, l.getType(), len);
      rewriter.replaceOpWithNewOp<arith::CmpIOp>(op, arith::CmpIPredicate::slt,
                                                 l, len);
      return success();
    }
    default:
      return rewriter.notifyMatchFailure(op, "no lowering for this node kind");
    }
  }
};

/// Whether a node with a pool (pointer, dynamic) is in the subtree of
/// `n`'s cells.
static bool holdsPoolCells(const SNodeLayout &layout, const NodeLayout &n) {
  for (const NodeLayout &c : layout.getNodes())
    if (c.parent == &n && (hasPool(c.kind) || holdsPoolCells(layout, c)))
      return true;
  return false;
}

static void releaseNestedCells(OpBuilder &b, Location loc,
                               const SNodeLayout &layout, const NodeLayout &n,
                               Value cell);

/// A walk along the hash chain from `head` with values `init` carried:
/// `body(e, carried)` runs at each entry `e` after its `next` link was
/// read (so it may relink or free `e`) and returns the values carried on.
/// Returns the carried values at the end of the chain.
static ValueRange
walkChain(OpBuilder &b, Location loc, Value head, ValueRange init,
          function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  SmallVector<Value> operands{head};
  operands.append(init.begin(), init.end());
  SmallVector<Type> types = llvm::to_vector(ValueRange(operands).getTypes());
  SmallVector<Location> locs(types.size(), loc);
  auto walk = scf::WhileOp::create(b, loc, types, operands);
  OpBuilder::InsertionGuard g(b);
  Block *before = b.createBlock(&walk.getBefore(), {}, types, locs);
  Value end = isNull(b, loc, before->getArgument(0));
  Value more = arith::XOrIOp::create(
      b, loc, end, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  scf::ConditionOp::create(b, loc, more, before->getArguments());
  Block *after = b.createBlock(&walk.getAfter(), {}, types, locs);
  Value e = after->getArgument(0);
  Value next = LLVM::LoadOp::create(b, loc, head.getType(),
                                    entryField(b, loc, e, kHashNextOffset), 8);
  SmallVector<Value> yields{next};
  llvm::append_range(yields, body(e, after->getArguments().drop_front()));
  scf::YieldOp::create(b, loc, yields);
  return walk.getResults().drop_front();
}

/// Every entry of the table of hash node `n` at `container` (in a parent
/// cell being deactivated) back to the pool, after what its cell holds:
/// each chain walked, each entry's flag cleared (a struct-for over the
/// pool skips it until it is reused) and the entry freed. Then the header
/// is zeroed (no entries, no block: the runtime frees a grown one, and a
/// snode.hash_maintain_tables that noted the table before leaves it
/// alone); the parent clears or frees the rest.
static void releaseHashTable(OpBuilder &b, Location loc,
                             const SNodeLayout &layout, const NodeLayout &n,
                             Value container) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  HashTable t = hashTable(b, loc, n, container);
  Value lb = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value ub = arith::AddIOp::create(
      b, loc, t.mask, arith::ConstantIntOp::create(b, loc, i64, 1));
  Value step = arith::ConstantIntOp::create(b, loc, i64, 1);
  auto loop = scf::ForOp::create(b, loc, lb, ub, step);
  zeroBytes(b, loc, container, kHashTableHeaderBytes);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value head =
      loadSlot(b, loc, pointerSlot(b, loc, t.heads, loop.getInductionVar()));
  walkChain(b, loc, head, {}, [&](Value e, ValueRange) {
    if (holdsPoolCells(layout, n))
      releaseNestedCells(b, loc, layout, n,
                         byteOffset(b, loc, e, n.hashCellOffset));
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    LLVM::StoreOp::create(b, loc, zero, entryField(b, loc, e, kHashFlagOffset),
                          4);
    FreeCellOp::create(b, loc, e, n.name);
    return SmallVector<Value>();
  });
}

/// Returns the pool cells held in `cell` (a cell of node `n` being
/// deactivated) to their pools, depth first: every slot of every pointer
/// node below it, through dense and bitmasked levels and nested pointer
/// cells, and the chunks of every dynamic list. The cell itself is cleared
/// (bitmasked) or freed (pointer) by the caller, so the slots need not be
/// reset.
static void releaseNestedCells(OpBuilder &b, Location loc,
                               const SNodeLayout &layout, const NodeLayout &n,
                               Value cell) {
  Type i64 = b.getI64Type();
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  for (const NodeLayout &c : layout.getNodes()) {
    if (c.parent != &n)
      continue;
    bool isPointer = c.kind == SNodeKind::Pointer;
    if (!hasPool(c.kind) && !holdsPoolCells(layout, c))
      continue;
    Value container = byteOffset(b, loc, cell, c.offsetInParent);
    if (c.kind == SNodeKind::Dynamic) {
      freeListChunks(b, loc, c, container, /*reset=*/false);
      continue;
    }
    if (c.kind == SNodeKind::Hash) {
      releaseHashTable(b, loc, layout, c, container);
      continue;
    }
    Value lb = arith::ConstantIntOp::create(b, loc, i64, 0);
    Value ub = arith::ConstantIntOp::create(b, loc, i64, c.numCells);
    Value step = arith::ConstantIntOp::create(b, loc, i64, 1);
    auto loop = scf::ForOp::create(b, loc, lb, ub, step);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value l = loop.getInductionVar();
    if (!isPointer) {
      releaseNestedCells(b, loc, layout, c,
                         lowerDenseLookup(b, loc, c, container, l));
      continue;
    }
    Value p = LLVM::LoadOp::create(b, loc, ptrTy,
                                   pointerSlot(b, loc, container, l), 8);
    auto ifSet = scf::IfOp::create(b, loc, holdsCell(b, loc, p), false);
    b.setInsertionPointToStart(ifSet.thenBlock());
    releaseNestedCells(b, loc, layout, c, p);
    FreeCellOp::create(b, loc, p, c.name);
  }
}

/// deactivate: one case per node kind.
struct DeactivateLowering : SNodePattern<DeactivateOp> {
  using SNodePattern::SNodePattern;
  /// A cell that stays where it is (bitmasked, hash) but goes inactive:
  /// the pool cells nested in it back to their pools, then its bytes
  /// zeroed, so it reads 0 and a later activation starts from 0.
  void clearCell(OpBuilder &b, Location loc, const NodeLayout &n,
                 Value cell) const {
    releaseNestedCells(b, loc, layout, n, cell);
    zeroBytes(b, loc, cell, n.cellSize);
  }
  LogicalResult
  matchAndRewrite(DeactivateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    Location loc = op.getLoc();
    switch (op.getKind()) {
    case SNodeKind::Bitmasked: {
      // Clear the bit; if it was set, return the pointer cells below to
      // their pools and zero the cell (its fields and every node below it),
      // so that it reads 0 and a later activation starts from 0.
      MaskBit m = maskBit(rewriter, loc, *n, adaptor.getContainer(),
                          adaptor.getLinear());
      Type i32 = rewriter.getI32Type();
      Value notBit = arith::XOrIOp::create(
          rewriter, loc, m.bit,
          arith::ConstantIntOp::create(rewriter, loc, i32, -1));
      Value oldWord = LLVM::AtomicRMWOp::create(
          rewriter, loc, LLVM::AtomicBinOp::_and, m.word, notBit,
          LLVM::AtomicOrdering::monotonic);
      Value oldBit = arith::AndIOp::create(rewriter, loc, oldWord, m.bit);
      Value wasActive = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne, oldBit,
          arith::ConstantIntOp::create(rewriter, loc, i32, 0));
      auto ifActive = scf::IfOp::create(rewriter, loc, wasActive, false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(ifActive.thenBlock());
      bumpEpoch(rewriter, loc, *n);
      if (n->cellSize > 0) {
        Value cell = lowerDenseLookup(rewriter, loc, *n, adaptor.getContainer(),
                                      adaptor.getLinear());
        clearCell(rewriter, loc, *n, cell);
      }
      rewriter.setInsertionPointAfter(ifActive);
      rewriter.eraseOp(op);
      return success();
    }
    case SNodeKind::Pointer: {
      // Take the cell out of its slot; whoever gets it non-null returns the
      // pointer cells nested in it and then it to their pools (zeroed there
      // before reuse: a reactivated cell reads 0).
      Value slot = pointerSlot(rewriter, loc, adaptor.getContainer(),
                               adaptor.getLinear());
      Value null = LLVM::ZeroOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(getContext()));
      Value old =
          LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::xchg,
                                    slot, null, LLVM::AtomicOrdering::acq_rel);
      // (A slot claimed by an activation in flight reads as inactive: that
      // activation publishes its cell after this.)
      Value wasSet = holdsCell(rewriter, loc, old);
      auto ifSet = scf::IfOp::create(rewriter, loc, wasSet, false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(ifSet.thenBlock());
      bumpEpoch(rewriter, loc, *n);
      releaseNestedCells(rewriter, loc, layout, *n, old);
      FreeCellOp::create(rewriter, loc, old, n->name);
      rewriter.setInsertionPointAfter(ifSet);
      rewriter.eraseOp(op);
      return success();
    }
    case SNodeKind::Hash: {
      // Clear the flag; if it was set, free what is nested and zero the
      // cell (the entry stays in its chain, ready for the key's next
      // activation).
      Value e = findEntry(
          rewriter, loc,
          loadSlot(rewriter, loc,
                   hashBucket(rewriter, loc, *n, adaptor.getContainer(),
                              adaptor.getLinear())
                       .slot),
          adaptor.getLinear());
      Value none = isNull(rewriter, loc, e);
      Value some = arith::XOrIOp::create(
          rewriter, loc, none,
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 1));
      auto ifSome = scf::IfOp::create(rewriter, loc, some, false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(ifSome.thenBlock());
      Type i32 = rewriter.getI32Type();
      Value flagPtr = entryField(rewriter, loc, e, kHashFlagOffset);
      Value old = LLVM::AtomicRMWOp::create(
          rewriter, loc, LLVM::AtomicBinOp::xchg, flagPtr,
          arith::ConstantIntOp::create(rewriter, loc, i32, 0),
          LLVM::AtomicOrdering::monotonic);
      auto ifWas = scf::IfOp::create(
          rewriter, loc,
          arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::ne, old,
              arith::ConstantIntOp::create(rewriter, loc, i32, 0)),
          false);
      rewriter.setInsertionPointToStart(ifWas.thenBlock());
      bumpEpoch(rewriter, loc, *n);
      if (n->cellSize > 0) {
        clearCell(rewriter, loc, *n,
                  byteOffset(rewriter, loc, e, n->hashCellOffset));
      }
      rewriter.setInsertionPointAfter(ifSome);
      rewriter.eraseOp(op);
      return success();
    }
    case SNodeKind::Dynamic: {
      // The whole list (Taichi's x[i].deactivate()): length 0, chunks back
      // to the pool (zeroed there before reuse, so a list filled again
      // reads 0 past its new length).
      Value len = adaptor.getContainer();
      LLVM::AtomicRMWOp::create(
          rewriter, loc, LLVM::AtomicBinOp::xchg, len,
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 0),
          LLVM::AtomicOrdering::monotonic);
      freeListChunks(rewriter, loc, *n, len, /*reset=*/true);
      rewriter.eraseOp(op);
      return success();
    }
    default:
      return rewriter.notifyMatchFailure(op, "no lowering for this node kind");
    }
  }
};

/// snode.append: one atomic increment of the length; the old length is the
/// caller's element, whose chunk is allocated here. A full list (or no
/// memory for the chunk) yields the maximum length: nothing reserved.
struct AppendLowering : SNodePattern<AppendOp> {
  using SNodePattern::SNodePattern;
  LogicalResult
  matchAndRewrite(AppendOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value list = adaptor.getContainer();
    Value max = arith::ConstantIntOp::create(rewriter, loc, i32, n->numCells);
    Value old = LLVM::AtomicRMWOp::create(
        rewriter, loc, LLVM::AtomicBinOp::add, list,
        arith::ConstantIntOp::create(rewriter, loc, i32, 1),
        LLVM::AtomicOrdering::monotonic);
    Value full = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge,
                                       old, max);
    auto ifFull = scf::IfOp::create(rewriter, loc, TypeRange{i32}, full, true);
    {
      OpBuilder::InsertionGuard g(rewriter);
      // Back to the maximum (appends that found the list full raised it).
      rewriter.setInsertionPointToStart(ifFull.thenBlock());
      LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::min, list,
                                max, LLVM::AtomicOrdering::monotonic);
      scf::YieldOp::create(rewriter, loc, ValueRange{max});
      rewriter.setInsertionPointToStart(ifFull.elseBlock());
      ListElement e = listElement(rewriter, loc, *n, list, old);
      Value chunk = activatePointerCell(rewriter, loc, *n, e.slot);
      scf::YieldOp::create(
          rewriter, loc,
          ValueRange{arith::SelectOp::create(
              rewriter, loc, isSink(rewriter, loc, chunk), max, old)});
    }
    rewriter.replaceOp(op, ifFull.getResult(0));
    return success();
  }
};

/// A step of snode.hash_maintain's chain walks at entry `e`: an inactive
/// entry (a deactivated key: its cell is zero, what it held released) goes
/// back to the pool and the walk carries on what `dead` gives; an active
/// one is relinked by `live`. Returns the values carried on (`types`).
static SmallVector<Value>
freeIfInactive(OpBuilder &b, Location loc, const NodeLayout &n, Value e,
               TypeRange types, function_ref<SmallVector<Value>()> dead,
               function_ref<SmallVector<Value>()> live) {
  Value flag = loadFlag(b, loc, e);
  Value inactive = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, flag,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  auto ifInactive =
      scf::IfOp::create(b, loc, types, inactive, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifInactive.thenBlock());
  FreeCellOp::create(b, loc, e, n.name);
  scf::YieldOp::create(b, loc, dead());
  b.setInsertionPointToStart(ifInactive.elseBlock());
  scf::YieldOp::create(b, loc, live());
  return SmallVector<Value>(ifInactive.getResults());
}

/// Every chain of the `buckets` (i64) heads at `heads` rebuilt from its
/// active entries, the inactive ones back to the pool: returns how many
/// went (i64).
static Value purgeChains(OpBuilder &b, Location loc, const NodeLayout &n,
                         Value heads, Value buckets) {
  Type i64 = b.getI64Type();
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value lb = c64(0), step = c64(1), init = c64(0);
  auto loop = scf::ForOp::create(b, loc, lb, buckets, step, ValueRange{init});
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value slot = pointerSlot(b, loc, heads, loop.getInductionVar());
  Value null = LLVM::ZeroOp::create(b, loc, ptrTy);
  // The live entries to the front of a new chain, the others freed.
  ValueRange kept = walkChain(
      b, loc, loadSlot(b, loc, slot), {null, loop.getRegionIterArg(0)},
      [&](Value e, ValueRange acc) {
        return freeIfInactive(
            b, loc, n, e, {ptrTy, i64},
            [&] {
              return SmallVector<Value>{
                  acc[0], arith::AddIOp::create(b, loc, acc[1], c64(1))};
            },
            [&] {
              LLVM::StoreOp::create(b, loc, acc[0],
                                    entryField(b, loc, e, kHashNextOffset), 8);
              return SmallVector<Value>{e, acc[1]};
            });
      });
  LLVM::StoreOp::create(b, loc, kept[0], slot, 8);
  scf::YieldOp::create(b, loc, ValueRange{kept[1]});
  return loop.getResult(0);
}

/// snode.hash_maintain: when the live entries exceed twice the buckets and
/// twice what the last purge left, the inactive entries back to the pool;
/// then while the entries exceed twice the buckets (and the table can
/// grow), double the table in place, splitting each chain by the next bit
/// of its keys' mix (serial: between launches).
struct HashMaintainLowering : SNodePattern<HashMaintainOp> {
  using SNodePattern::SNodePattern;

  /// The purge; returns the entries left (`live` when none ran).
  static Value purge(OpBuilder &b, Location loc, const NodeLayout &n,
                     Value container, Value heads, Value mask, Value live) {
    Type i64 = b.getI64Type();
    auto c64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    Value lastSlot = byteOffset(b, loc, container, 8);
    Value last = LLVM::LoadOp::create(b, loc, i64, lastSlot, 8);
    Value buckets = arith::AddIOp::create(b, loc, mask, c64(1));
    auto over = [&](Value x) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, live,
                                   arith::ShLIOp::create(b, loc, x, c64(1)));
    };
    Value overBuckets = over(buckets);
    Value overLast = over(last);
    Value due = arith::AndIOp::create(b, loc, overBuckets, overLast);
    auto ifDue = scf::IfOp::create(b, loc, TypeRange{i64}, due, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifDue.thenBlock());
    Value freed = purgeChains(b, loc, n, heads, buckets);
    Value left = arith::SubIOp::create(b, loc, live, freed);
    LLVM::StoreOp::create(b, loc, left, lastSlot, 8);
    scf::YieldOp::create(b, loc, ValueRange{left});
    b.setInsertionPointToStart(ifDue.elseBlock());
    scf::YieldOp::create(b, loc, ValueRange{live});
    return ifDue.getResult(0);
  }

  LogicalResult
  matchAndRewrite(HashMaintainOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i64 = b.getI64Type();
    Type ptrTy = LLVM::LLVMPointerType::get(getContext());
    auto c64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    Value container = adaptor.getContainer();
    Value initial = c64(n->hashBuckets - 1);
    Value heads = byteOffset(b, loc, container, kHashGrowthHeaderBytes);
    Value mask0 = arith::XOrIOp::create(
        b, loc, LLVM::LoadOp::create(b, loc, i64, container, 8), initial);
    if (n->poolStateOffset < 0)
      return rewriter.notifyMatchFailure(op, "no pool state recorded");
    Value live = LLVM::LoadOp::create(
        b, loc, i64,
        structureAddress(b, loc, *n,
                         n->poolStateOffset - n->tree->offset + abi::kPoolLive),
        8);
    Value entries = purge(b, loc, *n, container, heads, mask0, live);
    auto grow = scf::WhileOp::create(b, loc, TypeRange{i64}, ValueRange{mask0});
    {
      OpBuilder::InsertionGuard g(b);
      Block *before = b.createBlock(&grow.getBefore(), {}, {i64}, {loc});
      Value count =
          arith::AddIOp::create(b, loc, before->getArgument(0), c64(1));
      Value full =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, entries,
                                arith::ShLIOp::create(b, loc, count, c64(1)));
      Value room = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         count, c64(kHashMaxBuckets));
      scf::ConditionOp::create(b, loc,
                               arith::AndIOp::create(b, loc, full, room),
                               before->getArguments());
      Block *after = b.createBlock(&grow.getAfter(), {}, {i64}, {loc});
      Value old = arith::AddIOp::create(b, loc, after->getArgument(0), c64(1));
      Value mask = arith::ShLIOp::create(b, loc, old, c64(1));
      mask = arith::SubIOp::create(b, loc, mask, c64(1));
      Value lb = c64(0), step = c64(1);
      auto loop = scf::ForOp::create(b, loc, lb, old, step);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(loop.getBody());
        Value bucket = loop.getInductionVar();
        Value loSlot = pointerSlot(b, loc, heads, bucket);
        Value hiSlot = pointerSlot(b, loc, heads,
                                   arith::AddIOp::create(b, loc, bucket, old));
        Value null = LLVM::ZeroOp::create(b, loc, ptrTy);
        unsigned bits = getHashKeyBits(
            getHashKeySlots(unsigned(n->axes.size()), /*nested=*/false));
        // Each entry to the front of the low or the high chain; an
        // entry whose cell is inactive (deactivated since its insertion:
        // its cell is zero, what it held released) back to the pool, so
        // a table that grows keeps only live keys.
        ValueRange split = walkChain(
            b, loc, loadSlot(b, loc, loSlot), {null, null},
            [&](Value e, ValueRange lh) {
              return freeIfInactive(
                  b, loc, *n, e, {ptrTy, ptrTy},
                  [&] { return SmallVector<Value>(lh); },
                  [&] {
                    Value key = LLVM::LoadOp::create(
                        b, loc, b.getIntegerType(bits),
                        entryField(b, loc, e, kHashKeyOffset),
                        std::min(16u, bits / 8));
                    Value stays = arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::eq,
                        arith::AndIOp::create(b, loc, hashMix(b, loc, key),
                                              mask),
                        bucket);
                    Value next =
                        arith::SelectOp::create(b, loc, stays, lh[0], lh[1]);
                    LLVM::StoreOp::create(
                        b, loc, next, entryField(b, loc, e, kHashNextOffset),
                        8);
                    return SmallVector<Value>{
                        arith::SelectOp::create(b, loc, stays, e, lh[0]),
                        arith::SelectOp::create(b, loc, stays, lh[1], e)};
                  });
            });
        LLVM::StoreOp::create(b, loc, split[0], loSlot, 8);
        LLVM::StoreOp::create(b, loc, split[1], hiSlot, 8);
      }
      LLVM::StoreOp::create(
          b, loc, arith::XOrIOp::create(b, loc, mask, initial), container, 8);
      scf::YieldOp::create(b, loc, ValueRange{mask});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// snode.hash_maintain_tables: each noted table whose count still exceeds
/// twice its buckets purged; with `grow`, when its live entries exceed its
/// buckets, moved to a block of the power of two at or above them (up to
/// kHashMaxTableBuckets). Serial: between launches.
struct HashMaintainTablesLowering : SNodePattern<HashMaintainTablesOp> {
  using SNodePattern::SNodePattern;

  /// The entries of table `t` (`buckets` heads, all active after the
  /// purge) moved to a new block of the buckets that `live` entries need,
  /// when it has more than `buckets`; the table keeps its heads when there
  /// is no memory for the block.
  static void grow(OpBuilder &b, Location loc, const NodeLayout &n,
                   Value container, HashTable t, Value buckets, Value live) {
    Type i64 = b.getI64Type();
    Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
    auto c64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    auto size = scf::WhileOp::create(b, loc, TypeRange{i64}, buckets);
    {
      OpBuilder::InsertionGuard g(b);
      Block *before = b.createBlock(&size.getBefore(), {}, {i64}, {loc});
      Value nb = before->getArgument(0);
      Value fewer =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, nb, live);
      Value room = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, nb,
                                         c64(kHashMaxTableBuckets));
      scf::ConditionOp::create(
          b, loc, arith::AndIOp::create(b, loc, fewer, room), ValueRange{nb});
      Block *after = b.createBlock(&size.getAfter(), {}, {i64}, {loc});
      scf::YieldOp::create(b, loc,
                           ValueRange{arith::ShLIOp::create(
                               b, loc, after->getArgument(0), c64(1))});
    }
    Value target = size.getResult(0);
    auto ifMore = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, target,
                              buckets),
        false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifMore.thenBlock());
    Value owner = byteOffset(b, loc, container, kHashTableBlockOffset);
    Value bytes = arith::MulIOp::create(b, loc, target, c64(8));
    Value block = HashBlockOp::create(b, loc, ptrTy, n.name, owner, bytes);
    Value noBlock = isNull(b, loc, block);
    Value gotBlock = arith::XOrIOp::create(
        b, loc, noBlock,
        arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    auto ifBlock = scf::IfOp::create(b, loc, gotBlock, false);
    b.setInsertionPointToStart(ifBlock.thenBlock());
    Value mask = arith::SubIOp::create(b, loc, target, c64(1));
    unsigned bits = getHashKeyBits(
        getHashKeySlots(unsigned(n.axes.size()), /*nested=*/true));
    Value lb = c64(0), step = c64(1);
    auto loop = scf::ForOp::create(b, loc, lb, buckets, step);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loop.getBody());
      Value head = loadSlot(
          b, loc, pointerSlot(b, loc, t.heads, loop.getInductionVar()));
      walkChain(b, loc, head, {}, [&](Value e, ValueRange) {
        Value key = LLVM::LoadOp::create(b, loc, b.getIntegerType(bits),
                                         entryField(b, loc, e, kHashKeyOffset),
                                         std::min(16u, bits / 8));
        Value idx = arith::AndIOp::create(b, loc, hashMix(b, loc, key), mask);
        Value slot = pointerSlot(b, loc, block, idx);
        Value next = loadSlot(b, loc, slot);
        LLVM::StoreOp::create(b, loc, next,
                              entryField(b, loc, e, kHashNextOffset), 8);
        LLVM::StoreOp::create(b, loc, e, slot, 8);
        return SmallVector<Value>();
      });
    }
    LLVM::StoreOp::create(b, loc, block, owner, 8);
    Value newMask = arith::XOrIOp::create(b, loc, mask, c64(n.hashBuckets - 1));
    LLVM::StoreOp::create(b, loc, newMask,
                          byteOffset(b, loc, container, kHashTableMaskOffset),
                          8);
  }

  LogicalResult
  matchAndRewrite(HashMaintainTablesOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    if (n->notesOffset < 0)
      return rewriter.notifyMatchFailure(op, "no notes recorded");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i64 = b.getI64Type();
    auto c64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    Value notes = structureAddress(b, loc, *n, n->notesOffset);
    Value noted = LLVM::LoadOp::create(b, loc, i64, notes, 8);
    noted = arith::MinUIOp::create(b, loc, noted, c64(kHashNoteSlots));
    Value lb = c64(0), step = c64(1);
    auto loop = scf::ForOp::create(b, loc, lb, noted, step);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      Value container =
          loadSlot(b, loc,
                   pointerSlot(b, loc, byteOffset(b, loc, notes, 8),
                               loop.getInductionVar()));
      Value countSlot = byteOffset(b, loc, container, kHashTableCountOffset);
      Value count = LLVM::LoadOp::create(b, loc, i64, countSlot, 8);
      HashTable t = hashTable(b, loc, *n, container);
      Value buckets = arith::AddIOp::create(b, loc, t.mask, c64(1));
      // (A table noted twice, or freed with its parent since: nothing to
      // do.)
      Value due =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, count,
                                arith::ShLIOp::create(b, loc, buckets, c64(1)));
      auto ifDue = scf::IfOp::create(b, loc, due, false);
      b.setInsertionPointToStart(ifDue.thenBlock());
      Value live = arith::SubIOp::create(
          b, loc, count, purgeChains(b, loc, *n, t.heads, buckets));
      LLVM::StoreOp::create(b, loc, live, countSlot, 8);
      if (op.getGrow())
        grow(b, loc, *n, container, t, buckets, live);
    }
    LLVM::StoreOp::create(b, loc, c64(0), notes, 8);
    rewriter.eraseOp(op);
    return success();
  }
};

/// snode.hash_entry: entry %e of the pool (every entry ever allocated),
/// its flag and its key's slots (cell indices, then a nested hash's parent
/// cell).
struct HashEntryLowering : SNodePattern<HashEntryOp> {
  using SNodePattern::SNodePattern;
  LogicalResult
  matchAndRewrite(HashEntryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value off = arith::ExtUIOp::create(rewriter, loc, i64, adaptor.getEntry());
    off = arith::MulIOp::create(
        rewriter, loc, off,
        arith::ConstantIntOp::create(rewriter, loc, i64, n->poolCellSize));
    Value entry = LLVM::GEPOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(getContext()),
        rewriter.getI8Type(), adaptor.getBase(), ValueRange{off},
        LLVM::GEPNoWrapFlags::inbounds);
    SmallVector<Value> results;
    Value flag = loadFlag(rewriter, loc, entry);
    results.push_back(arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ne, flag,
        arith::ConstantIntOp::create(rewriter, loc, i32, 0)));
    size_t slots = op.getIndices().size(); // getHashKeySlots
    unsigned bits = getHashKeyBits(unsigned(slots));
    Type keyTy = rewriter.getIntegerType(bits);
    Value key = LLVM::LoadOp::create(
        rewriter, loc, keyTy, entryField(rewriter, loc, entry, kHashKeyOffset),
        std::min(16u, bits / 8));
    for (size_t k = 0; k < slots; ++k) {
      Value v = key;
      if (k)
        v = arith::ShRUIOp::create(
            rewriter, loc, v,
            arith::ConstantIntOp::create(rewriter, loc, keyTy, 32 * k));
      results.push_back(
          bits == 32 ? v
                     : Value(arith::TruncIOp::create(rewriter, loc, i32, v)));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// snode.hash_entry_index: (cell - cell offset - base) / entry bytes.
struct HashEntryIndexLowering : SNodePattern<HashEntryIndexOp> {
  using SNodePattern::SNodePattern;
  LogicalResult
  matchAndRewrite(HashEntryIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto asInt = [&](Value p) -> Value {
      return LLVM::PtrToIntOp::create(rewriter, loc, i64, p);
    };
    Value cell = asInt(adaptor.getCell());
    Value base = asInt(adaptor.getBase());
    Value off = arith::SubIOp::create(rewriter, loc, cell, base);
    off = arith::SubIOp::create(
        rewriter, loc, off,
        arith::ConstantIntOp::create(rewriter, loc, i64, n->hashCellOffset));
    Value e = arith::DivUIOp::create(
        rewriter, loc, off,
        arith::ConstantIntOp::create(rewriter, loc, i64, n->poolCellSize));
    rewriter.replaceOpWithNewOp<arith::TruncIOp>(op, rewriter.getI32Type(), e);
    return success();
  }
};

/// snode.length: the length word, at most the maximum (appends to a full
/// list raise it for a moment).
struct LengthLowering : SNodePattern<LengthOp> {
  using SNodePattern::SNodePattern;
  LogicalResult
  matchAndRewrite(LengthOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const NodeLayout *n = node(op, op.getNode(), rewriter);
    if (!n)
      return failure();
    Location loc = op.getLoc();
    Value len = loadLength(rewriter, loc, adaptor.getContainer());
    rewriter.replaceOpWithNewOp<arith::MinSIOp>(
        op, len,
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                     n->numCells));
    return success();
  }
};

} // namespace

void lowering::populateNodeKindPatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        const SNodeLayout &layout) {
  patterns
      .add<LookupLowering, IsActiveLowering, DeactivateLowering, AppendLowering,
           LengthLowering, HashEntryLowering, HashEntryIndexLowering,
           HashMaintainLowering, HashMaintainTablesLowering>(
          converter, patterns.getContext(), layout);
}

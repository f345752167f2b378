//===- PoolLowering.cpp - inline pool operations for every target ---------===//
//
// The algorithm of runtime/src/Pool.cpp on a tic_rt_pool_state (ABI 6: index
// lists with atomic-add counters, no retry loop), as LLVM dialect atomics and
// scf control flow, so that the CPU and the GPU run the same code
// (docs/runtime.md, "Memory pools").
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/PoolLowering.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Target/RuntimeABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tic;

static_assert(abi::kPoolStateBytes == snode::kPoolStateBytes,
              "tic-allocate-layout reserves a whole pool state");

namespace {

Type ptrType(OpBuilder &b) {
  return LLVM::LLVMPointerType::get(b.getContext());
}

Value cst64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

/// The address of the state's word at byte `field`.
Value word(OpBuilder &b, Location loc, Value state, int64_t field) {
  if (field == 0)
    return state;
  // (A state's offset in the root buffer may pass 2^31.)
  if (field > INT32_MAX)
    return LLVM::GEPOp::create(b, loc, ptrType(b), b.getI8Type(), state,
                               ValueRange{cst64(b, loc, field)},
                               LLVM::GEPNoWrapFlags::inbounds);
  return LLVM::GEPOp::create(b, loc, ptrType(b), b.getI8Type(), state,
                             ArrayRef<LLVM::GEPArg>{int32_t(field)},
                             LLVM::GEPNoWrapFlags::inbounds);
}

Value load64(OpBuilder &b, Location loc, Value state, int64_t field,
             LLVM::AtomicOrdering ordering) {
  return LLVM::LoadOp::create(b, loc, b.getI64Type(),
                              word(b, loc, state, field),
                              /*alignment=*/8, /*isVolatile=*/false,
                              /*isNonTemporal=*/false, /*isInvariant=*/false,
                              /*isInvariantGroup=*/false, ordering);
}

/// Element `index` (i64) of the pool.
Value element(OpBuilder &b, Location loc, Value base, Value size, Value index) {
  return LLVM::GEPOp::create(
      b, loc, ptrType(b), b.getI8Type(), base,
      ValueRange{arith::MulIOp::create(b, loc, index, size)},
      LLVM::GEPNoWrapFlags::inbounds);
}

struct Geometry {
  Value base, size;
};

Geometry geometry(OpBuilder &b, Location loc, Value state) {
  Value base =
      load64(b, loc, state, abi::kPoolBase, LLVM::AtomicOrdering::not_atomic);
  return {LLVM::IntToPtrOp::create(b, loc, ptrType(b), base),
          load64(b, loc, state, abi::kPoolElementSize,
                 LLVM::AtomicOrdering::not_atomic)};
}

void addLive(OpBuilder &b, Location loc, Value state, int64_t d) {
  Value live = word(b, loc, state, abi::kPoolLive);
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, live,
                            cst64(b, loc, d), LLVM::AtomicOrdering::monotonic);
}

/// The address of entry `i` (i64) of the list whose address is the state's
/// word at byte `field`.
Value listEntry(OpBuilder &b, Location loc, Value state, int64_t field,
                Value i) {
  Value list = LLVM::IntToPtrOp::create(
      b, loc, ptrType(b),
      load64(b, loc, state, field, LLVM::AtomicOrdering::not_atomic));
  return LLVM::GEPOp::create(b, loc, ptrType(b), b.getI32Type(), list,
                             ValueRange{i}, LLVM::GEPNoWrapFlags::inbounds);
}

Value atomicAdd(OpBuilder &b, Location loc, Value state, int64_t field,
                int64_t d) {
  Value addr = word(b, loc, state, field);
  return LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, addr,
                                   cst64(b, loc, d),
                                   LLVM::AtomicOrdering::monotonic);
}

/// The free list's entries below the ones taken since the last collect:
/// free_count - min(free_taken, free_count). Only while no kernel runs.
Value untaken(OpBuilder &b, Location loc, Value state) {
  Value count = load64(b, loc, state, abi::kPoolFreeCount,
                       LLVM::AtomicOrdering::not_atomic);
  Value taken = load64(b, loc, state, abi::kPoolFreeTaken,
                       LLVM::AtomicOrdering::not_atomic);
  return arith::SubIOp::create(b, loc, count,
                               arith::MinUIOp::create(b, loc, taken, count));
}

} // namespace

Value pools::statePtr(OpBuilder &b, Location loc, Value root, int64_t offset) {
  return word(b, loc, root, offset);
}

Value pools::allocate(
    OpBuilder &b, Location loc, Value state,
    const std::function<Value(OpBuilder &, Value, Value)> &beyond) {
  Type ptrTy = ptrType(b), i64 = b.getI64Type();
  Geometry g = geometry(b, loc, state);
  // The free list is only taken from during a launch: one atomic add, no
  // retry. A thread that finds it used up (taken passed the count) does
  // not add, so the fresh path costs one atomic too.
  Value count = load64(b, loc, state, abi::kPoolFreeCount,
                       LLVM::AtomicOrdering::monotonic);
  Value seen = load64(b, loc, state, abi::kPoolFreeTaken,
                      LLVM::AtomicOrdering::monotonic);
  auto ifLeft = scf::IfOp::create(
      b, loc, TypeRange{i64},
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, seen, count),
      true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifLeft.thenBlock());
  scf::YieldOp::create(
      b, loc, ValueRange{atomicAdd(b, loc, state, abi::kPoolFreeTaken, 1)});
  b.setInsertionPointToStart(ifLeft.elseBlock());
  scf::YieldOp::create(b, loc, ValueRange{count});
  b.setInsertionPointAfter(ifLeft);
  Value t = ifLeft.getResult(0);
  auto ifTaken = scf::IfOp::create(
      b, loc, TypeRange{ptrTy},
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t, count), true);
  {
    // A recycled element, zeroed by the collect: free_list[count - 1 - t].
    b.setInsertionPointToStart(ifTaken.thenBlock());
    Value at = arith::SubIOp::create(
        b, loc, arith::SubIOp::create(b, loc, count, cst64(b, loc, 1)), t);
    Value index = LLVM::LoadOp::create(
        b, loc, b.getI32Type(),
        listEntry(b, loc, state, abi::kPoolFreeList, at), /*alignment=*/4);
    addLive(b, loc, state, 1);
    scf::YieldOp::create(
        b, loc,
        ValueRange{element(b, loc, g.base, g.size,
                           arith::ExtUIOp::create(b, loc, i64, index))});
  }
  {
    // Fresh memory: below the capacity it is there (and zero) already.
    b.setInsertionPointToStart(ifTaken.elseBlock());
    Value i = atomicAdd(b, loc, state, abi::kPoolNext, 1);
    Value cap = load64(b, loc, state, abi::kPoolCapacity,
                       LLVM::AtomicOrdering::acquire);
    Value within =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, cap);
    auto ifWithin = scf::IfOp::create(b, loc, TypeRange{ptrTy}, within, true);
    b.setInsertionPointToStart(ifWithin.thenBlock());
    addLive(b, loc, state, 1);
    scf::YieldOp::create(b, loc,
                         ValueRange{element(b, loc, g.base, g.size, i)});
    b.setInsertionPointToStart(ifWithin.elseBlock());
    scf::YieldOp::create(b, loc, ValueRange{beyond(b, i, cap)});
    b.setInsertionPointAfter(ifWithin);
    scf::YieldOp::create(b, loc, ifWithin.getResults());
  }
  return ifTaken.getResult(0);
}

void pools::free(OpBuilder &b, Location loc, Value state, Value cell) {
  Type i64 = b.getI64Type();
  Geometry g = geometry(b, loc, state);
  Value cellInt = LLVM::PtrToIntOp::create(b, loc, i64, cell);
  Value baseInt = LLVM::PtrToIntOp::create(b, loc, i64, g.base);
  Value offset = arith::SubIOp::create(b, loc, cellInt, baseInt);
  Value index = arith::TruncIOp::create(
      b, loc, b.getI32Type(), arith::DivUIOp::create(b, loc, offset, g.size));
  Value at = atomicAdd(b, loc, state, abi::kPoolPendingCount, 1);
  LLVM::StoreOp::create(b, loc, index,
                        listEntry(b, loc, state, abi::kPoolPendingList, at),
                        /*alignment=*/4);
  addLive(b, loc, state, -1);
}

std::pair<Value, Value> pools::view(OpBuilder &b, Location loc, Value state) {
  Geometry g = geometry(b, loc, state);
  Value next =
      load64(b, loc, state, abi::kPoolNext, LLVM::AtomicOrdering::monotonic);
  Value max = load64(b, loc, state, abi::kPoolMaxElements,
                     LLVM::AtomicOrdering::not_atomic);
  Value n = arith::MinUIOp::create(b, loc, next, max);
  n = arith::MinUIOp::create(b, loc, n, cst64(b, loc, INT32_MAX));
  return {g.base, arith::TruncIOp::create(b, loc, b.getI32Type(), n)};
}

pools::Collect pools::collectBegin(OpBuilder &b, Location loc, Value state) {
  Geometry g = geometry(b, loc, state);
  Value pending = load64(b, loc, state, abi::kPoolPendingCount,
                         LLVM::AtomicOrdering::not_atomic);
  // Element sizes are multiples of 16 bytes (the pool rounds them).
  Value words = arith::DivUIOp::create(b, loc, g.size, cst64(b, loc, 8));
  auto list = [&](int64_t field) {
    return LLVM::IntToPtrOp::create(
        b, loc, ptrType(b),
        load64(b, loc, state, field, LLVM::AtomicOrdering::not_atomic));
  };
  Collect c;
  c.base = g.base;
  c.size = g.size;
  c.wordsPerElement = words;
  c.pendingList = list(abi::kPoolPendingList);
  c.freeList = list(abi::kPoolFreeList);
  c.untaken = untaken(b, loc, state);
  c.words = arith::MulIOp::create(b, loc, pending, words);
  return c;
}

void pools::collectWord(OpBuilder &b, Location loc, const Collect &c, Value w) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value n = arith::DivUIOp::create(b, loc, w, c.wordsPerElement);
  Value k = arith::RemUIOp::create(b, loc, w, c.wordsPerElement);
  Value index = LLVM::LoadOp::create(
      b, loc, i32,
      LLVM::GEPOp::create(b, loc, ptrType(b), i32, c.pendingList, ValueRange{n},
                          LLVM::GEPNoWrapFlags::inbounds),
      /*alignment=*/4);
  Value e = element(b, loc, c.base, c.size,
                    arith::ExtUIOp::create(b, loc, i64, index));
  Value zero = cst64(b, loc, 0);
  LLVM::StoreOp::create(b, loc, zero,
                        LLVM::GEPOp::create(b, loc, ptrType(b), i64, e,
                                            ValueRange{k},
                                            LLVM::GEPNoWrapFlags::inbounds),
                        /*alignment=*/8);
  // The element's first word appends it after the untaken free entries.
  auto ifFirst =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              k, cst64(b, loc, 0)),
                        false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  LLVM::StoreOp::create(b, loc, index,
                        LLVM::GEPOp::create(b, loc, ptrType(b), i32, c.freeList,
                                            ValueRange{arith::AddIOp::create(
                                                b, loc, c.untaken, n)},
                                            LLVM::GEPNoWrapFlags::inbounds),
                        /*alignment=*/4);
}

void pools::collectEnd(OpBuilder &b, Location loc, Value state) {
  Value pending = load64(b, loc, state, abi::kPoolPendingCount,
                         LLVM::AtomicOrdering::not_atomic);
  Value count = arith::AddIOp::create(b, loc, untaken(b, loc, state), pending);
  Value c0 = cst64(b, loc, 0);
  LLVM::StoreOp::create(b, loc, count, word(b, loc, state, abi::kPoolFreeCount),
                        /*alignment=*/8);
  LLVM::StoreOp::create(b, loc, c0, word(b, loc, state, abi::kPoolFreeTaken),
                        /*alignment=*/8);
  LLVM::StoreOp::create(b, loc, c0, word(b, loc, state, abi::kPoolPendingCount),
                        /*alignment=*/8);
}

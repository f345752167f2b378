//===- PoolLowering.cpp - inline pool operations for every target ---------===//
//
// The algorithm of runtime/src/Pool.cpp on a tic_rt_pool_state, as LLVM
// dialect atomics and scf control flow, so that the CPU and the GPU run the
// same code (docs/runtime.md, "Memory pools").
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/PoolLowering.h"
#include "tic/Target/RuntimeABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tic;

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

/// Whether a stack link is set (an element; 0 ends a stack), and the
/// element it names (index link - 1).
Value isLink(OpBuilder &b, Location loc, Value link32) {
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, link32,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
}
Value linkedElement(OpBuilder &b, Location loc, const Geometry &g,
                    Value link32) {
  Value index = arith::ExtUIOp::create(
      b, loc, b.getI64Type(),
      arith::SubIOp::create(
          b, loc, link32,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1)));
  return element(b, loc, g.base, g.size, index);
}
Geometry geometry(OpBuilder &b, Location loc, Value state) {
  Value base =
      load64(b, loc, state, abi::kPoolBase, LLVM::AtomicOrdering::not_atomic);
  return {LLVM::IntToPtrOp::create(b, loc, ptrType(b), base),
          load64(b, loc, state, abi::kPoolElementSize,
                 LLVM::AtomicOrdering::not_atomic)};
}

/// (tag + 1) << 32 | link, from the old head.
Value makeHead(OpBuilder &b, Location loc, Value old, Value link32) {
  Value c32 = cst64(b, loc, 32);
  Value tag = arith::AddIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, old, c32), cst64(b, loc, 1));
  return arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, tag, c32),
      arith::ExtUIOp::create(b, loc, b.getI64Type(), link32));
}

Value link32(OpBuilder &b, Location loc, Value head) {
  return arith::TruncIOp::create(b, loc, b.getI32Type(), head);
}

void addLive(OpBuilder &b, Location loc, Value state, int64_t d) {
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add,
                            word(b, loc, state, abi::kPoolLive),
                            cst64(b, loc, d), LLVM::AtomicOrdering::monotonic);
}

/// Pops the stack whose head is at byte `field` of the state: the popped
/// element's link (index + 1; 0 when the stack was empty).
Value pop(OpBuilder &b, Location loc, Value state, int64_t field,
          const Geometry &g) {
  Type i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  Value head = word(b, loc, state, field);
  Value first = load64(b, loc, state, field, LLVM::AtomicOrdering::acquire);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i64}, ValueRange{first});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore(), {}, {i64}, {loc});
    Value h = before->getArgument(0);
    Value link = link32(b, loc, h);
    auto ifNonEmpty = scf::IfOp::create(b, loc, TypeRange{i1, i64},
                                        isLink(b, loc, link), true);
    b.setInsertionPointToStart(ifNonEmpty.thenBlock());
    // The next link, read from the element (it may be another thread's by
    // now: then the tag has moved and the exchange fails).
    Value e = linkedElement(b, loc, g, link);
    Value next =
        LLVM::LoadOp::create(b, loc, i32, e, /*alignment=*/4, false, false,
                             false, false, LLVM::AtomicOrdering::monotonic);
    auto cas = LLVM::AtomicCmpXchgOp::create(
        b, loc, head, h, makeHead(b, loc, h, next),
        LLVM::AtomicOrdering::acquire, LLVM::AtomicOrdering::acquire);
    Value old = LLVM::ExtractValueOp::create(b, loc, cas, 0);
    Value won = LLVM::ExtractValueOp::create(b, loc, cas, 1);
    Value again = arith::XOrIOp::create(
        b, loc, won, arith::ConstantIntOp::create(b, loc, i1, 1));
    scf::YieldOp::create(
        b, loc,
        ValueRange{again, arith::SelectOp::create(b, loc, won, h, old)});
    b.setInsertionPointToStart(ifNonEmpty.elseBlock());
    scf::YieldOp::create(
        b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, i1, 0), h});
    b.setInsertionPointAfter(ifNonEmpty);
    scf::ConditionOp::create(b, loc, ifNonEmpty.getResult(0),
                             ValueRange{ifNonEmpty.getResult(1)});
    Block *after = b.createBlock(&loop.getAfter(), {}, {i64}, {loc});
    scf::YieldOp::create(b, loc, ValueRange{after->getArgument(0)});
  }
  return link32(b, loc, loop.getResult(0));
}

/// Pushes `cell` on the stack at byte `field` of the state.
void push(OpBuilder &b, Location loc, Value state, int64_t field,
          const Geometry &g, Value cell) {
  Type i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  Value head = word(b, loc, state, field);
  Value offset =
      arith::SubIOp::create(b, loc, LLVM::PtrToIntOp::create(b, loc, i64, cell),
                            LLVM::PtrToIntOp::create(b, loc, i64, g.base));
  Value link = arith::AddIOp::create(
      b, loc,
      arith::TruncIOp::create(b, loc, i32,
                              arith::DivUIOp::create(b, loc, offset, g.size)),
      arith::ConstantIntOp::create(b, loc, i32, 1));
  Value first = load64(b, loc, state, field, LLVM::AtomicOrdering::monotonic);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i64}, ValueRange{first});
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, {i64}, {loc});
  Value h = before->getArgument(0);
  LLVM::StoreOp::create(b, loc, link32(b, loc, h), cell, /*alignment=*/4, false,
                        false, false, LLVM::AtomicOrdering::monotonic);
  auto cas = LLVM::AtomicCmpXchgOp::create(
      b, loc, head, h, makeHead(b, loc, h, link), LLVM::AtomicOrdering::release,
      LLVM::AtomicOrdering::monotonic);
  Value old = LLVM::ExtractValueOp::create(b, loc, cas, 0);
  Value won = LLVM::ExtractValueOp::create(b, loc, cas, 1);
  scf::ConditionOp::create(
      b, loc,
      arith::XOrIOp::create(b, loc, won,
                            arith::ConstantIntOp::create(b, loc, i1, 1)),
      ValueRange{old});
  Block *after = b.createBlock(&loop.getAfter(), {}, {i64}, {loc});
  scf::YieldOp::create(b, loc, ValueRange{after->getArgument(0)});
}

} // namespace

Value pools::statePtr(OpBuilder &b, Location loc, Value root, int64_t offset) {
  return word(b, loc, root, offset);
}

Value pools::allocate(
    OpBuilder &b, Location loc, Value state,
    const std::function<Value(OpBuilder &, Value, Value)> &beyond) {
  Type ptrTy = ptrType(b), i32 = b.getI32Type(), i64 = b.getI64Type();
  Geometry g = geometry(b, loc, state);
  Value link = pop(b, loc, state, abi::kPoolFreeHead, g);
  auto ifPopped =
      scf::IfOp::create(b, loc, TypeRange{ptrTy}, isLink(b, loc, link), true);
  OpBuilder::InsertionGuard guard(b);
  {
    // A recycled element: zeroed at collect time but for its link.
    b.setInsertionPointToStart(ifPopped.thenBlock());
    Value e = linkedElement(b, loc, g, link);
    LLVM::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, i32, 0),
                          e, /*alignment=*/4, false, false, false,
                          LLVM::AtomicOrdering::monotonic);
    addLive(b, loc, state, 1);
    scf::YieldOp::create(b, loc, ValueRange{e});
  }
  {
    // Fresh memory: below the capacity it is there (and zero) already.
    b.setInsertionPointToStart(ifPopped.elseBlock());
    Value i = LLVM::AtomicRMWOp::create(
        b, loc, LLVM::AtomicBinOp::add, word(b, loc, state, abi::kPoolNext),
        cst64(b, loc, 1), LLVM::AtomicOrdering::monotonic);
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
  return ifPopped.getResult(0);
}

void pools::free(OpBuilder &b, Location loc, Value state, Value cell,
                 bool unused) {
  Geometry g = geometry(b, loc, state);
  push(b, loc, state, unused ? abi::kPoolFreeHead : abi::kPoolPendingHead, g,
       cell);
  addLive(b, loc, state, -1);
}

std::pair<Value, Value> pools::view(OpBuilder &b, Location loc, Value state) {
  Geometry g = geometry(b, loc, state);
  Value next =
      load64(b, loc, state, abi::kPoolNext, LLVM::AtomicOrdering::monotonic);
  Value max = load64(b, loc, state, abi::kPoolMaxElements,
                     LLVM::AtomicOrdering::not_atomic);
  Value n =
      arith::MinUIOp::create(b, loc, arith::MinUIOp::create(b, loc, next, max),
                             cst64(b, loc, INT32_MAX));
  return {g.base, arith::TruncIOp::create(b, loc, b.getI32Type(), n)};
}

Value pools::collectOne(OpBuilder &b, Location loc, Value state) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Geometry g = geometry(b, loc, state);
  Value link = pop(b, loc, state, abi::kPoolPendingHead, g);
  Value popped = isLink(b, loc, link);
  auto ifPopped = scf::IfOp::create(b, loc, popped, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifPopped.thenBlock());
  Value e = linkedElement(b, loc, g, link);
  // Element sizes are multiples of 16 bytes (the pool rounds them).
  Value c0 = cst64(b, loc, 0), c8 = cst64(b, loc, 8);
  auto zero = scf::ForOp::create(b, loc, c0, g.size, c8);
  b.setInsertionPointToStart(zero.getBody());
  LLVM::StoreOp::create(b, loc, c0,
                        LLVM::GEPOp::create(b, loc, ptrType(b), b.getI8Type(),
                                            e,
                                            ValueRange{zero.getInductionVar()},
                                            LLVM::GEPNoWrapFlags::inbounds),
                        /*alignment=*/8);
  b.setInsertionPointAfter(zero);
  push(b, loc, state, abi::kPoolFreeHead, g, e);
  return popped;
}

//===- TCDialect.cpp - the tc dialect -------------------------------------===//
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tic;
using namespace tic::tc;

#include "tic/Dialect/TC/TCDialect.cpp.inc"
#include "tic/Dialect/TC/TCEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tic/Dialect/TC/TCTypes.cpp.inc"

void TCDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tic/Dialect/TC/TCTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tic/Dialect/TC/TCOps.cpp.inc"
      >();
}

static bool isScalar(Type t) { return snode::isComponentType(t); }

LogicalResult NDArrayType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type elementType, unsigned rank) {
  if (!isScalar(elementType))
    return emitError() << "ndarray element type must be a scalar, got "
                       << elementType;
  if (rank < 1 || rank > 8)
    return emitError() << "ndarray rank must be in [1, 8], got " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &b, OperationState &st, StringRef name,
                     FunctionType type) {
  st.addAttribute(SymbolTable::getSymbolAttrName(), b.getStringAttr(name));
  st.addAttribute(getFunctionTypeAttrName(st.name), TypeAttr::get(type));
  Region *r = st.addRegion();
  Block *entry = new Block();
  r->push_back(entry);
  for (Type t : type.getInputs()) entry->addArgument(t, st.location);
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &b, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results, function_interface_impl::VariadicFlag,
                          std::string &) { return b.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult KernelOp::verify() {
  for (Type t : getArgumentTypes())
    if (!isScalar(t) && !isa<NDArrayType>(t))
      return emitOpError("parameter type ") << t
             << " is not a scalar or !tc.ndarray";
  for (Type t : getResultTypes())
    if (!isScalar(t))
      return emitOpError("result type ") << t << " is not a scalar";
  if (getBody().empty()) return emitOpError("must have a body");
  Block &entry = getBody().front();
  if (entry.getNumArguments() != getArgumentTypes().size())
    return emitOpError("entry block must have ")
           << getArgumentTypes().size() << " arguments";
  for (auto [arg, t] : llvm::zip(entry.getArguments(), getArgumentTypes()))
    if (arg.getType() != t)
      return emitOpError("entry block argument type mismatch");
  return success();
}

LogicalResult ReturnOp::verify() {
  auto kernel = dyn_cast<KernelOp>((*this)->getParentOp());
  if (!kernel) {
    if (!getOperands().empty())
      return emitOpError("returns values from a task");
    return success();
  }
  ArrayRef<Type> results = kernel.getResultTypes();
  if (getOperands().size() != results.size())
    return emitOpError("returns ") << getOperands().size()
           << " values but the kernel has " << results.size() << " results";
  for (auto [v, t] : llvm::zip(getOperands(), results))
    if (v.getType() != t)
      return emitOpError("type ") << v.getType()
             << " does not match the kernel result type " << t;
  return success();
}

//===----------------------------------------------------------------------===//
// Tasks
//===----------------------------------------------------------------------===//

LogicalResult TaskOp::verifyRegions() {
  Block &entry = getBody().front();
  if (entry.getNumArguments() < 2 ||
      !entry.getArgument(0).getType().isInteger(64) ||
      !entry.getArgument(1).getType().isInteger(64))
    return emitOpError(
        "entry block must start with the range (i64 begin, i64 end)");
  if (entry.empty() || !isa<ReturnOp>(entry.back()))
    return emitOpError("body must end with tc.return");
  return success();
}

static LogicalResult verifyLimitRegion(Operation *op, Region &limit);

LogicalResult OnDeviceOp::verify() {
  Operation *p = (*this)->getParentOp();
  while (p && !isa<KernelOp, TaskOp>(p)) {
    if (isa<ParallelForOp, StructForOp>(p))
      return emitOpError("is host code: not inside a parallel loop");
    p = p->getParentOp();
  }
  if (!p || !isa<KernelOp>(p))
    return emitOpError("is host code: it must be in a tc.kernel");
  return success();
}

LogicalResult LaunchOp::verifyRegions() {
  return verifyLimitRegion(*this, getLimit());
}

Value LaunchOp::getLimitValue() {
  if (getLimit().empty())
    return {};
  auto y = dyn_cast<YieldOp>(getLimit().front().getTerminator());
  return y && y.getValues().size() == 1 ? y.getValues()[0] : Value();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto task = tables.lookupNearestSymbolFrom<TaskOp>(*this, getTaskAttr());
  if (!task)
    return emitOpError("references unknown task ") << getTaskAttr();
  auto captures = task.getCaptures();
  if (captures.size() != getCaptures().size())
    return emitOpError("passes ")
           << getCaptures().size() << " values to task " << getTaskAttr()
           << ", which captures " << captures.size();
  for (auto [i, v, a] : llvm::enumerate(getCaptures(), captures))
    if (v.getType() != a.getType())
      return emitOpError("value ")
             << i << " has type " << v.getType() << " but task "
             << getTaskAttr() << " expects " << a.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

static LogicalResult verifyLoopBody(Operation *op, Region &body, unsigned rank,
                                    Type ivType) {
  if (body.empty()) return op->emitOpError("must have a body");
  Block &entry = body.front();
  if (entry.getNumArguments() != rank)
    return op->emitOpError("expects ") << rank << " induction variables, got "
                                       << entry.getNumArguments();
  for (BlockArgument a : entry.getArguments())
    if (a.getType() != ivType)
      return op->emitOpError("induction variables must have type ") << ivType;
  for (Block &b : body) {
    if (b.empty() || !b.back().hasTrait<OpTrait::IsTerminator>())
      return op->emitOpError("every block of the body needs a terminator");
  }
  WalkResult w = body.walk([&](Operation *inner) {
    if (isa<ParallelForOp, StructForOp>(inner)) {
      inner->emitOpError("parallel loops cannot be nested; inner loops are serial");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(w.wasInterrupted());
}

static LogicalResult verifyLoopConfig(Operation *op, std::optional<uint32_t> par,
                                      std::optional<uint32_t> bd,
                                      std::optional<uint64_t> grain) {
  if (par && int32_t(*par) <= 0)
    return op->emitOpError("'parallelize' must be positive");
  if (bd && int32_t(*bd) <= 0)
    return op->emitOpError("'block_dim' must be positive");
  if (grain && int64_t(*grain) < 0)
    return op->emitOpError("'grain' must not be negative");
  return success();
}

void ParallelForOp::build(OpBuilder &b, OperationState &st, ValueRange lbs,
                          ValueRange ubs) {
  st.addOperands(lbs);
  st.addOperands(ubs);
  st.addAttribute(getOperandSegmentSizesAttrName(st.name),
                  b.getDenseI32ArrayAttr({int32_t(lbs.size()), int32_t(ubs.size())}));
  Region *r = st.addRegion();
  Block *entry = new Block();
  r->push_back(entry);
  for (Value v : lbs) entry->addArgument(v.getType(), st.location);
  st.addRegion(); // limit: none
}

Value ParallelForOp::getLimitValue() {
  if (getLimit().empty())
    return {};
  auto y = dyn_cast<YieldOp>(getLimit().front().getTerminator());
  return y && y.getValues().size() == 1 ? y.getValues()[0] : Value();
}

Block *ParallelForOp::createLimitBlock() {
  assert(getLimit().empty() && "the loop has a limit already");
  Block *b = new Block();
  getLimit().push_back(b);
  return b;
}

ParallelForOp ParallelForOp::createSerialUnit(OpBuilder &b, Location loc) {
  Value c0 = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  Value c1 = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  auto loop = ParallelForOp::create(b, loc, ValueRange{c0}, ValueRange{c1});
  loop.setSerialize(true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&loop.getBody().front());
  YieldOp::create(b, loc);
  return loop;
}

/// A loop's or a launch's `limit` region, when it has one: one block without
/// arguments, ending with tc.yield (whose verifier checks the value), that
/// writes no memory.
static LogicalResult verifyLimitRegion(Operation *op, Region &limit) {
  // Whether `mem` writes memory. An ordered (atomic) load, as the lowering
  // of a launch's limit reads a count, reports a write to no particular
  // address beside its read of one: the synchronisation it takes part in,
  // not a store.
  auto writes = [](MemoryEffectOpInterface mem) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    mem.getEffects(effects);
    bool readsAddress = llvm::any_of(effects, [](auto &e) {
      return isa<MemoryEffects::Read>(e.getEffect()) && e.getValue();
    });
    return llvm::any_of(effects, [&](auto &e) {
      return isa<MemoryEffects::Write>(e.getEffect()) &&
             (e.getValue() || !readsAddress);
    });
  };
  if (limit.empty())
    return success();
  if (!limit.hasOneBlock() || limit.front().getNumArguments())
    return op->emitOpError("'limit' must be one block without arguments");
  Block &lb = limit.front();
  if (lb.empty() || !isa<YieldOp>(lb.back()))
    return op->emitOpError("'limit' must end with tc.yield");
  WalkResult w = limit.walk([&](Operation *inner) {
    if (isa<YieldOp>(inner))
      return WalkResult::advance();
    auto mem = dyn_cast<MemoryEffectOpInterface>(inner);
    if ((mem && writes(mem)) ||
        (!mem && !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())) {
      inner->emitOpError("in a parallel loop's 'limit' may not write memory");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(w.wasInterrupted());
}

LogicalResult ParallelForOp::verifyRegions() {
  if (getLowerBounds().empty())
    return emitOpError("needs at least one dimension");
  if (getLowerBounds().size() != getUpperBounds().size())
    return emitOpError("has ") << getLowerBounds().size() << " lower and "
                               << getUpperBounds().size() << " upper bounds";
  Type t = getLowerBounds()[0].getType();
  if (!t.isSignlessInteger(32) && !t.isSignlessInteger(64))
    return emitOpError("bounds must be i32 or i64");
  for (Value v : llvm::concat<Value>(getLowerBounds(), getUpperBounds()))
    if (v.getType() != t)
      return emitOpError("all bounds must have the same type");
  if (failed(verifyLoopConfig(*this, getParallelize(), getBlockDim(), getGrain())))
    return failure();
  if (failed(verifyLimitRegion(*this, getLimit())))
    return failure();
  return verifyLoopBody(*this, getBody(), getRank(), t);
}

LogicalResult YieldOp::verify() {
  if (auto launch = dyn_cast<LaunchOp>((*this)->getParentOp())) {
    if (getValues().size() != 1 || !getValues()[0].getType().isInteger(64))
      return emitOpError("of a launch's 'limit' must yield one i64");
    return success();
  }
  auto pf = dyn_cast<ParallelForOp>((*this)->getParentOp());
  if (pf && (*this)->getParentRegion() == &pf.getLimit()) {
    Type t =
        pf.getLowerBounds().empty() ? Type() : pf.getLowerBounds()[0].getType();
    if (getValues().size() != 1 || getValues()[0].getType() != t)
      return emitOpError("of a 'limit' must yield one value of the loop's "
                         "index type ")
             << t;
    return success();
  }
  if (!getValues().empty())
    return emitOpError("ends a loop's iteration: it yields no values");
  return success();
}

// (%i, %j) = (%a, %b) to (%c, %d) [: i64] [attributes {...}] { ... }
ParseResult ParallelForOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<OpAsmParser::UnresolvedOperand> lbs, ubs;
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseEqual() ||
      parser.parseOperandList(lbs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("to") ||
      parser.parseOperandList(ubs, OpAsmParser::Delimiter::Paren))
    return failure();
  Type t = parser.getBuilder().getI32Type();
  if (succeeded(parser.parseOptionalColon()) && parser.parseType(t))
    return failure();
  if (ivs.size() != lbs.size() || lbs.size() != ubs.size())
    return parser.emitError(parser.getNameLoc(),
                            "induction variables and bounds differ in number");
  for (auto &iv : ivs) iv.type = t;
  if (parser.resolveOperands(lbs, t, result.operands) ||
      parser.resolveOperands(ubs, t, result.operands))
    return failure();
  result.addAttribute("operandSegmentSizes",
                      parser.getBuilder().getDenseI32ArrayAttr(
                          {int32_t(lbs.size()), int32_t(ubs.size())}));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes)) return failure();
  Region *body = result.addRegion();
  Region *limit = result.addRegion();
  if (succeeded(parser.parseOptionalKeyword("limit")) &&
      parser.parseRegion(*limit, /*arguments=*/{}))
    return failure();
  return parser.parseRegion(*body, ivs);
}

static void printValues(OpAsmPrinter &p, ValueRange vs) {
  p << "(";
  llvm::interleaveComma(vs, p, [&](Value v) { p.printOperand(v); });
  p << ")";
}

void ParallelForOp::print(OpAsmPrinter &p) {
  p << " ";
  printValues(p, getInductionVars());
  p << " = ";
  printValues(p, getLowerBounds());
  p << " to ";
  printValues(p, getUpperBounds());
  Type t = getLowerBounds()[0].getType();
  if (!t.isSignlessInteger(32)) p << " : " << t;
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {"operandSegmentSizes"});
  if (!getLimit().empty()) {
    p << " limit ";
    p.printRegion(getLimit(), /*printEntryBlockArgs=*/false,
                  /*printBlockTerminators=*/true);
  }
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

// @target (%i, %j) [attributes {...}] { ... }
ParseResult StructForOp::parse(OpAsmParser &parser, OperationState &result) {
  FlatSymbolRefAttr target;
  SmallVector<OpAsmParser::Argument> ivs;
  if (parser.parseAttribute(target, "target", result.attributes) ||
      parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (auto &iv : ivs) iv.type = parser.getBuilder().getI32Type();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, ivs);
}

void StructForOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printAttributeWithoutType(getTargetAttr());
  p << " ";
  printValues(p, getInductionVars());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"target"});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

LogicalResult StructForOp::verifyRegions() {
  if (getBody().empty()) return emitOpError("must have a body");
  if (failed(verifyLoopConfig(*this, getParallelize(), getBlockDim(), getGrain())))
    return failure();
  return verifyLoopBody(*this, getBody(), getBody().front().getNumArguments(),
                        IntegerType::get(getContext(), 32));
}

LogicalResult StructForOp::verifySymbolUses(SymbolTableCollection &tables) {
  Operation *target = snode::lookupPlace(*this, getTarget(), &tables);
  if (!target)
    target = snode::lookupNode(*this, getTarget(), &tables);
  if (!target)
    return emitOpError("references unknown field or SNode '") << getTarget() << "'";
  unsigned rank = snode::getIndexRank(target);
  if (rank == 0)
    return emitOpError("cannot iterate over the 0-D field '") << getTarget() << "'";
  if (getBody().front().getNumArguments() != rank)
    return emitOpError("expects ") << rank << " induction variables for '"
           << getTarget() << "', got " << getBody().front().getNumArguments();
  return success();
}

// (%t0, %t1) to (10, %n) [attributes {...}] { ... }
ParseResult BlockForOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<int64_t> extents;
  SmallVector<OpAsmParser::UnresolvedOperand> dynamic;
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("to") ||
      parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            OpAsmParser::UnresolvedOperand v;
            OptionalParseResult r = parser.parseOptionalOperand(v);
            if (r.has_value()) {
              if (failed(*r))
                return failure();
              dynamic.push_back(v);
              extents.push_back(ShapedType::kDynamic);
              return success();
            }
            return parser.parseInteger(extents.emplace_back());
          }))
    return failure();
  if (ivs.size() != extents.size())
    return parser.emitError(parser.getNameLoc(),
                            "induction variables and extents differ in number");
  Type i32 = parser.getBuilder().getI32Type();
  if (parser.resolveOperands(dynamic, i32, result.operands))
    return failure();
  result.addAttribute("extents",
                      parser.getBuilder().getDenseI64ArrayAttr(extents));
  for (auto &iv : ivs)
    iv.type = i32;
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, ivs);
}

void BlockForOp::print(OpAsmPrinter &p) {
  p << " ";
  printValues(p, getInductionVars());
  p << " to (";
  auto dynamic = getDynamicExtents().begin();
  llvm::interleaveComma(getExtents(), p, [&](int64_t e) {
    if (ShapedType::isDynamic(e))
      p << *dynamic++;
    else
      p << e;
  });
  p << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"extents"});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

SmallVector<Value> BlockForOp::getExtentValues(OpBuilder &b) {
  SmallVector<Value> values;
  auto dynamic = getDynamicExtents().begin();
  for (int64_t e : getExtents())
    values.push_back(ShapedType::isDynamic(e)
                         ? *dynamic++
                         : Value(arith::ConstantIntOp::create(
                               b, getLoc(), b.getI32Type(), e)));
  return values;
}

/// The op that runs the iterations `op` is part of: a parallel loop, or
/// the task outlined from one; null outside them.
static Operation *enclosingParallelIteration(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<ParallelForOp, StructForOp, TaskOp>(p))
      return p;
  return nullptr;
}

LogicalResult BlockForOp::verifyRegions() {
  if (getExtents().empty())
    return emitOpError("needs at least one dimension");
  for (int64_t e : getExtents())
    if (!ShapedType::isDynamic(e) &&
        (e <= 0 || e > std::numeric_limits<int32_t>::max()))
      return emitOpError("extents must be in [1, 2^31 - 1], got ") << e;
  if (static_cast<size_t>(llvm::count_if(
          getExtents(), ShapedType::isDynamic)) != getDynamicExtents().size())
    return emitOpError("expects one value per dynamic extent");
  if (failed(verifyLoopBody(*this, getBody(), getExtents().size(),
                            IntegerType::get(getContext(), 32))))
    return failure();
  if (!isa<YieldOp>(getBody().front().back()))
    return emitOpError("body must end with tc.yield");
  if (!llvm::hasSingleElement(getBody()))
    return emitOpError("body must be one block");
  if (!enclosingParallelIteration(*this))
    return emitOpError("must be inside a parallel loop or a task");
  for (Operation *p = (*this)->getParentOp(); p; p = p->getParentOp())
    if (isa<BlockForOp>(p))
      return emitOpError("cannot be nested in another tc.block_for");
  return success();
}

LogicalResult AssumeInRangeOp::verify() {
  if (getLoAttr().getInt() >= getHiAttr().getInt())
    return emitOpError("needs lo < hi, got [")
           << getLoAttr().getInt() << ", " << getHiAttr().getInt() << ")";
  return success();
}

LogicalResult BlockBufferOp::verify() {
  MemRefType t = getBuffer().getType();
  if (!t.hasStaticShape() || !t.getLayout().isIdentity() || t.getMemorySpace())
    return emitOpError("needs a static shape, the identity layout and the "
                       "default memory space");
  if (!enclosingParallelIteration(*this))
    return emitOpError("must be inside a parallel loop or a task");
  return success();
}

//===----------------------------------------------------------------------===//
// Field access
//===----------------------------------------------------------------------===//

static LogicalResult verifyFieldAccess(Operation *op, StringRef field,
                                       ValueRange indices, int64_t comp,
                                       Type valueType,
                                       SymbolTableCollection &tables,
                                       bool word = false) {
  snode::PlaceOp place = snode::lookupPlace(op, field, &tables);
  if (!place) return op->emitOpError("references unknown field '") << field << "'";
  unsigned rank = snode::getIndexRank(place);
  if (indices.size() != rank)
    return op->emitOpError("field '") << field << "' has " << rank
           << " indices, got " << indices.size();
  if (comp < 0 || uint64_t(comp) >= place.getNumComponents())
    return op->emitOpError("component ") << comp << " out of range: field '"
           << field << "' has " << place.getNumComponents() << " components";
  Type expected = place.getComponentType(comp);
  if (word) {
    // tc.word: the whole container word of the element.
    expected = snode::getWordType(place);
    if (!expected)
      return op->emitOpError("'")
             << kWholeWordAttrName << "' on field '" << field
             << "', which is not in a bit_struct or "
                "bit_array";
  }
  if (valueType != expected)
    return op->emitOpError("type ") << valueType << " does not match component "
           << comp << " of field '" << field << "' (" << expected << ")";
  return success();
}

static LogicalResult verifyAtomicKind(Operation *op, AtomicKind kind, Type t) {
  if (isa<FloatType>(t) &&
      (kind == AtomicKind::and_ || kind == AtomicKind::or_ || kind == AtomicKind::xor_))
    return op->emitOpError("'") << stringifyAtomicKind(kind)
                                << "' needs an integer type, got " << t;
  return success();
}

LogicalResult LoadOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyFieldAccess(*this, getField(), getIndices(), getComp(),
                           getType(), tables,
                           (*this)->hasAttr(kWholeWordAttrName));
}
LogicalResult StoreOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyFieldAccess(*this, getField(), getIndices(), getComp(),
                           getValue().getType(), tables,
                           (*this)->hasAttr(kWholeWordAttrName));
}
LogicalResult AtomicRMWOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyFieldAccess(*this, getField(), getIndices(), getComp(),
                           getValue().getType(), tables);
}
LogicalResult AtomicRMWOp::verify() {
  return verifyAtomicKind(*this, getKind(), getValue().getType());
}

int32_t tic::tc::getNextScratchSlot(Operation *module) {
  int32_t next = 0;
  module->walk([&](ScratchOp op) {
    next = std::max<int32_t>(next, int32_t(op.getSlot()) + 1);
  });
  return next;
}

LogicalResult ScratchOp::verify() {
  int64_t slot = getSlotAttr().getValue().getSExtValue();
  if (slot < 0)
    return emitOpError("slot must be non-negative, got ") << slot;
  auto t = getBuffer().getType();
  if (!t.isDynamicDim(0) || !t.getLayout().isIdentity())
    return emitOpError("result must be a memref<?xT> with the identity "
                       "layout, got ")
           << t;
  return success();
}

/// The node of a tc.is_active / activate / deactivate: a container whose
/// cell indices the op passes; activate and deactivate need one that can be
/// inactive.
static LogicalResult verifyCellOp(Operation *op, StringRef node,
                                  ValueRange indices, bool needsSparse,
                                  SymbolTableCollection &tables) {
  auto c = snode::lookupNode(op, node, &tables);
  if (!c)
    return op->emitOpError("references unknown SNode '") << node << "'";
  unsigned rank = snode::getIndexRank(c);
  if (indices.size() != rank)
    return op->emitOpError("SNode '")
           << node << "' has " << rank << " cell indices, got "
           << indices.size();
  if (needsSparse && snode::isAlwaysActive(c.getKind()))
    return op->emitOpError("needs a sparse SNode, but '")
           << node << "' is " << snode::stringifySNodeKind(c.getKind());
  return success();
}
LogicalResult IsActiveOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyCellOp(*this, getNode(), getIndices(), false, tables);
}
LogicalResult ActivateOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyCellOp(*this, getNode(), getIndices(), true, tables);
}
LogicalResult DeactivateOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyCellOp(*this, getNode(), getIndices(), true, tables);
}

/// Container `node` of kind `kind`, or null after an error at `op`.
static snode::SNodeContainerOpInterface
nodeOfKind(Operation *op, StringRef node, snode::SNodeKind kind,
           SymbolTableCollection &tables) {
  auto c = snode::lookupNode(op, node, &tables);
  if (!c) {
    op->emitOpError("references unknown SNode '") << node << "'";
    return {};
  }
  if (c.getKind() != kind) {
    op->emitOpError("needs a ")
        << snode::stringifySNodeKind(kind) << " SNode, but '" << node << "' is "
        << snode::stringifySNodeKind(c.getKind());
    return {};
  }
  return c;
}

/// The node of a tc.append / length: a dynamic node, and the indices of
/// one of its lists (all its cell indices but the last, its own axis).
static LogicalResult verifyListOp(Operation *op, StringRef node,
                                  ValueRange indices,
                                  SymbolTableCollection &tables) {
  auto c = nodeOfKind(op, node, snode::SNodeKind::Dynamic, tables);
  if (!c)
    return failure();
  unsigned rank = snode::getIndexRank(c);
  if (indices.size() + 1 != rank)
    return op->emitOpError("a list of SNode '")
           << node << "' has " << rank - 1 << " indices, got "
           << indices.size();
  return success();
}
/// The node of a tc.hash_entries / hash_entry: a hash node (and, for an
/// entry, one index per key slot of it: per axis, then the parent's cell
/// below another node).
static LogicalResult verifyHashOp(Operation *op, StringRef node,
                                  std::optional<size_t> numIndices,
                                  SymbolTableCollection &tables) {
  auto c = nodeOfKind(op, node, snode::SNodeKind::Hash, tables);
  if (!c)
    return failure();
  if (numIndices && *numIndices != snode::getHashKeySlots(c))
    return op->emitOpError("hash SNode '")
           << node << "' has " << snode::getHashKeySlots(c)
           << " key slots (its axes, and its parent's cell below a node), got "
           << *numIndices << " indices";
  return success();
}
LogicalResult HashEntriesOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyHashOp(*this, getNode(), std::nullopt, tables);
}
LogicalResult HashEntryOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyHashOp(*this, getNode(), getIndices().size(), tables);
}
LogicalResult AppendOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyListOp(*this, getNode(), getIndices(), tables);
}
LogicalResult LengthOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyListOp(*this, getNode(), getIndices(), tables);
}

static LogicalResult verifyNDIndices(Operation *op, NDArrayType t, ValueRange idx) {
  if (idx.size() != t.getRank())
    return op->emitOpError("ndarray of rank ") << t.getRank() << " needs "
           << t.getRank() << " indices, got " << idx.size();
  return success();
}
LogicalResult NDArrayLoadOp::verify() {
  return verifyNDIndices(*this, getArray().getType(), getIndices());
}
LogicalResult NDArrayStoreOp::verify() {
  return verifyNDIndices(*this, getArray().getType(), getIndices());
}
LogicalResult NDArrayAtomicRMWOp::verify() {
  if (failed(verifyNDIndices(*this, getArray().getType(), getIndices())))
    return failure();
  return verifyAtomicKind(*this, getKind(), getValue().getType());
}
LogicalResult NDArrayDimOp::verify() {
  if (getAxis() < 0 || uint64_t(getAxis()) >= getArray().getType().getRank())
    return emitOpError("axis ") << getAxis() << " out of range for rank "
                                << getArray().getType().getRank();
  return success();
}

LogicalResult PrintOp::verify() {
  for (Value v : getArgs())
    if (v.getType().isBF16())
      return emitOpError("bf16 values cannot be printed; convert them first");
  return success();
}

LogicalResult FieldCopyOp::verify() {
  if (getBytes() <= 0)
    return emitOpError("copies ") << getBytes() << " bytes; expected > 0";
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("is host code: it must be inside a tc.kernel");
  return success();
}

LogicalResult FieldFillOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("is host code: it must be inside a tc.kernel");
  return success();
}

#define GET_OP_CLASSES
#include "tic/Dialect/TC/TCOps.cpp.inc"

std::pair<Value, int64_t> tic::tc::splitConstantOffset(Value v) {
  APInt c;
  if (auto add = v.getDefiningOp<arith::AddIOp>()) {
    if (matchPattern(add.getRhs(), m_ConstantInt(&c)))
      return {add.getLhs(), c.getSExtValue()};
    if (matchPattern(add.getLhs(), m_ConstantInt(&c)))
      return {add.getRhs(), c.getSExtValue()};
  }
  if (auto sub = v.getDefiningOp<arith::SubIOp>())
    if (matchPattern(sub.getRhs(), m_ConstantInt(&c)))
      return {sub.getLhs(), -c.getSExtValue()};
  return {v, 0};
}

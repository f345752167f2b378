//===- QuantAccess.cpp - memory ops on quantized places -------------------===//
//
// snode.load / store / atomic_rmw of a field placed in a bit_struct or a
// bit_array (docs/quant.md): the container word is loaded, stored or
// compare-and-swapped as a whole, and the component's bits are extracted,
// encoded and inserted with bits ops (tic-lower-bits lowers them to arith).
//
//   load        word = load iW; decode(extract(word))
//   store       the whole word: one plain store of the encoded value;
//               `exclusive` (no other thread writes the word): a plain load,
//               insert, store; otherwise a compare-and-swap loop inserting
//               it, since other threads may write the word's other fields
//   store_fields  the same for several fields of one word at once
//   shared exponents: a component decodes with its group's exponent; a
//               store or atomic re-encodes the whole group (the siblings
//               decoded from the word being replaced), inside the loop
//   atomic_rmw  add / sub on an int or fixed field in the top bits of its
//               word (no lane): one atomicrmw add of the encoded delta
//               shifted into place (a carry leaves the word); otherwise a
//               compare-and-swap loop: fixed add / sub add round(delta / s)
//               to the digits (spec section 7), the other cases decode,
//               compute in the compute type and encode
//
// Every case only changes the bits of its own field. The loops are
// scf.while ops, so that the code stays structured for every target.
//
//===----------------------------------------------------------------------===//
#include "SNodePattern.h"

#include "tic/Conversion/SNodeToLLVM.h"
#include "tic/Dialect/Bits/BitsDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tic;
using namespace tic::snode;
using namespace tic::snode::lowering;

namespace {

/// One quantized component: its encoding and where its bits are.
struct QuantField {
  bits::QuantAttr q;
  Type word;      ///< iW
  Type compute;   ///< the component's type
  int64_t offset; ///< first bit (of lane 0)
  unsigned width;
  /// The lane's shift (offset + lane * width, in the word type) when the
  /// field is in a bit_array, else null: the field starts at `offset`.
  Value laneShift;
  /// A component sharing its bit_struct's exponent: the exponent's first
  /// bit (-1: none); `width` is then its digits' (`frac`).
  int64_t expOffset = -1;
  bool shared() const { return expOffset >= 0; }

  int64_t wordBits() const { return word.getIntOrFloatBitWidth(); }
};

Value iconst(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, t, v);
}

/// An integer zero-extended or truncated to `to`.
Value resizeInt(OpBuilder &b, Location loc, Value v, Type to) {
  unsigned from = v.getType().getIntOrFloatBitWidth(),
           bits = to.getIntOrFloatBitWidth();
  if (from == bits)
    return v;
  return from > bits ? Value(arith::TruncIOp::create(b, loc, to, v))
                     : Value(arith::ExtUIOp::create(b, loc, to, v));
}

/// The integer type the digits of a field are handled in.
Type digitsType(OpBuilder &b, const QuantField &f) {
  return b.getIntegerType(f.width > 32 ? 64 : 32);
}

QuantField fieldOf(OpBuilder &b, Location loc, const PlaceLayout &p,
                   int64_t comp, Type compute, Value lane) {
  QuantField f;
  f.q = p.quant[comp];
  f.word = b.getIntegerType(p.wordBits);
  f.compute = compute;
  f.offset = p.bitOffsets[comp];
  f.width = f.q.getWidth();
  if (p.exponentOffset >= 0) {
    f.expOffset = p.exponentOffset;
    f.width = f.q.getFrac();
  }
  if (lane) {
    Value l = lane;
    if (f.wordBits() != 32)
      l = f.wordBits() > 32
              ? Value(arith::ExtUIOp::create(b, loc, f.word, lane))
              : Value(arith::TruncIOp::create(b, loc, f.word, lane));
    Value offset = iconst(b, loc, f.word, f.offset);
    f.laneShift = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, l, iconst(b, loc, f.word, f.width)));
  }
  return f;
}

/// The field's `width` bits at `at` within the field (0 = its first bit),
/// zero- or sign-extended to `to`.
Value extractBits(OpBuilder &b, Location loc, const QuantField &f, Value word,
                  int64_t at, int64_t width, bool isSigned, Type to) {
  int64_t offset = f.offset + at;
  if (f.laneShift) {
    word = arith::ShRUIOp::create(b, loc, word, f.laneShift);
    offset = at;
  }
  return bits::ExtractOp::create(b, loc, to, word, offset, width, isSigned);
}

/// `word` with the field set to the low `width` bits of `value`.
Value insertField(OpBuilder &b, Location loc, const QuantField &f, Value value,
                  Value word) {
  if (!f.laneShift)
    return bits::InsertOp::create(b, loc, word.getType(), value, word,
                                  uint64_t(f.offset), uint64_t(f.width));
  // A lane: the mask and the value shifted by the lane's offset.
  Value v = value;
  unsigned vb = v.getType().getIntOrFloatBitWidth();
  if (vb < unsigned(f.wordBits()))
    v = arith::ExtUIOp::create(b, loc, f.word, v);
  else if (vb > unsigned(f.wordBits()))
    v = arith::TruncIOp::create(b, loc, f.word, v);
  uint64_t ones = f.width >= 64 ? ~uint64_t(0) : (uint64_t(1) << f.width) - 1;
  Value mask = arith::ShLIOp::create(
      b, loc, iconst(b, loc, f.word, int64_t(ones)), f.laneShift);
  Value keep = arith::XOrIOp::create(b, loc, mask, iconst(b, loc, f.word, -1));
  Value field = arith::AndIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, v, f.laneShift), mask);
  return arith::OrIOp::create(b, loc, arith::AndIOp::create(b, loc, word, keep),
                              field);
}

/// The fixed point's digits of a real (rounded, wrapped to its width).
Value encodeFixedDigits(OpBuilder &b, Location loc, const QuantField &f,
                        Value x) {
  return bits::EncodeFixedOp::create(b, loc, digitsType(b, f), x,
                                     APFloat(f.q.getScaleValue()), f.width,
                                     f.q.getIsSigned());
}

Value decodeFixedDigits(OpBuilder &b, Location loc, const QuantField &f,
                        Value digits) {
  return bits::DecodeFixedOp::create(b, loc, f.compute, digits,
                                     APFloat(f.q.getScaleValue()),
                                     f.q.getIsSigned());
}

/// The value of the field in `word`, in the compute type.
Value decode(OpBuilder &b, Location loc, const QuantField &f, Value word) {
  bool s = f.q.getIsSigned();
  if (f.shared()) {
    Type i32 = b.getI32Type();
    Value digits = extractBits(b, loc, f, word, 0, f.width, false, i32);
    Value exp = bits::ExtractOp::create(b, loc, i32, word, f.expOffset,
                                        f.q.getExp(), false);
    return bits::DecodeSharedOp::create(b, loc, b.getF32Type(), exp, digits,
                                        f.q.getExp(), f.q.getFrac(), s);
  }
  switch (f.q.getKind()) {
  case bits::QuantKind::Int:
    return extractBits(b, loc, f, word, 0, f.width, s, f.compute);
  case bits::QuantKind::Fixed:
    return decodeFixedDigits(
        b, loc, f,
        extractBits(b, loc, f, word, 0, f.width, s, digitsType(b, f)));
  case bits::QuantKind::Float: {
    Type i32 = b.getI32Type();
    unsigned frac = f.q.getFrac();
    Value digits = extractBits(b, loc, f, word, 0, frac, false, i32);
    Value exp = extractBits(b, loc, f, word, frac, f.q.getExp(), false, i32);
    return bits::DecodeFloatOp::create(b, loc, b.getF32Type(), exp, digits,
                                       f.q.getExp(), frac, s);
  }
  }
  llvm_unreachable("quantized kind");
}

/// The field's bits (in their low `width` bits) for the compute value `v`.
Value encode(OpBuilder &b, Location loc, const QuantField &f, Value v) {
  switch (f.q.getKind()) {
  case bits::QuantKind::Int:
    return v; // the low bits: integers wrap
  case bits::QuantKind::Fixed:
    return encodeFixedDigits(b, loc, f, v);
  case bits::QuantKind::Float: {
    Type i32 = b.getI32Type();
    auto e = bits::EncodeFloatOp::create(b, loc, i32, i32, v, f.q.getExp(),
                                         f.q.getFrac(), f.q.getIsSigned());
    // Digits in the low `frac` bits, the exponent above them.
    Value exp = arith::ShLIOp::create(b, loc, e.getExponent(),
                                      iconst(b, loc, i32, f.q.getFrac()));
    return arith::OrIOp::create(b, loc, exp, e.getDigits());
  }
  }
  llvm_unreachable("quantized kind");
}

/// A compare-and-swap loop on the word at `addr`: `update` computes the new
/// word from the current one. Returns the word the successful exchange
/// replaced.
Value casLoop(OpBuilder &b, Location loc, const QuantField &f, Value addr,
              function_ref<Value(OpBuilder &, Value)> update) {
  unsigned align = unsigned(f.wordBits() / 8);
  Value first = LLVM::LoadOp::create(b, loc, f.word, addr, align,
                                     /*isVolatile=*/false,
                                     /*isNonTemporal=*/false,
                                     /*isInvariant=*/false,
                                     /*isInvariantGroup=*/false,
                                     LLVM::AtomicOrdering::monotonic);
  auto loop =
      scf::WhileOp::create(b, loc, TypeRange{f.word}, ValueRange{first});
  {
    Block *before = b.createBlock(&loop.getBefore(), {}, {f.word}, {loc});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(before);
    Value old = before->getArgument(0);
    Value next = update(b, old);
    auto cas = LLVM::AtomicCmpXchgOp::create(b, loc, addr, old, next,
                                             LLVM::AtomicOrdering::monotonic,
                                             LLVM::AtomicOrdering::monotonic);
    cas.setAlignment(align);
    Value seen = LLVM::ExtractValueOp::create(b, loc, cas, 0);
    Value ok = LLVM::ExtractValueOp::create(b, loc, cas, 1);
    Value retry =
        arith::XOrIOp::create(b, loc, ok, iconst(b, loc, b.getI1Type(), 1));
    scf::ConditionOp::create(b, loc, retry, ValueRange{seen});
  }
  {
    Block *after = b.createBlock(&loop.getAfter(), {}, {f.word}, {loc});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(after);
    scf::YieldOp::create(b, loc, after->getArgument(0));
  }
  b.setInsertionPointAfter(loop);
  return loop.getResult(0);
}

/// `cur op v` in the compute type.
Value combine(OpBuilder &b, Location loc, AtomicKind kind, const QuantField &f,
              Value cur, Value v) {
  bool fl = isa<FloatType>(f.compute), s = f.q.getIsSigned();
  switch (kind) {
  case AtomicKind::add:
    return fl ? Value(arith::AddFOp::create(b, loc, cur, v))
              : Value(arith::AddIOp::create(b, loc, cur, v));
  case AtomicKind::sub:
    return fl ? Value(arith::SubFOp::create(b, loc, cur, v))
              : Value(arith::SubIOp::create(b, loc, cur, v));
  case AtomicKind::min:
    return fl  ? Value(arith::MinNumFOp::create(b, loc, cur, v))
           : s ? Value(arith::MinSIOp::create(b, loc, cur, v))
               : Value(arith::MinUIOp::create(b, loc, cur, v));
  case AtomicKind::max:
    return fl  ? Value(arith::MaxNumFOp::create(b, loc, cur, v))
           : s ? Value(arith::MaxSIOp::create(b, loc, cur, v))
               : Value(arith::MaxUIOp::create(b, loc, cur, v));
  case AtomicKind::and_:
    return arith::AndIOp::create(b, loc, cur, v);
  case AtomicKind::or_:
    return arith::OrIOp::create(b, loc, cur, v);
  case AtomicKind::xor_:
    return arith::XOrIOp::create(b, loc, cur, v);
  }
  llvm_unreachable("atomic kind");
}

/// Base of the three patterns: matches quantized places only.
template <typename Op> struct QuantPattern : SNodePattern<Op> {
  QuantPattern(const TypeConverter &tc, MLIRContext *ctx,
               const SNodeLayout &layout, FieldAliasTags &tags)
      : SNodePattern<Op>(tc, ctx, layout, /*benefit=*/2), tags(tags) {}
  FieldAliasTags &tags;
  using OpAdaptor = typename SNodePattern<Op>::OpAdaptor;

  virtual void lower(ConversionPatternRewriter &b, Op op, OpAdaptor adaptor,
                     const QuantField &f, Value addr) const = 0;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const PlaceLayout *p = this->layout.lookupPlace(op.getField());
    if (!p || !p->isQuant())
      return rewriter.notifyMatchFailure(op, "not a quantized place");
    Location loc = op.getLoc();
    Type compute = p->components[op.getComp()];
    QuantField f =
        fieldOf(rewriter, loc, *p, op.getComp(), compute, adaptor.getLane());
    Value addr = byteOffset(rewriter, loc, adaptor.getCell(), p->offsetInCell);
    lower(rewriter, op, adaptor, f, addr);
    return success();
  }
};

/// Whether a lane of a bit_array is read on its own: 8 or 16 integer
/// (or fixed-point) bits aligned to their width, so that the lane is a
/// naturally aligned byte or half-word of the word in memory (every target
/// is little-endian).
bool isNarrowLane(const QuantField &f) {
  return f.laneShift && !f.shared() && (f.width == 8 || f.width == 16) &&
         f.offset % f.width == 0 && f.q.getKind() != bits::QuantKind::Float;
}

/// The lane of `f` (isNarrowLane) read with a load of its own width at its
/// byte in the word at `addr`: one sign- or zero-extending load, where
/// the word's load, shift and extension would take three or four
/// instructions, and consecutive lanes are consecutive bytes (an int8
/// matrix reads like one). Its value in the compute type.
Value loadNarrowLane(OpBuilder &b, Location loc, const QuantField &f,
                     Value addr, Value lane, Operation *&load) {
  Type i64 = b.getI64Type(), narrow = b.getIntegerType(f.width);
  Value first = iconst(b, loc, i64, f.offset / f.width);
  Value index = arith::AddIOp::create(
      b, loc, first, arith::ExtUIOp::create(b, loc, i64, lane));
  Value at = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), narrow, addr,
      ValueRange{index}, LLVM::GEPNoWrapFlags::inbounds);
  auto l = LLVM::LoadOp::create(b, loc, narrow, at, unsigned(f.width / 8));
  load = l;
  bool s = f.q.getIsSigned();
  Type to =
      f.q.getKind() == bits::QuantKind::Int ? f.compute : digitsType(b, f);
  // (`to` holds the field, as bits.extract's result must.)
  Value v = l;
  if (to.getIntOrFloatBitWidth() > f.width)
    v = s ? Value(arith::ExtSIOp::create(b, loc, to, v))
          : Value(arith::ExtUIOp::create(b, loc, to, v));
  if (f.q.getKind() == bits::QuantKind::Int)
    return v;
  return decodeFixedDigits(b, loc, f, v);
}

struct QuantLoadLowering : QuantPattern<LoadOp> {
  using QuantPattern::QuantPattern;
  void lower(ConversionPatternRewriter &b, LoadOp op, OpAdaptor adaptor,
             const QuantField &f, Value addr) const override {
    if (!op.getWholeWord() && isNarrowLane(f)) {
      Operation *load = nullptr;
      Value v =
          loadNarrowLane(b, op.getLoc(), f, addr, adaptor.getLane(), load);
      tags.tag(load, op, op.getField());
      b.replaceOp(op, v);
      return;
    }
    // A plain load: loads of one word CSE.
    auto word = LLVM::LoadOp::create(b, op.getLoc(), f.word, addr,
                                     unsigned(f.wordBits() / 8));
    tags.tag(word, op, op.getField());
    if (op.getWholeWord()) {
      b.replaceOp(op, resizeInt(b, op.getLoc(), word, op.getType()));
      return;
    }
    b.replaceOp(op, decode(b, op.getLoc(), f, word));
  }
};

/// Writes the word at `addr` as `update` makes it from the current one:
/// one plain store of update(0) when the new word does not depend on the
/// old (`covers`), a plain load / update / store when no other thread writes
/// the word (`exclusive`), else a compare-and-swap loop. Returns the plain
/// store or load to tag, if any.
SmallVector<Operation *>
writeWord(OpBuilder &b, Location loc, const QuantField &f0, bool covers,
          bool exclusive, Value addr,
          function_ref<Value(OpBuilder &, Value)> update) {
  unsigned align = unsigned(f0.wordBits() / 8);
  if (covers)
    return {LLVM::StoreOp::create(b, loc, update(b, iconst(b, loc, f0.word, 0)),
                                  addr, align)};
  if (exclusive) {
    auto old = LLVM::LoadOp::create(b, loc, f0.word, addr, align);
    return {old, LLVM::StoreOp::create(b, loc, update(b, old), addr, align)};
  }
  casLoop(b, loc, f0, addr, update);
  return {};
}

/// The bits [offset, offset + width) as a mask.
uint64_t maskOf(int64_t offset, int64_t width) {
  uint64_t ones = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  return ones << offset;
}

/// A shared exponent's group: every shared component of the bit_struct,
/// in place and component order.
SmallVector<QuantField> groupOf(OpBuilder &b, Location loc,
                                const SNodeLayout &layout,
                                const PlaceLayout &p) {
  SmallVector<QuantField> g;
  for (const PlaceLayout &q : layout.getPlaces())
    if (q.parent == p.parent && q.exponentOffset >= 0)
      for (unsigned c = 0; c < q.components.size(); ++c)
        g.push_back(fieldOf(b, loc, q, c, q.components[c], Value()));
  return g;
}

/// `word` with the shared-exponent group encoded from `values` (one per
/// component): the largest sets the exponent (docs/quant.md).
Value encodeGroup(OpBuilder &b, Location loc, ArrayRef<QuantField> group,
                  ArrayRef<Value> values, Value word) {
  const QuantField &f0 = group.front();
  Type i32 = b.getI32Type();
  auto enc = bits::EncodeSharedOp::create(
      b, loc, i32, SmallVector<Type>(values.size(), i32), values, f0.q.getExp(),
      f0.q.getFrac(), f0.q.getIsSigned());
  for (auto [f, d] : llvm::zip(group, enc.getDigits()))
    word = insertField(b, loc, f, d, word);
  return bits::InsertOp::create(b, loc, word.getType(), enc.getExponent(), word,
                                uint64_t(f0.expOffset),
                                uint64_t(f0.q.getExp()));
}

/// The group's values decoded from `word`, then `overrides` (by group
/// index) applied: what a store to some of them re-encodes.
SmallVector<Value> groupValues(OpBuilder &b, Location loc,
                               ArrayRef<QuantField> group,
                               const llvm::DenseMap<unsigned, Value> &overrides,
                               Value word) {
  SmallVector<Value> xs;
  for (auto [k, f] : llvm::enumerate(group)) {
    auto it = overrides.find(unsigned(k));
    xs.push_back(it != overrides.end() ? it->second : decode(b, loc, f, word));
  }
  return xs;
}

/// The index of `f` in its group.
unsigned indexIn(ArrayRef<QuantField> group, const QuantField &f) {
  for (auto [k, g] : llvm::enumerate(group))
    if (g.offset == f.offset)
      return unsigned(k);
  llvm_unreachable("component not in its group");
}

/// Writes `values` to `fields` of one word: the encoded bits of each, and
/// for components sharing an exponent their whole group re-encoded (the
/// siblings keep the values they decode to from the word being replaced).
SmallVector<Operation *>
writeFields(OpBuilder &b, Location loc, const SNodeLayout &layout,
            ArrayRef<const PlaceLayout *> places, ArrayRef<QuantField> fields,
            ArrayRef<Value> values, bool exclusive, Value addr) {
  const QuantField &f0 = fields.front();
  SmallVector<Value> bitsOf;
  SmallVector<QuantField> group;
  llvm::DenseMap<unsigned, Value> overrides;
  uint64_t covered = 0;
  bool lanes = false;
  for (auto [p, f, v] : llvm::zip(places, fields, values)) {
    lanes |= bool(f.laneShift);
    if (!f.shared()) {
      bitsOf.push_back(encode(b, loc, f, v));
      covered |= maskOf(f.offset, f.width);
      continue;
    }
    bitsOf.push_back(Value());
    if (group.empty())
      group = groupOf(b, loc, layout, *p);
    overrides[indexIn(group, f)] = v;
  }
  if (!group.empty() && overrides.size() == group.size()) {
    for (const QuantField &g : group)
      covered |= maskOf(g.offset, g.width);
    covered |= maskOf(group.front().expOffset, group.front().q.getExp());
  }
  bool covers = !lanes && covered == maskOf(0, f0.wordBits());
  return writeWord(b, loc, f0, covers, exclusive, addr,
                   [&](OpBuilder &ib, Value w) {
                     SmallVector<Value> xs;
                     if (!group.empty())
                       xs = groupValues(ib, loc, group, overrides, w);
                     for (auto [f, v] : llvm::zip(fields, bitsOf))
                       if (v)
                         w = insertField(ib, loc, f, v, w);
                     if (!group.empty())
                       w = encodeGroup(ib, loc, group, xs, w);
                     return w;
                   });
}

struct QuantStoreLowering : QuantPattern<StoreOp> {
  using QuantPattern::QuantPattern;
  void lower(ConversionPatternRewriter &b, StoreOp op, OpAdaptor adaptor,
             const QuantField &f, Value addr) const override {
    const PlaceLayout *p = layout.lookupPlace(op.getField());
    if (op.getWholeWord()) {
      // The container word, as given (one iteration's own word).
      auto st = LLVM::StoreOp::create(
          b, op.getLoc(), resizeInt(b, op.getLoc(), adaptor.getValue(), f.word),
          addr, unsigned(f.wordBits() / 8));
      tags.tag(st, op, op.getField());
      b.eraseOp(op);
      return;
    }
    for (Operation *mem :
         writeFields(b, op.getLoc(), layout, p, f, adaptor.getValue(),
                     op.getExclusive(), addr))
      tags.tag(mem, op, op.getField());
    b.eraseOp(op);
  }
};

/// Several components of one bit_struct word (tic-fuse-bit-stores).
struct StoreFieldsLowering : SNodePattern<StoreFieldsOp> {
  StoreFieldsLowering(const TypeConverter &tc, MLIRContext *ctx,
                      const SNodeLayout &layout, FieldAliasTags &tags)
      : SNodePattern<StoreFieldsOp>(tc, ctx, layout), tags(tags) {}
  FieldAliasTags &tags;
  LogicalResult matchAndRewrite(StoreFieldsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    SmallVector<QuantField> fields;
    SmallVector<const PlaceLayout *> places;
    for (auto [f, c] : llvm::zip(op.getFields(), op.getComps())) {
      const PlaceLayout *p =
          layout.lookupPlace(cast<FlatSymbolRefAttr>(f).getValue());
      if (!p || !p->isQuant())
        return b.notifyMatchFailure(op, "not a quantized place");
      places.push_back(p);
      fields.push_back(fieldOf(b, loc, *p, c, p->components[c], Value()));
    }
    SmallVector<Value> values(adaptor.getValues());
    Value addr =
        byteOffset(b, loc, adaptor.getCell(), places.front()->offsetInCell);
    // (One word: its fields share the word's alias scope.)
    StringRef field = cast<FlatSymbolRefAttr>(op.getFields()[0]).getValue();
    for (Operation *mem : writeFields(b, loc, layout, places, fields, values,
                                      op.getExclusive(), addr))
      tags.tag(mem, op, field);
    b.eraseOp(op);
    return success();
  }
};

struct QuantAtomicRMWLowering : QuantPattern<AtomicRMWOp> {
  using QuantPattern::QuantPattern;
  void lower(ConversionPatternRewriter &b, AtomicRMWOp op, OpAdaptor adaptor,
             const QuantField &f, Value addr) const override {
    Location loc = op.getLoc();
    AtomicKind kind = op.getKind();
    bool addSub = kind == AtomicKind::add || kind == AtomicKind::sub;
    bool integral = f.q.getKind() != bits::QuantKind::Float;
    Value v = adaptor.getValue();
    if (addSub && integral) {
      // The delta in digits: round(delta / s) for a fixed point.
      Value d = f.q.getKind() == bits::QuantKind::Fixed
                    ? encodeFixedDigits(b, loc, f, v)
                    : v;
      if (!f.laneShift && f.offset + f.width == f.wordBits()) {
        // The top field: a carry out of it leaves the word.
        Value w = d;
        unsigned db = d.getType().getIntOrFloatBitWidth();
        if (db < unsigned(f.wordBits()))
          w = arith::ExtUIOp::create(b, loc, f.word, w);
        else if (db > unsigned(f.wordBits()))
          w = arith::TruncIOp::create(b, loc, f.word, w);
        if (f.offset)
          w = arith::ShLIOp::create(b, loc, w,
                                    iconst(b, loc, f.word, f.offset));
        auto rmw = LLVM::AtomicRMWOp::create(
            b, loc,
            kind == AtomicKind::add ? LLVM::AtomicBinOp::add
                                    : LLVM::AtomicBinOp::sub,
            addr, w, LLVM::AtomicOrdering::monotonic);
        b.replaceOp(op, decode(b, loc, f, rmw));
        return;
      }
      Type dt = d.getType();
      Value old = casLoop(b, loc, f, addr, [&](OpBuilder &ib, Value w) {
        Value digits =
            extractBits(ib, loc, f, w, 0, f.width, f.q.getIsSigned(), dt);
        Value next = kind == AtomicKind::add
                         ? Value(arith::AddIOp::create(ib, loc, digits, d))
                         : Value(arith::SubIOp::create(ib, loc, digits, d));
        return insertField(ib, loc, f, next, w);
      });
      b.replaceOp(op, decode(b, loc, f, old));
      return;
    }
    SmallVector<QuantField> group;
    if (f.shared())
      group = groupOf(b, loc, layout, *layout.lookupPlace(op.getField()));
    Value old = casLoop(b, loc, f, addr, [&](OpBuilder &ib, Value w) {
      Value cur = decode(ib, loc, f, w);
      Value next = combine(ib, loc, kind, f, cur, v);
      if (!f.shared())
        return insertField(ib, loc, f, encode(ib, loc, f, next), w);
      // Re-encode the group around the new value.
      SmallVector<Value> xs =
          groupValues(ib, loc, group, {{indexIn(group, f), next}}, w);
      return encodeGroup(ib, loc, group, xs, w);
    });
    b.replaceOp(op, decode(b, loc, f, old));
  }
};

} // namespace

void tic::snode::lowering::populateQuantAccessPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const SNodeLayout &layout, FieldAliasTags &tags) {
  patterns.add<QuantLoadLowering, QuantStoreLowering, QuantAtomicRMWLowering>(
      converter, patterns.getContext(), layout, tags);
  patterns.add<StoreFieldsLowering>(converter, patterns.getContext(), layout,
                                    tags);
}

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

  int64_t wordBits() const { return word.getIntOrFloatBitWidth(); }
  /// The field's bits are all of the word's.
  bool wholeWord() const { return !laneShift && width == wordBits(); }
};

Value iconst(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, t, v);
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
  if (lane) {
    Value l = lane;
    if (f.wordBits() != 32)
      l = f.wordBits() > 32
              ? Value(arith::ExtUIOp::create(b, loc, f.word, lane))
              : Value(arith::TruncIOp::create(b, loc, f.word, lane));
    f.laneShift = arith::AddIOp::create(
        b, loc, iconst(b, loc, f.word, f.offset),
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

struct QuantLoadLowering : QuantPattern<LoadOp> {
  using QuantPattern::QuantPattern;
  void lower(ConversionPatternRewriter &b, LoadOp op, OpAdaptor,
             const QuantField &f, Value addr) const override {
    // A plain load: loads of one word CSE.
    auto word = LLVM::LoadOp::create(b, op.getLoc(), f.word, addr,
                                     unsigned(f.wordBits() / 8));
    tags.tag(word, op, op.getField());
    b.replaceOp(op, decode(b, op.getLoc(), f, word));
  }
};

/// Writes the encoded `bits` of `fields` into the word at `addr`: one plain
/// store when they cover the whole word, a plain load / insert / store when
/// no other thread writes the word (`exclusive`), else a compare-and-swap
/// loop. Returns the plain store or load to tag, if any.
Operation *writeFields(OpBuilder &b, Location loc, ArrayRef<QuantField> fields,
                       ArrayRef<Value> bits, bool exclusive, Value addr) {
  const QuantField &f0 = fields.front();
  unsigned align = unsigned(f0.wordBits() / 8);
  auto insertAll = [&](OpBuilder &ib, Value w) {
    for (auto [f, v] : llvm::zip(fields, bits))
      w = insertField(ib, loc, f, v, w);
    return w;
  };
  uint64_t covered = 0;
  bool lanes = false;
  for (const QuantField &f : fields) {
    lanes |= bool(f.laneShift);
    uint64_t ones = f.width >= 64 ? ~uint64_t(0) : (uint64_t(1) << f.width) - 1;
    covered |= ones << f.offset;
  }
  uint64_t all =
      f0.wordBits() >= 64 ? ~uint64_t(0) : (uint64_t(1) << f0.wordBits()) - 1;
  if (!lanes && covered == all) {
    // Nothing else lives in the word.
    Value w = insertAll(b, iconst(b, loc, f0.word, 0));
    return LLVM::StoreOp::create(b, loc, w, addr, align);
  }
  if (exclusive) {
    auto old = LLVM::LoadOp::create(b, loc, f0.word, addr, align);
    LLVM::StoreOp::create(b, loc, insertAll(b, old), addr, align);
    return old;
  }
  casLoop(b, loc, f0, addr, insertAll);
  return nullptr;
}

struct QuantStoreLowering : QuantPattern<StoreOp> {
  using QuantPattern::QuantPattern;
  void lower(ConversionPatternRewriter &b, StoreOp op, OpAdaptor adaptor,
             const QuantField &f, Value addr) const override {
    Value bitsOf = encode(b, op.getLoc(), f, adaptor.getValue());
    if (Operation *mem =
            writeFields(b, op.getLoc(), f, bitsOf, op.getExclusive(), addr))
      tags.tag(mem, op, op.getField());
    b.eraseOp(op);
  }
};

/// Several components of one bit_struct word (tic-fuse-bit-stores).
struct StoreFieldsLowering : SNodePattern<StoreFieldsOp> {
  StoreFieldsLowering(const TypeConverter &tc, MLIRContext *ctx,
                      const SNodeLayout &layout)
      : SNodePattern<StoreFieldsOp>(tc, ctx, layout) {}
  LogicalResult matchAndRewrite(StoreFieldsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    SmallVector<QuantField> fields;
    SmallVector<Value> bits;
    const PlaceLayout *first = nullptr;
    for (auto [v, f, c] :
         llvm::zip(adaptor.getValues(), op.getFields(), op.getComps())) {
      const PlaceLayout *p =
          layout.lookupPlace(cast<FlatSymbolRefAttr>(f).getValue());
      if (!p || !p->isQuant())
        return b.notifyMatchFailure(op, "not a quantized place");
      first = first ? first : p;
      fields.push_back(fieldOf(b, loc, *p, c, p->components[c], Value()));
      bits.push_back(encode(b, loc, fields.back(), v));
    }
    Value addr = byteOffset(b, loc, adaptor.getCell(), first->offsetInCell);
    writeFields(b, loc, fields, bits, op.getExclusive(), addr);
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
    Value old = casLoop(b, loc, f, addr, [&](OpBuilder &ib, Value w) {
      Value cur = decode(ib, loc, f, w);
      Value next = combine(ib, loc, kind, f, cur, v);
      return insertField(ib, loc, f, encode(ib, loc, f, next), w);
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
  patterns.add<StoreFieldsLowering>(converter, patterns.getContext(), layout);
}

//===- CodeGenExpr.cpp - expressions, conversions and operators -----------===//
//
// Part of the AST -> MLIR code generator: see CodeGenImpl.h and
// docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

using namespace mlir;
using namespace tic::codegen::detail;

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// Float to integer: truncate toward zero, saturate to the integer type's
/// range, NaN gives 0 -- the rule constant folding uses (docs/semantics.md).
/// Plain fptosi/fptoui is poison out of range (x86 returns INT_MIN, PTX
/// saturates): the selects make one defined rule on every target.
Value Generator::floatToInt(Value v, ST to) {
  Location l = curLoc;
  auto ft = cast<FloatType>(v.getType());
  auto it = cast<IntegerType>(mty(to));
  unsigned bits = it.getWidth();
  Value t = to.sgn ? Value(arith::FPToSIOp::create(b, l, it, v))
                   : Value(arith::FPToUIOp::create(b, l, it, v));
  // [lo, hi): the floats whose truncation fits (powers of two: exact, or
  // infinite in f16, which then never compares greater).
  auto fconst = [&](double d) -> Value {
    llvm::APFloat f(d);
    bool lost;
    f.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return arith::ConstantFloatOp::create(b, l, ft, f);
  };
  auto iconst = [&](const llvm::APInt &x) -> Value {
    return arith::ConstantIntOp::create(b, l, it, x);
  };
  double lo = to.sgn ? -std::ldexp(1.0, int(bits) - 1) : 0.0;
  double hi = std::ldexp(1.0, int(bits) - (to.sgn ? 1 : 0));
  llvm::APInt minV = to.sgn ? llvm::APInt::getSignedMinValue(bits)
                            : llvm::APInt::getMinValue(bits);
  llvm::APInt maxV = to.sgn ? llvm::APInt::getSignedMaxValue(bits)
                            : llvm::APInt::getMaxValue(bits);
  Value below =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, v, fconst(lo));
  Value above =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, v, fconst(hi));
  Value isNaN = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v);
  Value r = arith::SelectOp::create(b, l, below, iconst(minV), t);
  r = arith::SelectOp::create(b, l, above, iconst(maxV), r);
  return arith::SelectOp::create(b, l, isNaN, iconst(llvm::APInt(bits, 0)), r);
}

Value Generator::conv(Value v, ST from, ST to) {
  if (from == to)
    return v;
  mlir::Type tt = mty(to);
  if (v.getType() == tt && !(to.isBool() != from.isBool()))
    return v;
  Location l = curLoc;
  if (to.isBool()) {
    if (from.isFloat())
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, v,
                                   zero(from));
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v, zero(from));
  }
  if (to.isInt()) {
    if (from.isFloat())
      return floatToInt(v, to);
    unsigned fb = from.isBool() ? 1 : from.bits;
    if (fb == to.bits)
      return v;
    if (fb > to.bits)
      return arith::TruncIOp::create(b, l, tt, v);
    if (from.isBool() || !from.sgn)
      return arith::ExtUIOp::create(b, l, tt, v);
    return arith::ExtSIOp::create(b, l, tt, v);
  }
  // to float
  if (from.isFloat()) {
    if (from.bits < to.bits)
      return arith::ExtFOp::create(b, l, tt, v);
    return arith::TruncFOp::create(b, l, tt, v);
  }
  if (from.isBool() || !from.sgn)
    return arith::UIToFPOp::create(b, l, tt, v);
  return arith::SIToFPOp::create(b, l, tt, v);
}

RV Generator::convTo(const RV &v, const std::vector<ST> &to) {
  RV r;
  if (v.size() == 0) {
    for (ST t : to)
      r.push(zero(t), t);
    return r;
  }
  // A scalar broadcasts; anything else converts component by component. A
  // count mismatch is a code generator bug, never a silent truncation.
  if (v.size() != 1 && v.size() != to.size()) {
    error(curRange, "internal error: converting " + std::to_string(v.size()) +
                          " components to " + std::to_string(to.size()));
    for (ST t : to)
      r.push(zero(t), t);
    return r;
  }
  for (size_t i = 0; i < to.size(); ++i) {
    size_t j = v.size() == 1 ? 0 : i;
    r.push(conv(v.v[j], v.ts[j], to[i]), to[i]);
  }
  return r;
}

Value Generator::selectChain(Value sel, ArrayRef<Value> alts) {
  Value r = alts[0];
  for (size_t j = 1; j < alts.size(); ++j) {
    Value c = arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::eq, sel,
                                    cI32(int64_t(j)));
    r = arith::SelectOp::create(b, curLoc, c, alts[j], r);
  }
  return r;
}

RV Generator::dynamicPick(const RV &v, Value sel,
                          const std::vector<std::vector<unsigned>> &alts) {
  RV r;
  if (alts.empty())
    return r;
  for (size_t c = 0; c < alts[0].size(); ++c) {
    SmallVector<Value> cands;
    for (auto &a : alts)
      cands.push_back(v.v[a[c]]);
    r.push(selectChain(sel, cands), v.ts[alts[0][c]]);
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// The index arithmetic that may carry `nsw` (see genIndexValue).
static bool isIndexChainOp(const tast::Expr *e) {
  auto *bin = tic::dyn_cast<tast::BinaryExpr>(e);
  return bin && e->type && e->type->isInt() &&
         (bin->op == tast::BinaryOp::Add || bin->op == tast::BinaryOp::Sub ||
          bin->op == tast::BinaryOp::Mul);
}

RV Generator::genIndexValue(const tast::Expr *e) {
  bool saved = nswIndexArith;
  nswIndexArith = !opts.checkBounds;
  RV r = gen(e);
  nswIndexArith = saved;
  return r;
}

RV Generator::gen(const tast::Expr *e) {
  if (!e)
    return {};
  // Anything below a node that is not part of an index's `+ - *` chain
  // (calls, `%`, `//`, casts, ...) keeps the language's wrapping semantics.
  struct FlagScope {
    bool &flag;
    bool saved;
    ~FlagScope() { flag = saved; }
  } flagScope{nswIndexArith, nswIndexArith};
  if (nswIndexArith && !isIndexChainOp(e))
    nswIndexArith = false;
  Location saved = curLoc;
  SourceRange savedRange = curRange;
  curLoc = loc(e->range);
  curRange = e->range;
  RV r;
  if (e->constValue && isValueType(e->type) &&
      e->constValue->kind != tsema::ConstValue::Kind::String &&
      e->constValue->kind != tsema::ConstValue::Kind::Type) {
    r = constRV(*e->constValue, e->type);
    curLoc = saved;
    curRange = savedRange;
    return r;
  }
  using K = tast::Expr::Kind;
  switch (e->kind) {
  case K::IntLit: {
    auto *x = static_cast<const tast::IntLitExpr *>(e);
    ST t = e->type ? elemOf(e->type) : ST::i32();
    r.push(t.isFloat() ? cFloat(double(x->value), t)
                       : cInt(int64_t(x->value), t),
           t);
    break;
  }
  case K::FloatLit: {
    auto *x = static_cast<const tast::FloatLitExpr *>(e);
    ST t = e->type ? elemOf(e->type) : ST::f32();
    r.push(cFloat(x->value, t), t);
    break;
  }
  case K::BoolLit:
    r.push(cBool(static_cast<const tast::BoolLitExpr *>(e)->value),
           ST::boolean());
    if (e->type)
      r = convTo(r, e->type);
    break;
  case K::StringLit:
    error(e->range,
          "a string can only be printed or used as an assert message");
    break;
  case K::Name:
    r = genName(*static_cast<const tast::NameExpr *>(e));
    break;
  case K::Call:
    r = genCall(*static_cast<const tast::CallExpr *>(e));
    break;
  case K::Index:
    r = genIndex(*static_cast<const tast::IndexExpr *>(e));
    break;
  case K::Member:
    r = genMember(*static_cast<const tast::MemberExpr *>(e));
    break;
  case K::Unary:
    r = genUnary(*static_cast<const tast::UnaryExpr *>(e));
    break;
  case K::Binary:
    r = genBinary(*static_cast<const tast::BinaryExpr *>(e));
    break;
  case K::Compare:
    r = genCompare(*static_cast<const tast::CompareExpr *>(e));
    break;
  case K::Ternary:
    r = genTernary(*static_cast<const tast::TernaryExpr *>(e));
    break;
  case K::Static:
    r = gen(static_cast<const tast::StaticExpr *>(e)->operand.get());
    break;
  case K::Cast:
    r = gen(static_cast<const tast::CastExpr *>(e)->operand.get());
    r = convTo(r, e->type);
    break;
  case K::List:
    r = genList(*static_cast<const tast::ListExpr *>(e));
    break;
  case K::StructLit:
    r = genStructLit(*static_cast<const tast::StructLitExpr *>(e));
    break;
  }
  curLoc = saved;
  curRange = savedRange;
  return r;
}

RV Generator::genName(const tast::NameExpr &e) {
  RV r;
  switch (e.ref.kind) {
  case tast::NameRef::Local: {
    Binding *bd = lookup(e.ref.local);
    if (!bd) {
      error(e.range, "internal error: '" + e.name + "' has no value here");
      return r;
    }
    for (size_t i = 0; i < bd->vals.size(); ++i) {
      if (bd->mem)
        r.push(memref::LoadOp::create(b, curLoc, bd->vals[i], ValueRange{}),
               bd->ts[i]);
      else
        r.push(bd->vals[i], i < bd->ts.size() ? bd->ts[i] : ST::i32());
    }
    return r;
  }
  case tast::NameRef::Constant:
    if (e.ref.constant)
      return constRV(e.ref.constant->value,
                     e.type ? e.type : e.ref.constant->type);
    break;
  default:
    break;
  }
  error(e.range, "'" + e.name + "' cannot be used as a value here");
  return r;
}

RV Generator::genIndex(const tast::IndexExpr &e) {
  using IK = tast::IndexExpr::IndexKind;
  if (e.indexKind == IK::Field || e.indexKind == IK::NDArray) {
    if (e.indexKind == IK::Field && e.field && curKernel &&
        !curKernel->noGrad && curKernel->gradOf.empty()) {
      const tsema::FieldInfo *p = e.field->primal ? e.field->primal : e.field;
      if ((p->needsGrad || p->needsDual) && !gradReported.count(p)) {
        gradReported.insert(p);
        error(e.range,
              "automatic differentiation is not supported yet: kernel '" +
                  curKernel->name + "' reads the differentiable field '" +
                  p->name +
                  "' and would need an adjoint (mark it @no_grad "
                  "to compile it without one)");
      }
    }
    LV lv;
    if (!genLValue(&e, lv))
      return {};
    return loadLV(lv);
  }
  if (e.indexKind == IK::Tuple) {
    // x.shape[k] of an ndarray: its extent at run time.
    auto *m = tic::dyn_cast<tast::MemberExpr>(e.base.get());
    auto *n = m ? tic::dyn_cast<tast::NameExpr>(m->base.get()) : nullptr;
    int64_t k;
    if (m && n && m->member == "shape" && e.indices.size() == 1 &&
        constInt(e.indices[0].get(), k) &&
        n->ref.kind == tast::NameRef::Local) {
      Binding *bd = lookup(n->ref.local);
      auto *nt = tic::dyn_cast<tic::NDArrayType>(n->type);
      if (bd && nt && !bd->vals.empty() && k >= 0 && k < int64_t(nt->ndim)) {
        RV r;
        Value d = tic::tc::NDArrayDimOp::create(b, curLoc, bd->vals[0], k);
        r.push(d, ST::i32());
        return convTo(r, e.type);
      }
    }
    unsupported(e.range, "this tuple index");
    return {};
  }
  if (e.indexKind != IK::Vector && e.indexKind != IK::Matrix) {
    unsupported(e.range, "this index expression");
    return {};
  }
  RV base = gen(e.base.get());
  ComponentSelect cs;
  if (!selectComponents(e, e.base->type, cs))
    return {};
  return cs.isStatic ? pickComponents(base, cs.pick)
                     : dynamicPick(base, cs.sel, cs.alts);
}

bool Generator::selectComponents(const tast::IndexExpr &e,
                                 const tic::Type *baseType,
                                 ComponentSelect &out) {
  using IK = tast::IndexExpr::IndexKind;
  unsigned rows = 0, cols = 1;
  if (auto *v = tic::dyn_cast<tic::VectorType>(baseType))
    rows = v->size;
  else if (auto *mt = tic::dyn_cast<tic::MatrixType>(baseType))
    rows = mt->rows, cols = mt->cols;
  bool rowSel = e.indexKind == IK::Matrix && e.indices.size() == 1;
  unsigned width = rowSel ? cols : 1;
  unsigned n = e.indexKind == IK::Vector ? rows : (rowSel ? rows : rows * cols);
  int64_t c0 = 0, c1 = 0;
  bool k0 = constInt(e.indices[0].get(), c0);
  bool k1 = e.indices.size() < 2 || constInt(e.indices[1].get(), c1);
  if (k0 && k1) {
    int64_t k = e.indexKind == IK::Matrix && !rowSel ? c0 * cols + c1 : c0;
    if (k < 0 || k >= int64_t(n)) {
      error(e.range, "index " + std::to_string(k) + " is out of range");
      return false;
    }
    out.isStatic = true;
    for (unsigned i = 0; i < width; ++i)
      out.pick.push_back(unsigned(k) * width + i);
    return true;
  }
  out.isStatic = false;
  if (e.indexKind == IK::Matrix && !rowSel) {
    Value r = toI32(gen(e.indices[0].get()));
    Value c = toI32(gen(e.indices[1].get()));
    out.sel = arith::AddIOp::create(
        b, curLoc, arith::MulIOp::create(b, curLoc, r, cI32(cols)), c);
  } else {
    out.sel = toI32(gen(e.indices[0].get()));
  }
  for (unsigned k = 0; k < n; ++k) {
    std::vector<unsigned> a;
    for (unsigned i = 0; i < width; ++i)
      a.push_back(k * width + i);
    out.alts.push_back(a);
  }
  return true;
}

RV Generator::genMember(const tast::MemberExpr &e) {
  if (e.field) {
    error(e.range, "the field '" + e.field->name + "' must be indexed");
    return {};
  }
  if (!e.components.empty())
    return pickComponents(gen(e.base.get()), e.components);
  if (e.memberIndex >= 0) {
    auto *st = tic::dyn_cast<tic::StructType>(e.base->type);
    if (!st)
      return {};
    RV base = gen(e.base.get());
    unsigned off = 0;
    for (int i = 0; i < e.memberIndex; ++i)
      off += flatCount(st->members[i].type);
    std::vector<unsigned> pick;
    for (unsigned i = 0, n = flatCount(st->members[e.memberIndex].type); i < n;
         ++i)
      pick.push_back(off + i);
    return pickComponents(base, pick);
  }
  unsupported(e.range, "'." + e.member + "' here");
  return {};
}

RV Generator::genList(const tast::ListExpr &e) {
  RV all;
  for (auto &x : e.elements) {
    RV v = gen(x.get());
    for (size_t i = 0; i < v.size(); ++i)
      all.push(v.v[i], v.ts[i]);
  }
  return convTo(all, e.type);
}

RV Generator::genStructLit(const tast::StructLitExpr &e) {
  auto *st = tic::dyn_cast<tic::StructType>(e.type);
  if (!st) {
    error(e.range, "internal error: struct literal without a struct type");
    return {};
  }
  std::vector<RV> members(st->members.size());
  for (size_t i = 0; i < e.members.size(); ++i) {
    const auto &a = e.members[i];
    int idx = a.name.empty() ? int(i) : st->memberIndex(a.name);
    if (idx < 0 || idx >= int(members.size()))
      continue;
    members[idx] = convTo(gen(a.value.get()), st->members[idx].type);
  }
  RV r;
  for (size_t i = 0; i < members.size(); ++i) {
    RV m = members[i].size() ? members[i] : convTo(RV(), st->members[i].type);
    for (size_t j = 0; j < m.size(); ++j)
      r.push(m.v[j], m.ts[j]);
  }
  return r;
}

RV Generator::genUnary(const tast::UnaryExpr &e) {
  RV x = gen(e.operand.get());
  ST rt = elemOf(e.type);
  RV r;
  switch (e.op) {
  case tast::UnaryOp::Plus:
    return convElems(x, rt);
  case tast::UnaryOp::Neg: {
    RV c = convElems(x, rt);
    for (size_t i = 0; i < c.size(); ++i)
      r.push(rt.isFloat()
                 ? Value(arith::NegFOp::create(b, curLoc, c.v[i]))
                 : Value(arith::SubIOp::create(b, curLoc, zero(rt), c.v[i])),
             rt);
    return r;
  }
  case tast::UnaryOp::BitNot: {
    RV c = convElems(x, rt);
    for (size_t i = 0; i < c.size(); ++i)
      r.push(arith::XOrIOp::create(b, curLoc, c.v[i], cInt(-1, rt)), rt);
    return r;
  }
  case tast::UnaryOp::Not: {
    for (size_t i = 0; i < x.size(); ++i) {
      Value t = toI1(x.v[i], x.ts[i]);
      Value n = arith::XOrIOp::create(b, curLoc, t, cBool(true));
      r.push(conv(n, ST::boolean(), rt), rt);
    }
    return r;
  }
  }
  return r;
}

Value Generator::scalarBinop(tast::BinaryOp op, Value x, Value y, ST t,
                             SourceRange r) {
  Location l = curLoc;
  bool f = t.isFloat();
  using BO = tast::BinaryOp;
  switch (op) {
  case BO::Add:
    return f ? Value(arith::AddFOp::create(b, l, x, y))
             : Value(arith::AddIOp::create(b, l, x, y, indexFlags()));
  case BO::Sub:
    return f ? Value(arith::SubFOp::create(b, l, x, y))
             : Value(arith::SubIOp::create(b, l, x, y, indexFlags()));
  case BO::Mul:
    return f ? Value(arith::MulFOp::create(b, l, x, y))
             : Value(arith::MulIOp::create(b, l, x, y, indexFlags()));
  case BO::Div:
    if (f)
      return arith::DivFOp::create(b, l, x, y);
    return t.sgn ? Value(arith::DivSIOp::create(b, l, x, y))
                 : Value(arith::DivUIOp::create(b, l, x, y));
  case BO::FloorDiv:
    if (f)
      return math::FloorOp::create(b, l, arith::DivFOp::create(b, l, x, y));
    return t.sgn ? Value(arith::FloorDivSIOp::create(b, l, x, y))
                 : Value(arith::DivUIOp::create(b, l, x, y));
  case BO::Mod: {
    if (f) {
      // Python: x - y * floor(x / y) (sign of the divisor).
      Value q = math::FloorOp::create(b, l, arith::DivFOp::create(b, l, x, y));
      return arith::SubFOp::create(b, l, x, arith::MulFOp::create(b, l, y, q));
    }
    if (!t.sgn || t.isBool())
      return arith::RemUIOp::create(b, l, x, y);
    Value rem = arith::RemSIOp::create(b, l, x, y);
    Value z = zero(t);
    Value nz = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, rem, z);
    Value signDiff =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                              arith::XOrIOp::create(b, l, rem, y), z);
    Value adj = arith::AndIOp::create(b, l, nz, signDiff);
    Value fixed = arith::AddIOp::create(b, l, rem, y);
    return arith::SelectOp::create(b, l, adj, fixed, rem);
  }
  case BO::Shl:
    return arith::ShLIOp::create(b, l, x, y);
  case BO::Shr:
    return t.sgn ? Value(arith::ShRSIOp::create(b, l, x, y))
                 : Value(arith::ShRUIOp::create(b, l, x, y));
  case BO::BitAnd:
  case BO::And:
    return arith::AndIOp::create(b, l, x, y);
  case BO::BitOr:
  case BO::Or:
    return arith::OrIOp::create(b, l, x, y);
  case BO::BitXor:
    return arith::XOrIOp::create(b, l, x, y);
  case BO::Pow:
  case BO::MatMul:
    break;
  }
  error(r, "internal error: unexpected operator");
  return x;
}

RV Generator::binop(tast::BinaryOp op, const RV &a, const RV &c,
                    const tic::Type *res, SourceRange r) {
  RV out;
  size_t n = std::max(a.size(), c.size());
  if (a.size() == 0 || c.size() == 0)
    return out;
  bool shift = op == tast::BinaryOp::Shl || op == tast::BinaryOp::Shr;
  for (size_t i = 0; i < n; ++i) {
    size_t ia = a.size() == 1 ? 0 : std::min(i, a.size() - 1);
    size_t ic = c.size() == 1 ? 0 : std::min(i, c.size() - 1);
    ST t;
    if (res && (res->isScalar() || res->isTensor()))
      t = elemOf(res);
    else if (shift)
      t = a.ts[ia];
    else
      t = promote(a.ts[ia], c.ts[ic]);
    if (op == tast::BinaryOp::Div && !t.isFloat() && !res)
      t = (a.ts[ia].isFloat() || c.ts[ic].isFloat())
              ? promote(a.ts[ia], c.ts[ic])
              : defaultFloat();
    Value x = conv(a.v[ia], a.ts[ia], t), y = conv(c.v[ic], c.ts[ic], t);
    out.push(scalarBinop(op, x, y, t, r), t);
  }
  return out;
}

Value Generator::cmp(tast::CmpOp op, Value x, Value y, ST t) {
  if (t.isFloat()) {
    arith::CmpFPredicate p = arith::CmpFPredicate::OEQ;
    switch (op) {
    case tast::CmpOp::Eq:
      p = arith::CmpFPredicate::OEQ;
      break;
    case tast::CmpOp::Ne:
      p = arith::CmpFPredicate::UNE;
      break;
    case tast::CmpOp::Lt:
      p = arith::CmpFPredicate::OLT;
      break;
    case tast::CmpOp::Le:
      p = arith::CmpFPredicate::OLE;
      break;
    case tast::CmpOp::Gt:
      p = arith::CmpFPredicate::OGT;
      break;
    case tast::CmpOp::Ge:
      p = arith::CmpFPredicate::OGE;
      break;
    }
    return arith::CmpFOp::create(b, curLoc, p, x, y);
  }
  bool s = t.sgn && !t.isBool();
  arith::CmpIPredicate p = arith::CmpIPredicate::eq;
  switch (op) {
  case tast::CmpOp::Eq:
    p = arith::CmpIPredicate::eq;
    break;
  case tast::CmpOp::Ne:
    p = arith::CmpIPredicate::ne;
    break;
  case tast::CmpOp::Lt:
    p = s ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult;
    break;
  case tast::CmpOp::Le:
    p = s ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule;
    break;
  case tast::CmpOp::Gt:
    p = s ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt;
    break;
  case tast::CmpOp::Ge:
    p = s ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge;
    break;
  }
  return arith::CmpIOp::create(b, curLoc, p, x, y);
}

RV Generator::genCompare(const tast::CompareExpr &e) {
  std::vector<RV> ops;
  for (auto &o : e.operands)
    ops.push_back(gen(o.get()));
  RV acc;
  for (size_t k = 0; k < e.ops.size() && k + 1 < ops.size(); ++k) {
    const RV &a = ops[k], &c = ops[k + 1];
    size_t n = std::max(a.size(), c.size());
    if (!a.size() || !c.size())
      return {};
    RV cur;
    for (size_t i = 0; i < n; ++i) {
      size_t ia = a.size() == 1 ? 0 : i, ic = c.size() == 1 ? 0 : i;
      ST t = promote(a.ts[ia], c.ts[ic]);
      cur.push(cmp(e.ops[k], conv(a.v[ia], a.ts[ia], t),
                   conv(c.v[ic], c.ts[ic], t), t),
               ST::boolean());
    }
    if (k == 0) {
      acc = cur;
    } else {
      for (size_t i = 0; i < acc.size() && i < cur.size(); ++i)
        acc.v[i] = arith::AndIOp::create(b, curLoc, acc.v[i], cur.v[i]);
    }
  }
  return convTo(acc, e.type);
}

RV Generator::genTernary(const tast::TernaryExpr &e) {
  std::vector<ST> rts;
  flatten(e.type, rts);
  RV c = gen(e.cond.get());
  if (!c.size())
    return {};
  if (!mayHaveEffects(e.trueValue.get()) &&
      !mayHaveEffects(e.falseValue.get())) {
    RV t = convTo(gen(e.trueValue.get()), rts);
    RV f = convTo(gen(e.falseValue.get()), rts);
    RV r;
    for (size_t i = 0; i < rts.size(); ++i) {
      size_t ic = c.size() == 1 ? 0 : std::min(i, c.size() - 1);
      Value ci = toI1(c.v[ic], c.ts[ic]);
      r.push(arith::SelectOp::create(b, curLoc, ci, t.v[i], f.v[i]), rts[i]);
    }
    return r;
  }
  Value cond = toI1(c.v[0], c.ts[0]);
  return structuredIf(
      cond, rts, [&] { return gen(e.trueValue.get()); },
      [&] { return gen(e.falseValue.get()); });
}

RV Generator::genLogical(const tast::BinaryExpr &e) {
  bool isAnd = e.op == tast::BinaryOp::And;
  ST rt = elemOf(e.type);
  RV l = gen(e.lhs.get());
  if (!l.size())
    return {};
  if (!mayHaveEffects(e.rhs.get())) {
    RV r = gen(e.rhs.get());
    if (!r.size())
      return {};
    RV out;
    size_t n = std::max(l.size(), r.size());
    for (size_t i = 0; i < n; ++i) {
      size_t il = l.size() == 1 ? 0 : i, ir = r.size() == 1 ? 0 : i;
      Value x = toI1(l.v[il], l.ts[il]), y = toI1(r.v[ir], r.ts[ir]);
      Value z = isAnd ? Value(arith::AndIOp::create(b, curLoc, x, y))
                      : Value(arith::OrIOp::create(b, curLoc, x, y));
      out.push(conv(z, ST::boolean(), rt), rt);
    }
    return out;
  }
  // Short-circuit: the right operand only when it decides.
  Value x = toI1(l.v[0], l.ts[0]);
  auto rhs = [&] {
    RV r = gen(e.rhs.get());
    RV y;
    y.push(r.size() ? toI1(r.v[0], r.ts[0]) : cBool(false), ST::boolean());
    return y;
  };
  auto constant = [&](bool v) {
    return [this, v] {
      RV y;
      y.push(cBool(v), ST::boolean());
      return y;
    };
  };
  RV z = isAnd ? structuredIf(x, {ST::boolean()}, rhs, constant(false))
               : structuredIf(x, {ST::boolean()}, constant(true), rhs);
  RV out;
  out.push(conv(z.v[0], ST::boolean(), rt), rt);
  return out;
}

/// x ** n for an integer n at run time: square-and-multiply loop.
Value Generator::ipow(Value x, Value n, ST t, ST nt) {
  mlir::Type xt = mty(t), ntt = mty(nt);
  Value acc0 = one(t);
  SmallVector<mlir::Type, 3> types{xt, xt, ntt};
  auto loop = scf::WhileOp::create(b, curLoc, types, ValueRange{acc0, x, n});
  Block *header = new Block(), *body = new Block();
  loop.getBefore().push_back(header);
  loop.getAfter().push_back(body);
  for (mlir::Type ty : types) {
    header->addArgument(ty, curLoc);
    body->addArgument(ty, curLoc);
  }
  b.setInsertionPointToEnd(header);
  Value more = arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::sgt,
                                     header->getArgument(2), zero(nt));
  scf::ConditionOp::create(b, curLoc, more, header->getArguments());
  b.setInsertionPointToEnd(body);
  Value acc = body->getArgument(0), base = body->getArgument(1),
        k = body->getArgument(2);
  Value bit = arith::TruncIOp::create(b, curLoc, b.getI1Type(), k);
  Value prod = t.isFloat() ? Value(arith::MulFOp::create(b, curLoc, acc, base))
                           : Value(arith::MulIOp::create(b, curLoc, acc, base));
  Value acc2 = arith::SelectOp::create(b, curLoc, bit, prod, acc);
  Value base2 = t.isFloat()
                    ? Value(arith::MulFOp::create(b, curLoc, base, base))
                    : Value(arith::MulIOp::create(b, curLoc, base, base));
  Value k2 = arith::ShRUIOp::create(b, curLoc, k, one(nt));
  scf::YieldOp::create(b, curLoc, ValueRange{acc2, base2, k2});
  b.setInsertionPointAfter(loop);
  return loop.getResult(0);
}

RV Generator::pow(const RV &base, const tast::Expr *expE, const RV &ex,
                  const tic::Type *res, SourceRange r) {
  RV out;
  if (!base.size() || !ex.size())
    return out;
  size_t n = std::max(base.size(), ex.size());
  int64_t cn = 0;
  bool constExp = expE && constInt(expE, cn) && ex.size() == 1 &&
                  !ex.ts[0].isFloat() && cn >= -64 && cn <= 64;
  for (size_t i = 0; i < n; ++i) {
    size_t ib = base.size() == 1 ? 0 : i, ie = ex.size() == 1 ? 0 : i;
    ST bt = base.ts[ib], et = ex.ts[ie];
    ST t = res && (res->isScalar() || res->isTensor()) ? elemOf(res)
                                                       : promote(bt, et);
    Value x = conv(base.v[ib], bt, t);
    Value v;
    if (constExp) {
      // Repeated multiplication (square-and-multiply on the constant).
      uint64_t k = uint64_t(cn < 0 ? -cn : cn);
      Value acc, sq = x;
      while (k) {
        if (k & 1)
          acc = acc ? (t.isFloat()
                           ? Value(arith::MulFOp::create(b, curLoc, acc, sq))
                           : Value(arith::MulIOp::create(b, curLoc, acc, sq)))
                    : sq;
        k >>= 1;
        if (k)
          sq = t.isFloat() ? Value(arith::MulFOp::create(b, curLoc, sq, sq))
                           : Value(arith::MulIOp::create(b, curLoc, sq, sq));
      }
      if (!acc)
        acc = one(t);
      if (cn < 0)
        acc = t.isFloat()
                  ? Value(arith::DivFOp::create(b, curLoc, one(t), acc))
                  : Value(arith::DivSIOp::create(b, curLoc, one(t), acc));
      v = acc;
    } else if (t.isFloat()) {
      if (!et.isFloat()) {
        Value k = conv(ex.v[ie], et, ST::i32());
        v = math::FPowIOp::create(b, curLoc, x, k);
      } else {
        v = math::PowFOp::create(b, curLoc, x, conv(ex.v[ie], et, t));
      }
    } else {
      Value k = conv(ex.v[ie], et, t.bits == 64 ? ST::i64() : ST::i32());
      v = ipow(x, k, t, t.bits == 64 ? ST::i64() : ST::i32());
    }
    out.push(v, t);
  }
  return out;
}

RV Generator::genBinary(const tast::BinaryExpr &e) {
  using BO = tast::BinaryOp;
  if (e.op == BO::And || e.op == BO::Or)
    return genLogical(e);
  RV l = gen(e.lhs.get());
  RV r = gen(e.rhs.get());
  if (e.op == BO::Pow)
    return pow(l, e.rhs.get(), r, e.type, e.range);
  if (e.op == BO::MatMul) {
    // Reuse the linear-algebra helper through a synthetic call shape.
    std::vector<ST> rts;
    flatten(e.type, rts);
    ST t = rts.empty() ? ST::f32() : rts[0];
    RV a = convElems(l, t), c = convElems(r, t);
    auto shape = [](const tic::Type *ty, unsigned &rows, unsigned &cols,
                    bool &vec) {
      vec = false;
      if (auto *v = tic::dyn_cast<tic::VectorType>(ty)) {
        rows = v->size, cols = 1, vec = true;
      } else if (auto *m = tic::dyn_cast<tic::MatrixType>(ty)) {
        rows = m->rows, cols = m->cols;
      } else {
        rows = cols = 1;
      }
    };
    unsigned ar, ac, br_, bc;
    bool av, bv;
    shape(e.lhs->type, ar, ac, av);
    shape(e.rhs->type, br_, bc, bv);
    if (av && !bv) { // row vector @ matrix
      ac = ar;
      ar = 1;
    }
    if (av && bv) { // dot product
      ac = ar;
      ar = 1;
    }
    if (ac != br_) {
      error(e.range, "matrix shapes do not match for '@'");
      return {};
    }
    RV out;
    for (unsigned i = 0; i < ar; ++i)
      for (unsigned j = 0; j < bc; ++j) {
        Value acc;
        for (unsigned k = 0; k < ac; ++k) {
          Value p = scalarBinop(BO::Mul, a.v[i * ac + k], c.v[k * bc + j], t,
                                e.range);
          acc = acc ? scalarBinop(BO::Add, acc, p, t, e.range) : p;
        }
        out.push(acc ? acc : zero(t), t);
      }
    return out;
  }
  return binop(e.op, l, r, e.type, e.range);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

RV Generator::genCall(const tast::CallExpr &e) {
  using CK = tast::CallExpr::CallKind;
  switch (e.callKind) {
  case CK::Cast: {
    // `f32(v)` on a vector or matrix converts every component: the checked
    // type is the elementwise result, the callee only names the element type.
    RV v = e.args.empty() ? RV() : gen(e.args[0].value.get());
    return convTo(v, e.type ? e.type : e.target);
  }
  case CK::Construct: {
    RV all;
    for (auto &a : e.args) {
      RV v = gen(a.value.get());
      for (size_t i = 0; i < v.size(); ++i)
        all.push(v.v[i], v.ts[i]);
    }
    return convTo(all, e.target ? e.target : e.type);
  }
  case CK::Func:
    return genFuncCall(e);
  case CK::Builtin:
    return genBuiltin(e);
  case CK::Unresolved:
    break;
  }
  error(e.range, "internal error: unresolved call");
  return {};
}

RV Generator::genFuncCall(const tast::CallExpr &e) {
  const tsema::CheckedFunction *f = e.func;
  if (!f || !f->body) {
    error(e.range, "internal error: call of an unresolved func");
    return {};
  }
  if (inlineDepth >= 64) {
    error(e.range, "func calls nest too deeply to inline (recursion?)");
    return {};
  }
  // Arguments (runtime parameters only), converted to the parameter types.
  std::vector<std::pair<const tsema::LocalVar *, RV>> bound;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const auto &p = f->params[i];
    if (p.isTemplate)
      continue;
    RV v = i < e.args.size() ? gen(e.args[i].value.get()) : RV();
    if (p.var)
      bound.push_back({p.var, v});
  }
  std::vector<ST> rts;
  if (f->returnType && !f->returnType->isVoid())
    flatten(f->returnType, rts);

  collectMutated(f->body.get());
  frames.emplace_back();
  for (auto &[var, v] : bound)
    bindLocal(var, v);
  std::vector<LoopCtx> savedLoops;
  savedLoops.swap(loops);
  FnCtx fc;
  fc.fn = f;
  fc.retTypes = rts;
  // A body whose only `return` is its last statement is inlined in place,
  // with structured control flow; an early return branches to a
  // continuation block (inside an scf.execute_region where needed).
  const auto &body = f->body->body;
  bool tailOnly = true;
  for (size_t i = 0; i < body.size() && tailOnly; ++i) {
    bool last = i + 1 == body.size();
    if (last && body[i]->kind == tast::Stmt::Return)
      break;
    tailOnly = !escapes(body[i].get());
  }
  RV r;
  ++inlineDepth;
  if (tailOnly) {
    fns.push_back(fc);
    for (size_t i = 0; i + 1 < body.size(); ++i)
      genStmt(*body[i]);
    if (!body.empty() && body.back()->kind == tast::Stmt::Return) {
      auto &ret = static_cast<const tast::ReturnStmt &>(*body.back());
      Location saved = curLoc;
      curLoc = loc(ret.range);
      if (ret.value)
        r = convTo(gen(ret.value.get()), rts);
      curLoc = saved;
    } else if (!body.empty()) {
      genStmt(*body.back());
    }
    for (size_t i = r.size(); i < rts.size(); ++i)
      r.push(zero(rts[i]), rts[i]);
    fns.pop_back();
  } else {
    r = cfgRegion(rts, [&] {
      Block *ret = new Block();
      for (ST t : rts)
        ret->addArgument(mty(t), curLoc);
      fc.retBlock = ret;
      fns.push_back(fc);
      genBlock(*f->body);
      if (!terminated()) {
        SmallVector<Value> zs;
        for (ST t : rts)
          zs.push_back(zero(t));
        br(ret, zs);
      }
      fns.pop_back();
      append(ret);
      b.setInsertionPointToEnd(ret);
      RV out;
      for (size_t i = 0; i < rts.size(); ++i)
        out.push(ret->getArgument(i), rts[i]);
      return out;
    });
  }
  --inlineDepth;
  loops.swap(savedLoops);
  frames.pop_back();
  return r;
}

//===- CodeGenExpr.cpp - expressions, conversions and calls ---------------===//
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

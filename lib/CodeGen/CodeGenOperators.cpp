//===- CodeGenOperators.cpp - unary, binary, comparison, logical ops ------===//
//
// Part of the AST -> MLIR code generator: see CodeGenImpl.h and
// docs/codegen.md. Elementwise on vectors and matrices; integer powers by
// squaring; lazy ternaries and and/or as scf.if with results.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

using namespace mlir;
using namespace tic::codegen::detail;

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
      Value x = conv(a.v[ia], a.ts[ia], t);
      Value y = conv(c.v[ic], c.ts[ic], t);
      cur.push(cmp(e.ops[k], x, y, t), ST::boolean());
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

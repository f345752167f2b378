//===- SemaExpr.cpp - Expressions: names, conversions, operators ----------===//

#include "SemaImpl.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace tic;
using namespace tic::sema;
using namespace tic::ast;

const ConstValue *Sema::constOf(const Expr &e) const { return e.constValue.get(); }

void Sema::setConst(Expr &e, ConstValue v) {
  e.constValue = std::make_shared<const ConstValue>(std::move(v));
}

const FieldInfo *Sema::fieldOf(Expr &e) {
  if (auto *n = dyn_cast<NameExpr>(&e))
    return n->ref.kind == NameRef::Field ? n->ref.field : nullptr;
  if (auto *m = dyn_cast<MemberExpr>(&e))
    return m->field;
  if (auto *s = dyn_cast<StaticExpr>(&e))
    return fieldOf(*s->operand);
  return nullptr;
}

const SNode *Sema::snodeOf(Expr &e) {
  if (auto *n = dyn_cast<NameExpr>(&e))
    return n->ref.kind == NameRef::SNode ? n->ref.snode : nullptr;
  if (auto *s = dyn_cast<StaticExpr>(&e))
    return snodeOf(*s->operand);
  return nullptr;
}

const Type *Sema::checkExpr(Expr &e) {
  const Type *t = nullptr;
  switch (e.kind) {
  case Expr::IntLit: {
    auto *x = cast<IntLitExpr>(&e);
    if (x->value <= uint64_t(INT32_MAX))
      t = types->i32();
    else if (x->value <= uint64_t(INT64_MAX))
      t = types->getInt(64, true);
    else
      t = types->getInt(64, false);
    setConst(e, ConstValue::makeInt(int64_t(x->value), t));
    break;
  }
  case Expr::FloatLit: {
    auto *x = cast<FloatLitExpr>(&e);
    auto *ft = x->isF32 ? types->f32() : defaultFloat;
    t = ft;
    // `2.0f` is an f32 value; an unsuffixed literal is exact until a context
    // or its use decides its precision (adoptContextType, code generation).
    ConstValue v = ConstValue::makeFloat(
        x->isF32 ? roundFloat(x->value, ft) : x->value, ft);
    v.exact = !x->isF32;
    setConst(e, v);
    break;
  }
  case Expr::BoolLit:
    t = types->getBool();
    setConst(e, ConstValue::makeBool(cast<BoolLitExpr>(&e)->value, t));
    break;
  case Expr::StringLit:
    t = types->getString();
    setConst(e, ConstValue::makeString(cast<StringLitExpr>(&e)->value, t));
    break;
  case Expr::Name: t = checkName(*cast<NameExpr>(&e)); break;
  case Expr::Call: t = checkCall(*cast<CallExpr>(&e)); break;
  case Expr::Index: t = checkIndex(*cast<IndexExpr>(&e)); break;
  case Expr::Member: t = checkMember(*cast<MemberExpr>(&e)); break;
  case Expr::Unary: t = checkUnary(*cast<UnaryExpr>(&e)); break;
  case Expr::Binary: t = checkBinary(*cast<BinaryExpr>(&e)); break;
  case Expr::Compare: t = checkCompare(*cast<CompareExpr>(&e)); break;
  case Expr::Ternary: t = checkTernary(*cast<TernaryExpr>(&e)); break;
  case Expr::Static: {
    auto *s = cast<StaticExpr>(&e);
    t = checkExpr(*s->operand);
    if (!t)
      break;
    if (const ConstValue *v = constOf(*s->operand)) {
      setConst(e, *v);
      break;
    }
    if (t->kind() == Type::Kind::FieldRef || t->kind() == Type::Kind::SNodeRef ||
        t->kind() == Type::Kind::Meta)
      break;
    if (auto *r = dynamic_cast<const RangeType *>(t)) {
      t = types->getRange(r->ndim, true);
      break;
    }
    error(s->operand->range, "expression in static(...) is not a compile-time constant");
    // Point at a run-time value inside.
    std::function<bool(Expr &)> find = [&](Expr &x) -> bool {
      if (auto *n = dyn_cast<NameExpr>(&x)) {
        if (n->ref.kind == NameRef::Local && n->ref.local) {
          note(n->range, "'" + n->name + "' is a run-time value");
          return true;
        }
        return false;
      }
      if (auto *b = dyn_cast<BinaryExpr>(&x))
        return find(*b->lhs) || find(*b->rhs);
      if (auto *u = dyn_cast<UnaryExpr>(&x))
        return find(*u->operand);
      if (auto *c = dyn_cast<CallExpr>(&x)) {
        for (auto &a : c->args)
          if (find(*a.value))
            return true;
        return false;
      }
      if (auto *i = dyn_cast<IndexExpr>(&x)) {
        if (i->indexKind == IndexExpr::IndexKind::Field) {
          note(i->range, "reading a field is a run-time operation");
          return true;
        }
        for (auto &a : i->indices)
          if (find(*a))
            return true;
        return find(*i->base);
      }
      if (auto *c = dyn_cast<CompareExpr>(&x)) {
        for (auto &o : c->operands)
          if (find(*o))
            return true;
      }
      return false;
    };
    find(*s->operand);
    t = nullptr;
    break;
  }
  case Expr::Cast: {
    auto *c = cast<CastExpr>(&e);
    const Type *target = resolveType(*c->target, false, false);
    if (!target) {
      checkExpr(*c->operand);
      break;
    }
    t = checkCast(e, target, *c->operand);
    break;
  }
  case Expr::List: t = checkList(*cast<ListExpr>(&e)); break;
  case Expr::StructLit: t = checkStructLit(*cast<StructLitExpr>(&e)); break;
  }
  e.type = t;
  return t;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

const Type *Sema::checkName(NameExpr &e) {
  if (const LocalBinding *b = lookupLocal(e.name)) {
    switch (b->kind) {
    case LocalBinding::Kind::Local:
      e.ref.kind = NameRef::Local;
      e.ref.local = b->local;
      return b->local->type;
    case LocalBinding::Kind::Field:
      e.ref.kind = NameRef::Field;
      e.ref.field = b->field;
      return types->getFieldRef(b->field->elemType, b->field->ndim());
    case LocalBinding::Kind::SNode:
      e.ref.kind = NameRef::SNode;
      e.ref.snode = b->snode;
      return types->getSNodeRef(b->snode->ndim());
    case LocalBinding::Kind::Value:
      e.ref.kind = NameRef::CompileTime;
      setConst(e, b->value);
      if (b->value.kind == ConstValue::Kind::Type)
        return types->getMeta(b->value.type);
      return b->value.type;
    }
  }
  auto g = globals.find(e.name);
  if (g != globals.end()) {
    GlobalEntry &ge = g->second;
    switch (ge.kind) {
    case GlobalEntry::Kind::Const:
      if (!ge.constant) {
        if (!ge.visited)
          error(e.range, "constant '" + e.name + "' is used before its definition");
        if (!ge.visited)
          note(ge.range, "'" + e.name + "' is defined here");
        return nullptr;
      }
      e.ref.kind = NameRef::Constant;
      e.ref.constant = ge.constant;
      setConst(e, ge.constant->value);
      return ge.constant->type;
    case GlobalEntry::Kind::TypeAlias:
    case GlobalEntry::Kind::Struct:
      if (!ge.type)
        return nullptr;
      e.ref.kind = NameRef::Type;
      e.ref.typeRef = ge.type;
      setConst(e, ConstValue::makeType(ge.type));
      return types->getMeta(ge.type);
    case GlobalEntry::Kind::Field:
      if (!ge.field)
        return nullptr;
      e.ref.kind = NameRef::Field;
      e.ref.field = ge.field;
      return types->getFieldRef(ge.field->elemType, ge.field->ndim());
    case GlobalEntry::Kind::LayoutLet:
      e.ref.kind = NameRef::SNode;
      e.ref.snode = ge.snode;
      return types->getSNodeRef(ge.snode->ndim());
    case GlobalEntry::Kind::Kernel:
      error(e.range, "kernel '" + e.name + "' cannot be used in an expression; kernels are "
                     "entry points called from the host");
      return nullptr;
    case GlobalEntry::Kind::Func:
      error(e.range, "func '" + e.name + "' must be called");
      return nullptr;
    case GlobalEntry::Kind::Instance:
      error(e.range, "instance '" + e.name + "' cannot be used in an expression");
      return nullptr;
    }
  }
  if (e.name == "root") {
    e.ref.kind = NameRef::SNode;
    e.ref.snode = mod->root.get();
    return types->getSNodeRef(0);
  }
  if (auto *s = types->getScalarByName(e.name)) {
    e.ref.kind = NameRef::Type;
    e.ref.typeRef = s;
    setConst(e, ConstValue::makeType(s));
    return types->getMeta(s);
  }
  auto bt = builtinTypes.find(e.name);
  if (bt != builtinTypes.end()) {
    e.ref.kind = NameRef::Type;
    e.ref.typeRef = bt->second;
    setConst(e, ConstValue::makeType(bt->second));
    return types->getMeta(bt->second);
  }
  // Builtin constants (Taichi's ti.math.pi, e, inf, nan): exact, so each
  // takes the precision of its context (`x * pi` with `x: f64` uses the f64
  // value). A local, global or parameter of the same name hides them.
  static const std::pair<const char *, double> kConstants[] = {
      {"pi", 3.14159265358979323846},
      {"e", 2.71828182845904523536},
      {"inf", std::numeric_limits<double>::infinity()},
      {"nan", std::numeric_limits<double>::quiet_NaN()}};
  for (auto &[name, value] : kConstants)
    if (e.name == name) {
      ConstValue v = ConstValue::makeFloat(value, defaultFloat);
      v.exact = true;
      e.ref.kind = NameRef::CompileTime;
      setConst(e, v);
      return defaultFloat;
    }
  if (builtinFuncs.count(e.name)) {
    error(e.range, "builtin '" + e.name + "' must be called");
    return nullptr;
  }
  if (!failedLets.count(e.name)) // else its layout statement's error
    error(e.range, "use of undeclared identifier '" + e.name + "'");
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

void Sema::adoptContextType(Expr &e, const Type *to) {
  // `0.1 if c else 0.2` with a run-time `c`: each exact branch adopts `to`.
  if (auto *t = dyn_cast<TernaryExpr>(&e); t && !constOf(e) && e.type) {
    const ConstValue *a = constOf(*t->trueValue), *b = constOf(*t->falseValue);
    const Type *et = elementType(to);
    if (a && b && a->isExactFloat() && b->isExactFloat() && et &&
        et->isFloat()) {
      adoptContextType(*t->trueValue, to);
      adoptContextType(*t->falseValue, to);
      e.type = types->getTensorLike(e.type, et);
    }
    return;
  }
  const ConstValue *v = constOf(e);
  if (!v || !e.type || !to || !v->isExactFloat())
    return;
  const Type *et = elementType(to);
  if (!et || !et->isFloat() || !elementType(e.type))
    return;
  const Type *nt = types->getTensorLike(e.type, et);
  if (!nt || nt == e.type)
    return;
  ConstValue c = convertConst(*v, nt, *types, /*keepExact=*/true);
  e.type = nt;
  setConst(e, std::move(c));
}

bool Sema::checkConvertible(const Type *from, const Type *to, Expr &at,
                            const std::string &what, bool quietIntToFloat) {
  if (!from || !to)
    return false;
  if (from == at.type) {
    adoptContextType(at, to);
    from = at.type;
  }
  if (from == to)
    return true;
  auto fail = [&]() {
    error(at.range, "cannot convert '" + typeName(from) + "' to '" + typeName(to) + "' in " +
                        what);
    return false;
  };
  const Type *ef = elementType(from), *et = elementType(to);
  if (!ef || !et || from->isStruct() || to->isStruct())
    return fail();
  if (from->isTensor()) {
    if (!to->isTensor())
      return fail();
    if (types->getTensorLike(from, et) != types->getTensorLike(to, et))
      return fail();
  }
  auto *sf = static_cast<const ScalarType *>(ef);
  auto *stt = static_cast<const ScalarType *>(et);
  if (isNarrowing(sf, stt) &&
      !(quietIntToFloat && sf->isInt() && stt->isFloat())) {
    // Constants that convert exactly do not warn.
    if (const ConstValue *v = constOf(at)) {
      ConstValue c = convertConst(*v, to, *types);
      ConstValue back = convertConst(c, from, *types);
      if (back == *v)
        return true;
    }
    warning(at.range, "implicit conversion from '" + typeName(from) + "' to '" +
                          typeName(to) + "' in " + what + " may lose precision");
  }
  return true;
}

const Type *Sema::checkCast(Expr &e, const Type *target, Expr &operand) {
  const Type *t = checkExpr(operand);
  if (!t)
    return nullptr;
  const Type *ef = elementType(t);
  if (!ef || t->isStruct()) {
    error(operand.range, "cannot cast a value of type '" + typeName(t) + "' to '" +
                             typeName(target) + "'");
    return nullptr;
  }
  const Type *result;
  if (target->isScalar()) {
    result = types->getTensorLike(t, target);
  } else if (target->isTensor()) {
    if (t->isTensor() && types->getTensorLike(t, elementType(target)) != target) {
      error(operand.range, "cannot cast '" + typeName(t) + "' to '" + typeName(target) +
                               "': shapes differ");
      return nullptr;
    }
    result = target;
  } else {
    error(e.range, "cannot cast to '" + typeName(target) + "'");
    return nullptr;
  }
  if (const ConstValue *v = constOf(operand)) {
    std::string w = conversionWarning(*v, result);
    if (!w.empty())
      warning(e.range, w);
    setConst(e, convertConst(*v, result, *types));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

const Type *Sema::checkUnary(UnaryExpr &e) {
  const Type *t = checkExpr(*e.operand);
  if (!t)
    return nullptr;
  const Type *et = elementType(t);
  const Type *r = nullptr;
  switch (e.op) {
  case UnaryOp::Neg:
  case UnaryOp::Plus:
    if (et && !et->isBool())
      r = t;
    break;
  case UnaryOp::BitNot:
    if (et && isIntLike(et))
      r = t;
    break;
  case UnaryOp::Not:
    if (t->isScalar())
      r = types->getBool();
    break;
  }
  if (!r) {
    error(e.opRange.isValid() ? e.opRange : e.range,
          std::string("invalid operand to unary '") + spelling(e.op) + "' ('" + typeName(t) +
              "')");
    return nullptr;
  }
  if (const ConstValue *v = constOf(*e.operand)) {
    std::string w;
    if (auto f = foldUnary(e.op, *v, r, *types, &w))
      setConst(e, *f);
    if (!w.empty())
      warning(e.range, w);
  }
  return r;
}

static bool isBitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor ||
         op == BinaryOp::Shl || op == BinaryOp::Shr;
}

const Type *Sema::checkBinary(BinaryExpr &e) {
  const Type *a = checkExpr(*e.lhs);
  const Type *b = checkExpr(*e.rhs);
  if (!a || !b)
    return nullptr;
  SourceRange opr = e.opRange.isValid() ? e.opRange : e.range;
  auto invalid = [&](const std::string &extra) -> const Type * {
    error(opr, std::string("invalid operands to '") + spelling(e.op) + "' ('" + typeName(a) +
                   "' and '" + typeName(b) + "')" + extra);
    return nullptr;
  };
  const Type *ea = elementType(a), *eb = elementType(b);
  if (!ea || !eb || a->isStruct() || b->isStruct())
    return invalid("");
  const Type *r = nullptr;
  const Type *operandT = nullptr;
  switch (e.op) {
  case BinaryOp::And:
  case BinaryOp::Or:
    if (!a->isScalar() || !b->isScalar())
      return invalid(": 'and'/'or' need scalars");
    r = types->getBool();
    operandT = nullptr;
    break;
  case BinaryOp::MatMul: {
    auto *ma = dynamic_cast<const MatrixType *>(a);
    auto *mb = dynamic_cast<const MatrixType *>(b);
    auto *va = dynamic_cast<const VectorType *>(a);
    auto *vb = dynamic_cast<const VectorType *>(b);
    const Type *el = promoteScalars(*types, static_cast<const ScalarType *>(ea),
                                    static_cast<const ScalarType *>(eb));
    if (ma && mb && ma->cols == mb->rows)
      r = types->getMatrix(el, ma->rows, mb->cols);
    else if (ma && vb && ma->cols == vb->size)
      r = types->getVector(el, ma->rows);
    else if (va && mb && va->size == mb->rows)
      r = types->getVector(el, mb->cols);
    else if (va && vb && va->size == vb->size)
      r = el;
    else if ((ma || va) && (mb || vb))
      return invalid(": shapes do not match");
    else
      return invalid(": '@' needs vector or matrix operands");
    return r; // not folded
  }
  default: {
    if (isBitwise(e.op)) {
      if (!isIntLike(ea) || !isIntLike(eb))
        return invalid(": bitwise operations need integers");
      if ((e.op == BinaryOp::Shl || e.op == BinaryOp::Shr) && (ea->isBool() || eb->isBool()))
        return invalid(": shifts need integers");
    }
    const Type *p = promote(*types, a, b);
    if (!p)
      return invalid(": shapes do not match");
    operandT = p;
    r = p;
    if (e.op == BinaryOp::Shl || e.op == BinaryOp::Shr) {
      r = types->getTensorLike(p, ea);
      operandT = nullptr;
    }
    const Type *ep = elementType(p);
    if (ep->isBool() && !isBitwise(e.op))
      return invalid(": arithmetic on bool");
    if (e.op == BinaryOp::Div && !ep->isFloat()) {
      r = types->getTensorLike(p, defaultFloat);
      operandT = r;
    }
    break;
  }
  }
  if (operandT) {
    adoptContextType(*e.lhs, operandT);
    adoptContextType(*e.rhs, operandT);
  }
  const ConstValue *ca = constOf(*e.lhs), *cb = constOf(*e.rhs);
  if (ca && cb) {
    ConstValue x = operandT ? convertConst(*ca, operandT, *types, true) : *ca;
    ConstValue y = operandT ? convertConst(*cb, operandT, *types, true) : *cb;
    if (e.op == BinaryOp::Shl || e.op == BinaryOp::Shr)
      x = convertConst(*ca, r, *types);
    std::string err, warn;
    auto f = foldBinary(e.op, x, y, r, *types, err, &warn);
    if (f)
      setConst(e, *f);
    else if (!err.empty()) {
      error(opr, err);
      return nullptr;
    }
    if (!warn.empty())
      warning(e.range, warn);
  }
  return r;
}

const Type *Sema::checkCompare(CompareExpr &e) {
  std::vector<const Type *> ts;
  bool ok = true;
  for (auto &o : e.operands) {
    ts.push_back(checkExpr(*o));
    ok &= ts.back() != nullptr;
  }
  if (!ok)
    return nullptr;
  const Type *r = types->getBool();
  bool allConst = true;
  bool value = true;
  // Compile-time type comparisons: `x.dtype == f32`.
  if (e.ops.size() == 1 && ts[0]->kind() == Type::Kind::Meta &&
      ts[1]->kind() == Type::Kind::Meta &&
      (e.ops[0] == CmpOp::Eq || e.ops[0] == CmpOp::Ne)) {
    bool same = static_cast<const MetaType *>(ts[0])->type ==
                static_cast<const MetaType *>(ts[1])->type;
    setConst(e, ConstValue::makeBool(e.ops[0] == CmpOp::Eq ? same : !same, r));
    return r;
  }
  for (size_t i = 0; i < e.ops.size(); ++i) {
    const Type *a = ts[i], *b = ts[i + 1];
    const Type *p = (elementType(a) && elementType(b) && !a->isStruct() && !b->isStruct())
                        ? promote(*types, a, b)
                        : nullptr;
    if (!p) {
      error(e.opRanges[i], std::string("invalid operands to '") + spelling(e.ops[i]) + "' ('" +
                               typeName(a) + "' and '" + typeName(b) + "')");
      return nullptr;
    }
    if (p->isTensor()) {
      if (e.ops.size() > 1) {
        error(e.opRanges[i], "chained comparisons need scalar operands");
        return nullptr;
      }
      r = types->getTensorLike(p, types->getBool());
      allConst = false;
      continue;
    }
    adoptContextType(*e.operands[i], p);
    adoptContextType(*e.operands[i + 1], p);
    const ConstValue *ca = constOf(*e.operands[i]), *cb = constOf(*e.operands[i + 1]);
    if (ca && cb && allConst) {
      value = value && foldCompare(e.ops[i], convertConst(*ca, p, *types, true),
                                   convertConst(*cb, p, *types, true));
    } else {
      allConst = false;
    }
  }
  if (allConst)
    setConst(e, ConstValue::makeBool(value, r));
  return r;
}

const Type *Sema::checkTernary(TernaryExpr &e) {
  const Type *c = checkExpr(*e.cond);
  const Type *a = checkExpr(*e.trueValue);
  const Type *b = checkExpr(*e.falseValue);
  if (!c || !a || !b)
    return nullptr;
  if (!c->isScalar()) {
    error(e.cond->range, "condition must be a scalar, got '" + typeName(c) + "'");
    return nullptr;
  }
  const Type *r = a == b ? a : promote(*types, a, b);
  if (!r || !r->isValueType()) {
    error(e.range, "incompatible operand types '" + typeName(a) + "' and '" + typeName(b) +
                       "' in conditional expression");
    return nullptr;
  }
  adoptContextType(*e.trueValue, r);
  adoptContextType(*e.falseValue, r);
  const ConstValue *cv = constOf(*e.cond);
  if (cv) {
    const ConstValue *v = constOf(cv->asDouble() != 0 ? *e.trueValue : *e.falseValue);
    if (v)
      setConst(e, convertConst(*v, r, *types, /*keepExact=*/true));
  }
  return r;
}

const Type *Sema::checkList(ListExpr &e) {
  if (e.elements.empty()) {
    error(e.range, "empty list");
    return nullptr;
  }
  std::vector<const Type *> ts;
  bool ok = true;
  for (auto &x : e.elements) {
    ts.push_back(checkExpr(*x));
    ok &= ts.back() != nullptr;
  }
  if (!ok)
    return nullptr;
  // `(t, n, c)` with elements of different kinds (a scalar and a vector, two
  // vector sizes, a struct): a tuple, as a func returns several values in
  // Taichi (`return closest, normal, c`); destructure it with `let a, b = ...`.
  if (e.paren) {
    auto kindOf = [](const Type *t) -> int {
      if (t->isScalar())
        return 0;
      if (auto *v = dynamic_cast<const VectorType *>(t))
        return 1 + int(v->size);
      return -1;
    };
    bool uniform = kindOf(ts[0]) >= 0;
    for (const Type *t : ts)
      uniform &= kindOf(t) == kindOf(ts[0]);
    // Scalars of different types computed at run time keep their types, as
    // in Taichi (`return k * 2, x + 1` is an (i32, f32) tuple, not a vec2 of
    // f32); constants adapt to the others (`(i, 0.5)` is a vec2).
    const Type *runtimeScalar = nullptr;
    for (size_t i = 0; i < ts.size() && uniform; ++i) {
      if (!ts[i]->isScalar() || constOf(*e.elements[i]))
        continue;
      if (!runtimeScalar)
        runtimeScalar = ts[i];
      else if (ts[i] != runtimeScalar)
        uniform = false;
    }
    if (!uniform) {
      for (const Type *t : ts)
        if (!t->isValueType()) {
          error(e.range, "a tuple holds values, got '" + typeName(t) + "'");
          return nullptr;
        }
      return types->getTuple(ts);
    }
  }
  const Type *r = nullptr;
  if (ts[0]->isScalar()) {
    const ScalarType *el = static_cast<const ScalarType *>(ts[0]);
    for (size_t i = 0; i < ts.size(); ++i) {
      if (!ts[i]->isScalar()) {
        error(e.elements[i]->range, "list elements must all be scalars or all be vectors of "
                                    "one size; got '" + typeName(ts[i]) + "'");
        return nullptr;
      }
      el = promoteScalars(*types, el, static_cast<const ScalarType *>(ts[i]));
    }
    r = types->getVector(el, ts.size());
  } else if (auto *v0 = dynamic_cast<const VectorType *>(ts[0])) {
    const ScalarType *el = static_cast<const ScalarType *>(elementType(v0));
    for (size_t i = 0; i < ts.size(); ++i) {
      auto *vi = dynamic_cast<const VectorType *>(ts[i]);
      if (!vi || vi->size != v0->size) {
        error(e.elements[i]->range, "matrix rows must all be vectors of size " +
                                        std::to_string(v0->size) + "; got '" +
                                        typeName(ts[i]) + "'");
        return nullptr;
      }
      el = promoteScalars(*types, el, static_cast<const ScalarType *>(elementType(vi)));
    }
    r = types->getMatrix(el, ts.size(), v0->size);
  } else {
    error(e.elements[0]->range, "list elements must be scalars or vectors, got '" +
                                    typeName(ts[0]) + "'");
    return nullptr;
  }
  // Exact elements take the list's element type (`[x, 0.1]` with `x: f64`);
  // then fold.
  std::vector<ConstValue> es;
  const Type *el = elementType(r);
  for (auto &x : e.elements)
    adoptContextType(*x, el);
  for (auto &x : e.elements) {
    const ConstValue *v = constOf(*x);
    if (!v)
      return r;
    if (v->kind == ConstValue::Kind::Aggregate) {
      for (auto &c : v->elems)
        es.push_back(convertConst(c, el, *types, true));
    } else {
      es.push_back(convertConst(*v, el, *types, true));
    }
  }
  setConst(e, ConstValue::makeAggregate(std::move(es), r));
  return r;
}

const Type *Sema::checkStructLit(StructLitExpr &e) {
  for (auto &m : e.members)
    checkExpr(*m.value);
  auto g = globals.find(e.structName);
  const StructType *s = nullptr;
  if (g != globals.end() && (g->second.kind == GlobalEntry::Kind::Struct ||
                             g->second.kind == GlobalEntry::Kind::TypeAlias))
    s = dynamic_cast<const StructType *>(g->second.type);
  if (!s) {
    if (g == globals.end() || g->second.type)
      error(e.nameRange, "unknown struct '" + e.structName + "'");
    return nullptr;
  }
  std::vector<bool> given(s->members.size(), false);
  bool ok = true;
  std::vector<const ConstValue *> vals(s->members.size(), nullptr);
  for (auto &m : e.members) {
    int idx = s->memberIndex(m.name);
    if (idx < 0) {
      error(m.nameRange, "struct '" + s->name + "' has no member '" + m.name + "'");
      ok = false;
      continue;
    }
    if (given[idx]) {
      error(m.nameRange, "member '" + m.name + "' is initialized twice");
      ok = false;
      continue;
    }
    given[idx] = true;
    if (m.value->type &&
        !checkConvertible(m.value->type, s->members[idx].type, *m.value,
                          "member '" + m.name + "' of '" + s->name + "'"))
      ok = false;
    if (!m.value->type)
      ok = false;
    vals[idx] = constOf(*m.value);
  }
  for (size_t i = 0; i < given.size(); ++i)
    if (!given[i]) {
      error(e.range, "missing member '" + s->members[i].name + "' in literal of struct '" +
                         s->name + "'");
      ok = false;
    }
  if (!ok)
    return nullptr;
  std::vector<ConstValue> es;
  for (size_t i = 0; i < vals.size(); ++i) {
    if (!vals[i])
      return s;
    es.push_back(convertConst(*vals[i], s->members[i].type, *types));
  }
  setConst(e, ConstValue::makeAggregate(std::move(es), s));
  return s;
}

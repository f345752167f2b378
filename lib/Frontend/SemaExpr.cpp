//===- SemaExpr.cpp - Expressions: names, types, folding, builtins ---------===//

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

static bool isIntLike(const Type *t) { return t && (t->isInt() || t->isBool()); }

static std::string plural(size_t n, const char *w) {
  if (n != 1 && std::string(w) == "index")
    return std::to_string(n) + " indices";
  return std::to_string(n) + " " + w + (n == 1 ? "" : "s");
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

//===----------------------------------------------------------------------===//
// Index and member access
//===----------------------------------------------------------------------===//

const Type *Sema::checkIndex(IndexExpr &e) {
  const Type *bt = checkExpr(*e.base);
  std::vector<const Type *> its;
  bool ok = bt != nullptr;
  for (auto &i : e.indices) {
    its.push_back(checkExpr(*i));
    ok &= its.back() != nullptr;
  }
  if (!ok)
    return nullptr;
  // Integer indices; an integer vector stands for its components, alone
  // (`x[I]`) or beside scalars (`g[cell, k]`), as in Taichi.
  auto checkIntIndices = [&](unsigned ndim, const std::string &what) -> bool {
    unsigned count = 0;
    for (size_t k = 0; k < its.size(); ++k) {
      auto *v = dynamic_cast<const VectorType *>(its[k]);
      if (v && isIntLike(v->elem)) {
        count += v->size;
      } else if (its[k]->isInt()) {
        ++count;
      } else {
        error(e.indices[k]->range,
              "index must be an integer or an integer vector, got '" +
                  typeName(its[k]) + "'");
        return false;
      }
    }
    if (count == ndim)
      return true;
    if (ndim == 0)
      error(e.range, what + " is 0-D: access it with '[]'");
    else if (e.indices.size() == 1 && its[0]->isVector())
      error(e.indices[0]->range, what + " has " + plural(ndim, "dimension") +
                                     " but is indexed with a vector of size " +
                                     std::to_string(count));
    else
      error(e.range, what + " has " + plural(ndim, "dimension") +
                         " but is indexed with " + plural(count, "index"));
    return false;
  };
  if (auto *fr = dynamic_cast<const FieldRefType *>(bt)) {
    const FieldInfo *f = fieldOf(*e.base);
    e.indexKind = IndexExpr::IndexKind::Field;
    e.field = f;
    if (!checkIntIndices(fr->ndim, "field '" + (f ? f->name : std::string("?")) + "'"))
      return nullptr;
    return computeType(*types, fr->elem);
  }
  if (auto *nd = dynamic_cast<const NDArrayType *>(bt)) {
    e.indexKind = IndexExpr::IndexKind::NDArray;
    if (!checkIntIndices(nd->ndim, "ndarray"))
      return nullptr;
    return nd->elem;
  }
  if (auto *v = dynamic_cast<const VectorType *>(bt)) {
    e.indexKind = IndexExpr::IndexKind::Vector;
    if (e.indices.size() != 1 || !its[0]->isInt()) {
      error(e.range, "a vector is indexed with one integer");
      return nullptr;
    }
    const ConstValue *ci = constOf(*e.indices[0]);
    if (ci && (ci->i < 0 || ci->i >= int64_t(v->size))) {
      error(e.indices[0]->range, "index " + std::to_string(ci->i) +
                                     " is out of range for '" + typeName(v) + "'");
      return nullptr;
    }
    const Type *r = computeType(*types, v->elem);
    if (ci)
      if (const ConstValue *cb = constOf(*e.base))
        setConst(e, cb->elems[ci->i]);
    return r;
  }
  if (auto *m = dynamic_cast<const MatrixType *>(bt)) {
    e.indexKind = IndexExpr::IndexKind::Matrix;
    for (size_t k = 0; k < its.size(); ++k)
      if (!its[k]->isInt()) {
        error(e.indices[k]->range, "index must be an integer, got '" + typeName(its[k]) + "'");
        return nullptr;
      }
    if (e.indices.size() != 2 && e.indices.size() != 1) {
      error(e.range, "a matrix is indexed with m[row, col] or m[row]");
      return nullptr;
    }
    const ConstValue *cr = constOf(*e.indices[0]);
    const ConstValue *cc = e.indices.size() == 2 ? constOf(*e.indices[1]) : nullptr;
    if ((cr && (cr->i < 0 || cr->i >= int64_t(m->rows))) ||
        (cc && (cc->i < 0 || cc->i >= int64_t(m->cols)))) {
      error(e.range, "index out of range for '" + typeName(m) + "'");
      return nullptr;
    }
    const Type *el = computeType(*types, m->elem);
    if (e.indices.size() == 1)
      return types->getVector(el, m->cols);
    if (cr && cc)
      if (const ConstValue *cb = constOf(*e.base))
        setConst(e, cb->elems[cr->i * m->cols + cc->i]);
    return el;
  }
  if (auto *tt = dynamic_cast<const TupleType *>(bt)) {
    e.indexKind = IndexExpr::IndexKind::Tuple;
    const ConstValue *ci = e.indices.size() == 1 ? constOf(*e.indices[0]) : nullptr;
    if (!ci || !ci->isInt()) {
      error(e.range, "a tuple is indexed with one constant integer");
      return nullptr;
    }
    if (ci->i < 0 || ci->i >= int64_t(tt->elems.size())) {
      error(e.indices[0]->range, "index " + std::to_string(ci->i) + " is out of range for a "
                                 "tuple of " + std::to_string(tt->elems.size()) + " elements");
      return nullptr;
    }
    if (const ConstValue *cb = constOf(*e.base))
      setConst(e, cb->elems[ci->i]);
    return tt->elems[ci->i];
  }
  error(e.base->range, "cannot index a value of type '" + typeName(bt) + "'");
  return nullptr;
}

const Type *Sema::checkMember(MemberExpr &e) {
  const Type *bt = checkExpr(*e.base);
  if (!bt)
    return nullptr;
  if (auto *fr = dynamic_cast<const FieldRefType *>(bt)) {
    const FieldInfo *f = fieldOf(*e.base);
    std::string fname = f ? f->name : "?";
    if (e.member == "grad" || e.member == "dual") {
      const FieldInfo *c = f ? (e.member == "grad" ? f->grad : f->dual) : nullptr;
      if (!c) {
        error(e.memberRange, "field '" + fname + "' has no adjoint '" + fname + "." + e.member +
                                 "': declare it with " +
                                 (e.member == "grad" ? "needs_grad" : "needs_dual"));
        return nullptr;
      }
      e.field = c;
      return types->getFieldRef(c->elemType, c->ndim());
    }
    if (e.member == "shape") {
      if (f && f->unbounded) {
        error(e.memberRange, "field '" + fname + "' lies below a hash SNode and has no shape");
        return nullptr;
      }
      std::vector<const Type *> ts(fr->ndim, types->i32());
      const TupleType *tt = types->getTuple(ts);
      if (f) {
        std::vector<ConstValue> vs;
        for (int64_t s : f->shape)
          vs.push_back(ConstValue::makeInt(s, types->i32()));
        setConst(e, ConstValue::makeAggregate(std::move(vs), tt));
      }
      return tt;
    }
    if (e.member == "dtype") {
      setConst(e, ConstValue::makeType(fr->elem));
      return types->getMeta(fr->elem);
    }
    error(e.memberRange, "field '" + fname + "' has no member '" + e.member +
                             "' (expected shape, dtype, grad or dual)");
    return nullptr;
  }
  if (auto *nd = dynamic_cast<const NDArrayType *>(bt)) {
    if (e.member == "shape")
      return types->getTuple(std::vector<const Type *>(nd->ndim, types->i32()));
    error(e.memberRange, "ndarray has no member '" + e.member + "'");
    return nullptr;
  }
  if (auto *s = dynamic_cast<const StructType *>(bt)) {
    int idx = s->memberIndex(e.member);
    if (idx < 0) {
      error(e.memberRange, "struct '" + s->name + "' has no member '" + e.member + "'");
      return nullptr;
    }
    e.memberIndex = idx;
    if (const ConstValue *cb = constOf(*e.base))
      if (size_t(idx) < cb->elems.size())
        setConst(e, cb->elems[idx]);
    return s->members[idx].type;
  }
  if (auto *v = dynamic_cast<const VectorType *>(bt)) {
    static const std::string xyzw = "xyzw", rgba = "rgba";
    bool ok = !e.member.empty() && e.member.size() <= 4;
    for (char c : e.member) {
      size_t k = xyzw.find(c);
      if (k == std::string::npos)
        k = rgba.find(c);
      if (k == std::string::npos || k >= v->size) {
        ok = false;
        break;
      }
      e.components.push_back(unsigned(k));
    }
    if (!ok) {
      e.components.clear();
      error(e.memberRange, "'" + typeName(v) + "' has no component '" + e.member + "'");
      return nullptr;
    }
    const Type *el = computeType(*types, v->elem);
    const ConstValue *cb = constOf(*e.base);
    if (e.components.size() == 1) {
      if (cb)
        setConst(e, cb->elems[e.components[0]]);
      return el;
    }
    const Type *r = types->getVector(el, e.components.size());
    if (cb) {
      std::vector<ConstValue> es;
      for (unsigned k : e.components)
        es.push_back(cb->elems[k]);
      setConst(e, ConstValue::makeAggregate(std::move(es), r));
    }
    return r;
  }
  error(e.memberRange, "a value of type '" + typeName(bt) + "' has no member '" + e.member + "'");
  return nullptr;
}

bool Sema::isLValue(Expr &e, bool reportLet, std::string *why) {
  if (auto *n = dyn_cast<NameExpr>(&e)) {
    switch (n->ref.kind) {
    case NameRef::Local:
      if (!n->ref.local)
        return false;
      switch (n->ref.local->kind) {
      case LocalVar::Kind::Var:
      case LocalVar::Kind::Param:
        return true;
      case LocalVar::Kind::Let:
        *why = "cannot assign to '" + n->name + "': it is declared with 'let' (use 'var')";
        return false;
      case LocalVar::Kind::LoopVar:
        *why = "cannot assign to loop variable '" + n->name + "'";
        return false;
      }
      return false;
    case NameRef::Constant:
    case NameRef::CompileTime:
      *why = "cannot assign to compile-time constant '" + n->name + "'";
      return false;
    case NameRef::Field:
      *why = "cannot assign to field '" + n->name + "' without indices; write '" + n->name +
             (n->ref.field && n->ref.field->ndim() == 0 ? "[]" : "[...]") + " = ...'";
      return false;
    default:
      *why = "cannot assign to '" + n->name + "'";
      return false;
    }
  }
  if (auto *i = dyn_cast<IndexExpr>(&e)) {
    switch (i->indexKind) {
    case IndexExpr::IndexKind::Field:
    case IndexExpr::IndexKind::NDArray:
      return true;
    case IndexExpr::IndexKind::Vector:
    case IndexExpr::IndexKind::Matrix:
      return isLValue(*i->base, reportLet, why);
    default:
      *why = "expression is not assignable";
      return false;
    }
  }
  if (auto *m = dyn_cast<MemberExpr>(&e)) {
    if (m->memberIndex >= 0 || !m->components.empty()) {
      for (size_t a = 0; a < m->components.size(); ++a)
        for (size_t b = a + 1; b < m->components.size(); ++b)
          if (m->components[a] == m->components[b]) {
            *why = "cannot assign to swizzle '" + m->member + "' with repeated components";
            return false;
          }
      return isLValue(*m->base, reportLet, why);
    }
    *why = "expression is not assignable";
    return false;
  }
  if (auto *s = dyn_cast<StaticExpr>(&e))
    return isLValue(*s->operand, reportLet, why);
  *why = "expression is not assignable";
  return false;
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

static const char *kMethodBuiltins[] = {
    "norm",      "norm_sqr",    "normalized",    "norm_inv",
    "transpose", "determinant", "inverse",       "trace",
    "dot",       "cross",       "outer_product", "max",
    "min",       "sum",         "any",           "all",
};

/// The n x n identity matrix of element type `el`, as a constant.
static ConstValue identityConst(const MatrixType *m, TypeContext &types) {
  auto *el = static_cast<const ScalarType *>(m->elem);
  std::vector<ConstValue> es;
  for (unsigned r = 0; r < m->rows; ++r)
    for (unsigned c = 0; c < m->cols; ++c)
      es.push_back(
          convertConst(ConstValue::makeInt(r == c, types.i32()), el, types));
  return ConstValue::makeAggregate(std::move(es), m);
}

const Type *Sema::checkCall(CallExpr &e) {
  if (auto *m = dyn_cast<MemberExpr>(e.callee.get())) {
    m->type = types->getVoid();
    // Methods: x[i].append(v), x[i].length(), x[i].deactivate(), v.norm(), ...
    if (m->member == "append" || m->member == "length" || m->member == "deactivate") {
      Builtin b = m->member == "append"   ? Builtin::Append
                  : m->member == "length" ? Builtin::Length
                                          : Builtin::DeactivateCell;
      return checkBuiltin(e, b, m->base.get());
    }
    // `mat3.identity()`: a method of square matrix types (Taichi's
    // ti.Matrix.identity(dt, n)).
    if (m->member == "identity") {
      const Type *bt = checkExpr(*m->base);
      auto *meta = dynamic_cast<const MetaType *>(bt);
      auto *mt = meta ? dynamic_cast<const MatrixType *>(meta->type) : nullptr;
      if (!mt || mt->rows != mt->cols || !mt->elem->isScalar()) {
        if (bt)
          error(m->memberRange, "'identity' is a method of square matrix types "
                                "('mat3.identity()'); got '" +
                                    typeName(bt) + "'");
        return nullptr;
      }
      if (!e.args.empty()) {
        error(e.range, "'identity' takes no arguments");
        return nullptr;
      }
      e.callKind = CallExpr::CallKind::Builtin;
      e.builtin = Builtin::Identity;
      setConst(e, identityConst(mt, *types));
      return mt;
    }
    for (const char *n : kMethodBuiltins)
      if (m->member == n)
        return checkBuiltin(e, builtinFuncs[n], m->base.get());
    checkExpr(*m->base);
    error(m->memberRange, "unknown method '" + m->member + "'");
    return nullptr;
  }
  auto *n = dyn_cast<NameExpr>(e.callee.get());
  if (!n) {
    checkExpr(*e.callee);
    error(e.callee->range, "expression is not callable");
    return nullptr;
  }
  n->type = types->getVoid();
  if (const LocalBinding *lb = lookupLocal(n->name)) {
    if (lb->kind == LocalBinding::Kind::Value && lb->value.kind == ConstValue::Kind::Type) {
      const Type *t = lb->value.type;
      n->ref.kind = NameRef::Type;
      n->ref.typeRef = t;
      if (e.args.size() == 1 && t->isScalar()) {
        e.callKind = CallExpr::CallKind::Cast;
        e.target = t;
        return checkCast(e, t, *e.args[0].value);
      }
    }
    error(n->range, "'" + n->name + "' is not a function");
    for (auto &a : e.args)
      checkExpr(*a.value);
    return nullptr;
  }
  auto g = globals.find(n->name);
  const Type *typeCallee = nullptr;
  // A kernel or instance named like a builtin (`kernel norm()`) cannot be
  // called from kernel code anyway: the call means the builtin.
  if (g != globals.end() && builtinFuncs.count(n->name) &&
      (g->second.kind == GlobalEntry::Kind::Kernel ||
       g->second.kind == GlobalEntry::Kind::Instance))
    g = globals.end();
  if (g != globals.end()) {
    switch (g->second.kind) {
    case GlobalEntry::Kind::Func:
      n->ref.kind = NameRef::Func;
      return checkFuncCall(e, *g->second.func);
    case GlobalEntry::Kind::Kernel:
      error(n->range, "kernel '" + n->name + "' cannot be called from a kernel or func; "
                      "kernels are entry points called from the host");
      note(g->second.range, "'" + n->name + "' is declared here");
      return nullptr;
    case GlobalEntry::Kind::Struct:
      error(n->range, "construct struct '" + n->name + "' with a literal '" + n->name +
                          "{member: value, ...}'");
      return nullptr;
    case GlobalEntry::Kind::TypeAlias:
      if (!g->second.type)
        return nullptr;
      typeCallee = g->second.type;
      break;
    default:
      error(n->range, "'" + n->name + "' is not a function");
      return nullptr;
    }
  }
  if (!typeCallee) {
    if (auto *s = types->getScalarByName(n->name))
      typeCallee = s;
    else if (builtinTypes.count(n->name))
      typeCallee = builtinTypes[n->name];
  }
  if (typeCallee) {
    n->ref.kind = NameRef::Type;
    n->ref.typeRef = typeCallee;
    if (typeCallee->isQuant()) {
      error(n->range, "cannot convert to quantized type '" + n->name + "'");
      return nullptr;
    }
    for (auto &a : e.args)
      if (!a.name.empty()) {
        error(a.nameRange, "'" + n->name + "(...)' takes no named arguments");
        return nullptr;
      }
    if (typeCallee->isScalar()) {
      e.callKind = CallExpr::CallKind::Cast;
      e.target = typeCallee;
      if (e.args.size() != 1) {
        error(e.range, "conversion to '" + typeName(typeCallee) + "' expects 1 argument, got " +
                           std::to_string(e.args.size()));
        return nullptr;
      }
      return checkCast(e, typeCallee, *e.args[0].value);
    }
    if (typeCallee->isTensor()) {
      e.callKind = CallExpr::CallKind::Construct;
      e.target = typeCallee;
      unsigned total = 0, rows = 0, cols = 0;
      if (auto *v = dynamic_cast<const VectorType *>(typeCallee))
        total = v->size;
      else {
        auto *m = static_cast<const MatrixType *>(typeCallee);
        rows = m->rows;
        cols = m->cols;
        total = rows * cols;
      }
      const Type *el = elementType(typeCallee);
      std::vector<ConstValue> vals;
      bool allConst = true;
      unsigned count = 0;
      for (auto &a : e.args) {
        const Type *t = checkExpr(*a.value);
        if (!t)
          return nullptr;
        if (t->isScalar()) {
          checkConvertible(t, el, *a.value, "construction of '" + typeName(typeCallee) + "'");
          ++count;
        } else if (auto *v = dynamic_cast<const VectorType *>(t); v && rows && v->size == cols) {
          count += v->size;
        } else {
          error(a.value->range, "invalid argument of type '" + typeName(t) +
                                    "' to construct '" + typeName(typeCallee) + "'");
          return nullptr;
        }
        const ConstValue *c = constOf(*a.value);
        if (!c)
          allConst = false;
        else if (c->kind == ConstValue::Kind::Aggregate)
          for (auto &x : c->elems)
            vals.push_back(convertConst(x, el, *types));
        else
          vals.push_back(convertConst(*c, el, *types));
      }
      if (count != total && !(count == 1 && e.args.size() == 1)) {
        error(e.range, "'" + typeName(typeCallee) + "' needs " + std::to_string(total) +
                           " components, got " + std::to_string(count));
        return nullptr;
      }
      if (allConst) {
        if (vals.size() == 1)
          vals.assign(total, vals[0]);
        setConst(e, ConstValue::makeAggregate(std::move(vals), typeCallee));
      }
      return typeCallee;
    }
    error(n->range, "cannot call type '" + typeName(typeCallee) + "'");
    return nullptr;
  }
  auto bf = builtinFuncs.find(n->name);
  if (bf != builtinFuncs.end()) {
    n->ref.kind = NameRef::Builtin;
    n->ref.builtin = bf->second;
    return checkBuiltin(e, bf->second, nullptr);
  }
  if (n->name == "static_assert") {
    error(n->range, "static_assert is a statement");
    return nullptr;
  }
  error(n->range, "use of undeclared identifier '" + n->name + "'");
  for (auto &a : e.args)
    checkExpr(*a.value);
  return nullptr;
}

const Type *Sema::checkFuncCall(CallExpr &e, const FunctionDecl &fd) {
  e.callKind = CallExpr::CallKind::Func;
  size_t np = fd.params.size();
  std::vector<Argument *> slot(np, nullptr);
  size_t pos = 0;
  bool ok = true;
  for (auto &a : e.args) {
    size_t idx = pos;
    if (!a.name.empty()) {
      idx = np;
      for (size_t i = 0; i < np; ++i)
        if (fd.params[i].name.name == a.name)
          idx = i;
      if (idx == np) {
        error(a.nameRange, "func '" + fd.name.name + "' has no parameter named '" + a.name + "'");
        ok = false;
        continue;
      }
    } else {
      ++pos;
    }
    if (idx >= np) {
      error(e.range, "func '" + fd.name.name + "' expects " + plural(np, "argument") +
                         ", got " + std::to_string(e.args.size()));
      note(fd.name.range, "'" + fd.name.name + "' is declared here");
      return nullptr;
    }
    if (slot[idx]) {
      error(a.value->range, "parameter '" + fd.params[idx].name.name + "' is given twice");
      ok = false;
      continue;
    }
    slot[idx] = &a;
  }
  for (size_t i = 0; i < np && ok; ++i)
    if (!slot[i]) {
      error(e.range, "func '" + fd.name.name + "' expects " + plural(np, "argument") +
                         ", got " + std::to_string(e.args.size()));
      note(fd.name.range, "'" + fd.name.name + "' is declared here");
      return nullptr;
    }
  if (!ok)
    return nullptr;
  std::vector<TemplateArg> targs;
  std::vector<const Type *> argTypes(np, nullptr), inferred;
  for (size_t i = 0; i < np; ++i) {
    if (isa<TemplateTypeExpr>(fd.params[i].type.get())) {
      auto ta = templateArgFrom(*slot[i]->value, fd.params[i].name.name);
      if (!ta)
        ok = false;
      else
        targs.push_back(*ta);
    } else {
      argTypes[i] = checkExpr(*slot[i]->value);
      ok &= argTypes[i] != nullptr;
      // `func f(a)`: the parameter takes the argument's type.
      if (isa<InferredTypeExpr>(fd.params[i].type.get()))
        inferred.push_back(argTypes[i]);
    }
  }
  if (!ok)
    return nullptr;
  // Reorder arguments into parameter order.
  std::vector<Argument> ordered;
  for (size_t i = 0; i < np; ++i)
    ordered.push_back(std::move(*slot[i]));
  e.args = std::move(ordered);
  CheckedFunction *f = instantiate(fd, targs, e.range, false, "", inferred);
  if (!f)
    return nullptr;
  for (size_t i = 0; i < np; ++i)
    if (!f->params[i].isTemplate && f->params[i].type && argTypes[i])
      checkConvertible(argTypes[i], f->params[i].type, *e.args[i].value,
                       "argument '" + f->params[i].name + "' of '" +
                           fd.name.name + "'",
                       /*quietIntToFloat=*/true);
  if (!f->returnType) {
    error(e.range, "the return type of '" + fd.name.name +
                       "' is inferred from its returns, but this recursive "
                       "call comes before "
                       "any of them");
    return nullptr;
  }
  e.func = f;
  return f->returnType;
}

//===----------------------------------------------------------------------===//
// Builtins
//===----------------------------------------------------------------------===//

static double applyMath(Builtin b, double x) {
  switch (b) {
  case Builtin::Sin: return std::sin(x);
  case Builtin::Cos: return std::cos(x);
  case Builtin::Tan: return std::tan(x);
  case Builtin::Asin: return std::asin(x);
  case Builtin::Acos: return std::acos(x);
  case Builtin::Tanh: return std::tanh(x);
  case Builtin::Exp: return std::exp(x);
  case Builtin::Log: return std::log(x);
  case Builtin::Sqrt: return std::sqrt(x);
  case Builtin::Rsqrt: return 1.0 / std::sqrt(x);
  case Builtin::Floor: return std::floor(x);
  case Builtin::Ceil: return std::ceil(x);
  case Builtin::Round: return std::round(x);
  default: return x;
  }
}

const Type *Sema::checkBuiltin(CallExpr &e, Builtin b, Expr *receiver) {
  e.callKind = CallExpr::CallKind::Builtin;
  e.builtin = b;
  std::string name = builtinName(b);
  SourceRange nameRange = e.callee->range;
  if (auto *m = dyn_cast<MemberExpr>(e.callee.get()))
    nameRange = m->memberRange;
  // Named arguments only for loop_config.
  if (b != Builtin::LoopConfig)
    for (auto &a : e.args)
      if (!a.name.empty()) {
        error(a.nameRange, "'" + name + "' takes no named arguments");
        return nullptr;
      }
  // Sparse methods on a partial field access.
  if (b == Builtin::Append || b == Builtin::Length || b == Builtin::DeactivateCell) {
    const FieldInfo *f = nullptr;
    std::vector<Expr *> idx;
    if (auto *ix = dyn_cast<IndexExpr>(receiver)) {
      const Type *bt = checkExpr(*ix->base);
      if (!bt)
        return nullptr;
      f = fieldOf(*ix->base);
      for (auto &i : ix->indices) {
        const Type *it = checkExpr(*i);
        if (!it)
          return nullptr;
        if (!it->isInt()) {
          error(i->range, "index must be an integer, got '" + typeName(it) + "'");
          return nullptr;
        }
        idx.push_back(i.get());
      }
      ix->indexKind = IndexExpr::IndexKind::Field;
      ix->field = f;
      if (f)
        ix->type = types->getFieldRef(f->elemType, 1);
    } else {
      const Type *bt = checkExpr(*receiver);
      if (!bt)
        return nullptr;
      f = fieldOf(*receiver);
    }
    if (!f) {
      error(receiver->range, "'" + std::string(e.callee->kind == Expr::Member
                                                   ? cast<MemberExpr>(e.callee.get())->member
                                                   : name) +
                                 "' is a method of a dynamic field cell: x[i].append(v)");
      return nullptr;
    }
    if (!f->place || f->place->kind != SNode::Kind::Dynamic) {
      error(receiver->range, "field '" + f->name + "' is not placed in a dynamic SNode");
      return nullptr;
    }
    if (idx.size() + 1 != f->ndim()) {
      error(receiver->range, "'" + cast<MemberExpr>(e.callee.get())->member + "' on field '" +
                                 f->name + "' needs " + plural(f->ndim() - 1, "index") +
                                 " (all but the dynamic axis), got " + std::to_string(idx.size()));
      return nullptr;
    }
    size_t want = b == Builtin::Append ? 1 : 0;
    if (e.args.size() != want) {
      error(e.range, "'" + cast<MemberExpr>(e.callee.get())->member + "' expects " +
                         plural(want, "argument") + ", got " + std::to_string(e.args.size()));
      return nullptr;
    }
    if (b == Builtin::Append) {
      const Type *vt = checkExpr(*e.args[0].value);
      if (!vt)
        return nullptr;
      checkConvertible(vt, computeType(*types, f->elemType), *e.args[0].value, "append");
      return types->i32();
    }
    return b == Builtin::Length ? (const Type *)types->i32() : types->getVoid();
  }

  std::vector<Expr *> ops;
  if (receiver)
    ops.push_back(receiver);
  for (auto &a : e.args)
    ops.push_back(a.value.get());
  auto arity = [&](size_t lo, size_t hi) {
    if (ops.size() < lo || ops.size() > hi) {
      std::string exp = lo == hi ? std::to_string(lo)
                        : hi == size_t(-1) ? "at least " + std::to_string(lo)
                                           : std::to_string(lo) + " or " + std::to_string(hi);
      error(e.range, "'" + name + "' expects " + exp + " argument" +
                         (lo == 1 && hi == 1 ? "" : "s") + ", got " + std::to_string(ops.size()));
      return false;
    }
    return true;
  };

  // Builtins that do not check their operands as plain values first.
  if (b == Builtin::LoopConfig) {
    for (auto &a : e.args) {
      const Type *t = checkExpr(*a.value);
      if (!t)
        return nullptr;
      if (a.name != "serialize" && a.name != "parallelize" && a.name != "block_dim") {
        error(a.name.empty() ? a.value->range : a.nameRange,
              a.name.empty() ? "loop_config arguments must be named (serialize, parallelize, "
                               "block_dim)"
                             : "unknown loop_config option '" + a.name +
                                   "' (expected serialize, parallelize or block_dim)");
        return nullptr;
      }
      const ConstValue *v = constOf(*a.value);
      if (!v) {
        error(a.value->range, "loop_config option '" + a.name + "' must be a compile-time constant");
        return nullptr;
      }
      if (a.name == "serialize" ? v->kind != ConstValue::Kind::Bool
                                : (v->kind != ConstValue::Kind::Int || v->i < 1)) {
        error(a.value->range, a.name == "serialize"
                                  ? "loop_config option 'serialize' must be true or false"
                                  : "loop_config option '" + a.name +
                                        "' must be a positive integer");
        return nullptr;
      }
    }
    return types->getVoid();
  }
  if (b == Builtin::NDRange) {
    if (!arity(1, kMaxAxes * 2))
      return nullptr;
    for (Expr *o : ops) {
      if (auto *l = dyn_cast<ListExpr>(o)) {
        if (l->elements.size() != 2) {
          error(l->range, "ndrange bounds are integers or (begin, end) pairs");
          return nullptr;
        }
        for (auto &x : l->elements) {
          const Type *t = checkExpr(*x);
          if (!t)
            return nullptr;
          if (!t->isInt()) {
            error(x->range, "ndrange bounds must be integers, got '" + typeName(t) + "'");
            return nullptr;
          }
        }
        l->type = types->getVector(types->i32(), 2);
        continue;
      }
      const Type *t = checkExpr(*o);
      if (!t)
        return nullptr;
      if (!t->isInt()) {
        error(o->range, "ndrange bounds must be integers, got '" + typeName(t) + "'");
        return nullptr;
      }
    }
    return types->getRange(ops.size(), false);
  }

  std::vector<const Type *> ts;
  bool ok = true;
  for (Expr *o : ops) {
    ts.push_back(checkExpr(*o));
    ok &= ts.back() != nullptr;
  }
  if (!ok)
    return nullptr;
  auto numericOperand = [&](size_t i) -> bool {
    const Type *el = elementType(ts[i]);
    if (!el || el->isBool() || ts[i]->isStruct()) {
      error(ops[i]->range, "invalid argument of type '" + typeName(ts[i]) + "' to '" + name + "'");
      return false;
    }
    return true;
  };
  auto floatOf = [&](const Type *t) -> const Type * {
    const Type *el = elementType(t);
    return types->getTensorLike(t, el->isFloat() ? el : defaultFloat);
  };
  auto allConst = [&]() {
    for (Expr *o : ops)
      if (!constOf(*o))
        return false;
    return true;
  };
  auto vecArg = [&](size_t i) -> const VectorType * {
    auto *v = dynamic_cast<const VectorType *>(ts[i]);
    if (!v)
      error(ops[i]->range, "'" + name + "' expects a vector, got '" + typeName(ts[i]) + "'");
    return v;
  };
  auto squareArg = [&](size_t i, unsigned lo, unsigned hi) -> const MatrixType * {
    auto *m = dynamic_cast<const MatrixType *>(ts[i]);
    if (!m || m->rows != m->cols || m->rows < lo || m->rows > hi) {
      std::string sizes = lo == hi ? std::to_string(lo) + "x" + std::to_string(lo)
                                   : lo == 2 && hi == 3 ? "2x2 or 3x3"
                                                        : "square (up to " + std::to_string(hi) +
                                                              "x" + std::to_string(hi) + ")";
      error(ops[i]->range, "'" + name + "' expects a " + sizes + " matrix, got '" +
                               typeName(ts[i]) + "'");
      return nullptr;
    }
    return m;
  };
  auto foldElementwise = [&](const Type *r, std::function<double(double)> fn) {
    if (!allConst() || r->isTensor())
      return;
    auto *rs = static_cast<const ScalarType *>(r);
    const ConstValue *c = constOf(*ops[0]);
    double y = fn(c->asDouble());
    // Math on exact constants folds in double, as Taichi does in Python
    // (`ti.sqrt(2.0)` is `math.sqrt(2.0)`), and stays exact.
    if (rs->isFloat() && (c->exact || c->isInt())) {
      ConstValue v = ConstValue::makeFloat(y, rs);
      v.exact = true;
      setConst(e, v);
    } else if (rs->isFloat())
      setConst(e, ConstValue::makeFloat(roundFloat(y, rs), rs));
    else
      setConst(e, convertConst(ConstValue::makeFloat(y, nullptr), rs, *types));
  };

  switch (b) {
  case Builtin::Sin: case Builtin::Cos: case Builtin::Tan: case Builtin::Asin:
  case Builtin::Acos: case Builtin::Tanh: case Builtin::Exp: case Builtin::Log:
  case Builtin::Sqrt: case Builtin::Rsqrt: case Builtin::Floor: case Builtin::Ceil:
  case Builtin::Round: {
    if (!arity(1, 1) || !numericOperand(0))
      return nullptr;
    const Type *r = floatOf(ts[0]);
    foldElementwise(r, [&](double x) { return applyMath(b, x); });
    return r;
  }
  case Builtin::Abs: {
    if (!arity(1, 1) || !numericOperand(0))
      return nullptr;
    const Type *r = types->getTensorLike(ts[0], elementType(ts[0]));
    foldElementwise(r, [](double x) { return std::fabs(x); });
    if (allConst() && r->isInt()) {
      const ConstValue *c = constOf(*ops[0]);
      setConst(e, ConstValue::makeInt(wrapInt(c->i < 0 ? int64_t(0 - uint64_t(c->i)) : c->i,
                                              static_cast<const ScalarType *>(r)), r));
    }
    return r;
  }
  case Builtin::Pow:
  case Builtin::Atan2: {
    if (!arity(2, 2) || !numericOperand(0) || !numericOperand(1))
      return nullptr;
    const Type *p = promote(*types, ts[0], ts[1]);
    if (!p) {
      error(e.range, "arguments of '" + name + "' have incompatible shapes ('" +
                         typeName(ts[0]) + "' and '" + typeName(ts[1]) + "')");
      return nullptr;
    }
    const Type *r = b == Builtin::Atan2 ? floatOf(p) : p;
    adoptContextType(*ops[0], r);
    adoptContextType(*ops[1], r);
    if (allConst() && r->isScalar()) {
      ConstValue x = convertConst(*constOf(*ops[0]), r, *types, true);
      ConstValue y = convertConst(*constOf(*ops[1]), r, *types, true);
      if (b == Builtin::Pow) {
        std::string err;
        auto f = foldBinary(BinaryOp::Pow, x, y, r, *types, err);
        if (!f && !err.empty()) {
          error(e.range, err);
          return nullptr;
        }
        if (f)
          setConst(e, *f);
      } else {
        auto *rs = static_cast<const ScalarType *>(r);
        bool exact = x.exact && y.exact;
        double v = std::atan2(x.f, y.f);
        ConstValue c = ConstValue::makeFloat(exact ? v : roundFloat(v, rs), rs);
        c.exact = exact;
        setConst(e, c);
      }
    }
    return r;
  }
  case Builtin::Min:
  case Builtin::Max:
  case Builtin::Clamp: {
    // v.max(), min(v): the largest / smallest component (Taichi's
    // Matrix.max()).
    if (b != Builtin::Clamp && ops.size() == 1 && ts[0]->isTensor()) {
      if (!numericOperand(0))
        return nullptr;
      return elementType(ts[0]);
    }
    if (b == Builtin::Clamp ? !arity(3, 3) : !arity(2, size_t(-1)))
      return nullptr;
    const Type *p = ts[0];
    for (size_t i = 0; i < ts.size(); ++i) {
      if (!numericOperand(i))
        return nullptr;
      const Type *q = promote(*types, p, ts[i]);
      if (!q) {
        error(ops[i]->range, "arguments of '" + name + "' have incompatible shapes ('" +
                                 typeName(p) + "' and '" + typeName(ts[i]) + "')");
        return nullptr;
      }
      p = q;
    }
    for (Expr *o : ops)
      adoptContextType(*o, p);
    if (allConst() && p->isScalar()) {
      std::vector<ConstValue> vs;
      for (Expr *o : ops)
        vs.push_back(convertConst(*constOf(*o), p, *types, true));
      auto less = [&](const ConstValue &x, const ConstValue &y) {
        return foldCompare(CmpOp::Lt, x, y);
      };
      ConstValue r = vs[0];
      if (b == Builtin::Clamp) {
        if (less(r, vs[1]))
          r = vs[1];
        if (less(vs[2], r))
          r = vs[2];
      } else {
        for (size_t i = 1; i < vs.size(); ++i)
          if (b == Builtin::Min ? less(vs[i], r) : less(r, vs[i]))
            r = vs[i];
      }
      setConst(e, r);
    }
    return p;
  }
  case Builtin::Select: {
    if (!arity(3, 3))
      return nullptr;
    if (!ts[0]->isScalar() && !(ts[0]->isTensor() && isIntLike(elementType(ts[0])))) {
      error(ops[0]->range, "condition of 'select' must be a scalar, got '" + typeName(ts[0]) + "'");
      return nullptr;
    }
    const Type *p = ts[1] == ts[2] ? ts[1] : promote(*types, ts[1], ts[2]);
    if (!p) {
      error(e.range, "incompatible operand types '" + typeName(ts[1]) + "' and '" +
                         typeName(ts[2]) + "' in 'select'");
      return nullptr;
    }
    adoptContextType(*ops[1], p);
    adoptContextType(*ops[2], p);
    if (allConst() && ts[0]->isScalar())
      setConst(e, convertConst(
                      *constOf(*ops[constOf(*ops[0])->asDouble() != 0 ? 1 : 2]),
                      p, *types, true));
    return p;
  }
  case Builtin::Random: {
    if (!arity(0, 1))
      return nullptr;
    if (ops.size() == 1) {
      auto *m = dynamic_cast<const MetaType *>(ts[0]);
      if (!m || !m->type->isNumeric()) {
        error(ops[0]->range, "'random' takes an optional scalar type, like random(f64)");
        return nullptr;
      }
      return m->type;
    }
    return defaultFloat;
  }
  case Builtin::Dot: {
    if (!arity(2, 2))
      return nullptr;
    auto *a = vecArg(0), *c = a ? vecArg(1) : nullptr;
    if (!a || !c)
      return nullptr;
    if (a->size != c->size) {
      error(e.range, "'dot' of vectors of different sizes ('" + typeName(a) + "' and '" +
                         typeName(c) + "')");
      return nullptr;
    }
    return elementType(promote(*types, a, c));
  }
  case Builtin::Cross: {
    if (!arity(2, 2))
      return nullptr;
    auto *a = vecArg(0), *c = a ? vecArg(1) : nullptr;
    if (!a || !c)
      return nullptr;
    if (a->size != c->size || (a->size != 2 && a->size != 3)) {
      error(e.range, "'cross' needs two vectors of size 2 or 3, got '" + typeName(a) +
                         "' and '" + typeName(c) + "'");
      return nullptr;
    }
    const Type *p = promote(*types, a, c);
    return a->size == 3 ? p : elementType(p);
  }
  case Builtin::Norm:
  case Builtin::NormInv:
  case Builtin::NormSqr:
  case Builtin::Normalized: {
    // norm(v, eps) = sqrt(norm_sqr(v) + eps), norm_inv(v, eps) =
    // rsqrt(norm_sqr(v) + eps), normalized(v, eps) = v / (norm(v) + eps),
    // as Taichi writes them.
    if (!arity(1, b == Builtin::NormSqr ? 1 : 2))
      return nullptr;
    if (!ts[0]->isTensor() || (b == Builtin::Normalized && !ts[0]->isVector())) {
      vecArg(0);
      return nullptr;
    }
    const Type *f = floatOf(ts[0]);
    if (ops.size() == 2) {
      if (!ts[1]->isScalar() || !numericOperand(1)) {
        if (!ts[1]->isScalar())
          error(ops[1]->range, "eps of '" + name + "' must be a scalar, got '" +
                                   typeName(ts[1]) + "'");
        return nullptr;
      }
      adoptContextType(*ops[1], elementType(f));
    }
    if (b == Builtin::Normalized)
      return f;
    return b == Builtin::NormSqr ? elementType(ts[0]) : elementType(f);
  }
  case Builtin::Sum:
  case Builtin::Any:
  case Builtin::All: {
    // v.sum(), v.any(), v.all() over the components (row-major, left fold).
    if (!arity(1, 1))
      return nullptr;
    if (!ts[0]->isTensor()) {
      error(ops[0]->range, "'" + name + "' needs a vector or matrix, got '" +
                               typeName(ts[0]) + "'");
      return nullptr;
    }
    if (b != Builtin::Sum)
      return types->getBool();
    if (!numericOperand(0))
      return nullptr;
    return elementType(ts[0]);
  }
  case Builtin::Zero: {
    // zero(x) = x * 0, elementwise, keeping the sign of -0.0 (Taichi).
    if (!arity(1, 1) || !numericOperand(0))
      return nullptr;
    return ts[0];
  }
  case Builtin::Identity: {
    // identity(n) (default float type) or identity(T, n).
    if (!arity(1, 2))
      return nullptr;
    const Type *el = defaultFloat;
    size_t ni = ops.size() - 1;
    if (ops.size() == 2) {
      auto *meta = dynamic_cast<const MetaType *>(ts[0]);
      if (!meta || !meta->type->isScalar()) {
        error(ops[0]->range,
              "the element type of 'identity' must be a scalar type, got '" +
                  typeName(ts[0]) + "'");
        return nullptr;
      }
      el = meta->type;
    }
    const ConstValue *n = constOf(*ops[ni]);
    if (!n || !ts[ni]->isInt() || n->asInt() < 1 || n->asInt() > 16) {
      error(
          ops[ni]->range,
          "the size of 'identity' must be a compile-time integer from 1 to 16");
      return nullptr;
    }
    auto *mt = static_cast<const MatrixType *>(
        types->getMatrix(el, unsigned(n->asInt()), unsigned(n->asInt())));
    setConst(e, identityConst(mt, *types));
    return mt;
  }
  case Builtin::OuterProduct: {
    if (!arity(2, 2))
      return nullptr;
    auto *a = vecArg(0), *c = a ? vecArg(1) : nullptr;
    if (!a || !c)
      return nullptr;
    auto *el = promoteScalars(*types, static_cast<const ScalarType *>(elementType(a)),
                              static_cast<const ScalarType *>(elementType(c)));
    return types->getMatrix(el, a->size, c->size);
  }
  case Builtin::Transpose: {
    if (!arity(1, 1))
      return nullptr;
    auto *m = dynamic_cast<const MatrixType *>(ts[0]);
    if (!m) {
      error(ops[0]->range, "'transpose' expects a matrix, got '" + typeName(ts[0]) + "'");
      return nullptr;
    }
    return types->getMatrix(elementType(m), m->cols, m->rows);
  }
  case Builtin::Determinant:
  case Builtin::Inverse:
  case Builtin::Trace: {
    if (!arity(1, 1))
      return nullptr;
    auto *m = squareArg(0, 1, b == Builtin::Trace ? 32 : 4);
    if (!m)
      return nullptr;
    if (b == Builtin::Trace)
      return elementType(m);
    const Type *f = floatOf(m);
    return b == Builtin::Inverse ? f : elementType(f);
  }
  case Builtin::Svd:
  case Builtin::PolarDecompose:
  case Builtin::SymEig: {
    if (!arity(1, 1))
      return nullptr;
    auto *m = squareArg(0, 2, 3);
    if (!m)
      return nullptr;
    const Type *f = floatOf(m);
    if (b == Builtin::Svd)
      return types->getTuple({f, f, f});
    if (b == Builtin::PolarDecompose)
      return types->getTuple({f, f});
    return types->getTuple({types->getVector(elementType(f), m->rows), f});
  }
  case Builtin::AtomicAdd: case Builtin::AtomicSub: case Builtin::AtomicMin:
  case Builtin::AtomicMax: case Builtin::AtomicAnd: case Builtin::AtomicOr:
  case Builtin::AtomicXor: {
    if (!arity(2, 2))
      return nullptr;
    std::string why;
    if (!isLValue(*ops[0], true, &why)) {
      error(ops[0]->range, "first argument of '" + name + "' must be a field element or a "
                           "'var' variable" + (why.empty() ? "" : ": " + why));
      return nullptr;
    }
    if (!numericOperand(0) || !numericOperand(1))
      return nullptr;
    bool bitwise = b == Builtin::AtomicAnd || b == Builtin::AtomicOr || b == Builtin::AtomicXor;
    if (bitwise && (!elementType(ts[0])->isInt() || !elementType(ts[1])->isInt())) {
      error(e.range, "'" + name + "' needs integer operands");
      return nullptr;
    }
    checkConvertible(ts[1], ts[0], *ops[1], "'" + name + "'");
    return ts[0];
  }
  case Builtin::Activate:
  case Builtin::Deactivate:
  case Builtin::IsActive: {
    if (!arity(2, 2))
      return nullptr;
    const SNode *sn = snodeOf(*ops[0]);
    if (!sn)
      if (const FieldInfo *f = fieldOf(*ops[0]))
        sn = f->place;
    if (!sn) {
      error(ops[0]->range, "first argument of '" + name + "' must be an SNode or a field, got '" +
                               typeName(ts[0]) + "'");
      return nullptr;
    }
    if (b != Builtin::IsActive && !sn->isSparse()) {
      error(ops[0]->range, "'" + name + "' needs a sparse SNode (pointer, bitmasked, hash or "
                           "dynamic), got a " + SNode::kindName(sn->kind) + " SNode");
      return nullptr;
    }
    unsigned nd = sn->ndim();
    auto *v = dynamic_cast<const VectorType *>(ts[1]);
    bool okIdx = (v && v->size == nd && isIntLike(v->elem)) ||
                 (nd == 1 && ts[1]->isInt());
    if (!okIdx) {
      error(ops[1]->range, "'" + name + "' on this SNode needs " + plural(nd, "index") +
                               " ([i, j, ...]), got '" + typeName(ts[1]) + "'");
      return nullptr;
    }
    return b == Builtin::IsActive ? (const Type *)types->i32() : types->getVoid();
  }
  case Builtin::RescaleIndex: {
    if (!arity(3, 3))
      return nullptr;
    const SNode *from = snodeOf(*ops[0]), *to = snodeOf(*ops[1]);
    if (!from)
      if (const FieldInfo *f = fieldOf(*ops[0]))
        from = f->place;
    if (!to)
      if (const FieldInfo *f = fieldOf(*ops[1]))
        to = f->place;
    if (!from || !to) {
      error(ops[from ? 1 : 0]->range, "'rescale_index' expects a field or SNode");
      return nullptr;
    }
    auto *v = dynamic_cast<const VectorType *>(ts[2]);
    if (!v || v->size != from->ndim() || !v->elem->isInt()) {
      error(ops[2]->range, "'rescale_index' needs an index vector of size " +
                               std::to_string(from->ndim()) + ", got '" + typeName(ts[2]) + "'");
      return nullptr;
    }
    return types->getVector(types->i32(), to->ndim());
  }
  case Builtin::BlockLocal: {
    if (!arity(1, size_t(-1)))
      return nullptr;
    for (size_t i = 0; i < ops.size(); ++i)
      if (!fieldOf(*ops[i])) {
        error(ops[i]->range, "'block_local' expects fields, got '" + typeName(ts[i]) + "'");
        return nullptr;
      }
    bool inStructFor = false;
    for (auto &l : st->loops)
      inStructFor |= l.isStructFor;
    if (!inStructFor) {
      error(e.range, "'block_local' must be used inside a struct-for loop");
      return nullptr;
    }
    return types->getVoid();
  }
  case Builtin::AssumeInRange: {
    if (!arity(4, 4))
      return nullptr;
    for (size_t i = 0; i < 4; ++i)
      if (!ts[i]->isInt()) {
        error(ops[i]->range, "arguments of 'assume_in_range' must be integers");
        return nullptr;
      }
    for (size_t i = 2; i < 4; ++i)
      if (!constOf(*ops[i])) {
        error(ops[i]->range, "bounds of 'assume_in_range' must be compile-time constants");
        return nullptr;
      }
    return ts[0];
  }
  case Builtin::BitVectorize: {
    if (!arity(1, 1))
      return nullptr;
    const ConstValue *v = constOf(*ops[0]);
    if (!v || !v->isInt() || (v->i != 8 && v->i != 16 && v->i != 32 && v->i != 64)) {
      error(ops[0]->range, "'bit_vectorize' expects a constant word width of 8, 16, 32 or 64");
      return nullptr;
    }
    return types->getVoid();
  }
  case Builtin::Print: {
    for (size_t i = 0; i < ops.size(); ++i)
      if (!ts[i]->isValueType() && ts[i] != types->getString()) {
        error(ops[i]->range, "cannot print a value of type '" + typeName(ts[i]) + "'");
        return nullptr;
      }
    return types->getVoid();
  }
  case Builtin::Assert: {
    if (!arity(1, size_t(-1)))
      return nullptr;
    if (!ts[0]->isScalar()) {
      error(ops[0]->range, "assert condition must be a scalar, got '" + typeName(ts[0]) + "'");
      return nullptr;
    }
    if (ops.size() > 1 && ts[1] != types->getString()) {
      error(ops[1]->range, "assert message must be a string");
      return nullptr;
    }
    return types->getVoid();
  }
  case Builtin::Range: {
    if (!arity(1, 3))
      return nullptr;
    for (size_t i = 0; i < ops.size(); ++i)
      if (!ts[i]->isInt()) {
        error(ops[i]->range,
              std::string(i == 2 ? "range step" : "range bounds") +
                  " must be integers, got '" + typeName(ts[i]) + "'");
        return nullptr;
      }
    if (ops.size() == 3) {
      const ConstValue *step = constOf(*ops[2]);
      if (!step) {
        error(ops[2]->range, "range step must be a compile-time constant");
        return nullptr;
      }
      if (step->asInt() == 0) {
        error(ops[2]->range, "range step must not be zero");
        return nullptr;
      }
    }
    return types->getRange(1, false);
  }
  case Builtin::Grouped: {
    if (!arity(1, 1))
      return nullptr;
    if (auto *f = dynamic_cast<const FieldRefType *>(ts[0]))
      return types->getGrouped(f->ndim);
    if (auto *s = dynamic_cast<const SNodeRefType *>(ts[0]))
      return types->getGrouped(s->ndim);
    if (auto *r = dynamic_cast<const RangeType *>(ts[0]); r && !r->isStatic)
      return types->getGrouped(r->ndim);
    error(ops[0]->range, "'grouped' expects a field, an SNode or an ndrange, got '" +
                             typeName(ts[0]) + "'");
    return nullptr;
  }
  case Builtin::Len: {
    if (!arity(1, 1))
      return nullptr;
    int64_t n = -1;
    if (auto *t = dynamic_cast<const TupleType *>(ts[0]))
      n = t->elems.size();
    else if (auto *v = dynamic_cast<const VectorType *>(ts[0]))
      n = v->size;
    else if (auto *m = dynamic_cast<const MatrixType *>(ts[0]))
      n = m->rows;
    if (n < 0) {
      error(ops[0]->range, "'len' expects a tuple, vector or matrix, got '" + typeName(ts[0]) + "'");
      return nullptr;
    }
    setConst(e, ConstValue::makeInt(n, types->i32()));
    return types->i32();
  }
  default:
    break;
  }
  error(nameRange, "'" + name + "' cannot be used here");
  return nullptr;
}

//===- SemaBuiltins.cpp - Builtin functions ------------------------------===//
//
// Part of expression checking (SemaExpr.cpp); see docs/semantics.md.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace tic;
using namespace tic::sema;
using namespace tic::ast;

//===----------------------------------------------------------------------===//
// Builtins
//===----------------------------------------------------------------------===//

static double applyMath(Builtin b, double x) {
  switch (b) {
  case Builtin::Sin:
    return std::sin(x);
  case Builtin::Cos:
    return std::cos(x);
  case Builtin::Tan:
    return std::tan(x);
  case Builtin::Asin:
    return std::asin(x);
  case Builtin::Acos:
    return std::acos(x);
  case Builtin::Tanh:
    return std::tanh(x);
  case Builtin::Exp:
    return std::exp(x);
  case Builtin::Log:
    return std::log(x);
  case Builtin::Sqrt:
    return std::sqrt(x);
  case Builtin::Rsqrt:
    return 1.0 / std::sqrt(x);
  case Builtin::Floor:
    return std::floor(x);
  case Builtin::Ceil:
    return std::ceil(x);
  case Builtin::Round:
    return std::round(x);
  default:
    return x;
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
  if (b == Builtin::Append || b == Builtin::Length ||
      b == Builtin::DeactivateCell) {
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
          error(i->range,
                "index must be an integer, got '" + typeName(it) + "'");
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
      error(receiver->range,
            "'" +
                std::string(e.callee->kind == Expr::Member
                                ? cast<MemberExpr>(e.callee.get())->member
                                : name) +
                "' is a method of a dynamic field cell: x[i].append(v)");
      return nullptr;
    }
    if (!f->place || f->place->kind != SNode::Kind::Dynamic) {
      error(receiver->range,
            "field '" + f->name + "' is not placed in a dynamic SNode");
      return nullptr;
    }
    if (idx.size() + 1 != f->ndim()) {
      error(receiver->range, "'" + cast<MemberExpr>(e.callee.get())->member +
                                 "' on field '" + f->name + "' needs " +
                                 plural(f->ndim() - 1, "index") +
                                 " (all but the dynamic axis), got " +
                                 std::to_string(idx.size()));
      return nullptr;
    }
    size_t want = b == Builtin::Append ? 1 : 0;
    if (e.args.size() != want) {
      error(e.range, "'" + cast<MemberExpr>(e.callee.get())->member +
                         "' expects " + plural(want, "argument") + ", got " +
                         std::to_string(e.args.size()));
      return nullptr;
    }
    if (b == Builtin::Append) {
      const Type *vt = checkExpr(*e.args[0].value);
      if (!vt)
        return nullptr;
      checkConvertible(vt, computeType(*types, f->elemType), *e.args[0].value,
                       "append");
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
                        : hi == size_t(-1)
                            ? "at least " + std::to_string(lo)
                            : std::to_string(lo) + " or " + std::to_string(hi);
      error(e.range, "'" + name + "' expects " + exp + " argument" +
                         (lo == 1 && hi == 1 ? "" : "s") + ", got " +
                         std::to_string(ops.size()));
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
      if (a.name != "serialize" && a.name != "parallelize" &&
          a.name != "block_dim") {
        error(a.name.empty() ? a.value->range : a.nameRange,
              a.name.empty()
                  ? "loop_config arguments must be named (serialize, "
                    "parallelize, "
                    "block_dim)"
                  : "unknown loop_config option '" + a.name +
                        "' (expected serialize, parallelize or block_dim)");
        return nullptr;
      }
      const ConstValue *v = constOf(*a.value);
      if (!v) {
        error(a.value->range, "loop_config option '" + a.name +
                                  "' must be a compile-time constant");
        return nullptr;
      }
      if (a.name == "serialize"
              ? v->kind != ConstValue::Kind::Bool
              : (v->kind != ConstValue::Kind::Int || v->i < 1)) {
        error(a.value->range,
              a.name == "serialize"
                  ? "loop_config option 'serialize' must be true or false"
                  : "loop_config option '" + a.name +
                        "' must be a positive integer");
        return nullptr;
      }
      if (a.name == "block_dim" && v->i > kMaxBlockDim) {
        error(a.value->range,
              "loop_config option 'block_dim' must be at most " +
                  std::to_string(kMaxBlockDim) +
                  " (the most threads a CUDA block has), got " +
                  std::to_string(v->i));
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
            error(x->range,
                  "ndrange bounds must be integers, got '" + typeName(t) + "'");
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
        error(o->range,
              "ndrange bounds must be integers, got '" + typeName(t) + "'");
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
      error(ops[i]->range, "invalid argument of type '" + typeName(ts[i]) +
                               "' to '" + name + "'");
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
      error(ops[i]->range,
            "'" + name + "' expects a vector, got '" + typeName(ts[i]) + "'");
    return v;
  };
  auto squareArg = [&](size_t i, unsigned lo,
                       unsigned hi) -> const MatrixType * {
    auto *m = dynamic_cast<const MatrixType *>(ts[i]);
    if (!m || m->rows != m->cols || m->rows < lo || m->rows > hi) {
      std::string sizes =
          lo == hi             ? std::to_string(lo) + "x" + std::to_string(lo)
          : lo == 2 && hi == 3 ? "2x2 or 3x3"
                               : "square (up to " + std::to_string(hi) + "x" +
                                     std::to_string(hi) + ")";
      error(ops[i]->range, "'" + name + "' expects a " + sizes +
                               " matrix, got '" + typeName(ts[i]) + "'");
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
  case Builtin::Sin:
  case Builtin::Cos:
  case Builtin::Tan:
  case Builtin::Asin:
  case Builtin::Acos:
  case Builtin::Tanh:
  case Builtin::Exp:
  case Builtin::Log:
  case Builtin::Sqrt:
  case Builtin::Rsqrt:
  case Builtin::Floor:
  case Builtin::Ceil:
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
      setConst(e, ConstValue::makeInt(
                      wrapInt(c->i < 0 ? int64_t(0 - uint64_t(c->i)) : c->i,
                              static_cast<const ScalarType *>(r)),
                      r));
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
        error(ops[i]->range, "arguments of '" + name +
                                 "' have incompatible shapes ('" + typeName(p) +
                                 "' and '" + typeName(ts[i]) + "')");
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
    if (!ts[0]->isScalar() &&
        !(ts[0]->isTensor() && isIntLike(elementType(ts[0])))) {
      error(ops[0]->range, "condition of 'select' must be a scalar, got '" +
                               typeName(ts[0]) + "'");
      return nullptr;
    }
    const Type *p = ts[1] == ts[2] ? ts[1] : promote(*types, ts[1], ts[2]);
    if (!p) {
      error(e.range, "incompatible operand types '" + typeName(ts[1]) +
                         "' and '" + typeName(ts[2]) + "' in 'select'");
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
        error(ops[0]->range,
              "'random' takes an optional scalar type, like random(f64)");
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
      error(e.range, "'dot' of vectors of different sizes ('" + typeName(a) +
                         "' and '" + typeName(c) + "')");
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
      error(e.range, "'cross' needs two vectors of size 2 or 3, got '" +
                         typeName(a) + "' and '" + typeName(c) + "'");
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
    if (!ts[0]->isTensor() ||
        (b == Builtin::Normalized && !ts[0]->isVector())) {
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
    auto *el =
        promoteScalars(*types, static_cast<const ScalarType *>(elementType(a)),
                       static_cast<const ScalarType *>(elementType(c)));
    return types->getMatrix(el, a->size, c->size);
  }
  case Builtin::Transpose: {
    if (!arity(1, 1))
      return nullptr;
    auto *m = dynamic_cast<const MatrixType *>(ts[0]);
    if (!m) {
      error(ops[0]->range,
            "'transpose' expects a matrix, got '" + typeName(ts[0]) + "'");
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
  case Builtin::AtomicAdd:
  case Builtin::AtomicSub:
  case Builtin::AtomicMin:
  case Builtin::AtomicMax:
  case Builtin::AtomicAnd:
  case Builtin::AtomicOr:
  case Builtin::AtomicXor: {
    if (!arity(2, 2))
      return nullptr;
    std::string why;
    if (!isLValue(*ops[0], true, &why)) {
      error(ops[0]->range, "first argument of '" + name +
                               "' must be a field element or a "
                               "'var' variable" +
                               (why.empty() ? "" : ": " + why));
      return nullptr;
    }
    if (!numericOperand(0) || !numericOperand(1))
      return nullptr;
    bool bitwise = b == Builtin::AtomicAnd || b == Builtin::AtomicOr ||
                   b == Builtin::AtomicXor;
    if (bitwise &&
        (!elementType(ts[0])->isInt() || !elementType(ts[1])->isInt())) {
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
      error(ops[0]->range, "first argument of '" + name +
                               "' must be an SNode or a field, got '" +
                               typeName(ts[0]) + "'");
      return nullptr;
    }
    if (b != Builtin::IsActive && !sn->isSparse()) {
      error(ops[0]->range,
            "'" + name +
                "' needs a sparse SNode (pointer, bitmasked, hash or "
                "dynamic), got a " +
                SNode::kindName(sn->kind) + " SNode");
      return nullptr;
    }
    unsigned nd = sn->ndim();
    auto *v = dynamic_cast<const VectorType *>(ts[1]);
    bool okIdx = (v && v->size == nd && isIntLike(v->elem)) ||
                 (nd == 1 && ts[1]->isInt());
    if (!okIdx) {
      error(ops[1]->range, "'" + name + "' on this SNode needs " +
                               plural(nd, "index") + " ([i, j, ...]), got '" +
                               typeName(ts[1]) + "'");
      return nullptr;
    }
    return b == Builtin::IsActive ? (const Type *)types->i32()
                                  : types->getVoid();
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
      error(ops[from ? 1 : 0]->range,
            "'rescale_index' expects a field or SNode");
      return nullptr;
    }
    auto *v = dynamic_cast<const VectorType *>(ts[2]);
    if (!v || v->size != from->ndim() || !v->elem->isInt()) {
      error(ops[2]->range, "'rescale_index' needs an index vector of size " +
                               std::to_string(from->ndim()) + ", got '" +
                               typeName(ts[2]) + "'");
      return nullptr;
    }
    // The target is the source or one of its ancestors: its index axes are
    // the source's (or fewer), each coarser by a whole factor.
    bool ancestor = false;
    for (const SNode *n = from; n && !ancestor; n = n->parent)
      ancestor = n == to;
    if (!ancestor) {
      error(ops[1]->range, "'rescale_index' rescales to the same SNode or an "
                           "ancestor of the first argument's");
      return nullptr;
    }
    if (to->ndim() == 0) {
      error(ops[1]->range,
            "'rescale_index' needs an SNode with indices (not the root)");
      return nullptr;
    }
    return types->getVector(types->i32(), to->ndim());
  }
  case Builtin::BlockLocal: {
    if (!arity(1, size_t(-1)))
      return nullptr;
    for (size_t i = 0; i < ops.size(); ++i)
      if (!fieldOf(*ops[i])) {
        error(ops[i]->range,
              "'block_local' expects fields, got '" + typeName(ts[i]) + "'");
        return nullptr;
      }
    bool inStructFor = false;
    for (auto &l : st->loops)
      inStructFor |= l.isStructFor;
    if (!inStructFor) {
      if (!st->blockLocalBeforeFor) {
        error(e.range, "'block_local' must be used inside a struct-for loop "
                       "or right before one");
        return nullptr;
      }
      // Taichi's form: for the struct-for that follows (checkFor).
      for (size_t i = 0; i < ops.size(); ++i)
        st->pendingBlockLocal.push_back(fieldOf(*ops[i]));
      st->pendingBlockLocalRange = e.range;
    }
    return types->getVoid();
  }
  case Builtin::AssumeInRange: {
    if (!arity(4, 4))
      return nullptr;
    // x and base: integers, or integer vectors of one size (componentwise).
    auto intVector = [](const Type *t) {
      auto *v = dynamic_cast<const VectorType *>(t);
      return v && v->elem->isInt() ? v->size : 0u;
    };
    for (size_t i = 0; i < 4; ++i)
      if (!ts[i]->isInt() && (i >= 2 || !intVector(ts[i]))) {
        error(ops[i]->range,
              i < 2 ? "'assume_in_range' takes an integer or an integer "
                      "vector and a base of the same shape"
                    : "bounds of 'assume_in_range' must be integers");
        return nullptr;
      }
    if (intVector(ts[0]) != intVector(ts[1])) {
      error(ops[1]->range, "the base of 'assume_in_range' must have the "
                           "shape of its value, " +
                               ts[0]->str());
      return nullptr;
    }
    for (size_t i = 2; i < 4; ++i)
      if (!constOf(*ops[i])) {
        error(ops[i]->range,
              "bounds of 'assume_in_range' must be compile-time constants");
        return nullptr;
      }
    {
      const ConstValue *lo = constOf(*ops[2]), *hi = constOf(*ops[3]);
      if (lo->isInt() && hi->isInt() && lo->i >= hi->i) {
        error(e.range, "'assume_in_range' promises x in [base + lo, base + "
                       "hi): lo must be below hi, got " +
                           std::to_string(lo->i) + " and " +
                           std::to_string(hi->i));
        return nullptr;
      }
    }
    return ts[0];
  }
  case Builtin::BitVectorize: {
    if (!arity(1, 1))
      return nullptr;
    const ConstValue *v = constOf(*ops[0]);
    if (!v || !v->isInt() ||
        (v->i != 8 && v->i != 16 && v->i != 32 && v->i != 64)) {
      error(ops[0]->range,
            "'bit_vectorize' expects a constant word width of 8, 16, 32 or 64");
      return nullptr;
    }
    return types->getVoid();
  }
  case Builtin::Print: {
    for (size_t i = 0; i < ops.size(); ++i)
      if (!ts[i]->isValueType() && ts[i] != types->getString()) {
        error(ops[i]->range,
              "cannot print a value of type '" + typeName(ts[i]) + "'");
        return nullptr;
      }
    return types->getVoid();
  }
  case Builtin::Assert: {
    if (!arity(1, size_t(-1)))
      return nullptr;
    if (!ts[0]->isScalar()) {
      error(ops[0]->range,
            "assert condition must be a scalar, got '" + typeName(ts[0]) + "'");
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
    error(ops[0]->range,
          "'grouped' expects a field, an SNode or an ndrange, got '" +
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
      error(ops[0]->range, "'len' expects a tuple, vector or matrix, got '" +
                               typeName(ts[0]) + "'");
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

//===- SemaCalls.cpp - Calls, casts and constructors ---------------------===//
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
// Calls
//===----------------------------------------------------------------------===//

static const char *kMethodBuiltins[] = {
    "norm",      "norm_sqr",    "normalized",    "norm_inv",
    "transpose", "determinant", "inverse",       "trace",
    "dot",       "cross",       "outer_product", "max",
    "min",       "sum",         "any",           "all",
};

const Type *Sema::checkCall(CallExpr &e) {
  if (auto *m = dyn_cast<MemberExpr>(e.callee.get())) {
    m->type = types->getVoid();
    // Methods: x[i].append(v), x[i].length(), x[i].deactivate(), v.norm(), ...
    if (m->member == "append" || m->member == "length" ||
        m->member == "deactivate") {
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
    if (lb->kind == LocalBinding::Kind::Value &&
        lb->value.kind == ConstValue::Kind::Type) {
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
      error(n->range, "kernel '" + n->name +
                          "' cannot be called from a kernel or func; "
                          "kernels are entry points called from the host");
      note(g->second.range, "'" + n->name + "' is declared here");
      return nullptr;
    case GlobalEntry::Kind::Struct:
      error(n->range, "construct struct '" + n->name + "' with a literal '" +
                          n->name + "{member: value, ...}'");
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
        error(e.range, "conversion to '" + typeName(typeCallee) +
                           "' expects 1 argument, got " +
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
          checkConvertible(t, el, *a.value,
                           "construction of '" + typeName(typeCallee) + "'");
          ++count;
        } else if (auto *v = dynamic_cast<const VectorType *>(t);
                   v && rows && v->size == cols) {
          count += v->size;
        } else {
          error(a.value->range, "invalid argument of type '" + typeName(t) +
                                    "' to construct '" + typeName(typeCallee) +
                                    "'");
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
        error(e.range, "'" + typeName(typeCallee) + "' needs " +
                           std::to_string(total) + " components, got " +
                           std::to_string(count));
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
        error(a.nameRange, "func '" + fd.name.name +
                               "' has no parameter named '" + a.name + "'");
        ok = false;
        continue;
      }
    } else {
      ++pos;
    }
    if (idx >= np) {
      error(e.range, "func '" + fd.name.name + "' expects " +
                         plural(np, "argument") + ", got " +
                         std::to_string(e.args.size()));
      note(fd.name.range, "'" + fd.name.name + "' is declared here");
      return nullptr;
    }
    if (slot[idx]) {
      error(a.value->range,
            "parameter '" + fd.params[idx].name.name + "' is given twice");
      ok = false;
      continue;
    }
    slot[idx] = &a;
  }
  for (size_t i = 0; i < np && ok; ++i)
    if (!slot[i]) {
      error(e.range, "func '" + fd.name.name + "' expects " +
                         plural(np, "argument") + ", got " +
                         std::to_string(e.args.size()));
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

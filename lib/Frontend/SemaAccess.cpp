//===- SemaAccess.cpp - Index and member access --------------------------===//
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
    // A field whose layout statement failed has no index space yet: that
    // error is the one to read.
    if (f && !f->place && failedPlaces.count(f->name))
      return nullptr;
    if (!checkIntIndices(fr->ndim,
                         "field '" + (f ? f->name : std::string("?")) + "'"))
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
                                     " is out of range for '" + typeName(v) +
                                     "'");
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
        error(e.indices[k]->range,
              "index must be an integer, got '" + typeName(its[k]) + "'");
        return nullptr;
      }
    if (e.indices.size() != 2 && e.indices.size() != 1) {
      error(e.range, "a matrix is indexed with m[row, col] or m[row]");
      return nullptr;
    }
    const ConstValue *cr = constOf(*e.indices[0]);
    const ConstValue *cc =
        e.indices.size() == 2 ? constOf(*e.indices[1]) : nullptr;
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
    const ConstValue *ci =
        e.indices.size() == 1 ? constOf(*e.indices[0]) : nullptr;
    if (!ci || !ci->isInt()) {
      error(e.range, "a tuple is indexed with one constant integer");
      return nullptr;
    }
    if (ci->i < 0 || ci->i >= int64_t(tt->elems.size())) {
      error(e.indices[0]->range, "index " + std::to_string(ci->i) +
                                     " is out of range for a "
                                     "tuple of " +
                                     std::to_string(tt->elems.size()) +
                                     " elements");
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
      const FieldInfo *c =
          f ? (e.member == "grad" ? f->grad : f->dual) : nullptr;
      if (!c) {
        error(e.memberRange,
              "field '" + fname + "' has no adjoint '" + fname + "." +
                  e.member + "': declare it with " +
                  (e.member == "grad" ? "needs_grad" : "needs_dual"));
        return nullptr;
      }
      e.field = c;
      return types->getFieldRef(c->elemType, c->ndim());
    }
    if (e.member == "shape") {
      if (f && f->unbounded) {
        error(e.memberRange,
              "field '" + fname + "' lies below a hash SNode and has no shape");
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
      error(e.memberRange,
            "struct '" + s->name + "' has no member '" + e.member + "'");
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
      error(e.memberRange,
            "'" + typeName(v) + "' has no component '" + e.member + "'");
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
  error(e.memberRange, "a value of type '" + typeName(bt) +
                           "' has no member '" + e.member + "'");
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
        *why = "cannot assign to '" + n->name +
               "': it is declared with 'let' (use 'var')";
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
      *why = "cannot assign to field '" + n->name +
             "' without indices; write '" + n->name +
             (n->ref.field && n->ref.field->ndim() == 0 ? "[]" : "[...]") +
             " = ...'";
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
            *why = "cannot assign to swizzle '" + m->member +
                   "' with repeated components";
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

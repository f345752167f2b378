//===- Types.cpp - Semantic types ------------------------------------------===//

#include "tic/Frontend/Types.h"

#include <cmath>
#include <sstream>

using namespace tic;

Type::~Type() = default;

bool Type::isValueType() const {
  switch (kind_) {
  case Kind::Bool: case Kind::Int: case Kind::Float: case Kind::Vector:
  case Kind::Matrix: case Kind::Struct:
    return true;
  default:
    return false;
  }
}

static std::string fmtDouble(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string Type::str() const {
  switch (kind_) {
  case Kind::Void: return "void";
  case Kind::Bool: return "bool";
  case Kind::Int: {
    auto *s = static_cast<const ScalarType *>(this);
    return (s->isSigned ? "i" : "u") + std::to_string(s->bits);
  }
  case Kind::Float:
    return "f" + std::to_string(static_cast<const ScalarType *>(this)->bits);
  case Kind::Vector: {
    auto *v = static_cast<const VectorType *>(this);
    return "vec<" + v->elem->str() + ", " + std::to_string(v->size) + ">";
  }
  case Kind::Matrix: {
    auto *m = static_cast<const MatrixType *>(this);
    return "mat<" + m->elem->str() + ", " + std::to_string(m->rows) + ", " +
           std::to_string(m->cols) + ">";
  }
  case Kind::Struct: return static_cast<const StructType *>(this)->name;
  case Kind::Quant: {
    auto *q = static_cast<const QuantType *>(this);
    std::string sgn = q->isSigned ? "true" : "false";
    switch (q->qkind) {
    case QuantType::QKind::Int:
      return "quant.int(bits: " + std::to_string(q->bits) + ", signed: " + sgn +
             ", compute: " + q->compute->str() + ")";
    case QuantType::QKind::Fixed:
      return "quant.fixed(bits: " + std::to_string(q->bits) +
             ", max: " + fmtDouble(q->max) + ", signed: " + sgn +
             ", compute: " + q->compute->str() + ")";
    case QuantType::QKind::Float:
      return "quant.float(exp: " + std::to_string(q->exp) +
             ", frac: " + std::to_string(q->frac) + ", signed: " + sgn +
             ", compute: " + q->compute->str() + ")";
    }
    return "quant";
  }
  case Kind::NDArray: {
    auto *a = static_cast<const NDArrayType *>(this);
    return "ndarray<" + a->elem->str() + ", " + std::to_string(a->ndim) + ">";
  }
  case Kind::Template: return "template";
  case Kind::FieldRef: {
    auto *f = static_cast<const FieldRefType *>(this);
    return "field<" + f->elem->str() + ", " + std::to_string(f->ndim) + ">";
  }
  case Kind::SNodeRef:
    return "snode<" + std::to_string(static_cast<const SNodeRefType *>(this)->ndim) + ">";
  case Kind::String: return "string";
  case Kind::Tuple: {
    auto *t = static_cast<const TupleType *>(this);
    std::string s = "(";
    for (size_t i = 0; i < t->elems.size(); ++i)
      s += (i ? ", " : "") + t->elems[i]->str();
    return s + ")";
  }
  case Kind::Range: {
    auto *r = static_cast<const RangeType *>(this);
    return std::string(r->isStatic ? "static_range<" : "range<") +
           std::to_string(r->ndim) + ">";
  }
  case Kind::Grouped:
    return "grouped<" + std::to_string(static_cast<const GroupedType *>(this)->ndim) + ">";
  case Kind::Meta:
    return "type<" + static_cast<const MetaType *>(this)->type->str() + ">";
  }
  return "?";
}

int StructType::memberIndex(const std::string &n) const {
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i].name == n)
      return int(i);
  return -1;
}

//===----------------------------------------------------------------------===//
// TypeContext
//===----------------------------------------------------------------------===//

template <typename T, typename... A> T *TypeContext::make(A &&...args) {
  auto p = std::make_unique<T>(std::forward<A>(args)...);
  T *raw = p.get();
  owned.push_back(std::move(p));
  return raw;
}

TypeContext::TypeContext() {
  voidTy = make<Type>(Type::Kind::Void);
  stringTy = make<Type>(Type::Kind::String);
  templateTy = make<TemplateType>();
}
TypeContext::~TypeContext() = default;

const ScalarType *TypeContext::getBool() {
  auto &slot = interned["bool"];
  if (!slot)
    slot = make<ScalarType>(Type::Kind::Bool, 1, false);
  return static_cast<const ScalarType *>(slot);
}

const ScalarType *TypeContext::getInt(unsigned bits, bool isSigned) {
  std::string key = (isSigned ? "i" : "u") + std::to_string(bits);
  auto &slot = interned[key];
  if (!slot)
    slot = make<ScalarType>(Type::Kind::Int, bits, isSigned);
  return static_cast<const ScalarType *>(slot);
}

const ScalarType *TypeContext::getFloat(unsigned bits) {
  std::string key = "f" + std::to_string(bits);
  auto &slot = interned[key];
  if (!slot)
    slot = make<ScalarType>(Type::Kind::Float, bits, true);
  return static_cast<const ScalarType *>(slot);
}

const ScalarType *TypeContext::getScalarByName(const std::string &n) {
  if (n == "bool")
    return getBool();
  if (n == "i8") return getInt(8, true);
  if (n == "i16") return getInt(16, true);
  if (n == "i32") return getInt(32, true);
  if (n == "i64") return getInt(64, true);
  if (n == "u8") return getInt(8, false);
  if (n == "u16") return getInt(16, false);
  if (n == "u32") return getInt(32, false);
  if (n == "u64") return getInt(64, false);
  if (n == "f16") return getFloat(16);
  if (n == "f32") return getFloat(32);
  if (n == "f64") return getFloat(64);
  return nullptr;
}

static std::string ptrKey(const void *p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

const VectorType *TypeContext::getVector(const Type *elem, unsigned n) {
  auto &slot = interned["vec:" + ptrKey(elem) + ":" + std::to_string(n)];
  if (!slot)
    slot = make<VectorType>(elem, n);
  return static_cast<const VectorType *>(slot);
}

const MatrixType *TypeContext::getMatrix(const Type *elem, unsigned r, unsigned c) {
  auto &slot = interned["mat:" + ptrKey(elem) + ":" + std::to_string(r) + ":" +
                        std::to_string(c)];
  if (!slot)
    slot = make<MatrixType>(elem, r, c);
  return static_cast<const MatrixType *>(slot);
}

const Type *TypeContext::getTensorLike(const Type *shapeOf, const Type *elem) {
  if (auto *v = dynamic_cast<const VectorType *>(shapeOf))
    return getVector(elem, v->size);
  if (auto *m = dynamic_cast<const MatrixType *>(shapeOf))
    return getMatrix(elem, m->rows, m->cols);
  return elem;
}

StructType *TypeContext::createStruct(const std::string &name, SourceRange r) {
  return make<StructType>(name, r);
}

const QuantType *TypeContext::getQuant(const QuantType &p) {
  std::string key = "quant:" + std::to_string(int(p.qkind)) + ":" +
                    std::to_string(p.bits) + ":" + std::to_string(p.isSigned) +
                    ":" + fmtDouble(p.max) + ":" + std::to_string(p.exp) + ":" +
                    std::to_string(p.frac) + ":" + ptrKey(p.compute);
  auto &slot = interned[key];
  if (!slot) {
    auto *q = make<QuantType>();
    q->qkind = p.qkind;
    q->bits = p.bits;
    q->isSigned = p.isSigned;
    q->max = p.max;
    q->scale = p.scale;
    q->exp = p.exp;
    q->frac = p.frac;
    q->compute = p.compute;
    slot = q;
  }
  return static_cast<const QuantType *>(slot);
}

const NDArrayType *TypeContext::getNDArray(const Type *elem, unsigned ndim) {
  auto &slot = interned["nd:" + ptrKey(elem) + ":" + std::to_string(ndim)];
  if (!slot)
    slot = make<NDArrayType>(elem, ndim);
  return static_cast<const NDArrayType *>(slot);
}

const FieldRefType *TypeContext::getFieldRef(const Type *elem, unsigned ndim) {
  auto &slot = interned["fieldref:" + ptrKey(elem) + ":" + std::to_string(ndim)];
  if (!slot)
    slot = make<FieldRefType>(elem, ndim);
  return static_cast<const FieldRefType *>(slot);
}

const SNodeRefType *TypeContext::getSNodeRef(unsigned ndim) {
  auto &slot = interned["snoderef:" + std::to_string(ndim)];
  if (!slot)
    slot = make<SNodeRefType>(ndim);
  return static_cast<const SNodeRefType *>(slot);
}

const TupleType *TypeContext::getTuple(const std::vector<const Type *> &elems) {
  std::string key = "tuple";
  for (auto *e : elems)
    key += ":" + ptrKey(e);
  auto &slot = interned[key];
  if (!slot)
    slot = make<TupleType>(elems);
  return static_cast<const TupleType *>(slot);
}

const RangeType *TypeContext::getRange(unsigned ndim, bool isStatic) {
  auto &slot = interned["range:" + std::to_string(ndim) + ":" + std::to_string(isStatic)];
  if (!slot)
    slot = make<RangeType>(ndim, isStatic);
  return static_cast<const RangeType *>(slot);
}

const GroupedType *TypeContext::getGrouped(unsigned ndim) {
  auto &slot = interned["grouped:" + std::to_string(ndim)];
  if (!slot)
    slot = make<GroupedType>(ndim);
  return static_cast<const GroupedType *>(slot);
}

const MetaType *TypeContext::getMeta(const Type *t) {
  auto &slot = interned["meta:" + ptrKey(t)];
  if (!slot)
    slot = make<MetaType>(t);
  return static_cast<const MetaType *>(slot);
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

const Type *tic::elementType(const Type *t) {
  if (!t)
    return nullptr;
  if (auto *v = dynamic_cast<const VectorType *>(t))
    t = v->elem;
  else if (auto *m = dynamic_cast<const MatrixType *>(t))
    t = m->elem;
  if (auto *q = dynamic_cast<const QuantType *>(t))
    return q->compute;
  if (t->isScalar())
    return t;
  return nullptr;
}

const Type *tic::computeType(TypeContext &ctx, const Type *t) {
  if (auto *q = dynamic_cast<const QuantType *>(t))
    return q->compute;
  if (auto *v = dynamic_cast<const VectorType *>(t))
    if (auto *q = dynamic_cast<const QuantType *>(v->elem))
      return ctx.getVector(q->compute, v->size);
  if (auto *m = dynamic_cast<const MatrixType *>(t))
    if (auto *q = dynamic_cast<const QuantType *>(m->elem))
      return ctx.getMatrix(q->compute, m->rows, m->cols);
  return t;
}

const ScalarType *tic::promoteScalars(TypeContext &ctx, const ScalarType *a,
                                      const ScalarType *b) {
  if (a == b)
    return a;
  if (a->isFloat() && b->isFloat())
    return a->bits >= b->bits ? a : b;
  if (a->isFloat())
    return a;
  if (b->isFloat())
    return b;
  // Both integers (bool = 1-bit unsigned).
  if (a->bits != b->bits)
    return a->bits > b->bits ? a : b;
  return a->isSigned ? b : a;
}

const Type *tic::promote(TypeContext &ctx, const Type *a, const Type *b) {
  const Type *ea = elementType(a), *eb = elementType(b);
  if (!ea || !eb)
    return nullptr;
  auto *e = promoteScalars(ctx, static_cast<const ScalarType *>(ea),
                           static_cast<const ScalarType *>(eb));
  bool ta = a->isTensor(), tb = b->isTensor();
  if (!ta && !tb)
    return e;
  if (ta && tb) {
    if (auto *va = dynamic_cast<const VectorType *>(a)) {
      auto *vb = dynamic_cast<const VectorType *>(b);
      if (!vb || vb->size != va->size)
        return nullptr;
      return ctx.getVector(e, va->size);
    }
    auto *ma = static_cast<const MatrixType *>(a);
    auto *mb = dynamic_cast<const MatrixType *>(b);
    if (!mb || ma->rows != mb->rows || ma->cols != mb->cols)
      return nullptr;
    return ctx.getMatrix(e, ma->rows, ma->cols);
  }
  return ctx.getTensorLike(ta ? a : b, e);
}

bool tic::isNarrowing(const ScalarType *from, const ScalarType *to) {
  if (from == to)
    return false;
  if (to->isBool())
    return !from->isBool();
  if (from->isBool())
    return false;
  if (from->isFloat() && !to->isFloat())
    return true;
  if (from->isFloat() && to->isFloat())
    return to->bits < from->bits;
  if (to->isFloat()) {
    // Integer to float: exact when the mantissa holds every value.
    unsigned mant = to->bits == 16 ? 11 : to->bits == 32 ? 24 : 53;
    unsigned need = from->isSigned ? from->bits - 1 : from->bits;
    return need > mant;
  }
  // int -> int
  if (from->isSigned == to->isSigned)
    return to->bits < from->bits;
  if (!from->isSigned && to->isSigned)
    return to->bits <= from->bits;
  return true; // signed -> unsigned
}

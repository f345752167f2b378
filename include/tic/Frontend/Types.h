//===- Types.h - Semantic types of .tc programs -----------------*- C++ -*-===//
//
// Types are created by a TypeContext, interned, and compared by pointer:
// two `const Type *` denote the same type iff they are equal. The only
// nominal types are structs (one StructType per `struct` declaration).
//
// Value types (what a runtime value can have):
//   ScalarType   i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 bool
//   VectorType   vec<T, N>      T scalar or quantized (fields only)
//   MatrixType   mat<T, R, C>
//   StructType   struct S { ... } (ordered members)
//   QuantType    quant.int / quant.fixed / quant.float: a storage type; only
//                field element types are quantized. Reading such a field
//                gives its compute type (Expr::type of the access is the
//                compute type, or vec/mat of it).
//   NDArrayType  ndarray<T, D>  kernel parameters only
// Internal kinds (types of expressions that denote something compile-time):
//   VoidType, StringType, TemplateType (a `template` parameter's declared
//   type), FieldRefType (a NameExpr naming a field), SNodeRefType (naming an
//   SNode), TupleType (x.shape, results of svd/polar_decompose/sym_eig),
//   RangeType (range/ndrange/static(range) iterables), GroupedType
//   (grouped(x)), MetaType (a type used as a value: `x.dtype`, `f32`).
//
// Plain C++17, no LLVM/MLIR.
//===----------------------------------------------------------------------===//

#ifndef TIC_FRONTEND_TYPES_H
#define TIC_FRONTEND_TYPES_H

#include "tic/Frontend/Diagnostics.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tic {

class Type {
public:
  enum class Kind {
    Void, Bool, Int, Float, Vector, Matrix, Struct, Quant, NDArray,
    Template, FieldRef, SNodeRef, String, Tuple, Range, Grouped, Meta,
  };
  explicit Type(Kind k) : kind_(k) {}
  virtual ~Type();
  Kind kind() const { return kind_; }

  bool isVoid() const { return kind_ == Kind::Void; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isInt() const { return kind_ == Kind::Int; }
  bool isFloat() const { return kind_ == Kind::Float; }
  /// bool, integer or float.
  bool isScalar() const { return isBool() || isInt() || isFloat(); }
  /// Integer or float (bool is not numeric for arithmetic purposes, but it
  /// promotes like a 1-bit unsigned integer as in Taichi).
  bool isNumeric() const { return isInt() || isFloat(); }
  bool isVector() const { return kind_ == Kind::Vector; }
  bool isMatrix() const { return kind_ == Kind::Matrix; }
  /// Vector or matrix.
  bool isTensor() const { return isVector() || isMatrix(); }
  bool isStruct() const { return kind_ == Kind::Struct; }
  bool isQuant() const { return kind_ == Kind::Quant; }
  /// A type a local variable, parameter or return value can have.
  bool isValueType() const;

  /// Spelling as in source: `f32`, `vec<f32, 3>`, `Particle`,
  /// `quant.fixed(bits: 11, max: 2, signed: true)`, `ndarray<f32, 2>`,
  /// `field<f32, 2>`, `snode<2>`, `(i32, i32)`, ...
  std::string str() const;

private:
  const Kind kind_;
};

/// bool (Kind::Bool, 1 bit), iN/uN (Kind::Int), fN (Kind::Float).
class ScalarType : public Type {
public:
  ScalarType(Kind k, unsigned bits, bool isSigned)
      : Type(k), bits(bits), isSigned(isSigned) {}
  static bool classof(const Type *t) {
    return t->kind() == Kind::Bool || t->kind() == Kind::Int ||
           t->kind() == Kind::Float;
  }
  unsigned bits;  // 1 for bool
  bool isSigned;  // floats: true; bool: false
};

class VectorType : public Type {
public:
  VectorType(const Type *e, unsigned n) : Type(Kind::Vector), elem(e), size(n) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Vector; }
  const Type *elem; // ScalarType, or QuantType for field elements
  unsigned size;
};

/// Row-major R x C matrix.
class MatrixType : public Type {
public:
  MatrixType(const Type *e, unsigned r, unsigned c)
      : Type(Kind::Matrix), elem(e), rows(r), cols(c) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Matrix; }
  const Type *elem;
  unsigned rows, cols;
};

class StructType : public Type {
public:
  struct Member {
    std::string name;
    const Type *type;
    SourceRange range;
  };
  StructType(std::string n, SourceRange r)
      : Type(Kind::Struct), name(std::move(n)), range(r) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Struct; }
  /// Index of member `n`, or -1.
  int memberIndex(const std::string &n) const;
  std::string name;
  std::vector<Member> members; // declaration order
  SourceRange range;
};

/// Quantized storage types (spec section 7, docs/quant.md).
class QuantType : public Type {
public:
  enum class QKind { Int, Fixed, Float };
  QuantType() : Type(Kind::Quant) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Quant; }
  QKind qkind = QKind::Int;
  /// Total storage bits: B for int/fixed, exp + frac for float.
  unsigned bits = 0;
  bool isSigned = true;
  /// quant.fixed: `max` as written and the scale s = max / 2^(B-1) (signed)
  /// or max / 2^B (unsigned). 0 for other kinds.
  double max = 0, scale = 0;
  /// quant.float: exponent and fraction bits (the sign bit counts in frac).
  unsigned exp = 0, frac = 0;
  /// The type loads decode to (i32 / f32 by default).
  const ScalarType *compute = nullptr;
  // Shared exponents are a property of a bit_struct place, not of the type:
  // see sema::SNode::sharedExponent and sema::FieldInfo::sharedExponent.
};

class NDArrayType : public Type {
public:
  NDArrayType(const Type *e, unsigned d) : Type(Kind::NDArray), elem(e), ndim(d) {}
  static bool classof(const Type *t) { return t->kind() == Kind::NDArray; }
  const Type *elem; // scalar, vector or matrix
  unsigned ndim;
};

/// Type of an expression naming a field (`x`, `x.grad`, a template parameter
/// bound to a field). Indexing it with `ndim` indices gives `elem` (with
/// quantized elements replaced by their compute type).
class FieldRefType : public Type {
public:
  FieldRefType(const Type *e, unsigned d) : Type(Kind::FieldRef), elem(e), ndim(d) {}
  static bool classof(const Type *t) { return t->kind() == Kind::FieldRef; }
  const Type *elem;
  unsigned ndim;
};

/// Type of an expression naming an SNode (`root`, a layout `let`, a template
/// parameter bound to an SNode). `ndim` = number of index axes of its cells.
class SNodeRefType : public Type {
public:
  explicit SNodeRefType(unsigned d) : Type(Kind::SNodeRef), ndim(d) {}
  static bool classof(const Type *t) { return t->kind() == Kind::SNodeRef; }
  unsigned ndim;
};

class TupleType : public Type {
public:
  explicit TupleType(std::vector<const Type *> es)
      : Type(Kind::Tuple), elems(std::move(es)) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Tuple; }
  std::vector<const Type *> elems;
};

/// `range(...)` (ndim 1), `ndrange(...)` (ndim = number of arguments),
/// `static(range(...))` (isStatic).
class RangeType : public Type {
public:
  RangeType(unsigned d, bool s) : Type(Kind::Range), ndim(d), isStatic(s) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Range; }
  unsigned ndim;
  bool isStatic;
};

/// `grouped(x)` over a field / SNode / ndrange of `ndim` axes: iterates
/// `ivec<ndim>` indices.
class GroupedType : public Type {
public:
  explicit GroupedType(unsigned d) : Type(Kind::Grouped), ndim(d) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Grouped; }
  unsigned ndim;
};

/// A type used as a value (`x.dtype`, a type name as a cast callee).
class MetaType : public Type {
public:
  explicit MetaType(const Type *t) : Type(Kind::Meta), type(t) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Meta; }
  const Type *type;
};

class TemplateType : public Type {
public:
  TemplateType() : Type(Kind::Template) {}
  static bool classof(const Type *t) { return t->kind() == Kind::Template; }
};

/// Owns and interns every Type of one module.
class TypeContext {
public:
  TypeContext();
  ~TypeContext();
  TypeContext(const TypeContext &) = delete;
  TypeContext &operator=(const TypeContext &) = delete;

  const ScalarType *getBool();
  const ScalarType *getInt(unsigned bits, bool isSigned = true);
  const ScalarType *getFloat(unsigned bits);
  const ScalarType *i32() { return getInt(32, true); }
  const ScalarType *f32() { return getFloat(32); }
  /// Scalar named `i8` ... `f64`, `bool`; null if `name` is none of them.
  const ScalarType *getScalarByName(const std::string &name);
  const VectorType *getVector(const Type *elem, unsigned n);
  const MatrixType *getMatrix(const Type *elem, unsigned rows, unsigned cols);
  /// vec<T,N> for rows == 0, otherwise mat<T,rows,cols>: helper for
  /// "same shape as X, element T".
  const Type *getTensorLike(const Type *shapeOf, const Type *elem);
  /// Structs are nominal: every call creates a new type.
  StructType *createStruct(const std::string &name, SourceRange r);
  /// Interned by all parameters.
  const QuantType *getQuant(const QuantType &proto);
  const NDArrayType *getNDArray(const Type *elem, unsigned ndim);
  const FieldRefType *getFieldRef(const Type *elem, unsigned ndim);
  const SNodeRefType *getSNodeRef(unsigned ndim);
  const TupleType *getTuple(const std::vector<const Type *> &elems);
  const RangeType *getRange(unsigned ndim, bool isStatic);
  const GroupedType *getGrouped(unsigned ndim);
  const MetaType *getMeta(const Type *t);
  const Type *getVoid() { return voidTy; }
  const Type *getString() { return stringTy; }
  const Type *getTemplate() { return templateTy; }

private:
  template <typename T, typename... A> T *make(A &&...args);
  std::vector<std::unique_ptr<Type>> owned;
  std::map<std::string, const Type *> interned; // key: structural spelling
  const Type *voidTy, *stringTy, *templateTy;
};

//===----------------------------------------------------------------------===//
// Type rules (Taichi v1.6), also used by the unit tests.
//===----------------------------------------------------------------------===//

/// Element type of a scalar/vector/matrix (the type itself for scalars);
/// quantized elements map to their compute type. Null otherwise.
const Type *elementType(const Type *t);
/// The compute type of a value read from storage of type `t`: quant ->
/// compute, vec/mat of quant -> vec/mat of compute; other types unchanged.
const Type *computeType(TypeContext &ctx, const Type *t);

/// Binary promotion of two scalar types (Taichi `promoted_type`):
///  * float op float -> the wider float;
///  * int op float  -> that float (f16 stays f16);
///  * int op int    -> the wider; on equal widths the unsigned one
///    (i32 + u32 -> u32);
///  * bool behaves as a 1-bit unsigned integer (bool + i8 -> i8,
///    bool + bool -> bool).
const ScalarType *promoteScalars(TypeContext &ctx, const ScalarType *a,
                                 const ScalarType *b);
/// Promotion of scalars/vectors/matrices with scalar broadcast: the shape
/// of the tensor operand, elements promoted. Null when shapes differ or an
/// operand is not numeric.
const Type *promote(TypeContext &ctx, const Type *a, const Type *b);

/// True when converting `from` to `to` can lose information (used for the
/// narrowing-assignment warning): float -> int, wider -> narrower,
/// f64 -> f32, i64 -> f32 (more bits than the mantissa), signed <-> unsigned
/// of the same width.
bool isNarrowing(const ScalarType *from, const ScalarType *to);

} // namespace tic

#endif // TIC_FRONTEND_TYPES_H

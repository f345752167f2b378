//===- CGInternal.h - shared state of the code generator ------*- C++ -*-===//
//
// Private to lib/CodeGen. The generator keeps every value scalarized: an RV
// is the flat list of scalar components of a .tc value (vector components,
// matrix elements row-major, struct members flattened in order) with the
// scalar type of each component.
//===----------------------------------------------------------------------===//
#ifndef TIC_LIB_CODEGEN_CGINTERNAL_H
#define TIC_LIB_CODEGEN_CGINTERNAL_H

#include "tic/CodeGen/CodeGen.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Frontend/AST.h"
#include "tic/Frontend/Diagnostics.h"
#include "tic/Frontend/Sema.h"
#include "tic/Frontend/Types.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tic {
namespace codegen {
namespace detail {

namespace ast = ::tic::ast;
namespace sema = ::tic::sema;
using mlir::Block;
using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
using llvm::SmallVector;

/// A scalar type as code generation needs it.
struct ST {
  enum K : uint8_t { Bool, Int, Float } k = Int;
  unsigned bits = 32;
  bool sgn = true;
  bool isFloat() const { return k == Float; }
  bool isInt() const { return k == Int; }
  bool isBool() const { return k == Bool; }
  bool operator==(const ST &o) const {
    return k == o.k && bits == o.bits && (k != Int || sgn == o.sgn);
  }
  bool operator!=(const ST &o) const { return !(*this == o); }
  static ST i32() { return {Int, 32, true}; }
  static ST i64() { return {Int, 64, true}; }
  static ST f32() { return {Float, 32, true}; }
  static ST boolean() { return {Bool, 1, false}; }
};

/// Taichi's binary promotion (Types.h promoteScalars).
ST promote(ST a, ST b);

/// Scalar type of a tic scalar/quant type.
ST scalarOf(const tic::Type *t);
/// Element scalar type of scalar/vector/matrix (quant -> compute type).
ST elemOf(const tic::Type *t);
/// The scalar components of a value of type `t`, in flat order.
void flatten(const tic::Type *t, std::vector<ST> &out);
unsigned flatCount(const tic::Type *t);
bool isValueType(const tic::Type *t);

/// A scalarized value.
struct RV {
  SmallVector<Value, 4> v;
  std::vector<ST> ts;
  size_t size() const { return v.size(); }
  void push(Value x, ST t) {
    v.push_back(x);
    ts.push_back(t);
  }
};

/// An assignable location (local var, field element, ndarray element) and a
/// selection of its flat components. When the selection depends on a
/// runtime index, `alts` lists the alternatives and `sel` picks one.
struct LV {
  enum K { Local, Field, NDArray } k = Local;
  const tic::Type *type = nullptr; // type of the selected value
  std::vector<std::vector<unsigned>> alts;
  Value sel;                       // i32, set iff alts.size() > 1
  std::vector<ST> slotTypes;       // per flat slot of the whole base
  // Local
  const sema::LocalVar *var = nullptr;
  SmallVector<Value, 4> mem;       // rank-0 memrefs per slot
  bool reduction = false;
  // Field
  const sema::FieldInfo *field = nullptr;
  SmallVector<Value, 4> idx;       // i32, one per index axis of the place
  // NDArray
  Value array;
  SmallVector<Value, 4> ndIdx;     // i32 element indices
  std::vector<unsigned> compShape; // {} scalar, {N} vector, {R, C} matrix
};

} // namespace detail
} // namespace codegen
} // namespace tic

#endif

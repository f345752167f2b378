//===- ConstEval.h - Compile-time evaluation of .tc operators ---*- C++ -*-===//
//
// Folding of operators on sema::ConstValue with the run-time semantics of
// the language (Taichi v1.6): integer results wrap to their type's width,
// f32/f16 results are rounded to that precision, `//` floors, `%` takes the
// sign of the divisor (Python), `/` on integers is a float division.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_FRONTEND_CONSTEVAL_H
#define TIC_FRONTEND_CONSTEVAL_H

#include "tic/Frontend/AST.h"
#include "tic/Frontend/Sema.h"
#include "tic/Frontend/Types.h"

#include <optional>
#include <string>

namespace tic {
namespace sema {

/// Wraps an integer to the width and signedness of `t` (an integer or bool
/// type); rounds a double to the precision of a float type.
int64_t wrapInt(int64_t v, const ScalarType *t);
double roundFloat(double v, const ScalarType *t);

/// Converts `v` to type `to` (scalar, or vector/matrix elementwise). Float
/// to int truncates toward zero and saturates to the integer type's range
/// (NaN gives 0): the rule of the generated code (docs/semantics.md). A
/// conversion to a float type rounds to it, unless `keepExact` is set and the
/// value is an integer or an exact float: then it stays exact (an implicit
/// conversion of an untyped constant; see ConstValue::exact).
ConstValue convertConst(const ConstValue &v, const Type *to, TypeContext &ctx,
                        bool keepExact = false);

/// Folds `a op b` where both operands already have the operation type
/// `operandType` and the result has `resultType` (elementwise on
/// aggregates). Returns nullopt with `error` set on division by zero or a
/// negative integer exponent. An integer result that wraps (it does at run
/// time too) sets `*warning` when given.
std::optional<ConstValue> foldBinary(ast::BinaryOp op, const ConstValue &a,
                                     const ConstValue &b,
                                     const Type *resultType, TypeContext &ctx,
                                     std::string &error,
                                     std::string *warning = nullptr);
std::optional<ConstValue> foldUnary(ast::UnaryOp op, const ConstValue &a,
                                    const Type *resultType, TypeContext &ctx,
                                    std::string *warning = nullptr);
/// A message when converting the constant `v` to `to` is a float to integer
/// conversion out of the integer's range (or of a NaN); empty otherwise.
std::string conversionWarning(const ConstValue &v, const Type *to);
/// Scalar comparison of two values of the same (promoted) type.
bool foldCompare(ast::CmpOp op, const ConstValue &a, const ConstValue &b);

/// Parses a -D value: an integer (decimal, 0x, 0b, optional sign), a float
/// (`1.5`, `1e-3`, optional `f` suffix) or true/false. nullopt if invalid.
std::optional<ConstValue> parseDefineValue(const std::string &text,
                                           TypeContext &ctx,
                                           const ScalarType *defaultFloat);

} // namespace sema
} // namespace tic

#endif // TIC_FRONTEND_CONSTEVAL_H

//===- InterfaceUtil.h - helpers shared by the interface passes -*- C++ -*-===//
#ifndef TIC_LIB_TARGET_HEADER_INTERFACEUTIL_H
#define TIC_LIB_TARGET_HEADER_INTERFACEUTIL_H

#include "tic/Target/Header.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

namespace tic::ifaceutil {

/// Names of the generated accessor kernels (tc level) / functions.
inline std::string accessorName(const char *what, const iface::FieldDesc &f) {
  return std::string("__tic_") + what + "_" + f.cName;
}

/// "f32" for f32, "bool" for i1, "i32" for signless i32; "" otherwise.
inline std::string dtypeOf(mlir::Type t) {
  if (t.isInteger(1)) return "bool";
  if (auto it = mlir::dyn_cast<mlir::IntegerType>(t))
    return (it.isUnsigned() ? "u" : "i") + std::to_string(it.getWidth());
  if (t.isF16()) return "f16";
  if (t.isF32()) return "f32";
  if (t.isF64()) return "f64";
  return "";
}

/// The MLIR (signless) type of a component of `dtype`.
inline mlir::Type mlirTypeOf(const std::string &dtype, mlir::MLIRContext *ctx) {
  if (dtype == "bool") return mlir::IntegerType::get(ctx, 1);
  if (dtype == "f16") return mlir::Float16Type::get(ctx);
  if (dtype == "f32") return mlir::Float32Type::get(ctx);
  if (dtype == "f64") return mlir::Float64Type::get(ctx);
  if (dtype.size() > 1 && (dtype[0] == 'i' || dtype[0] == 'u'))
    return mlir::IntegerType::get(ctx, std::stoi(dtype.substr(1)));
  return {};
}

/// The type of the value in C (bool -> i8, f16 -> i16 holding the bits).
inline mlir::Type cTypeOf(const std::string &dtype, mlir::MLIRContext *ctx) {
  if (dtype == "bool") return mlir::IntegerType::get(ctx, 8);
  if (dtype == "f16") return mlir::IntegerType::get(ctx, 16);
  return mlirTypeOf(dtype, ctx);
}

} // namespace tic::ifaceutil

#endif

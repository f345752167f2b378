//===- Derivatives.h - local adjoints of scalar operations ------*- C++ -*-===//
//
// The derivative table of reverse-mode AD (docs/autodiff.md): given the
// adjoint `g` of an arith or math operation's result, the contributions to
// the adjoints of its operands.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_LIB_DIALECT_AD_TRANSFORMS_DERIVATIVES_H
#define TIC_LIB_DIALECT_AD_TRANSFORMS_DERIVATIVES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Support/LLVM.h"

namespace tic::ad {

enum class LocalAdjoint {
  Emitted,     ///< contributions passed to `add`
  Zero,        ///< the derivative is zero everywhere it exists (floor, casts)
  Unsupported, ///< no rule: the operation cannot be differentiated
};

/// `op` is a scalar arith or math operation with one float result whose
/// adjoint is `g`; `map` gives the recomputed value of each primal value.
/// For each float operand, calls `add(primalOperand, contribution)`;
/// `isActive` says which operands need one (others may be skipped).
LocalAdjoint
emitLocalAdjoint(mlir::Operation *op, mlir::Value g, mlir::OpBuilder &b,
                 const mlir::IRMapping &map,
                 llvm::function_ref<bool(mlir::Value)> isActive,
                 llvm::function_ref<void(mlir::Value, mlir::Value)> add);

} // namespace tic::ad

#endif

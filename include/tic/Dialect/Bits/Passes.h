//===- Passes.h - bits dialect transforms -----------------------*- C++ -*-===//
#ifndef TIC_DIALECT_BITS_PASSES_H
#define TIC_DIALECT_BITS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tic {
#define GEN_PASS_DECL
#include "tic/Dialect/Bits/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tic/Dialect/Bits/Passes.h.inc"
} // namespace tic

#endif

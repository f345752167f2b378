//===- Passes.h - tic conversions -------------------------------*- C++ -*-===//
#ifndef TIC_CONVERSION_PASSES_H
#define TIC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tic {
#define GEN_PASS_DECL
#include "tic/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tic/Conversion/Passes.h.inc"
} // namespace tic

#endif

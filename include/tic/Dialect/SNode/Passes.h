//===- Passes.h - snode dialect passes --------------------------*- C++ -*-===//
#ifndef TIC_DIALECT_SNODE_PASSES_H
#define TIC_DIALECT_SNODE_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tic {
#define GEN_PASS_DECL
#include "tic/Dialect/SNode/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tic/Dialect/SNode/Passes.h.inc"
} // namespace tic

#endif

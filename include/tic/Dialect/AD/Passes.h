//===- Passes.h - ad dialect transforms -------------------------*- C++ -*-===//
#ifndef TIC_DIALECT_AD_PASSES_H
#define TIC_DIALECT_AD_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class Region;
} // namespace mlir

namespace tic {
#define GEN_PASS_DECL
#include "tic/Dialect/AD/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tic/Dialect/AD/Passes.h.inc"

namespace ad {
/// Structured store forwarding: every rank-0 memref.alloca of `region` whose
/// uses are loads and stores reached through scf.if / scf.for / scf.while
/// only becomes SSA values (scf results and loop-carried values). Returns
/// the number of locals promoted.
unsigned promoteLocals(mlir::Region &region);
} // namespace ad
} // namespace tic

#endif

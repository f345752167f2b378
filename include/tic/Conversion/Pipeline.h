//===- Pipeline.h - tc -> LLVM dialect pipeline -----------------*- C++ -*-===//
#ifndef TIC_CONVERSION_PIPELINE_H
#define TIC_CONVERSION_PIPELINE_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tic {

struct CPULoweringOptions {
  /// Run canonicalize + cse between the tic passes.
  bool cleanup = true;
  /// Run tic-snode-access-cse (simplification II).
  bool accessCSE = true;
  /// Run tic-demote-atomics (atomics that cannot race -> load/op/store).
  bool demoteAtomics = true;
};

/// Adds the passes that take a module of tc kernels + snode trees down to
/// the LLVM dialect (ready for mlir::translateModuleToLLVMIR / tic::emitCPU):
///   tic-demote-atomics, tic-lower-struct-for, tic-lower-field-access,
///   tic-snode-access-cse,
///   [canonicalize, cse], convert-tc-to-llvm, convert-snode-to-llvm,
///   convert-scf-to-cf, convert-math-to-llvm, convert-math-to-libm,
///   convert-arith-to-llvm, finalize-memref-to-llvm, convert-cf-to-llvm,
///   convert-func-to-llvm, convert-ub-to-llvm, reconcile-unrealized-casts.
/// `pm` must be a pass manager on builtin.module. Compute the SNodeLayout
/// (root size, field shapes) BEFORE running it: the trees are erased.
void buildCPULoweringPipeline(mlir::OpPassManager &pm,
                              const CPULoweringOptions &options = {});

/// Registers the pipeline as `tic-cpu-pipeline` (for tic-opt).
void registerCPULoweringPipeline();

} // namespace tic

#endif

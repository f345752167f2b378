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
  /// The SNode access optimisations (off: tic --fno-access-opt, for the
  /// ablation): tic-snode-access-cse (simplification II) and the
  /// known-active accesses of sparse struct-fors.
  bool accessCSE = true;
  /// Run tic-demote-atomics (atomics that cannot race -> load/op/store).
  bool demoteAtomics = true;
  /// Run tic-privatize-reductions (one atomic per chunk for reductions).
  bool privatizeReductions = true;
  /// Run tic-privatize-scatter (CPU-only objects; off: tic
  /// --fno-scatter-privatization): per-thread copies of fields a parallel
  /// loop only adds into.
  bool privatizeScatter = true;
  /// The quantized-store optimisations (off: tic --fno-bit-store-fusion /
  /// --fno-bit-store-demotion, for the ablation): tic-fuse-bit-stores and
  /// tic-demote-bit-stores.
  bool bitStoreFusion = true;
  bool bitStoreDemotion = true;
  /// Run tic-coalesce-atomics (CPU only; off: tic --fno-atomic-coalescing):
  /// f32 atomic adds to neighbouring components two per compare-and-swap.
  bool coalesceAtomics = true;
  /// The host side of a --target=cuda object (buildCPULoweringPipeline):
  /// launches also on a device (convert-tc-to-llvm{cuda}), host code's field
  /// accesses through tc.field_copy (tic-host-field-access).
  bool cudaHost = false;
  /// The module is also lowered for CUDA (both of its pipelines): host
  /// code's accesses through pooled nodes and hash-table maintenance run as
  /// one-thread loops (tic-offload-sparse-access, tic-hash-maintenance
  /// {offload}), the same in the host module and the device clone.
  bool cuda = false;
  /// tic -g: tic-block-local reads and adds through the field where an
  /// assume_in_range promise is broken (which code generation reports).
  bool checked = false;
};

/// The target-neutral part of every pipeline: structured tc kernels with
/// recorded layouts, field accesses as snode memory ops, parallel loops as
/// tc.task + tc.launch (tic-lift-control-flow ... tic-privatize-reductions).
void buildTargetNeutralPipeline(mlir::OpPassManager &pm,
                                const CPULoweringOptions &options = {});

/// Adds the passes that take a module of tc kernels + snode trees down to
/// the LLVM dialect (ready for mlir::translateModuleToLLVMIR / tic::emitCPU):
///   tic-lift-control-flow, tic-allocate-layout, tic-bit-vectorize,
///   tic-demote-atomics, tic-demote-bit-stores, tic-lower-struct-for,
///   tic-split-index-set, tic-lower-field-access, [cse], tic-snode-access-cse,
///   [canonicalize, cse], tic-fuse-bit-stores, tic-hash-maintenance,
///   tic-outline-tasks, tic-privatize-reductions, tic-coalesce-atomics,
///   convert-snode-to-llvm, tic-lower-bits, convert-tc-to-llvm,
///   convert-scf-to-cf, convert-math-to-llvm, convert-math-to-libm,
///   convert-arith-to-llvm, finalize-memref-to-llvm, convert-cf-to-llvm,
///   convert-func-to-llvm, convert-ub-to-llvm, reconcile-unrealized-casts.
/// `pm` must be a pass manager on builtin.module. Read the SNodeLayout
/// (root size, field shapes) BEFORE running it: the trees are erased.
void buildCPULoweringPipeline(mlir::OpPassManager &pm,
                              const CPULoweringOptions &options = {});

/// Registers the pipeline as `tic-cpu-pipeline` (for tic-opt).
void registerCPULoweringPipeline();

} // namespace tic

#endif

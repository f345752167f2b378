//===- Pipeline.cpp - tc -> LLVM dialect pipeline -------------------------===//
#include "tic/Conversion/Pipeline.h"
#include "tic/Conversion/Passes.h"
#include "tic/Dialect/Bits/Passes.h"
#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/TC/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void tic::buildTargetNeutralPipeline(mlir::OpPassManager &pm,
                                     const CPULoweringOptions &options) {
  // On tc ops, before anything is lowered: struct-for induction variables
  // are still the cells' indices, and the field accesses still name fields.
  // Kernel-scope reductions are left to tic-privatize-reductions.
  // Kernels are structured first (a no-op on what tic's driver emits, which
  // it has lifted already).
  pm.addPass(createLiftControlFlow());
  pm.addPass(createAllocateLayout()); // keeps a layout recorded before
  if (options.cuda) {
    pm.addPass(createOffloadHostLoops());
    pm.addPass(createOffloadSparseAccess());
  }
  // bit_vectorize(32) kernels: loops over words (they must not reach the
  // struct-for lowering as loops over lanes).
  pm.addPass(createBitVectorize());
  if (options.demoteAtomics) {
    DemoteAtomicsOptions demote;
    demote.blockLocal = options.cuda; // tic-block-local runs (below)
    pm.addPass(createDemoteAtomics(demote));
  }
  if (options.bitStoreDemotion)
    pm.addPass(createDemoteBitStores());
  // block_local: CPU-only objects ignore it, as Taichi does (the CPU's
  // caches hold a block's neighbourhood), and drop the hints and the
  // assume_in_range ops; a --target=cuda object's host code runs the same
  // loops as its device code.
  BlockLocalOptions blockLocal;
  blockLocal.cache = options.cuda;
  blockLocal.knownActive = options.accessCSE;
  blockLocal.warn = !options.cudaHost; // said once, by the device's lowering
  blockLocal.checked = options.checked;
  pm.addPass(createBlockLocal(blockLocal));
  LowerStructForOptions structFor;
  structFor.knownActive = options.accessCSE;
  structFor.device = options.cuda;
  pm.addPass(createLowerStructFor(structFor));
  pm.addPass(createSplitIndexSet());
  // CPU code only: a GPU adds floats atomically in its L2. In the host
  // module of a --target=cuda object the new loops are host_only (a CPU
  // context's), so its other launches still match the device module's
  // kernels.
  if (options.privatizeScatter && (!options.cuda || options.cudaHost)) {
    PrivatizeScatterOptions scatter;
    scatter.device = options.cuda;
    pm.addPass(createPrivatizeScatter(scatter));
  }
  pm.addPass(createLowerFieldAccess());
  if (options.cleanup) pm.addPass(mlir::createCSEPass());
  if (options.accessCSE) {
    SNodeAccessCSEOptions cse;
    cse.device = options.cuda;
    pm.addPass(createSNodeAccessCSE(cse));
  }
  if (options.cleanup) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  // Stores to one quantized word (one cell value after the cleanups); those
  // of a shared exponent's components always (their encoding is joint).
  FuseBitStoresOptions fuse;
  fuse.all = options.bitStoreFusion;
  pm.addPass(createFuseBitStores(fuse));
  // Parallel loops become tasks and launches; each target's conversion
  // decides how a launch runs them (CPU: thread-pool chunks).
  // Tables grow at the end of the kernels that insert, after their loops.
  HashMaintenanceOptions maintain;
  maintain.offload = options.cuda;
  pm.addPass(createHashMaintenance(maintain));
  pm.addPass(createOutlineTasks());
  if (options.privatizeReductions)
    pm.addPass(createPrivatizeReductions());
}

void tic::buildCPULoweringPipeline(mlir::OpPassManager &pm,
                                   const CPULoweringOptions &options) {
  buildTargetNeutralPipeline(pm, options);
  // x86 has no float atomic add: f32 adds to neighbouring components share
  // compare-and-swap loops (the GPU's pipeline adds each in one instruction).
  if (options.coalesceAtomics)
    pm.addPass(createCoalesceAtomics());
  // The snode ops first: what they need of the runtime (the root buffer,
  // the cells of sparse nodes) is left to the target's tc conversion.
  pm.addPass(createConvertSNodeToLLVM());
  pm.addPass(createLowerBits()); // what the quantized places left
  if (options.cudaHost)
    pm.addPass(createHostFieldAccess());
  ConvertTCToLLVMOptions toLLVM;
  toLLVM.cuda = options.cudaHost;
  pm.addPass(createConvertTCToLLVM(toLLVM));
  pm.addPass(mlir::createSCFToControlFlowPass());
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createConvertMathToLibmPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createUBToLLVMConversionPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  if (options.cleanup) pm.addPass(mlir::createCanonicalizerPass());
}

void tic::registerCPULoweringPipeline() {
  mlir::PassPipelineRegistration<>(
      "tic-cpu-pipeline",
      "Lower tc kernels and snode trees to the LLVM dialect for the CPU",
      [](mlir::OpPassManager &pm) { buildCPULoweringPipeline(pm); });
}

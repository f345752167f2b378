//===- CUDA.h - tc/snode -> NVVM -> PTX ------------------------*- C++ -*-===//
//
// The CUDA target's pipeline: the same target-neutral tc passes as the CPU
// (tic::buildTargetNeutralPipeline), then convert-tc-to-gpu (tasks become
// gpu.func kernels), the same convert-snode-to-llvm as the CPU, and MLIR's
// convert-gpu-to-nvvm (thread indices, math through libdevice) and
// gpu-module-to-binary (LLVM's NVPTX backend). Device code only: launching
// is the CUDA runtime's (issue 13).
//
//===----------------------------------------------------------------------===//
#ifndef TIC_TARGET_CUDA_H
#define TIC_TARGET_CUDA_H

#include "tic/Conversion/Pipeline.h"

#include "mlir/Support/LLVM.h"
#include <string>

namespace mlir {
class DialectRegistry;
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace tic {

struct CUDATargetOptions {
  /// GPU architecture: sm_70 ... sm_90.
  std::string chip = "sm_80";
  /// libdevice.10.bc (math functions); empty: none is linked, and a kernel
  /// that calls a math function is an error.
  std::string libdevice;
  /// NVPTX optimization level 0..3.
  unsigned optLevel = 2;
  /// Flush f32 denormals to zero (tic --denormals=flush, the default, as
  /// on the CPU): .ftz instructions and libdevice's FTZ variants.
  bool ftz = false;
  /// Grid-stride iterations per trip of small task bodies (convert-tc-to-gpu).
  unsigned unroll = 4;
};

/// The chips --cuda-arch accepts.
bool isSupportedCUDAChip(llvm::StringRef chip);

/// The libdevice found when tic was built (CUDAToolkit), or "".
std::string defaultLibdevicePath();

/// Dialects, interfaces and translations the CUDA pipeline needs.
void registerCUDATarget(mlir::DialectRegistry &registry);

/// Adds the passes from tc kernels + snode trees to a gpu.module of NVVM
/// kernels (LLVM dialect).
void buildCUDALoweringPipeline(mlir::OpPassManager &pm,
                               const CPULoweringOptions &front,
                               const CUDATargetOptions &options);

/// Serializes the gpu.module of `module` (after buildCUDALoweringPipeline)
/// to PTX. Errors are reported on the module's context.
mlir::FailureOr<std::string> emitPTX(mlir::ModuleOp module,
                                     const CUDATargetOptions &options);

/// Registers `tic-cuda-pipeline` (for tic-opt).
void registerCUDALoweringPipeline();

} // namespace tic

#endif

//===- tic-opt.cpp - MLIR optimizer driver for tic dialects ---------------===//
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "tic/Conversion/Passes.h"
#include "tic/Conversion/Pipeline.h"
#include "tic/Dialect/AD/ADDialect.h"
#include "tic/Dialect/AD/Passes.h"
#include "tic/Dialect/Bits/BitsDialect.h"
#include "tic/Dialect/Bits/Passes.h"
#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/CUDA.h"
#include "tic/Target/Interface.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<tic::tc::TCDialect, tic::snode::SNodeDialect,
                  tic::bits::BitsDialect, tic::ad::ADDialect,
                  mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::cf::ControlFlowDialect, mlir::scf::SCFDialect,
                  mlir::LLVM::LLVMDialect, mlir::ub::UBDialect>();

  // Upstream passes we use (no umbrella registration: keeps the build light).
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
  mlir::registerPass([] { return mlir::createArithToLLVMConversionPass(); });
  mlir::registerPass([] { return mlir::createConvertMathToLLVMPass(); });
  mlir::registerPass([] { return mlir::createConvertMathToLibmPass(); });
  mlir::registerPass([] { return mlir::createFinalizeMemRefToLLVMConversionPass(); });
  mlir::registerPass([] { return mlir::createConvertControlFlowToLLVMPass(); });
  mlir::registerPass([] { return mlir::createConvertFuncToLLVMPass(); });
  mlir::registerPass([] { return mlir::createUBToLLVMConversionPass(); });
  mlir::registerPass([] { return mlir::createReconcileUnrealizedCastsPass(); });

  tic::registerTCPasses();
  tic::registerBitsPasses();
  tic::registerADPasses();
  tic::registerSNodePasses();
  tic::registerTicConversionPasses();
  tic::registerCPULoweringPipeline();
  // The CUDA target: gpu/nvvm dialects, convert-gpu-to-nvvm,
  // tic-cuda-pipeline.
  tic::registerCUDATarget(registry);
  mlir::registerPass([] { return mlir::createConvertGpuOpsToNVVMOps(); });
  tic::registerCUDALoweringPipeline();
  tic::registerInterfacePasses();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tic optimizer driver\n", registry));
}

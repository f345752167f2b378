//===- CPU.cpp - LLVM dialect -> x86-64 object/assembly/IR ----------------===//
#include "tic/Target/CPU.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <mutex>

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
}

using namespace mlir;

std::pair<std::string, std::string>
tic::resolveCPU(const CPUTargetOptions &options) {
  std::string cpu = options.cpu.empty() ? "x86-64-v2" : options.cpu;
  std::string features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SmallVector<std::string> feats;
    for (auto &f : llvm::sys::getHostCPUFeatures())
      feats.push_back((f.second ? "+" : "-") + f.first().str());
    llvm::sort(feats); // deterministic
    features = llvm::join(feats, ",");
  }
  if (!options.features.empty())
    features = features.empty() ? options.features : features + "," + options.features;
  return {cpu, features};
}

LogicalResult tic::emitCPU(ModuleOp module, const CPUTargetOptions &options,
                           llvm::raw_pwrite_stream &out, EmitKind kind) {
  static std::once_flag initFlag;
  std::call_once(initFlag, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });
  MLIRContext *ctx = module.getContext();
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);

  llvm::Triple triple(options.triple.empty() ? "x86_64-unknown-linux-gnu"
                                             : options.triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(module.getLoc()) << "no LLVM target for '" << triple.str()
                                      << "': " << error;
  auto [cpu, features] = resolveCPU(options);
  llvm::TargetOptions to;
  const FPOptions &fp = options.fp;
  to.NoInfsFPMath = fp.noInfs;
  to.NoNaNsFPMath = fp.noNaNs;
  to.NoSignedZerosFPMath = fp.noSignedZeros;
  if (fp.contract)
    to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  llvm::CodeGenOptLevel cgOpt = options.optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : options.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                                        : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, to,
      options.pic ? llvm::Reloc::PIC_ : llvm::Reloc::Static, std::nullopt, cgOpt));
  if (!tm)
    return emitError(module.getLoc()) << "cannot create a target machine for '"
                                      << cpu << "'";

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(
      module, llvmContext, module.getName().value_or("tic_module"));
  if (!llvmModule)
    return emitError(module.getLoc()) << "translation to LLVM IR failed";
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());
  for (llvm::Function &f : *llvmModule) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", cpu);
    if (!features.empty()) f.addFnAttr("target-features", features);
    if (fp.noNaNs)
      f.addFnAttr("no-nans-fp-math", "true");
    if (fp.noInfs)
      f.addFnAttr("no-infs-fp-math", "true");
    if (fp.noSignedZeros)
      f.addFnAttr("no-signed-zeros-fp-math", "true");
    f.addFnAttr(llvm::Attribute::NoUnwind);
    if (!fp.any())
      continue;
    // The relaxations are flags on each floating-point instruction (and
    // math intrinsic call), which is what LLVM's passes consult.
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc(fp.reassociate);
    fmf.setAllowContract(fp.contract);
    fmf.setApproxFunc(fp.approxFunc);
    fmf.setAllowReciprocal(fp.reciprocal);
    fmf.setNoNaNs(fp.noNaNs);
    fmf.setNoInfs(fp.noInfs);
    fmf.setNoSignedZeros(fp.noSignedZeros);
    for (llvm::Instruction &inst : llvm::instructions(f))
      if (llvm::isa<llvm::FPMathOperator>(inst))
        inst.setFastMathFlags(inst.getFastMathFlags() | fmf);
  }
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return emitError(module.getLoc()) << "generated LLVM IR is invalid";

  if (options.optLevel > 0) {
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = options.optLevel >= 2;
    pto.SLPVectorization = options.optLevel >= 2;
    pto.LoopUnrolling = true;
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm.get(), pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level = options.optLevel == 1   ? llvm::OptimizationLevel::O1
                                    : options.optLevel == 2 ? llvm::OptimizationLevel::O2
                                                            : llvm::OptimizationLevel::O3;
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
    mpm.run(*llvmModule, mam);
  }

  if (kind == EmitKind::LLVMIR) {
    llvmModule->print(out, nullptr);
    return success();
  }
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, out, nullptr,
                              kind == EmitKind::Object
                                  ? llvm::CodeGenFileType::ObjectFile
                                  : llvm::CodeGenFileType::AssemblyFile))
    return emitError(module.getLoc()) << "the target cannot emit this file type";
  codegen.run(*llvmModule);
  return success();
}

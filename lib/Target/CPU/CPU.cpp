//===- CPU.cpp - LLVM dialect -> x86-64 object/assembly/IR ----------------===//
#include "tic/Target/CPU.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

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

/// Clones every kernel-side function (internal, not a `__tic_` field
/// accessor) once per extra version, with that version's target CPU, and
/// routes the calls from the rest of the module through a dispatcher on
/// tic_rt_cpu_level(). References between versioned functions (a kernel
/// passing its loop body to tic_rt_parallel_for) stay within one version.
static void multiVersion(llvm::Module &m,
                         ArrayRef<std::pair<int, std::string>> versions) {
  SmallVector<llvm::Function *> base;
  for (llvm::Function &f : m)
    if (!f.isDeclaration() && f.hasLocalLinkage() &&
        !f.getName().starts_with("__tic_"))
      base.push_back(&f);
  if (base.empty())
    return;
  llvm::SmallPtrSet<llvm::Function *, 16> versioned(base.begin(), base.end());
  // clones[v][i]: version v of base[i].
  SmallVector<SmallVector<llvm::Function *>> clones;
  for (auto &[level, cpu] : versions) {
    llvm::ValueToValueMapTy vmap;
    SmallVector<llvm::Function *> fs;
    std::string suffix = "." + cpu;
    for (llvm::Function *f : base) {
      llvm::Function *c = llvm::Function::Create(
          f->getFunctionType(), f->getLinkage(), f->getName() + suffix, &m);
      vmap[f] = c;
      fs.push_back(c);
    }
    for (size_t i = 0; i < base.size(); ++i) {
      llvm::Function *f = base[i], *c = fs[i];
      auto dst = c->arg_begin();
      for (llvm::Argument &a : f->args())
        vmap[&a] = &*dst++;
      SmallVector<llvm::ReturnInst *> rets;
      llvm::CloneFunctionInto(
          c, f, vmap, llvm::CloneFunctionChangeType::LocalChangesOnly, rets);
      c->addFnAttr("target-cpu", cpu);
      c->removeFnAttr("target-features");
      versioned.insert(c);
    }
    clones.push_back(std::move(fs));
  }
  llvm::FunctionCallee levelFn = m.getOrInsertFunction(
      "tic_rt_cpu_level", llvm::Type::getInt32Ty(m.getContext()));
  for (size_t i = 0; i < base.size(); ++i) {
    llvm::Function *f = base[i];
    // Only entries reached from outside the kernels need a dispatcher.
    bool outside = llvm::any_of(f->uses(), [&](llvm::Use &u) {
      auto *inst = dyn_cast<llvm::Instruction>(u.getUser());
      return !inst || !versioned.count(inst->getFunction());
    });
    if (!outside)
      continue;
    llvm::Function *d = llvm::Function::Create(
        f->getFunctionType(), llvm::GlobalValue::InternalLinkage,
        f->getName() + ".dispatch", &m);
    d->copyAttributesFrom(f);
    f->replaceUsesWithIf(d, [&](llvm::Use &u) {
      auto *inst = dyn_cast<llvm::Instruction>(u.getUser());
      return !inst || !versioned.count(inst->getFunction());
    });
    llvm::LLVMContext &ctx = m.getContext();
    SmallVector<llvm::Value *> args;
    for (llvm::Argument &a : d->args())
      args.push_back(&a);
    auto *entry = llvm::BasicBlock::Create(ctx, "entry", d);
    llvm::IRBuilder<> b(entry);
    llvm::Value *level = b.CreateCall(levelFn);
    // Highest version first; the base version last.
    for (size_t v = versions.size(); v-- > 0;) {
      auto *take = llvm::BasicBlock::Create(ctx, "v" + std::to_string(v), d);
      auto *next = llvm::BasicBlock::Create(ctx, "next", d);
      b.CreateCondBr(b.CreateICmpSGE(level, b.getInt32(versions[v].first)),
                     take, next);
      b.SetInsertPoint(take);
      llvm::Value *r = b.CreateCall(clones[v][i], args);
      if (f->getReturnType()->isVoidTy())
        b.CreateRetVoid();
      else
        b.CreateRet(r);
      b.SetInsertPoint(next);
    }
    llvm::Value *r = b.CreateCall(f, args);
    if (f->getReturnType()->isVoidTy())
      b.CreateRetVoid();
    else
      b.CreateRet(r);
  }
}

/// Splits basic blocks longer than kMaxBlockInstructions with unconditional
/// branches before instruction selection. LLVM's x86 two-address pass is
/// quadratic in the length of a block with tied operands (SSE encodings): a
/// kernel of 10^4 dependent statements took 6 s there, 30 000 over a minute.
/// Blocks of this size gain nothing from scheduling across the cut, and
/// block placement lays the pieces out as fallthroughs (no jumps remain).
static void splitLongBlocks(llvm::Module &m) {
  constexpr unsigned kMaxBlockInstructions = 1024;
  for (llvm::Function &f : m) {
    SmallVector<llvm::BasicBlock *> longBlocks;
    for (llvm::BasicBlock &bb : f)
      if (bb.sizeWithoutDebug() > kMaxBlockInstructions)
        longBlocks.push_back(&bb);
    for (llvm::BasicBlock *bb : longBlocks) {
      // The cut points first, then the cuts from the last one back: each
      // cut moves at most one piece (cutting from the front would move the
      // whole rest of the block every time).
      SmallVector<llvm::Instruction *> cuts;
      unsigned n = 0;
      for (auto it = bb->getFirstNonPHIIt(); !it->isTerminator(); ++it) {
        if (++n <= kMaxBlockInstructions)
          continue;
        // Never between a musttail call and its return.
        auto *prev = llvm::dyn_cast<llvm::CallInst>(&*std::prev(it));
        if (prev && prev->isMustTailCall())
          continue;
        cuts.push_back(&*it);
        n = 1;
      }
      for (llvm::Instruction *cut : llvm::reverse(cuts))
        bb->splitBasicBlock(cut->getIterator(), bb->getName() + ".cont");
    }
  }
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
  if (!options.versions.empty())
    multiVersion(*llvmModule, options.versions);
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
    llvm::PassInstrumentationCallbacks pic;
    llvm::StandardInstrumentations si(llvmContext, /*DebugLogging=*/false);
    if (options.timeReport) {
      llvm::TimePassesIsEnabled = true;
      si.registerCallbacks(pic, &mam);
    }
    llvm::PassBuilder pb(tm.get(), pto, std::nullopt,
                         options.timeReport ? &pic : nullptr);
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
  splitLongBlocks(*llvmModule);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, out, nullptr,
                              kind == EmitKind::Object
                                  ? llvm::CodeGenFileType::ObjectFile
                                  : llvm::CodeGenFileType::AssemblyFile))
    return emitError(module.getLoc()) << "the target cannot emit this file type";
  llvm::TimePassesIsEnabled = options.timeReport;
  codegen.run(*llvmModule);
  if (options.timeReport)
    llvm::reportAndResetTimings(&llvm::errs());
  return success();
}

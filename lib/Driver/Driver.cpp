//===- Driver.cpp - the compile pipeline of the tic driver ----------------===//
#include "tic/Driver/Driver.h"
#include "tic/CodeGen/CodeGen.h"
#include "tic/Conversion/Pipeline.h"
#include "tic/Dialect/AD/Passes.h"
#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Frontend/Diagnostics.h"
#include "tic/Frontend/Sema.h"
#include "tic/Target/CPU.h"
#include "tic/Target/CUDA.h"
#include "tic/Target/Header.h"
#include "tic/Target/Interface.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <sstream>

using namespace mlir;

namespace {

/// Prints MLIR diagnostics like the front end's (file:line:col + caret).
class DiagBridge {
public:
  DiagBridge(MLIRContext &ctx, tic::DiagnosticEngine &diags)
      : handler(&ctx, [&diags](Diagnostic &d) {
          report(diags, d);
          return success();
        }) {}

private:
  static void report(tic::DiagnosticEngine &diags, Diagnostic &d) {
    tic::Severity sev = d.getSeverity() == DiagnosticSeverity::Error
                            ? tic::Severity::Error
                        : d.getSeverity() == DiagnosticSeverity::Warning
                            ? tic::Severity::Warning
                            : tic::Severity::Note;
    tic::SourceRange range;
    if (auto fl = d.getLocation()->findInstanceOf<FileLineColLoc>()) {
      range.begin.line = fl.getLine();
      range.begin.col = fl.getColumn();
      range.end = range.begin;
    }
    std::string msg = d.str();
    if (sev == tic::Severity::Error &&
        msg.find("not supported") == std::string::npos)
      msg = "in code generation: " + msg;
    diags.report(sev, range, msg);
    for (Diagnostic &n : d.getNotes())
      report(diags, n);
  }
  ScopedDiagnosticHandler handler;
};

std::string printModule(ModuleOp m, bool debugInfo) {
  std::string s;
  llvm::raw_string_ostream os(s);
  OpPrintingFlags flags;
  if (debugInfo)
    flags.enableDebugInfo();
  m->print(os, flags);
  os.flush();
  return s;
}

} // namespace

bool tic::codegen::runBackend(const sema::CheckedModule &checked,
                              DiagnosticEngine &diags,
                              const BackendOptions &options,
                              BackendOutputs &out) {
  const std::string &emit = options.emit;
  bool wantHeader = emit == "obj" || emit == "header";

  iface::ModuleInterface interface;
  bool withInterface = emit != "mlir";
  if (withInterface || wantHeader) {
    interface = iface::describeModule(checked, options.inputName);
    for (const std::string &e : interface.errors)
      diags.error(SourceRange(), e);
    if (!interface.errors.empty())
      return false;
    if (wantHeader) {
      std::ostringstream h, j;
      iface::emitHeader(interface, h);
      iface::emitModuleJSON(interface, j);
      out.header = h.str();
      out.json = j.str();
    }
  }
  if (emit == "header") {
    out.main = out.header;
    return true;
  }

  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  // Diagnostics name the source construct; the IR of the op that reported
  // them is for tic-opt, not for users.
  ctx.printOpOnDiagnostic(false);
  DiagBridge bridge(ctx, diags);
  CodeGenOptions cg;
  cg.debug = options.debug;
  cg.checkBounds = options.checkBounds || options.debug;
  cg.fileName = options.inputName;
  OwningOpRef<ModuleOp> module = generateMLIR(checked, ctx, diags, cg);
  if (!module || diags.hasErrors())
    return false;
  // The cf blocks of statements that a break, continue or return leaves are
  // lifted to scf: kernels are structured from here on (docs/codegen.md).
  {
    PassManager lift(&ctx);
    lift.addPass(createLiftControlFlow());
    // Reverse-mode adjoints of the differentiable kernels (docs/autodiff.md),
    // on the structured tc kernels, before anything lowers them.
    lift.addPass(createReverseMode());
    lift.addPass(createForwardMode());
    // -g: the run-time validation of the global data access rules.
    if (options.debug)
      lift.addPass(createValidateAccessRules());
    if (failed(lift.run(*module))) {
      if (!diags.hasErrors())
        diags.error(SourceRange(), "internal error: lifting control flow to "
                                   "scf failed");
      return false;
    }
  }
  if (emit == "mlir") {
    out.main = printModule(*module, false);
    return true;
  }

  // --target=cuda: the device code (PTX) of the module's parallel loops,
  // from `m` (lowered in place).
  auto generatePTX = [&](ModuleOp m) -> FailureOr<std::string> {
    if (!isSupportedCUDAChip(options.cudaArch)) {
      diags.error(SourceRange(), "unknown --cuda-arch '" + options.cudaArch +
                                     "' (expected sm_70, sm_72, sm_75, sm_80, "
                                     "sm_86, sm_87, sm_89 or sm_90)");
      return failure();
    }
    DialectRegistry registry;
    registerCUDATarget(registry);
    ctx.appendDialectRegistry(registry);
    CUDATargetOptions cuda;
    cuda.chip = options.cudaArch;
    cuda.libdevice = options.cudaLibdevice.empty() ? defaultLibdevicePath()
                                                   : options.cudaLibdevice;
    cuda.optLevel = std::min(options.optLevel, 3u);
    // Denormals as on the CPU (--denormals=flush by default).
    cuda.ftz = options.denormals == "flush";
    cuda.unroll = options.cudaUnroll;
    CPULoweringOptions front;
    front.demoteAtomics = options.demoteAtomics;
    front.accessCSE = options.accessOpt;
    front.bitStoreFusion = options.bitStoreFusion;
    front.bitStoreDemotion = options.bitStoreDemotion;
    front.cuda = true;
    front.checked = options.debug;
    PassManager pm(&ctx);
    if (options.timeReport)
      pm.enableTiming();
    buildCUDALoweringPipeline(pm, front, cuda);
    if (failed(pm.run(m))) {
      if (!diags.hasErrors())
        diags.error(SourceRange(), "lowering to NVVM failed");
      return failure();
    }
    bool callsLibdevice = false;
    m->walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCallee())
        callsLibdevice |= callee->starts_with("__nv_");
    });
    if (callsLibdevice && cuda.libdevice.empty()) {
      diags.error(
          SourceRange(),
          "--target=cuda: the kernels call math functions, which come from "
          "the CUDA toolkit's libdevice.10.bc; none was found when tic "
          "was built: pass --cuda-libdevice=PATH");
      return failure();
    }
    if (cuda.ftz) {
      // f32 denormal results and inputs flush to zero, keeping the sign:
      // the .ftz forms of the instructions.
      auto mode = StringAttr::get(&ctx, "preserve-sign,preserve-sign");
      m->walk([&](gpu::GPUModuleOp gm) {
        gm.walk([&](LLVM::LLVMFuncOp f) {
          if (!f.isExternal())
            f.setDenormalFpMathF32Attr(mode);
        });
      });
    }
    FailureOr<std::string> ptx = emitPTX(m, cuda);
    if (failed(ptx) && !diags.hasErrors())
      diags.error(SourceRange(), "PTX generation failed");
    return ptx;
  };
  if (emit == "ptx") {
    FailureOr<std::string> ptx = generatePTX(*module);
    if (failed(ptx))
      return false;
    out.main = std::move(*ptx);
    return true;
  }

  // Denormal handling is set through MXCSR, so only on x86: the C entry
  // points switch it around each kernel (tic.denormals), and the functions
  // tell LLVM how denormals behave while they run.
  CPUTargetOptions target;
  llvm::Triple targetTriple(target.triple.empty() ? "x86_64-unknown-linux-gnu"
                                                  : target.triple);
  bool setDenormals = targetTriple.isX86();
  bool flushDenormals = setDenormals && options.denormals == "flush";
  if (setDenormals)
    (*module)->setAttr("tic.denormals",
                       StringAttr::get(&ctx, options.denormals));

  // Layouts are computed once, here, and recorded in the IR: the C interface
  // generator and every lowering pass read them.
  {
    PassManager alloc(&ctx);
    alloc.addPass(createAllocateLayout());
    if (failed(alloc.run(*module))) {
      if (!diags.hasErrors())
        diags.error(SourceRange(),
                    "internal error: allocating the layout failed");
      return false;
    }
  }

  if (withInterface && failed(prepareCInterface(*module, interface)))
    return false;

  // --target=cuda: the same module, interface kernels included, lowered for
  // the device too; its PTX goes into the object (tic_rt_module_desc::ptx)
  // and the host side launches on the device when the context is on one.
  std::string ptx;
  if (options.cuda) {
    OwningOpRef<ModuleOp> device = module->clone();
    FailureOr<std::string> p = generatePTX(*device);
    if (failed(p))
      return false;
    ptx = std::move(*p);
  }

  PassManager pm(&ctx);
  if (options.timeReport)
    pm.enableTiming(); // printed to stderr when `pm` goes away
  CPULoweringOptions lowering;
  lowering.demoteAtomics = options.demoteAtomics;
  lowering.accessCSE = options.accessOpt;
  lowering.bitStoreFusion = options.bitStoreFusion;
  lowering.bitStoreDemotion = options.bitStoreDemotion;
  lowering.coalesceAtomics = options.coalesceAtomics;
  lowering.privatizeScatter = options.privatizeScatter;
  lowering.cudaHost = options.cuda;
  lowering.cuda = options.cuda;
  lowering.checked = options.debug;
  buildCPULoweringPipeline(pm, lowering);
  if (failed(pm.run(*module))) {
    if (!diags.hasErrors())
      diags.error(SourceRange(), "lowering to the LLVM dialect failed");
    return false;
  }
  if (options.cuda) {
    auto b = OpBuilder::atBlockEnd(module->getBody());
    ptx.push_back('\0');
    auto ty = LLVM::LLVMArrayType::get(b.getI8Type(), ptx.size());
    LLVM::GlobalOp::create(b, module->getLoc(), ty, /*isConstant=*/true,
                           LLVM::Linkage::Internal, kCudaPTXSymbol,
                           b.getStringAttr(ptx), /*alignment=*/8);
  }
  if (withInterface && failed(finalizeCInterface(*module)))
    return false;
  if (flushDenormals) {
    // Denormal results flush to zero and denormal inputs read as zero,
    // keeping their sign: LLVM's constant folding then agrees with the
    // hardware.
    auto mode = StringAttr::get(&ctx, "preserve-sign,preserve-sign");
    module->walk([&](LLVM::LLVMFuncOp f) {
      if (!f.isExternal()) {
        f.setDenormalFpMathAttr(mode);
        f.setDenormalFpMathF32Attr(mode);
      }
    });
  }
  if (emit == "mlir-lowered") {
    out.main = printModule(*module, false);
    return true;
  }

  if (!options.cpu.empty())
    target.cpu = options.cpu;
  // Several CPUs (`--cpu=x86-64-v2,x86-64-v3,x86-64-v4`, or `auto` for those
  // three): every kernel is compiled per level and dispatched at run time.
  if (target.cpu == "auto" || target.cpu.find(',') != std::string::npos) {
    std::string list =
        target.cpu == "auto" ? "x86-64-v2,x86-64-v3,x86-64-v4" : target.cpu;
    std::map<int, std::string> byLevel;
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(list).split(names, ',');
    for (llvm::StringRef n : names) {
      int level = n == "x86-64" ? 1
                  : n.consume_front("x86-64-v") && n.size() == 1 &&
                          n[0] >= '2' && n[0] <= '4'
                      ? n[0] - '0'
                      : 0;
      if (level == 0) {
        diags.error(SourceRange(),
                    "--cpu with several CPUs takes the x86-64 levels x86-64, "
                    "x86-64-v2, x86-64-v3 and x86-64-v4 (or 'auto'), got '" +
                        list + "'");
        return false;
      }
      byLevel[level] =
          level == 1 ? "x86-64" : "x86-64-v" + std::to_string(level);
    }
    auto it = byLevel.begin();
    target.cpu = it->second;
    for (++it; it != byLevel.end(); ++it)
      target.versions.push_back({it->first, it->second});
  }
  if (target.cpu != "native") {
    // Reject unknown CPU names here: LLVM would only warn, then abort.
    llvm::InitializeNativeTarget();
    llvm::Triple triple(target.triple.empty() ? "x86_64-unknown-linux-gnu"
                                              : target.triple);
    std::string err;
    const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, err);
    std::unique_ptr<llvm::MCSubtargetInfo> sti(
        t ? t->createMCSubtargetInfo(triple, "", "") : nullptr);
    if (sti && !sti->isCPUStringValid(target.cpu)) {
      diags.error(SourceRange(), "unknown CPU '" + target.cpu +
                                     "' for --cpu (try x86-64, x86-64-v2, "
                                     "x86-64-v3, x86-64-v4, skylake, "
                                     "znver3, ... or native)");
      return false;
    }
  }
  target.optLevel = options.optLevel;
  target.timeReport = options.timeReport;
  target.fp = options.fp;
  EmitKind kind = emit == "llvm"  ? EmitKind::LLVMIR
                  : emit == "asm" ? EmitKind::Assembly
                                  : EmitKind::Object;
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  if (failed(emitCPU(*module, target, os, kind))) {
    if (!diags.hasErrors())
      diags.error(SourceRange(), "generating " + emit + " output failed");
    return false;
  }
  out.main.assign(buffer.begin(), buffer.end());
  return !diags.hasErrors();
}

//===- tic-cpu-emit.cpp - test tool for tic::emitCPU ----------------------===//
//
// tic-cpu-emit IN.mlir [--lower] [--emit=obj|asm|llvm] [--cpu=NAME] [-O N] -o OUT
// Parses a module, optionally runs tic::buildCPULoweringPipeline, then writes
// an object file, assembly or LLVM IR through tic::emitCPU.
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/Pipeline.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/CPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;

static cl::opt<std::string> input(cl::Positional, cl::desc("<input .mlir>"), cl::init("-"));
static cl::opt<std::string> output("o", cl::desc("output file"), cl::init("-"));
static cl::opt<std::string> emit("emit", cl::desc("obj | asm | llvm"), cl::init("obj"));
static cl::opt<std::string> cpu("cpu", cl::desc("target CPU (default x86-64-v2, or native)"),
                                cl::init("x86-64-v2"));
static cl::opt<unsigned> optLevel("O", cl::desc("optimization level 0..3"), cl::init(3),
                                  cl::Prefix);
static cl::opt<bool> lower("lower", cl::desc("run the tc -> LLVM dialect pipeline first"),
                           cl::init(false));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "tic CPU emission test tool\n");
  mlir::DialectRegistry registry;
  registry.insert<tic::tc::TCDialect, tic::snode::SNodeDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::cf::ControlFlowDialect,
                  mlir::scf::SCFDialect, mlir::LLVM::LLVMDialect, mlir::ub::UBDialect>();
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sm;
  mlir::SourceMgrDiagnosticHandler handler(sm, &context);
  auto file = MemoryBuffer::getFileOrSTDIN(input);
  if (!file) {
    errs() << "cannot read " << input << "\n";
    return 1;
  }
  sm.AddNewSourceBuffer(std::move(*file), SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sm, &context);
  if (!module) return 1;
  if (lower) {
    mlir::PassManager pm(&context);
    tic::buildCPULoweringPipeline(pm);
    if (mlir::failed(pm.run(*module))) return 1;
  }
  tic::EmitKind kind = emit == "asm"    ? tic::EmitKind::Assembly
                       : emit == "llvm" ? tic::EmitKind::LLVMIR
                                        : tic::EmitKind::Object;
  std::error_code ec;
  ToolOutputFile out(output, ec,
                     kind == tic::EmitKind::Object ? sys::fs::OF_None : sys::fs::OF_Text);
  if (ec) {
    errs() << ec.message() << "\n";
    return 1;
  }
  tic::CPUTargetOptions opts;
  opts.cpu = cpu;
  opts.optLevel = optLevel;
  if (mlir::failed(tic::emitCPU(*module, opts, out.os(), kind))) return 1;
  out.keep();
  return 0;
}

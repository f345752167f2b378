//===- CodeGenFuzzer.cpp - libFuzzer entry point for code generation ------===//
//
// Feeds arbitrary bytes to the whole compiler short of object emission:
// parse, Sema, then codegen::runBackend with --emit=llvm -O0, which is what
// the tic driver runs: generateMLIR (verified), the C interface passes, the
// CPU lowering pipeline to the LLVM dialect, translation to LLVM IR and the
// LLVM verifier (no optimisation, no machine code). Diagnostics are
// formatted into a stream that discards them; MLIR's multithreading is off
// (runBackend's MLIRContext is created with Threading::DISABLED).
//
// Most mutated inputs stop in the parser or Sema; those that pass are what
// this target is for. Crashes, sanitizer reports, hangs and stack overflows
// anywhere — in MLIR/LLVM too, since they are then fed IR we generated — are
// findings.
//
// As in FrontendFuzzer.cpp, everything runs on a thread with the driver's
// 512 MiB stack (tools/tic/tic.cpp).
//
//===----------------------------------------------------------------------===//

#include "tic/Driver/Driver.h"
#include "tic/Frontend/AST.h"
#include "tic/Frontend/Diagnostics.h"
#include "tic/Frontend/Parser.h"
#include "tic/Frontend/Sema.h"
#include "tic/Frontend/Stack.h"


#include <cstddef>
#include <cstdint>
#include <ostream>
#include <streambuf>
#include <string>

using namespace tic;

namespace {


struct Job {
  const uint8_t *data;
  size_t size;
};

void runCompiler(const Job &job) {
  SourceFile file("fuzz.tc",
                  std::string(reinterpret_cast<const char *>(job.data), job.size));
  NullStream diagStream;
  DiagnosticEngine diags(file, diagStream);
  std::unique_ptr<ast::Program> program = parseProgram(file, diags);
  if (!program || diags.hasErrors())
    return;

  // Vary the options with the input (deterministically) so both the plain
  // and the -g (asserts, bounds checks) generation paths and both default
  // float types are exercised.
  bool debug = job.size % 3 == 0;
  sema::SemaOptions semaOpts;
  semaOpts.moduleStem = "fuzz";
  semaOpts.defaultFloat = job.size % 5 == 0 ? "f64" : "f32";
  semaOpts.debug = debug;
  // Scaled down like the front-end fuzzer's: the same checks, reached sooner.
  semaOpts.maxUnrolledStatements = 4096;
  std::unique_ptr<sema::CheckedModule> checked =
      sema::analyze(*program, diags, semaOpts);
  if (!checked || diags.hasErrors())
    return;

  codegen::BackendOptions bo;
  bo.emit = "llvm";
  bo.optLevel = 0;
  bo.debug = debug;
  bo.checkBounds = debug;
  bo.inputName = "fuzz.tc";
  codegen::BackendOutputs out;
  (void)codegen::runBackend(*checked, diags, bo, out);
}


} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Job job{data, size};
  runOnLargeStack([&] { runCompiler(job); }); // the stack tic itself runs on
  return 0;
}

//===- FrontendFuzzer.cpp - libFuzzer entry point for the front end -------===//
//
// Feeds arbitrary bytes to the front end as a .tc file: parse, then every
// stage listed in kStages, then the AST dumper and cloner. Diagnostics are
// fully formatted (caret lines included) into a stream that discards them.
// Crashes, sanitizer reports, hangs and stack overflows are findings; error
// diagnostics are the expected outcome for most inputs.
//
// The front end runs on a thread with the same large stack that the tic
// driver gives it (tools/tic/tic.cpp), so the fuzzer checks the limits the
// driver actually relies on.
//
//===----------------------------------------------------------------------===//

#include "tic/Frontend/AST.h"
#include "tic/Frontend/Diagnostics.h"
#include "tic/Frontend/Parser.h"
#include "tic/Frontend/Sema.h"
#include "tic/Frontend/Stack.h"


#include <cstddef>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

using namespace tic;

namespace {


/// A front-end stage after parsing. Each runs on the parsed program in order
/// and reports to the same diagnostic engine; a stage that finds errors stops
/// the chain, as the driver does.
using Stage = void (*)(ast::Program &, DiagnosticEngine &);

/// The unrolling budget scaled down 16x (the same checks, reached sooner):
/// unrolling 65 536 statements takes 0.3 s in a release build but over the
/// fuzzer's 1 s timeout under ASan, a false timeout finding.
sema::SemaOptions fuzzSemaOptions() {
  sema::SemaOptions o;
  o.maxUnrolledStatements = 4096;
  return o;
}

/// The stages after the parser, in order: one entry each.
const std::vector<Stage> kStages = {
    // AST printing must handle every tree the parser can build.
    [](ast::Program &p, DiagnosticEngine &) {
      NullStream os;
      ast::dump(p, os);
    },
    // Semantic analysis, and the dump of what it produced.
    [](ast::Program &p, DiagnosticEngine &d) {
      std::unique_ptr<sema::CheckedModule> m =
          sema::analyze(p, d, fuzzSemaOptions());
      if (m) {
        NullStream os;
        m->dump(os);
      }
    },
};

struct Job {
  const uint8_t *data;
  size_t size;
};

void runFrontend(const Job &job) {
  SourceFile file("fuzz.tc",
                  std::string(reinterpret_cast<const char *>(job.data), job.size));
  NullStream diagStream;
  DiagnosticEngine diags(file, diagStream);
  diags.setColors(job.size % 2 == 1); // exercise both renderings
  std::unique_ptr<ast::Program> program = parseProgram(file, diags);
  if (!program || diags.hasErrors())
    return;
  for (Stage stage : kStages) {
    stage(*program, diags);
    if (diags.hasErrors())
      return;
  }
  // Cloning is used by template instantiation: every node must clone.
  for (const ast::DeclPtr &d : program->decls)
    if (auto *f = dyn_cast<ast::FunctionDecl>(d.get()))
      (void)ast::clone(*f->body);
}


} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Job job{data, size};
  runOnLargeStack([&] { runFrontend(job); }); // the stack tic itself runs on
  return 0;
}

//===- tic.cpp - The tic compiler driver ----------------------------------===//
//
//   tic FILE.tc -o OUT.o [--emit=KIND] [-D name=value]... [-O0..3] [-g]
//
// Option spellings follow clang and ispc where they have one. Outputs are
// written all or none, never replacing what is not a regular file, and the
// input is read with a size limit (Outputs.h).
//
//===----------------------------------------------------------------------===//

#include "Outputs.h"

#include "tic/Frontend/AST.h"
#include "tic/Frontend/Diagnostics.h"
#include "tic/Frontend/Parser.h"
#include "tic/Frontend/Stack.h"
#include "tic/Frontend/Sema.h"
#ifdef TIC_HAVE_CODEGEN
#include "tic/Driver/Driver.h"
#endif

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#ifndef TIC_VERSION
#define TIC_VERSION "0.0.0"
#endif

using namespace tic;

namespace {

struct Options {
  std::string input;
  std::string output;
  std::string emit = "obj";
  std::vector<std::string> defines;
  std::string optLevel = "3";
  bool debug = false;
  bool checkBounds = false;
  bool noDemoteAtomics = false;
  bool noAccessOpt = false;
  bool noBitStoreFusion = false;
  bool noBitStoreDemotion = false;
  bool noAtomicCoalescing = false;
  bool noScatterPrivatization = false;
  std::string target = "host";
  std::string cudaArch = "sm_80";
  std::string cudaLibdevice;
  unsigned cudaUnroll = 4;
  std::string header;
  std::string cpu;
  std::string defaultFp; // empty: the module's default_fp, else f32
  std::string denormals = "flush";
  std::string color = "auto";
  bool werror = false;
  bool noWarnings = false;
  unsigned errorLimit = 20;
  bool syntaxOnly = false;
  // -ffast-math and its parts (docs/cli.md)
  bool fastMath = false;
  tic::FPOptions fp;
  std::string fpContract = "off";
  bool timeReport = false; // -ftime-report
  bool depFile = false;    // -MD
  std::string depFilePath; // -MF (implies -MD)
};

const char *const kEmitKinds[] = {"ast",  "sema", "mlir", "mlir-lowered", "llvm",
                                  "asm",  "obj",  "ptx",          "header"};

/// `path` escaped for a Make rule.
std::string makeEscape(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

/// -MD: where the dependency file goes. -MF PATH, else the output with its
/// extension replaced by .d (`-o build/sim.o` -> build/sim.d), as clang does.
std::string depFileName(const Options &opts, const std::string &output) {
  if (!opts.depFilePath.empty())
    return opts.depFilePath;
  std::string base = output;
  size_t slash = base.find_last_of('/');
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && dot != 0 &&
      (slash == std::string::npos || dot > slash + 1))
    base = base.substr(0, dot);
  return base + ".d";
}

/// The Make rule of -MD: the output depends on the input (the language has
/// no include or import, so that is every file a module is built from).
std::string depFileContents(const Options &opts, const std::string &output) {
  std::string rule = makeEscape(output) + ":";
  if (opts.input != "-")
    rule += " " + makeEscape(opts.input);
  return rule + "\n";
}

/// A driver-level error without a source location.
int driverError(const std::string &message) {
  std::cerr << "tic: error: " << message << "\n";
  return 1;
}

/// The input file's stem: the default module name and output name.
std::string inputStem(const Options &opts) {
  std::string stem = opts.input == "-" ? "out" : opts.input;
  size_t slash = stem.find_last_of('/');
  if (slash != std::string::npos)
    stem = stem.substr(slash + 1);
  size_t dot = stem.rfind('.');
  if (dot != std::string::npos && dot != 0)
    stem = stem.substr(0, dot);
  return stem;
}

std::string defaultOutput(const Options &opts) {
  std::string stem = inputStem(opts);
  if (opts.emit == "obj")
    return stem + ".o";
  if (opts.emit == "header")
    return stem + ".h";
  if (opts.emit == "ptx")
    return stem + ".ptx";
  return "-"; // textual stages go to stdout by default
}

/// Where --emit=obj writes the header without --header: beside a regular
/// object file (`-o build/sim.o` -> build/sim.h); STEM.h in the current
/// directory when the object goes to stdout, a device or a FIFO (never
/// `/dev/null.h`).
std::string defaultHeader(const Options &opts, const std::string &output) {
  struct stat st;
  bool special =
      output == "-" || (::stat(output.c_str(), &st) == 0 &&
                        !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
  if (special)
    return inputStem(opts) + ".h";
  std::string base = output;
  size_t slash = base.find_last_of('/');
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
    base = base.substr(0, dot);
  return base + ".h";
}

/// Code generation, lowering and emission (lib/CodeGen/Driver.cpp): writes
/// the requested output and, for objects, MODULE.h / MODULE.json beside it
/// (or at --header PATH).
int runCodeGen(const Options &opts, const sema::CheckedModule &checked,
               DiagnosticEngine &diags, const std::string &output,
               driver::OutputSet &outputs) {
#ifndef TIC_HAVE_CODEGEN
  (void)checked;
  (void)diags;
  (void)output;
  (void)outputs;
  return driverError("--emit=" + opts.emit +
                     " is not available: this tic was built without code "
                     "generation (TIC_ONLY_FRONTEND)");
#else
  codegen::BackendOptions bo;
  bo.emit = opts.emit;
  // --target=cuda or host,cuda (checked in main).
  bo.cuda = opts.target.find("cuda") != std::string::npos;
  bo.cudaArch = opts.cudaArch;
  bo.cudaLibdevice = opts.cudaLibdevice;
  bo.cudaUnroll = opts.cudaUnroll;
  bo.optLevel = unsigned(std::stoi(opts.optLevel));
  bo.cpu = opts.cpu;
  bo.debug = opts.debug;
  bo.checkBounds = opts.checkBounds;
  bo.fp = opts.fastMath ? tic::FPOptions::fast() : opts.fp;
  if (opts.fpContract == "fast")
    bo.fp.contract = true;
  bo.demoteAtomics = !opts.noDemoteAtomics;
  bo.accessOpt = !opts.noAccessOpt;
  bo.bitStoreFusion = !opts.noBitStoreFusion;
  bo.bitStoreDemotion = !opts.noBitStoreDemotion;
  bo.coalesceAtomics = !opts.noAtomicCoalescing;
  bo.privatizeScatter = !opts.noScatterPrivatization;
  bo.denormals = opts.denormals;
  bo.inputName = opts.input == "-" ? "<stdin>" : opts.input;
  bo.timeReport = opts.timeReport;
  codegen::BackendOutputs out;
  if (!codegen::runBackend(checked, diags, bo, out) || diags.hasErrors())
    return 1;
  if (opts.emit == "obj" && !out.header.empty()) {
    std::string header = opts.header;
    if (header.empty())
      header = defaultHeader(opts, output);
    std::string json = header;
    if (json.size() > 2 && json.compare(json.size() - 2, 2, ".h") == 0)
      json = json.substr(0, json.size() - 2);
    json += ".json";
    outputs.add(header, std::move(out.header), "header");
    outputs.add(json, std::move(out.json), "JSON metadata");
  }
  outputs.add(output, std::move(out.main), "output");
  return 0;
#endif
}

int runStages(const Options &opts, const SourceFile &file,
              DiagnosticEngine &diags, driver::OutputSet &outputs);

std::string outputPath(const Options &opts) {
  return opts.output.empty() ? defaultOutput(opts) : opts.output;
}

int compile(const Options &opts) {
  std::string text, error;
  if (!driver::readSource(opts.input, text, error))
    return driverError(error);
  SourceFile file(opts.input == "-" ? "<stdin>" : opts.input, std::move(text));
  DiagnosticEngine diags(file, std::cerr);
  if (opts.color == "always")
    diags.setColors(true);
  else if (opts.color == "never")
    diags.setColors(false);
  diags.setErrorLimit(opts.errorLimit);
  diags.setWarningsAsErrors(opts.werror);
  diags.setSuppressWarnings(opts.noWarnings);
  driver::OutputSet outputs(opts.input);
  int rc = runStages(opts, file, diags, outputs);
  diags.finish();
  if (rc != 0)
    return rc;
  if (opts.depFile) {
    std::string output = outputPath(opts);
    outputs.add(depFileName(opts, output), depFileContents(opts, output),
                "dependency file");
  }
  // Every output or none (Outputs.h).
  if (!outputs.commit(error))
    return driverError(error);
  return 0;
}

/// Parse, check and emit `file`; diagnostics go to `diags`.
int runStages(const Options &opts, const SourceFile &file,
              DiagnosticEngine &diags, driver::OutputSet &outputs) {
  std::unique_ptr<ast::Program> program = parseProgram(file, diags);
  if (!program || diags.hasErrors())
    return 1;

  // Semantic analysis runs for every output kind: --emit=ast prints the
  // parsed AST only for a valid program.
  sema::SemaOptions semaOpts;
  semaOpts.moduleStem = inputStem(opts);
  for (const std::string &d : opts.defines) {
    size_t eq = d.find('=');
    semaOpts.defines.emplace_back(d.substr(0, eq), d.substr(eq + 1));
  }
  semaOpts.defaultFloat = opts.defaultFp;
  semaOpts.debug = opts.debug;
  semaOpts.checkCNames =
      opts.emit != "ast" && opts.emit != "sema" && opts.emit != "mlir";
  std::unique_ptr<sema::CheckedModule> checked =
      sema::analyze(*program, diags, semaOpts);
  if (!checked || diags.hasErrors())
    return 1;
  if (opts.syntaxOnly)
    return 0;

  std::string output = outputPath(opts);
  if (opts.emit == "ast") {
    std::ostringstream os;
    ast::dump(*program, os);
    outputs.add(output, os.str());
    return 0;
  }
  if (opts.emit == "sema") {
    std::ostringstream os;
    checked->dump(os);
    outputs.add(output, os.str());
    return 0;
  }
  return runCodeGen(opts, *checked, diags, output, outputs);
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  CLI::App app{"tic: ahead-of-time compiler for .tc simulation kernels", "tic"};
  app.set_version_flag("--version", std::string("tic version ") + TIC_VERSION);
  app.add_option("input", opts.input, "Input .tc file ('-' reads stdin)")
      ->required();
  app.add_option("-o", opts.output,
                 "Output file ('-' writes stdout); default: the input's stem "
                 "with .o, or stdout for textual stages");
  std::string emitHelp = "What to produce:";
  for (const char *k : kEmitKinds)
    emitHelp += std::string(" ") + k;
  app.add_option("--emit", opts.emit, emitHelp)
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kEmitKinds),
                                                     std::end(kEmitKinds))));
  // One NAME=VALUE per -D: CLI11 lets a vector option take every following
  // argument, which swallowed the input file ('-D n=8 sim.tc').
  app.add_option("-D", opts.defines,
                 "Override a constant: -D name=value (repeatable)")
      ->allow_extra_args(false);
  app.add_option("-O", opts.optLevel, "Optimisation level 0-3 (default 3)")
      ->check(CLI::IsMember({"0", "1", "2", "3"}));
  app.add_flag("--fsyntax-only", opts.syntaxOnly,
               "Check the program (parse and semantic analysis); write nothing");
  app.add_flag("-g", opts.debug,
               "Debug build: bounds checks, assertions, overflow reports");
  app.add_flag("--ffast-math", opts.fastMath,
               "Every floating-point relaxation below (off by default: IEEE)");
  app.add_flag("--fassociative-math", opts.fp.reassociate,
               "Reassociate floating-point operations (vectorised reductions)");
  app.add_option("--ffp-contract", opts.fpContract,
                 "Fuse a*b+c into FMA: off (default) or fast")
      ->check(CLI::IsMember({"off", "fast"}));
  app.add_flag("--fapprox-func", opts.fp.approxFunc,
               "Approximate math functions (sin, exp, sqrt, ...)");
  app.add_flag("--freciprocal-math", opts.fp.reciprocal,
               "Allow x / y to become x * (1 / y)");
  app.add_flag(
      "--ffinite-math-only",
      [&](int64_t) { opts.fp.noNaNs = opts.fp.noInfs = true; },
      "Assume no NaN or infinity");
  app.add_flag("--fno-signed-zeros", opts.fp.noSignedZeros,
               "Ignore the sign of zero");
  app.add_flag("--ftime-report", opts.timeReport,
               "Print the time of each compiler pass to stderr");
  app.add_flag("--check-bounds", opts.checkBounds,
               "Check field and ndarray indices at run time");
  app.add_flag("--no-demote-atomics", opts.noDemoteAtomics,
               "Keep every atomic update atomic (no tic-demote-atomics)");
  app.add_flag("--fno-access-opt", opts.noAccessOpt,
               "Turn off the SNode access optimisations (shared traversals, "
               "known-active sparse cells), for ablation");
  app.add_flag("--fno-bit-store-fusion", opts.noBitStoreFusion,
               "Store each quantized field of a word on its own (no "
               "tic-fuse-bit-stores), for ablation");
  app.add_flag("--fno-bit-store-demotion", opts.noBitStoreDemotion,
               "Write every quantized word with a compare-and-swap loop (no "
               "tic-demote-bit-stores), for ablation");
  app.add_flag("--fno-atomic-coalescing", opts.noAtomicCoalescing,
               "Update each f32 component with its own compare-and-swap loop "
               "(no tic-coalesce-atomics), for ablation");
  app.add_flag("--fno-scatter-privatization", opts.noScatterPrivatization,
               "Keep the atomic adds of loops that only add into a field, "
               "on every thread count (no tic-privatize-scatter): results "
               "then do not depend on the thread count's reassociation");
  app.add_option("--target", opts.target,
                 "Comma-separated targets: host, cuda (default host)");
  app.add_option("--cuda-arch", opts.cudaArch,
                 "GPU architecture for --target=cuda: sm_70, sm_72, sm_75, "
                 "sm_80 (default), sm_86, sm_87, sm_89, sm_90");
  app.add_option("--cuda-libdevice", opts.cudaLibdevice,
                 "libdevice.10.bc of a CUDA toolkit, for math functions on the "
                 "GPU (default: the one found when tic was built)");
  app.add_option("--cuda-unroll", opts.cudaUnroll,
                 "Grid-stride iterations each GPU thread runs per trip of a "
                 "small 1-D loop body, interleaved (default 4; 1: none)")
      ->check(CLI::Range(1u, 16u));
  app.add_option("--header", opts.header,
                 "Where to write the C header (default: beside the object)");
  app.add_option("--cpu,--march", opts.cpu,
                 "CPU to generate code for: a name (x86-64-v3, skylake, ...) or "
                 "'native' (default: portable x86-64-v2)");
  app.add_option("--default-fp", opts.defaultFp,
                 "Type of untyped float literals and random(): f32 or f64 "
                 "(default: the module's default_fp, else f32)")
      ->check(CLI::IsMember({"f32", "f64"}));
  app.add_option("--denormals", opts.denormals,
                 "Denormal floats in kernels: flush (to zero, default, like "
                 "Taichi) or preserve (IEEE)")
      ->check(CLI::IsMember({"flush", "preserve"}));
  app.add_option("--color", opts.color,
                 "Coloured diagnostics: auto (default), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("--MD", opts.depFile,
               "Also write a Make dependency file (default: the output with "
               ".d); spelled -MD");
  app.add_option("--MF", opts.depFilePath,
                 "Where -MD writes the dependency file (implies -MD); spelled "
                 "-MF FILE");
  app.add_flag("--Werror", opts.werror, "Treat warnings as errors");
  app.add_flag("-w", opts.noWarnings, "Suppress warnings");
  app.add_option("--ferror-limit", opts.errorLimit,
                 "Stop after this many errors (0: no limit; default 20)");
  app.allow_windows_style_options(false);

  // clang spells some long options with one dash (-Werror, -march=...):
  // accept those spellings by rewriting them before CLI11 sees them.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    std::string a = argv[i];
    if (a == "-Werror" || a.rfind("-march=", 0) == 0 || a == "-march" ||
        a.rfind("-mcpu=", 0) == 0 || (a.size() > 2 && a.rfind("-f", 0) == 0))
      a = "-" + a;
    if (a.rfind("--mcpu", 0) == 0)
      a = "--cpu" + a.substr(6);
    // clang's -MD, -MF FILE and -MFFILE.
    if (a == "-MD" || a == "-MF")
      a = "-" + a;
    else if (a.rfind("-MF", 0) == 0)
      a = "--MF=" + a.substr(3);
    args.push_back(a);
  }
  try {
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 1;
  }

  for (const std::string &d : opts.defines)
    if (d.find('=') == std::string::npos || d.front() == '=')
      return driverError("-D expects name=value, got '" + d + "'");
  if (!opts.depFilePath.empty())
    opts.depFile = true;
  if (opts.depFile && (opts.syntaxOnly || outputPath(opts) == "-"))
    return driverError("-MD needs an output file: the dependency file names "
                       "it as the target (use -o FILE; not with "
                       "--fsyntax-only or stdout)");
  bool wantsCuda = false;
  {
    std::stringstream ss(opts.target);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item != "host" && item != "cuda")
        return driverError("unknown target '" + item +
                           "' (expected host, cuda or host,cuda)");
      wantsCuda |= item == "cuda";
    }
  }
  if (opts.emit == "ptx" && !wantsCuda)
    return driverError("--emit=ptx needs --target=cuda (or host,cuda)");
  if (!opts.cudaLibdevice.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(opts.cudaLibdevice, ec))
      return driverError("--cuda-libdevice: '" + opts.cudaLibdevice +
                         "' is not a file (the CUDA toolkit's "
                         "nvvm/libdevice/libdevice.10.bc)");
  }

  // The parser and the AST passes are recursive: the parser's limits bound
  // the depth, and the compiler runs on a stack sized for them.
  int result = 1;
  runOnLargeStack([&] { result = compile(opts); });
  return result;
}

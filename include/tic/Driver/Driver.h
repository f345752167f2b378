//===- Driver.h - the compile pipeline of the tic driver -------*- C++ -*-===//
//
// What `tic` does after Sema, for --emit=mlir | mlir-lowered | llvm | asm |
// obj | header | ptx (lib/Driver: it assembles the pieces; lib/CodeGen is
// AST -> MLIR only):
//
//   generateMLIR (tc + snode), lifted to scf          -> --emit=mlir
//   tic-allocate-layout
//   CUDA: tic::buildCUDALoweringPipeline, emitPTX     -> --emit=ptx
//   [C interface: tic.interface attribute + field accessors]
//   tic::buildCPULoweringPipeline (LLVM dialect)
//   [C interface: C entry points]                     -> --emit=mlir-lowered
//   tic::emitCPU (LLVM IR, O0..O3, TargetMachine)     -> --emit=llvm|asm|obj
//   iface::emitHeader / emitModuleJSON                -> MODULE.h, MODULE.json
//
// MLIR diagnostics raised by the passes are printed through the front end's
// DiagnosticEngine (file:line:col with the source line) when they carry a
// file location. Outputs are returned as strings; the caller writes them
// (atomically). Same input and options -> byte-identical outputs.
//===----------------------------------------------------------------------===//

#ifndef TIC_DRIVER_DRIVER_H
#define TIC_DRIVER_DRIVER_H

#include "tic/Target/FPOptions.h"

#include <string>

namespace tic {
class DiagnosticEngine;
namespace sema {
struct CheckedModule;
} // namespace sema

namespace codegen {

struct BackendOptions {
  /// mlir | mlir-lowered | llvm | asm | obj | header; with `cuda`: ptx
  std::string emit = "obj";
  /// --target=cuda / host,cuda: --emit=ptx gives the device code alone;
  /// objects carry it (PTX) beside the host code, which launches on a GPU
  /// when the context is on one.
  bool cuda = false;
  /// --cuda-arch (sm_70 ... sm_90).
  std::string cudaArch = "sm_80";
  /// --cuda-libdevice; empty: the one found at build time, if any.
  std::string cudaLibdevice;
  /// --cuda-unroll: grid-stride iterations per trip of small loop bodies.
  unsigned cudaUnroll = 4;
  unsigned optLevel = 3;
  /// CPU name: "" (portable default, x86-64-v2), "native", "x86-64-v3", ...
  std::string cpu;
  bool debug = false;
  /// Field/ndarray index checks (-g or --check-bounds).
  bool checkBounds = false;
  /// -ffast-math and its parts (all off by default: IEEE semantics).
  FPOptions fp;
  /// Run tic-demote-atomics (off: --no-demote-atomics, for ablation).
  bool demoteAtomics = true;
  /// The SNode access optimisations: common-prefix CSE and known-active
  /// sparse accesses (off: --fno-access-opt, for ablation).
  bool accessOpt = true;
  /// tic-fuse-bit-stores / tic-demote-bit-stores (tic --fno-bit-store-*).
  bool bitStoreFusion = true;
  bool bitStoreDemotion = true;
  /// tic-coalesce-atomics on the CPU (tic --fno-atomic-coalescing).
  bool coalesceAtomics = true;
  /// tic-privatize-scatter on the CPU (tic --fno-scatter-privatization).
  bool privatizeScatter = true;
  /// Denormal floats in kernels (--denormals): "flush" (flush-to-zero and
  /// denormals-are-zero while a kernel runs, like Taichi's CPU backend) or
  /// "preserve" (IEEE). x86-64 only; elsewhere kernels use the caller's mode.
  std::string denormals = "flush";
  /// The input's name as given on the command line (locations, banner).
  std::string inputName;
  /// -ftime-report: time every MLIR pass and LLVM's passes; the reports go
  /// to stderr.
  bool timeReport = false;
};

struct BackendOutputs {
  std::string main;   ///< the requested output (text or object bytes)
  std::string header; ///< MODULE.h (obj and header); empty if unavailable
  std::string json;   ///< MODULE.json (obj and header); empty if unavailable
};

/// Runs the stages `options.emit` needs. False iff an error was reported.
bool runBackend(const sema::CheckedModule &module, DiagnosticEngine &diags,
                const BackendOptions &options, BackendOutputs &out);

} // namespace codegen
} // namespace tic

#endif // TIC_DRIVER_DRIVER_H

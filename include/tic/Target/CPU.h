//===- CPU.h - LLVM dialect -> x86-64 object/assembly/IR --------*- C++ -*-===//
#ifndef TIC_TARGET_CPU_H
#define TIC_TARGET_CPU_H

#include "tic/Target/FPOptions.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tic {

enum class EmitKind { Object, Assembly, LLVMIR };

struct CPUTargetOptions {
  /// Target triple; empty: "x86_64-unknown-linux-gnu".
  std::string triple;
  /// CPU name for the TargetMachine: "x86-64", "x86-64-v2" (default, portable
  /// to every x86-64 CPU since ~2009: SSE4.2/POPCNT), "x86-64-v3" (AVX2/FMA),
  /// "skylake-avx512", ..., or "native" (host CPU and its features).
  std::string cpu = "x86-64-v2";
  /// Extra "+feat,-feat" features appended to the CPU's.
  std::string features;
  /// More versions of every kernel (`--cpu=x86-64-v2,x86-64-v3,x86-64-v4`):
  /// (x86-64 level, CPU name), ascending. The kernels compiled for `cpu` are
  /// the fallback; a dispatcher calls the highest version whose level is at
  /// most tic_rt_cpu_level() (runtime/src/CPU.cpp).
  std::vector<std::pair<int, std::string>> versions;
  /// 0..3: LLVM optimization level (O3 enables loop and SLP vectorization).
  unsigned optLevel = 3;
  /// Floating-point relaxations (all off: IEEE semantics).
  FPOptions fp;
  /// Position-independent code (objects linkable into shared libraries).
  bool pic = true;
  /// Time LLVM's optimization and code generation passes (-ftime-report);
  /// the report goes to stderr.
  bool timeReport = false;
};

/// Translates an LLVM-dialect module (the output of
/// tic::buildCPULoweringPipeline) to LLVM IR, sets the triple and data layout,
/// runs LLVM's default O<optLevel> pipeline and writes an object file,
/// assembly text or LLVM IR text to `out`. Registers the builtin and LLVM
/// dialect translations in the module's context itself. Diagnostics go to
/// the module's context.
mlir::LogicalResult emitCPU(mlir::ModuleOp module,
                            const CPUTargetOptions &options,
                            llvm::raw_pwrite_stream &out, EmitKind kind);

/// The CPU name and feature string `options` resolve to ("native" expanded).
std::pair<std::string, std::string> resolveCPU(const CPUTargetOptions &options);

} // namespace tic

#endif

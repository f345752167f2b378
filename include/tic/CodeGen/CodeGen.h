//===- CodeGen.h - AST -> MLIR (tc + snode dialects) ------------*- C++ -*-===//
//
// generateMLIR() turns a Sema-checked module (tic/Frontend/Sema.h) into an
// MLIR module of the tc and snode dialects:
//   * module @NAME attributes {tc.module_name = "NAME", tc.default_fp = "f32"}
//   * one `snode.tree @root` holding the layout (fields scalarized into
//     components: vec3 -> 3 components, mat2 -> 4, structs flattened);
//   * one `tc.kernel @EXPORT_NAME` per exported kernel / instance, parameters
//     and results scalarized, ndarrays as !tc.ndarray<T, D> (vector/matrix
//     elements add one/two trailing dimensions).
// See docs/codegen.md for how each construct is generated.
//
// Errors (constructs not supported yet) are reported with source locations
// through the front end's DiagnosticEngine; the result is null iff an error
// was reported. No ANTLR dependency.
//===----------------------------------------------------------------------===//

#ifndef TIC_CODEGEN_CODEGEN_H
#define TIC_CODEGEN_CODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir {
class MLIRContext;
class DialectRegistry;
} // namespace mlir

namespace tic {
class DiagnosticEngine;
namespace sema {
struct CheckedModule;
} // namespace sema

namespace codegen {

struct CodeGenOptions {
  /// -g: emit tc.assert for `assert` statements.
  bool debug = false;
  /// -g / --check-bounds: check field and ndarray indices (tc.assert with
  /// the field's shape; an out-of-range access is skipped, a load gives 0).
  bool checkBounds = false;
  /// File name used in MLIR locations (FileLineColLoc); empty: "<input>".
  std::string fileName;
};

/// Loads every dialect generated code uses (tc, snode, arith, math, cf,
/// memref, func, llvm) into `ctx`.
void loadCodeGenDialects(mlir::MLIRContext &ctx);

/// Generates the module. Returns null iff an error was reported to `diags`.
/// The result verifies (a failure to verify is reported as an internal
/// error).
mlir::OwningOpRef<mlir::ModuleOp>
generateMLIR(const sema::CheckedModule &module, mlir::MLIRContext &ctx,
             DiagnosticEngine &diags, const CodeGenOptions &options = {});

} // namespace codegen
} // namespace tic

#endif // TIC_CODEGEN_CODEGEN_H

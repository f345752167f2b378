//===- Parser.h - .tc source to AST -----------------------------*- C++ -*-===//

#ifndef TIC_FRONTEND_PARSER_H
#define TIC_FRONTEND_PARSER_H

#include "tic/Frontend/AST.h"
#include "tic/Frontend/Diagnostics.h"

#include <memory>

namespace tic {

/// Limits that keep hostile inputs (deep nesting, huge expressions) from
/// exhausting the stack. Exceeding one is a diagnostic, not a crash.
struct ParserLimits {
  unsigned maxNestingDepth = 256;     // brackets, blocks
  unsigned maxExpressionDepth = 1000; // operators in one statement
};

/// Parses `file` into an AST. Returns null after reporting at least one
/// error to `diags`.
std::unique_ptr<ast::Program> parseProgram(const SourceFile &file,
                                           DiagnosticEngine &diags,
                                           const ParserLimits &limits = {});

} // namespace tic

#endif // TIC_FRONTEND_PARSER_H

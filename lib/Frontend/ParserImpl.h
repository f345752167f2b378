//===- ParserImpl.h - Shared by Parser.cpp and ASTBuilder.cpp ---*- C++ -*-===//
//
// Private to lib/Frontend: source ranges of ANTLR tokens and rule contexts
// (in bytes), literal decoding, and the AST builder's entry point.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_LIB_FRONTEND_PARSERIMPL_H
#define TIC_LIB_FRONTEND_PARSERIMPL_H

#include "tic/Frontend/AST.h"
#include "tic/Frontend/Diagnostics.h"

#include "TCParser.h"
#include "antlr4-runtime.h"

#include <memory>
#include <string>

namespace tic {
namespace parse {

SourceLoc startOf(const antlr4::Token *t);
SourceLoc endOf(const antlr4::Token *t);
SourceRange rangeOf(const antlr4::Token *t);
SourceRange rangeOf(antlr4::ParserRuleContext *ctx);
SourceRange rangeOf(antlr4::tree::TerminalNode *n);
ast::Ident identOf(antlr4::tree::TerminalNode *n);

/// `1_000` -> `1000`.
std::string stripUnderscores(const std::string &s);
/// Decodes a string literal with its quotes; false with `error` set for a
/// bad escape, a NUL or a raw control character.
bool decodeString(const std::string &quoted, std::string &out,
                  std::string &error);

/// The AST of a parse tree without syntax errors.
std::unique_ptr<ast::Program>
buildProgram(grammar::TCParser::ProgramContext *tree, DiagnosticEngine &diags);

} // namespace parse
} // namespace tic

#endif // TIC_LIB_FRONTEND_PARSERIMPL_H

//===- Parser.cpp - .tc source to AST through the ANTLR4 parser -----------===//
//
// Lexing and parsing are done by the ANTLR4-generated TCLexer/TCParser. This
// file turns lexer and parser errors into clang-style diagnostics, guards
// against inputs that would exhaust the stack, and builds the AST from the
// parse tree.
//
//===----------------------------------------------------------------------===//

#include "tic/Frontend/Parser.h"

#include "TCLexer.h"
#include "TCParser.h"
#include "antlr4-runtime.h"

#include <algorithm>
#include <cerrno>
#include <iomanip>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

using namespace tic;
using namespace tic::ast;
using tic::grammar::TCLexer;
using tic::grammar::TCParser;

namespace {

//===----------------------------------------------------------------------===//
// Locations
//===----------------------------------------------------------------------===//

/// ANTLR counts positions in code points; diagnostics count bytes (as clang
/// does), so that carets line up under the source line printed as bytes.
/// While a file with non-ASCII text is parsed, this maps code-point indices
/// to byte offsets (one entry per code point, plus the end).
struct ByteMap {
  std::vector<uint32_t> cpToByte;
  std::vector<uint32_t> lineStarts; // byte offset of each line's start
};
thread_local const ByteMap *currentByteMap = nullptr;

uint32_t byteOffsetOf(size_t cpIndex) {
  const ByteMap *m = currentByteMap;
  if (!m)
    return cpIndex;
  return m->cpToByte[std::min(cpIndex, m->cpToByte.size() - 1)];
}

SourceLoc startOf(const antlr4::Token *t) {
  SourceLoc l;
  l.line = t->getLine();
  l.col = t->getCharPositionInLine() + 1;
  l.offset = t->getStartIndex();
  if (const ByteMap *m = currentByteMap) {
    l.offset = byteOffsetOf(t->getStartIndex());
    if (l.line >= 1 && l.line <= m->lineStarts.size() &&
        l.offset >= m->lineStarts[l.line - 1])
      l.col = l.offset - m->lineStarts[l.line - 1] + 1;
  }
  return l;
}

/// The position just past the last character of `t` (same line for every
/// token but block comments and strings, which never end a range).
SourceLoc endOf(const antlr4::Token *t) {
  SourceLoc l = startOf(t);
  size_t len = t->getStopIndex() >= t->getStartIndex()
                   ? t->getStopIndex() - t->getStartIndex() + 1
                   : 0;
  if (currentByteMap && len)
    len = byteOffsetOf(t->getStopIndex() + 1) - l.offset;
  l.col += len;
  l.offset += len;
  return l;
}

SourceRange rangeOf(const antlr4::Token *t) {
  return SourceRange(startOf(t), endOf(t));
}

SourceRange rangeOf(antlr4::ParserRuleContext *ctx) {
  if (!ctx || !ctx->getStart())
    return {};
  const antlr4::Token *stop = ctx->getStop() ? ctx->getStop() : ctx->getStart();
  if (stop->getTokenIndex() < ctx->getStart()->getTokenIndex())
    stop = ctx->getStart();
  return SourceRange(startOf(ctx->getStart()), endOf(stop));
}

SourceRange rangeOf(antlr4::tree::TerminalNode *n) {
  return n ? rangeOf(n->getSymbol()) : SourceRange();
}

Ident identOf(antlr4::tree::TerminalNode *n) {
  return Ident{n->getText(), rangeOf(n)};
}

//===----------------------------------------------------------------------===//
// Error reporting
//===----------------------------------------------------------------------===//

std::string tokenDisplay(const antlr4::Token *t, const antlr4::dfa::Vocabulary &v) {
  if (t->getType() == antlr4::Token::EOF)
    return "end of file";
  std::string text = t->getText();
  if (text.size() > 32)
    text = text.substr(0, 29) + "...";
  return "'" + text + "'";
}

std::string expectedDisplay(size_t type, const antlr4::dfa::Vocabulary &v) {
  if (type == antlr4::Token::EOF)
    return "end of file";
  switch (type) {
  case TCParser::Identifier:
    return "identifier";
  case TCParser::IntLiteral:
    return "integer literal";
  case TCParser::FloatLiteral:
    return "float literal";
  case TCParser::StringLiteral:
    return "string literal";
  default:
    return v.getLiteralName(type); // already quoted: 'kernel'
  }
}

class DiagErrorListener : public antlr4::BaseErrorListener {
public:
  explicit DiagErrorListener(DiagnosticEngine &d) : diags(d) {}

  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending,
                   size_t line, size_t col, const std::string &msg,
                   std::exception_ptr e) override {
    if (diags.limitReached()) // stop parsing (parseProgram catches this)
      throw antlr4::ParseCancellationException();
    auto *parser = dynamic_cast<antlr4::Parser *>(recognizer);
    if (!parser || !offending) {
      // Lexer errors are reported from the token stream instead.
      return;
    }
    // Lexer error tokens were reported already; do not pile on.
    switch (offending->getType()) {
    case TCLexer::Unknown:
    case TCLexer::UnterminatedString:
    case TCLexer::UnterminatedComment:
    case TCLexer::IncompleteIntLiteral:
      return;
    default:
      break;
    }
    const auto &vocab = parser->getVocabulary();
    antlr4::misc::IntervalSet expected;
    try {
      expected = parser->getExpectedTokens();
    } catch (...) {
    }
    // If a ';' (or another closer) is expected and the offending token starts
    // a later line, point just past the previous token, as clang does.
    auto *stream = parser->getTokenStream();
    const antlr4::Token *prev = nullptr;
    if (offending->getTokenIndex() > 0) {
      for (ssize_t i = (ssize_t)offending->getTokenIndex() - 1; i >= 0; --i) {
        antlr4::Token *t = stream->get(i);
        if (t->getChannel() == antlr4::Token::DEFAULT_CHANNEL) {
          prev = t;
          break;
        }
      }
    }
    std::vector<std::string> names;
    for (size_t t : expected.toList())
      names.push_back(expectedDisplay(t, vocab));

    std::string found = tokenDisplay(offending, vocab);
    std::string message;
    SourceRange where = rangeOf(offending);
    const antlr4::Token *opener = nullptr; // for a "to match this" note
    size_t offType = offending->getType();
    bool offendingEnds = offType == antlr4::Token::EOF ||
                         offType == TCLexer::Semi || offType == TCLexer::RBrace ||
                         offType == TCLexer::RParen || offType == TCLexer::RBracket;
    // An unclosed bracket before a token that ends a statement or a block:
    // `f(a, b;`, `[1, 2}`, or a missing '}' at the end of the file.
    if (offendingEnds && prev && endsOperand(prev->getType()))
      opener = innermostUnclosed(stream, offending->getTokenIndex());
    if (opener && opener->getType() == TCLexer::LBrace &&
        offType != antlr4::Token::EOF)
      opener = nullptr; // a '}' is not missing in the middle of a file
    if (opener && closerOf(opener->getType()) == offType)
      opener = nullptr;
    if (opener) {
      std::string closer = closerText(opener->getType());
      message = "expected '" + closer + "'";
      if (offType == antlr4::Token::EOF) {
        message += " at end of file";
        where = SourceRange(endOf(prev));
      } else {
        message += ", found " + found;
      }
    } else if (prev && introducesName(prev->getType()) &&
               offType != TCParser::Identifier) {
      message = "expected identifier after '" + prev->getText() + "', found " +
                found;
    } else if (expected.contains(static_cast<size_t>(TCParser::Semi)) && names.size() <= 3 && prev &&
        (offending->getType() == antlr4::Token::EOF ||
         offending->getType() == TCLexer::RBrace ||
         offending->getLine() > prev->getLine())) {
      message = "expected ';'";
      where = SourceRange(endOf(prev));
      message += " at end of statement";
    } else if (offType == antlr4::Token::EOF && diags.hasErrors()) {
      return; // the parser's recovery after an earlier error ran out of input
    } else if (expected.contains(static_cast<size_t>(TCParser::KwLet)) &&
               expected.contains(static_cast<size_t>(TCParser::KwWhile)) &&
               (offType == TCLexer::KwElse || offType == TCLexer::KwIn ||
                offType == TCLexer::Assign || offType == TCLexer::KwAnd ||
                offType == TCLexer::KwOr)) {
      // Tokens that can only continue something: `else` without `if`, ...
      message = "expected a statement, found " + found;
    } else if (expected.contains(static_cast<size_t>(TCParser::KwKernel)) &&
               expected.contains(static_cast<size_t>(TCParser::KwField))) {
      message = "expected a declaration (const, type, struct, field, layout, "
                "kernel, func, instance or static_assert), found " + found;
    } else if (expected.contains(static_cast<size_t>(TCParser::Identifier)) &&
               expected.contains(static_cast<size_t>(TCParser::IntLiteral)) &&
               expected.contains(static_cast<size_t>(TCParser::LParen))) {
      message = "expected expression, found " + found;
    } else if (!names.empty() && names.size() <= 4) {
      message = "expected ";
      for (size_t i = 0; i < names.size(); ++i) {
        if (i)
          message += i + 1 == names.size() ? " or " : ", ";
        message += names[i];
      }
      message += ", found " + found;
    } else if (offending->getType() == antlr4::Token::EOF) {
      message = "unexpected end of file";
    } else {
      message = "unexpected " + found;
      if (offending->getType() == TCLexer::Bang)
        message += "; logical negation is spelled 'not'";
    }
    if (offType == antlr4::Token::EOF && prev && where.begin.line > endOf(prev).line)
      where = SourceRange(endOf(prev));
    // Reporting each position once keeps recovery from echoing errors.
    size_t key = offending->getStartIndex();
    if (!reported.insert(key).second)
      return;
    diags.error(where, message);
    if (opener)
      diags.note(rangeOf(opener), std::string("to match this '") +
                                      opener->getText() + "'");
  }

private:
  /// Token types after which an expression may be complete.
  static bool endsOperand(size_t type) {
    switch (type) {
    case TCLexer::Identifier: case TCLexer::IntLiteral:
    case TCLexer::FloatLiteral: case TCLexer::StringLiteral:
    case TCLexer::KwTrue: case TCLexer::KwFalse: case TCLexer::RParen:
    case TCLexer::RBracket: case TCLexer::RBrace: case TCLexer::LBrace:
    case TCLexer::Semi:
      return true;
    default:
      return false;
    }
  }

  /// Keywords that must be followed by a name.
  static bool introducesName(size_t type) {
    switch (type) {
    case TCLexer::KwModule: case TCLexer::KwConst: case TCLexer::KwType:
    case TCLexer::KwStruct: case TCLexer::KwField: case TCLexer::KwKernel:
    case TCLexer::KwFunc: case TCLexer::KwInstance: case TCLexer::KwLet:
    case TCLexer::KwVar: case TCLexer::KwFor:
      return true;
    default:
      return false;
    }
  }

  static size_t closerOf(size_t open) {
    return open == TCLexer::LParen     ? TCLexer::RParen
           : open == TCLexer::LBracket ? TCLexer::RBracket
                                       : TCLexer::RBrace;
  }
  static std::string closerText(size_t open) {
    return open == TCLexer::LParen ? ")" : open == TCLexer::LBracket ? "]" : "}";
  }

  /// The innermost bracket opened before token `index` and not closed
  /// before it (looking back a bounded number of tokens), or null.
  static const antlr4::Token *innermostUnclosed(antlr4::TokenStream *stream,
                                                size_t index) {
    unsigned depth = 0;
    size_t steps = 0;
    for (size_t i = index; i-- > 0 && steps < 100000; ++steps) {
      antlr4::Token *t = stream->get(i);
      switch (t->getType()) {
      case TCLexer::RParen: case TCLexer::RBracket: case TCLexer::RBrace:
        ++depth;
        break;
      case TCLexer::LParen: case TCLexer::LBracket: case TCLexer::LBrace:
        if (depth == 0)
          return t;
        --depth;
        break;
      default:
        break;
      }
    }
    return nullptr;
  }

  DiagnosticEngine &diags;
  std::set<size_t> reported;
};

//===----------------------------------------------------------------------===//
// Pre-scan: lexical errors and nesting limits, before the recursive parser
// runs, so that hostile input cannot overflow the stack.
//===----------------------------------------------------------------------===//

bool prescan(antlr4::CommonTokenStream &tokens, DiagnosticEngine &diags,
             const ParserLimits &limits) {
  bool ok = true;
  unsigned depth = 0;
  unsigned exprOps = 0;
  for (antlr4::Token *t : tokens.getTokens()) {
    switch (t->getType()) {
    case TCLexer::Unknown: {
      std::string text = t->getText();
      std::ostringstream msg;
      unsigned char c = text.empty() ? 0 : (unsigned char)text[0];
      if (c >= 0x20 && c < 0x7f) {
        msg << "invalid character '" << text << "' in source";
      } else if (c >= 0x80) {
        // A valid UTF-8 sequence outside a string or comment.
        std::u32string cp = antlrcpp::utf8_to_utf32(text.data(),
                                                    text.data() + text.size());
        msg << "invalid character U+" << std::hex << std::uppercase
            << std::setw(4) << std::setfill('0')
            << (cp.empty() ? 0u : (unsigned)cp[0])
            << " in source (only strings and comments may hold non-ASCII text)";
      } else {
        msg << "invalid byte 0x" << std::hex << std::setw(2)
            << std::setfill('0') << (unsigned)c << " in source";
      }
      diags.error(rangeOf(t), msg.str());
      ok = false;
      break;
    }
    case TCLexer::UnterminatedString:
      diags.error(rangeOf(t), "missing terminating '\"' of string literal");
      ok = false;
      break;
    case TCLexer::UnterminatedComment:
      diags.error(SourceRange(startOf(t)), "unterminated /* comment");
      ok = false;
      break;
    case TCLexer::IncompleteIntLiteral: {
      char kind = t->getText().size() > 1 ? t->getText()[1] : 'x';
      diags.error(rangeOf(t), std::string(kind == 'x' || kind == 'X'
                                              ? "hexadecimal"
                                              : "binary") +
                                  " literal '" + t->getText() +
                                  "' has no digits");
      ok = false;
      break;
    }
    case TCLexer::LParen:
    case TCLexer::LBracket:
    case TCLexer::LBrace:
      if (++depth > limits.maxNestingDepth) {
        diags.error(rangeOf(t), "brackets nested too deeply (limit is " +
                                    std::to_string(limits.maxNestingDepth) +
                                    ")");
        return false;
      }
      break;
    case TCLexer::RParen:
    case TCLexer::RBracket:
    case TCLexer::RBrace:
      if (depth)
        --depth;
      if (t->getType() == TCLexer::RBrace)
        exprOps = 0;
      break;
    case TCLexer::Semi:
      exprOps = 0;
      break;
    case TCLexer::Identifier:
    case TCLexer::IntLiteral:
    case TCLexer::FloatLiteral:
    case TCLexer::StringLiteral:
    case TCLexer::KwTrue:
    case TCLexer::KwFalse:
    case TCLexer::Comma:
    case TCLexer::Colon:
      // Operands and separators are leaves or siblings: a long list literal
      // or argument list adds no depth.
      break;
    default:
      // Operators, keywords and openers may each add one level of recursion
      // in the parser or in the AST (`1 + 1 + ...` is a left-deep tree).
      if (t->getChannel() == antlr4::Token::DEFAULT_CHANNEL &&
          ++exprOps > limits.maxExpressionDepth * 8) {
        diags.error(rangeOf(t), "statement too complex (more than " +
                                    std::to_string(limits.maxExpressionDepth * 8) +
                                    " operators)");
        return false;
      }
      break;
    }
    if (diags.limitReached())
      return false;
  }
  return ok;
}

//===----------------------------------------------------------------------===//
// Literal decoding
//===----------------------------------------------------------------------===//

std::string stripUnderscores(const std::string &s) {
  std::string r;
  for (char c : s)
    if (c != '_')
      r += c;
  return r;
}

/// Decodes a string literal (with its quotes). Escapes: \n \t \r \\ \" \'
/// and \xHH. Strings are C strings (print formats, assert messages): a NUL
/// would cut them silently, so `\0` / `\x00` is an error; a raw control
/// character (other than tab) must be written as an escape, so that no
/// invisible byte reaches the terminal or the generated code unnoticed.
bool decodeString(const std::string &quoted, std::string &out,
                  std::string &error) {
  auto hexDigit = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  auto hex2 = [](unsigned char c) {
    const char *d = "0123456789abcdef";
    return std::string("\\x") + d[c >> 4] + d[c & 15];
  };
  const char *nulError = "a NUL character cannot appear in a string: strings "
                         "are C strings and would end there";
  for (size_t i = 1; i + 1 < quoted.size(); ++i) {
    char c = quoted[i];
    if (c != '\\') {
      unsigned char u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) {
        error = u == 0 ? std::string(nulError)
                       : "control character " + hex2(u) +
                             " in a string literal; write it as the escape '" +
                             hex2(u) + "'";
        return false;
      }
      out += c;
      continue;
    }
    char n = quoted[++i];
    switch (n) {
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'r':
      out += '\r';
      break;
    case '\\': out += '\\'; break;
    case '"': out += '"'; break;
    case '\'': out += '\''; break;
    case '0':
      error = nulError;
      return false;
    case 'x': {
      int hi = i + 1 + 1 < quoted.size() ? hexDigit(quoted[i + 1]) : -1;
      int lo =
          hi >= 0 && i + 2 + 1 < quoted.size() ? hexDigit(quoted[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        error = "'\\x' must be followed by two hexadecimal digits";
        return false;
      }
      if (hi == 0 && lo == 0) {
        error = nulError;
        return false;
      }
      out += char(hi * 16 + lo);
      i += 2;
      break;
    }
    default:
      if (static_cast<unsigned char>(n) < 0x20 || n == 0x7f)
        error = "control character " + hex2(static_cast<unsigned char>(n)) +
                " in a string literal";
      else
        error = std::string("unknown escape sequence '\\") + n + "'";
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// AST builder
//===----------------------------------------------------------------------===//

class Builder {
public:
  Builder(DiagnosticEngine &d) : diags(d) {}

  std::unique_ptr<Program> build(TCParser::ProgramContext *ctx) {
    auto prog = std::make_unique<Program>();
    if (auto *m = ctx->moduleDecl()) {
      prog->moduleRange = rangeOf(m);
      if (m->Identifier())
        prog->moduleName = identOf(m->Identifier());
      for (auto *o : m->moduleOption())
        prog->moduleOptions.push_back(
            {identOf(o->Identifier()), buildType(o->typeExpr())});
      if (!m->Identifier() && m->moduleOption().empty())
        diags.error(prog->moduleRange,
                    "expected a module name or options after 'module'");
    }
    for (auto *d : ctx->topDecl())
      if (DeclPtr decl = buildDecl(d))
        prog->decls.push_back(std::move(decl));
    return prog;
  }

private:
  DiagnosticEngine &diags;

  DeclPtr buildDecl(TCParser::TopDeclContext *ctx) {
    if (auto *c = ctx->constDecl()) {
      auto d = std::make_unique<ConstDecl>(rangeOf(c));
      d->name = identOf(c->Identifier());
      if (c->typeExpr())
        d->declType = buildType(c->typeExpr());
      d->value = buildExpr(c->expression());
      return d;
    }
    if (auto *c = ctx->typeAliasDecl()) {
      auto d = std::make_unique<TypeAliasDecl>(rangeOf(c));
      d->name = identOf(c->Identifier());
      d->aliased = buildType(c->typeExpr());
      return d;
    }
    if (auto *c = ctx->structDecl()) {
      auto d = std::make_unique<StructDecl>(rangeOf(c));
      d->name = identOf(c->Identifier());
      for (auto *m : c->structMember())
        d->members.push_back({identOf(m->Identifier()), buildType(m->typeExpr())});
      return d;
    }
    if (auto *c = ctx->fieldDecl()) {
      auto d = std::make_unique<FieldDecl>(rangeOf(c));
      for (auto *id : c->Identifier())
        d->names.push_back(identOf(id));
      d->elemType = buildType(c->typeExpr());
      if (c->LBracket()) {
        d->hasShape = true;
        d->shapeRange = SourceRange(startOf(c->LBracket()->getSymbol()),
                                    endOf(c->RBracket()->getSymbol()));
        for (auto *e : c->expression())
          d->shape.push_back(buildExpr(e));
      }
      for (auto *f : c->fieldFlag()) {
        bool grad = f->KwNeedsGrad() != nullptr;
        bool &flag = grad ? d->needsGrad : d->needsDual;
        if (flag)
          diags.warning(rangeOf(f), std::string("duplicate '") + f->getText() +
                                        "' flag");
        flag = true;
      }
      return d;
    }
    if (auto *c = ctx->layoutDecl()) {
      auto d = std::make_unique<LayoutDecl>(rangeOf(c));
      for (auto *s : c->layoutStmt()) {
        LayoutStmt ls;
        ls.range = rangeOf(s);
        if (auto *let = dynamic_cast<TCParser::LayoutLetContext *>(s)) {
          ls.letName = identOf(let->Identifier());
          ls.expr = buildExpr(let->expression());
        } else {
          auto *e = static_cast<TCParser::LayoutExprContext *>(s);
          ls.expr = buildExpr(e->expression());
        }
        d->stmts.push_back(std::move(ls));
      }
      return d;
    }
    if (auto *c = ctx->functionDecl()) {
      auto d = std::make_unique<FunctionDecl>(rangeOf(c));
      d->isKernel = c->KwKernel() != nullptr;
      for (auto *a : c->attribute()) {
        Attribute attr;
        attr.name = identOf(a->Identifier());
        attr.range = rangeOf(a);
        for (auto *arg : a->argument())
          attr.args.push_back(buildArg(arg));
        d->attrs.push_back(std::move(attr));
      }
      d->name = identOf(c->Identifier());
      for (auto *p : c->param())
        d->params.push_back(
            {identOf(p->Identifier()),
             p->typeExpr() ? buildType(p->typeExpr())
                           : std::make_unique<InferredTypeExpr>(
                                 rangeOf(p->Identifier()))});
      if (c->typeExpr())
        d->returnType = buildType(c->typeExpr());
      d->body = buildBlock(c->block());
      return d;
    }
    if (auto *c = ctx->instanceDecl()) {
      auto d = std::make_unique<InstanceDecl>(rangeOf(c));
      d->name = identOf(c->Identifier(0));
      d->kernel = identOf(c->Identifier(1));
      for (auto *a : c->argument())
        d->args.push_back(buildArg(a));
      return d;
    }
    if (auto *c = ctx->staticAssertDecl()) {
      auto d = std::make_unique<StaticAssertDecl>(rangeOf(c));
      d->cond = buildExpr(c->expression());
      if (c->StringLiteral())
        d->message = decodeLiteral(c->StringLiteral());
      return d;
    }
    return nullptr;
  }

  std::string decodeLiteral(antlr4::tree::TerminalNode *n) {
    std::string out, error;
    if (!decodeString(n->getText(), out, error))
      diags.error(rangeOf(n), error);
    return out;
  }

  TypeExprPtr buildType(TCParser::TypeExprContext *ctx) {
    SourceRange r = rangeOf(ctx);
    if (dynamic_cast<TCParser::TemplateTypeContext *>(ctx))
      return std::make_unique<TemplateTypeExpr>(r);
    if (auto *n = dynamic_cast<TCParser::NamedTypeContext *>(ctx))
      return std::make_unique<NamedTypeExpr>(r, n->Identifier()->getText());
    if (auto *q = dynamic_cast<TCParser::QuantTypeContext *>(ctx)) {
      auto t = std::make_unique<QuantTypeExpr>(r, q->Identifier(0)->getText(),
                                               q->Identifier(1)->getText());
      for (auto *a : q->argument())
        t->args.push_back(buildArg(a));
      return t;
    }
    auto *g = static_cast<TCParser::GenericTypeContext *>(ctx);
    auto t = std::make_unique<GenericTypeExpr>(r, g->Identifier()->getText());
    for (auto *a : g->typeArg()) {
      TypeArg arg;
      if (a->typeExpr())
        arg.type = buildType(a->typeExpr());
      else if (a->IntLiteral())
        arg.value = buildIntLiteral(a->IntLiteral()->getSymbol());
      else
        arg.value = buildExpr(a->expression());
      t->args.push_back(std::move(arg));
    }
    return t;
  }

  Argument buildArg(TCParser::ArgumentContext *ctx) {
    Argument a;
    if (ctx->Identifier()) {
      a.name = ctx->Identifier()->getText();
      a.nameRange = rangeOf(ctx->Identifier());
    }
    a.value = buildExpr(ctx->expression());
    return a;
  }

  BlockPtr buildBlock(TCParser::BlockContext *ctx) {
    auto b = std::make_unique<BlockStmt>(rangeOf(ctx));
    for (auto *s : ctx->statement())
      if (StmtPtr st = buildStmt(s))
        b->body.push_back(std::move(st));
    return b;
  }

  /// `if` and the (rejected) `elif` clause share their shape.
  template <typename Ctx> StmtPtr buildIfLike(Ctx *ctx) {
    auto s = std::make_unique<IfStmt>(rangeOf(ctx));
    s->cond = buildExpr(ctx->expression());
    s->thenBody = buildBlock(ctx->block(0));
    if (ctx->ifStmt())
      s->elseBody = buildIf(ctx->ifStmt());
    else if (ctx->block().size() > 1)
      s->elseBody = buildBlock(ctx->block(1));
    else if (auto *el = ctx->elifClause()) {
      diags.error(rangeOf(el->KwElif()),
                  "'elif' is not a keyword in .tc: write 'else if'");
      s->elseBody = buildIfLike(el);
    }
    return s;
  }
  StmtPtr buildIf(TCParser::IfStmtContext *ctx) { return buildIfLike(ctx); }

  /// A hidden local of a desugared assignment: `$` cannot start a user name.
  static Ident hiddenName(size_t k, SourceRange r) {
    Ident id;
    id.name = "$" + std::to_string(k);
    id.range = r;
    return id;
  }
  static ExprPtr hiddenRef(size_t k, SourceRange r) {
    return std::make_unique<NameExpr>(r, "$" + std::to_string(k));
  }
  /// `{ let $0 = v0; ... ; t0 = $0; ... }` (Python: every value is evaluated
  /// before any target is assigned). One value and several targets
  /// destructures it: `let $0, $1 = v;` (a tuple, vector or matrix rows).
  StmtPtr buildMultiAssign(SourceRange r, std::vector<ExprPtr> targets,
                           std::vector<ExprPtr> values) {
    auto blk = std::make_unique<BlockStmt>(r);
    size_t n = targets.size();
    if (values.size() == 1 && n > 1) {
      auto let = std::make_unique<LetStmt>(values[0]->range);
      for (size_t k = 0; k < n; ++k)
        let->names.push_back(hiddenName(k, targets[k]->range));
      let->init = std::move(values[0]);
      blk->body.push_back(std::move(let));
    } else if (values.size() == n) {
      for (size_t k = 0; k < n; ++k) {
        auto let = std::make_unique<LetStmt>(values[k]->range);
        let->names.push_back(hiddenName(k, values[k]->range));
        let->init = std::move(values[k]);
        blk->body.push_back(std::move(let));
      }
    } else {
      diags.error(r, "cannot assign " + std::to_string(values.size()) +
                         " values to " + std::to_string(n) + " targets");
      return nullptr;
    }
    for (size_t k = 0; k < n; ++k) {
      auto a = std::make_unique<AssignStmt>(targets[k]->range);
      a->value = hiddenRef(k, targets[k]->range);
      a->target = std::move(targets[k]);
      blk->body.push_back(std::move(a));
    }
    return blk;
  }

  static AssignOp assignOpOf(size_t tokenType) {
    switch (tokenType) {
    case TCLexer::PlusAssign: return AssignOp::Add;
    case TCLexer::MinusAssign: return AssignOp::Sub;
    case TCLexer::StarAssign: return AssignOp::Mul;
    case TCLexer::SlashAssign: return AssignOp::Div;
    case TCLexer::FloorDivAssign: return AssignOp::FloorDiv;
    case TCLexer::PercentAssign: return AssignOp::Mod;
    case TCLexer::AmpAssign: return AssignOp::BitAnd;
    case TCLexer::PipeAssign: return AssignOp::BitOr;
    case TCLexer::CaretAssign: return AssignOp::BitXor;
    case TCLexer::ShlAssign: return AssignOp::Shl;
    case TCLexer::ShrAssign: return AssignOp::Shr;
    case TCLexer::PowAssign: return AssignOp::Pow;
    default: return AssignOp::Assign;
    }
  }

  StmtPtr buildStmt(TCParser::StatementContext *ctx) {
    SourceRange r = rangeOf(ctx);
    if (auto *c = dynamic_cast<TCParser::DestructureStmtContext *>(ctx)) {
      auto s = std::make_unique<LetStmt>(r);
      for (auto *id : c->Identifier())
        s->names.push_back(identOf(id));
      s->init = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::VarDestructureStmtContext *>(ctx)) {
      // `var U, s, V = svd(A);`: mutable names for the parts.
      auto s = std::make_unique<LetStmt>(r);
      s->isVar = true;
      for (auto *id : c->Identifier())
        s->names.push_back(identOf(id));
      s->init = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::LetStmtContext *>(ctx)) {
      auto s = std::make_unique<LetStmt>(r);
      s->names.push_back(identOf(c->Identifier()));
      if (c->typeExpr())
        s->declType = buildType(c->typeExpr());
      s->init = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::VarStmtContext *>(ctx)) {
      auto s = std::make_unique<VarStmt>(r);
      s->name = identOf(c->Identifier());
      if (c->typeExpr())
        s->declType = buildType(c->typeExpr());
      if (c->expression())
        s->init = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::IfStatementContext *>(ctx))
      return buildIf(c->ifStmt());
    if (auto *c = dynamic_cast<TCParser::WhileStmtContext *>(ctx)) {
      auto s = std::make_unique<WhileStmt>(r);
      s->cond = buildExpr(c->expression());
      s->body = buildBlock(c->block());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::ForStmtContext *>(ctx)) {
      auto s = std::make_unique<ForStmt>(r);
      for (auto *id : c->Identifier())
        s->vars.push_back(identOf(id));
      s->iterable = buildExpr(c->expression());
      s->body = buildBlock(c->block());
      return s;
    }
    if (dynamic_cast<TCParser::BreakStmtContext *>(ctx))
      return std::make_unique<BreakStmt>(r);
    if (dynamic_cast<TCParser::ContinueStmtContext *>(ctx))
      return std::make_unique<ContinueStmt>(r);
    if (auto *c = dynamic_cast<TCParser::ReturnStmtContext *>(ctx)) {
      auto s = std::make_unique<ReturnStmt>(r);
      if (c->expression())
        s->value = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::StaticAssertStmtContext *>(ctx)) {
      auto s = std::make_unique<StaticAssertStmt>(r);
      s->cond = buildExpr(c->expression());
      if (c->StringLiteral())
        s->message = decodeLiteral(c->StringLiteral());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::AssignStmtContext *>(ctx);
        c && c->expression().size() > 2) {
      // `a = b = e`: `e` once, then a and b, left to right (Python).
      auto exprs = c->expression();
      if (c->op->getType() != TCLexer::Assign) {
        diags.error(rangeOf(c->op),
                    "a chained assignment is written with '=' only");
        return nullptr;
      }
      ExprPtr value = buildExpr(exprs.back());
      auto blk = std::make_unique<BlockStmt>(r);
      auto let = std::make_unique<LetStmt>(value->range);
      let->names.push_back(hiddenName(0, value->range));
      let->init = std::move(value);
      blk->body.push_back(std::move(let));
      for (size_t k = 0; k + 1 < exprs.size(); ++k) {
        ExprPtr target = buildExpr(exprs[k]);
        auto a = std::make_unique<AssignStmt>(target->range);
        a->value = hiddenRef(0, target->range);
        a->target = std::move(target);
        blk->body.push_back(std::move(a));
      }
      return blk;
    }
    if (auto *c = dynamic_cast<TCParser::AssignStmtContext *>(ctx)) {
      auto s = std::make_unique<AssignStmt>(r);
      s->op = assignOpOf(c->op->getType());
      s->opRange = rangeOf(c->op);
      s->target = buildExpr(c->expression(0));
      s->value = buildExpr(c->expression(1));
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::TupleAssignStmtContext *>(ctx)) {
      // `a, b = b, a` / `x, y = v`
      std::vector<ExprPtr> targets, values;
      for (auto *e : c->expression())
        if (e->getStart()->getTokenIndex() <
            c->Assign()->getSymbol()->getTokenIndex())
          targets.push_back(buildExpr(e));
        else
          values.push_back(buildExpr(e));
      return buildMultiAssign(r, std::move(targets), std::move(values));
    }
    if (auto *c = dynamic_cast<TCParser::NamedAssignStmtContext *>(ctx)) {
      // `a min= b` / `a max= b`.
      std::string name = c->Identifier()->getText();
      auto s = std::make_unique<AssignStmt>(r);
      s->opRange = SourceRange(startOf(c->Identifier()->getSymbol()),
                               endOf(c->Assign()->getSymbol()));
      if (name == "min")
        s->op = AssignOp::Min;
      else if (name == "max")
        s->op = AssignOp::Max;
      else {
        diags.error(rangeOf(c->Identifier()),
                    "expected an assignment operator, found '" + name +
                        "'; only 'min=' and 'max=' are named compound "
                        "assignments");
        return nullptr;
      }
      s->target = buildExpr(c->expression(0));
      s->value = buildExpr(c->expression(1));
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::ExprStmtContext *>(ctx))
      return std::make_unique<ExprStmt>(r, buildExpr(c->expression()));
    if (auto *c = dynamic_cast<TCParser::BlockStmtContext *>(ctx))
      return buildBlock(c->block());
    return nullptr; // empty statement
  }

  ExprPtr buildIntLiteral(antlr4::Token *tok) {
    std::string text = stripUnderscores(tok->getText());
    uint64_t value = 0;
    int base = 10;
    std::string digits = text;
    if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X')) {
      base = 16;
      digits = text.substr(2);
    } else if (text.size() > 2 && (text[1] == 'b' || text[1] == 'B')) {
      base = 2;
      digits = text.substr(2);
    }
    errno = 0;
    value = std::strtoull(digits.c_str(), nullptr, base);
    if (errno == ERANGE)
      diags.error(rangeOf(tok), "integer literal '" + tok->getText() +
                                    "' is too large for any integer type");
    return std::make_unique<IntLitExpr>(rangeOf(tok), value, tok->getText());
  }

  ExprPtr buildPrimary(TCParser::PrimaryContext *ctx) {
    SourceRange r = rangeOf(ctx);
    if (auto *c = dynamic_cast<TCParser::IntLitContext *>(ctx))
      return buildIntLiteral(c->IntLiteral()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::FloatLitContext *>(ctx)) {
      std::string text = stripUnderscores(c->getText());
      bool f32 = !text.empty() && text.back() == 'f';
      if (f32)
        text.pop_back();
      double v = std::strtod(text.c_str(), nullptr);
      if (std::isinf(v))
        diags.error(r, "float literal '" + c->getText() +
                           "' is too large to be represented");
      return std::make_unique<FloatLitExpr>(r, v, f32, c->getText());
    }
    if (auto *c = dynamic_cast<TCParser::BoolLitContext *>(ctx))
      return std::make_unique<BoolLitExpr>(r, c->KwTrue() != nullptr);
    if (auto *c = dynamic_cast<TCParser::StringLitContext *>(ctx))
      return std::make_unique<StringLitExpr>(r, decodeLiteral(c->StringLiteral()));
    if (auto *c = dynamic_cast<TCParser::StructLitContext *>(ctx)) {
      auto e = std::make_unique<StructLitExpr>(r, c->Identifier()->getText(),
                                               rangeOf(c->Identifier()));
      for (auto *m : c->structInit()) {
        Argument a;
        a.name = m->Identifier()->getText();
        a.nameRange = rangeOf(m->Identifier());
        a.value = buildExpr(m->expression());
        e->members.push_back(std::move(a));
      }
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::NameRefContext *>(ctx))
      return std::make_unique<NameExpr>(r, c->Identifier()->getText());
    if (auto *c = dynamic_cast<TCParser::StaticExprContext *>(ctx))
      return std::make_unique<StaticExpr>(r, buildExpr(c->expression()));
    if (auto *c = dynamic_cast<TCParser::CastExprContext *>(ctx))
      return std::make_unique<CastExpr>(r, buildType(c->typeExpr()),
                                        buildExpr(c->expression()));
    if (auto *c = dynamic_cast<TCParser::ListLitContext *>(ctx)) {
      auto e = std::make_unique<ListExpr>(r);
      for (auto *x : c->expression())
        e->elements.push_back(buildExpr(x));
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::TupleLitContext *>(ctx)) {
      // `(a, b)` (ndrange bounds) is a list literal in the AST.
      auto e = std::make_unique<ListExpr>(r);
      e->paren = true;
      for (auto *x : c->expression())
        e->elements.push_back(buildExpr(x));
      return e;
    }
    auto *p = static_cast<TCParser::ParenExprContext *>(ctx);
    ExprPtr inner = buildExpr(p->expression());
    // Keep the parentheses in the range so carets cover them.
    return inner;
  }

  static BinaryOp binaryOpOf(size_t t) {
    switch (t) {
    case TCLexer::Star: return BinaryOp::Mul;
    case TCLexer::Slash: return BinaryOp::Div;
    case TCLexer::FloorDiv: return BinaryOp::FloorDiv;
    case TCLexer::Percent: return BinaryOp::Mod;
    case TCLexer::At: return BinaryOp::MatMul;
    case TCLexer::Plus: return BinaryOp::Add;
    case TCLexer::Minus: return BinaryOp::Sub;
    case TCLexer::Shl: return BinaryOp::Shl;
    case TCLexer::Shr: return BinaryOp::Shr;
    default: return BinaryOp::Add;
    }
  }

  static CmpOp cmpOpOf(size_t t) {
    switch (t) {
    case TCLexer::Eq: return CmpOp::Eq;
    case TCLexer::Ne: return CmpOp::Ne;
    case TCLexer::Lt: return CmpOp::Lt;
    case TCLexer::Le: return CmpOp::Le;
    case TCLexer::Gt: return CmpOp::Gt;
    default: return CmpOp::Ge;
    }
  }

  ExprPtr binary(antlr4::ParserRuleContext *ctx, BinaryOp op,
                 TCParser::ExpressionContext *l, TCParser::ExpressionContext *r,
                 antlr4::Token *opTok) {
    auto e = std::make_unique<BinaryExpr>(rangeOf(ctx), op, buildExpr(l),
                                          buildExpr(r));
    e->opRange = rangeOf(opTok);
    return e;
  }

  ExprPtr buildExpr(TCParser::ExpressionContext *ctx) {
    SourceRange r = rangeOf(ctx);
    if (!ctx)
      return std::make_unique<IntLitExpr>(r, 0, "0");
    if (auto *c = dynamic_cast<TCParser::PrimaryExprContext *>(ctx))
      return buildPrimary(c->primary());
    if (auto *c = dynamic_cast<TCParser::CallExprContext *>(ctx)) {
      auto e = std::make_unique<CallExpr>(r, buildExpr(c->expression()));
      for (auto *a : c->argument())
        e->args.push_back(buildArg(a));
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::IndexExprContext *>(ctx)) {
      auto e = std::make_unique<IndexExpr>(r, buildExpr(c->expression(0)));
      for (size_t i = 1; i < c->expression().size(); ++i)
        e->indices.push_back(buildExpr(c->expression(i)));
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::MemberExprContext *>(ctx))
      return std::make_unique<MemberExpr>(r, buildExpr(c->expression()),
                                          c->Identifier()->getText(),
                                          rangeOf(c->Identifier()));
    if (auto *c = dynamic_cast<TCParser::PowExprContext *>(ctx))
      return binary(c, BinaryOp::Pow, c->expression(0), c->expression(1),
                    c->Pow()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::UnaryExprContext *>(ctx)) {
      UnaryOp op = UnaryOp::Neg;
      switch (c->op->getType()) {
      case TCLexer::Plus: op = UnaryOp::Plus; break;
      case TCLexer::Tilde: op = UnaryOp::BitNot; break;
      case TCLexer::Bang:
        diags.error(rangeOf(c->op),
                    "logical negation is spelled 'not', not '!'");
        op = UnaryOp::Not;
        break;
      default: break;
      }
      auto e = std::make_unique<UnaryExpr>(r, op, buildExpr(c->expression()));
      e->opRange = rangeOf(c->op);
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::NotExprContext *>(ctx)) {
      auto e = std::make_unique<UnaryExpr>(r, UnaryOp::Not,
                                           buildExpr(c->expression()));
      e->opRange = rangeOf(c->KwNot());
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::MulExprContext *>(ctx))
      return binary(c, binaryOpOf(c->op->getType()), c->expression(0),
                    c->expression(1), c->op);
    if (auto *c = dynamic_cast<TCParser::AddExprContext *>(ctx))
      return binary(c, binaryOpOf(c->op->getType()), c->expression(0),
                    c->expression(1), c->op);
    if (auto *c = dynamic_cast<TCParser::ShiftExprContext *>(ctx))
      return binary(c, binaryOpOf(c->op->getType()), c->expression(0),
                    c->expression(1), c->op);
    if (auto *c = dynamic_cast<TCParser::BitAndExprContext *>(ctx))
      return binary(c, BinaryOp::BitAnd, c->expression(0), c->expression(1),
                    c->Amp()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::BitXorExprContext *>(ctx))
      return binary(c, BinaryOp::BitXor, c->expression(0), c->expression(1),
                    c->Caret()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::BitOrExprContext *>(ctx))
      return binary(c, BinaryOp::BitOr, c->expression(0), c->expression(1),
                    c->Pipe()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::CompareExprContext *>(ctx)) {
      // Flatten `a < b < c` (unparenthesised) into one chain.
      ExprPtr lhs = buildExpr(c->expression(0));
      auto *lhsCtx = c->expression(0);
      std::unique_ptr<CompareExpr> chain;
      if (dynamic_cast<TCParser::CompareExprContext *>(lhsCtx) &&
          isa<CompareExpr>(lhs.get())) {
        chain.reset(static_cast<CompareExpr *>(lhs.release()));
        chain->range = r;
      } else {
        chain = std::make_unique<CompareExpr>(r);
        chain->operands.push_back(std::move(lhs));
      }
      chain->ops.push_back(cmpOpOf(c->op->getType()));
      chain->opRanges.push_back(rangeOf(c->op));
      chain->operands.push_back(buildExpr(c->expression(1)));
      return chain;
    }
    if (auto *c = dynamic_cast<TCParser::AndExprContext *>(ctx)) {
      if (c->op->getType() == TCLexer::AndAnd)
        diags.error(rangeOf(c->op), "logical and is spelled 'and', not '&&'");
      return binary(c, BinaryOp::And, c->expression(0), c->expression(1), c->op);
    }
    if (auto *c = dynamic_cast<TCParser::OrExprContext *>(ctx)) {
      if (c->op->getType() == TCLexer::OrOr)
        diags.error(rangeOf(c->op), "logical or is spelled 'or', not '||'");
      return binary(c, BinaryOp::Or, c->expression(0), c->expression(1), c->op);
    }
    auto *c = static_cast<TCParser::TernaryExprContext *>(ctx);
    // x if c else y: expression(0) = x, expression(1) = c, expression(2) = y.
    return std::make_unique<TernaryExpr>(r, buildExpr(c->expression(1)),
                                         buildExpr(c->expression(0)),
                                         buildExpr(c->expression(2)));
  }
};

} // namespace

namespace {

/// Length of the valid UTF-8 sequence starting at text[i], or 0 when the
/// bytes there are not one (stray continuation byte, truncated sequence,
/// overlong encoding, surrogate, code point above U+10FFFF).
size_t utf8SequenceLength(const std::string &text, size_t i) {
  auto byte = [&](size_t k) -> unsigned {
    return k < text.size() ? (unsigned char)text[k] : 0u;
  };
  unsigned c = byte(i);
  if (c < 0x80)
    return 1;
  size_t len;
  unsigned lo = 0x80, hi = 0xbf; // allowed range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0)
      lo = 0xa0; // overlong
    if (c == 0xed)
      hi = 0x9f; // surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0)
      lo = 0x90; // overlong
    if (c == 0xf4)
      hi = 0x8f; // above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > text.size())
    return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi)
    return 0;
  for (size_t k = 2; k < len; ++k)
    if ((byte(i + k) & 0xc0) != 0x80)
      return 0;
  return len;
}

/// Reports every byte that is not part of valid UTF-8 (the ANTLR input
/// stream cannot decode such text). When the text is valid but not ASCII,
/// fills `map` so token positions can be given in bytes.
bool checkEncoding(const SourceFile &file, DiagnosticEngine &diags,
                   ByteMap &map, bool &nonAscii) {
  const std::string &text = file.text();
  nonAscii = false;
  bool ok = true;
  uint32_t line = 1, lineStart = 0;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
      ++i;
      continue;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    nonAscii = true;
    size_t len = utf8SequenceLength(text, i);
    if (len) {
      i += len;
      continue;
    }
    ok = false;
    SourceLoc loc;
    loc.line = line;
    loc.col = i - lineStart + 1;
    loc.offset = i;
    std::ostringstream msg;
    msg << "invalid UTF-8 byte 0x" << std::hex << std::setw(2)
        << std::setfill('0') << (unsigned)c << " in source";
    diags.error(SourceRange(loc), msg.str());
    if (diags.limitReached())
      return false;
    ++i;
  }
  if (!ok || !nonAscii)
    return ok;
  map.cpToByte.reserve(text.size() + 1);
  map.lineStarts.push_back(0);
  for (size_t i = 0; i < text.size();) {
    map.cpToByte.push_back(i);
    if (text[i] == '\n')
      map.lineStarts.push_back(i + 1);
    i += utf8SequenceLength(text, i);
  }
  map.cpToByte.push_back(text.size());
  return true;
}

/// Installs a ByteMap for the positions of the current thread's parse.
struct ByteMapScope {
  explicit ByteMapScope(const ByteMap *m) { currentByteMap = m; }
  ~ByteMapScope() { currentByteMap = nullptr; }
};

} // namespace

std::unique_ptr<Program> tic::parseProgram(const SourceFile &file,
                                           DiagnosticEngine &diags,
                                           const ParserLimits &limits) {
  ByteMap byteMap;
  bool nonAscii = false;
  if (!checkEncoding(file, diags, byteMap, nonAscii))
    return nullptr;
  ByteMapScope byteMapScope(nonAscii ? &byteMap : nullptr);
  antlr4::ANTLRInputStream input(file.text());
  TCLexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  if (!prescan(tokens, diags, limits))
    return nullptr;

  TCParser parser(&tokens);
  parser.removeErrorListeners();
  DiagErrorListener listener(diags);
  parser.addErrorListener(&listener);
  // Two-stage parsing: SLL first (fast), full LL only when SLL fails.
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  TCParser::ProgramContext *tree = nullptr;
  try {
    tree = parser.program();
  } catch (antlr4::ParseCancellationException &) {
    tree = nullptr;
  }
  if (!tree) {
    tokens.seek(0);
    parser.reset();
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::LL);
    try {
      tree = parser.program();
    } catch (antlr4::ParseCancellationException &) {
      return nullptr; // the error limit was reached
    }
  }
  if (diags.hasErrors() || parser.getNumberOfSyntaxErrors() != 0)
    return nullptr;

  Builder builder(diags);
  auto program = builder.build(tree);
  if (diags.hasErrors())
    return nullptr;
  return program;
}

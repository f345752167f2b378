//===- Parser.cpp - .tc source to AST through the ANTLR4 parser -----------===//
//
// Lexing and parsing are done by the ANTLR4-generated TCLexer/TCParser. This
// file turns lexer and parser errors into clang-style diagnostics, guards
// against inputs that would exhaust the stack, and hands the parse tree to
// the AST builder (ASTBuilder.cpp).
//
//===----------------------------------------------------------------------===//

#include "tic/Frontend/Parser.h"

#include "ParserImpl.h"

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
using namespace tic::parse;
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

} // namespace

// Shared with the AST builder (ParserImpl.h).
namespace tic {
namespace parse {

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

} // namespace parse
} // namespace tic

namespace {

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

} // namespace

namespace tic {
namespace parse {

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

} // namespace parse
} // namespace tic

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

  auto program = parse::buildProgram(tree, diags);
  if (diags.hasErrors())
    return nullptr;
  return program;
}

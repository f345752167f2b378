//===- Diagnostics.h - clang-style diagnostics for the front end -*- C++ -*-===//
//
// Source buffers, locations and a diagnostic engine printing
//   file:line:col: error: message
//     source line
//          ^~~~
// with notes, colours only on a terminal, and a cap on the number of errors.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_FRONTEND_DIAGNOSTICS_H
#define TIC_FRONTEND_DIAGNOSTICS_H

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace tic {

/// A position in a source buffer: 1-based line and column, 0-based offset.
/// A default-constructed location is invalid (line 0).
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t offset = 0;
  bool isValid() const { return line != 0; }
};

/// A half-open range of source text [begin, end).
struct SourceRange {
  SourceLoc begin;
  SourceLoc end;
  SourceRange() = default;
  SourceRange(SourceLoc b) : begin(b), end(b) {}
  SourceRange(SourceLoc b, SourceLoc e) : begin(b), end(e) {}
  bool isValid() const { return begin.isValid(); }
};

/// One source file held in memory.
class SourceFile {
public:
  SourceFile(std::string name, std::string text);
  const std::string &name() const { return fileName; }
  const std::string &text() const { return contents; }
  /// The text of a 1-based line, without its line terminator.
  std::string lineText(uint32_t line) const;
  uint32_t numLines() const { return lineStarts.size(); }

private:
  std::string fileName;
  std::string contents;
  std::vector<uint32_t> lineStarts;
};

enum class Severity { Note, Warning, Error };

class DiagnosticEngine {
public:
  DiagnosticEngine(const SourceFile &file, std::ostream &os);

  /// Reports a diagnostic at `range`; the caret goes to range.begin and the
  /// rest of the range (on the same line) is underlined with '~'.
  void report(Severity sev, SourceRange range, const std::string &message);
  void error(SourceRange r, const std::string &m) {
    report(Severity::Error, r, m);
  }
  void warning(SourceRange r, const std::string &m) {
    report(Severity::Warning, r, m);
  }
  void note(SourceRange r, const std::string &m) {
    report(Severity::Note, r, m);
  }

  unsigned numErrors() const { return errorCount; }
  unsigned numWarnings() const { return warningCount; }
  bool hasErrors() const { return errorCount != 0; }

  /// Colours: decided from the stream being a terminal unless forced.
  void setColors(bool enable) { colors = enable; }
  /// After this many errors the engine stops printing and says so once.
  void setErrorLimit(unsigned limit) { errorLimit = limit; }
  void setWarningsAsErrors(bool v) { werror = v; }
  void setSuppressWarnings(bool v) { noWarnings = v; }
  /// True once the error limit was hit: callers may stop early.
  bool limitReached() const { return errorLimit && errorCount >= errorLimit; }
  /// Called when compilation stops: prints the "too many errors" notice if
  /// the error limit was reached (once, whoever stopped early because of it).
  void finish();

  const SourceFile &file() const { return src; }

private:
  const SourceFile &src;
  std::ostream &os;
  bool colors = false;
  bool werror = false;
  bool noWarnings = false;
  unsigned errorLimit = 20;
  unsigned errorCount = 0;
  unsigned warningCount = 0;
  bool limitNoticePrinted = false;
  bool lastWasSuppressed = false;

  void printLimitNotice();
};

} // namespace tic

#endif // TIC_FRONTEND_DIAGNOSTICS_H

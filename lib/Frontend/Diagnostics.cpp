//===- Diagnostics.cpp - clang-style diagnostics --------------------------===//

#include "tic/Frontend/Diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

using namespace tic;

SourceFile::SourceFile(std::string name, std::string text)
    : fileName(std::move(name)), contents(std::move(text)) {
  lineStarts.push_back(0);
  for (uint32_t i = 0, e = contents.size(); i < e; ++i)
    if (contents[i] == '\n')
      lineStarts.push_back(i + 1);
}

std::string SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts.size())
    return "";
  uint32_t begin = lineStarts[line - 1];
  uint32_t end = line < lineStarts.size() ? lineStarts[line] : contents.size();
  while (end > begin && (contents[end - 1] == '\n' || contents[end - 1] == '\r'))
    --end;
  return contents.substr(begin, end - begin);
}

DiagnosticEngine::DiagnosticEngine(const SourceFile &file, std::ostream &os)
    : src(file), os(os) {
  const char *force = getenv("CLICOLOR_FORCE");
  const char *noColor = getenv("NO_COLOR");
  colors = (force && *force && *force != '0') ||
           (!noColor && isatty(fileno(stderr)));
}

namespace {
const char *kBold = "\033[1m";
const char *kRed = "\033[1;31m";
const char *kMagenta = "\033[1;35m";
const char *kCyan = "\033[1;36m";
const char *kGreen = "\033[1;32m";
const char *kReset = "\033[0m";

/// Lines longer than this are shown as a window around the caret.
constexpr size_t kMaxShownLine = 160;
} // namespace

void DiagnosticEngine::report(Severity sev, SourceRange range,
                              const std::string &message) {
  if (sev == Severity::Warning && noWarnings)
    return;
  if (sev == Severity::Warning && werror)
    sev = Severity::Error;
  // Notes attach to the diagnostic before them: drop them with it.
  if (sev == Severity::Note && lastWasSuppressed)
    return;
  if (sev == Severity::Error) {
    if (limitReached()) {
      lastWasSuppressed = true;
      printLimitNotice();
      return;
    }
    ++errorCount;
  } else if (sev == Severity::Warning) {
    ++warningCount;
  }
  lastWasSuppressed = false;

  const char *label = sev == Severity::Error     ? "error"
                      : sev == Severity::Warning ? "warning"
                                                 : "note";
  const char *labelColor = sev == Severity::Error     ? kRed
                           : sev == Severity::Warning ? kMagenta
                                                      : kCyan;
  if (colors)
    os << kBold;
  os << src.name();
  if (range.isValid())
    os << ":" << range.begin.line << ":" << range.begin.col;
  os << ": ";
  if (colors)
    os << labelColor;
  os << label << ": ";
  if (colors)
    os << kReset << kBold;
  os << message;
  if (colors)
    os << kReset;
  os << "\n";
  if (!range.isValid())
    return;

  std::string line = src.lineText(range.begin.line);
  size_t caret = range.begin.col ? range.begin.col - 1 : 0;
  size_t endCol = caret + 1;
  if (range.end.isValid() && range.end.line == range.begin.line &&
      range.end.col > range.begin.col)
    endCol = range.end.col - 1;
  if (range.end.isValid() && range.end.line > range.begin.line)
    endCol = line.size();
  caret = std::min(caret, line.size());
  endCol = std::max(std::min(endCol, line.size()), caret + 1);
  // Very long lines: show a window around the caret.
  size_t shift = 0;
  if (line.size() > kMaxShownLine) {
    shift = caret > kMaxShownLine / 2 ? caret - kMaxShownLine / 2 : 0;
    line = line.substr(shift, kMaxShownLine);
    caret -= shift;
    endCol = std::min(endCol - shift, line.size() + 1);
  }
  // Tabs keep their width: the marker line copies them.
  std::string marker;
  for (size_t i = 0; i < caret; ++i)
    marker += (i < line.size() && line[i] == '\t') ? '\t' : ' ';
  marker += '^';
  for (size_t i = caret + 1; i < endCol; ++i)
    marker += '~';
  // Replace non-printable bytes and bytes that are not valid UTF-8 (one
  // byte for one byte, so the caret stays aligned) so that binary garbage
  // cannot corrupt a terminal.
  for (size_t i = 0; i < line.size();) {
    unsigned char c = line[i];
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7f)
        line[i] = ' ';
      ++i;
      continue;
    }
    size_t len = c >= 0xc2 && c <= 0xdf   ? 2
                 : c >= 0xe0 && c <= 0xef ? 3
                 : c >= 0xf0 && c <= 0xf4 ? 4
                                          : 0;
    bool valid = len && i + len <= line.size();
    for (size_t k = 1; valid && k < len; ++k)
      valid = ((unsigned char)line[i + k] & 0xc0) == 0x80;
    if (!valid) {
      line[i] = '?';
      ++i;
      continue;
    }
    i += len;
  }
  os << line << "\n";
  if (colors)
    os << kGreen;
  os << marker;
  if (colors)
    os << kReset;
  os << "\n";
}

void DiagnosticEngine::printLimitNotice() {
  if (limitNoticePrinted)
    return;
  limitNoticePrinted = true;
  os << (colors ? kRed : "") << "fatal error: " << (colors ? kReset : "")
     << (colors ? kBold : "") << "too many errors emitted, stopping now"
     << (colors ? kReset : "") << "\n";
}

void DiagnosticEngine::finish() {
  if (limitReached())
    printLimitNotice();
}

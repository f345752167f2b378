//===- CNames.h - Spelling .tc names as C identifiers -----------*- C++ -*-===//
//
// The two spelling rules of the generated C header, shared by the front end
// (which checks the names, SemaNames.cpp) and the header generator (which
// writes them, lib/Target/Header): one definition, so the checked names are
// the written ones.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_FRONTEND_CNAMES_H
#define TIC_FRONTEND_CNAMES_H

#include <cctype>
#include <string>

namespace tic {

/// `s` with every character that cannot appear in a C identifier replaced by
/// '_' (`x.grad` -> `x_grad`).
inline std::string cSuffix(const std::string &s) {
  std::string r;
  for (char c : s)
    r += (std::isalnum((unsigned char)c) || c == '_') ? c : '_';
  return r;
}

/// Upper case, for macro names (`sim` -> `SIM`).
inline std::string macroCase(std::string s) {
  for (char &c : s)
    c = char(std::toupper((unsigned char)c));
  return s;
}

} // namespace tic

#endif // TIC_FRONTEND_CNAMES_H

//===- SemaNames.cpp - The C names of the generated header
//-----------------===//
//
// Every module becomes C declarations named after the module, its kernels,
// fields and constants (docs/c-api.md, "Names"). This file checks them where
// the program still has source locations, so that a clash is a located error
// naming the fix, not a header that does not compile:
//
//  * the module name (from `module NAME;` or the file's stem) is a C
//    identifier, does not start with '_' (reserved names) and does not use the
//    runtime's own prefixes (tc_, tic_: `tc_status`, the runtime header's
//    guard TIC_RUNTIME_H);
//  * no two declarations produce the same C name (kernel `create` and the
//    generated MODULE_create, kernel `x_get` and field x's accessor, fields
//    `ab` and `AB` with one enumerator MODULE_FIELD_AB, ...).
//
// Parameters are not prefixed: a parameter named like a C/C++ keyword or a
// standard macro (`int`, `NULL`, `errno`) gets a trailing '_' in the header
// (lib/Target/Header), which changes nothing for callers.
//
// The list of generated names follows iface::finalizeNames
// (lib/Target/Header/Header.cpp), which re-checks them as a backstop.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "tic/Frontend/CNames.h"

#include <cctype>
#include <map>
#include <set>

namespace tic {
namespace sema {

namespace {

bool isCIdentifier(const std::string &s) {
  if (s.empty() || std::isdigit((unsigned char)s[0]))
    return false;
  for (char c : s)
    if (!std::isalnum((unsigned char)c) && c != '_')
      return false;
  return true;
}

/// A valid C identifier close to `s`, for the suggested fix.
std::string suggestIdentifier(const std::string &s) {
  std::string r = cSuffix(s);
  while (!r.empty() && r[0] == '_')
    r.erase(0, 1);
  if (r.empty() || std::isdigit((unsigned char)r[0]))
    r = "m" + r;
  return r;
}

bool startsWithNoCase(const std::string &s, const char *prefix) {
  for (size_t i = 0; prefix[i]; ++i)
    if (i >= s.size() ||
        std::tolower((unsigned char)s[i]) != (unsigned char)prefix[i])
      return false;
  return true;
}

} // namespace

void Sema::checkCNames() {
  const std::string &M = mod->name;
  bool fromFile = program.moduleName.name.empty();
  SourceRange modRange = program.moduleName.range;
  if (fromFile) {
    // No declaration to point at: the first character of the file.
    SourceLoc first;
    first.line = 1;
    first.col = 1;
    modRange = SourceRange(first);
  }
  std::string origin =
      fromFile ? "the module name '" + M + "' (taken from the file name)"
               : "the module name '" + M + "'";
  bool runtimePrefix = startsWithNoCase(M, "tc_") ||
                       startsWithNoCase(M, "tic_") || macroCase(M) == "TC" ||
                       macroCase(M) == "TIC";
  std::string suggestion = suggestIdentifier(M);
  if (runtimePrefix) {
    size_t us = M.find('_');
    suggestion = us == std::string::npos || us + 1 == M.size()
                     ? "my_" + M
                     : suggestIdentifier(M.substr(us + 1));
  }
  std::string fix = fromFile ? "add 'module " + suggestion +
                                   ";' to the file or rename the file"
                             : "rename the module (e.g. '" + suggestion + "')";
  if (!isCIdentifier(M)) {
    error(modRange, origin +
                        " is not a C identifier, and every name in the "
                        "generated header starts with it; " +
                        fix);
    return;
  }
  if (M[0] == '_') {
    error(modRange, origin +
                        " starts with '_': C reserves such names at "
                        "file scope; " +
                        fix);
    return;
  }
  if (runtimePrefix) {
    error(modRange, origin +
                        " uses the runtime's prefix (tc_, tic_: "
                        "tc_status, TIC_RUNTIME_H, ...); " +
                        fix);
    return;
  }

  // Every generated C name -> what produced it (and where).
  struct Claim {
    std::string what;
    SourceRange range;
  };
  std::map<std::string, Claim> seen;
  std::set<uint32_t> reported; // one error per declaration
  auto claim = [&](const std::string &id, const std::string &what,
                   SourceRange range) {
    // C++ reserves every identifier containing "__" (`sim__x_get` from a
    // field `_x`, `sim__ctx` from a module `sim_`).
    if (id.find("__") != std::string::npos) {
      if (reported.insert(range.begin.offset).second)
        error(range.isValid() ? range : modRange,
              what + " would be declared in C as '" + id +
                  "', which contains '__' (reserved in C++); rename it "
                  "without leading, trailing or doubled underscores");
      return;
    }
    auto [it, fresh] = seen.emplace(id, Claim{what, range});
    if (fresh || !reported.insert(range.begin.offset).second)
      return;
    std::string msg = what + " would be declared in C as '" + id +
                      "', which is already " + it->second.what +
                      "; rename one of them";
    error(range.isValid() ? range : it->second.range, msg);
    if (range.isValid() && it->second.range.isValid())
      note(it->second.range, "'" + id + "' comes from here");
  };
  const std::string U = macroCase(M);
  claim(M + "_ctx", "the context type", modRange);
  for (const char *f : {"create", "destroy", "last_error", "metadata",
                        "deactivate_all", "sync", "tape_begin", "tape_end",
                        "tape_backward", "clear_grads", "clear_duals"})
    claim(M + "_" + f, "the generated function " + M + "_" + f, modRange);
  claim(M + "_field", "the field enum type", modRange);
  claim(U + "_NUM_FIELDS", "the field count macro", modRange);
  claim(U + "_H", "the header's include guard", modRange);
  for (const auto &c : mod->constants)
    claim(U + "_CONST_" + macroCase(c->name),
          "the macro of constant '" + c->name + "'", c->range);
  for (const auto &f : mod->fields) {
    std::string cName = cSuffix(f->name);
    std::string what = "field '" + f->name + "'";
    SourceRange r = f->range;
    if (!r.isValid() && f->primal)
      r = f->primal->range;
    claim(U + "_FIELD_" + macroCase(cName), "the enumerator of " + what, r);
    bool accessors = f->elemType && !f->elemType->isStruct();
    if (accessors)
      for (const char *s : {"_get", "_set"})
        claim(M + "_" + cName + s, "an accessor of " + what, r);
    if (accessors && !f->unbounded)
      for (const char *s : {"_read", "_write"})
        claim(M + "_" + cName + s, "an accessor of " + what, r);
    for (const char *s : {"_NDIM", "_SIZE", "_SHAPE"})
      claim(U + "_" + macroCase(cName) + s, "a macro of " + what, r);
  }
  for (const auto &k : mod->kernels) {
    std::string symbol = k->exportName.empty() ? k->name : k->exportName;
    SourceRange r = k->nameRange.isValid() ? k->nameRange
                    : k->decl              ? k->decl->name.range
                                           : SourceRange();
    claim(M + "_" + cSuffix(symbol),
          std::string(k->isInstance ? "instance '" : "kernel '") + k->name +
              "'",
          r);
  }
}

} // namespace sema
} // namespace tic

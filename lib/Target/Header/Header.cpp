//===- Header.cpp - MODULE.h and MODULE.json ------------------------------===//
//
// describeModule() turns a checked module into an iface::ModuleInterface;
// emitHeader()/emitModuleJSON() print it. See include/tic/Target/Header.h
// and docs/c-api.md for the format.
//
// Only the data members of the Sema structures are read (no Sema functions
// are called), so this library links without the Sema implementation.
//===----------------------------------------------------------------------===//

#include "tic/Target/Header.h"

#include "tic/Frontend/CNames.h"
#include "tic/Frontend/Sema.h"
#include "tic/Frontend/Types.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "tic/runtime.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#ifndef TIC_VERSION
#define TIC_VERSION "0.0.0"
#endif

namespace tic {
namespace iface {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

namespace {
struct DTypeInfo {
  const char *name, *cType, *tcName;
  int value;
};
// The values are the runtime's own (tic/runtime.h): one definition.
#define TIC_DTYPE(name, ctype, tc)                                             \
  { name, ctype, #tc, tc }
const DTypeInfo kDTypes[] = {
    TIC_DTYPE("i8", "int8_t", TC_DTYPE_I8),
    TIC_DTYPE("i16", "int16_t", TC_DTYPE_I16),
    TIC_DTYPE("i32", "int32_t", TC_DTYPE_I32),
    TIC_DTYPE("i64", "int64_t", TC_DTYPE_I64),
    TIC_DTYPE("u8", "uint8_t", TC_DTYPE_U8),
    TIC_DTYPE("u16", "uint16_t", TC_DTYPE_U16),
    TIC_DTYPE("u32", "uint32_t", TC_DTYPE_U32),
    TIC_DTYPE("u64", "uint64_t", TC_DTYPE_U64),
    TIC_DTYPE("f16", "uint16_t", TC_DTYPE_F16),
    TIC_DTYPE("f32", "float", TC_DTYPE_F32),
    TIC_DTYPE("f64", "double", TC_DTYPE_F64),
    TIC_DTYPE("bool", "uint8_t", TC_DTYPE_BOOL),
};
#undef TIC_DTYPE
const DTypeInfo *lookupDType(const std::string &d) {
  for (const DTypeInfo &i : kDTypes)
    if (d == i.name) return &i;
  return nullptr;
}
} // namespace

const char *cTypeOf(const std::string &dtype) {
  const DTypeInfo *i = lookupDType(dtype);
  return i ? i->cType : "void";
}
const char *tcDTypeOf(const std::string &dtype) {
  const DTypeInfo *i = lookupDType(dtype);
  return i ? i->tcName : "TC_DTYPE_I32";
}
int tcDTypeValue(const std::string &dtype) {
  const DTypeInfo *i = lookupDType(dtype);
  return i ? i->value : -1;
}

unsigned ValueDesc::elementAxes() const {
  if (kind != Kind::NDArray) return 0;
  if (rows > 1 && cols > 1) return 2;
  return (rows > 1 || cols > 1) ? 1 : 0;
}

const FieldDesc *ModuleInterface::findField(const std::string &n) const {
  for (const FieldDesc &f : fields)
    if (f.name == n) return &f;
  return nullptr;
}

namespace {

bool isCKeyword(const std::string &s) {
  static const std::set<std::string> kw = {
      // C99
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "_Bool", "_Complex",
      "_Imaginary",
      // C++
      "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool",
      "catch", "char16_t", "char32_t", "class", "compl", "concept",
      "const_cast", "constexpr", "decltype", "delete", "dynamic_cast",
      "explicit", "export", "false", "friend", "mutable", "namespace", "new",
      "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
      "private", "protected", "public", "reinterpret_cast", "requires",
      "static_assert", "static_cast", "template", "this", "thread_local",
      "throw", "true", "try", "typeid", "typename", "using", "virtual",
      "wchar_t", "xor", "xor_eq",
      // names the generated prototypes use themselves
      "ctx", "ret",
      // macros and typedefs of the C headers a user's file may include
      // before ours (<stddef.h>, <stdint.h>, <stdbool.h>, <errno.h>,
      // <assert.h>, <stdio.h>, <math.h>)
      "NULL", "errno", "assert", "offsetof", "EOF", "stdin", "stdout", "stderr",
      "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t",
      "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t",
      "SIZE_MAX", "INT8_MIN", "INT8_MAX", "INT16_MIN", "INT16_MAX", "INT32_MIN",
      "INT32_MAX", "INT64_MIN", "INT64_MAX", "UINT8_MAX", "UINT16_MAX",
      "UINT32_MAX", "UINT64_MAX", "INFINITY", "NAN", "HUGE_VAL", "M_PI", "M_E"};
  return kw.count(s) != 0;
}

/// A name made C-safe ("u.grad" -> "u_grad"); used after a prefix.
/// A standalone C identifier (parameter names): keywords get a trailing _.
/// Also names C reserves (`_X`, `__x`) and the runtime's prefixes (tc_,
/// tic_, TC_, TIC_: `tc_status`, `TIC_RUNTIME_H`).
std::string cIdent(const std::string &s) {
  std::string r = cSuffix(s);
  // No "__" anywhere (reserved in C++), no leading '_' + capital (C).
  std::string collapsed;
  for (char c : r)
    if (!(c == '_' && !collapsed.empty() && collapsed.back() == '_'))
      collapsed += c;
  bool reserved = collapsed != r || (r.size() > 1 && r[0] == '_' &&
                                     std::isupper((unsigned char)r[1]));
  r = collapsed;
  if (reserved && !r.empty() && r[0] == '_')
    r = "p" + r;
  if (r.empty() || std::isdigit((unsigned char)r[0]))
    r = "p" + r;
  auto prefixed = [&](const char *p) {
    for (size_t i = 0; p[i]; ++i)
      if (i >= r.size() || std::tolower((unsigned char)r[i]) != p[i])
        return false;
    return true;
  };
  if (isCKeyword(r) || prefixed("tc_") || prefixed("tic_"))
    r += "_";
  return r;
}

/// Text safe inside a C block comment.
std::string commentSafe(const std::string &s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\n' || c == '\r') { r += ' '; continue; }
    r += c;
    if (c == '*' && i + 1 < s.size() && s[i + 1] == '/') r += ' ';
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') r += ' ';
  }
  return r;
}

std::string scalarDType(const Type *t) {
  if (!t) return "i32";
  switch (t->kind()) {
  case Type::Kind::Bool: return "bool";
  case Type::Kind::Int: {
    auto *s = static_cast<const ScalarType *>(t);
    return std::string(s->isSigned ? "i" : "u") + std::to_string(s->bits);
  }
  case Type::Kind::Float:
    return "f" + std::to_string(static_cast<const ScalarType *>(t)->bits);
  case Type::Kind::Quant: {
    auto *q = static_cast<const QuantType *>(t);
    return q->compute ? scalarDType(q->compute)
                      : (q->qkind == QuantType::QKind::Int ? "i32" : "f32");
  }
  default: return "i32";
  }
}

std::string fmtDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Shortest round-tripping spelling, for readable comments.
  for (int p = 1; p <= 17; ++p) {
    char b2[64];
    std::snprintf(b2, sizeof b2, "%.*g", p, v);
    if (std::strtod(b2, nullptr) == v) {
      std::snprintf(buf, sizeof buf, "%s", b2);
      break;
    }
  }
  return buf;
}

std::string typeText(const Type *t) {
  if (!t) return "?";
  switch (t->kind()) {
  case Type::Kind::Bool: case Type::Kind::Int: case Type::Kind::Float:
    return scalarDType(t);
  case Type::Kind::Vector: {
    auto *v = static_cast<const VectorType *>(t);
    return "vec<" + typeText(v->elem) + ", " + std::to_string(v->size) + ">";
  }
  case Type::Kind::Matrix: {
    auto *m = static_cast<const MatrixType *>(t);
    return "mat<" + typeText(m->elem) + ", " + std::to_string(m->rows) + ", " +
           std::to_string(m->cols) + ">";
  }
  case Type::Kind::Struct: return static_cast<const StructType *>(t)->name;
  case Type::Kind::NDArray: {
    auto *n = static_cast<const NDArrayType *>(t);
    return "ndarray<" + typeText(n->elem) + ", " + std::to_string(n->ndim) + ">";
  }
  case Type::Kind::Quant: {
    auto *q = static_cast<const QuantType *>(t);
    std::string s;
    switch (q->qkind) {
    case QuantType::QKind::Int:
      s = "quant.int(bits: " + std::to_string(q->bits);
      break;
    case QuantType::QKind::Fixed:
      s = "quant.fixed(bits: " + std::to_string(q->bits) +
          ", max: " + fmtDouble(q->max);
      break;
    case QuantType::QKind::Float:
      s = "quant.float(exp: " + std::to_string(q->exp) +
          ", frac: " + std::to_string(q->frac);
      break;
    }
    s += std::string(", signed: ") + (q->isSigned ? "true" : "false");
    if (q->compute) s += ", compute: " + scalarDType(q->compute);
    return s + ")";
  }
  default: return "?";
  }
}

ValueDesc valueDescOf(const Type *t) {
  ValueDesc d;
  d.typeText = typeText(t);
  if (!t) return d;
  switch (t->kind()) {
  case Type::Kind::Vector: {
    auto *v = static_cast<const VectorType *>(t);
    d.kind = ValueDesc::Kind::Vector;
    d.dtype = scalarDType(v->elem);
    d.rows = v->size;
    return d;
  }
  case Type::Kind::Matrix: {
    auto *m = static_cast<const MatrixType *>(t);
    d.kind = ValueDesc::Kind::Matrix;
    d.dtype = scalarDType(m->elem);
    d.rows = m->rows;
    d.cols = m->cols;
    return d;
  }
  case Type::Kind::NDArray: {
    auto *n = static_cast<const NDArrayType *>(t);
    ValueDesc e = valueDescOf(n->elem);
    d.kind = ValueDesc::Kind::NDArray;
    d.dtype = e.dtype;
    d.ndim = n->ndim;
    d.rows = e.rows;
    d.cols = e.cols;
    return d;
  }
  case Type::Kind::Struct:
    d.kind = ValueDesc::Kind::Struct;
    return d;
  default:
    d.kind = ValueDesc::Kind::Scalar;
    d.dtype = scalarDType(t);
    return d;
  }
}

std::string constText(const sema::ConstValue &v) {
  using K = sema::ConstValue::Kind;
  switch (v.kind) {
  case K::Int:
    if (v.type && v.type->kind() == Type::Kind::Int &&
        !static_cast<const ScalarType *>(v.type)->isSigned)
      return std::to_string(uint64_t(v.i));
    return std::to_string(v.i);
  case K::Float: {
    std::string s = fmtDouble(v.f);
    if (s.find_first_of(".eni") == std::string::npos) s += ".0";
    return s;
  }
  case K::Bool: return v.b ? "true" : "false";
  case K::String: {
    std::string s = "\"";
    for (char c : v.s) {
      if (c == '"' || c == '\\') s += '\\';
      s += c;
    }
    return s + "\"";
  }
  case K::Aggregate: {
    std::string s = "[";
    for (size_t i = 0; i < v.elems.size(); ++i)
      s += (i ? ", " : "") + constText(v.elems[i]);
    return s + "]";
  }
  case K::Type: return typeText(v.type);
  }
  return "?";
}

/// C expression for a scalar constant, "" when it has none (inf, nan, ...).
std::string cScalar(const sema::ConstValue &v) {
  using K = sema::ConstValue::Kind;
  std::string dt = scalarDType(v.type);
  switch (v.kind) {
  case K::Bool: return v.b ? "1" : "0";
  case K::Int: {
    if (dt[0] == 'u') {
      uint64_t u = uint64_t(v.i);
      if (dt == "u64") return "UINT64_C(" + std::to_string(u) + ")";
      return std::to_string(u) + "u";
    }
    if (dt == "i64") {
      if (v.i == INT64_MIN) return "(-INT64_C(9223372036854775807) - 1)";
      return "INT64_C(" + std::to_string(v.i) + ")";
    }
    if (v.i == INT32_MIN) return "(-2147483647 - 1)";
    if (v.i < 0) return "(" + std::to_string(v.i) + ")";
    return std::to_string(v.i);
  }
  case K::Float: {
    if (!std::isfinite(v.f)) return "";
    char buf[64];
    bool f32 = dt != "f64";
    // An exact constant (sema::ConstValue::exact) is rounded to its C type
    // here, once, and printed with enough digits to read back as that value.
    double x = f32 ? double(float(v.f)) : v.f;
    std::snprintf(buf, sizeof buf, f32 ? "%.9g" : "%.17g", x);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    if (f32) s += "f";
    if (s[0] == '-') s = "(" + s + ")";
    return s;
  }
  default: return "";
  }
}

std::string cValue(const sema::ConstValue &v) {
  if (v.kind != sema::ConstValue::Kind::Aggregate) return cScalar(v);
  std::string s = "{";
  for (size_t i = 0; i < v.elems.size(); ++i) {
    if (v.elems[i].kind == sema::ConstValue::Kind::Aggregate) return "";
    std::string e = cScalar(v.elems[i]);
    if (e.empty()) return "";
    s += (i ? ", " : "") + e;
  }
  return s + "}";
}

std::string axesText(const std::vector<sema::Axis> &axes) {
  std::string s;
  for (sema::Axis a : axes) s += a < 4 ? "ijkl"[a] : '?';
  return s;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  if (shape.size() == 1) return std::to_string(shape[0]);
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string snodeCall(const sema::SNode &n) {
  std::string s = sema::SNode::kindName(n.kind);
  if (n.kind == sema::SNode::Kind::Root) return s;
  s += "(";
  switch (n.kind) {
  case sema::SNode::Kind::BitStruct:
    s += "bits: " + std::to_string(n.bits);
    break;
  case sema::SNode::Kind::BitArray:
    s += axesText(n.axes) + ", " + shapeText(n.shape) +
         ", bits: " + std::to_string(n.bits);
    break;
  case sema::SNode::Kind::Dynamic:
    s += axesText(n.axes) + ", " + shapeText(n.shape) +
         ", chunk: " + std::to_string(n.chunkSize);
    break;
  default:
    s += axesText(n.axes) + ", " + shapeText(n.shape);
  }
  return s + ")";
}

void layoutLines(const sema::SNode &n, unsigned depth,
                 std::vector<std::string> &out) {
  std::string line(2 * depth, ' ');
  if (!n.letName.empty()) line += n.letName + " = ";
  line += snodeCall(n);
  // One .place() per run of places with the same shared_exponent.
  for (size_t i = 0; i < n.places.size();) {
    bool shared = n.places[i]->sharedExponent;
    line += ".place(";
    size_t j = i;
    for (; j < n.places.size() && n.places[j]->sharedExponent == shared; ++j)
      line += (j > i ? ", " : "") + n.places[j]->name;
    line += shared ? ", shared_exponent: true)" : ")";
    i = j;
  }
  out.push_back(line);
  for (const auto &c : n.children) layoutLines(*c, depth + 1, out);
}

std::string snodePath(const sema::SNode *n) {
  std::vector<const sema::SNode *> path;
  for (; n; n = n->parent) path.push_back(n);
  std::string s;
  for (auto it = path.rbegin(); it != path.rend(); ++it)
    s += (s.empty() ? "" : ".") + snodeCall(**it);
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// describeModule
//===----------------------------------------------------------------------===//

ModuleInterface describeModule(const sema::CheckedModule &cm,
                               const std::string &sourceName,
                               const std::string &ticVersion) {
  ModuleInterface m;
  m.name = cm.name;
  // Only the file name: the header must not depend on the build directory.
  m.source = sourceName.substr(sourceName.find_last_of('/') == std::string::npos
                                   ? 0
                                   : sourceName.find_last_of('/') + 1);
  m.ticVersion = ticVersion.empty() ? TIC_VERSION : ticVersion;
  m.defaultFloat = cm.defaultFloat;

  for (const auto &c : cm.constants) {
    ConstantDesc d;
    d.name = c->name;
    d.typeText = typeText(c->type ? c->type : c->value.type);
    const Type *et = c->type ? c->type : c->value.type;
    if (et && et->isTensor()) {
      ValueDesc vd = valueDescOf(et);
      d.dtype = vd.dtype;
    } else {
      d.dtype = scalarDType(et);
    }
    if (c->value.kind == sema::ConstValue::Kind::String) d.dtype = "string";
    d.valueText = constText(c->value);
    d.cValue = c->value.kind == sema::ConstValue::Kind::String
                   ? d.valueText
                   : cValue(c->value);
    d.overridden = c->overridden;
    d.overrideText = c->overrideText;
    m.constants.push_back(std::move(d));
  }

  for (const auto &fp : cm.fields) {
    const sema::FieldInfo &f = *fp;
    FieldDesc d;
    d.name = f.name;
    d.place = f.name;
    d.id = unsigned(m.fields.size());
    d.value = valueDescOf(f.elemType);
    if (d.value.kind == ValueDesc::Kind::Scalar && f.elemType &&
        f.elemType->isQuant())
      d.value.typeText = scalarDType(f.elemType);
    d.storageText = typeText(f.elemType);
    for (sema::Axis a : f.axes) d.axes.push_back(std::string(1, a < 4 ? "ijkl"[a] : 'x'));
    d.unbounded = f.unbounded;
    if (!f.unbounded) d.shape = f.shape;
    if (f.place &&
        (f.place->kind == sema::SNode::Kind::BitStruct ||
         f.place->kind == sema::SNode::Kind::BitArray) &&
        !f.unbounded) {
      d.wordBits = f.place->bits;
      d.wordShape = d.shape;
      if (f.place->kind == sema::SNode::Kind::BitArray &&
          !f.place->axes.empty() && !f.place->shape.empty() &&
          size_t(f.place->axes[0]) < d.wordShape.size())
        d.wordShape[f.place->axes[0]] /= f.place->shape[0];
    }
    d.needsGrad = f.needsGrad;
    d.needsDual = f.needsDual;
    if (f.primal) d.primal = f.primal->name;
    if (f.grad) d.grad = f.grad->name;
    d.snodePath = snodePath(f.place);
    m.fields.push_back(std::move(d));
  }

  for (const auto &kp : cm.kernels) {
    const sema::CheckedFunction &k = *kp;
    KernelDesc d;
    d.name = k.name;
    d.symbol = k.exportName.empty() ? k.name : k.exportName;
    d.isInstance = k.isInstance;
    if (k.isInstance) {
      d.templateText = k.templateName + "(";
      for (size_t i = 0; i < k.templateArgs.size(); ++i) {
        const sema::TemplateArg &a = k.templateArgs[i];
        std::string s = a.kind == sema::TemplateArg::Kind::Field && a.field
                            ? a.field->name
                        : a.kind == sema::TemplateArg::Kind::SNode && a.snode
                            ? (a.snode->letName.empty() ? snodeCall(*a.snode)
                                                        : a.snode->letName)
                            : constText(a.value);
        d.templateText += (i ? ", " : "") + s;
      }
      d.templateText += ")";
    }
    for (const auto &p : k.params) {
      if (p.isTemplate) continue;
      ParamDesc pd;
      pd.name = p.name;
      pd.value = valueDescOf(p.type);
      d.params.push_back(std::move(pd));
    }
    if (k.returnType && !k.returnType->isVoid()) {
      d.hasResult = true;
      d.result = valueDescOf(k.returnType);
    }
    d.hasGrad = k.hasAdjoint; // M_<k>_grad: tic-reverse-mode or @grad_of
    d.hasFwd = k.forwardDifferentiable; // M_<k>_fwd: tic-forward-mode
    m.kernels.push_back(std::move(d));
  }

  if (cm.root) {
    layoutLines(*cm.root, 0, m.layoutLines);
    std::map<const sema::SNode *, std::string> symbols = cm.snodeSymbols();
    for (const sema::SNode *n : cm.snodes)
      if (n && n->isSparse()) {
        m.hasSparse = true;
        if (!n->letName.empty())
          m.sparseNodes.push_back({n->letName, symbols[n]});
      }
  }
  finalizeNames(m);
  return m;
}

void finalizeNames(ModuleInterface &m) {
  if (m.name.empty()) m.name = "module";
  m.upperName = macroCase(m.name);
  std::map<std::string, std::string> seen; // C identifier -> what made it
  auto claim = [&](const std::string &id, const std::string &what) {
    auto [it, fresh] = seen.emplace(id, what);
    if (!fresh)
      m.errors.push_back("the C name '" + id + "' of " + what +
                         " clashes with " + it->second);
  };
  const std::string &M = m.name, &U = m.upperName;
  claim(M + "_ctx", "the context type");
  for (const char *f :
       {"create", "destroy", "last_error", "metadata", "deactivate_all",
        "memory_stats", "sync", "tape_begin", "tape_end", "tape_backward",
        "clear_grads", "clear_duals"})
    claim(M + "_" + f, std::string("the generated function ") + M + "_" + f);
  for (const SparseNodeDesc &n : m.sparseNodes)
    claim(M + "_" + n.name + "_deactivate_all",
          "the generated function of SNode '" + n.name + "'");
  claim(M + "_field", "the field enum type");
  claim(U + "_NUM_FIELDS", "the field count macro");
  claim(U + "_H", "the include guard");
  for (ConstantDesc &c : m.constants)
    claim(U + "_CONST_" + macroCase(c.name), "constant '" + c.name + "'");
  for (FieldDesc &f : m.fields) {
    f.cName = cSuffix(f.name);
    f.enumName = U + "_FIELD_" + macroCase(f.cName);
    std::string what = "field '" + f.name + "'";
    claim(f.enumName, what);
    if (f.hasAccessors())
      for (const char *s : {"_get", "_set"}) claim(M + "_" + f.cName + s, what);
    if (f.hasBulk())
      for (const char *s : {"_read", "_write"}) claim(M + "_" + f.cName + s, what);
    if (f.hasWords()) {
      for (const char *s : {"_words_read", "_words_write"})
        claim(M + "_" + f.cName + s, what);
      claim(U + "_" + macroCase(f.cName) + "_WORDS", what);
    }
    for (const char *s : {"_NDIM", "_SIZE", "_SHAPE"})
      claim(U + "_" + macroCase(f.cName) + s, what);
  }
  for (KernelDesc &k : m.kernels) {
    k.cFunction = M + "_" + cSuffix(k.symbol);
    std::string what = std::string(k.isInstance ? "instance '" : "kernel '") +
                       k.name + "'";
    claim(k.cFunction, what);
    if (k.hasGrad) claim(k.cFunction + "_grad", what);
    if (k.hasFwd)
      claim(k.cFunction + "_fwd", what);
    std::set<std::string> names;
    for (ParamDesc &p : k.params) {
      p.cName = cIdent(p.name);
      std::string base = p.cName;
      for (int n = 2; !names.insert(p.cName).second; ++n)
        p.cName = base + "_" + std::to_string(n);
    }
  }
}

//===----------------------------------------------------------------------===//
// The header
//===----------------------------------------------------------------------===//

namespace {

std::string indexParams(const FieldDesc &f) {
  std::string s;
  for (const std::string &a : f.axes) s += ", int32_t " + a;
  return s;
}

std::string paramDecl(const ParamDesc &p) {
  const ValueDesc &v = p.value;
  switch (v.kind) {
  case ValueDesc::Kind::Scalar:
    return std::string(cTypeOf(v.dtype)) + " " + p.cName;
  case ValueDesc::Kind::Vector:
  case ValueDesc::Kind::Matrix:
    return std::string("const ") + cTypeOf(v.dtype) + " *" + p.cName;
  case ValueDesc::Kind::NDArray:
    return "tc_ndarray " + p.cName;
  case ValueDesc::Kind::Struct:
    return "const void *" + p.cName;
  }
  return "";
}

std::string valueComment(const ValueDesc &v) {
  switch (v.kind) {
  case ValueDesc::Kind::Vector:
    return v.typeText + ": " + std::to_string(v.rows) + " components";
  case ValueDesc::Kind::Matrix:
    return v.typeText + ": " + std::to_string(v.rows * v.cols) +
           " components, row-major";
  case ValueDesc::Kind::NDArray: {
    std::string s = v.typeText + ": ndim " +
                    std::to_string(v.ndim + v.elementAxes()) + ", " +
                    tcDTypeOf(v.dtype);
    return s;
  }
  default: return v.typeText;
  }
}

void wrapComment(std::ostream &os, const std::string &text) {
  os << "/* " << commentSafe(text) << " */\n";
}

} // namespace

void emitHeader(const ModuleInterface &m, std::ostream &os) {
  const std::string &M = m.name, &U = m.upperName;
  const std::string ctx = M + "_ctx *ctx";
  os << "/* " << commentSafe(M) << ".h - C interface of the tic module '"
     << commentSafe(M) << "'";
  if (!m.source.empty()) os << " (" << commentSafe(m.source) << ")";
  os << ".\n * Generated by tic " << commentSafe(m.ticVersion)
     << "; do not edit. Valid C99 and C++; see docs/c-api.md.\n"
     << " * Link the object compiled with it and libtic_runtime. Every function\n"
     << " * returns TC_OK (0) on success; " << M
     << "_last_error(ctx) explains a failure. */\n";
  os << "#ifndef " << U << "_H\n#define " << U << "_H\n\n";
  os << "#include <tic/runtime.h> /* tc_status, tc_options, tc_ndarray, "
        "tc_status_string */\n\n";
  os << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  // Constants and layout.
  os << "/* Built with default-fp " << commentSafe(m.defaultFloat) << ". Constants";
  os << (m.constants.empty() ? ": none. */\n" : " (after -D overrides): */\n");
  for (const ConstantDesc &c : m.constants) {
    std::string line = "const " + c.name + ": " + c.typeText + " = " + c.valueText;
    if (c.overridden)
      line += " (-D " +
              (c.overrideText.find('=') == std::string::npos
                   ? c.name + "=" + c.overrideText
                   : c.overrideText) +
              ")";
    wrapComment(os, line);
    if (!c.cValue.empty())
      os << "#define " << U << "_CONST_" << macroCase(c.name) << " " << c.cValue
         << "\n";
  }
  os << "\n/* Layout:\n";
  if (m.layoutLines.empty()) os << " *   root\n";
  for (const std::string &l : m.layoutLines) os << " *   " << commentSafe(l) << "\n";
  os << " */\n\n";

  // Context.
  os << "/* Context: one instance of the module's fields, threads, tape. */\n";
  os << "typedef struct " << M << "_ctx " << M << "_ctx;\n";
  os << "/* opts NULL: defaults (CPU). On failure *out is NULL and "
     << M << "_last_error(NULL)\n   explains it. */\n";
  os << "tc_status " << M << "_create(const tc_options *opts, " << M
     << "_ctx **out);\n";
  os << "void " << M << "_destroy(" << ctx << "); /* NULL: no-op */\n";
  os << "/* Message of the last failure on ctx (\"\" if none; never NULL). */\n";
  os << "const char *" << M << "_last_error(const " << ctx << ");\n";
  os << "/* JSON description of every kernel, field and parameter (" << M
     << ".json). */\n";
  os << "const char *" << M << "_metadata(void);\n\n";

  // Kernels.
  os << "/* Kernels: one entry per kernel or instance; results come back "
        "through `ret`.\n   Vector/matrix parameters and results are "
        "pointers to their components\n   (row-major). MODULE_<k>_grad is the "
        "reverse-mode adjoint of a\n"
        "   differentiable kernel (same parameters; docs/autodiff.md). */\n";
  if (m.kernels.empty()) os << "/* (no kernels) */\n";
  for (const KernelDesc &k : m.kernels) {
    std::string sig = "kernel " + k.name + "(";
    for (size_t i = 0; i < k.params.size(); ++i)
      sig += (i ? ", " : "") + k.params[i].name + ": " + k.params[i].value.typeText;
    sig += ")";
    if (k.hasResult) sig += " -> " + k.result.typeText;
    if (k.isInstance) sig = "instance " + k.name + " = " + k.templateText;
    wrapComment(os, sig);
    for (const ParamDesc &p : k.params)
      if (p.value.kind != ValueDesc::Kind::Scalar)
        wrapComment(os, "  " + p.cName + ": " + valueComment(p.value));
    if (k.hasResult && k.result.kind != ValueDesc::Kind::Scalar)
      wrapComment(os, "  ret: " + valueComment(k.result));
    std::string args = "(" + ctx;
    for (const ParamDesc &p : k.params)
      args += ", " + paramDecl(p);
    std::string params = args;
    if (k.hasResult) params += std::string(", ") + cTypeOf(k.result.dtype) + " *ret";
    params += ")";
    os << "tc_status " << k.cFunction << params << ";\n";
    // The adjoint returns nothing; the forward-mode version what k returns.
    if (k.hasGrad)
      os << "tc_status " << k.cFunction << "_grad" << args << ");\n";
    if (k.hasFwd)
      os << "tc_status " << k.cFunction << "_fwd" << params << ";\n";
  }
  os << "\n";

  // Fields.
  os << "/* Fields: get/set one element (vector/matrix elements through "
        "pointers to their\n   components); read/write the whole field: "
        "row-major over the index space,\n   components innermost, `count` "
        "scalars (" << U << "_X_SIZE). */\n";
  for (const FieldDesc &f : m.fields) {
    std::string T = cTypeOf(f.value.dtype);
    std::string what = "field " + f.name + ": " + f.storageText;
    if (f.ndim()) {
      what += " over ";
      for (size_t i = 0; i < f.axes.size(); ++i) what += f.axes[i];
    }
    if (f.unbounded) what += " (unbounded: below a hash)";
    what += "; " + f.snodePath;
    wrapComment(os, what);
    if (!f.hasAccessors()) {
      os << "/* (struct elements have no C accessors yet) */\n";
      continue;
    }
    bool scalar = f.value.kind == ValueDesc::Kind::Scalar;
    std::string P = M + "_" + f.cName;
    os << "tc_status " << P << "_get(" << ctx << indexParams(f) << ", " << T
       << " *value);\n";
    os << "tc_status " << P << "_set(" << ctx << indexParams(f) << ", "
       << (scalar ? T + " value" : "const " + T + " *value") << ");\n";
    std::string FU = U + "_" + macroCase(f.cName);
    if (f.hasBulk()) {
      os << "tc_status " << P << "_read(" << ctx << ", " << T
         << " *dst, size_t count);\n";
      os << "tc_status " << P << "_write(" << ctx << ", const " << T
         << " *src, size_t count);\n";
      os << "#define " << FU << "_NDIM " << f.ndim() << "\n";
      if (f.ndim()) {
        os << "#define " << FU << "_SHAPE {";
        for (size_t i = 0; i < f.shape.size(); ++i)
          os << (i ? ", " : "") << f.shape[i];
        os << "}\n";
      }
      os << "#define " << FU << "_SIZE " << f.numScalars() << " /* scalars */\n";
      if (f.hasWords()) {
        // The packed container words, as stored (docs/quant.md).
        std::string W = "uint" + std::to_string(f.wordBits) + "_t";
        os << "tc_status " << P << "_words_read(" << ctx << ", " << W
           << " *dst, size_t count);\n";
        os << "tc_status " << P << "_words_write(" << ctx << ", const " << W
           << " *src, size_t count);\n";
        os << "#define " << FU << "_WORDS " << f.numWords() << " /* "
           << f.wordBits << "-bit container words */\n";
      }
    } else {
      os << "#define " << FU << "_NDIM " << f.ndim() << "\n";
    }
  }
  os << "\n/* Fields, as " << M << "_tape_backward takes them. */\n";
  os << "typedef enum {";
  if (m.fields.empty()) {
    os << " " << U << "_NO_FIELDS = -1 } " << M << "_field;\n";
  } else {
    for (size_t i = 0; i < m.fields.size(); ++i)
      os << (i ? "," : "") << "\n  " << m.fields[i].enumName << " = " << i;
    os << "\n} " << M << "_field;\n";
  }
  os << "#define " << U << "_NUM_FIELDS " << m.fields.size() << "\n\n";

  os << "/* Sparse structures, synchronization, autodiff. */\n";
  os << "tc_status " << M << "_deactivate_all(" << ctx
     << "); /* every sparse SNode */\n";
  for (const SparseNodeDesc &n : m.sparseNodes)
    os << "tc_status " << M << "_" << n.name << "_deactivate_all(" << ctx
       << "); /* every cell of SNode '" << n.name << "' */\n";
  os << "/* memory of the context (snode NULL) or of one pointer SNode's cells "
        "*/\n";
  os << "tc_status " << M << "_memory_stats(" << ctx
     << ", const char *snode, tc_memory_stats *out);\n";
  os << "tc_status " << M << "_sync(" << ctx << "); /* waits for the device */\n";
  os << "tc_status " << M << "_tape_begin(" << ctx << ");\n";
  os << "tc_status " << M << "_tape_end(" << ctx << ");\n";
  os << "tc_status " << M << "_tape_backward(" << ctx << ", " << M
     << "_field loss); /* loss.grad = 1, replay */\n";
  os << "tc_status " << M << "_clear_grads(" << ctx << "); /* every .grad */\n";
  os << "tc_status " << M << "_clear_duals(" << ctx
     << "); /* every .dual */\n\n";
  os << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n";
  os << "#endif /* " << U << "_H */\n";
}

} // namespace iface

void emitHeader(const sema::CheckedModule &module, std::ostream &os) {
  iface::emitHeader(iface::describeModule(module), os);
}
void emitModuleJSON(const sema::CheckedModule &module, std::ostream &os) {
  iface::emitModuleJSON(iface::describeModule(module), os);
}

} // namespace tic

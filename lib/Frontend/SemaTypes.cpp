//===- SemaTypes.cpp - Type expressions and quantized types --------------===//
//
// Part of semantic analysis (Sema.cpp has the driver); see docs/semantics.md.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include <algorithm>
#include <cmath>

using namespace tic;
using namespace tic::sema;
using namespace tic::ast;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

const Type *Sema::resolveType(TypeExpr &t, bool allowQuant,
                              bool allowTemplate) {
  if (isa<InferredTypeExpr>(&t)) {
    // Only func parameters may omit their type (instantiate() binds them).
    error(t.range, "a kernel parameter needs a type: kernels are entry points "
                   "whose C signature is fixed (only func parameters take "
                   "their type from the argument)");
    return nullptr;
  }
  if (isa<TemplateTypeExpr>(&t)) {
    if (!allowTemplate) {
      error(t.range, "'template' is only allowed as the type of a kernel or "
                     "func parameter");
      return nullptr;
    }
    return types->getTemplate();
  }
  if (auto *q = dyn_cast<QuantTypeExpr>(&t)) {
    const Type *r = resolveQuant(*q);
    if (r && !allowQuant) {
      error(t.range, "quantized types are only allowed as field element types");
      return nullptr;
    }
    return r;
  }
  if (auto *n = dyn_cast<NamedTypeExpr>(&t)) {
    if (auto *s = types->getScalarByName(n->name))
      return s;
    auto b = builtinTypes.find(n->name);
    if (b != builtinTypes.end())
      return b->second;
    auto g = globals.find(n->name);
    if (g != globals.end()) {
      if (g->second.kind == GlobalEntry::Kind::TypeAlias ||
          g->second.kind == GlobalEntry::Kind::Struct) {
        if (g->second.resolving) {
          // `type a = b; type b = a;`, `struct P { p: P }`.
          std::string chain;
          bool on = false;
          for (const std::string &name : typeStack) {
            on |= name == n->name;
            if (on)
              chain += name + " -> ";
          }
          error(t.range, std::string(g->second.kind == GlobalEntry::Kind::Struct
                                         ? "struct '"
                                         : "type '") +
                             n->name + "' is defined in terms of itself (" +
                             chain + n->name + ")");
          return nullptr;
        }
        if (!g->second.visited) {
          // Declared later in the file: check it now.
          if (auto *a = dyn_cast<TypeAliasDecl>(g->second.decl))
            checkTypeAlias(*const_cast<TypeAliasDecl *>(a));
          else if (auto *sd = dyn_cast<StructDecl>(g->second.decl))
            checkStruct(*const_cast<StructDecl *>(sd));
        }
        if (!g->second.type)
          return nullptr; // error reported at its declaration
        if (g->second.type->isQuant() && !allowQuant) {
          error(t.range, "quantized type '" + n->name +
                             "' is only allowed as a field element type");
          return nullptr;
        }
        return g->second.type;
      }
      error(t.range, "'" + n->name + "' is not a type");
      return nullptr;
    }
    error(t.range, "unknown type '" + n->name + "'");
    return nullptr;
  }
  auto *g = cast<GenericTypeExpr>(&t);
  auto typeArg = [&](size_t i, bool quantOk) -> const Type * {
    if (i >= g->args.size() || !g->args[i].type) {
      error(i < g->args.size() && g->args[i].value ? g->args[i].value->range
                                                   : g->range,
            "expected a type as argument " + std::to_string(i + 1) + " of '" +
                g->name + "'");
      return nullptr;
    }
    const Type *r = resolveType(*g->args[i].type, quantOk, false);
    if (r && !r->isScalar() && !(quantOk && r->isQuant()) &&
        !(g->name == "ndarray" && r->isTensor())) {
      error(g->args[i].type->range,
            "invalid element type '" + typeName(r) + "' for '" + g->name + "'");
      return nullptr;
    }
    return r;
  };
  auto intArg = [&](size_t i) -> std::optional<int64_t> {
    if (i >= g->args.size())
      return std::nullopt;
    if (!g->args[i].value) {
      // A bare identifier parses as a type: allow constants.
      if (auto *nt = dyn_cast<NamedTypeExpr>(g->args[i].type.get())) {
        NameExpr ne(nt->range, nt->name);
        return evalIntArg(ne, "argument of '" + g->name + "'");
      }
      error(g->args[i].type->range, "expected an integer as argument " +
                                        std::to_string(i + 1) + " of '" +
                                        g->name + "'");
      return std::nullopt;
    }
    return evalIntArg(*g->args[i].value, "argument of '" + g->name + "'");
  };
  auto expectArgs = [&](size_t n) {
    if (g->args.size() != n) {
      error(g->range, "'" + g->name + "' expects " + std::to_string(n) +
                          " arguments, got " + std::to_string(g->args.size()));
      return false;
    }
    return true;
  };
  if (g->name == "vec") {
    if (!expectArgs(2))
      return nullptr;
    const Type *e = typeArg(0, allowQuant);
    auto n = intArg(1);
    if (!e || !n)
      return nullptr;
    if (*n < 1 || *n > 64) {
      error(g->args[1].value ? g->args[1].value->range : g->range,
            "vector size must be between 1 and 64, got " + std::to_string(*n));
      return nullptr;
    }
    return types->getVector(e, unsigned(*n));
  }
  if (g->name == "mat") {
    if (!expectArgs(3))
      return nullptr;
    const Type *e = typeArg(0, allowQuant);
    auto r = intArg(1), c = intArg(2);
    if (!e || !r || !c)
      return nullptr;
    if (*r < 1 || *r > 32 || *c < 1 || *c > 32) {
      error(g->range, "matrix dimensions must be between 1 and 32");
      return nullptr;
    }
    return types->getMatrix(e, unsigned(*r), unsigned(*c));
  }
  if (g->name == "ndarray") {
    if (!expectArgs(2))
      return nullptr;
    const Type *e = typeArg(0, false);
    auto n = intArg(1);
    if (!e || !n)
      return nullptr;
    if (*n < 1 || *n > 8) {
      error(g->range, "ndarray dimension must be between 1 and 8, got " +
                          std::to_string(*n));
      return nullptr;
    }
    return types->getNDArray(e, unsigned(*n));
  }
  error(g->range, "unknown generic type '" + g->name + "'");
  return nullptr;
}

const Type *Sema::resolveQuant(QuantTypeExpr &q) {
  if (q.nameSpace != "quant") {
    error(q.range, "unknown type '" + q.nameSpace + "." + q.quantKind + "'");
    return nullptr;
  }
  QuantType p;
  std::vector<std::string> allowed;
  if (q.quantKind == "int") {
    p.qkind = QuantType::QKind::Int;
    allowed = {"bits", "signed", "compute"};
  } else if (q.quantKind == "fixed") {
    p.qkind = QuantType::QKind::Fixed;
    allowed = {"bits", "max", "signed", "compute"};
  } else if (q.quantKind == "float") {
    p.qkind = QuantType::QKind::Float;
    allowed = {"exp", "frac", "signed", "compute"};
  } else {
    error(q.range, "unknown quantized type 'quant." + q.quantKind +
                       "' (expected quant.int, quant.fixed or quant.float)");
    return nullptr;
  }
  std::map<std::string, ast::Argument *> args;
  bool ok = true;
  for (auto &a : q.args) {
    if (a.name.empty()) {
      error(a.value->range,
            "arguments of 'quant." + q.quantKind + "' must be named");
      ok = false;
      continue;
    }
    if (std::find(allowed.begin(), allowed.end(), a.name) == allowed.end()) {
      error(a.nameRange,
            "unknown argument '" + a.name + "' of 'quant." + q.quantKind + "'");
      ok = false;
      continue;
    }
    if (args.count(a.name)) {
      error(a.nameRange, "argument '" + a.name + "' given twice");
      ok = false;
      continue;
    }
    args[a.name] = &a;
  }
  if (!ok)
    return nullptr;
  std::string qn = "quant." + q.quantKind;
  auto getInt = [&](const char *n, std::optional<int64_t> &out) {
    auto it = args.find(n);
    if (it == args.end())
      return true;
    out = evalIntArg(*it->second->value,
                     std::string("'") + n + "' of '" + qn + "'");
    return out.has_value();
  };
  std::optional<int64_t> bits, exp, frac;
  if (!getInt("bits", bits) || !getInt("exp", exp) || !getInt("frac", frac))
    return nullptr;
  p.isSigned = true;
  if (auto it = args.find("signed"); it != args.end()) {
    auto v = evalConst(*it->second->value, "'signed' of '" + qn + "'");
    if (!v)
      return nullptr;
    if (v->kind != ConstValue::Kind::Bool) {
      error(it->second->value->range,
            "'signed' of '" + qn + "' must be true or false");
      return nullptr;
    }
    p.isSigned = v->b;
  }
  const ScalarType *compute = nullptr;
  if (auto it = args.find("compute"); it != args.end()) {
    const Type *t = checkExpr(*it->second->value);
    auto *m = dynamic_cast<const MetaType *>(t);
    compute = m ? dynamic_cast<const ScalarType *>(m->type) : nullptr;
    if (!compute || compute->isBool()) {
      if (t)
        error(it->second->value->range,
              "'compute' of '" + qn + "' must be a scalar numeric type");
      return nullptr;
    }
  }
  if (p.qkind == QuantType::QKind::Int || p.qkind == QuantType::QKind::Fixed) {
    if (!bits) {
      error(q.range, "'" + qn + "' requires 'bits'");
      return nullptr;
    }
    if (*bits < 1 || *bits > 64) {
      error(args["bits"]->value->range, "'bits' of '" + qn +
                                            "' must be between 1 and 64, got " +
                                            std::to_string(*bits));
      return nullptr;
    }
    p.bits = unsigned(*bits);
  }
  if (p.qkind == QuantType::QKind::Int) {
    // Unsigned ints compute in u32 by default, as in Taichi.
    if (!compute)
      compute = types->getInt(32, p.isSigned);
    if (!compute->isInt()) {
      error(args["compute"]->value->range,
            "compute type of 'quant.int' must be an integer type");
      return nullptr;
    }
  } else {
    if (!compute)
      compute = types->f32();
    if (!compute->isFloat()) {
      error(args["compute"]->value->range,
            "compute type of '" + qn + "' must be a float type");
      return nullptr;
    }
    // Encodings are defined on f32 bit patterns (quant.float) and in f32 or
    // f64 arithmetic (quant.fixed).
    if (p.qkind == QuantType::QKind::Float && compute->bits != 32) {
      error(args["compute"]->value->range,
            "compute type of 'quant.float' must be f32, got " + compute->str());
      return nullptr;
    }
    if (p.qkind == QuantType::QKind::Fixed && compute->bits < 32) {
      error(args["compute"]->value->range,
            "compute type of 'quant.fixed' must be f32 or f64, got " +
                compute->str());
      return nullptr;
    }
  }
  if (p.qkind == QuantType::QKind::Fixed) {
    auto it = args.find("max");
    if (it == args.end()) {
      error(q.range, "'quant.fixed' requires 'max'");
      return nullptr;
    }
    auto v = evalConst(*it->second->value, "'max' of 'quant.fixed'");
    if (!v)
      return nullptr;
    if (v->kind != ConstValue::Kind::Int &&
        v->kind != ConstValue::Kind::Float) {
      error(it->second->value->range,
            "'max' of 'quant.fixed' must be a number");
      return nullptr;
    }
    p.max = v->asDouble();
    if (!(p.max > 0) || std::isinf(p.max)) {
      error(it->second->value->range,
            "'max' of 'quant.fixed' must be positive");
      return nullptr;
    }
    p.scale =
        p.max / std::ldexp(1.0, p.isSigned ? int(p.bits) - 1 : int(p.bits));
  }
  if (p.qkind == QuantType::QKind::Float) {
    if (!exp || !frac) {
      error(q.range, "'quant.float' requires 'exp' and 'frac'");
      return nullptr;
    }
    if (*exp < 1 || *exp > 11) {
      error(args["exp"]->value->range,
            "'exp' of 'quant.float' must be between 1 and 11, got " +
                std::to_string(*exp));
      return nullptr;
    }
    if (*frac < 1 || *frac > 53) {
      error(args["frac"]->value->range,
            "'frac' of 'quant.float' must be between 1 and 53, got " +
                std::to_string(*frac));
      return nullptr;
    }
    p.exp = unsigned(*exp);
    p.frac = unsigned(*frac);
    p.bits = p.exp + p.frac;
    // The f32 encoding (docs/quant.md): 1 to 8 exponent bits, 1 to 23
    // digits under the sign bit.
    unsigned digits = p.frac - (p.isSigned ? 1 : 0);
    if (p.exp > 8 || digits < 1 || digits > 23) {
      error(q.range, "'" + qn +
                         "' needs 1 to 8 exponent bits and 1 to 23 "
                         "fraction digits" +
                         (p.isSigned ? " besides the sign bit" : "") +
                         " (f32 encoding), got exp: " + std::to_string(p.exp) +
                         ", frac: " + std::to_string(p.frac));
      return nullptr;
    }
    unsigned cexp = compute->bits == 16 ? 5 : compute->bits == 32 ? 8 : 11;
    unsigned cmant = compute->bits == 16 ? 11 : compute->bits == 32 ? 24 : 53;
    if (p.exp > cexp || p.frac > cmant) {
      error(q.range, "'" + qn + "' with exp: " + std::to_string(p.exp) +
                         ", frac: " + std::to_string(p.frac) +
                         " does not fit its compute type " + compute->str());
      return nullptr;
    }
  }
  if (p.bits > 64) {
    error(q.range, "quantized types are at most 64 bits wide, got " +
                       std::to_string(p.bits));
    return nullptr;
  }
  if (p.qkind != QuantType::QKind::Float && p.bits > compute->bits) {
    error(q.range, "storage width " + std::to_string(p.bits) + " of '" + qn +
                       "' is wider than its compute type " + compute->str());
    return nullptr;
  }
  p.compute = compute;
  return types->getQuant(p);
}

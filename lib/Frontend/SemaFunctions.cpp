//===- SemaFunctions.cpp - Kernels, instances, funcs, scopes -------------===//
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

static bool alwaysReturns(const Stmt &s);

//===----------------------------------------------------------------------===//
// Kernels, instances, funcs
//===----------------------------------------------------------------------===//

static bool isTemplateFn(const FunctionDecl &d) {
  for (auto &p : d.params)
    if (isa<TemplateTypeExpr>(p.type.get()))
      return true;
  return false;
}

void Sema::checkKernelDecl(const FunctionDecl &d) {
  auto it = globals.find(d.name.name);
  if (it == globals.end() || it->second.decl != &d)
    return;
  if (isTemplateFn(d))
    return; // checked per instance
  instantiate(d, {}, d.name.range, true, d.name.name);
}

std::optional<TemplateArg> Sema::templateArgFrom(ast::Expr &e,
                                                 const std::string &param) {
  const Type *t = checkExpr(e);
  if (!t)
    return std::nullopt;
  TemplateArg a;
  if (const FieldInfo *f = fieldOf(e)) {
    a.kind = TemplateArg::Kind::Field;
    a.field = f;
    return a;
  }
  if (t->kind() == Type::Kind::SNodeRef) {
    a.kind = TemplateArg::Kind::SNode;
    a.snode = snodeOf(e);
    if (a.snode)
      return a;
  }
  if (const ConstValue *v = constOf(e)) {
    a.kind = TemplateArg::Kind::Value;
    a.value = *v;
    return a;
  }
  error(e.range,
        "argument for template parameter '" + param +
            "' must be a compile-time value (a field, an SNode or a constant)");
  return std::nullopt;
}

void Sema::checkInstance(InstanceDecl &d) {
  auto self = globals.find(d.name.name);
  if (self == globals.end() || self->second.decl != &d)
    return;
  auto it = globals.find(d.kernel.name);
  if (it == globals.end()) {
    error(d.kernel.range, "unknown kernel '" + d.kernel.name + "'");
    return;
  }
  if (it->second.kind != GlobalEntry::Kind::Kernel) {
    error(d.kernel.range, "'" + d.kernel.name + "' is not a kernel");
    note(it->second.range, "'" + d.kernel.name + "' is declared here");
    return;
  }
  const FunctionDecl &k = *it->second.func;
  std::vector<const Param *> tparams;
  for (auto &p : k.params)
    if (isa<TemplateTypeExpr>(p.type.get()))
      tparams.push_back(&p);
  // Named arguments may also fix runtime parameters to compile-time values
  // (they leave the exported signature).
  std::map<std::string, TemplateArg> fixed;
  std::vector<Argument *> targArgs;
  for (auto &a : d.args) {
    bool runtimeParam = false;
    if (!a.name.empty())
      for (auto &p : k.params)
        if (p.name.name == a.name && !isa<TemplateTypeExpr>(p.type.get()))
          runtimeParam = true;
    if (!runtimeParam)
      continue;
    checkExpr(*a.value);
    const ConstValue *v = constOf(*a.value);
    if (!v) {
      error(a.value->range,
            "argument for parameter '" + a.name +
                "' of an instance must be a compile-time constant");
      return;
    }
    TemplateArg ta;
    ta.value = *v;
    fixed[a.name] = ta;
  }
  size_t nTemplateArgs = d.args.size() - fixed.size();
  if (tparams.empty()) {
    error(d.kernel.range,
          "kernel '" + d.kernel.name +
              "' has no template parameters; it is exported as is and "
              "needs no instance");
    note(k.name.range, "'" + d.kernel.name + "' is declared here");
    return;
  }
  if (nTemplateArgs != tparams.size()) {
    error(d.range, "instance of '" + d.kernel.name + "' expects " +
                       std::to_string(tparams.size()) + " template argument" +
                       (tparams.size() == 1 ? "" : "s") + ", got " +
                       std::to_string(nTemplateArgs));
    note(k.name.range, "'" + d.kernel.name + "' is declared here");
    return;
  }
  std::vector<TemplateArg> targs(tparams.size());
  std::vector<bool> set(tparams.size(), false);
  bool ok = true;
  size_t pos = 0;
  for (auto &a : d.args) {
    if (!a.name.empty() && fixed.count(a.name))
      continue;
    size_t idx = pos;
    if (!a.name.empty()) {
      idx = tparams.size();
      for (size_t i = 0; i < tparams.size(); ++i)
        if (tparams[i]->name.name == a.name)
          idx = i;
      if (idx == tparams.size()) {
        error(a.nameRange, "kernel '" + d.kernel.name +
                               "' has no template parameter named '" + a.name +
                               "'");
        ok = false;
        continue;
      }
    } else {
      ++pos;
    }
    if (idx >= tparams.size() || set[idx]) {
      error(a.value->range, "template parameter '" +
                                (idx < tparams.size() ? tparams[idx]->name.name
                                                      : std::string("?")) +
                                "' is bound twice");
      ok = false;
      continue;
    }
    auto ta = templateArgFrom(*a.value, tparams[idx]->name.name);
    if (!ta) {
      ok = false;
      continue;
    }
    set[idx] = true;
    targs[idx] = *ta;
  }
  if (!ok)
    return;
  fixedParams = &fixed;
  CheckedFunction *f = instantiate(k, targs, d.range, true, d.name.name);
  fixedParams = nullptr;
  if (f) {
    f->isInstance = true;
    f->name = d.name.name;
    f->nameRange = d.name.range;
    f->templateName = d.kernel.name;
  }
}

/// `(f32, vec3)`: the types bound to a func's inferred parameters, or "".
static std::string inferredSuffix(const std::vector<const Type *> &inferred) {
  if (inferred.empty())
    return "";
  std::string s = "(";
  for (size_t i = 0; i < inferred.size(); ++i)
    s += (i ? ", " : "") + (inferred[i] ? typeName(inferred[i]) : "?");
  return s + ")";
}

static std::string instKey(const FunctionDecl &d,
                           const std::vector<TemplateArg> &targs,
                           const std::vector<const Type *> &inferred) {
  std::string k =
      std::to_string(reinterpret_cast<uintptr_t>(&d)) + ":" + d.name.name + "<";
  for (size_t i = 0; i < targs.size(); ++i) {
    k += (i ? ", " : "");
    if (targs[i].kind == TemplateArg::Kind::Value)
      k += typeName(targs[i].value.type) + " ";
    k += targs[i].str();
  }
  return k + ">" + inferredSuffix(inferred);
}

static std::string instDisplay(const FunctionDecl &d,
                               const std::vector<TemplateArg> &targs,
                               const std::vector<const Type *> &inferred) {
  std::string k = d.name.name;
  if (!targs.empty()) {
    k += "<";
    for (size_t i = 0; i < targs.size(); ++i)
      k += (i ? ", " : "") + targs[i].str();
    k += ">";
  }
  return k + inferredSuffix(inferred);
}

CheckedFunction *Sema::instantiate(const FunctionDecl &d,
                                   std::vector<TemplateArg> targs,
                                   SourceRange callRange, bool isKernel,
                                   const std::string &exportName,
                                   std::vector<const Type *> inferred) {
  std::string key = instKey(d, targs, inferred);
  std::string display = instDisplay(d, targs, inferred);
  if (!isKernel) {
    auto it = funcInstances.find(key);
    if (it != funcInstances.end())
      return it->second;
    if (instFailed.count(key))
      return nullptr;
    for (auto &fr : instStack) {
      if (fr.key == key) {
        error(callRange,
              "func '" + d.name.name +
                  "' calls itself with the same template arguments; funcs are "
                  "inlined, so recursion must end at compile time");
        note(d.name.range, "'" + display + "' is declared here");
        return nullptr;
      }
    }
    if (instStack.size() >= opts.maxRecursionDepth) {
      error(callRange,
            "recursion depth limit (" + std::to_string(opts.maxRecursionDepth) +
                ") exceeded while instantiating func '" + d.name.name + "'");
      // The call chain: the outermost frames and the innermost ones.
      size_t n = instStack.size();
      for (size_t i = 0; i < n; ++i) {
        if (n > 6 && i == 3) {
          diags.note(SourceRange(),
                     "(" + std::to_string(n - 6) + " more instantiations)");
          i = n - 3;
        }
        note(instStack[i].callRange, "in instantiation of '" +
                                         instStack[i].display +
                                         "' requested here");
      }
      recursionAborted = true;
      return nullptr;
    }
  }
  auto fn = std::make_unique<CheckedFunction>();
  CheckedFunction *f = fn.get();
  f->name = d.name.name;
  f->isKernel = isKernel;
  f->decl = &d;
  f->templateArgs = targs;
  f->exportName = isKernel ? exportName : display;
  for (auto &a : d.attrs) {
    if (!isKernel)
      break;
    if (a.name.name == "no_grad") {
      if (!a.args.empty())
        error(a.range, "'@no_grad' takes no arguments");
      f->noGrad = true;
    } else if (a.name.name == "grad_of") {
      if (a.args.size() != 1 || !isa<NameExpr>(a.args[0].value.get()))
        error(a.range, "'@grad_of' expects one kernel name");
      else
        f->gradOf = cast<NameExpr>(a.args[0].value.get())->name;
    } else {
      error(a.name.range, "unknown attribute '@" + a.name.name + "'");
    }
  }
  FnState state;
  state.fn = f;
  state.isKernel = isKernel;
  FnState *saved = st;
  st = &state;
  instStack.push_back({key, display, callRange});
  pushScope();
  size_t ti = 0, ii = 0;
  bool ok = true;
  std::map<std::string, SourceRange> seenParams;
  for (auto &p : d.params) {
    CheckedFunction::Param cp;
    cp.name = p.name.name;
    cp.range = p.name.range;
    auto dup = seenParams.find(p.name.name);
    if (dup != seenParams.end()) {
      redefinition(p.name.name, p.name.range, dup->second);
      ok = false;
    }
    seenParams[p.name.name] = p.name.range;
    const Type *t = nullptr;
    if (!isKernel && isa<InferredTypeExpr>(p.type.get())) {
      // `func f(a)`: the type of this call's argument.
      t = ii < inferred.size() ? inferred[ii] : nullptr;
      ++ii;
      if (t && !t->isValueType()) {
        error(callRange, "func parameter '" + p.name.name +
                             "' takes its type from the argument, which must "
                             "be a value (a number, vector, matrix or struct), "
                             "got '" +
                             typeName(t) + "'");
        note(p.name.range, "'" + p.name.name +
                               "' is declared here; declare it '" +
                               p.name.name +
                               ": template' to pass a field, an "
                               "SNode or an ndarray");
        t = nullptr;
      }
    } else {
      t = resolveType(*p.type, false, true);
    }
    if (!t) {
      ok = false;
      f->params.push_back(cp);
      continue;
    }
    cp.type = t;
    if (t->kind() == Type::Kind::Template) {
      cp.isTemplate = true;
      if (ti < targs.size()) {
        cp.bound = targs[ti];
        LocalBinding b;
        b.range = p.name.range;
        switch (targs[ti].kind) {
        case TemplateArg::Kind::Field:
          b.kind = LocalBinding::Kind::Field;
          b.field = targs[ti].field;
          break;
        case TemplateArg::Kind::SNode:
          b.kind = LocalBinding::Kind::SNode;
          b.snode = targs[ti].snode;
          break;
        case TemplateArg::Kind::Value:
          b.kind = LocalBinding::Kind::Value;
          b.value = targs[ti].value;
          break;
        }
        bind(p.name.name, b);
      }
      ++ti;
    } else if (fixedParams && fixedParams->count(p.name.name)) {
      // Runtime parameter fixed by an instance: a compile-time value.
      TemplateArg ta = fixedParams->at(p.name.name);
      const Type *vt = ta.value.type;
      if (!t->isScalar() && !t->isTensor()) {
        error(p.type->range, "parameter '" + p.name.name + "' of type '" +
                                 typeName(t) +
                                 "' cannot be fixed by an instance");
        ok = false;
      } else if (vt && elementType(vt) && !vt->isStruct() &&
                 (vt->isTensor() == t->isTensor())) {
        ta.value = convertConst(ta.value, t, *types);
        cp.isTemplate = true;
        cp.bound = ta;
        LocalBinding b;
        b.kind = LocalBinding::Kind::Value;
        b.value = ta.value;
        b.range = p.name.range;
        bind(p.name.name, b);
      } else {
        error(callRange, "cannot convert '" + typeName(vt) + "' to '" +
                             typeName(t) + "' for parameter '" + p.name.name +
                             "'");
        ok = false;
      }
    } else {
      bool valid = t->isScalar() || t->isTensor() ||
                   (isKernel && t->kind() == Type::Kind::NDArray) ||
                   (!isKernel && t->isStruct());
      if (!valid) {
        error(p.type->range, std::string(isKernel ? "kernel" : "func") +
                                 " parameter '" + p.name.name +
                                 "' cannot have type '" + typeName(t) + "'");
        ok = false;
      }
      cp.var = declareLocal(p.name, LocalVar::Kind::Param, t);
    }
    f->params.push_back(cp);
  }
  f->returnType = types->getVoid();
  bool inferReturn =
      !isKernel && d.returnType && isa<TemplateTypeExpr>(d.returnType.get());
  if (inferReturn) {
    // `func f(...) -> template`: the type of the first `return e` (one per
    // instantiation, so generic funcs return what their arguments give).
    f->returnType = nullptr;
    st->inferReturn = true;
  } else if (d.returnType) {
    const Type *rt = resolveType(*d.returnType, false, false);
    if (rt &&
        (isKernel ? !(rt->isScalar() || rt->isTensor()) : !rt->isValueType())) {
      error(d.returnType->range,
            std::string(isKernel ? "kernel" : "func") +
                " return type must be a " +
                (isKernel ? "scalar, vector or matrix" : "value type") +
                ", got '" + typeName(rt) + "'");
      rt = nullptr;
    }
    if (!rt)
      ok = false;
    else
      f->returnType = rt;
  }
  if (ok && d.body) {
    StmtPtr bodyClone = clone(*d.body);
    auto *blk = cast<BlockStmt>(bodyClone.get());
    f->body = std::make_unique<BlockStmt>(blk->range);
    // bit_vectorize(N) must be a kernel's first statement.
    checkBlockInto(*blk, f->body->body, false);
    if (!f->returnType)
      f->returnType = types->getVoid(); // inferred, and no value returned
    if (!f->returnType->isVoid() && !alwaysReturns(*f->body)) {
      error(d.name.range, std::string(isKernel ? "kernel" : "func") + " '" +
                              d.name.name + "' must return a value of type '" +
                              typeName(f->returnType) + "' on every path");
      SourceRange end(blk->range.end);
      if (end.begin.col > 1)
        --end.begin.col; // the closing brace
      note(end, "control can reach the end of the body here");
      ok = false;
    }
  }
  popScope();
  instStack.pop_back();
  st = saved;
  if (!ok || !f->body) {
    if (!isKernel)
      instFailed.insert(key);
    return nullptr;
  }
  if (isKernel) {
    mod->kernels.push_back(std::move(fn));
  } else {
    funcInstances[key] = f;
    mod->funcs.push_back(std::move(fn));
  }
  return f;
}

/// True when every path through `s` ends in a `return` (loops are assumed to
/// be left; `if` needs both branches to return).
static bool alwaysReturns(const Stmt &s) {
  switch (s.kind) {
  case Stmt::Return:
    return true;
  case Stmt::Block:
    for (const StmtPtr &x : cast<BlockStmt>(&s)->body)
      if (alwaysReturns(*x))
        return true;
    return false;
  case Stmt::If: {
    auto *i = cast<IfStmt>(&s);
    return i->elseBody && alwaysReturns(*i->thenBody) &&
           alwaysReturns(*i->elseBody);
  }
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

void Sema::bind(const std::string &name, LocalBinding b) {
  auto &scope = st->scopes.back();
  auto it = scope.find(name);
  if (it != scope.end()) {
    redefinition(name, b.range, it->second.range);
    return;
  }
  scope[name] = b;
}

const LocalBinding *Sema::lookupLocal(const std::string &name) const {
  for (auto it = st->scopes.rbegin(); it != st->scopes.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end())
      return &f->second;
  }
  return nullptr;
}

LocalVar *Sema::declareLocal(const Ident &id, LocalVar::Kind k, const Type *t) {
  auto v = std::make_unique<LocalVar>();
  v->kind = k;
  v->name = id.name;
  v->type = t;
  v->range = id.range;
  v->id = st->nextLocalId++;
  v->isKernelScope = st->isKernel && st->nonTopDepth == 0 && st->loops.empty();
  LocalVar *p = v.get();
  if (st->fn)
    st->fn->locals.push_back(std::move(v));
  else
    orphanLocals.push_back(std::move(v));
  LocalBinding b;
  b.kind = LocalBinding::Kind::Local;
  b.local = p;
  b.range = id.range;
  bind(id.name, b);
  return p;
}

//===- Sema.cpp - The driver, globals and declarations
//---------------------===//
//
// See docs/semantics.md for the rules implemented here.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace tic;
using namespace tic::sema;
using namespace tic::ast;

std::string sema::typeName(const Type *t) { return t ? t->str() : "<error>"; }

std::string sema::axisName(Axis a) {
  static const char *names = "ijkl";
  return a < kMaxAxes ? std::string(1, names[a]) : "?";
}

std::string TemplateArg::str() const {
  switch (kind) {
  case Kind::Field: return field ? field->name : "?";
  case Kind::SNode:
    return snode ? (snode->letName.empty() ? "snode#" + std::to_string(snode->id)
                                           : snode->letName)
                 : "?";
  case Kind::Value: return value.str();
  }
  return "?";
}

std::vector<const CheckedFunction::Param *> CheckedFunction::runtimeParams() const {
  std::vector<const Param *> r;
  for (auto &p : params)
    if (!p.isTemplate)
      r.push_back(&p);
  return r;
}

CheckedModule::CheckedModule() : types(std::make_unique<TypeContext>()) {}
CheckedModule::~CheckedModule() = default;

const FieldInfo *CheckedModule::findField(const std::string &n) const {
  for (auto &f : fields)
    if (f->name == n)
      return f.get();
  return nullptr;
}
const ConstantInfo *CheckedModule::findConstant(const std::string &n) const {
  for (auto &c : constants)
    if (c->name == n)
      return c.get();
  return nullptr;
}
const CheckedFunction *CheckedModule::findKernel(const std::string &n) const {
  for (auto &k : kernels)
    if (k->exportName == n)
      return k.get();
  return nullptr;
}

const char *sema::builtinName(Builtin b) {
  static const char *names[] = {
      "sin",
      "cos",
      "tan",
      "asin",
      "acos",
      "atan2",
      "tanh",
      "exp",
      "log",
      "sqrt",
      "rsqrt",
      "pow",
      "abs",
      "floor",
      "ceil",
      "round",
      "min",
      "max",
      "clamp",
      "select",
      "random",
      "dot",
      "cross",
      "norm",
      "norm_sqr",
      "normalized",
      "outer_product",
      "transpose",
      "determinant",
      "inverse",
      "trace",
      "svd",
      "polar_decompose",
      "sym_eig",
      "atomic_add",
      "atomic_sub",
      "atomic_min",
      "atomic_max",
      "atomic_and",
      "atomic_or",
      "atomic_xor",
      "activate",
      "deactivate",
      "is_active",
      "append",
      "length",
      "deactivate",
      "rescale_index",
      "block_local",
      "assume_in_range",
      "loop_config",
      "bit_vectorize",
      "print",
      "assert",
      "range",
      "ndrange",
      "grouped",
      "len",
      "norm_inv",
      "zero",
      "identity",
      "sum",
      "any",
      "all",
  };
  size_t i = size_t(b);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

std::unique_ptr<CheckedModule> sema::analyze(ast::Program &program,
                                             DiagnosticEngine &diags,
                                             const SemaOptions &options) {
  Sema s(program, diags, options);
  return s.run();
}

Sema::Sema(ast::Program &p, DiagnosticEngine &d, const SemaOptions &o)
    : program(p), diags(d), opts(o) {}

void Sema::redefinition(const std::string &name, SourceRange r, SourceRange prev) {
  error(r, "redefinition of '" + name + "'");
  note(prev, "previous definition is here");
}

void Sema::error(SourceRange r, const std::string &m) {
  auto key = std::make_pair(r.begin.offset, m);
  if (r.isValid() && reported.count(key)) {
    suppressNotes = true;
    return;
  }
  reported.insert(key);
  suppressNotes = false;
  diags.error(r, m);
}

void Sema::note(SourceRange r, const std::string &m) {
  if (!suppressNotes)
    diags.note(r, m);
}

void Sema::warning(SourceRange r, const std::string &m) {
  auto key = std::make_pair(r.begin.offset, "w:" + m);
  if (r.isValid() && reported.count(key))
    return;
  reported.insert(key);
  diags.warning(r, m);
}

void Sema::checkModuleOptions() {
  std::map<std::string, SourceRange> seen;
  for (auto &o : program.moduleOptions) {
    auto [it, fresh] = seen.emplace(o.name.name, o.name.range);
    if (!fresh) {
      error(o.name.range, "module option '" + o.name.name + "' is given twice");
      note(it->second, "first given here");
      continue;
    }
    if (o.name.name != "default_fp") {
      error(o.name.range, "unknown module option '" + o.name.name +
                              "' (the module options are: default_fp)");
      continue;
    }
    const Type *t = resolveType(*o.value, false, false);
    if (!t)
      continue;
    if (!t->isScalar() || !static_cast<const ScalarType *>(t)->isFloat()) {
      error(o.value->range,
            "default_fp must be f16, f32 or f64, got '" + typeName(t) + "'");
      continue;
    }
    defaultFloat = static_cast<const ScalarType *>(t);
  }
}

std::unique_ptr<CheckedModule> Sema::run() {
  mod = std::make_unique<CheckedModule>();
  types = mod->types.get();
  st = &globalState;
  mod->name = program.moduleName.name.empty() ? opts.moduleStem
                                              : program.moduleName.name;
  defaultFloat = types->f32();
  checkModuleOptions();
  if (!opts.defaultFloat.empty()) {
    if (opts.defaultFloat != "f32" && opts.defaultFloat != "f64" &&
        opts.defaultFloat != "f16")
      error(SourceRange(),
            "invalid default float type '" + opts.defaultFloat + "'");
    defaultFloat = opts.defaultFloat == "f64"   ? types->getFloat(64)
                   : opts.defaultFloat == "f16" ? types->getFloat(16)
                                                : types->f32();
  }
  mod->defaultFloat = defaultFloat->str();

  auto *f32 = types->f32();
  auto *i32 = types->i32();
  for (unsigned n = 2; n <= 4; ++n) {
    builtinTypes["vec" + std::to_string(n)] = types->getVector(f32, n);
    builtinTypes["ivec" + std::to_string(n)] = types->getVector(i32, n);
    builtinTypes["mat" + std::to_string(n)] = types->getMatrix(f32, n, n);
  }
  for (unsigned i = 0; i <= unsigned(Builtin::LastBuiltin); ++i) {
    auto b = Builtin(i);
    if (b == Builtin::Append || b == Builtin::Length || b == Builtin::DeactivateCell)
      continue; // methods only
    builtinFuncs[builtinName(b)] = b;
  }
  builtinFuncs["atan"] = Builtin::Atan2; // not in the spec; atan(y, x) alias? no
  builtinFuncs.erase("atan");

  auto root = std::make_unique<SNode>();
  root->kind = SNode::Kind::Root;
  mod->root = std::move(root);

  collectGlobals();
  if (diags.limitReached())
    return nullptr;
  buildLayout();
  finishLayout();

  // Kernels, instances and non-template funcs in declaration order.
  for (auto &d : program.decls) {
    if (diags.limitReached())
      break;
    if (auto *fd = dyn_cast<FunctionDecl>(d.get())) {
      if (fd->isKernel) {
        checkKernelDecl(*fd);
      } else {
        bool isTemplate = false;
        for (auto &p : fd->params)
          isTemplate |= isa<TemplateTypeExpr>(p.type.get()) ||
                        isa<InferredTypeExpr>(p.type.get());
        for (auto &a : fd->attrs)
          error(a.range, "attribute '@" + a.name.name + "' is only allowed on kernels");
        if (!isTemplate)
          instantiate(*fd, {}, fd->name.range, false, "");
      }
    } else if (auto *id = dyn_cast<InstanceDecl>(d.get())) {
      checkInstance(*id);
    }
  }
  // @grad_of(k) targets.
  for (auto &k : mod->kernels) {
    if (k->gradOf.empty())
      continue;
    for (auto &o : mod->kernels)
      if (o->exportName == k->gradOf)
        k->gradOfKernel = o.get();
    if (!k->gradOfKernel) {
      SourceRange r = k->decl ? k->decl->name.range : SourceRange();
      if (k->decl)
        for (auto &a : k->decl->attrs)
          if (a.name.name == "grad_of")
            r = a.range;
      error(r, "@grad_of names unknown kernel '" + k->gradOf + "'");
    }
  }
  // Which kernels get adjoints (spec section 8): a custom gradient replaces
  // the generated one; it takes the parameters of its kernel.
  std::map<const CheckedFunction *, const CheckedFunction *> customOf;
  for (auto &k : mod->kernels) {
    const CheckedFunction *t = k->gradOfKernel;
    if (!t)
      continue;
    SourceRange r = k->decl ? k->decl->name.range : SourceRange();
    if (t == k.get()) {
      error(r, "@grad_of: kernel '" + k->name + "' cannot be its own gradient");
      continue;
    }
    if (!t->gradOf.empty()) {
      error(r, "@grad_of: '" + t->name + "' is itself a custom gradient");
      continue;
    }
    auto [it, fresh] = customOf.emplace(t, k.get());
    if (!fresh) {
      error(r, "kernel '" + t->name + "' already has the custom gradient '" +
                   it->second->name + "'");
      continue;
    }
    std::vector<const CheckedFunction::Param *> a = k->runtimeParams(),
                                                b = t->runtimeParams();
    bool same = a.size() == b.size();
    for (size_t i = 0; same && i < a.size(); ++i)
      same = a[i]->type == b[i]->type;
    if (!same) {
      std::string sig;
      for (size_t i = 0; i < b.size(); ++i)
        sig += (i ? ", " : "") + typeName(b[i]->type);
      error(r, "the custom gradient '" + k->name +
                   "' must take the runtime "
                   "parameters of '" +
                   t->name + "' (" + sig + ")");
    }
  }
  for (auto &k : mod->kernels) {
    k->differentiable = !k->noGrad && k->gradOf.empty() &&
                        !customOf.count(k.get()) &&
                        accessesDifferentiableField(*k, /*dual=*/false);
    k->hasAdjoint = k->differentiable || customOf.count(k.get());
    k->forwardDifferentiable = !k->noGrad && k->gradOf.empty() &&
                               accessesDifferentiableField(*k, /*dual=*/true);
  }
  if (!diags.hasErrors() && opts.checkCNames)
    checkCNames();
  if (diags.hasErrors())
    return nullptr;
  return std::move(mod);
}

//===----------------------------------------------------------------------===//
// Globals
//===----------------------------------------------------------------------===//

/// Whether `f` (or a func it calls) indexes a primal field declared
/// needs_grad.
static bool
accessesDifferentiableField(const CheckedFunction &f, bool dual,
                            std::set<const CheckedFunction *> &seen) {
  if (!f.body || !seen.insert(&f).second)
    return false;
  bool found = false;
  auto visitExpr = [&](const Expr *e) {
    forEachExpr(e, [&](const Expr *x) {
      if (auto *ix = dyn_cast<IndexExpr>(x)) {
        if (ix->indexKind == IndexExpr::IndexKind::Field && ix->field &&
            !ix->field->primal &&
            (dual ? ix->field->needsDual : ix->field->needsGrad))
          found = true;
      } else if (auto *c = dyn_cast<CallExpr>(x)) {
        if (c->callKind == CallExpr::CallKind::Func && c->func &&
            accessesDifferentiableField(*c->func, dual, seen))
          found = true;
      }
    });
  };
  forEachStmt(f.body.get(), [&](const Stmt *s) {
    switch (s->kind) {
    case Stmt::Kind::Let:
      visitExpr(static_cast<const LetStmt *>(s)->init.get());
      break;
    case Stmt::Kind::Var:
      visitExpr(static_cast<const VarStmt *>(s)->init.get());
      break;
    case Stmt::Kind::If:
      visitExpr(static_cast<const IfStmt *>(s)->cond.get());
      break;
    case Stmt::Kind::While:
      visitExpr(static_cast<const WhileStmt *>(s)->cond.get());
      break;
    case Stmt::Kind::For:
      visitExpr(static_cast<const ForStmt *>(s)->iterable.get());
      break;
    case Stmt::Kind::Return:
      visitExpr(static_cast<const ReturnStmt *>(s)->value.get());
      break;
    case Stmt::Kind::Assign: {
      auto *a = static_cast<const AssignStmt *>(s);
      visitExpr(a->target.get());
      visitExpr(a->value.get());
      break;
    }
    case Stmt::Kind::ExprStmt:
      visitExpr(static_cast<const ExprStmt *>(s)->expr.get());
      break;
    default:
      break;
    }
  });
  return found;
}

bool Sema::accessesDifferentiableField(const CheckedFunction &f, bool dual) {
  std::set<const CheckedFunction *> seen;
  return ::accessesDifferentiableField(f, dual, seen);
}

void Sema::collectGlobals() {
  auto add = [&](const std::string &name, SourceRange r, GlobalEntry e) -> GlobalEntry * {
    if (isReservedName(name)) {
      error(r, "'" + name + "' is reserved and cannot be redefined");
      return nullptr;
    }
    auto it = globals.find(name);
    if (it != globals.end()) {
      redefinition(name, r, it->second.range);
      return nullptr;
    }
    e.range = r;
    return &globals.emplace(name, e).first->second;
  };
  // Pass 1: names.
  for (auto &d : program.decls) {
    GlobalEntry e;
    e.decl = d.get();
    if (auto *c = dyn_cast<ConstDecl>(d.get())) {
      e.kind = GlobalEntry::Kind::Const;
      add(c->name.name, c->name.range, e);
    } else if (auto *t = dyn_cast<TypeAliasDecl>(d.get())) {
      e.kind = GlobalEntry::Kind::TypeAlias;
      add(t->name.name, t->name.range, e);
    } else if (auto *s = dyn_cast<StructDecl>(d.get())) {
      e.kind = GlobalEntry::Kind::Struct;
      add(s->name.name, s->name.range, e);
    } else if (auto *f = dyn_cast<FieldDecl>(d.get())) {
      e.kind = GlobalEntry::Kind::Field;
      for (auto &n : f->names)
        add(n.name, n.range, e);
    } else if (auto *fn = dyn_cast<FunctionDecl>(d.get())) {
      e.kind = fn->isKernel ? GlobalEntry::Kind::Kernel : GlobalEntry::Kind::Func;
      e.func = fn;
      add(fn->name.name, fn->name.range, e);
    } else if (auto *in = dyn_cast<InstanceDecl>(d.get())) {
      e.kind = GlobalEntry::Kind::Instance;
      add(in->name.name, in->name.range, e);
    }
  }
  // -D names must be constants.
  for (auto &def : opts.defines) {
    auto it = globals.find(def.first);
    if (it == globals.end())
      error(SourceRange(), "-D " + def.first + "=" + def.second +
                               ": no constant named '" + def.first + "'");
    else if (it->second.kind != GlobalEntry::Kind::Const)
      error(SourceRange(), "-D " + def.first + "=" + def.second + ": '" +
                               def.first + "' is not a constant");
  }
  // Pass 2: constants, types, fields, static asserts in order.
  for (auto &d : program.decls) {
    if (diags.limitReached())
      return;
    if (auto *c = dyn_cast<ConstDecl>(d.get()))
      checkConstant(*c);
    else if (auto *t = dyn_cast<TypeAliasDecl>(d.get()))
      checkTypeAlias(*t);
    else if (auto *s = dyn_cast<StructDecl>(d.get()))
      checkStruct(*s);
    else if (auto *f = dyn_cast<FieldDecl>(d.get()))
      checkFieldDecl(*f);
    else if (auto *sa = dyn_cast<StaticAssertDecl>(d.get()))
      checkStaticAssert(*sa->cond, sa->message, sa->range);
  }
}

std::optional<ConstValue> Sema::evalConst(ast::Expr &e, const std::string &what) {
  const Type *t = checkExpr(e);
  if (!t)
    return std::nullopt;
  const ConstValue *v = constOf(e);
  if (!v) {
    error(e.range, what + " is not a compile-time constant");
    return std::nullopt;
  }
  return *v;
}

std::optional<int64_t> Sema::evalIntArg(ast::Expr &e, const std::string &what) {
  auto v = evalConst(e, what);
  if (!v)
    return std::nullopt;
  if (v->kind != ConstValue::Kind::Int) {
    error(e.range, what + " must be an integer, got '" + typeName(v->type) + "'");
    return std::nullopt;
  }
  return v->i;
}

void Sema::checkConstant(ConstDecl &d) {
  auto it = globals.find(d.name.name);
  if (it == globals.end() || it->second.decl != &d)
    return; // a redefinition, already reported
  const Type *declT = nullptr;
  if (d.declType) {
    declT = resolveType(*d.declType, false, false);
    if (!declT) {
      it->second.visited = true;
      return;
    }
    if (!declT->isScalar() && !declT->isTensor()) {
      error(d.declType->range, "constant '" + d.name.name +
                                   "' must have a scalar, vector or matrix type");
      return;
    }
  }
  auto v = evalConst(*d.value, "initializer of constant '" + d.name.name + "'");
  it->second.visited = true;
  if (!v)
    return;
  const Type *t = declT ? declT : v->type;
  if (!t || !(t->isScalar() || t->isTensor())) {
    error(d.value->range, "constant '" + d.name.name + "' must be a number, bool, "
                          "vector or matrix, got '" + typeName(t) + "'");
    return;
  }
  if (declT && !checkConvertible(v->type, declT, *d.value,
                                 "initializing constant '" + d.name.name + "'"))
    return;
  auto info = std::make_unique<ConstantInfo>();
  info->name = d.name.name;
  info->type = t;
  // An untyped constant (`const dt = 1e-4;`) keeps its exact value, rounded
  // where it is used; a typed one (`const c: f32 = 0.1;`) is rounded now.
  if (declT) {
    std::string w = conversionWarning(*v, t);
    if (!w.empty())
      warning(d.value->range, w);
  }
  info->value = declT ? convertConst(*v, t, *types) : *v;
  info->range = d.name.range;
  for (auto &def : opts.defines) {
    if (def.first != d.name.name)
      continue;
    info->overridden = true;
    info->overrideText = def.second;
    std::string head = "-D " + def.first + "=" + def.second + ": ";
    auto pv = parseDefineValue(def.second, *types, defaultFloat);
    if (!pv) {
      error(SourceRange(), head + "invalid value '" + def.second + "' for constant '" +
                               def.first + "' of type " + typeName(t));
      continue;
    }
    if (!t->isScalar()) {
      error(SourceRange(), head + "constant '" + def.first + "' of type " +
                               typeName(t) + " cannot be overridden");
      continue;
    }
    auto *st = static_cast<const ScalarType *>(t);
    if (st->isBool() != (pv->kind == ConstValue::Kind::Bool) ||
        (st->isInt() && pv->kind == ConstValue::Kind::Float)) {
      error(SourceRange(), head + "invalid value '" + def.second + "' for constant '" +
                               def.first + "' of type " + typeName(t));
      continue;
    }
    ConstValue cv = convertConst(*pv, t, *types, /*keepExact=*/!declT);
    if (st->isInt() && pv->kind == ConstValue::Kind::Int &&
        (cv.i != pv->i || (pv->i < 0 && !st->isSigned))) {
      error(SourceRange(), head + "value " + def.second + " is out of range for constant '" +
                               def.first + "' of type " + typeName(t));
      continue;
    }
    info->value = cv;
  }
  it->second.constant = info.get();
  mod->constants.push_back(std::move(info));
}

// Type aliases and structs may be used before their declaration: a use
// checks the declaration on demand (resolveType), and a declaration that
// depends on itself is a cycle error at the use that closes it.
void Sema::checkTypeAlias(TypeAliasDecl &d) {
  auto it = globals.find(d.name.name);
  if (it == globals.end() || it->second.decl != &d || it->second.visited)
    return;
  it->second.visited = it->second.resolving = true;
  typeStack.push_back(d.name.name);
  const Type *t = resolveType(*d.aliased, true, false);
  typeStack.pop_back();
  it->second.resolving = false;
  it->second.type = t;
}

void Sema::checkStruct(StructDecl &d) {
  auto it = globals.find(d.name.name);
  if (it == globals.end() || it->second.decl != &d || it->second.visited)
    return;
  it->second.visited = it->second.resolving = true;
  typeStack.push_back(d.name.name);
  struct Done {
    GlobalEntry &e;
    std::vector<std::string> &stack;
    ~Done() {
      e.resolving = false;
      stack.pop_back();
    }
  } done{it->second, typeStack};
  StructType *s = types->createStruct(d.name.name, d.name.range);
  std::map<std::string, SourceRange> seen;
  for (auto &m : d.members) {
    auto p = seen.find(m.name.name);
    if (p != seen.end()) {
      error(m.name.range, "duplicate member '" + m.name.name + "' in struct '" +
                              d.name.name + "'");
      note(p->second, "previous definition is here");
      continue;
    }
    seen[m.name.name] = m.name.range;
    const Type *t = resolveType(*m.type, false, false);
    if (!t)
      continue;
    if (!t->isValueType()) {
      error(m.type->range, "struct member '" + m.name.name + "' must have a value type, got '" +
                               typeName(t) + "'");
      continue;
    }
    s->members.push_back({m.name.name, t, m.name.range});
  }
  if (d.members.empty())
    error(d.name.range, "struct '" + d.name.name + "' has no members");
  it->second.type = s;
  mod->structs.push_back(s);
}

void Sema::checkFieldDecl(FieldDecl &d) {
  const Type *t = resolveType(*d.elemType, true, false);
  if (t && !(t->isScalar() || t->isTensor() || t->isQuant() || t->isStruct())) {
    error(d.elemType->range, "field element type must be a scalar, vector, matrix, "
                             "struct or quantized type, got '" + typeName(t) + "'");
    t = nullptr;
  }
  bool isQuant = t && (t->isQuant() || (elementType(t) && t->isTensor() &&
                                        (static_cast<const VectorType *>(t)->isVector()
                                             ? static_cast<const VectorType *>(t)->elem->isQuant()
                                             : static_cast<const MatrixType *>(t)->elem->isQuant())));
  // A quantized field is differentiated through its compute type: its
  // adjoint and tangent hold compute-type values (docs/autodiff.md).
  const Type *companionType = isQuant ? computeType(*types, t) : t;
  if (isQuant && d.needsGrad && companionType &&
      !elementType(companionType)->isFloat())
    error(d.range, "needs_grad on a quantized integer field: only quant.fixed "
                   "and quant.float (float compute types) are differentiable");
  std::vector<int64_t> shape;
  bool shapeOk = true;
  if (d.hasShape) {
    // Each extent is an integer constant; a compile-time integer vector (a
    // list constant: `const res = [640, 320]; field c: vec3[res];`) stands
    // for its components, as in Taichi's shape=res.
    for (auto &e : d.shape) {
      auto v = evalConst(*e, "field shape");
      if (!v) {
        shapeOk = false;
        continue;
      }
      std::vector<ConstValue> parts = v->kind == ConstValue::Kind::Aggregate
                                          ? v->elems
                                          : std::vector<ConstValue>{*v};
      for (const ConstValue &p : parts) {
        if (p.kind != ConstValue::Kind::Int) {
          error(e->range,
                "field shape must be an integer or a list of integers, got '" +
                    typeName(v->type) + "'");
          shapeOk = false;
          break;
        }
        if (p.i <= 0) {
          error(e->range,
                "field shape must be positive, got " + std::to_string(p.i));
          shapeOk = false;
        }
        shape.push_back(p.i);
      }
    }
    if (shape.size() > kMaxAxes) {
      error(d.shapeRange, "fields have at most " + std::to_string(kMaxAxes) +
                              " dimensions, got " + std::to_string(shape.size()));
      shapeOk = false;
    }
  }
  for (auto &n : d.names) {
    auto it = globals.find(n.name);
    if (it == globals.end() || it->second.decl != &d || it->second.range.begin.offset != n.range.begin.offset)
      continue;
    if (!t)
      continue;
    auto f = std::make_unique<FieldInfo>();
    f->name = n.name;
    f->elemType = t;
    f->needsGrad = d.needsGrad;
    f->needsDual = d.needsDual;
    f->range = n.range;
    f->shorthand = d.hasShape;
    FieldInfo *fp = f.get();
    it->second.field = fp;
    f->id = mod->fields.size();
    mod->fields.push_back(std::move(f));
    auto addCompanion = [&](const char *suffix) {
      auto c = std::make_unique<FieldInfo>();
      c->name = n.name + suffix;
      c->elemType = companionType;
      c->primal = fp;
      c->range = n.range;
      c->shorthand = d.hasShape;
      c->id = mod->fields.size();
      FieldInfo *cp = c.get();
      mod->fields.push_back(std::move(c));
      return cp;
    };
    if (fp->needsGrad)
      fp->grad = addCompanion(".grad");
    if (fp->needsDual)
      fp->dual = addCompanion(".dual");
    if (d.hasShape && shapeOk) {
      // Implicit root.dense(axes, shape).place(x [, x.grad, x.dual]).
      SNode *parent = mod->root.get();
      SNode *sn = parent;
      if (!shape.empty()) {
        sn = newSNode(parent, SNode::Kind::Dense, d.shapeRange);
        sn->implicit = true;
        for (size_t a = 0; a < shape.size(); ++a) {
          sn->axes.push_back(Axis(a));
          sn->shape.push_back(shape[a]);
        }
      }
      placeField(sn, fp, n.range, false);
      if (fp->grad)
        placeField(sn, fp->grad, n.range, false);
      if (fp->dual)
        placeField(sn, fp->dual, n.range, false);
    }
  }
}

void Sema::checkStaticAssert(ast::Expr &cond, const std::string &msg, SourceRange r) {
  auto v = evalConst(cond, "static_assert condition");
  if (!v)
    return;
  if (v->kind == ConstValue::Kind::Aggregate || v->kind == ConstValue::Kind::String ||
      v->kind == ConstValue::Kind::Type) {
    error(cond.range, "static_assert condition must be a scalar, got '" +
                          typeName(v->type) + "'");
    return;
  }
  if (v->asDouble() == 0)
    error(r, msg.empty() ? "static assertion failed" : "static assertion failed: " + msg);
}

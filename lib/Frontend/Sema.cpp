//===- Sema.cpp - Declarations, functions and statements -------------------===//
//
// See docs/semantics.md for the rules implemented here.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include <algorithm>
#include <cmath>

using namespace tic;
using namespace tic::sema;
using namespace tic::ast;

static bool alwaysReturns(const Stmt &s);

std::string sema::typeName(const Type *t) { return t ? t->str() : "<error>"; }

std::string sema::axisName(Axis a) {
  static const char *names = "ijkl";
  return a < kMaxAxes ? std::string(1, names[a]) : "?";
}

const char *SNode::kindName(Kind k) {
  switch (k) {
  case Kind::Root: return "root";
  case Kind::Dense: return "dense";
  case Kind::Bitmasked: return "bitmasked";
  case Kind::Pointer: return "pointer";
  case Kind::Hash: return "hash";
  case Kind::Dynamic: return "dynamic";
  case Kind::BitStruct: return "bit_struct";
  case Kind::BitArray: return "bit_array";
  }
  return "?";
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
  if (!diags.hasErrors() && opts.checkCNames)
    checkCNames();
  if (diags.hasErrors())
    return nullptr;
  return std::move(mod);
}

//===----------------------------------------------------------------------===//
// Globals
//===----------------------------------------------------------------------===//

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
  if (isQuant && (d.needsGrad || d.needsDual)) {
    error(d.range, std::string(d.needsGrad ? "needs_grad" : "needs_dual") +
                       " is not supported on quantized fields");
  }
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
    f->needsGrad = d.needsGrad && !isQuant;
    f->needsDual = d.needsDual && !isQuant;
    f->range = n.range;
    f->shorthand = d.hasShape;
    FieldInfo *fp = f.get();
    it->second.field = fp;
    f->id = mod->fields.size();
    mod->fields.push_back(std::move(f));
    auto addCompanion = [&](const char *suffix) {
      auto c = std::make_unique<FieldInfo>();
      c->name = n.name + suffix;
      c->elemType = t;
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

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

const Type *Sema::resolveType(TypeExpr &t, bool allowQuant, bool allowTemplate) {
  if (isa<InferredTypeExpr>(&t)) {
    // Only func parameters may omit their type (instantiate() binds them).
    error(t.range, "a kernel parameter needs a type: kernels are entry points "
                   "whose C signature is fixed (only func parameters take "
                   "their type from the argument)");
    return nullptr;
  }
  if (isa<TemplateTypeExpr>(&t)) {
    if (!allowTemplate) {
      error(t.range, "'template' is only allowed as the type of a kernel or func parameter");
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
      error(i < g->args.size() && g->args[i].value ? g->args[i].value->range : g->range,
            "expected a type as argument " + std::to_string(i + 1) + " of '" + g->name + "'");
      return nullptr;
    }
    const Type *r = resolveType(*g->args[i].type, quantOk, false);
    if (r && !r->isScalar() && !(quantOk && r->isQuant()) &&
        !(g->name == "ndarray" && r->isTensor())) {
      error(g->args[i].type->range, "invalid element type '" + typeName(r) + "' for '" +
                                        g->name + "'");
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
                                        std::to_string(i + 1) + " of '" + g->name + "'");
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
      error(g->range, "ndarray dimension must be between 1 and 8, got " + std::to_string(*n));
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
      error(a.value->range, "arguments of 'quant." + q.quantKind + "' must be named");
      ok = false;
      continue;
    }
    if (std::find(allowed.begin(), allowed.end(), a.name) == allowed.end()) {
      error(a.nameRange, "unknown argument '" + a.name + "' of 'quant." + q.quantKind + "'");
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
    out = evalIntArg(*it->second->value, std::string("'") + n + "' of '" + qn + "'");
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
      error(it->second->value->range, "'signed' of '" + qn + "' must be true or false");
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
        error(it->second->value->range, "'compute' of '" + qn +
                                            "' must be a scalar numeric type");
      return nullptr;
    }
  }
  if (p.qkind == QuantType::QKind::Int || p.qkind == QuantType::QKind::Fixed) {
    if (!bits) {
      error(q.range, "'" + qn + "' requires 'bits'");
      return nullptr;
    }
    if (*bits < 1 || *bits > 64) {
      error(args["bits"]->value->range, "'bits' of '" + qn + "' must be between 1 and 64, got " +
                                            std::to_string(*bits));
      return nullptr;
    }
    p.bits = unsigned(*bits);
  }
  if (p.qkind == QuantType::QKind::Int) {
    if (!compute)
      compute = types->i32();
    if (!compute->isInt()) {
      error(args["compute"]->value->range, "compute type of 'quant.int' must be an integer type");
      return nullptr;
    }
  } else {
    if (!compute)
      compute = types->f32();
    if (!compute->isFloat()) {
      error(args["compute"]->value->range, "compute type of '" + qn + "' must be a float type");
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
    if (v->kind != ConstValue::Kind::Int && v->kind != ConstValue::Kind::Float) {
      error(it->second->value->range, "'max' of 'quant.fixed' must be a number");
      return nullptr;
    }
    p.max = v->asDouble();
    if (!(p.max > 0) || std::isinf(p.max)) {
      error(it->second->value->range, "'max' of 'quant.fixed' must be positive");
      return nullptr;
    }
    p.scale = p.max / std::ldexp(1.0, p.isSigned ? int(p.bits) - 1 : int(p.bits));
  }
  if (p.qkind == QuantType::QKind::Float) {
    if (!exp || !frac) {
      error(q.range, "'quant.float' requires 'exp' and 'frac'");
      return nullptr;
    }
    if (*exp < 1 || *exp > 11) {
      error(args["exp"]->value->range, "'exp' of 'quant.float' must be between 1 and 11, got " +
                                           std::to_string(*exp));
      return nullptr;
    }
    if (*frac < 1 || *frac > 53) {
      error(args["frac"]->value->range, "'frac' of 'quant.float' must be between 1 and 53, got " +
                                            std::to_string(*frac));
      return nullptr;
    }
    p.exp = unsigned(*exp);
    p.frac = unsigned(*frac);
    p.bits = p.exp + p.frac;
    unsigned cexp = compute->bits == 16 ? 5 : compute->bits == 32 ? 8 : 11;
    unsigned cmant = compute->bits == 16 ? 11 : compute->bits == 32 ? 24 : 53;
    if (p.exp > cexp || p.frac > cmant) {
      error(q.range, "'" + qn + "' with exp: " + std::to_string(p.exp) + ", frac: " +
                         std::to_string(p.frac) + " does not fit its compute type " +
                         compute->str());
      return nullptr;
    }
  }
  if (p.bits > 64) {
    error(q.range, "quantized types are at most 64 bits wide, got " + std::to_string(p.bits));
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

std::optional<TemplateArg> Sema::templateArgFrom(ast::Expr &e, const std::string &param) {
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
  error(e.range, "argument for template parameter '" + param +
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
      error(a.value->range, "argument for parameter '" + a.name +
                                "' of an instance must be a compile-time constant");
      return;
    }
    TemplateArg ta;
    ta.value = *v;
    fixed[a.name] = ta;
  }
  size_t nTemplateArgs = d.args.size() - fixed.size();
  if (tparams.empty()) {
    error(d.kernel.range, "kernel '" + d.kernel.name +
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
        error(a.nameRange, "kernel '" + d.kernel.name + "' has no template parameter named '" +
                               a.name + "'");
        ok = false;
        continue;
      }
    } else {
      ++pos;
    }
    if (idx >= tparams.size() || set[idx]) {
      error(a.value->range, "template parameter '" +
                                (idx < tparams.size() ? tparams[idx]->name.name : std::string("?")) +
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

static std::string instKey(const FunctionDecl &d, const std::vector<TemplateArg> &targs,
                           const std::vector<const Type *> &inferred) {
  std::string k = std::to_string(reinterpret_cast<uintptr_t>(&d)) + ":" + d.name.name + "<";
  for (size_t i = 0; i < targs.size(); ++i) {
    k += (i ? ", " : "");
    if (targs[i].kind == TemplateArg::Kind::Value)
      k += typeName(targs[i].value.type) + " ";
    k += targs[i].str();
  }
  return k + ">" + inferredSuffix(inferred);
}

static std::string instDisplay(const FunctionDecl &d, const std::vector<TemplateArg> &targs,
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

CheckedFunction *Sema::instantiate(const FunctionDecl &d, std::vector<TemplateArg> targs,
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
        error(callRange, "func '" + d.name.name +
                             "' calls itself with the same template arguments; funcs are "
                             "inlined, so recursion must end at compile time");
        note(d.name.range, "'" + display + "' is declared here");
        return nullptr;
      }
    }
    if (instStack.size() >= opts.maxRecursionDepth) {
      error(callRange, "recursion depth limit (" + std::to_string(opts.maxRecursionDepth) +
                           ") exceeded while instantiating func '" + d.name.name + "'");
      // The call chain: the outermost frames and the innermost ones.
      size_t n = instStack.size();
      for (size_t i = 0; i < n; ++i) {
        if (n > 6 && i == 3) {
          diags.note(SourceRange(), "(" + std::to_string(n - 6) + " more instantiations)");
          i = n - 3;
        }
        note(instStack[i].callRange, "in instantiation of '" + instStack[i].display +
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
                             "got '" + typeName(t) + "'");
        note(p.name.range, "'" + p.name.name + "' is declared here; declare it '" +
                               p.name.name + ": template' to pass a field, an "
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
        error(p.type->range, "parameter '" + p.name.name + "' of type '" + typeName(t) +
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
        error(callRange, "cannot convert '" + typeName(vt) + "' to '" + typeName(t) +
                             "' for parameter '" + p.name.name + "'");
        ok = false;
      }
    } else {
      bool valid = t->isScalar() || t->isTensor() ||
                   (isKernel && t->kind() == Type::Kind::NDArray) ||
                   (!isKernel && t->isStruct());
      if (!valid) {
        error(p.type->range, std::string(isKernel ? "kernel" : "func") + " parameter '" +
                                 p.name.name + "' cannot have type '" + typeName(t) + "'");
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
    if (rt && (isKernel ? !(rt->isScalar() || rt->isTensor()) : !rt->isValueType())) {
      error(d.returnType->range, std::string(isKernel ? "kernel" : "func") +
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

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

static bool isLoopConfig(const Stmt &s) {
  auto *es = dyn_cast<ExprStmt>(&s);
  if (!es)
    return false;
  auto *c = dyn_cast<CallExpr>(es->expr.get());
  if (!c)
    return false;
  auto *n = dyn_cast<NameExpr>(c->callee.get());
  return n && n->name == "loop_config";
}

void Sema::checkBlockInto(BlockStmt &b, std::vector<StmtPtr> &out, bool newScope) {
  if (newScope)
    pushScope();
  ExprStmt *pendingConfig = nullptr;
  StmtPtr pendingOwner;
  for (size_t i = 0; i < b.body.size(); ++i) {
    if (diags.limitReached() || recursionAborted)
      break;
    // A static `break`/`continue` drops the rest of this unrolled copy.
    if (!st->loops.empty() && st->loops.back().isStatic &&
        st->loops.back().exit != FnState::Loop::Exit::None)
      break;
    StmtPtr &s = b.body[i];
    if (isLoopConfig(*s)) {
      auto *es = cast<ExprStmt>(s.get());
      checkExpr(*es->expr);
      if (pendingConfig)
        warning(pendingConfig->range, "loop_config is overridden by a later loop_config");
      pendingOwner = std::move(s);
      pendingConfig = es;
      if (i + 1 == b.body.size() || !isa<ForStmt>(b.body[i + 1].get())) {
        error(es->range, "loop_config must be followed by a for loop");
        pendingConfig = nullptr;
      }
      continue;
    }
    if (auto *es = dyn_cast<ExprStmt>(s.get())) {
      if (auto *c = dyn_cast<CallExpr>(es->expr.get()))
        if (auto *n = dyn_cast<NameExpr>(c->callee.get()))
          if (n->name == "bit_vectorize" && !lookupLocal(n->name) &&
              !(st->isKernel && i == 0 && st->scopes.size() == 1 && st->loops.empty() &&
                st->nonTopDepth == 0))
            error(es->range, "bit_vectorize must be the first statement of a kernel");
    }
    if (isa<ForStmt>(s.get())) {
      checkFor(s, out, pendingConfig);
      pendingConfig = nullptr;
      continue;
    }
    checkStmt(s, out);
  }
  if (newScope)
    popScope();
}

void Sema::checkStmt(StmtPtr &sp, std::vector<StmtPtr> &out) {
  Stmt *s = sp.get();
  switch (s->kind) {
  case Stmt::Block: {
    auto *b = cast<BlockStmt>(s);
    auto nb = std::make_unique<BlockStmt>(b->range);
    checkBlockInto(*b, nb->body, true);
    out.push_back(std::move(nb));
    return;
  }
  case Stmt::Let: {
    auto *l = cast<LetStmt>(s);
    const Type *declT = l->declType ? resolveType(*l->declType, false, false) : nullptr;
    const Type *t = checkExpr(*l->init);
    if (l->names.size() > 1) {
      // A tuple (`let U, S, V = svd(A);`), a vector's components
      // (`let x, y = v;`) or a matrix's rows.
      std::vector<const Type *> parts;
      if (auto *tt = dynamic_cast<const TupleType *>(t))
        parts = tt->elems;
      else if (auto *vt = dynamic_cast<const VectorType *>(t))
        parts.assign(vt->size, vt->elem);
      else if (auto *mt = dynamic_cast<const MatrixType *>(t))
        parts.assign(mt->rows, types->getVector(mt->elem, mt->cols));
      if (t && parts.empty()) {
        error(l->init->range, "cannot destructure a value of type '" + typeName(t) +
                                  "' into " + std::to_string(l->names.size()) + " names");
        t = nullptr;
      } else if (t && parts.size() != l->names.size()) {
        error(l->init->range,
              "cannot destructure " + std::to_string(parts.size()) +
                  " values into " + std::to_string(l->names.size()) + " names");
        t = nullptr;
      }
      for (size_t i = 0; i < l->names.size(); ++i)
        l->decls.push_back(declareLocal(
            l->names[i], l->isVar ? LocalVar::Kind::Var : LocalVar::Kind::Let,
            t ? parts[i] : nullptr));
    } else {
      if (t && !declT && !t->isValueType() &&
          !(t == types->getString() && constOf(*l->init))) {
        error(l->init->range, "cannot bind a value of type '" + typeName(t) + "' to '" +
                                  l->names[0].name + "'");
        t = nullptr;
      }
      if (t && declT)
        checkConvertible(t, declT, *l->init, "initializing '" + l->names[0].name + "'");
      if (t == types->getString() && constOf(*l->init)) {
        // A compile-time string (print / assert messages).
        LocalBinding lb;
        lb.kind = LocalBinding::Kind::Value;
        lb.value = *constOf(*l->init);
        lb.range = l->names[0].range;
        bind(l->names[0].name, lb);
        return; // nothing to emit
      }
      l->decls.push_back(declareLocal(l->names[0], LocalVar::Kind::Let, declT ? declT : t));
    }
    out.push_back(std::move(sp));
    return;
  }
  case Stmt::Var: {
    auto *v = cast<VarStmt>(s);
    const Type *declT = v->declType ? resolveType(*v->declType, false, false) : nullptr;
    const Type *t = v->init ? checkExpr(*v->init) : nullptr;
    if (t && !declT && !t->isValueType()) {
      error(v->init->range, "cannot store a value of type '" + typeName(t) + "' in '" +
                                v->name.name + "'");
      t = nullptr;
    }
    if (t && declT)
      checkConvertible(t, declT, *v->init, "initializing '" + v->name.name + "'");
    v->decl = declareLocal(v->name, LocalVar::Kind::Var, declT ? declT : t);
    out.push_back(std::move(sp));
    return;
  }
  case Stmt::If: {
    auto *i = cast<IfStmt>(s);
    if (auto *se = dyn_cast<StaticExpr>(i->cond.get())) {
      checkExpr(*se);
      const ConstValue *v = constOf(*se);
      if (!v)
        return;
      if (v->kind == ConstValue::Kind::Aggregate || v->kind == ConstValue::Kind::String ||
          v->kind == ConstValue::Kind::Type) {
        error(se->range, "condition of 'if static' must be a scalar, got '" +
                             typeName(v->type) + "'");
        return;
      }
      auto nb = std::make_unique<BlockStmt>(s->range);
      if (v->asDouble() != 0) {
        checkBlockInto(*i->thenBody, nb->body, true);
      } else if (i->elseBody) {
        if (auto *eb = dyn_cast<BlockStmt>(i->elseBody.get())) {
          checkBlockInto(*eb, nb->body, true);
        } else {
          pushScope();
          checkStmt(i->elseBody, nb->body);
          popScope();
        }
      }
      out.push_back(std::move(nb));
      return;
    }
    const Type *ct = checkExpr(*i->cond);
    if (ct && !ct->isScalar())
      error(i->cond->range, "condition must be a scalar, got '" + typeName(ct) + "'");
    st->nonTopDepth++;
    auto nt = std::make_unique<BlockStmt>(i->thenBody->range);
    checkBlockInto(*i->thenBody, nt->body, true);
    i->thenBody = std::move(nt);
    if (i->elseBody) {
      std::vector<StmtPtr> eo;
      pushScope();
      checkStmt(i->elseBody, eo);
      popScope();
      i->elseBody = eo.empty() ? nullptr : std::move(eo[0]);
    }
    st->nonTopDepth--;
    out.push_back(std::move(sp));
    return;
  }
  case Stmt::While: {
    auto *w = cast<WhileStmt>(s);
    const Type *ct = checkExpr(*w->cond);
    if (ct && !ct->isScalar())
      error(w->cond->range, "condition must be a scalar, got '" + typeName(ct) + "'");
    st->nonTopDepth++;
    st->loops.push_back({false, false, false});
    auto nb = std::make_unique<BlockStmt>(w->body->range);
    checkBlockInto(*w->body, nb->body, true);
    w->body = std::move(nb);
    st->loops.pop_back();
    st->nonTopDepth--;
    out.push_back(std::move(sp));
    return;
  }
  case Stmt::For:
    checkFor(sp, out, nullptr);
    return;
  case Stmt::Break:
  case Stmt::Continue: {
    const char *kw = s->kind == Stmt::Break ? "break" : "continue";
    if (st->loops.empty()) {
      error(s->range, std::string("'") + kw + "' outside of a loop");
      return;
    }
    auto &l = st->loops.back();
    if (l.isStatic) {
      // As in Taichi: decided at compile time, so only under `if static`.
      if (st->nonTopDepth != l.depth) {
        error(s->range,
              std::string("'") + kw +
                  "' in a static for loop must be under 'if static(...)', "
                  "not a run-time 'if'");
        return;
      }
      l.exit = s->kind == Stmt::Break ? FnState::Loop::Exit::Break
                                      : FnState::Loop::Exit::Continue;
      return;
    }
    if (l.parallel && s->kind == Stmt::Break) {
      error(s->range, "'break' is not allowed in a parallel loop (an outermost loop of a "
                      "kernel); use loop_config(serialize: true) to make it serial");
      return;
    }
    out.push_back(std::move(sp));
    return;
  }
  case Stmt::Return: {
    auto *r = cast<ReturnStmt>(s);
    const Type *t = r->value ? checkExpr(*r->value) : nullptr;
    if (!st->fn)
      return;
    if (st->isKernel && st->inParallelLoop()) {
      error(s->range, "'return' is not allowed inside a parallel loop");
      return;
    }
    const Type *rt = st->fn->returnType;
    std::string what = std::string(st->isKernel ? "kernel" : "func") + " '" + st->fn->name + "'";
    if (!rt && st->inferReturn) {
      // The first return of a `-> template` func decides its type.
      if (r->value && !t)
        return; // already reported
      if (!r->value)
        rt = st->fn->returnType = types->getVoid();
      else if (!t->isValueType() && t->kind() != Type::Kind::Tuple) {
        error(r->value->range,
              what + " cannot return a value of type '" + typeName(t) + "'");
        return;
      } else
        rt = st->fn->returnType = t;
    }
    if (!rt)
      return;
    if (rt->isVoid()) {
      if (r->value)
        error(r->value->range, what + " does not return a value (no '-> T' in its declaration)");
    } else if (!r->value) {
      error(s->range, what + " must return a value of type '" + typeName(rt) + "'");
    } else if (t) {
      checkConvertible(t, rt, *r->value, "returning from " + what);
    }
    out.push_back(std::move(sp));
    return;
  }
  case Stmt::StaticAssert: {
    auto *sa = cast<StaticAssertStmt>(s);
    checkStaticAssert(*sa->cond, sa->message, sa->range);
    return;
  }
  case Stmt::Assign:
    checkAssign(*cast<AssignStmt>(s));
    out.push_back(std::move(sp));
    return;
  case Stmt::ExprStmt: {
    auto *es = cast<ExprStmt>(s);
    // `x.fill(v);` (Taichi's Matrix.fill) is the assignment of `v` to every
    // component of `x`.
    if (auto *c = dyn_cast<CallExpr>(es->expr.get()))
      if (auto *m = dyn_cast<MemberExpr>(c->callee.get());
          m && m->member == "fill") {
        if (c->args.size() != 1 || !c->args[0].name.empty()) {
          error(c->range, "'fill' expects 1 positional argument, got " +
                              std::to_string(c->args.size()));
          return;
        }
        auto a = std::make_unique<AssignStmt>(es->range);
        a->opRange = m->memberRange;
        a->target = std::move(m->base);
        a->value = std::move(c->args[0].value);
        a->fill = true;
        StmtPtr as = std::move(a);
        checkStmt(as, out);
        return;
      }
    const Type *t = checkExpr(*es->expr);
    if (t && !isa<CallExpr>(es->expr.get()))
      warning(es->expr->range, "expression result unused");
    out.push_back(std::move(sp));
    return;
  }
  }
}

static BinaryOp binaryOpOf(AssignOp op) {
  switch (op) {
  case AssignOp::Add: return BinaryOp::Add;
  case AssignOp::Sub: return BinaryOp::Sub;
  case AssignOp::Mul: return BinaryOp::Mul;
  case AssignOp::Div: return BinaryOp::Div;
  case AssignOp::FloorDiv: return BinaryOp::FloorDiv;
  case AssignOp::Mod: return BinaryOp::Mod;
  case AssignOp::Pow: return BinaryOp::Pow;
  case AssignOp::BitAnd: return BinaryOp::BitAnd;
  case AssignOp::BitOr: return BinaryOp::BitOr;
  case AssignOp::BitXor: return BinaryOp::BitXor;
  case AssignOp::Shl: return BinaryOp::Shl;
  case AssignOp::Shr: return BinaryOp::Shr;
  default: return BinaryOp::Add;
  }
}

void Sema::checkAssign(AssignStmt &a) {
  const Type *tt = checkExpr(*a.target);
  const Type *vt = checkExpr(*a.value);
  if (!tt || !vt)
    return;
  std::string why;
  if (!isLValue(*a.target, true, &why)) {
    if (!why.empty())
      error(a.target->range, why);
    return;
  }
  if (!tt->isValueType()) {
    error(a.target->range, "cannot assign to a value of type '" + typeName(tt) + "'");
    return;
  }
  // Root of the target: global access or local.
  Expr *root = a.target.get();
  while (true) {
    if (auto *m = dyn_cast<MemberExpr>(root))
      root = m->base.get();
    else if (auto *ix = dyn_cast<IndexExpr>(root)) {
      if (ix->indexKind == IndexExpr::IndexKind::Field ||
          ix->indexKind == IndexExpr::IndexKind::NDArray)
        break;
      root = ix->base.get();
    } else
      break;
  }
  bool global = false;
  if (auto *ix = dyn_cast<IndexExpr>(root))
    global = ix->indexKind == IndexExpr::IndexKind::Field ||
             ix->indexKind == IndexExpr::IndexKind::NDArray;
  if (a.fill) {
    if (!tt->isTensor()) {
      error(a.opRange,
            "'fill' needs a vector or matrix, got '" + typeName(tt) + "'");
      return;
    }
    if (!vt->isScalar()) {
      error(a.value->range,
            "'fill' takes a scalar, got '" + typeName(vt) + "'");
      return;
    }
    checkConvertible(vt, elementType(tt), *a.value, "fill");
  } else if (a.op == AssignOp::Assign) {
    checkConvertible(vt, tt, *a.value, "assignment");
  } else if (a.op == AssignOp::Min || a.op == AssignOp::Max) {
    const Type *p = promote(*types, tt, vt);
    if (!p) {
      error(a.opRange, std::string("invalid operands to '") + spelling(a.op) + "' ('" +
                           typeName(tt) + "' and '" + typeName(vt) + "')");
      return;
    }
    adoptContextType(*a.value, p);
    checkConvertible(p, tt, *a.value, std::string("'") + spelling(a.op) + "'");
  } else {
    // Check `target op value` as a binary expression on copies of the types.
    BinaryOp op = binaryOpOf(a.op);
    const Type *et = elementType(tt), *ev = elementType(vt);
    if (!et || !ev) {
      error(a.opRange, std::string("invalid operands to '") + spelling(a.op) + "' ('" +
                           typeName(tt) + "' and '" + typeName(vt) + "')");
      return;
    }
    bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor ||
                   op == BinaryOp::Shl || op == BinaryOp::Shr;
    if (bitwise && (et->isFloat() || ev->isFloat())) {
      error(a.opRange, std::string("invalid operands to '") + spelling(a.op) + "' ('" +
                           typeName(tt) + "' and '" + typeName(vt) +
                           "'): bitwise operations need integers");
      return;
    }
    const Type *p = promote(*types, tt, vt);
    if (!p) {
      error(a.opRange, std::string("invalid operands to '") + spelling(a.op) + "' ('" +
                           typeName(tt) + "' and '" + typeName(vt) + "')");
      return;
    }
    if (op == BinaryOp::Div && !elementType(p)->isFloat())
      p = types->getTensorLike(p, defaultFloat);
    adoptContextType(*a.value, p);
    checkConvertible(p, tt, *a.value, std::string("'") + spelling(a.op) + "'");
  }
  if (global) {
    a.isAtomic = a.op == AssignOp::Add || a.op == AssignOp::Sub || a.op == AssignOp::Min ||
                 a.op == AssignOp::Max || a.op == AssignOp::BitAnd ||
                 a.op == AssignOp::BitOr || a.op == AssignOp::BitXor;
  } else if (auto *n = dyn_cast<NameExpr>(root)) {
    if (n->ref.kind == NameRef::Local && n->ref.local && n->ref.local->isKernelScope &&
        st->isKernel && st->inParallelLoop()) {
      if (a.op == AssignOp::Add || a.op == AssignOp::Sub || a.op == AssignOp::Min ||
          a.op == AssignOp::Max) {
        a.isReduction = true;
        a.isAtomic = true;
      } else {
        warning(a.target->range, "kernel-scope variable '" + n->name +
                                     "' is updated non-atomically inside a parallel loop "
                                     "(data race)");
      }
    }
  }
}

bool Sema::staticIterations(ForStmt &f, StaticExpr &se,
                            std::vector<std::vector<ConstValue>> &iters) {
  auto *call = dyn_cast<CallExpr>(se.operand.get());
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  bool grouped = false;
  // static(grouped(ndrange(...))): one ivecN variable.
  if (callee && callee->name == "grouped" && !lookupLocal("grouped") &&
      call->args.size() == 1) {
    auto *inner = dyn_cast<CallExpr>(call->args[0].value.get());
    auto *innerCallee =
        inner ? dyn_cast<NameExpr>(inner->callee.get()) : nullptr;
    if (innerCallee && innerCallee->name == "ndrange") {
      call = inner;
      callee = innerCallee;
      grouped = true;
    }
  }
  bool isRange = callee &&
                 (callee->name == "range" || callee->name == "ndrange") &&
                 !lookupLocal(callee->name);
  if (!isRange) {
    // static(B) over a compile-time list: one copy per element (a vector's
    // components, a matrix's rows, a tuple's elements).
    const Type *t = checkExpr(*se.operand);
    if (!t)
      return false;
    const ConstValue *v = constOf(*se.operand);
    if (!v || v->kind != ConstValue::Kind::Aggregate) {
      error(se.range, "a static for loop iterates static(range(...)), "
                      "static(ndrange(...)), "
                      "static(grouped(ndrange(...))) or a compile-time list");
      return false;
    }
    if (f.vars.size() != 1) {
      error(f.vars.empty() ? f.range : f.vars[0].range,
            "a static for loop over a list needs 1 loop variable, got " +
                std::to_string(f.vars.size()));
      return false;
    }
    se.type = types->getRange(1, true);
    if (auto *m = dynamic_cast<const MatrixType *>(v->type)) {
      const Type *row = types->getVector(m->elem, m->cols);
      for (unsigned r = 0; r < m->rows; ++r) {
        std::vector<ConstValue> es(v->elems.begin() + r * m->cols,
                                   v->elems.begin() + (r + 1) * m->cols);
        iters.push_back({ConstValue::makeAggregate(std::move(es), row)});
      }
    } else {
      for (const ConstValue &e : v->elems)
        iters.push_back({e});
    }
    return iters.size() <= opts.maxUnroll ||
           (error(se.range, "static for loop unrolls to " +
                                std::to_string(iters.size()) +
                                " iterations, more than the limit of " +
                                std::to_string(opts.maxUnroll)),
            false);
  }
  std::vector<std::pair<int64_t, int64_t>> bounds;
  int64_t step = 1;
  bool ok = true;
  auto intOf = [&](Expr &e) -> std::optional<int64_t> {
    return evalIntArg(e, "bound of a static range");
  };
  if (callee->name == "range") {
    if (call->args.empty() || call->args.size() > 3) {
      error(call->range, "range expects 1 to 3 arguments, got " +
                             std::to_string(call->args.size()));
      return false;
    }
    auto a = intOf(*call->args[0].value);
    std::optional<int64_t> b, c;
    if (call->args.size() >= 2)
      b = intOf(*call->args[1].value);
    if (call->args.size() == 3)
      c = intOf(*call->args[2].value);
    if (!a || (call->args.size() >= 2 && !b) || (call->args.size() == 3 && !c))
      return false;
    if (c && *c == 0) {
      error(call->args[2].value->range, "range step must not be zero");
      return false;
    }
    if (c)
      step = *c;
    bounds.push_back(call->args.size() >= 2 ? std::make_pair(*a, *b)
                                            : std::make_pair(int64_t(0), *a));
  } else {
    for (auto &arg : call->args) {
      if (auto *l = dyn_cast<ListExpr>(arg.value.get())) {
        if (l->elements.size() != 2) {
          error(l->range, "ndrange bounds are (begin, end) pairs");
          return false;
        }
        auto a = intOf(*l->elements[0]), b = intOf(*l->elements[1]);
        if (!a || !b)
          ok = false;
        else
          bounds.push_back({*a, *b});
      } else {
        auto a = intOf(*arg.value);
        if (!a)
          ok = false;
        else
          bounds.push_back({0, *a});
      }
    }
    if (!ok)
      return false;
  }
  size_t wantVars = grouped ? 1 : bounds.size();
  if (f.vars.size() != wantVars) {
    std::string what =
        grouped ? "static grouped(ndrange)" : "static " + callee->name;
    error(f.vars.empty() ? f.range : f.vars[0].range,
          what + " with " + std::to_string(bounds.size()) + " dimension" +
              (bounds.size() == 1 ? "" : "s") + " needs " +
              std::to_string(wantVars) + " loop variable" +
              (wantVars == 1 ? "" : "s") + ", got " +
              std::to_string(f.vars.size()));
    return false;
  }
  // Trip counts (range steps may be negative), then their product.
  std::vector<int64_t> trips;
  int64_t total = 1;
  for (auto &b : bounds) {
    int64_t span = step > 0 ? b.second - b.first : b.first - b.second;
    int64_t as = step > 0 ? step : -step;
    trips.push_back(span > 0 ? (span - 1) / as + 1 : 0);
    total *= trips.back();
    if (total > int64_t(opts.maxUnroll)) {
      error(se.range, "static for loop unrolls to more than the limit of " +
                          std::to_string(opts.maxUnroll) + " iterations");
      return false;
    }
  }
  se.type = types->getRange(bounds.size(), true);
  std::vector<int64_t> k(bounds.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    std::vector<ConstValue> idx;
    for (size_t d = 0; d < bounds.size(); ++d)
      idx.push_back(
          ConstValue::makeInt(bounds[d].first + k[d] * step, types->i32()));
    if (grouped)
      iters.push_back({ConstValue::makeAggregate(
          std::move(idx), types->getVector(types->i32(), bounds.size()))});
    else
      iters.push_back(std::move(idx));
    // Next index (last dimension fastest).
    for (size_t d = bounds.size(); d-- > 0;) {
      if (++k[d] < trips[d])
        break;
      k[d] = 0;
    }
  }
  return true;
}

/// Statements in `s` (nested blocks, branches and loop bodies included).
static int64_t countStatements(const Stmt &s) {
  if (auto *b = dyn_cast<BlockStmt>(&s)) {
    int64_t n = 0;
    for (const StmtPtr &c : b->body)
      n += countStatements(*c);
    return n;
  }
  if (auto *i = dyn_cast<IfStmt>(&s))
    return 1 + countStatements(*i->thenBody) +
           (i->elseBody ? countStatements(*i->elseBody) : 0);
  if (auto *w = dyn_cast<WhileStmt>(&s))
    return 1 + countStatements(*w->body);
  if (auto *f = dyn_cast<ForStmt>(&s))
    return 1 + countStatements(*f->body);
  return 1;
}

void Sema::checkFor(StmtPtr &sp, std::vector<StmtPtr> &out, ExprStmt *config) {
  auto *f = cast<ForStmt>(sp.get());
  // loop_config
  if (config) {
    auto *c = cast<CallExpr>(config->expr.get());
    for (auto &a : c->args) {
      const ConstValue *v = constOf(*a.value);
      if (!v)
        continue;
      if (a.name == "serialize")
        f->serialize = v->asDouble() != 0;
      else if (a.name == "parallelize")
        f->parallelize = v->asInt();
      else if (a.name == "block_dim")
        f->blockDim = v->asInt();
    }
  }
  bool topLevel = st->isKernel && st->nonTopDepth == 0 && st->loops.empty();
  // Static for: unroll.
  if (auto *se = dyn_cast<StaticExpr>(f->iterable.get())) {
    // One binding per loop variable for every unrolled copy.
    std::vector<std::vector<ConstValue>> iters;
    if (!staticIterations(*f, *se, iters))
      return;
    // The module's unrolling budget: nested static loops multiply, and each
    // copy costs memory and compile time all the way down to LLVM.
    int64_t perCopy = countStatements(*f->body);
    if (unrolledStatements + perCopy * int64_t(iters.size()) >
        int64_t(opts.maxUnrolledStatements)) {
      error(se->range,
            "unrolling this static for loop (" + std::to_string(iters.size()) +
                " copies of " + std::to_string(perCopy) + " statement" +
                (perCopy == 1 ? "" : "s") +
                ") exceeds the module's budget of " +
                std::to_string(opts.maxUnrolledStatements) +
                " unrolled statements; use a run-time loop (drop static)");
      if (unrolledStatements > 0)
        note(se->range, std::to_string(unrolledStatements) +
                            " statements were unrolled before this loop, "
                            "by enclosing or earlier static loops");
      recursionAborted = true; // stop expanding enclosing copies too
      return;
    }
    unrolledStatements += perCopy * int64_t(iters.size());
    st->loops.push_back({false, true, false});
    st->loops.back().depth = st->nonTopDepth;
    auto outer = std::make_unique<BlockStmt>(f->range);
    for (auto &values : iters) {
      if (diags.limitReached() || recursionAborted)
        break;
      StmtPtr bodyCopy = clone(*f->body);
      auto nb = std::make_unique<BlockStmt>(f->body->range);
      pushScope();
      for (size_t k = 0; k < f->vars.size(); ++k) {
        LocalBinding lb;
        lb.kind = LocalBinding::Kind::Value;
        lb.value = values[k];
        lb.range = f->vars[k].range;
        bind(f->vars[k].name, lb);
      }
      checkBlockInto(*cast<BlockStmt>(bodyCopy.get()), nb->body, true);
      popScope();
      outer->body.push_back(std::move(nb));
      auto exit = st->loops.back().exit;
      st->loops.back().exit = FnState::Loop::Exit::None;
      if (exit == FnState::Loop::Exit::Break)
        break;
    }
    st->loops.pop_back();
    out.push_back(std::move(outer));
    return;
  }

  const Type *it = checkExpr(*f->iterable);
  if (!it)
    return;
  bool parallel = topLevel && !f->serialize;
  f->isParallel = parallel;
  std::vector<const Type *> varTypes;
  if (auto *rt = dynamic_cast<const RangeType *>(it)) {
    auto *call = cast<CallExpr>(f->iterable.get());
    if (call->builtin == Builtin::Range) {
      f->forKind = ForStmt::ForKind::Range;
      const Type *vt = types->i32();
      for (auto &a : call->args)
        if (a.value->type && a.value->type->isInt())
          vt = promoteScalars(*types, static_cast<const ScalarType *>(vt),
                              static_cast<const ScalarType *>(a.value->type));
      varTypes.push_back(vt);
    } else {
      f->forKind = ForStmt::ForKind::NDRange;
      for (unsigned k = 0; k < rt->ndim; ++k)
        varTypes.push_back(types->i32());
    }
  } else if (auto *gt = dynamic_cast<const GroupedType *>(it)) {
    f->forKind = ForStmt::ForKind::Grouped;
    auto *call = cast<CallExpr>(f->iterable.get());
    if (!call->args.empty()) {
      f->overField = fieldOf(*call->args[0].value);
      if (!f->overField && call->args[0].value->type &&
          call->args[0].value->type->kind() == Type::Kind::SNodeRef)
        f->overSNode = snodeOf(*call->args[0].value);
    }
    varTypes.push_back(types->getVector(types->i32(), gt->ndim));
  } else if (it->kind() == Type::Kind::FieldRef || it->kind() == Type::Kind::SNodeRef) {
    f->forKind = ForStmt::ForKind::Struct;
    f->overField = fieldOf(*f->iterable);
    if (!f->overField)
      f->overSNode = snodeOf(*f->iterable);
    unsigned nd = it->kind() == Type::Kind::FieldRef
                      ? static_cast<const FieldRefType *>(it)->ndim
                      : static_cast<const SNodeRefType *>(it)->ndim;
    for (unsigned k = 0; k < nd; ++k)
      varTypes.push_back(types->i32());
    if (!topLevel) {
      error(f->iterable->range, "a struct-for must be an outermost loop of a kernel");
      return;
    }
    if (nd == 0) {
      if (f->overField && !f->overField->place)
        return; // its layout statement already failed
      error(f->iterable->range, "cannot iterate a 0-D field or SNode");
      return;
    }
  } else {
    error(f->iterable->range, "cannot iterate over a value of type '" + typeName(it) +
                                  "' (expected range, ndrange, grouped, static(range), a "
                                  "field or an SNode)");
    return;
  }
  if (f->forKind == ForStmt::ForKind::Grouped || f->forKind == ForStmt::ForKind::Struct ||
      f->forKind == ForStmt::ForKind::NDRange) {
    if (f->vars.size() != varTypes.size()) {
      std::string what = f->forKind == ForStmt::ForKind::Grouped ? "grouped(...)"
                         : f->forKind == ForStmt::ForKind::NDRange ? "this ndrange"
                                                                    : "'" + std::string(f->overField ? f->overField->name : "this SNode") + "'";
      error(f->vars[0].range, "iterating " + what + " needs " + std::to_string(varTypes.size()) +
                                  " loop variable" + (varTypes.size() == 1 ? "" : "s") +
                                  ", got " + std::to_string(f->vars.size()));
      return;
    }
  } else if (f->vars.size() != 1) {
    error(f->vars[1].range, "range(...) needs 1 loop variable, got " +
                                std::to_string(f->vars.size()));
    return;
  }
  st->nonTopDepth++;
  st->loops.push_back({parallel, false, f->forKind == ForStmt::ForKind::Struct});
  pushScope();
  for (size_t k = 0; k < f->vars.size(); ++k)
    f->varDecls.push_back(declareLocal(f->vars[k], LocalVar::Kind::LoopVar, varTypes[k]));
  auto nb = std::make_unique<BlockStmt>(f->body->range);
  checkBlockInto(*f->body, nb->body, true);
  f->body = std::move(nb);
  popScope();
  st->loops.pop_back();
  st->nonTopDepth--;
  out.push_back(std::move(sp));
}

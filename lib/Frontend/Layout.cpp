//===- Layout.cpp - Building and validating the SNode tree -----------------===//

#include "SemaImpl.h"

#include <algorithm>
#include <map>

using namespace tic;
using namespace tic::sema;
using namespace tic::ast;

static bool isChainKind(SNode::Kind k) {
  return k == SNode::Kind::Dense || k == SNode::Kind::Pointer ||
         k == SNode::Kind::Bitmasked || k == SNode::Kind::Hash;
}

static bool isQuantElem(const Type *t) {
  if (t->isQuant())
    return true;
  if (auto *v = dynamic_cast<const VectorType *>(t))
    return v->elem->isQuant();
  if (auto *m = dynamic_cast<const MatrixType *>(t))
    return m->elem->isQuant();
  return false;
}

/// Storage bits of a quantized element (all components).
static unsigned quantBits(const Type *t, unsigned *components = nullptr) {
  unsigned n = 1;
  const Type *el = t;
  if (auto *v = dynamic_cast<const VectorType *>(t)) {
    n = v->size;
    el = v->elem;
  } else if (auto *m = dynamic_cast<const MatrixType *>(t)) {
    n = m->rows * m->cols;
    el = m->elem;
  }
  if (components)
    *components = n;
  auto *q = dynamic_cast<const QuantType *>(el);
  return q ? q->bits * n : 0;
}

static const QuantType *quantElem(const Type *t) {
  if (auto *v = dynamic_cast<const VectorType *>(t))
    t = v->elem;
  else if (auto *m = dynamic_cast<const MatrixType *>(t))
    t = m->elem;
  return dynamic_cast<const QuantType *>(t);
}

SNode *Sema::newSNode(SNode *parent, SNode::Kind k, SourceRange r) {
  auto sn = std::make_unique<SNode>();
  sn->kind = k;
  sn->parent = parent;
  sn->range = r;
  SNode *p = sn.get();
  parent->children.push_back(std::move(sn));
  return p;
}

void Sema::placeField(SNode *sn, FieldInfo *f, SourceRange r, bool sharedExp) {
  f->place = sn;
  f->sharedExponent = sharedExp;
  sn->places.push_back(f);
  placedAt[f] = r;
}

void Sema::buildLayout() {
  for (auto &d : program.decls) {
    auto *l = dyn_cast<LayoutDecl>(d.get());
    if (!l)
      continue;
    for (auto &s : l->stmts) {
      if (diags.limitReached())
        return;
      layoutStmt(s);
    }
  }
}

/// Names passed to any `.place(...)` in `e` (used to silence "never placed"
/// for fields whose layout statement already had an error).
static void placedNames(Expr &e, std::set<std::string> &out) {
  auto *c = dyn_cast<CallExpr>(&e);
  if (!c)
    return;
  if (auto *m = dyn_cast<MemberExpr>(c->callee.get())) {
    if (m->member == "place")
      for (auto &a : c->args) {
        if (auto *n = dyn_cast<NameExpr>(a.value.get()))
          out.insert(n->name);
        else if (auto *mm = dyn_cast<MemberExpr>(a.value.get()))
          if (auto *n = dyn_cast<NameExpr>(mm->base.get()))
            out.insert(n->name + "." + mm->member);
      }
    placedNames(*m->base, out);
  }
}

void Sema::layoutStmt(LayoutStmt &s) {
  unsigned before = diags.numErrors();
  SNode *sn = layoutExpr(*s.expr);
  if (!sn || diags.numErrors() != before)
    placedNames(*s.expr, failedPlaces);
  if (s.letName.name.empty())
    return;
  if (isReservedName(s.letName.name)) {
    error(s.letName.range, "'" + s.letName.name + "' is reserved and cannot be redefined");
    return;
  }
  auto it = globals.find(s.letName.name);
  if (it != globals.end()) {
    redefinition(s.letName.name, s.letName.range, it->second.range);
    return;
  }
  if (!sn) {
    // Uses of the name report nothing more: its statement's error is the
    // one to read.
    failedLets.insert(s.letName.name);
    return;
  }
  if (sn->kind == SNode::Kind::Root) {
    error(s.expr->range, "'let' in a layout names a new SNode, not 'root'");
    return;
  }
  if (sn->letName.empty())
    sn->letName = s.letName.name;
  GlobalEntry e;
  e.kind = GlobalEntry::Kind::LayoutLet;
  e.range = s.letName.range;
  e.snode = sn;
  globals.emplace(s.letName.name, e);
}

std::optional<std::vector<Axis>> Sema::parseAxes(Expr &e) {
  auto *n = dyn_cast<NameExpr>(&e);
  bool ok = n && !n->name.empty() && n->name.size() <= kMaxAxes;
  std::vector<Axis> axes;
  if (ok) {
    for (char c : n->name) {
      size_t k = std::string("ijkl").find(c);
      if (k == std::string::npos) {
        ok = false;
        break;
      }
      if (std::find(axes.begin(), axes.end(), Axis(k)) != axes.end()) {
        error(e.range, "axis '" + std::string(1, c) + "' appears twice in '" + n->name + "'");
        return std::nullopt;
      }
      axes.push_back(Axis(k));
    }
  }
  if (!ok) {
    error(e.range, "expected axes written with i, j, k, l (like 'i' or 'ij')");
    return std::nullopt;
  }
  e.type = types->getVoid();
  return axes;
}

/// Direct-child chain kinds from the layout method name.
static bool snodeKindOf(const std::string &m, SNode::Kind &k) {
  if (m == "dense") k = SNode::Kind::Dense;
  else if (m == "bitmasked") k = SNode::Kind::Bitmasked;
  else if (m == "pointer") k = SNode::Kind::Pointer;
  else if (m == "hash") k = SNode::Kind::Hash;
  else if (m == "dynamic") k = SNode::Kind::Dynamic;
  else if (m == "bit_struct") k = SNode::Kind::BitStruct;
  else if (m == "bit_array") k = SNode::Kind::BitArray;
  else return false;
  return true;
}

SNode *Sema::layoutExpr(Expr &e) {
  if (auto *n = dyn_cast<NameExpr>(&e)) {
    if (n->name == "root") {
      n->ref.kind = NameRef::SNode;
      n->ref.snode = mod->root.get();
      n->type = types->getSNodeRef(0);
      return mod->root.get();
    }
    auto it = globals.find(n->name);
    if (it != globals.end() && it->second.kind == GlobalEntry::Kind::LayoutLet) {
      n->ref.kind = NameRef::SNode;
      n->ref.snode = it->second.snode;
      n->type = types->getSNodeRef(0);
      return it->second.snode;
    }
    if (it != globals.end())
      error(n->range, "'" + n->name + "' is not an SNode");
    else if (!failedLets.count(n->name))
      error(n->range, "unknown SNode '" + n->name + "'");
    return nullptr;
  }
  auto *c = dyn_cast<CallExpr>(&e);
  auto *m = c ? dyn_cast<MemberExpr>(c->callee.get()) : nullptr;
  if (!m) {
    error(e.range, "expected an SNode expression such as 'root.dense(ij, n).place(x)'");
    return nullptr;
  }
  SNode *parent = layoutExpr(*m->base);
  if (!parent)
    return nullptr;
  const std::string &method = m->member;
  c->callKind = CallExpr::CallKind::Builtin;

  // Split positional and named arguments.
  std::vector<Argument *> pos;
  std::map<std::string, Argument *> named;
  for (auto &a : c->args) {
    if (a.name.empty()) {
      if (!named.empty() && method != "place") {
        error(a.value->range, "positional argument after a named one");
        return nullptr;
      }
      pos.push_back(&a);
    } else {
      if (named.count(a.name)) {
        error(a.nameRange, "argument '" + a.name + "' given twice");
        return nullptr;
      }
      named[a.name] = &a;
    }
  }
  auto onlyNamed = [&](std::initializer_list<const char *> allowed) {
    for (auto &kv : named) {
      bool ok = false;
      for (const char *a : allowed)
        ok |= kv.first == a;
      if (!ok) {
        error(kv.second->nameRange, "unknown argument '" + kv.first + "' of '" + method + "'");
        return false;
      }
    }
    return true;
  };

  if (method == "place") {
    if (!onlyNamed({"shared_exponent"}))
      return nullptr;
    if (pos.empty()) {
      error(c->range, "'place' expects at least one field");
      return nullptr;
    }
    bool shared = false;
    if (auto it = named.find("shared_exponent"); it != named.end()) {
      auto v = evalConst(*it->second->value, "'shared_exponent'");
      if (!v)
        return nullptr;
      if (v->kind != ConstValue::Kind::Bool) {
        error(it->second->value->range, "'shared_exponent' must be true or false");
        return nullptr;
      }
      shared = v->b;
      if (shared && parent->kind != SNode::Kind::BitStruct) {
        error(it->second->nameRange, "'shared_exponent' is only allowed when placing into a "
                                     "bit_struct");
        return nullptr;
      }
      if (shared)
        parent->sharedExponent = true;
    }
    if (parent->kind == SNode::Kind::Dynamic || parent->kind == SNode::Kind::BitStruct ||
        parent->kind == SNode::Kind::BitArray || isChainKind(parent->kind) ||
        parent->kind == SNode::Kind::Root) {
      // ok
    }
    for (Argument *a : pos) {
      const Type *t = checkExpr(*a->value);
      if (!t)
        continue;
      FieldInfo *f = const_cast<FieldInfo *>(fieldOf(*a->value));
      if (!f) {
        error(a->value->range, "'place' expects fields, got '" + typeName(t) + "'");
        continue;
      }
      if (f->shorthand) {
        error(a->value->range, "field '" + f->name + "' has a shape in its declaration and "
                               "cannot also be placed in a layout");
        note(f->range, "'" + (f->primal ? f->primal->name : f->name) + "' is declared here");
        continue;
      }
      if (f->place) {
        error(a->value->range, "field '" + f->name + "' is placed more than once");
        note(placedAt[f], "previous placement is here");
        continue;
      }
      bool q = isQuantElem(f->elemType);
      if (parent->kind == SNode::Kind::BitStruct || parent->kind == SNode::Kind::BitArray) {
        if (!q) {
          error(a->value->range, "only quantized fields can be placed in a " +
                                     std::string(SNode::kindName(parent->kind)) + "; '" +
                                     f->name + "' has type '" + typeName(f->elemType) + "'");
          continue;
        }
        if (parent->kind == SNode::Kind::BitArray) {
          if (!parent->places.empty()) {
            error(a->value->range, "a bit_array holds exactly one quantized field");
            note(placedAt[parent->places[0]], "'" + parent->places[0]->name +
                                                  "' is already placed here");
            continue;
          }
          if (!f->elemType->isQuant()) {
            error(a->value->range, "a bit_array holds a scalar quantized field; '" + f->name +
                                       "' has type '" + typeName(f->elemType) + "'");
            continue;
          }
        }
      } else if (q) {
        error(a->value->range, "quantized field '" + f->name +
                                   "' must be placed in a bit_struct or a bit_array");
        continue;
      }
      placeField(parent, f, a->value->range, shared);
    }
    c->type = types->getSNodeRef(0);
    return parent;
  }

  SNode::Kind kind;
  if (!snodeKindOf(method, kind)) {
    error(m->memberRange, "unknown SNode method '" + method + "' (expected dense, bitmasked, "
                          "pointer, hash, dynamic, bit_struct, bit_array or place)");
    return nullptr;
  }
  if (parent->kind == SNode::Kind::Dynamic) {
    error(m->memberRange, "a dynamic SNode can only hold fields ('place'), not a '" + method +
                              "' SNode");
    return nullptr;
  }
  if (parent->kind == SNode::Kind::BitStruct || parent->kind == SNode::Kind::BitArray) {
    error(m->memberRange, std::string("a ") + SNode::kindName(parent->kind) +
                              " can only hold quantized fields ('place')");
    return nullptr;
  }
  // Axes already used on the path and by which kinds.
  std::map<Axis, SNode::Kind> used;
  for (SNode *p = parent; p; p = p->parent)
    for (Axis a : p->axes)
      if (!used.count(a) || !isChainKind(p->kind))
        used[a] = p->kind;

  SNode *sn = nullptr;
  auto needPos = [&](size_t n) {
    if (pos.size() != n) {
      error(c->range, "'" + method + "' expects " + std::to_string(n) + " positional argument" +
                          (n == 1 ? "" : "s") + ", got " + std::to_string(pos.size()));
      return false;
    }
    return true;
  };
  auto positive = [&](Expr &x, const std::string &what) -> std::optional<int64_t> {
    auto v = evalIntArg(x, what);
    if (!v)
      return std::nullopt;
    if (*v <= 0) {
      error(x.range, what + " must be positive, got " + std::to_string(*v));
      return std::nullopt;
    }
    return v;
  };
  auto wordBits = [&](bool required) -> std::optional<int64_t> {
    auto it = named.find("bits");
    if (it == named.end()) {
      if (required)
        error(c->range, "'" + method + "' requires 'bits: W' (8, 16, 32 or 64)");
      return std::nullopt;
    }
    auto v = evalIntArg(*it->second->value, "'bits' of '" + method + "'");
    if (!v)
      return std::nullopt;
    if (*v != 8 && *v != 16 && *v != 32 && *v != 64) {
      error(it->second->value->range, "'bits' of '" + method + "' must be 8, 16, 32 or 64, got " +
                                          std::to_string(*v));
      return std::nullopt;
    }
    return v;
  };
  auto checkRepeat = [&](const std::vector<Axis> &axes, Expr &at) {
    for (Axis a : axes) {
      auto u = used.find(a);
      if (u == used.end())
        continue;
      bool ok = (isChainKind(kind) && isChainKind(u->second)) ||
                (kind == SNode::Kind::BitArray && isChainKind(u->second));
      if (!ok) {
        error(at.range, "axis '" + axisName(a) + "' is repeated on this path; only dense, "
                        "pointer, bitmasked and hash SNodes may split an axis again");
        return false;
      }
    }
    return true;
  };

  switch (kind) {
  case SNode::Kind::Dense:
  case SNode::Kind::Bitmasked:
  case SNode::Kind::Pointer:
  case SNode::Kind::Hash: {
    if (!onlyNamed({}) || !needPos(2))
      return nullptr;
    auto axes = parseAxes(*pos[0]->value);
    if (!axes)
      return nullptr;
    std::vector<int64_t> shape;
    if (auto *l = dyn_cast<ListExpr>(pos[1]->value.get())) {
      if (l->elements.size() != axes->size()) {
        error(l->range, "shape has " + std::to_string(l->elements.size()) + " extents but '" +
                            cast<NameExpr>(pos[0]->value.get())->name + "' has " +
                            std::to_string(axes->size()) + " axes");
        return nullptr;
      }
      for (auto &x : l->elements) {
        auto v = positive(*x, "SNode shape");
        if (!v)
          return nullptr;
        shape.push_back(*v);
      }
    } else {
      // An integer (every axis), or a compile-time integer vector such as a
      // list constant (`const grid = [64, 32]; root.dense(ij, grid)`).
      Expr &x = *pos[1]->value;
      auto v = evalConst(x, "SNode shape");
      if (!v)
        return nullptr;
      std::vector<ConstValue> parts = v->kind == ConstValue::Kind::Aggregate
                                          ? v->elems
                                          : std::vector<ConstValue>{*v};
      if (v->kind == ConstValue::Kind::Aggregate &&
          parts.size() != axes->size()) {
        error(x.range, "shape has " + std::to_string(parts.size()) +
                           " extents but '" +
                           cast<NameExpr>(pos[0]->value.get())->name +
                           "' has " + std::to_string(axes->size()) + " axes");
        return nullptr;
      }
      for (const ConstValue &p : parts) {
        if (p.kind != ConstValue::Kind::Int) {
          auto *bin = dyn_cast<BinaryExpr>(&x);
          bool div = bin && bin->op == BinaryOp::Div;
          error(x.range,
                "SNode shape must be an integer or a list of integers, got '" +
                    typeName(v->type) + "'" +
                    (div ? " ('/' divides as floats; use '//' for an integer "
                           "quotient)"
                         : ""));
          return nullptr;
        }
        if (p.i <= 0) {
          error(x.range,
                "SNode shape must be positive, got " + std::to_string(p.i));
          return nullptr;
        }
        shape.push_back(p.i);
      }
      if (shape.size() == 1)
        shape.assign(axes->size(), shape[0]);
    }
    if (!checkRepeat(*axes, *pos[0]->value))
      return nullptr;
    sn = newSNode(parent, kind, c->range);
    sn->axes = *axes;
    sn->shape = shape;
    break;
  }
  case SNode::Kind::Dynamic: {
    if (!onlyNamed({"chunk", "chunk_size"}) || !needPos(2))
      return nullptr;
    auto axes = parseAxes(*pos[0]->value);
    if (!axes)
      return nullptr;
    if (axes->size() != 1) {
      error(pos[0]->value->range, "a dynamic SNode has exactly one axis");
      return nullptr;
    }
    auto len = positive(*pos[1]->value, "maximum length of a dynamic SNode");
    if (!len)
      return nullptr;
    int64_t chunk = *len;
    Argument *ca = named.count("chunk") ? named["chunk"]
                   : named.count("chunk_size") ? named["chunk_size"] : nullptr;
    if (ca) {
      auto v = positive(*ca->value, "chunk size of a dynamic SNode");
      if (!v)
        return nullptr;
      chunk = *v;
    }
    if (!checkRepeat(*axes, *pos[0]->value))
      return nullptr;
    for (auto &u : used)
      if (u.first > (*axes)[0]) {
        error(pos[0]->value->range, "the axis of a dynamic SNode must be the last axis; '" +
                                        axisName(u.first) + "' comes after '" +
                                        axisName((*axes)[0]) + "' on this path");
        return nullptr;
      }
    sn = newSNode(parent, kind, c->range);
    sn->axes = *axes;
    sn->shape = {*len};
    sn->chunkSize = chunk;
    break;
  }
  case SNode::Kind::BitStruct: {
    if (!onlyNamed({"bits"}) || !needPos(0))
      return nullptr;
    auto w = wordBits(true);
    if (!w)
      return nullptr;
    sn = newSNode(parent, kind, c->range);
    sn->bits = unsigned(*w);
    break;
  }
  case SNode::Kind::BitArray: {
    if (!onlyNamed({"bits"}) || !needPos(2))
      return nullptr;
    auto axes = parseAxes(*pos[0]->value);
    if (!axes)
      return nullptr;
    if (axes->size() != 1) {
      error(pos[0]->value->range, "a bit_array packs along exactly one axis");
      return nullptr;
    }
    auto n = positive(*pos[1]->value, "element count of a bit_array");
    auto w = wordBits(true);
    if (!n || !w)
      return nullptr;
    if (!checkRepeat(*axes, *pos[0]->value))
      return nullptr;
    sn = newSNode(parent, kind, c->range);
    sn->axes = *axes;
    sn->shape = {*n};
    sn->bits = unsigned(*w);
    break;
  }
  case SNode::Kind::Root:
    return nullptr;
  }
  c->type = types->getSNodeRef(0);
  return sn;
}

/// "field 'f'" for the SNode of `field f: T[...]`, else "this dense SNode".
static std::string describeSNode(const SNode *sn) {
  if (sn->implicit && !sn->places.empty())
    return "field '" + sn->places[0]->name + "'";
  return "this " + std::string(SNode::kindName(sn->kind)) + " SNode";
}

void Sema::computeDerived(SNode *sn) {
  if (sn->parent) {
    sn->indexAxes = sn->parent->indexAxes;
    sn->extents = sn->parent->extents;
    sn->unboundedAxes = sn->parent->unboundedAxes;
    sn->underHash = sn->parent->underHash || sn->kind == SNode::Kind::Hash;
  }
  for (size_t k = 0; k < sn->axes.size(); ++k) {
    auto it = std::find(sn->indexAxes.begin(), sn->indexAxes.end(), sn->axes[k]);
    int64_t extent = sn->shape[k];
    if (it != sn->indexAxes.end() &&
        __builtin_mul_overflow(sn->extents[it - sn->indexAxes.begin()],
                               sn->shape[k], &extent))
      extent = INT64_MAX;
    // Indices are i32 (a hash SNode's shape only sizes its table).
    if (extent > kMaxAxisExtent && !sn->underHash) {
      error(sn->range,
            "the extent of axis '" + axisName(sn->axes[k]) + "' of " +
                describeSNode(sn) + " is " +
                (extent == INT64_MAX ? std::string("over 2^63")
                                     : std::to_string(extent)) +
                ", more than " + std::to_string(kMaxAxisExtent) +
                ": field indices are i32 (split the axis, or add an axis)");
      extent = kMaxAxisExtent;
    }
    if (it != sn->indexAxes.end())
      sn->extents[it - sn->indexAxes.begin()] = extent;
    else {
      sn->indexAxes.push_back(sn->axes[k]);
      sn->extents.push_back(extent);
      sn->unboundedAxes.push_back(sn->kind == SNode::Kind::Hash);
    }
  }
  // Ascending axis order.
  std::vector<std::tuple<Axis, int64_t, bool>> z;
  for (size_t k = 0; k < sn->indexAxes.size(); ++k)
    z.push_back({sn->indexAxes[k], sn->extents[k], sn->unboundedAxes[k]});
  std::sort(z.begin(), z.end());
  sn->indexAxes.clear();
  sn->extents.clear();
  sn->unboundedAxes.clear();
  for (auto &[a, e, u] : z) {
    sn->indexAxes.push_back(a);
    sn->extents.push_back(e);
    sn->unboundedAxes.push_back(u);
  }
  sn->id = mod->snodes.size();
  mod->snodes.push_back(sn);
  for (auto &c : sn->children)
    computeDerived(c.get());
}

/// Storage bytes of one element of `t` (an estimate that ignores padding:
/// the layout limit is far from where 64-bit arithmetic could overflow).
static int64_t elementBytes(const Type *t) {
  if (auto *s = dynamic_cast<const ScalarType *>(t))
    return std::max<int64_t>(1, s->bits / 8);
  if (auto *q = dynamic_cast<const QuantType *>(t))
    return std::max<int64_t>(1, (q->bits + 7) / 8);
  if (auto *v = dynamic_cast<const VectorType *>(t))
    return v->size * elementBytes(v->elem);
  if (auto *m = dynamic_cast<const MatrixType *>(t))
    return int64_t(m->rows) * m->cols * elementBytes(m->elem);
  if (auto *st = dynamic_cast<const StructType *>(t)) {
    int64_t n = 0;
    for (const StructType::Member &m : st->members)
      n += elementBytes(m.type);
    return std::max<int64_t>(1, n);
  }
  return 8;
}

int64_t Sema::layoutBytes(SNode *sn) {
  constexpr int64_t kTooBig = kMaxLayoutBytes + 1;
  auto add = [&](int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) || r > kTooBig ? kTooBig : r;
  };
  auto mul = [&](int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) || r > kTooBig ? kTooBig : r;
  };
  // One cell: the places and the children's containers. Bit-packed nodes
  // hold one word.
  int64_t cell = 0;
  if (sn->kind == SNode::Kind::BitStruct || sn->kind == SNode::Kind::BitArray)
    cell = sn->bits / 8;
  else
    for (FieldInfo *f : sn->places)
      cell = add(cell, elementBytes(f->elemType));
  for (auto &c : sn->children) {
    int64_t b = layoutBytes(c.get());
    if (b > kTooBig)
      return b; // reported
    cell = add(cell, b);
    if (cell == kTooBig) {
      error(c->range, "with " + describeSNode(c.get()) +
                          " the layout needs more than 2^47 bytes (128 TiB), "
                          "the largest layout tic compiles");
      return kTooBig + 1;
    }
  }
  int64_t cells = 1;
  for (int64_t s : sn->shape)
    cells = mul(cells, s);
  int64_t bytes;
  switch (sn->kind) {
  case SNode::Kind::Pointer:
  case SNode::Kind::Hash:
    bytes = mul(cells, 8); // pointers; cells are allocated on activation
    break;
  case SNode::Kind::BitArray:
    bytes = cell;
    break;
  default:
    bytes = add(mul(cells, cell),
                sn->kind == SNode::Kind::Bitmasked ? (cells + 7) / 8 : 0);
    break;
  }
  // A sparse node's cells must all fit too.
  if (sn->isSparse() && mul(cells, cell) == kTooBig)
    bytes = kTooBig;
  if (bytes == kTooBig) {
    error(sn->range, "the storage of " + describeSNode(sn) +
                         " needs more than 2^47 bytes "
                         "(128 TiB), the largest layout tic compiles");
    return kTooBig + 1; // reported once
  }
  return bytes;
}

void Sema::validateSNode(SNode *sn) {
  if (sn->kind == SNode::Kind::BitStruct) {
    unsigned total = 0;
    if (sn->sharedExponent) {
      const QuantType *first = nullptr;
      unsigned fracs = 0;
      for (FieldInfo *f : sn->places) {
        const QuantType *q = quantElem(f->elemType);
        if (!f->sharedExponent) {
          unsigned n = 0;
          total += quantBits(f->elemType, &n);
          continue;
        }
        if (!q || q->qkind != QuantType::QKind::Float) {
          error(placedAt[f], "shared_exponent needs quant.float fields; '" + f->name +
                                 "' has type '" + typeName(f->elemType) + "'");
          return;
        }
        if (first && first->exp != q->exp) {
          error(placedAt[f], "fields sharing an exponent must have the same 'exp' (" +
                                 std::to_string(first->exp) + " vs " + std::to_string(q->exp) + ")");
          return;
        }
        if (first &&
            (first->frac != q->frac || first->isSigned != q->isSigned)) {
          error(placedAt[f],
                "fields sharing an exponent must have the same 'frac' and "
                "'signed' (" +
                    typeName(first) + " vs " + typeName(q) + ")");
          return;
        }
        if (!first)
          first = q;
        unsigned n = 0;
        quantBits(f->elemType, &n);
        fracs += q->frac * n;
      }
      if (first)
        total += first->exp + fracs;
      // Sharing needs something to share with.
      unsigned members = 0;
      FieldInfo *only = nullptr;
      for (FieldInfo *f : sn->places)
        if (f->sharedExponent) {
          unsigned n = 0;
          quantBits(f->elemType, &n);
          members += n;
          only = f;
        }
      if (members == 1) {
        error(placedAt[only], "shared_exponent needs at least two quant.float "
                              "components to share it; '" +
                                  only->name + "' is the only one");
        return;
      }
    } else {
      for (FieldInfo *f : sn->places)
        total += quantBits(f->elemType);
    }
    // Bit offsets (LSB first, place order; a shared-exponent field's
    // components keep their digits, the exponent follows the last of them:
    // AllocateLayout.cpp's layoutBits does the same).
    unsigned off = 0;
    FieldInfo *lastShared = nullptr;
    for (FieldInfo *f : sn->places)
      if (f->sharedExponent)
        lastShared = f;
    for (FieldInfo *f : sn->places) {
      f->bitOffset = off;
      if (f->sharedExponent) {
        unsigned n = 0;
        const QuantType *q = quantElem(f->elemType);
        quantBits(f->elemType, &n);
        off += q->frac * n + (f == lastShared ? q->exp : 0);
      } else {
        off += quantBits(f->elemType);
      }
    }
    if (total > sn->bits) {
      error(sn->range, "bit_struct members need " + std::to_string(total) +
                           " bits, more than its " + std::to_string(sn->bits) + "-bit word");
      return;
    }
  }
  if (sn->kind == SNode::Kind::BitArray) {
    if (sn->places.empty()) {
      error(sn->range, "a bit_array must hold one quantized field");
      return;
    }
    unsigned b = quantBits(sn->places[0]->elemType);
    if (int64_t(b) * sn->shape[0] > int64_t(sn->bits)) {
      error(sn->range, "bit_array of " + std::to_string(sn->shape[0]) + " elements of " +
                           std::to_string(b) + " bits needs " +
                           std::to_string(int64_t(b) * sn->shape[0]) + " bits, more than its " +
                           std::to_string(sn->bits) + "-bit word");
      return;
    }
  }
  for (auto &c : sn->children)
    validateSNode(c.get());
}

void Sema::finishLayout() {
  // Adjoints not placed explicitly go beside their primal. Those of a
  // quantized field hold compute-type values: beside the bit_struct (one of
  // its cells per cell), or in a dense node with the bit_array's axes and
  // shape beside it (one value per lane).
  std::map<SNode *, SNode *> laneNodes;
  for (auto &f : mod->fields) {
    if (f->primal || !f->place)
      continue;
    SNode *home = f->place;
    if (home->kind == SNode::Kind::BitStruct && home->parent) {
      home = home->parent;
    } else if (home->kind == SNode::Kind::BitArray && home->parent &&
               (f->grad || f->dual)) {
      SNode *&lanes = laneNodes[home];
      if (!lanes) {
        lanes = newSNode(home->parent, SNode::Kind::Dense, home->range);
        lanes->implicit = true;
        lanes->axes = home->axes;
        lanes->shape = home->shape;
      }
      home = lanes;
    }
    for (FieldInfo *c : {f->grad, f->dual})
      if (c && !c->place)
        placeField(home, c, placedAt[f.get()], false);
  }
  for (auto &f : mod->fields) {
    if (f->place || (f->primal && !f->primal->place) || failedPlaces.count(f->name))
      continue;
    if (f->primal) {
      error(f->range, "adjoint field '" + f->name + "' is never placed");
      continue;
    }
    error(f->range, "field '" + f->name + "' is never placed; place it in a layout or give it "
                    "a shape ('field " + f->name + ": T[n];')");
  }
  computeDerived(mod->root.get());
  validateSNode(mod->root.get());
  layoutBytes(mod->root.get());
  for (auto &f : mod->fields) {
    if (!f->place)
      continue;
    f->axes = f->place->indexAxes;
    f->shape = f->place->extents;
    f->is0D = f->axes.empty();
    f->unbounded = f->place->underHash;
    f->unboundedAxes = f->place->unboundedAxes;
    for (size_t k = 0; k < f->axes.size(); ++k)
      if (f->axes[k] != Axis(k)) {
        error(placedAt[f.get()], "field '" + f->name + "' is indexed along axis '" +
                                     axisName(f->axes[k]) + "' but not along axis '" +
                                     axisName(Axis(k)) + "'; index axes start at i");
        break;
      }
  }
  // Fields placed together share one index space; companions mirror.
  for (auto &f : mod->fields)
    if (f->primal && f->place && f->primal->place && f->axes != f->primal->axes)
      error(placedAt[f.get()], "adjoint field '" + f->name + "' must have the same index axes "
                               "as '" + f->primal->name + "'");
}

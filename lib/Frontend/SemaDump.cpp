//===- SemaDump.cpp - `tic --emit=sema` ------------------------------------===//

#include "tic/Frontend/Sema.h"

#include <sstream>

using namespace tic;
using namespace tic::sema;
using namespace tic::ast;

namespace {

std::string ints(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string axes(const std::vector<Axis> &v) {
  std::string s;
  for (Axis a : v)
    s += axisName(a);
  return s.empty() ? "-" : s;
}

std::string ty(const Type *t) { return t ? t->str() : "<error>"; }

class Printer {
public:
  explicit Printer(std::ostream &os) : os(os) {}
  std::ostream &os;

  std::string expr(const Expr &e) {
    if (e.constValue && e.type && e.type->kind() != Type::Kind::Meta &&
        e.type->kind() != Type::Kind::String)
      return e.constValue->str() + ":" + ty(e.type);
    switch (e.kind) {
    case Expr::IntLit: return cast<IntLitExpr>(&e)->spelling;
    case Expr::FloatLit: return cast<FloatLitExpr>(&e)->spelling;
    case Expr::BoolLit: return cast<BoolLitExpr>(&e)->value ? "true" : "false";
    case Expr::StringLit: return e.constValue ? e.constValue->str() : "\"...\"";
    case Expr::Name: {
      auto *n = cast<NameExpr>(&e);
      if (n->ref.kind == NameRef::Field || n->ref.kind == NameRef::SNode ||
          n->ref.kind == NameRef::Type || n->ref.kind == NameRef::Builtin ||
          n->ref.kind == NameRef::Func)
        return n->name;
      return n->name + ":" + ty(e.type);
    }
    case Expr::Call: {
      auto *c = cast<CallExpr>(&e);
      std::string s;
      if (c->callKind == CallExpr::CallKind::Func && c->func)
        s = c->func->exportName;
      else
        s = expr(*c->callee);
      s += "(";
      for (size_t i = 0; i < c->args.size(); ++i) {
        s += i ? ", " : "";
        if (!c->args[i].name.empty())
          s += c->args[i].name + ": ";
        s += expr(*c->args[i].value);
      }
      s += ")";
      if (e.type && !e.type->isVoid())
        s += ":" + ty(e.type);
      return s;
    }
    case Expr::Index: {
      auto *x = cast<IndexExpr>(&e);
      std::string s = expr(*x->base) + "[";
      for (size_t i = 0; i < x->indices.size(); ++i)
        s += (i ? ", " : "") + expr(*x->indices[i]);
      return s + "]:" + ty(e.type);
    }
    case Expr::Member: {
      auto *m = cast<MemberExpr>(&e);
      if (m->field)
        return m->field->name;
      return expr(*m->base) + "." + m->member + ":" + ty(e.type);
    }
    case Expr::Unary: {
      auto *u = cast<UnaryExpr>(&e);
      std::string op = spelling(u->op);
      return "(" + op + (op == "not" ? " " : "") + expr(*u->operand) + "):" + ty(e.type);
    }
    case Expr::Binary: {
      auto *b = cast<BinaryExpr>(&e);
      return "(" + expr(*b->lhs) + " " + spelling(b->op) + " " + expr(*b->rhs) + "):" +
             ty(e.type);
    }
    case Expr::Compare: {
      auto *c = cast<CompareExpr>(&e);
      std::string s = "(" + expr(*c->operands[0]);
      for (size_t i = 0; i < c->ops.size(); ++i)
        s += std::string(" ") + spelling(c->ops[i]) + " " + expr(*c->operands[i + 1]);
      return s + "):" + ty(e.type);
    }
    case Expr::Ternary: {
      auto *t = cast<TernaryExpr>(&e);
      return "(" + expr(*t->trueValue) + " if " + expr(*t->cond) + " else " +
             expr(*t->falseValue) + "):" + ty(e.type);
    }
    case Expr::Static:
      return "static(" + expr(*cast<StaticExpr>(&e)->operand) + ")";
    case Expr::Cast:
      return "cast<" + ty(e.type) + ">(" + expr(*cast<CastExpr>(&e)->operand) + ")";
    case Expr::List: {
      auto *l = cast<ListExpr>(&e);
      std::string s = "[";
      for (size_t i = 0; i < l->elements.size(); ++i)
        s += (i ? ", " : "") + expr(*l->elements[i]);
      return s + "]:" + ty(e.type);
    }
    case Expr::StructLit: {
      auto *s = cast<StructLitExpr>(&e);
      std::string r = s->structName + "{";
      for (size_t i = 0; i < s->members.size(); ++i)
        r += (i ? ", " : "") + s->members[i].name + ": " + expr(*s->members[i].value);
      return r + "}";
    }
    }
    return "?";
  }

  void stmt(const Stmt &s, int ind) {
    std::string pad(ind * 2, ' ');
    switch (s.kind) {
    case Stmt::Block: {
      os << pad << "{\n";
      for (auto &x : cast<BlockStmt>(&s)->body)
        stmt(*x, ind + 1);
      os << pad << "}\n";
      return;
    }
    case Stmt::Let: {
      auto *l = cast<LetStmt>(&s);
      os << pad << (l->isVar ? "var " : "let ");
      for (size_t i = 0; i < l->names.size(); ++i)
        os << (i ? ", " : "") << l->names[i].name << ": "
           << ty(i < l->decls.size() && l->decls[i] ? l->decls[i]->type : nullptr);
      os << " = " << expr(*l->init) << "\n";
      return;
    }
    case Stmt::Var: {
      auto *v = cast<VarStmt>(&s);
      os << pad << "var " << v->name.name << ": " << ty(v->decl ? v->decl->type : nullptr);
      if (v->init)
        os << " = " << expr(*v->init);
      os << "\n";
      return;
    }
    case Stmt::If: {
      auto *i = cast<IfStmt>(&s);
      os << pad << "if " << expr(*i->cond) << "\n";
      stmt(*i->thenBody, ind);
      if (i->elseBody) {
        os << pad << "else\n";
        stmt(*i->elseBody, ind);
      }
      return;
    }
    case Stmt::While: {
      auto *w = cast<WhileStmt>(&s);
      os << pad << "while " << expr(*w->cond) << "\n";
      stmt(*w->body, ind);
      return;
    }
    case Stmt::For: {
      auto *f = cast<ForStmt>(&s);
      os << pad << "for ";
      for (size_t i = 0; i < f->vars.size(); ++i)
        os << (i ? ", " : "") << f->vars[i].name << ": "
           << ty(i < f->varDecls.size() ? f->varDecls[i]->type : nullptr);
      os << " in " << expr(*f->iterable) << " [";
      switch (f->forKind) {
      case ForStmt::ForKind::Range: os << "range"; break;
      case ForStmt::ForKind::NDRange: os << "ndrange"; break;
      case ForStmt::ForKind::Struct: os << "struct"; break;
      case ForStmt::ForKind::Grouped: os << "grouped"; break;
      default: os << "?"; break;
      }
      os << (f->isParallel ? ", parallel" : ", serial");
      if (f->blockDim)
        os << ", block_dim=" << f->blockDim;
      if (f->parallelize)
        os << ", parallelize=" << f->parallelize;
      os << "]\n";
      stmt(*f->body, ind);
      return;
    }
    case Stmt::Break: os << pad << "break\n"; return;
    case Stmt::Continue: os << pad << "continue\n"; return;
    case Stmt::Return: {
      auto *r = cast<ReturnStmt>(&s);
      os << pad << "return";
      if (r->value)
        os << " " << expr(*r->value);
      os << "\n";
      return;
    }
    case Stmt::StaticAssert: os << pad << "static_assert\n"; return;
    case Stmt::Assign: {
      auto *a = cast<AssignStmt>(&s);
      os << pad << expr(*a->target) << " " << spelling(a->op) << " " << expr(*a->value);
      if (a->isReduction)
        os << " [reduction]";
      else if (a->isAtomic)
        os << " [atomic]";
      os << "\n";
      return;
    }
    case Stmt::ExprStmt:
      os << pad << expr(*cast<ExprStmt>(&s)->expr) << "\n";
      return;
    }
  }

  void snode(const SNode &sn, int ind) {
    os << std::string(ind * 2 + 2, ' ') << "#" << sn.id << " " << SNode::kindName(sn.kind);
    if (!sn.axes.empty())
      os << " " << axes(sn.axes) << " shape=" << ints(sn.shape);
    if (sn.kind == SNode::Kind::Dynamic)
      os << " chunk=" << sn.chunkSize;
    if (sn.bits)
      os << " bits=" << sn.bits;
    if (sn.sharedExponent)
      os << " shared_exponent";
    os << " index=" << axes(sn.indexAxes) << ints(sn.extents);
    if (!sn.letName.empty())
      os << " let=" << sn.letName;
    if (sn.implicit)
      os << " implicit";
    if (!sn.places.empty()) {
      os << " places=[";
      for (size_t i = 0; i < sn.places.size(); ++i)
        os << (i ? ", " : "") << sn.places[i]->name;
      os << "]";
    }
    os << "\n";
    for (auto &c : sn.children)
      snode(*c, ind + 1);
  }

  void function(const CheckedFunction &f, const char *what) {
    os << what << " " << f.exportName;
    if (f.isInstance) {
      os << " = " << f.templateName << "(";
      for (size_t i = 0; i < f.templateArgs.size(); ++i)
        os << (i ? ", " : "") << f.templateArgs[i].str();
      os << ")";
    }
    if (f.noGrad)
      os << " @no_grad";
    if (!f.gradOf.empty())
      os << " @grad_of(" << f.gradOf << ")";
    os << "\n";
    for (auto &p : f.params) {
      os << "  param " << p.name << ": " << ty(p.type);
      if (p.isTemplate)
        os << " = " << p.bound.str();
      os << "\n";
    }
    os << "  returns " << ty(f.returnType) << "\n";
    if (f.body)
      stmt(*f.body, 1);
  }
};

} // namespace

void CheckedModule::dump(std::ostream &os) const {
  Printer p(os);
  os << "module " << name << "\n";
  os << "default-fp " << defaultFloat << "\n";
  for (auto &c : constants) {
    os << "constant " << c->name << ": " << ty(c->type) << " = " << c->value.str();
    if (c->overridden)
      os << " (-D " << c->name << "=" << c->overrideText << ")";
    os << "\n";
  }
  for (auto *s : structs) {
    os << "struct " << s->name << " {";
    for (size_t i = 0; i < s->members.size(); ++i)
      os << (i ? ", " : " ") << s->members[i].name << ": " << ty(s->members[i].type);
    os << " }\n";
  }
  for (auto &f : fields) {
    os << "field " << f->name << ": " << ty(f->elemType);
    if (f->is0D)
      os << " 0-D";
    else
      os << " axes=" << axes(f->axes) << " shape=" << ints(f->shape);
    if (f->unbounded)
      os << " unbounded";
    if (f->needsGrad)
      os << " needs_grad";
    if (f->needsDual)
      os << " needs_dual";
    if (f->place)
      os << " place=#" << f->place->id;
    if (f->place && (f->place->kind == SNode::Kind::BitStruct ||
                     f->place->kind == SNode::Kind::BitArray))
      os << " bit_offset=" << f->bitOffset;
    if (f->sharedExponent)
      os << " shared_exponent";
    os << "\n";
  }
  os << "layout\n";
  if (root)
    p.snode(*root, 0);
  for (auto &k : kernels)
    p.function(*k, "kernel");
  for (auto &f : funcs)
    p.function(*f, "func");
}

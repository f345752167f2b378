//===- AST.cpp - AST printing and cloning ---------------------------------===//

#include "tic/Frontend/AST.h"

#include <cstdio>
#include <sstream>

using namespace tic;
using namespace tic::ast;

TypeExpr::~TypeExpr() = default;
Expr::~Expr() = default;
Stmt::~Stmt() = default;
Decl::~Decl() = default;

const char *ast::spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Plus: return "+";
  case UnaryOp::BitNot: return "~";
  case UnaryOp::Not: return "not";
  }
  return "?";
}

const char *ast::spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::FloorDiv: return "//";
  case BinaryOp::Mod: return "%";
  case BinaryOp::Pow: return "**";
  case BinaryOp::MatMul: return "@";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::And: return "and";
  case BinaryOp::Or: return "or";
  }
  return "?";
}

const char *ast::spelling(CmpOp op) {
  switch (op) {
  case CmpOp::Eq: return "==";
  case CmpOp::Ne: return "!=";
  case CmpOp::Lt: return "<";
  case CmpOp::Le: return "<=";
  case CmpOp::Gt: return ">";
  case CmpOp::Ge: return ">=";
  }
  return "?";
}

const char *ast::spelling(AssignOp op) {
  switch (op) {
  case AssignOp::Assign: return "=";
  case AssignOp::Add: return "+=";
  case AssignOp::Sub: return "-=";
  case AssignOp::Mul: return "*=";
  case AssignOp::Div: return "/=";
  case AssignOp::FloorDiv: return "//=";
  case AssignOp::Mod: return "%=";
  case AssignOp::Pow: return "**=";
  case AssignOp::BitAnd: return "&=";
  case AssignOp::BitOr: return "|=";
  case AssignOp::BitXor: return "^=";
  case AssignOp::Shl: return "<<=";
  case AssignOp::Shr: return ">>=";
  case AssignOp::Min: return "min=";
  case AssignOp::Max: return "max=";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Dumping
//===----------------------------------------------------------------------===//

namespace {

std::string locStr(const SourceRange &r) {
  std::ostringstream os;
  os << "<" << r.begin.line << ":" << r.begin.col << ">";
  return os.str();
}

std::string quoted(const std::string &s) {
  std::string r = "\"";
  for (char c : s) {
    switch (c) {
    case '\n': r += "\\n"; break;
    case '\t': r += "\\t"; break;
    case '"': r += "\\\""; break;
    case '\\': r += "\\\\"; break;
    case '\r': r += "\\r"; break;
    case '\0': r += "\\0"; break;
    default:
      if ((unsigned char)c < 0x20 || c == 0x7f) {
        char buf[8];
        snprintf(buf, sizeof buf, "\\x%02x", (unsigned char)c);
        r += buf;
      } else {
        r += c;
      }
    }
  }
  return r + "\"";
}

class Dumper {
public:
  explicit Dumper(std::ostream &os) : os(os) {}

  void line(const std::string &text) {
    os << std::string(indent * 2, ' ') << text << "\n";
  }

  struct Indent {
    Dumper &d;
    explicit Indent(Dumper &d) : d(d) { ++d.indent; }
    ~Indent() { --d.indent; }
  };

  std::string typeStr(const TypeExpr *t) {
    if (!t)
      return "<none>";
    switch (t->kind) {
    case TypeExpr::Template:
      return "template";
    case TypeExpr::Inferred:
      return "<inferred>";
    case TypeExpr::Named:
      return cast<NamedTypeExpr>(t)->name;
    case TypeExpr::Generic: {
      auto *g = cast<GenericTypeExpr>(t);
      std::string s = g->name + "<";
      for (size_t i = 0; i < g->args.size(); ++i) {
        if (i)
          s += ", ";
        s += g->args[i].type ? typeStr(g->args[i].type.get())
                             : exprStr(*g->args[i].value);
      }
      return s + ">";
    }
    case TypeExpr::Quant: {
      auto *q = cast<QuantTypeExpr>(t);
      std::string s = q->nameSpace + "." + q->quantKind + "(";
      for (size_t i = 0; i < q->args.size(); ++i) {
        if (i)
          s += ", ";
        if (!q->args[i].name.empty())
          s += q->args[i].name + ": ";
        s += exprStr(*q->args[i].value);
      }
      return s + ")";
    }
    }
    return "?";
  }

  /// A one-line rendering used inside types and for short operands.
  /// A source-like, fully parenthesised rendering of a (small) expression,
  /// used inside types: `vec<f32, (n + 1)>`, `quant.int(bits: 5)`.
  std::string exprStr(const Expr &e) {
    switch (e.kind) {
    case Expr::IntLit:
      return cast<IntLitExpr>(&e)->spelling;
    case Expr::FloatLit:
      return cast<FloatLitExpr>(&e)->spelling;
    case Expr::BoolLit:
      return cast<BoolLitExpr>(&e)->value ? "true" : "false";
    case Expr::StringLit:
      return quoted(cast<StringLitExpr>(&e)->value);
    case Expr::Name:
      return cast<NameExpr>(&e)->name;
    case Expr::Member: {
      auto *m = cast<MemberExpr>(&e);
      return exprStr(*m->base) + "." + m->member;
    }
    case Expr::Unary: {
      auto *u = cast<UnaryExpr>(&e);
      std::string op = spelling(u->op);
      return "(" + op + (u->op == UnaryOp::Not ? " " : "") +
             exprStr(*u->operand) + ")";
    }
    case Expr::Binary: {
      auto *b = cast<BinaryExpr>(&e);
      return "(" + exprStr(*b->lhs) + " " + spelling(b->op) + " " +
             exprStr(*b->rhs) + ")";
    }
    case Expr::Compare: {
      auto *c = cast<CompareExpr>(&e);
      std::string r = "(" + exprStr(*c->operands[0]);
      for (size_t i = 0; i < c->ops.size(); ++i)
        r += std::string(" ") + spelling(c->ops[i]) + " " +
             exprStr(*c->operands[i + 1]);
      return r + ")";
    }
    case Expr::Ternary: {
      auto *t = cast<TernaryExpr>(&e);
      return "(" + exprStr(*t->trueValue) + " if " + exprStr(*t->cond) +
             " else " + exprStr(*t->falseValue) + ")";
    }
    case Expr::Static:
      return "static(" + exprStr(*cast<StaticExpr>(&e)->operand) + ")";
    case Expr::Cast: {
      auto *c = cast<CastExpr>(&e);
      return "cast<" + typeStr(c->target.get()) + ">(" + exprStr(*c->operand) +
             ")";
    }
    case Expr::List: {
      std::string r = "[";
      auto &els = cast<ListExpr>(&e)->elements;
      for (size_t i = 0; i < els.size(); ++i)
        r += (i ? ", " : "") + exprStr(*els[i]);
      return r + "]";
    }
    case Expr::Call:
    case Expr::Index:
    case Expr::StructLit: {
      // Rare inside types: keep it readable without recursing on arguments.
      std::string head = e.kind == Expr::Call    ? "call"
                         : e.kind == Expr::Index ? "index"
                                                 : "struct";
      return head + "(...)";
    }
    }
    return "?";
  }

  void args(const std::vector<Argument> &as) {
    for (const Argument &a : as) {
      if (!a.name.empty()) {
        line("Arg " + a.name);
        Indent in(*this);
        expr(*a.value);
      } else {
        expr(*a.value);
      }
    }
  }

  void expr(const Expr &e) {
    std::string at = " " + locStr(e.range);
    switch (e.kind) {
    case Expr::IntLit:
      line("IntLit " + cast<IntLitExpr>(&e)->spelling + at);
      return;
    case Expr::FloatLit:
      line("FloatLit " + cast<FloatLitExpr>(&e)->spelling + at);
      return;
    case Expr::BoolLit:
      line(std::string("BoolLit ") +
           (cast<BoolLitExpr>(&e)->value ? "true" : "false") + at);
      return;
    case Expr::StringLit:
      line("StringLit " + quoted(cast<StringLitExpr>(&e)->value) + at);
      return;
    case Expr::Name:
      line("Name " + cast<NameExpr>(&e)->name + at);
      return;
    case Expr::Call: {
      auto *c = cast<CallExpr>(&e);
      line("Call" + at);
      Indent in(*this);
      expr(*c->callee);
      args(c->args);
      return;
    }
    case Expr::Index: {
      auto *x = cast<IndexExpr>(&e);
      line("Index" + at);
      Indent in(*this);
      expr(*x->base);
      for (auto &i : x->indices)
        expr(*i);
      return;
    }
    case Expr::Member: {
      auto *m = cast<MemberExpr>(&e);
      line("Member ." + m->member + at);
      Indent in(*this);
      expr(*m->base);
      return;
    }
    case Expr::Unary: {
      auto *u = cast<UnaryExpr>(&e);
      line(std::string("Unary ") + spelling(u->op) + at);
      Indent in(*this);
      expr(*u->operand);
      return;
    }
    case Expr::Binary: {
      auto *b = cast<BinaryExpr>(&e);
      line(std::string("Binary ") + spelling(b->op) + at);
      Indent in(*this);
      expr(*b->lhs);
      expr(*b->rhs);
      return;
    }
    case Expr::Compare: {
      auto *c = cast<CompareExpr>(&e);
      std::string ops;
      for (CmpOp op : c->ops)
        ops += std::string(" ") + spelling(op);
      line("Compare" + ops + at);
      Indent in(*this);
      for (auto &o : c->operands)
        expr(*o);
      return;
    }
    case Expr::Ternary: {
      auto *t = cast<TernaryExpr>(&e);
      line("Ternary" + at);
      Indent in(*this);
      expr(*t->cond);
      expr(*t->trueValue);
      expr(*t->falseValue);
      return;
    }
    case Expr::Static:
      line("Static" + at);
      {
        Indent in(*this);
        expr(*cast<StaticExpr>(&e)->operand);
      }
      return;
    case Expr::Cast: {
      auto *c = cast<CastExpr>(&e);
      line("Cast " + typeStr(c->target.get()) + at);
      Indent in(*this);
      expr(*c->operand);
      return;
    }
    case Expr::List: {
      line("List" + at);
      Indent in(*this);
      for (auto &x : cast<ListExpr>(&e)->elements)
        expr(*x);
      return;
    }
    case Expr::StructLit: {
      auto *s = cast<StructLitExpr>(&e);
      line("StructLit " + s->structName + at);
      Indent in(*this);
      args(s->members);
      return;
    }
    }
  }

  void stmt(const Stmt &s) {
    std::string at = " " + locStr(s.range);
    switch (s.kind) {
    case Stmt::Block: {
      line("Block" + at);
      Indent in(*this);
      for (auto &x : cast<BlockStmt>(&s)->body)
        stmt(*x);
      return;
    }
    case Stmt::Let: {
      auto *l = cast<LetStmt>(&s);
      std::string names;
      for (size_t i = 0; i < l->names.size(); ++i)
        names += (i ? ", " : "") + l->names[i].name;
      line(std::string(l->isVar ? "VarDestructure " : "Let ") + names +
           (l->declType ? ": " + typeStr(l->declType.get()) : "") + at);
      Indent in(*this);
      expr(*l->init);
      return;
    }
    case Stmt::Var: {
      auto *v = cast<VarStmt>(&s);
      line("Var " + v->name.name +
           (v->declType ? ": " + typeStr(v->declType.get()) : "") + at);
      Indent in(*this);
      if (v->init)
        expr(*v->init);
      return;
    }
    case Stmt::If: {
      auto *i = cast<IfStmt>(&s);
      line("If" + at);
      Indent in(*this);
      expr(*i->cond);
      stmt(*i->thenBody);
      if (i->elseBody) {
        line("Else");
        Indent in2(*this);
        stmt(*i->elseBody);
      }
      return;
    }
    case Stmt::While: {
      auto *w = cast<WhileStmt>(&s);
      line("While" + at);
      Indent in(*this);
      expr(*w->cond);
      stmt(*w->body);
      return;
    }
    case Stmt::For: {
      auto *f = cast<ForStmt>(&s);
      std::string vars;
      for (size_t i = 0; i < f->vars.size(); ++i)
        vars += (i ? ", " : "") + f->vars[i].name;
      line("For " + vars + at);
      Indent in(*this);
      expr(*f->iterable);
      stmt(*f->body);
      return;
    }
    case Stmt::Break:
      line("Break" + at);
      return;
    case Stmt::Continue:
      line("Continue" + at);
      return;
    case Stmt::Return: {
      line("Return" + at);
      Indent in(*this);
      if (auto &v = cast<ReturnStmt>(&s)->value)
        expr(*v);
      return;
    }
    case Stmt::StaticAssert: {
      auto *a = cast<StaticAssertStmt>(&s);
      line("StaticAssert " + quoted(a->message) + at);
      Indent in(*this);
      expr(*a->cond);
      return;
    }
    case Stmt::Assign: {
      auto *a = cast<AssignStmt>(&s);
      line(std::string("Assign ") + spelling(a->op) + at);
      Indent in(*this);
      expr(*a->target);
      expr(*a->value);
      return;
    }
    case Stmt::ExprStmt: {
      line("ExprStmt" + at);
      Indent in(*this);
      expr(*cast<ExprStmt>(&s)->expr);
      return;
    }
    }
  }

  void decl(const Decl &d) {
    std::string at = " " + locStr(d.range);
    switch (d.kind) {
    case Decl::Const: {
      auto *c = cast<ConstDecl>(&d);
      line("ConstDecl " + c->name.name +
           (c->declType ? ": " + typeStr(c->declType.get()) : "") + at);
      Indent in(*this);
      expr(*c->value);
      return;
    }
    case Decl::TypeAlias: {
      auto *t = cast<TypeAliasDecl>(&d);
      line("TypeAliasDecl " + t->name.name + " = " + typeStr(t->aliased.get()) +
           at);
      return;
    }
    case Decl::Struct: {
      auto *s = cast<StructDecl>(&d);
      line("StructDecl " + s->name.name + at);
      Indent in(*this);
      for (auto &m : s->members)
        line("Member " + m.name.name + ": " + typeStr(m.type.get()));
      return;
    }
    case Decl::Field: {
      auto *f = cast<FieldDecl>(&d);
      std::string names;
      for (size_t i = 0; i < f->names.size(); ++i)
        names += (i ? ", " : "") + f->names[i].name;
      std::string flags;
      if (f->needsGrad)
        flags += " needs_grad";
      if (f->needsDual)
        flags += " needs_dual";
      line("FieldDecl " + names + ": " + typeStr(f->elemType.get()) +
           (f->hasShape ? "[" + std::to_string(f->shape.size()) + "-D]" : "") +
           flags + at);
      Indent in(*this);
      for (auto &e : f->shape)
        expr(*e);
      return;
    }
    case Decl::Layout: {
      line("LayoutDecl" + at);
      Indent in(*this);
      for (auto &s : cast<LayoutDecl>(&d)->stmts) {
        line((s.letName.name.empty() ? "LayoutExpr" : "LayoutLet " + s.letName.name) +
             " " + locStr(s.range));
        Indent in2(*this);
        expr(*s.expr);
      }
      return;
    }
    case Decl::Function: {
      auto *f = cast<FunctionDecl>(&d);
      std::string params;
      for (size_t i = 0; i < f->params.size(); ++i)
        params += (i ? ", " : "") + f->params[i].name.name + ": " +
                  typeStr(f->params[i].type.get());
      line(std::string(f->isKernel ? "KernelDecl " : "FuncDecl ") + f->name.name +
           "(" + params + ")" +
           (f->returnType ? " -> " + typeStr(f->returnType.get()) : "") + at);
      Indent in(*this);
      for (auto &a : f->attrs) {
        line("Attribute @" + a.name.name + " " + locStr(a.range));
        Indent in2(*this);
        args(a.args);
      }
      stmt(*f->body);
      return;
    }
    case Decl::Instance: {
      auto *i = cast<InstanceDecl>(&d);
      line("InstanceDecl " + i->name.name + " = " + i->kernel.name + at);
      Indent in(*this);
      args(i->args);
      return;
    }
    case Decl::StaticAssert: {
      auto *a = cast<StaticAssertDecl>(&d);
      line("StaticAssertDecl " + quoted(a->message) + at);
      Indent in(*this);
      expr(*a->cond);
      return;
    }
    }
  }

private:
  std::ostream &os;
  unsigned indent = 0;
};

} // namespace

void ast::dump(const Program &program, std::ostream &os) {
  Dumper d(os);
  d.line("Module " + (program.moduleName.name.empty()
                          ? std::string("<file stem>")
                          : program.moduleName.name));
  Dumper::Indent in(d);
  for (auto &decl : program.decls)
    d.decl(*decl);
}

void ast::dump(const Expr &expr, std::ostream &os) {
  Dumper d(os);
  d.expr(expr);
}

//===----------------------------------------------------------------------===//
// Cloning
//===----------------------------------------------------------------------===//

Argument ast::clone(const Argument &a) {
  Argument r;
  r.name = a.name;
  r.nameRange = a.nameRange;
  r.value = clone(*a.value);
  return r;
}

static std::vector<Argument> cloneArgs(const std::vector<Argument> &as) {
  std::vector<Argument> r;
  for (auto &a : as)
    r.push_back(clone(a));
  return r;
}

TypeExprPtr ast::clone(const TypeExpr &t) {
  switch (t.kind) {
  case TypeExpr::Template:
    return std::make_unique<TemplateTypeExpr>(t.range);
  case TypeExpr::Inferred:
    return std::make_unique<InferredTypeExpr>(t.range);
  case TypeExpr::Named:
    return std::make_unique<NamedTypeExpr>(t.range, cast<NamedTypeExpr>(&t)->name);
  case TypeExpr::Generic: {
    auto *g = cast<GenericTypeExpr>(&t);
    auto r = std::make_unique<GenericTypeExpr>(t.range, g->name);
    for (auto &a : g->args) {
      TypeArg c;
      if (a.type)
        c.type = clone(*a.type);
      if (a.value)
        c.value = clone(*a.value);
      r->args.push_back(std::move(c));
    }
    return r;
  }
  case TypeExpr::Quant: {
    auto *q = cast<QuantTypeExpr>(&t);
    auto r = std::make_unique<QuantTypeExpr>(t.range, q->nameSpace, q->quantKind);
    r->args = cloneArgs(q->args);
    return r;
  }
  }
  return nullptr;
}

ExprPtr ast::clone(const Expr &e) {
  ExprPtr r;
  switch (e.kind) {
  case Expr::IntLit: {
    auto *x = cast<IntLitExpr>(&e);
    r = std::make_unique<IntLitExpr>(e.range, x->value, x->spelling);
    break;
  }
  case Expr::FloatLit: {
    auto *x = cast<FloatLitExpr>(&e);
    r = std::make_unique<FloatLitExpr>(e.range, x->value, x->isF32, x->spelling);
    break;
  }
  case Expr::BoolLit:
    r = std::make_unique<BoolLitExpr>(e.range, cast<BoolLitExpr>(&e)->value);
    break;
  case Expr::StringLit:
    r = std::make_unique<StringLitExpr>(e.range, cast<StringLitExpr>(&e)->value);
    break;
  case Expr::Name: {
    auto c = std::make_unique<NameExpr>(e.range, cast<NameExpr>(&e)->name);
    c->ref = cast<NameExpr>(&e)->ref;
    r = std::move(c);
    break;
  }
  case Expr::Call: {
    auto *x = cast<CallExpr>(&e);
    auto c = std::make_unique<CallExpr>(e.range, clone(*x->callee));
    c->args = cloneArgs(x->args);
    c->callKind = x->callKind;
    c->builtin = x->builtin;
    c->func = x->func;
    c->target = x->target;
    r = std::move(c);
    break;
  }
  case Expr::Index: {
    auto *x = cast<IndexExpr>(&e);
    auto c = std::make_unique<IndexExpr>(e.range, clone(*x->base));
    for (auto &i : x->indices)
      c->indices.push_back(clone(*i));
    c->indexKind = x->indexKind;
    c->field = x->field;
    r = std::move(c);
    break;
  }
  case Expr::Member: {
    auto *x = cast<MemberExpr>(&e);
    auto c = std::make_unique<MemberExpr>(e.range, clone(*x->base), x->member,
                                          x->memberRange);
    c->field = x->field;
    c->memberIndex = x->memberIndex;
    c->components = x->components;
    r = std::move(c);
    break;
  }
  case Expr::Unary: {
    auto *x = cast<UnaryExpr>(&e);
    auto c = std::make_unique<UnaryExpr>(e.range, x->op, clone(*x->operand));
    c->opRange = x->opRange;
    r = std::move(c);
    break;
  }
  case Expr::Binary: {
    auto *x = cast<BinaryExpr>(&e);
    auto c = std::make_unique<BinaryExpr>(e.range, x->op, clone(*x->lhs),
                                          clone(*x->rhs));
    c->opRange = x->opRange;
    r = std::move(c);
    break;
  }
  case Expr::Compare: {
    auto *x = cast<CompareExpr>(&e);
    auto c = std::make_unique<CompareExpr>(e.range);
    for (auto &o : x->operands)
      c->operands.push_back(clone(*o));
    c->ops = x->ops;
    c->opRanges = x->opRanges;
    r = std::move(c);
    break;
  }
  case Expr::Ternary: {
    auto *x = cast<TernaryExpr>(&e);
    r = std::make_unique<TernaryExpr>(e.range, clone(*x->cond),
                                      clone(*x->trueValue), clone(*x->falseValue));
    break;
  }
  case Expr::Static:
    r = std::make_unique<StaticExpr>(e.range, clone(*cast<StaticExpr>(&e)->operand));
    break;
  case Expr::Cast: {
    auto *x = cast<CastExpr>(&e);
    r = std::make_unique<CastExpr>(e.range, clone(*x->target), clone(*x->operand));
    break;
  }
  case Expr::List: {
    auto c = std::make_unique<ListExpr>(e.range);
    c->paren = cast<ListExpr>(&e)->paren;
    for (auto &x : cast<ListExpr>(&e)->elements)
      c->elements.push_back(clone(*x));
    r = std::move(c);
    break;
  }
  case Expr::StructLit: {
    auto *x = cast<StructLitExpr>(&e);
    auto c = std::make_unique<StructLitExpr>(e.range, x->structName, x->nameRange);
    c->members = cloneArgs(x->members);
    r = std::move(c);
    break;
  }
  }
  r->type = e.type;
  r->constValue = e.constValue;
  return r;
}

static BlockPtr cloneBlock(const BlockStmt &b) {
  auto r = std::make_unique<BlockStmt>(b.range);
  for (auto &s : b.body)
    r->body.push_back(clone(*s));
  return r;
}

StmtPtr ast::clone(const Stmt &s) {
  switch (s.kind) {
  case Stmt::Block:
    return cloneBlock(*cast<BlockStmt>(&s));
  case Stmt::Let: {
    auto *x = cast<LetStmt>(&s);
    auto r = std::make_unique<LetStmt>(s.range);
    r->names = x->names;
    r->isVar = x->isVar;
    if (x->declType)
      r->declType = clone(*x->declType);
    r->init = clone(*x->init);
    r->decls = x->decls;
    return r;
  }
  case Stmt::Var: {
    auto *x = cast<VarStmt>(&s);
    auto r = std::make_unique<VarStmt>(s.range);
    r->name = x->name;
    if (x->declType)
      r->declType = clone(*x->declType);
    if (x->init)
      r->init = clone(*x->init);
    r->decl = x->decl;
    return r;
  }
  case Stmt::If: {
    auto *x = cast<IfStmt>(&s);
    auto r = std::make_unique<IfStmt>(s.range);
    r->cond = clone(*x->cond);
    r->thenBody = cloneBlock(*x->thenBody);
    if (x->elseBody)
      r->elseBody = clone(*x->elseBody);
    return r;
  }
  case Stmt::While: {
    auto *x = cast<WhileStmt>(&s);
    auto r = std::make_unique<WhileStmt>(s.range);
    r->cond = clone(*x->cond);
    r->body = cloneBlock(*x->body);
    return r;
  }
  case Stmt::For: {
    auto *x = cast<ForStmt>(&s);
    auto r = std::make_unique<ForStmt>(s.range);
    r->vars = x->vars;
    r->iterable = clone(*x->iterable);
    r->body = cloneBlock(*x->body);
    r->forKind = x->forKind;
    r->isParallel = x->isParallel;
    r->varDecls = x->varDecls;
    r->overField = x->overField;
    r->overSNode = x->overSNode;
    r->serialize = x->serialize;
    r->parallelize = x->parallelize;
    r->blockDim = x->blockDim;
    return r;
  }
  case Stmt::Break:
    return std::make_unique<BreakStmt>(s.range);
  case Stmt::Continue:
    return std::make_unique<ContinueStmt>(s.range);
  case Stmt::Return: {
    auto r = std::make_unique<ReturnStmt>(s.range);
    if (auto &v = cast<ReturnStmt>(&s)->value)
      r->value = clone(*v);
    return r;
  }
  case Stmt::StaticAssert: {
    auto *x = cast<StaticAssertStmt>(&s);
    auto r = std::make_unique<StaticAssertStmt>(s.range);
    r->cond = clone(*x->cond);
    r->message = x->message;
    return r;
  }
  case Stmt::Assign: {
    auto *x = cast<AssignStmt>(&s);
    auto r = std::make_unique<AssignStmt>(s.range);
    r->op = x->op;
    r->opRange = x->opRange;
    r->target = clone(*x->target);
    r->value = clone(*x->value);
    r->isAtomic = x->isAtomic;
    r->isReduction = x->isReduction;
    return r;
  }
  case Stmt::ExprStmt:
    return std::make_unique<ExprStmt>(s.range, clone(*cast<ExprStmt>(&s)->expr));
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Tree walkers
//===----------------------------------------------------------------------===//

void ast::forEachExpr(const Expr *e,
                      const std::function<void(const Expr *)> &fn) {
  if (!e)
    return;
  fn(e);
  using K = Expr::Kind;
  switch (e->kind) {
  case K::Call: {
    auto *c = static_cast<const CallExpr *>(e);
    forEachExpr(c->callee.get(), fn);
    for (auto &a : c->args)
      forEachExpr(a.value.get(), fn);
    break;
  }
  case K::Index: {
    auto *x = static_cast<const IndexExpr *>(e);
    forEachExpr(x->base.get(), fn);
    for (auto &i : x->indices)
      forEachExpr(i.get(), fn);
    break;
  }
  case K::Member:
    forEachExpr(static_cast<const MemberExpr *>(e)->base.get(), fn);
    break;
  case K::Unary:
    forEachExpr(static_cast<const UnaryExpr *>(e)->operand.get(), fn);
    break;
  case K::Binary: {
    auto *x = static_cast<const BinaryExpr *>(e);
    forEachExpr(x->lhs.get(), fn);
    forEachExpr(x->rhs.get(), fn);
    break;
  }
  case K::Compare:
    for (auto &o : static_cast<const CompareExpr *>(e)->operands)
      forEachExpr(o.get(), fn);
    break;
  case K::Ternary: {
    auto *x = static_cast<const TernaryExpr *>(e);
    forEachExpr(x->cond.get(), fn);
    forEachExpr(x->trueValue.get(), fn);
    forEachExpr(x->falseValue.get(), fn);
    break;
  }
  case K::Static:
    forEachExpr(static_cast<const StaticExpr *>(e)->operand.get(), fn);
    break;
  case K::Cast:
    forEachExpr(static_cast<const CastExpr *>(e)->operand.get(), fn);
    break;
  case K::List:
    for (auto &x : static_cast<const ListExpr *>(e)->elements)
      forEachExpr(x.get(), fn);
    break;
  case K::StructLit:
    for (auto &a : static_cast<const StructLitExpr *>(e)->members)
      forEachExpr(a.value.get(), fn);
    break;
  default:
    break;
  }
}

void ast::forEachStmt(const Stmt *s,
                      const std::function<void(const Stmt *)> &fn) {
  if (!s)
    return;
  fn(s);
  using K = Stmt::Kind;
  switch (s->kind) {
  case K::Block:
    for (auto &x : static_cast<const BlockStmt *>(s)->body)
      forEachStmt(x.get(), fn);
    break;
  case K::If: {
    auto *x = static_cast<const IfStmt *>(s);
    forEachStmt(x->thenBody.get(), fn);
    forEachStmt(x->elseBody.get(), fn);
    break;
  }
  case K::While:
    forEachStmt(static_cast<const WhileStmt *>(s)->body.get(), fn);
    break;
  case K::For:
    forEachStmt(static_cast<const ForStmt *>(s)->body.get(), fn);
    break;
  default:
    break;
  }
}

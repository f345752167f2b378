//===- ASTDump.cpp - Printing the AST (--emit=ast) -----------------------===//
//
// One node per line, indented, with <line:col>; strings and control bytes
// escaped (docs/cli.md, --emit=ast).
//
//===----------------------------------------------------------------------===//

#include "tic/Frontend/AST.h"

#include <cstdio>
#include <sstream>

using namespace tic;
using namespace tic::ast;

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
    case '\n':
      r += "\\n";
      break;
    case '\t':
      r += "\\t";
      break;
    case '"':
      r += "\\\"";
      break;
    case '\\':
      r += "\\\\";
      break;
    case '\r':
      r += "\\r";
      break;
    case '\0':
      r += "\\0";
      break;
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
        line((s.letName.name.empty() ? "LayoutExpr"
                                     : "LayoutLet " + s.letName.name) +
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
      line(std::string(f->isKernel ? "KernelDecl " : "FuncDecl ") +
           f->name.name + "(" + params + ")" +
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

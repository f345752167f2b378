//===- AST.cpp - AST nodes, spellings, cloning and walkers ----------------===//

#include "tic/Frontend/AST.h"

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

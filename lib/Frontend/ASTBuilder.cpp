//===- ASTBuilder.cpp - The AST from the ANTLR parse tree ----------------===//
//
// Builds tic::ast nodes from a TCParser::ProgramContext that parsed without
// errors (Parser.cpp), with source ranges in bytes.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

#include "TCLexer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

using namespace tic;
using namespace tic::ast;
using namespace tic::parse;
using tic::grammar::TCLexer;
using tic::grammar::TCParser;

namespace {

//===----------------------------------------------------------------------===//
// AST builder
//===----------------------------------------------------------------------===//

class Builder {
public:
  Builder(DiagnosticEngine &d) : diags(d) {}

  std::unique_ptr<Program> build(TCParser::ProgramContext *ctx) {
    auto prog = std::make_unique<Program>();
    if (auto *m = ctx->moduleDecl()) {
      prog->moduleRange = rangeOf(m);
      if (m->Identifier())
        prog->moduleName = identOf(m->Identifier());
      for (auto *o : m->moduleOption())
        prog->moduleOptions.push_back(
            {identOf(o->Identifier()), buildType(o->typeExpr())});
      if (!m->Identifier() && m->moduleOption().empty())
        diags.error(prog->moduleRange,
                    "expected a module name or options after 'module'");
    }
    for (auto *d : ctx->topDecl())
      if (DeclPtr decl = buildDecl(d))
        prog->decls.push_back(std::move(decl));
    return prog;
  }

private:
  DiagnosticEngine &diags;

  DeclPtr buildDecl(TCParser::TopDeclContext *ctx) {
    if (auto *c = ctx->constDecl()) {
      auto d = std::make_unique<ConstDecl>(rangeOf(c));
      d->name = identOf(c->Identifier());
      if (c->typeExpr())
        d->declType = buildType(c->typeExpr());
      d->value = buildExpr(c->expression());
      return d;
    }
    if (auto *c = ctx->typeAliasDecl()) {
      auto d = std::make_unique<TypeAliasDecl>(rangeOf(c));
      d->name = identOf(c->Identifier());
      d->aliased = buildType(c->typeExpr());
      return d;
    }
    if (auto *c = ctx->structDecl()) {
      auto d = std::make_unique<StructDecl>(rangeOf(c));
      d->name = identOf(c->Identifier());
      for (auto *m : c->structMember())
        d->members.push_back(
            {identOf(m->Identifier()), buildType(m->typeExpr())});
      return d;
    }
    if (auto *c = ctx->fieldDecl()) {
      auto d = std::make_unique<FieldDecl>(rangeOf(c));
      for (auto *id : c->Identifier())
        d->names.push_back(identOf(id));
      d->elemType = buildType(c->typeExpr());
      if (c->LBracket()) {
        d->hasShape = true;
        d->shapeRange = SourceRange(startOf(c->LBracket()->getSymbol()),
                                    endOf(c->RBracket()->getSymbol()));
        for (auto *e : c->expression())
          d->shape.push_back(buildExpr(e));
      }
      for (auto *f : c->fieldFlag()) {
        bool grad = f->KwNeedsGrad() != nullptr;
        bool &flag = grad ? d->needsGrad : d->needsDual;
        if (flag)
          diags.warning(rangeOf(f),
                        std::string("duplicate '") + f->getText() + "' flag");
        flag = true;
      }
      return d;
    }
    if (auto *c = ctx->layoutDecl()) {
      auto d = std::make_unique<LayoutDecl>(rangeOf(c));
      for (auto *s : c->layoutStmt()) {
        LayoutStmt ls;
        ls.range = rangeOf(s);
        if (auto *let = dynamic_cast<TCParser::LayoutLetContext *>(s)) {
          ls.letName = identOf(let->Identifier());
          ls.expr = buildExpr(let->expression());
        } else {
          auto *e = static_cast<TCParser::LayoutExprContext *>(s);
          ls.expr = buildExpr(e->expression());
        }
        d->stmts.push_back(std::move(ls));
      }
      return d;
    }
    if (auto *c = ctx->functionDecl()) {
      auto d = std::make_unique<FunctionDecl>(rangeOf(c));
      d->isKernel = c->KwKernel() != nullptr;
      for (auto *a : c->attribute()) {
        Attribute attr;
        attr.name = identOf(a->Identifier());
        attr.range = rangeOf(a);
        for (auto *arg : a->argument())
          attr.args.push_back(buildArg(arg));
        d->attrs.push_back(std::move(attr));
      }
      d->name = identOf(c->Identifier());
      for (auto *p : c->param())
        d->params.push_back({identOf(p->Identifier()),
                             p->typeExpr() ? buildType(p->typeExpr())
                                           : std::make_unique<InferredTypeExpr>(
                                                 rangeOf(p->Identifier()))});
      if (c->typeExpr())
        d->returnType = buildType(c->typeExpr());
      d->body = buildBlock(c->block());
      return d;
    }
    if (auto *c = ctx->instanceDecl()) {
      auto d = std::make_unique<InstanceDecl>(rangeOf(c));
      d->name = identOf(c->Identifier(0));
      d->kernel = identOf(c->Identifier(1));
      for (auto *a : c->argument())
        d->args.push_back(buildArg(a));
      return d;
    }
    if (auto *c = ctx->staticAssertDecl()) {
      auto d = std::make_unique<StaticAssertDecl>(rangeOf(c));
      d->cond = buildExpr(c->expression());
      if (c->StringLiteral())
        d->message = decodeLiteral(c->StringLiteral());
      return d;
    }
    return nullptr;
  }

  std::string decodeLiteral(antlr4::tree::TerminalNode *n) {
    std::string out, error;
    if (!decodeString(n->getText(), out, error))
      diags.error(rangeOf(n), error);
    return out;
  }

  TypeExprPtr buildType(TCParser::TypeExprContext *ctx) {
    SourceRange r = rangeOf(ctx);
    if (dynamic_cast<TCParser::TemplateTypeContext *>(ctx))
      return std::make_unique<TemplateTypeExpr>(r);
    if (auto *n = dynamic_cast<TCParser::NamedTypeContext *>(ctx))
      return std::make_unique<NamedTypeExpr>(r, n->Identifier()->getText());
    if (auto *q = dynamic_cast<TCParser::QuantTypeContext *>(ctx)) {
      auto t = std::make_unique<QuantTypeExpr>(r, q->Identifier(0)->getText(),
                                               q->Identifier(1)->getText());
      for (auto *a : q->argument())
        t->args.push_back(buildArg(a));
      return t;
    }
    auto *g = static_cast<TCParser::GenericTypeContext *>(ctx);
    auto t = std::make_unique<GenericTypeExpr>(r, g->Identifier()->getText());
    for (auto *a : g->typeArg()) {
      TypeArg arg;
      if (a->typeExpr())
        arg.type = buildType(a->typeExpr());
      else if (a->IntLiteral())
        arg.value = buildIntLiteral(a->IntLiteral()->getSymbol());
      else
        arg.value = buildExpr(a->expression());
      t->args.push_back(std::move(arg));
    }
    return t;
  }

  Argument buildArg(TCParser::ArgumentContext *ctx) {
    Argument a;
    if (ctx->Identifier()) {
      a.name = ctx->Identifier()->getText();
      a.nameRange = rangeOf(ctx->Identifier());
    }
    a.value = buildExpr(ctx->expression());
    return a;
  }

  BlockPtr buildBlock(TCParser::BlockContext *ctx) {
    auto b = std::make_unique<BlockStmt>(rangeOf(ctx));
    for (auto *s : ctx->statement())
      if (StmtPtr st = buildStmt(s))
        b->body.push_back(std::move(st));
    return b;
  }

  /// `if` and the (rejected) `elif` clause share their shape.
  template <typename Ctx> StmtPtr buildIfLike(Ctx *ctx) {
    auto s = std::make_unique<IfStmt>(rangeOf(ctx));
    s->cond = buildExpr(ctx->expression());
    s->thenBody = buildBlock(ctx->block(0));
    if (ctx->ifStmt())
      s->elseBody = buildIf(ctx->ifStmt());
    else if (ctx->block().size() > 1)
      s->elseBody = buildBlock(ctx->block(1));
    else if (auto *el = ctx->elifClause()) {
      diags.error(rangeOf(el->KwElif()),
                  "'elif' is not a keyword in .tc: write 'else if'");
      s->elseBody = buildIfLike(el);
    }
    return s;
  }
  StmtPtr buildIf(TCParser::IfStmtContext *ctx) { return buildIfLike(ctx); }

  /// A hidden local of a desugared assignment: `$` cannot start a user name.
  static Ident hiddenName(size_t k, SourceRange r) {
    Ident id;
    id.name = "$" + std::to_string(k);
    id.range = r;
    return id;
  }
  static ExprPtr hiddenRef(size_t k, SourceRange r) {
    return std::make_unique<NameExpr>(r, "$" + std::to_string(k));
  }
  /// `{ let $0 = v0; ... ; t0 = $0; ... }` (Python: every value is evaluated
  /// before any target is assigned). One value and several targets
  /// destructures it: `let $0, $1 = v;` (a tuple, vector or matrix rows).
  StmtPtr buildMultiAssign(SourceRange r, std::vector<ExprPtr> targets,
                           std::vector<ExprPtr> values) {
    auto blk = std::make_unique<BlockStmt>(r);
    size_t n = targets.size();
    if (values.size() == 1 && n > 1) {
      auto let = std::make_unique<LetStmt>(values[0]->range);
      for (size_t k = 0; k < n; ++k)
        let->names.push_back(hiddenName(k, targets[k]->range));
      let->init = std::move(values[0]);
      blk->body.push_back(std::move(let));
    } else if (values.size() == n) {
      for (size_t k = 0; k < n; ++k) {
        auto let = std::make_unique<LetStmt>(values[k]->range);
        let->names.push_back(hiddenName(k, values[k]->range));
        let->init = std::move(values[k]);
        blk->body.push_back(std::move(let));
      }
    } else {
      diags.error(r, "cannot assign " + std::to_string(values.size()) +
                         " values to " + std::to_string(n) + " targets");
      return nullptr;
    }
    for (size_t k = 0; k < n; ++k) {
      auto a = std::make_unique<AssignStmt>(targets[k]->range);
      a->value = hiddenRef(k, targets[k]->range);
      a->target = std::move(targets[k]);
      blk->body.push_back(std::move(a));
    }
    return blk;
  }

  static AssignOp assignOpOf(size_t tokenType) {
    switch (tokenType) {
    case TCLexer::PlusAssign:
      return AssignOp::Add;
    case TCLexer::MinusAssign:
      return AssignOp::Sub;
    case TCLexer::StarAssign:
      return AssignOp::Mul;
    case TCLexer::SlashAssign:
      return AssignOp::Div;
    case TCLexer::FloorDivAssign:
      return AssignOp::FloorDiv;
    case TCLexer::PercentAssign:
      return AssignOp::Mod;
    case TCLexer::AmpAssign:
      return AssignOp::BitAnd;
    case TCLexer::PipeAssign:
      return AssignOp::BitOr;
    case TCLexer::CaretAssign:
      return AssignOp::BitXor;
    case TCLexer::ShlAssign:
      return AssignOp::Shl;
    case TCLexer::ShrAssign:
      return AssignOp::Shr;
    case TCLexer::PowAssign:
      return AssignOp::Pow;
    default:
      return AssignOp::Assign;
    }
  }

  StmtPtr buildStmt(TCParser::StatementContext *ctx) {
    SourceRange r = rangeOf(ctx);
    if (auto *c = dynamic_cast<TCParser::DestructureStmtContext *>(ctx)) {
      auto s = std::make_unique<LetStmt>(r);
      for (auto *id : c->Identifier())
        s->names.push_back(identOf(id));
      s->init = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::VarDestructureStmtContext *>(ctx)) {
      // `var U, s, V = svd(A);`: mutable names for the parts.
      auto s = std::make_unique<LetStmt>(r);
      s->isVar = true;
      for (auto *id : c->Identifier())
        s->names.push_back(identOf(id));
      s->init = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::LetStmtContext *>(ctx)) {
      auto s = std::make_unique<LetStmt>(r);
      s->names.push_back(identOf(c->Identifier()));
      if (c->typeExpr())
        s->declType = buildType(c->typeExpr());
      s->init = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::VarStmtContext *>(ctx)) {
      auto s = std::make_unique<VarStmt>(r);
      s->name = identOf(c->Identifier());
      if (c->typeExpr())
        s->declType = buildType(c->typeExpr());
      if (c->expression())
        s->init = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::IfStatementContext *>(ctx))
      return buildIf(c->ifStmt());
    if (auto *c = dynamic_cast<TCParser::WhileStmtContext *>(ctx)) {
      auto s = std::make_unique<WhileStmt>(r);
      s->cond = buildExpr(c->expression());
      s->body = buildBlock(c->block());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::ForStmtContext *>(ctx)) {
      auto s = std::make_unique<ForStmt>(r);
      for (auto *id : c->Identifier())
        s->vars.push_back(identOf(id));
      s->iterable = buildExpr(c->expression());
      s->body = buildBlock(c->block());
      return s;
    }
    if (dynamic_cast<TCParser::BreakStmtContext *>(ctx))
      return std::make_unique<BreakStmt>(r);
    if (dynamic_cast<TCParser::ContinueStmtContext *>(ctx))
      return std::make_unique<ContinueStmt>(r);
    if (auto *c = dynamic_cast<TCParser::ReturnStmtContext *>(ctx)) {
      auto s = std::make_unique<ReturnStmt>(r);
      if (c->expression())
        s->value = buildExpr(c->expression());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::StaticAssertStmtContext *>(ctx)) {
      auto s = std::make_unique<StaticAssertStmt>(r);
      s->cond = buildExpr(c->expression());
      if (c->StringLiteral())
        s->message = decodeLiteral(c->StringLiteral());
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::AssignStmtContext *>(ctx);
        c && c->expression().size() > 2) {
      // `a = b = e`: `e` once, then a and b, left to right (Python).
      auto exprs = c->expression();
      if (c->op->getType() != TCLexer::Assign) {
        diags.error(rangeOf(c->op),
                    "a chained assignment is written with '=' only");
        return nullptr;
      }
      ExprPtr value = buildExpr(exprs.back());
      auto blk = std::make_unique<BlockStmt>(r);
      auto let = std::make_unique<LetStmt>(value->range);
      let->names.push_back(hiddenName(0, value->range));
      let->init = std::move(value);
      blk->body.push_back(std::move(let));
      for (size_t k = 0; k + 1 < exprs.size(); ++k) {
        ExprPtr target = buildExpr(exprs[k]);
        auto a = std::make_unique<AssignStmt>(target->range);
        a->value = hiddenRef(0, target->range);
        a->target = std::move(target);
        blk->body.push_back(std::move(a));
      }
      return blk;
    }
    if (auto *c = dynamic_cast<TCParser::AssignStmtContext *>(ctx)) {
      auto s = std::make_unique<AssignStmt>(r);
      s->op = assignOpOf(c->op->getType());
      s->opRange = rangeOf(c->op);
      s->target = buildExpr(c->expression(0));
      s->value = buildExpr(c->expression(1));
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::TupleAssignStmtContext *>(ctx)) {
      // `a, b = b, a` / `x, y = v`
      std::vector<ExprPtr> targets, values;
      for (auto *e : c->expression())
        if (e->getStart()->getTokenIndex() <
            c->Assign()->getSymbol()->getTokenIndex())
          targets.push_back(buildExpr(e));
        else
          values.push_back(buildExpr(e));
      return buildMultiAssign(r, std::move(targets), std::move(values));
    }
    if (auto *c = dynamic_cast<TCParser::NamedAssignStmtContext *>(ctx)) {
      // `a min= b` / `a max= b`.
      std::string name = c->Identifier()->getText();
      auto s = std::make_unique<AssignStmt>(r);
      s->opRange = SourceRange(startOf(c->Identifier()->getSymbol()),
                               endOf(c->Assign()->getSymbol()));
      if (name == "min")
        s->op = AssignOp::Min;
      else if (name == "max")
        s->op = AssignOp::Max;
      else {
        diags.error(rangeOf(c->Identifier()),
                    "expected an assignment operator, found '" + name +
                        "'; only 'min=' and 'max=' are named compound "
                        "assignments");
        return nullptr;
      }
      s->target = buildExpr(c->expression(0));
      s->value = buildExpr(c->expression(1));
      return s;
    }
    if (auto *c = dynamic_cast<TCParser::ExprStmtContext *>(ctx))
      return std::make_unique<ExprStmt>(r, buildExpr(c->expression()));
    if (auto *c = dynamic_cast<TCParser::BlockStmtContext *>(ctx))
      return buildBlock(c->block());
    return nullptr; // empty statement
  }

  ExprPtr buildIntLiteral(antlr4::Token *tok) {
    std::string text = stripUnderscores(tok->getText());
    uint64_t value = 0;
    int base = 10;
    std::string digits = text;
    if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X')) {
      base = 16;
      digits = text.substr(2);
    } else if (text.size() > 2 && (text[1] == 'b' || text[1] == 'B')) {
      base = 2;
      digits = text.substr(2);
    }
    errno = 0;
    value = std::strtoull(digits.c_str(), nullptr, base);
    if (errno == ERANGE)
      diags.error(rangeOf(tok), "integer literal '" + tok->getText() +
                                    "' is too large for any integer type");
    return std::make_unique<IntLitExpr>(rangeOf(tok), value, tok->getText());
  }

  ExprPtr buildPrimary(TCParser::PrimaryContext *ctx) {
    SourceRange r = rangeOf(ctx);
    if (auto *c = dynamic_cast<TCParser::IntLitContext *>(ctx))
      return buildIntLiteral(c->IntLiteral()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::FloatLitContext *>(ctx)) {
      std::string text = stripUnderscores(c->getText());
      bool f32 = !text.empty() && text.back() == 'f';
      if (f32)
        text.pop_back();
      double v = std::strtod(text.c_str(), nullptr);
      if (std::isinf(v))
        diags.error(r, "float literal '" + c->getText() +
                           "' is too large to be represented");
      return std::make_unique<FloatLitExpr>(r, v, f32, c->getText());
    }
    if (auto *c = dynamic_cast<TCParser::BoolLitContext *>(ctx))
      return std::make_unique<BoolLitExpr>(r, c->KwTrue() != nullptr);
    if (auto *c = dynamic_cast<TCParser::StringLitContext *>(ctx))
      return std::make_unique<StringLitExpr>(r,
                                             decodeLiteral(c->StringLiteral()));
    if (auto *c = dynamic_cast<TCParser::StructLitContext *>(ctx)) {
      auto e = std::make_unique<StructLitExpr>(r, c->Identifier()->getText(),
                                               rangeOf(c->Identifier()));
      for (auto *m : c->structInit()) {
        Argument a;
        a.name = m->Identifier()->getText();
        a.nameRange = rangeOf(m->Identifier());
        a.value = buildExpr(m->expression());
        e->members.push_back(std::move(a));
      }
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::NameRefContext *>(ctx))
      return std::make_unique<NameExpr>(r, c->Identifier()->getText());
    if (auto *c = dynamic_cast<TCParser::StaticExprContext *>(ctx))
      return std::make_unique<StaticExpr>(r, buildExpr(c->expression()));
    if (auto *c = dynamic_cast<TCParser::CastExprContext *>(ctx))
      return std::make_unique<CastExpr>(r, buildType(c->typeExpr()),
                                        buildExpr(c->expression()));
    if (auto *c = dynamic_cast<TCParser::ListLitContext *>(ctx)) {
      auto e = std::make_unique<ListExpr>(r);
      for (auto *x : c->expression())
        e->elements.push_back(buildExpr(x));
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::TupleLitContext *>(ctx)) {
      // `(a, b)` (ndrange bounds) is a list literal in the AST.
      auto e = std::make_unique<ListExpr>(r);
      e->paren = true;
      for (auto *x : c->expression())
        e->elements.push_back(buildExpr(x));
      return e;
    }
    auto *p = static_cast<TCParser::ParenExprContext *>(ctx);
    ExprPtr inner = buildExpr(p->expression());
    // Keep the parentheses in the range so carets cover them.
    return inner;
  }

  static BinaryOp binaryOpOf(size_t t) {
    switch (t) {
    case TCLexer::Star:
      return BinaryOp::Mul;
    case TCLexer::Slash:
      return BinaryOp::Div;
    case TCLexer::FloorDiv:
      return BinaryOp::FloorDiv;
    case TCLexer::Percent:
      return BinaryOp::Mod;
    case TCLexer::At:
      return BinaryOp::MatMul;
    case TCLexer::Plus:
      return BinaryOp::Add;
    case TCLexer::Minus:
      return BinaryOp::Sub;
    case TCLexer::Shl:
      return BinaryOp::Shl;
    case TCLexer::Shr:
      return BinaryOp::Shr;
    default:
      return BinaryOp::Add;
    }
  }

  static CmpOp cmpOpOf(size_t t) {
    switch (t) {
    case TCLexer::Eq:
      return CmpOp::Eq;
    case TCLexer::Ne:
      return CmpOp::Ne;
    case TCLexer::Lt:
      return CmpOp::Lt;
    case TCLexer::Le:
      return CmpOp::Le;
    case TCLexer::Gt:
      return CmpOp::Gt;
    default:
      return CmpOp::Ge;
    }
  }

  ExprPtr binary(antlr4::ParserRuleContext *ctx, BinaryOp op,
                 TCParser::ExpressionContext *l, TCParser::ExpressionContext *r,
                 antlr4::Token *opTok) {
    auto e = std::make_unique<BinaryExpr>(rangeOf(ctx), op, buildExpr(l),
                                          buildExpr(r));
    e->opRange = rangeOf(opTok);
    return e;
  }

  ExprPtr buildExpr(TCParser::ExpressionContext *ctx) {
    SourceRange r = rangeOf(ctx);
    if (!ctx)
      return std::make_unique<IntLitExpr>(r, 0, "0");
    if (auto *c = dynamic_cast<TCParser::PrimaryExprContext *>(ctx))
      return buildPrimary(c->primary());
    if (auto *c = dynamic_cast<TCParser::CallExprContext *>(ctx)) {
      auto e = std::make_unique<CallExpr>(r, buildExpr(c->expression()));
      for (auto *a : c->argument())
        e->args.push_back(buildArg(a));
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::IndexExprContext *>(ctx)) {
      auto e = std::make_unique<IndexExpr>(r, buildExpr(c->expression(0)));
      for (size_t i = 1; i < c->expression().size(); ++i)
        e->indices.push_back(buildExpr(c->expression(i)));
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::MemberExprContext *>(ctx))
      return std::make_unique<MemberExpr>(r, buildExpr(c->expression()),
                                          c->Identifier()->getText(),
                                          rangeOf(c->Identifier()));
    if (auto *c = dynamic_cast<TCParser::PowExprContext *>(ctx))
      return binary(c, BinaryOp::Pow, c->expression(0), c->expression(1),
                    c->Pow()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::UnaryExprContext *>(ctx)) {
      UnaryOp op = UnaryOp::Neg;
      switch (c->op->getType()) {
      case TCLexer::Plus:
        op = UnaryOp::Plus;
        break;
      case TCLexer::Tilde:
        op = UnaryOp::BitNot;
        break;
      case TCLexer::Bang:
        diags.error(rangeOf(c->op),
                    "logical negation is spelled 'not', not '!'");
        op = UnaryOp::Not;
        break;
      default:
        break;
      }
      auto e = std::make_unique<UnaryExpr>(r, op, buildExpr(c->expression()));
      e->opRange = rangeOf(c->op);
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::NotExprContext *>(ctx)) {
      auto e = std::make_unique<UnaryExpr>(r, UnaryOp::Not,
                                           buildExpr(c->expression()));
      e->opRange = rangeOf(c->KwNot());
      return e;
    }
    if (auto *c = dynamic_cast<TCParser::MulExprContext *>(ctx))
      return binary(c, binaryOpOf(c->op->getType()), c->expression(0),
                    c->expression(1), c->op);
    if (auto *c = dynamic_cast<TCParser::AddExprContext *>(ctx))
      return binary(c, binaryOpOf(c->op->getType()), c->expression(0),
                    c->expression(1), c->op);
    if (auto *c = dynamic_cast<TCParser::ShiftExprContext *>(ctx))
      return binary(c, binaryOpOf(c->op->getType()), c->expression(0),
                    c->expression(1), c->op);
    if (auto *c = dynamic_cast<TCParser::BitAndExprContext *>(ctx))
      return binary(c, BinaryOp::BitAnd, c->expression(0), c->expression(1),
                    c->Amp()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::BitXorExprContext *>(ctx))
      return binary(c, BinaryOp::BitXor, c->expression(0), c->expression(1),
                    c->Caret()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::BitOrExprContext *>(ctx))
      return binary(c, BinaryOp::BitOr, c->expression(0), c->expression(1),
                    c->Pipe()->getSymbol());
    if (auto *c = dynamic_cast<TCParser::CompareExprContext *>(ctx)) {
      // Flatten `a < b < c` (unparenthesised) into one chain.
      ExprPtr lhs = buildExpr(c->expression(0));
      auto *lhsCtx = c->expression(0);
      std::unique_ptr<CompareExpr> chain;
      if (dynamic_cast<TCParser::CompareExprContext *>(lhsCtx) &&
          isa<CompareExpr>(lhs.get())) {
        chain.reset(static_cast<CompareExpr *>(lhs.release()));
        chain->range = r;
      } else {
        chain = std::make_unique<CompareExpr>(r);
        chain->operands.push_back(std::move(lhs));
      }
      chain->ops.push_back(cmpOpOf(c->op->getType()));
      chain->opRanges.push_back(rangeOf(c->op));
      chain->operands.push_back(buildExpr(c->expression(1)));
      return chain;
    }
    if (auto *c = dynamic_cast<TCParser::AndExprContext *>(ctx)) {
      if (c->op->getType() == TCLexer::AndAnd)
        diags.error(rangeOf(c->op), "logical and is spelled 'and', not '&&'");
      return binary(c, BinaryOp::And, c->expression(0), c->expression(1),
                    c->op);
    }
    if (auto *c = dynamic_cast<TCParser::OrExprContext *>(ctx)) {
      if (c->op->getType() == TCLexer::OrOr)
        diags.error(rangeOf(c->op), "logical or is spelled 'or', not '||'");
      return binary(c, BinaryOp::Or, c->expression(0), c->expression(1), c->op);
    }
    auto *c = static_cast<TCParser::TernaryExprContext *>(ctx);
    // x if c else y: expression(0) = x, expression(1) = c, expression(2) = y.
    return std::make_unique<TernaryExpr>(r, buildExpr(c->expression(1)),
                                         buildExpr(c->expression(0)),
                                         buildExpr(c->expression(2)));
  }
};

} // namespace

std::unique_ptr<Program>
tic::parse::buildProgram(TCParser::ProgramContext *tree,
                         DiagnosticEngine &diags) {
  Builder builder(diags);
  return builder.build(tree);
}

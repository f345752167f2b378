//===- SemaStmt.cpp - Statements and loops -------------------------------===//
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
// Statements
//===----------------------------------------------------------------------===//

/// Whether `s` is a call of the hint `name` as a statement.
static bool isHintCall(const Stmt &s, const char *name) {
  auto *es = dyn_cast<ExprStmt>(&s);
  if (!es)
    return false;
  auto *c = dyn_cast<CallExpr>(es->expr.get());
  if (!c)
    return false;
  auto *n = dyn_cast<NameExpr>(c->callee.get());
  return n && n->name == name;
}
static bool isLoopConfig(const Stmt &s) { return isHintCall(s, "loop_config"); }

void Sema::checkBlockInto(BlockStmt &b, std::vector<StmtPtr> &out,
                          bool newScope) {
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
        warning(pendingConfig->range,
                "loop_config is overridden by a later loop_config");
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
              !(st->isKernel && i == 0 && st->scopes.size() == 1 &&
                st->loops.empty() && st->nonTopDepth == 0))
            error(es->range,
                  "bit_vectorize must be the first statement of a kernel");
    }
    if (isa<ForStmt>(s.get())) {
      checkFor(s, out, pendingConfig);
      pendingConfig = nullptr;
      continue;
    }
    if (isHintCall(*s, "block_local") && !lookupLocal("block_local")) {
      // Right before a for loop (a loop_config between them), as Taichi
      // writes it: the hint is the loop's (checkFor).
      size_t next = i + 1;
      if (next < b.body.size() && isLoopConfig(*b.body[next]))
        ++next;
      st->blockLocalBeforeFor =
          next < b.body.size() && isa<ForStmt>(b.body[next].get());
      checkStmt(s, out);
      st->blockLocalBeforeFor = false;
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
    const Type *declT =
        l->declType ? resolveType(*l->declType, false, false) : nullptr;
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
        error(l->init->range, "cannot destructure a value of type '" +
                                  typeName(t) + "' into " +
                                  std::to_string(l->names.size()) + " names");
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
        error(l->init->range, "cannot bind a value of type '" + typeName(t) +
                                  "' to '" + l->names[0].name + "'");
        t = nullptr;
      }
      if (t && declT)
        checkConvertible(t, declT, *l->init,
                         "initializing '" + l->names[0].name + "'");
      if (t == types->getString() && constOf(*l->init)) {
        // A compile-time string (print / assert messages).
        LocalBinding lb;
        lb.kind = LocalBinding::Kind::Value;
        lb.value = *constOf(*l->init);
        lb.range = l->names[0].range;
        bind(l->names[0].name, lb);
        return; // nothing to emit
      }
      l->decls.push_back(
          declareLocal(l->names[0], LocalVar::Kind::Let, declT ? declT : t));
    }
    out.push_back(std::move(sp));
    return;
  }
  case Stmt::Var: {
    auto *v = cast<VarStmt>(s);
    const Type *declT =
        v->declType ? resolveType(*v->declType, false, false) : nullptr;
    const Type *t = v->init ? checkExpr(*v->init) : nullptr;
    if (t && !declT && !t->isValueType()) {
      error(v->init->range, "cannot store a value of type '" + typeName(t) +
                                "' in '" + v->name.name + "'");
      t = nullptr;
    }
    if (t && declT)
      checkConvertible(t, declT, *v->init,
                       "initializing '" + v->name.name + "'");
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
      if (v->kind == ConstValue::Kind::Aggregate ||
          v->kind == ConstValue::Kind::String ||
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
      error(i->cond->range,
            "condition must be a scalar, got '" + typeName(ct) + "'");
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
      error(w->cond->range,
            "condition must be a scalar, got '" + typeName(ct) + "'");
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
      error(s->range,
            "'break' is not allowed in a parallel loop (an outermost loop of a "
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
    std::string what = std::string(st->isKernel ? "kernel" : "func") + " '" +
                       st->fn->name + "'";
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
        error(r->value->range,
              what + " does not return a value (no '-> T' in its declaration)");
    } else if (!r->value) {
      error(s->range,
            what + " must return a value of type '" + typeName(rt) + "'");
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
  case AssignOp::Add:
    return BinaryOp::Add;
  case AssignOp::Sub:
    return BinaryOp::Sub;
  case AssignOp::Mul:
    return BinaryOp::Mul;
  case AssignOp::Div:
    return BinaryOp::Div;
  case AssignOp::FloorDiv:
    return BinaryOp::FloorDiv;
  case AssignOp::Mod:
    return BinaryOp::Mod;
  case AssignOp::Pow:
    return BinaryOp::Pow;
  case AssignOp::BitAnd:
    return BinaryOp::BitAnd;
  case AssignOp::BitOr:
    return BinaryOp::BitOr;
  case AssignOp::BitXor:
    return BinaryOp::BitXor;
  case AssignOp::Shl:
    return BinaryOp::Shl;
  case AssignOp::Shr:
    return BinaryOp::Shr;
  default:
    return BinaryOp::Add;
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
    error(a.target->range,
          "cannot assign to a value of type '" + typeName(tt) + "'");
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
      error(a.opRange, std::string("invalid operands to '") + spelling(a.op) +
                           "' ('" + typeName(tt) + "' and '" + typeName(vt) +
                           "')");
      return;
    }
    adoptContextType(*a.value, p);
    checkConvertible(p, tt, *a.value, std::string("'") + spelling(a.op) + "'");
  } else {
    // Check `target op value` as a binary expression on copies of the types.
    BinaryOp op = binaryOpOf(a.op);
    const Type *et = elementType(tt), *ev = elementType(vt);
    if (!et || !ev) {
      error(a.opRange, std::string("invalid operands to '") + spelling(a.op) +
                           "' ('" + typeName(tt) + "' and '" + typeName(vt) +
                           "')");
      return;
    }
    bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
                   op == BinaryOp::BitXor || op == BinaryOp::Shl ||
                   op == BinaryOp::Shr;
    if (bitwise && (et->isFloat() || ev->isFloat())) {
      error(a.opRange, std::string("invalid operands to '") + spelling(a.op) +
                           "' ('" + typeName(tt) + "' and '" + typeName(vt) +
                           "'): bitwise operations need integers");
      return;
    }
    const Type *p = promote(*types, tt, vt);
    if (!p) {
      error(a.opRange, std::string("invalid operands to '") + spelling(a.op) +
                           "' ('" + typeName(tt) + "' and '" + typeName(vt) +
                           "')");
      return;
    }
    if (op == BinaryOp::Div && !elementType(p)->isFloat())
      p = types->getTensorLike(p, defaultFloat);
    adoptContextType(*a.value, p);
    checkConvertible(p, tt, *a.value, std::string("'") + spelling(a.op) + "'");
  }
  if (global) {
    a.isAtomic = a.op == AssignOp::Add || a.op == AssignOp::Sub ||
                 a.op == AssignOp::Min || a.op == AssignOp::Max ||
                 a.op == AssignOp::BitAnd || a.op == AssignOp::BitOr ||
                 a.op == AssignOp::BitXor;
  } else if (auto *n = dyn_cast<NameExpr>(root)) {
    if (n->ref.kind == NameRef::Local && n->ref.local &&
        n->ref.local->isKernelScope && st->isKernel && st->inParallelLoop()) {
      if (a.op == AssignOp::Add || a.op == AssignOp::Sub ||
          a.op == AssignOp::Min || a.op == AssignOp::Max) {
        a.isReduction = true;
        a.isAtomic = true;
      } else {
        warning(a.target->range,
                "kernel-scope variable '" + n->name +
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
  // block_local(...) right before the loop: a struct-for's hint.
  std::vector<const FieldInfo *> blockLocal;
  blockLocal.swap(st->pendingBlockLocal);
  auto notStructFor = [&] {
    if (!blockLocal.empty())
      error(st->pendingBlockLocalRange,
            "'block_local' before a loop needs a struct-for (a loop over a "
            "field or SNode); this loop is not one");
  };
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
    notStructFor();
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
  } else if (it->kind() == Type::Kind::FieldRef ||
             it->kind() == Type::Kind::SNodeRef) {
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
      error(f->iterable->range,
            "a struct-for must be an outermost loop of a kernel");
      return;
    }
    if (nd == 0) {
      if (f->overField && !f->overField->place)
        return; // its layout statement already failed
      error(f->iterable->range, "cannot iterate a 0-D field or SNode");
      return;
    }
  } else {
    error(f->iterable->range,
          "cannot iterate over a value of type '" + typeName(it) +
              "' (expected range, ndrange, grouped, static(range), a "
              "field or an SNode)");
    return;
  }
  if (f->forKind == ForStmt::ForKind::Struct)
    f->blockLocal = std::move(blockLocal);
  else
    notStructFor();
  if (f->forKind == ForStmt::ForKind::Grouped ||
      f->forKind == ForStmt::ForKind::Struct ||
      f->forKind == ForStmt::ForKind::NDRange) {
    if (f->vars.size() != varTypes.size()) {
      std::string what = f->forKind == ForStmt::ForKind::Grouped
                             ? "grouped(...)"
                         : f->forKind == ForStmt::ForKind::NDRange
                             ? "this ndrange"
                             : "'" +
                                   std::string(f->overField ? f->overField->name
                                                            : "this SNode") +
                                   "'";
      error(f->vars[0].range,
            "iterating " + what + " needs " + std::to_string(varTypes.size()) +
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
  st->loops.push_back(
      {parallel, false, f->forKind == ForStmt::ForKind::Struct});
  pushScope();
  for (size_t k = 0; k < f->vars.size(); ++k)
    f->varDecls.push_back(
        declareLocal(f->vars[k], LocalVar::Kind::LoopVar, varTypes[k]));
  auto nb = std::make_unique<BlockStmt>(f->body->range);
  checkBlockInto(*f->body, nb->body, true);
  f->body = std::move(nb);
  popScope();
  st->loops.pop_back();
  st->nonTopDepth--;
  out.push_back(std::move(sp));
}

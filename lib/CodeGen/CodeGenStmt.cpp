//===- CodeGenStmt.cpp - statements, loops and assignments ----------------===//
//
// Part of the AST -> MLIR code generator: see CodeGenImpl.h and
// docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

using namespace mlir;
using namespace tic::codegen::detail;

//===----------------------------------------------------------------------===//
// Structured control flow
//===----------------------------------------------------------------------===//

bool tic::codegen::detail::escapes(const tast::Stmt *s, bool allowContinue) {
  std::function<bool(const tast::Stmt *, bool)> rec = [&](const tast::Stmt *t,
                                                          bool inLoop) -> bool {
    if (!t)
      return false;
    switch (t->kind) {
    case tast::Stmt::Return:
      return true;
    case tast::Stmt::Break:
      return !inLoop;
    case tast::Stmt::Continue:
      return !inLoop && !allowContinue;
    case tast::Stmt::Block:
      for (auto &c : static_cast<const tast::BlockStmt *>(t)->body)
        if (rec(c.get(), inLoop))
          return true;
      return false;
    case tast::Stmt::If: {
      auto *i = static_cast<const tast::IfStmt *>(t);
      return rec(i->thenBody.get(), inLoop) || rec(i->elseBody.get(), inLoop);
    }
    case tast::Stmt::While:
      return rec(static_cast<const tast::WhileStmt *>(t)->body.get(), true);
    case tast::Stmt::For:
      return rec(static_cast<const tast::ForStmt *>(t)->body.get(), true);
    default:
      return false;
    }
  };
  return rec(s, false);
}

RV Generator::cfgRegion(ArrayRef<ST> rts, const std::function<RV()> &gen) {
  if (!inStructuredRegion())
    return gen();
  SmallVector<mlir::Type> types;
  for (ST t : rts)
    types.push_back(mty(t));
  auto er = scf::ExecuteRegionOp::create(b, curLoc, types);
  Block *entry = new Block();
  er.getRegion().push_back(entry);
  b.setInsertionPointToEnd(entry);
  RV r = gen();
  if (!terminated())
    scf::YieldOp::create(b, curLoc, r.v);
  // Blocks no path reaches, left open: end them too.
  for (Block &blk : er.getRegion())
    if (blk.empty() || !blk.back().hasTrait<OpTrait::IsTerminator>()) {
      b.setInsertionPointToEnd(&blk);
      SmallVector<Value> zs;
      for (ST t : rts)
        zs.push_back(zero(t));
      scf::YieldOp::create(b, curLoc, zs);
    }
  b.setInsertionPointAfter(er);
  RV out;
  for (size_t i = 0; i < rts.size(); ++i)
    out.push(er.getResult(i), rts[i]);
  return out;
}

RV Generator::structuredIf(Value cond, ArrayRef<ST> rts,
                           const std::function<RV()> &thenGen,
                           const std::function<RV()> &elseGen) {
  SmallVector<mlir::Type> types;
  for (ST t : rts)
    types.push_back(mty(t));
  bool withElse = elseGen || !rts.empty();
  auto op = scf::IfOp::create(b, curLoc, types, cond, /*addThenBlock=*/true,
                              /*addElseBlock=*/withElse);
  auto fill = [&](Region &region, const std::function<RV()> &gen) {
    Block *blk = &region.front();
    dropTerminator(blk);
    b.setInsertionPointToEnd(blk);
    RV r;
    if (gen)
      r = convTo(gen(), rts);
    SmallVector<Value> vals(r.v.begin(), r.v.end());
    for (size_t i = vals.size(); i < rts.size(); ++i)
      vals.push_back(zero(rts[i]));
    scf::YieldOp::create(b, curLoc, vals);
  };
  fill(op.getThenRegion(), thenGen);
  if (withElse)
    fill(op.getElseRegion(), elseGen);
  b.setInsertionPointAfter(op);
  RV out;
  for (size_t i = 0; i < rts.size(); ++i)
    out.push(op.getResult(i), rts[i]);
  return out;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Generator::genBlock(const tast::BlockStmt &blk) {
  for (auto &s : blk.body) {
    if (terminated())
      break; // the rest is unreachable (after break/continue/return)
    genStmt(*s);
    if (diags.limitReached())
      break;
  }
}

void Generator::genStmt(const tast::Stmt &s) {
  Location saved = curLoc;
  curLoc = loc(s.range);
  switch (s.kind) {
  case tast::Stmt::Block:
    genBlock(static_cast<const tast::BlockStmt &>(s));
    break;
  case tast::Stmt::Let:
    genLet(static_cast<const tast::LetStmt &>(s));
    break;
  case tast::Stmt::Var:
    genVar(static_cast<const tast::VarStmt &>(s));
    break;
  case tast::Stmt::If:
    genIf(static_cast<const tast::IfStmt &>(s));
    break;
  case tast::Stmt::While:
    genWhile(static_cast<const tast::WhileStmt &>(s));
    break;
  case tast::Stmt::For:
    genFor(static_cast<const tast::ForStmt &>(s));
    break;
  case tast::Stmt::Break:
    if (loops.empty() || !loops.back().brk)
      error(s.range, "'break' is only allowed in serial loops");
    else
      br(loops.back().brk);
    break;
  case tast::Stmt::Continue:
    if (loops.empty() || !loops.back().cont)
      error(s.range, "'continue' outside a loop");
    else
      br(loops.back().cont);
    break;
  case tast::Stmt::Return:
    genReturn(static_cast<const tast::ReturnStmt &>(s));
    break;
  case tast::Stmt::StaticAssert:
    break; // checked by Sema
  case tast::Stmt::Assign:
    genAssign(static_cast<const tast::AssignStmt &>(s));
    break;
  case tast::Stmt::ExprStmt:
    (void)gen(static_cast<const tast::ExprStmt &>(s).expr.get());
    break;
  }
  curLoc = saved;
}

void Generator::genLet(const tast::LetStmt &s) {
  RV v = gen(s.init.get());
  if (s.decls.size() <= 1) {
    if (!s.decls.empty() && s.decls[0])
      bindLocal(s.decls[0], v);
    return;
  }
  size_t off = 0;
  for (const tsema::LocalVar *d : s.decls) {
    unsigned n = flatCount(d->type);
    RV part;
    for (unsigned i = 0; i < n && off + i < v.size(); ++i)
      part.push(v.v[off + i], v.ts[off + i]);
    off += n;
    bindLocal(d, part);
  }
}

void Generator::genVar(const tast::VarStmt &s) {
  if (!s.decl)
    return;
  RV v;
  if (s.init)
    v = gen(s.init.get());
  bindLocal(s.decl, v);
}

void Generator::genIf(const tast::IfStmt &s) {
  RV c = gen(s.cond.get());
  Value cond = c.size() ? toI1(c.v[0], c.ts[0]) : cBool(false);
  if (!escapes(&s)) {
    structuredIf(
        cond, {},
        [&] {
          genBlock(*s.thenBody);
          return RV();
        },
        s.elseBody ? std::function<RV()>([&] {
          genStmt(*s.elseBody);
          return RV();
        })
                   : std::function<RV()>());
    return;
  }
  cfgRegion({}, [&] {
    genIfBranches(s, cond);
    return RV();
  });
}

void Generator::genIfBranches(const tast::IfStmt &s, Value cond) {
  Block *thenB = new Block(), *merge = new Block();
  Block *elseB = s.elseBody ? new Block() : merge;
  cf::CondBranchOp::create(b, curLoc, cond, thenB, ValueRange{}, elseB,
                           ValueRange{});
  append(thenB);
  b.setInsertionPointToEnd(thenB);
  genBlock(*s.thenBody);
  if (!terminated())
    br(merge);
  if (s.elseBody) {
    append(elseB);
    b.setInsertionPointToEnd(elseB);
    genStmt(*s.elseBody);
    if (!terminated())
      br(merge);
  }
  append(merge);
  b.setInsertionPointToEnd(merge);
}

void Generator::genWhile(const tast::WhileStmt &s) {
  if (!escapes(s.body.get())) {
    // scf.while: the condition in the `before` region, the body in `after`.
    auto op = scf::WhileOp::create(b, curLoc, mlir::TypeRange{}, ValueRange{});
    Block *before = new Block(), *after = new Block();
    op.getBefore().push_back(before);
    op.getAfter().push_back(after);
    b.setInsertionPointToEnd(before);
    RV c = gen(s.cond.get());
    Value cond = c.size() ? toI1(c.v[0], c.ts[0]) : cBool(false);
    scf::ConditionOp::create(b, curLoc, cond, ValueRange{});
    b.setInsertionPointToEnd(after);
    genBlock(*s.body);
    scf::YieldOp::create(b, curLoc);
    b.setInsertionPointAfter(op);
    return;
  }
  cfgRegion({}, [&] {
    genWhileBranches(s);
    return RV();
  });
}

void Generator::genWhileBranches(const tast::WhileStmt &s) {
  Block *header = new Block(), *body = new Block(), *exit = new Block();
  br(header);
  append(header);
  b.setInsertionPointToEnd(header);
  RV c = gen(s.cond.get());
  Value cond = c.size() ? toI1(c.v[0], c.ts[0]) : cBool(false);
  cf::CondBranchOp::create(b, curLoc, cond, body, ValueRange{}, exit,
                           ValueRange{});
  append(body);
  b.setInsertionPointToEnd(body);
  loops.push_back({exit, header});
  genBlock(*s.body);
  loops.pop_back();
  if (!terminated())
    br(header);
  append(exit);
  b.setInsertionPointToEnd(exit);
}

void Generator::genReturn(const tast::ReturnStmt &s) {
  RV v;
  if (s.value)
    v = gen(s.value.get()); // may inline funcs: fns changes meanwhile
  const FnCtx fc = fns.back();
  RV r = convTo(v, fc.retTypes);
  if (fc.isKernel) {
    if (inParallel) {
      error(s.range, "'return' inside a parallel loop");
      return;
    }
    tic::tc::ReturnOp::create(b, curLoc, r.v);
  } else {
    br(fc.retBlock, r.v);
  }
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// Loop bounds of range / ndrange / grouped(ndrange) / struct (dense) loops.
bool Generator::loopBounds(const tast::ForStmt &s, SmallVector<Value> &lo,
                           SmallVector<Value> &hi, ST &ivType, int64_t &step) {
  step = 1;
  ivType = ST::i32();
  for (const tsema::LocalVar *v : s.varDecls)
    if (v && v->type && v->type->isInt() && elemOf(v->type).bits == 64)
      ivType = ST::i64();
  if (s.forKind == tast::ForStmt::ForKind::Range && s.varDecls.size() == 1 &&
      s.varDecls[0] && s.varDecls[0]->type && s.varDecls[0]->type->isInt())
    ivType = scalarOf(s.varDecls[0]->type);
  auto *call = tic::dyn_cast<tast::CallExpr>(s.iterable.get());
  const tsema::FieldInfo *field = s.overField;
  const tsema::SNode *node = s.overSNode;
  if (s.forKind == tast::ForStmt::ForKind::Grouped && call && !field && !node &&
      !call->args.empty())
    call = tic::dyn_cast<tast::CallExpr>(call->args[0].value.get());
  if (field || node) {
    const std::vector<int64_t> &ext = field ? field->shape : node->extents;
    const std::vector<tsema::Axis> &axes =
        field ? field->axes : node->indexAxes;
    if (field ? field->unbounded : node->underHash) {
      unsupported(s.iterable->range, "a loop over a field below a 'hash'");
      return false;
    }
    for (size_t k = 0; k < axes.size(); ++k) {
      lo.push_back(cInt(0, ivType));
      hi.push_back(cInt(k < ext.size() ? ext[k] : 0, ivType));
    }
    return true;
  }
  if (!call) {
    error(s.iterable->range, "cannot iterate over this expression");
    return false;
  }
  auto arg = [&](size_t i) { return call->args[i].value.get(); };
  if (s.forKind == tast::ForStmt::ForKind::Range) {
    if (call->args.size() == 1) {
      lo.push_back(cInt(0, ivType));
      RV h = gen(arg(0));
      hi.push_back(conv(h.v[0], h.ts[0], ivType));
    } else if (call->args.size() >= 2) {
      RV l = gen(arg(0)), h = gen(arg(1));
      lo.push_back(conv(l.v[0], l.ts[0], ivType));
      hi.push_back(conv(h.v[0], h.ts[0], ivType));
      if (call->args.size() == 3 && !constInt(arg(2), step)) {
        unsupported(arg(2)->range, "a range step that is not a constant");
        return false;
      }
      if (step == 0) {
        error(arg(2)->range, "range step must not be zero");
        return false;
      }
    } else {
      error(call->range, "range() needs 1 or 2 arguments");
      return false;
    }
    return true;
  }
  // ndrange: each argument is an extent or a (begin, end) pair.
  for (size_t i = 0; i < call->args.size(); ++i) {
    RV a = gen(arg(i));
    if (a.size() >= 2) {
      lo.push_back(conv(a.v[0], a.ts[0], ivType));
      hi.push_back(conv(a.v[1], a.ts[1], ivType));
    } else if (a.size() == 1) {
      lo.push_back(cInt(0, ivType));
      hi.push_back(conv(a.v[0], a.ts[0], ivType));
    }
  }
  return !lo.empty();
}

void Generator::bindLoopVars(const tast::ForStmt &s, ArrayRef<Value> ivs,
                             ST ivType) {
  if (s.forKind == tast::ForStmt::ForKind::Grouped) {
    if (s.varDecls.empty() || !s.varDecls[0])
      return;
    RV v;
    for (Value x : ivs)
      v.push(x, ivType);
    bindLocal(s.varDecls[0], v);
    return;
  }
  for (size_t k = 0; k < s.varDecls.size() && k < ivs.size(); ++k) {
    if (!s.varDecls[k])
      continue;
    RV v;
    v.push(ivs[k], ivType);
    bindLocal(s.varDecls[k], v);
  }
}

void Generator::genFor(const tast::ForStmt &s) {
  if (s.forKind == tast::ForStmt::ForKind::Unresolved) {
    error(s.range, "internal error: unresolved loop");
    return;
  }
  if (s.isParallel && !inParallel)
    genParallelFor(s);
  else
    genSerialFor(s);
}

void Generator::addBlockLocal(tic::tc::StructForOp sf,
                              ArrayRef<const tsema::FieldInfo *> fields) {
  SmallVector<Attribute> syms;
  if (ArrayAttr old = sf.getBlockLocalAttr())
    syms.append(old.begin(), old.end());
  for (const tsema::FieldInfo *f : fields) {
    if (!f)
      continue;
    auto sym = FlatSymbolRefAttr::get(b.getContext(), f->name);
    if (!llvm::is_contained(syms, sym))
      syms.push_back(sym);
  }
  sf.setBlockLocalAttr(b.getArrayAttr(syms));
}

void Generator::genParallelFor(const tast::ForStmt &s) {
  Location l = curLoc;
  const tsema::FieldInfo *field = s.overField;
  const tsema::SNode *node = s.overSNode;
  bool structFor = field || node;
  Operation *loopOp = nullptr;
  Block *entry = nullptr;
  SmallVector<Value> ivs;
  ST ivType = ST::i32();
  if (structFor) {
    std::string target;
    std::vector<tsema::Axis> axes;
    if (field) {
      target = field->name;
      axes = field->axes;
      if (field->is0D) {
        error(s.iterable->range,
              "cannot iterate over the 0-D field '" + field->name + "'");
        return;
      }
    } else {
      if (node == M.root.get() || !nodeNames.count(node)) {
        unsupported(s.iterable->range, "a struct-for over 'root'");
        return;
      }
      target = nodeNames[node];
      axes = node->indexAxes;
    }
    unsigned rank = 0;
    for (auto a : axes)
      rank = std::max(rank, unsigned(a) + 1);
    auto sf = tic::tc::StructForOp::create(b, l, target, s.serialize, nullptr,
                                           nullptr, nullptr, nullptr);
    if (s.parallelize > 0)
      sf.setParallelizeAttr(b.getI32IntegerAttr(int32_t(s.parallelize)));
    if (s.blockDim > 0)
      sf.setBlockDimAttr(b.getI32IntegerAttr(int32_t(s.blockDim)));
    // block_local(...) right before the loop; those inside add to it.
    if (!s.blockLocal.empty())
      addBlockLocal(sf, s.blockLocal);
    entry = new Block();
    sf.getBody().push_back(entry);
    for (unsigned i = 0; i < rank; ++i)
      entry->addArgument(b.getI32Type(), l);
    for (auto a : axes)
      ivs.push_back(entry->getArgument(a));
    loopOp = sf;
  } else {
    SmallVector<Value> lo, hi;
    int64_t step = 1;
    if (!loopBounds(s, lo, hi, ivType, step))
      return;
    ST bt = ivType.bits == 64 ? ST::i64() : ST::i32();
    for (auto &v : lo)
      v = conv(v, ivType, bt);
    for (auto &v : hi)
      v = conv(v, ivType, bt);
    // range(a, b, step): the parallel loop runs over the trip count
    // k in [0, n), n = ceil((b - a) / step) (0 when empty), and the loop
    // variable is a + k * step.
    Value stepBase;
    if (step != 1) {
      stepBase = lo[0];
      Value span = step > 0 ? arith::SubIOp::create(b, l, hi[0], lo[0])
                            : arith::SubIOp::create(b, l, lo[0], hi[0]);
      Value zeroV = cInt(0, bt), oneV = cInt(1, bt);
      Value trips = arith::SubIOp::create(b, l, span, oneV);
      trips = arith::DivSIOp::create(b, l, trips,
                                     cInt(step > 0 ? step : -step, bt));
      trips = arith::AddIOp::create(b, l, trips, oneV);
      Value nonEmpty =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, span, zeroV);
      lo[0] = zeroV;
      hi[0] = arith::SelectOp::create(b, l, nonEmpty, trips, zeroV);
    }
    auto pf = tic::tc::ParallelForOp::create(b, l, lo, hi);
    if (s.serialize)
      pf.setSerializeAttr(b.getUnitAttr());
    if (s.parallelize > 0)
      pf.setParallelizeAttr(b.getI32IntegerAttr(int32_t(s.parallelize)));
    if (s.blockDim > 0)
      pf.setBlockDimAttr(b.getI32IntegerAttr(int32_t(s.blockDim)));
    entry = &pf.getBody().front();
    for (BlockArgument a : entry->getArguments())
      ivs.push_back(a);
    loopOp = pf;
    ST bodyT = ivType;
    ivType = bt;
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(entry);
    if (stepBase)
      ivs[0] = arith::AddIOp::create(
          b, l, stepBase, arith::MulIOp::create(b, l, ivs[0], cInt(step, bt)));
    if (bodyT != bt)
      for (auto &v : ivs)
        v = conv(v, bt, bodyT);
    ivType = bodyT;
  }
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(entry);
  Block *savedAlloca = allocaBlock;
  bool savedPar = inParallel;
  std::vector<LoopCtx> savedLoops;
  savedLoops.swap(loops);
  allocaBlock = entry;
  inParallel = true;
  Block *yieldB = new Block();
  loops.push_back({nullptr, yieldB});
  bindLoopVars(s, ivs, ivType);
  genBlock(*s.body);
  loops.clear();
  Region &region = loopOp->getRegion(0);
  if (yieldB->hasNoPredecessors()) {
    delete yieldB;
    if (!terminated())
      tic::tc::YieldOp::create(b, curLoc);
  } else {
    if (!terminated())
      br(yieldB);
    region.push_back(yieldB);
    b.setInsertionPointToEnd(yieldB);
    tic::tc::YieldOp::create(b, curLoc);
  }
  // Blocks left without a terminator (unreachable merges) end the iteration.
  for (Block &blk : region)
    if (blk.empty() || !blk.back().hasTrait<OpTrait::IsTerminator>()) {
      b.setInsertionPointToEnd(&blk);
      tic::tc::YieldOp::create(b, curLoc);
    }
  loops.swap(savedLoops);
  allocaBlock = savedAlloca;
  inParallel = savedPar;
}

void Generator::serialNest(ArrayRef<Value> lo, ArrayRef<Value> hi, ST t,
                           int64_t step,
                           const std::function<void(ArrayRef<Value>)> &body,
                           Block *outerExit) {
  SmallVector<Value> ivs;
  std::function<void(size_t)> rec = [&](size_t d) {
    Block *header = new Block(), *bodyB = new Block(), *latch = new Block();
    Block *exit = new Block();
    Value iv = header->addArgument(mty(t), curLoc);
    br(header, lo[d]);
    append(header);
    b.setInsertionPointToEnd(header);
    arith::CmpIPredicate pred =
        step > 0
            ? (t.sgn ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult)
            : (t.sgn ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt);
    Value c = arith::CmpIOp::create(b, curLoc, pred, iv, hi[d]);
    cf::CondBranchOp::create(b, curLoc, c, bodyB, ValueRange{}, exit,
                             ValueRange{});
    append(bodyB);
    b.setInsertionPointToEnd(bodyB);
    ivs.push_back(iv);
    Block *brk = outerExit ? outerExit : exit;
    if (d + 1 < lo.size()) {
      if (!outerExit)
        outerExit = exit;
      rec(d + 1);
    } else {
      loops.push_back({brk, latch});
      body(ivs);
      loops.pop_back();
    }
    if (!terminated())
      br(latch);
    append(latch);
    b.setInsertionPointToEnd(latch);
    Value next = arith::AddIOp::create(b, curLoc, iv, cInt(step, t));
    br(header, next);
    append(exit);
    b.setInsertionPointToEnd(exit);
    ivs.pop_back();
  };
  rec(0);
}

void Generator::genSerialFor(const tast::ForStmt &s) {
  SmallVector<Value> lo, hi;
  ST ivType;
  int64_t step = 1;
  if ((s.overField || s.overSNode)) {
    const tsema::SNode *n = s.overField ? s.overField->place : s.overSNode;
    for (; n; n = n->parent)
      if (n->kind != tsema::SNode::Kind::Dense &&
          n->kind != tsema::SNode::Kind::Root) {
        unsupported(s.iterable->range,
                    "a serial struct-for over a sparse SNode");
        return;
      }
  }
  if (!loopBounds(s, lo, hi, ivType, step))
    return;
  // scf.for nest: a positive constant step, a signed loop variable, and no
  // break/return leaving the body. A `continue` of this loop ends the
  // iteration: the body is then an scf.execute_region whose blocks branch
  // to its end (tic-lift-control-flow turns them into scf.if), so the loop
  // stays an scf.for (vectorizable, and reversible by autodiff).
  if (step > 0 && ivType.sgn &&
      !escapes(s.body.get(), /*allowContinue=*/true)) {
    bool continues = escapes(s.body.get());
    SmallVector<Value> ivs;
    Value stepV = cInt(step, ivType);
    std::function<void(size_t)> rec = [&](size_t d) {
      auto op = scf::ForOp::create(b, curLoc, lo[d], hi[d], stepV);
      Block *body = op.getBody();
      dropTerminator(body);
      b.setInsertionPointToEnd(body);
      ivs.push_back(op.getInductionVar());
      if (d + 1 < lo.size()) {
        rec(d + 1);
      } else if (!continues) {
        bindLoopVars(s, ivs, ivType);
        genBlock(*s.body);
      } else {
        auto er = scf::ExecuteRegionOp::create(b, curLoc, TypeRange{});
        Block *entry = new Block(), *next = new Block();
        er.getRegion().push_back(entry);
        b.setInsertionPointToEnd(entry);
        loops.push_back(LoopCtx{nullptr, next});
        bindLoopVars(s, ivs, ivType);
        genBlock(*s.body);
        loops.pop_back();
        if (!terminated())
          br(next);
        // Blocks after a `continue`, which no path reaches, end there too.
        for (Block &blk : er.getRegion())
          if (blk.empty() || !blk.back().hasTrait<OpTrait::IsTerminator>()) {
            b.setInsertionPointToEnd(&blk);
            br(next);
          }
        er.getRegion().push_back(next);
        b.setInsertionPointToEnd(next);
        scf::YieldOp::create(b, curLoc);
        b.setInsertionPointAfter(er);
      }
      scf::YieldOp::create(b, curLoc);
      ivs.pop_back();
      b.setInsertionPointAfter(op);
    };
    rec(0);
    return;
  }
  cfgRegion({}, [&] {
    genSerialForBranches(s, lo, hi, ivType, step);
    return RV();
  });
}

void Generator::genSerialForBranches(const tast::ForStmt &s, ArrayRef<Value> lo,
                                     ArrayRef<Value> hi, ST ivType,
                                     int64_t step) {
  // Struct-for loop variables index the field's axes in order.
  Block *outer = nullptr;
  serialNest(
      lo, hi, ivType, step,
      [&](ArrayRef<Value> ivs) {
        bindLoopVars(s, ivs, ivType);
        genBlock(*s.body);
      },
      outer);
}

//===----------------------------------------------------------------------===//
// Assignments
//===----------------------------------------------------------------------===//

static tast::BinaryOp assignToBinary(tast::AssignOp op) {
  switch (op) {
  case tast::AssignOp::Add:
    return tast::BinaryOp::Add;
  case tast::AssignOp::Sub:
    return tast::BinaryOp::Sub;
  case tast::AssignOp::Mul:
    return tast::BinaryOp::Mul;
  case tast::AssignOp::Div:
    return tast::BinaryOp::Div;
  case tast::AssignOp::FloorDiv:
    return tast::BinaryOp::FloorDiv;
  case tast::AssignOp::Mod:
    return tast::BinaryOp::Mod;
  case tast::AssignOp::Pow:
    return tast::BinaryOp::Pow;
  case tast::AssignOp::BitAnd:
    return tast::BinaryOp::BitAnd;
  case tast::AssignOp::BitOr:
    return tast::BinaryOp::BitOr;
  case tast::AssignOp::BitXor:
    return tast::BinaryOp::BitXor;
  case tast::AssignOp::Shl:
    return tast::BinaryOp::Shl;
  case tast::AssignOp::Shr:
    return tast::BinaryOp::Shr;
  default:
    return tast::BinaryOp::Add;
  }
}

static bool atomicKindOf(tast::AssignOp op, tic::tc::AtomicKind &k) {
  using AK = tic::tc::AtomicKind;
  switch (op) {
  case tast::AssignOp::Add:
    k = AK::add;
    return true;
  case tast::AssignOp::Sub:
    k = AK::sub;
    return true;
  case tast::AssignOp::Min:
    k = AK::min;
    return true;
  case tast::AssignOp::Max:
    k = AK::max;
    return true;
  case tast::AssignOp::BitAnd:
    k = AK::and_;
    return true;
  case tast::AssignOp::BitOr:
    k = AK::or_;
    return true;
  case tast::AssignOp::BitXor:
    k = AK::xor_;
    return true;
  default:
    return false;
  }
}

void Generator::genAssign(const tast::AssignStmt &s) {
  RV val = gen(s.value.get());
  LV lv;
  if (!genLValue(s.target.get(), lv))
    return;
  std::vector<ST> tts;
  flatten(lv.type, tts);
  if (s.op == tast::AssignOp::Assign) {
    storeLV(lv, convTo(val, tts));
    return;
  }
  tic::tc::AtomicKind kind;
  bool hasKind = atomicKindOf(s.op, kind);
  if ((s.isAtomic || s.isReduction) && hasKind) {
    if (s.isReduction && lv.k != LV::Local) {
      (void)atomicLV(lv, kind, convTo(val, tts), s.range, false);
      return;
    }
    (void)atomicLV(lv, kind, convTo(val, tts), s.range, s.isReduction);
    return;
  }
  RV old = loadLV(lv);
  RV res;
  if (s.op == tast::AssignOp::Min || s.op == tast::AssignOp::Max) {
    RV rhs = convTo(val, tts);
    for (size_t i = 0; i < old.size(); ++i) {
      ST t = old.ts[i];
      Value x = old.v[i], y = rhs.v[i];
      Value r;
      bool mn = s.op == tast::AssignOp::Min;
      if (t.isFloat())
        r = mn ? Value(arith::MinNumFOp::create(b, curLoc, x, y))
               : Value(arith::MaxNumFOp::create(b, curLoc, x, y));
      else if (t.sgn && !t.isBool())
        r = mn ? Value(arith::MinSIOp::create(b, curLoc, x, y))
               : Value(arith::MaxSIOp::create(b, curLoc, x, y));
      else
        r = mn ? Value(arith::MinUIOp::create(b, curLoc, x, y))
               : Value(arith::MaxUIOp::create(b, curLoc, x, y));
      res.push(r, t);
    }
  } else if (s.op == tast::AssignOp::Pow) {
    res = pow(old, s.value.get(), val, nullptr, s.range);
  } else {
    res = binop(assignToBinary(s.op), old, val, nullptr, s.range);
  }
  storeLV(lv, convTo(res, tts));
}

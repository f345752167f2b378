//===- CodeGen.cpp - AST -> MLIR (tc + snode dialects) --------------------===//
//
// The entry points, the layout (SNode tree) and kernels. The generator is
// split over CodeGen*.cpp: see CodeGenImpl.h and docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace tic::codegen::detail;

//===----------------------------------------------------------------------===//
// Scalar type helpers
//===----------------------------------------------------------------------===//

namespace tic {
namespace codegen {
namespace detail {

ST promote(ST a, ST b) {
  if (a.isFloat() || b.isFloat()) {
    if (a.isFloat() && b.isFloat())
      return a.bits >= b.bits ? a : b;
    return a.isFloat() ? a : b;
  }
  if (a.isBool() && b.isBool())
    return a;
  if (a.isBool())
    return b;
  if (b.isBool())
    return a;
  if (a.bits != b.bits)
    return a.bits > b.bits ? a : b;
  return a.sgn ? b : a; // equal widths: the unsigned one
}

ST scalarOf(const tic::Type *t) {
  if (auto *q = tic::dyn_cast<tic::QuantType>(t))
    t = q->compute;
  if (!t)
    return ST::i32();
  auto *sc = tic::dyn_cast<tic::ScalarType>(t);
  if (!sc)
    return ST::i32();
  if (t->isBool())
    return ST::boolean();
  if (t->isFloat())
    return {ST::Float, sc->bits, true};
  return {ST::Int, sc->bits, sc->isSigned};
}

ST elemOf(const tic::Type *t) {
  if (auto *v = tic::dyn_cast<tic::VectorType>(t))
    return scalarOf(v->elem);
  if (auto *m = tic::dyn_cast<tic::MatrixType>(t))
    return scalarOf(m->elem);
  return scalarOf(t);
}

void flatten(const tic::Type *t, std::vector<ST> &out) {
  if (!t)
    return;
  if (auto *v = tic::dyn_cast<tic::VectorType>(t)) {
    for (unsigned i = 0; i < v->size; ++i)
      out.push_back(scalarOf(v->elem));
  } else if (auto *m = tic::dyn_cast<tic::MatrixType>(t)) {
    for (unsigned i = 0; i < m->rows * m->cols; ++i)
      out.push_back(scalarOf(m->elem));
  } else if (auto *s = tic::dyn_cast<tic::StructType>(t)) {
    for (auto &mem : s->members)
      flatten(mem.type, out);
  } else if (auto *tu = tic::dyn_cast<tic::TupleType>(t)) {
    for (auto *e : tu->elems)
      flatten(e, out);
  } else if (t->isScalar() || t->isQuant()) {
    out.push_back(scalarOf(t));
  }
}

unsigned flatCount(const tic::Type *t) {
  std::vector<ST> v;
  flatten(t, v);
  return v.size();
}

bool isValueType(const tic::Type *t) {
  return t && (t->isScalar() || t->isTensor() || t->isStruct() ||
               t->kind() == tic::Type::Kind::Tuple);
}

} // namespace detail
} // namespace codegen
} // namespace tic

namespace {

/// The local variable at the root of an lvalue expression, if any.
const tsema::LocalVar *rootLocal(const tast::Expr *e) {
  while (e) {
    if (auto *n = tic::dyn_cast<tast::NameExpr>(e))
      return n->ref.kind == tast::NameRef::Local ? n->ref.local : nullptr;
    if (auto *ix = tic::dyn_cast<tast::IndexExpr>(e)) {
      if (ix->indexKind == tast::IndexExpr::IndexKind::Field ||
          ix->indexKind == tast::IndexExpr::IndexKind::NDArray)
        return nullptr;
      e = ix->base.get();
    } else if (auto *m = tic::dyn_cast<tast::MemberExpr>(e)) {
      e = m->base.get();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// AST queries
//===----------------------------------------------------------------------===//

bool tic::codegen::detail::isAtomicBuiltin(Builtin b) {
  switch (b) {
  case Builtin::AtomicAdd:
  case Builtin::AtomicSub:
  case Builtin::AtomicMin:
  case Builtin::AtomicMax:
  case Builtin::AtomicAnd:
  case Builtin::AtomicOr:
  case Builtin::AtomicXor:
    return true;
  default:
    return false;
  }
}

/// Whether evaluating `e` may have side effects or trap (calls, atomics,
/// random, global/ndarray loads that may be out of range, integer division).
bool tic::codegen::detail::mayHaveEffects(const tast::Expr *e) {
  bool r = false;
  tast::forEachExpr(e, [&](const tast::Expr *x) {
    if (x->constValue)
      return;
    if (auto *c = tic::dyn_cast<tast::CallExpr>(x)) {
      if (c->callKind == tast::CallExpr::CallKind::Func)
        r = true;
      if (c->callKind == tast::CallExpr::CallKind::Builtin) {
        switch (c->builtin) {
        case Builtin::Random:
        case Builtin::Print:
        case Builtin::Assert:
        case Builtin::Activate:
        case Builtin::Deactivate:
        case Builtin::Append:
        case Builtin::DeactivateCell:
          r = true;
          break;
        default:
          if (isAtomicBuiltin(c->builtin))
            r = true;
        }
      }
    } else if (auto *ix = tic::dyn_cast<tast::IndexExpr>(x)) {
      if (ix->indexKind == tast::IndexExpr::IndexKind::Field ||
          ix->indexKind == tast::IndexExpr::IndexKind::NDArray)
        r = true;
      // A runtime index into a vector is a select chain: no trap.
    } else if (auto *b = tic::dyn_cast<tast::BinaryExpr>(x)) {
      if ((b->op == tast::BinaryOp::FloorDiv || b->op == tast::BinaryOp::Mod ||
           b->op == tast::BinaryOp::Pow) &&
          !elemOf(x->type).isFloat())
        r = true;
    }
  });
  return r;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

/// The encoding of a quantized scalar type.
static tic::bits::QuantAttr quantAttrOf(MLIRContext *ctx,
                                        const tic::QuantType *q) {
  switch (q->qkind) {
  case tic::QuantType::QKind::Int:
    return tic::bits::QuantAttr::getInt(ctx, q->bits, q->isSigned);
  case tic::QuantType::QKind::Fixed:
    return tic::bits::QuantAttr::getFixed(ctx, q->bits, q->isSigned, q->scale);
  case tic::QuantType::QKind::Float:
    return tic::bits::QuantAttr::getFloat(ctx, q->exp, q->frac, q->isSigned);
  }
  return {};
}

void Generator::genPlace(const tsema::FieldInfo *f) {
  std::vector<ST> ts;
  flatten(f->elemType, ts);
  SmallVector<Attribute> comps;
  for (ST t : ts)
    comps.push_back(TypeAttr::get(mty(t)));
  auto place = tic::snode::PlaceOp::create(b, loc(f->range), f->name,
                                           b.getArrayAttr(comps));
  // A quantized scalar, vector or matrix: one encoding per component.
  const tic::Type *e = f->elemType;
  if (auto *v = tic::dyn_cast<tic::VectorType>(e))
    e = v->elem;
  else if (auto *m = tic::dyn_cast<tic::MatrixType>(e))
    e = m->elem;
  if (auto *q = tic::dyn_cast<tic::QuantType>(e)) {
    place.setQuantAttr(b.getArrayAttr(
        SmallVector<Attribute>(ts.size(), quantAttrOf(b.getContext(), q))));
    place.setSharedExponent(f->sharedExponent);
  }
  // needs_grad: the adjoint's place, for tic-reverse-mode.
  if (f->grad && !f->primal)
    place->setAttr(tic::ad::ADDialect::kGradAttrName,
                   FlatSymbolRefAttr::get(b.getContext(), f->grad->name));
  if (f->dual && !f->primal)
    place->setAttr(tic::ad::ADDialect::kDualAttrName,
                   FlatSymbolRefAttr::get(b.getContext(), f->dual->name));
}

void Generator::genSNode(const tsema::SNode *n) {
  Location l = loc(n->range);
  if (n->kind == tsema::SNode::Kind::Hash) {
    // Its key numbers the parent's cell among the cells of the levels
    // above it, up to the nearest hash (whose entry number it takes too),
    // in an i32.
    int64_t parentCells = 1;
    for (const tsema::SNode *p = n->parent;
         p && p->kind != tsema::SNode::Kind::Root &&
         p->kind != tsema::SNode::Kind::Hash;
         p = p->parent) {
      for (int64_t s : p->shape)
        if (__builtin_mul_overflow(parentCells, s, &parentCells))
          parentCells = INT64_MAX;
    }
    if (parentCells > INT32_MAX) {
      error(n->range, "a 'hash' SNode below " + std::to_string(parentCells) +
                          " parent cells is not supported yet (at most "
                          "2^31 - 1 up to the nearest hash SNode above: its "
                          "keys number them in 32 bits)");
      return;
    }
  }
  SmallVector<int64_t> axes(n->axes.begin(), n->axes.end());
  SmallVector<int64_t> shape(n->shape.begin(), n->shape.end());
  tic::snode::SNodeContainerOpInterface op;
  if (n->kind == tsema::SNode::Kind::Bitmasked)
    op = tic::snode::BitmaskedOp::create(b, l, nodeNames[n], axes, shape);
  else if (n->kind == tsema::SNode::Kind::Pointer)
    op = tic::snode::PointerOp::create(b, l, nodeNames[n], axes, shape);
  else if (n->kind == tsema::SNode::Kind::Hash)
    op = tic::snode::HashOp::create(b, l, nodeNames[n], axes, shape);
  else if (n->kind == tsema::SNode::Kind::Dynamic) {
    auto d = tic::snode::DynamicOp::create(b, l, nodeNames[n], axes, shape);
    d.setChunk(uint64_t(n->chunkSize));
    op = d;
  } else if (n->kind == tsema::SNode::Kind::BitStruct) {
    auto s = tic::snode::BitStructOp::create(b, l, nodeNames[n], axes, shape);
    s.setBits(uint64_t(n->bits));
    op = s;
  } else if (n->kind == tsema::SNode::Kind::BitArray) {
    auto a = tic::snode::BitArrayOp::create(b, l, nodeNames[n], axes, shape);
    a.setBits(uint64_t(n->bits));
    op = a;
  } else
    op = tic::snode::DenseOp::create(b, l, nodeNames[n], axes, shape);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(&op.getChildren().front());
  for (const tsema::FieldInfo *f : n->places)
    genPlace(f);
  for (auto &c : n->children)
    genSNode(c.get());
}

void Generator::genLayout(ModuleOp module) {
  if (!M.root)
    return;
  // Node symbols: the layout `let` name when it is free, else KIND<id>
  // (the C interface names them the same way).
  for (auto &[n, name] : M.snodeSymbols())
    nodeNames[n] = name;
  bool any = !M.root->children.empty() || !M.root->places.empty();
  if (!any)
    return;
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(module.getBody());
  auto tree = tic::snode::TreeOp::create(b, loc(M.root->range), "root");
  b.setInsertionPointToEnd(&tree.getBody().front());
  for (const tsema::FieldInfo *f : M.root->places)
    genPlace(f);
  for (auto &c : M.root->children)
    genSNode(c.get());
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

void Generator::collectMutated(const tast::Stmt *body) {
  tast::forEachStmt(body, [&](const tast::Stmt *s) {
    std::function<void(const tast::Expr *)> scan = [&](const tast::Expr *e) {
      tast::forEachExpr(e, [&](const tast::Expr *x) {
        auto *c = tic::dyn_cast<tast::CallExpr>(x);
        if (c && c->callKind == tast::CallExpr::CallKind::Builtin &&
            isAtomicBuiltin(c->builtin) && !c->args.empty())
          if (auto *v = rootLocal(c->args[0].value.get()))
            mutated.insert(v);
        if (c && c->callKind == tast::CallExpr::CallKind::Func && c->func &&
            c->func->body && !mutatedScanned.count(c->func)) {
          mutatedScanned.insert(c->func);
          collectMutated(c->func->body.get());
        }
      });
    };
    switch (s->kind) {
    case tast::Stmt::Assign: {
      auto *a = static_cast<const tast::AssignStmt *>(s);
      if (auto *v = rootLocal(a->target.get()))
        mutated.insert(v);
      scan(a->target.get());
      scan(a->value.get());
      break;
    }
    case tast::Stmt::Let:
      scan(static_cast<const tast::LetStmt *>(s)->init.get());
      break;
    case tast::Stmt::Var:
      scan(static_cast<const tast::VarStmt *>(s)->init.get());
      break;
    case tast::Stmt::If:
      scan(static_cast<const tast::IfStmt *>(s)->cond.get());
      break;
    case tast::Stmt::While:
      scan(static_cast<const tast::WhileStmt *>(s)->cond.get());
      break;
    case tast::Stmt::For:
      scan(static_cast<const tast::ForStmt *>(s)->iterable.get());
      break;
    case tast::Stmt::Return:
      scan(static_cast<const tast::ReturnStmt *>(s)->value.get());
      break;
    case tast::Stmt::ExprStmt:
      scan(static_cast<const tast::ExprStmt *>(s)->expr.get());
      break;
    default:
      break;
    }
  });
}

Value Generator::allocaFor(ST t) {
  OpBuilder::InsertionGuard g(b);
  Block *blk = allocaBlock;
  auto it = blk->begin();
  while (it != blk->end() && isa<memref::AllocaOp>(&*it))
    ++it;
  b.setInsertionPoint(blk, it);
  return memref::AllocaOp::create(b, curLoc, MemRefType::get({}, mty(t)));
}

void Generator::bindLocal(const tsema::LocalVar *var, const RV &init) {
  RV v = convTo(init, var->type);
  Binding bd;
  bd.ts = v.ts;
  if (var->kind == tsema::LocalVar::Kind::Var || mutated.count(var)) {
    bd.mem = true;
    for (size_t i = 0; i < v.size(); ++i) {
      Value m = allocaFor(v.ts[i]);
      // The source name, for diagnostics of later passes (autodiff).
      m.getDefiningOp()->setAttr(
          "tc.name",
          b.getStringAttr(v.size() == 1
                              ? var->name
                              : var->name + "[" + std::to_string(i) + "]"));
      memref::StoreOp::create(b, curLoc, v.v[i], m, ValueRange{});
      bd.vals.push_back(m);
    }
  } else {
    bd.vals = v.v;
  }
  frames.back()[var] = std::move(bd);
}

void Generator::genKernel(ModuleOp module, const tsema::CheckedFunction &k) {
  curKernel = &k;
  bitVectorized = false;
  SourceRange krange = k.decl ? k.decl->range : SourceRange();
  curLoc = loc(krange);

  SmallVector<mlir::Type> ins;
  SmallVector<Attribute> argAttrs;
  struct PInfo {
    const tsema::CheckedFunction::Param *p;
    unsigned first, count;
    std::vector<ST> ts;
    bool nd = false;
  };
  std::vector<PInfo> infos;
  for (const auto &p : k.params) {
    if (p.isTemplate)
      continue;
    PInfo pi{&p, unsigned(ins.size()), 0, {}, false};
    if (auto *nd = tic::dyn_cast<tic::NDArrayType>(p.type)) {
      unsigned extra = 0;
      if (auto *v = tic::dyn_cast<tic::VectorType>(nd->elem))
        extra = 1, (void)v;
      else if (tic::isa<tic::MatrixType>(nd->elem))
        extra = 2;
      ST et = elemOf(nd->elem);
      unsigned rank = nd->ndim + extra;
      if (rank < 1 || rank > 8) {
        error(p.range, "ndarray parameter '" + p.name +
                           "' has too many dimensions (at most 8 with its "
                           "element components)");
        rank = 1;
      }
      ins.push_back(tic::tc::NDArrayType::get(&ctx, mty(et), rank));
      argAttrs.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("tc.name", b.getStringAttr(p.name))}));
      pi.nd = true;
      pi.count = 1;
    } else {
      flatten(p.type, pi.ts);
      for (size_t i = 0; i < pi.ts.size(); ++i) {
        ins.push_back(mty(pi.ts[i]));
        std::string n = pi.ts.size() == 1 && p.type->isScalar()
                            ? p.name
                            : p.name + "[" + std::to_string(i) + "]";
        argAttrs.push_back(b.getDictionaryAttr(
            {b.getNamedAttr("tc.name", b.getStringAttr(n))}));
      }
      pi.count = pi.ts.size();
    }
    infos.push_back(pi);
  }
  std::vector<ST> rts;
  if (k.returnType && !k.returnType->isVoid()) {
    if (!isValueType(k.returnType) || k.returnType->isStruct())
      unsupported(krange, "a kernel returning a struct");
    flatten(k.returnType, rts);
  }
  SmallVector<mlir::Type> outs;
  for (ST t : rts)
    outs.push_back(mty(t));

  b.setInsertionPointToEnd(module.getBody());
  auto kop = tic::tc::KernelOp::create(b, curLoc, k.exportName,
                                       b.getFunctionType(ins, outs));
  // Autodiff (docs/autodiff.md): tic-reverse-mode builds the adjoints.
  if (k.differentiable)
    kop->setAttr(tic::ad::ADDialect::kDifferentiableAttrName, b.getUnitAttr());
  if (k.forwardDifferentiable)
    kop->setAttr(tic::ad::ADDialect::kForwardAttrName, b.getUnitAttr());
  if (k.gradOfKernel)
    kop->setAttr(
        tic::ad::ADDialect::kGradOfAttrName,
        FlatSymbolRefAttr::get(b.getContext(), k.gradOfKernel->exportName));
  Block *entry = &kop.getBody().front();
  b.setInsertionPointToEnd(entry);
  allocaBlock = entry;
  inParallel = false;
  loops.clear();
  frames.clear();
  frames.emplace_back();
  collectMutated(k.body.get());
  for (const PInfo &pi : infos) {
    if (!pi.p->var)
      continue;
    if (pi.nd) {
      Binding bd;
      bd.vals.push_back(entry->getArgument(pi.first));
      frames.back()[pi.p->var] = bd;
      continue;
    }
    RV v;
    for (unsigned i = 0; i < pi.count; ++i)
      v.push(entry->getArgument(pi.first + i), pi.ts[i]);
    bindLocal(pi.p->var, v);
  }
  FnCtx fc;
  fc.fn = &k;
  fc.isKernel = true;
  fc.retTypes = rts;
  fns.push_back(fc);
  if (k.body)
    genBlock(*k.body);
  if (!terminated()) {
    SmallVector<Value> zs;
    for (ST t : rts)
      zs.push_back(zero(t));
    tic::tc::ReturnOp::create(b, curLoc, zs);
  }
  fns.pop_back();
  frames.clear();
  curKernel = nullptr;
}

OwningOpRef<ModuleOp> Generator::run() {
  tic::codegen::loadCodeGenDialects(ctx);
  Location mloc = FileLineColLoc::get(&ctx, fileName, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(mloc, M.name);
  module->getOperation()->setAttr("tc.module_name", b.getStringAttr(M.name));
  module->getOperation()->setAttr("tc.default_fp",
                                  b.getStringAttr(M.defaultFloat));
  genLayout(*module);
  for (auto &k : M.kernels)
    genKernel(*module, *k);
  if (failed)
    return nullptr;
  if (mlir::failed(mlir::verify(*module))) {
    diags.error(SourceRange(), "internal error: generated MLIR does not verify "
                               "(please report this with the input program)");
    return nullptr;
  }
  return module;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void tic::codegen::loadCodeGenDialects(MLIRContext &ctx) {
  ctx.loadDialect<tic::tc::TCDialect, tic::snode::SNodeDialect,
                  tic::ad::ADDialect, arith::ArithDialect, math::MathDialect,
                  cf::ControlFlowDialect, scf::SCFDialect,
                  memref::MemRefDialect, func::FuncDialect,
                  LLVM::LLVMDialect>();
}

OwningOpRef<ModuleOp>
tic::codegen::generateMLIR(const tic::sema::CheckedModule &module,
                           MLIRContext &ctx, tic::DiagnosticEngine &diags,
                           const CodeGenOptions &options) {
  Generator g(module, ctx, diags, options);
  return g.run();
}

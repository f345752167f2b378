//===- CodeGen.cpp - AST -> MLIR (tc + snode dialects) --------------------===//
//
// See include/tic/CodeGen/CodeGen.h and docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#include "CGInternal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cmath>
#include <functional>
#include <sstream>

using namespace mlir;
using namespace tic::codegen::detail;
namespace tast = tic::ast;
namespace tsema = tic::sema;
using tic::SourceRange;
using tsema::Builtin;

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
  ST s;
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

std::string stName(ST t) {
  switch (t.k) {
  case ST::Bool:
    return "bool";
  case ST::Float:
    return "f" + std::to_string(t.bits);
  case ST::Int:
    return (t.sgn ? "i" : "u") + std::to_string(t.bits);
  }
  return "?";
}

const char *builtinSpelling(Builtin b) {
  switch (b) {
  case Builtin::Svd: return "svd";
  case Builtin::PolarDecompose: return "polar_decompose";
  case Builtin::SymEig: return "sym_eig";
  case Builtin::Activate: return "activate";
  case Builtin::Deactivate: return "deactivate";
  case Builtin::IsActive: return "is_active";
  case Builtin::Append: return "append";
  case Builtin::Length: return "length";
  case Builtin::DeactivateCell: return "deactivate";
  case Builtin::RescaleIndex: return "rescale_index";
  case Builtin::BlockLocal: return "block_local";
  case Builtin::AssumeInRange: return "assume_in_range";
  case Builtin::BitVectorize: return "bit_vectorize";
  case Builtin::LoopConfig: return "loop_config";
  default: return "this builtin";
  }
}

const char *snodeKindName(tsema::SNode::Kind k) {
  switch (k) {
  case tsema::SNode::Kind::Root: return "root";
  case tsema::SNode::Kind::Dense: return "dense";
  case tsema::SNode::Kind::Bitmasked: return "bitmasked";
  case tsema::SNode::Kind::Pointer: return "pointer";
  case tsema::SNode::Kind::Hash: return "hash";
  case tsema::SNode::Kind::Dynamic: return "dynamic";
  case tsema::SNode::Kind::BitStruct: return "bit_struct";
  case tsema::SNode::Kind::BitArray: return "bit_array";
  }
  return "?";
}

/// Visits `e` and its sub-expressions.
void forEachExpr(const tast::Expr *e,
                 const std::function<void(const tast::Expr *)> &fn) {
  if (!e)
    return;
  fn(e);
  using K = tast::Expr::Kind;
  switch (e->kind) {
  case K::Call: {
    auto *c = static_cast<const tast::CallExpr *>(e);
    forEachExpr(c->callee.get(), fn);
    for (auto &a : c->args)
      forEachExpr(a.value.get(), fn);
    break;
  }
  case K::Index: {
    auto *x = static_cast<const tast::IndexExpr *>(e);
    forEachExpr(x->base.get(), fn);
    for (auto &i : x->indices)
      forEachExpr(i.get(), fn);
    break;
  }
  case K::Member:
    forEachExpr(static_cast<const tast::MemberExpr *>(e)->base.get(), fn);
    break;
  case K::Unary:
    forEachExpr(static_cast<const tast::UnaryExpr *>(e)->operand.get(), fn);
    break;
  case K::Binary: {
    auto *x = static_cast<const tast::BinaryExpr *>(e);
    forEachExpr(x->lhs.get(), fn);
    forEachExpr(x->rhs.get(), fn);
    break;
  }
  case K::Compare:
    for (auto &o : static_cast<const tast::CompareExpr *>(e)->operands)
      forEachExpr(o.get(), fn);
    break;
  case K::Ternary: {
    auto *x = static_cast<const tast::TernaryExpr *>(e);
    forEachExpr(x->cond.get(), fn);
    forEachExpr(x->trueValue.get(), fn);
    forEachExpr(x->falseValue.get(), fn);
    break;
  }
  case K::Static:
    forEachExpr(static_cast<const tast::StaticExpr *>(e)->operand.get(), fn);
    break;
  case K::Cast:
    forEachExpr(static_cast<const tast::CastExpr *>(e)->operand.get(), fn);
    break;
  case K::List:
    for (auto &x : static_cast<const tast::ListExpr *>(e)->elements)
      forEachExpr(x.get(), fn);
    break;
  case K::StructLit:
    for (auto &a : static_cast<const tast::StructLitExpr *>(e)->members)
      forEachExpr(a.value.get(), fn);
    break;
  default:
    break;
  }
}

/// Visits every statement (and the expressions of each) below `s`.
void forEachStmt(const tast::Stmt *s,
                 const std::function<void(const tast::Stmt *)> &fn) {
  if (!s)
    return;
  fn(s);
  using K = tast::Stmt::Kind;
  switch (s->kind) {
  case K::Block:
    for (auto &x : static_cast<const tast::BlockStmt *>(s)->body)
      forEachStmt(x.get(), fn);
    break;
  case K::If: {
    auto *x = static_cast<const tast::IfStmt *>(s);
    forEachStmt(x->thenBody.get(), fn);
    forEachStmt(x->elseBody.get(), fn);
    break;
  }
  case K::While:
    forEachStmt(static_cast<const tast::WhileStmt *>(s)->body.get(), fn);
    break;
  case K::For:
    forEachStmt(static_cast<const tast::ForStmt *>(s)->body.get(), fn);
    break;
  default:
    break;
  }
}

struct Shape {
  unsigned rows = 1, cols = 1;
  bool vec = false, mat = false;
};
Shape shapeOf(const tic::Type *t) {
  Shape s;
  if (auto *v = tic::dyn_cast<tic::VectorType>(t))
    s.rows = v->size, s.vec = true;
  else if (auto *m = tic::dyn_cast<tic::MatrixType>(t))
    s.rows = m->rows, s.cols = m->cols, s.mat = true;
  return s;
}

bool isAtomicBuiltin(Builtin b) {
  switch (b) {
  case Builtin::AtomicAdd: case Builtin::AtomicSub: case Builtin::AtomicMin:
  case Builtin::AtomicMax: case Builtin::AtomicAnd: case Builtin::AtomicOr:
  case Builtin::AtomicXor:
    return true;
  default:
    return false;
  }
}

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

/// Whether evaluating `e` may have side effects or trap (calls, atomics,
/// random, global/ndarray loads that may be out of range, integer division).
bool mayHaveEffects(const tast::Expr *e) {
  bool r = false;
  forEachExpr(e, [&](const tast::Expr *x) {
    if (x->constValue)
      return;
    if (auto *c = tic::dyn_cast<tast::CallExpr>(x)) {
      if (c->callKind == tast::CallExpr::CallKind::Func)
        r = true;
      if (c->callKind == tast::CallExpr::CallKind::Builtin) {
        switch (c->builtin) {
        case Builtin::Random: case Builtin::Print: case Builtin::Assert:
        case Builtin::Activate: case Builtin::Deactivate: case Builtin::Append:
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
// The generator
//===----------------------------------------------------------------------===//

struct Binding {
  SmallVector<Value, 4> vals; // SSA components, or rank-0 memrefs
  std::vector<ST> ts;
  bool mem = false;
};

struct LoopCtx {
  Block *brk = nullptr;  // null: break not allowed (parallel loop)
  Block *cont = nullptr;
};

struct FnCtx {
  const tsema::CheckedFunction *fn = nullptr;
  bool isKernel = false;
  Block *retBlock = nullptr; // funcs: continuation with the results
  std::vector<ST> retTypes;
};

class Generator {
public:
  Generator(const tsema::CheckedModule &m, MLIRContext &ctx,
            tic::DiagnosticEngine &diags, const tic::codegen::CodeGenOptions &o)
      : M(m), ctx(ctx), diags(diags), opts(o), b(&ctx) {
    fileName = opts.fileName.empty() ? std::string("<input>") : opts.fileName;
  }

  OwningOpRef<ModuleOp> run();

private:
  // ---- diagnostics and locations
  void error(SourceRange r, const std::string &msg) {
    diags.error(r, msg);
    failed = true;
  }
  void unsupported(SourceRange r, const std::string &what) {
    error(r, what + " is not supported yet");
  }
  Location loc(SourceRange r) {
    if (!r.isValid())
      return curLoc;
    return FileLineColLoc::get(&ctx, fileName, r.begin.line, r.begin.col);
  }

  // ---- types and constants
  mlir::Type mty(ST t) {
    switch (t.k) {
    case ST::Bool:
      return b.getI1Type();
    case ST::Int:
      return b.getIntegerType(t.bits);
    case ST::Float:
      return t.bits == 16 ? mlir::Type(b.getF16Type())
                          : t.bits == 64 ? mlir::Type(b.getF64Type())
                                         : mlir::Type(b.getF32Type());
    }
    return b.getI32Type();
  }
  Value cInt(int64_t v, ST t) {
    if (t.isFloat())
      return cFloat(double(v), t);
    unsigned bits = t.isBool() ? 1 : t.bits;
    llvm::APInt ap(bits, uint64_t(v), /*isSigned=*/false, /*implicitTrunc=*/true);
    return arith::ConstantOp::create(b, curLoc, b.getIntegerAttr(mty(t), ap));
  }
  Value cFloat(double v, ST t) {
    if (!t.isFloat())
      return cInt(int64_t(v), t);
    return arith::ConstantOp::create(b, curLoc, b.getFloatAttr(mty(t), v));
  }
  Value cI32(int64_t v) { return cInt(v, ST::i32()); }
  ST defaultFloat() const {
    return M.defaultFloat == "f64" ? ST{ST::Float, 64, true} : ST::f32();
  }
  Value cBool(bool v) { return cInt(v ? 1 : 0, ST::boolean()); }
  Value zero(ST t) { return t.isFloat() ? cFloat(0, t) : cInt(0, t); }
  Value one(ST t) { return t.isFloat() ? cFloat(1, t) : cInt(1, t); }

  void constLeaves(const tsema::ConstValue &cv,
                   std::vector<const tsema::ConstValue *> &out) {
    if (cv.kind == tsema::ConstValue::Kind::Aggregate) {
      for (auto &e : cv.elems)
        constLeaves(e, out);
    } else {
      out.push_back(&cv);
    }
  }
  RV constRV(const tsema::ConstValue &cv, const tic::Type *t) {
    std::vector<ST> ts;
    flatten(t ? t : cv.type, ts);
    std::vector<const tsema::ConstValue *> leaves;
    constLeaves(cv, leaves);
    RV r;
    for (size_t i = 0; i < ts.size(); ++i) {
      const tsema::ConstValue *l =
          leaves.empty() ? nullptr : leaves[std::min(i, leaves.size() - 1)];
      ST st = ts[i];
      Value v;
      if (!l) {
        v = zero(st);
      } else if (st.isFloat()) {
        double d = l->kind == tsema::ConstValue::Kind::Float ? l->f
                   : l->kind == tsema::ConstValue::Kind::Bool ? double(l->b)
                                                              : double(l->i);
        v = cFloat(d, st);
      } else if (st.isBool()) {
        bool bv = l->kind == tsema::ConstValue::Kind::Bool ? l->b
                  : l->kind == tsema::ConstValue::Kind::Float ? l->f != 0
                                                              : l->i != 0;
        v = cBool(bv);
      } else {
        int64_t iv = l->kind == tsema::ConstValue::Kind::Int ? l->i
                     : l->kind == tsema::ConstValue::Kind::Bool ? int64_t(l->b)
                                                                : int64_t(l->f);
        v = cInt(iv, st);
      }
      r.push(v, st);
    }
    return r;
  }
  static bool constInt(const tast::Expr *e, int64_t &out) {
    if (!e || !e->constValue)
      return false;
    const auto &cv = *e->constValue;
    if (cv.kind == tsema::ConstValue::Kind::Int) {
      out = cv.i;
      return true;
    }
    if (cv.kind == tsema::ConstValue::Kind::Bool) {
      out = cv.b;
      return true;
    }
    return false;
  }

  // ---- conversions
  Value conv(Value v, ST from, ST to);
  RV convTo(const RV &v, const std::vector<ST> &to);
  RV convTo(const RV &v, const tic::Type *to) {
    std::vector<ST> ts;
    flatten(to, ts);
    return convTo(v, ts);
  }
  RV convElems(const RV &v, ST to) {
    std::vector<ST> ts(v.size(), to);
    return convTo(v, ts);
  }
  Value toI1(Value v, ST t) { return conv(v, t, ST::boolean()); }
  /// Field/ndarray indices: scalars, or the components of an ivecN
  /// (`x[I]` in a grouped loop).
  void appendIndices(const RV &v, SmallVector<Value> &out) {
    for (size_t i = 0; i < v.size(); ++i)
      out.push_back(conv(v.v[i], v.ts[i], ST::i32()));
  }
  Value toI32(const RV &v) {
    if (v.size() == 0)
      return cI32(0);
    return conv(v.v[0], v.ts[0], ST::i32());
  }

  // ---- blocks
  Region *curRegion() { return b.getInsertionBlock()->getParent(); }
  bool terminated() {
    Block *blk = b.getInsertionBlock();
    return !blk->empty() && blk->back().hasTrait<OpTrait::IsTerminator>();
  }
  void append(Block *blk) { curRegion()->push_back(blk); }
  void br(Block *dest, ValueRange args = {}) {
    cf::BranchOp::create(b, curLoc, dest, args);
  }

  // ---- module parts
  void genLayout(ModuleOp module);
  void genSNode(const tsema::SNode *n);
  void genKernel(ModuleOp module, const tsema::CheckedFunction &k);
  void collectMutated(const tast::Stmt *body);

  // ---- statements
  void genBlock(const tast::BlockStmt &blk);
  void genStmt(const tast::Stmt &s);
  void genLet(const tast::LetStmt &s);
  void genVar(const tast::VarStmt &s);
  void genIf(const tast::IfStmt &s);
  void genWhile(const tast::WhileStmt &s);
  void genFor(const tast::ForStmt &s);
  void genParallelFor(const tast::ForStmt &s);
  void genSerialFor(const tast::ForStmt &s);
  void genReturn(const tast::ReturnStmt &s);
  void genAssign(const tast::AssignStmt &s);
  void bindLoopVars(const tast::ForStmt &s, ArrayRef<Value> ivs, ST ivType);
  bool loopBounds(const tast::ForStmt &s, SmallVector<Value> &lo,
                  SmallVector<Value> &hi, ST &ivType, int64_t &step);
  void serialNest(ArrayRef<Value> lo, ArrayRef<Value> hi, ST t, int64_t step,
                  const std::function<void(ArrayRef<Value>)> &body,
                  Block *breakDest);

  // ---- locals
  void bindLocal(const tsema::LocalVar *var, const RV &init);
  Binding *lookup(const tsema::LocalVar *var) {
    auto &frame = frames.back();
    auto it = frame.find(var);
    return it == frame.end() ? nullptr : &it->second;
  }
  Value allocaFor(ST t);

  // ---- expressions
  RV gen(const tast::Expr *e);
  RV genName(const tast::NameExpr &e);
  RV genIndex(const tast::IndexExpr &e);
  RV genMember(const tast::MemberExpr &e);
  RV genUnary(const tast::UnaryExpr &e);
  RV genBinary(const tast::BinaryExpr &e);
  RV genCompare(const tast::CompareExpr &e);
  RV genTernary(const tast::TernaryExpr &e);
  RV genCall(const tast::CallExpr &e);
  RV genFuncCall(const tast::CallExpr &e);
  RV genBuiltin(const tast::CallExpr &e);
  RV genList(const tast::ListExpr &e);
  RV genStructLit(const tast::StructLitExpr &e);
  RV genLogical(const tast::BinaryExpr &e);
  RV genPrint(const tast::CallExpr &e);
  RV genAtomicBuiltin(const tast::CallExpr &e);
  RV genLinalg(const tast::CallExpr &e, ArrayRef<RV> args);
  RV decompose2x2(Builtin which, ArrayRef<Value> A, ST t, SourceRange r);
  RV decompose3x3(Builtin which, ArrayRef<Value> A, ST t, SourceRange r);

  /// Elementwise binary arithmetic on RVs with scalar broadcast; operands
  /// are converted to `t` first (t: per-component compute type or, when
  /// `tt` is empty, the promotion of the operands).
  RV binop(tast::BinaryOp op, const RV &a, const RV &b2, const tic::Type *res,
           SourceRange r);
  Value scalarBinop(tast::BinaryOp op, Value x, Value y, ST t, SourceRange r);
  Value cmp(tast::CmpOp op, Value x, Value y, ST t);
  RV pow(const RV &base, const tast::Expr *expE, const RV &ex,
         const tic::Type *res, SourceRange r);
  Value ipow(Value x, Value n, ST t, ST nt);
  Value selectChain(Value sel, ArrayRef<Value> alts);
  RV pickComponents(const RV &v, const std::vector<unsigned> &idx) {
    RV r;
    for (unsigned i : idx)
      if (i < v.size())
        r.push(v.v[i], v.ts[i]);
    return r;
  }
  RV dynamicPick(const RV &v, Value sel,
                 const std::vector<std::vector<unsigned>> &alts);

  // ---- lvalues
  bool genLValue(const tast::Expr *e, LV &lv);
  bool refineLValue(LV &lv, const tast::Expr *e);
  /// With bounds checks: emits `tc.assert` on the indices of `lv` and
  /// branches around the access when they are out of range. Returns the
  /// merge block (null: no check needed); the caller performs the access at
  /// the current insertion point and then calls endGuard.
  Block *beginGuard(const LV &lv, ArrayRef<ST> resultTypes);
  RV endGuard(Block *merge, const RV &results);
  RV loadLV(const LV &lv);
  void storeLV(const LV &lv, const RV &v);
  RV atomicLV(const LV &lv, tic::tc::AtomicKind kind, const RV &v,
              SourceRange r, bool reduction);
  SmallVector<Value, 4> fieldIndices(const tsema::FieldInfo *f,
                                     ArrayRef<Value> idx);
  SmallVector<Value, 4> ndIndicesFor(const LV &lv, unsigned slot);

  const tsema::CheckedModule &M;
  MLIRContext &ctx;
  tic::DiagnosticEngine &diags;
  const tic::codegen::CodeGenOptions &opts;
  OpBuilder b;
  std::string fileName;
  Location curLoc = UnknownLoc::get(&ctx);
  bool failed = false;

  std::map<const tsema::SNode *, std::string> nodeNames;
  std::set<const tsema::LocalVar *> mutated;
  std::set<const tsema::CheckedFunction *> mutatedScanned;
  std::vector<std::map<const tsema::LocalVar *, Binding>> frames;
  std::vector<LoopCtx> loops;
  std::vector<FnCtx> fns;
  Block *allocaBlock = nullptr; // entry of the kernel / parallel loop body
  bool inParallel = false;
  bool guarding = false; // inside beginGuard/endGuard
  unsigned inlineDepth = 0;
  const tsema::CheckedFunction *curKernel = nullptr;
  std::set<const tsema::FieldInfo *> gradReported;
};

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

Value Generator::conv(Value v, ST from, ST to) {
  if (from == to)
    return v;
  mlir::Type tt = mty(to);
  if (v.getType() == tt && !(to.isBool() != from.isBool()))
    return v;
  Location l = curLoc;
  if (to.isBool()) {
    if (from.isFloat())
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, v,
                                   zero(from));
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v,
                                 zero(from));
  }
  if (to.isInt()) {
    if (from.isFloat())
      return to.sgn ? Value(arith::FPToSIOp::create(b, l, tt, v))
                    : Value(arith::FPToUIOp::create(b, l, tt, v));
    unsigned fb = from.isBool() ? 1 : from.bits;
    if (fb == to.bits)
      return v;
    if (fb > to.bits)
      return arith::TruncIOp::create(b, l, tt, v);
    if (from.isBool() || !from.sgn)
      return arith::ExtUIOp::create(b, l, tt, v);
    return arith::ExtSIOp::create(b, l, tt, v);
  }
  // to float
  if (from.isFloat()) {
    if (from.bits < to.bits)
      return arith::ExtFOp::create(b, l, tt, v);
    return arith::TruncFOp::create(b, l, tt, v);
  }
  if (from.isBool() || !from.sgn)
    return arith::UIToFPOp::create(b, l, tt, v);
  return arith::SIToFPOp::create(b, l, tt, v);
}

RV Generator::convTo(const RV &v, const std::vector<ST> &to) {
  RV r;
  if (v.size() == 0) {
    for (ST t : to)
      r.push(zero(t), t);
    return r;
  }
  for (size_t i = 0; i < to.size(); ++i) {
    size_t j = v.size() == 1 ? 0 : std::min(i, v.size() - 1);
    r.push(conv(v.v[j], v.ts[j], to[i]), to[i]);
  }
  return r;
}

Value Generator::selectChain(Value sel, ArrayRef<Value> alts) {
  Value r = alts[0];
  for (size_t j = 1; j < alts.size(); ++j) {
    Value c = arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::eq, sel,
                                    cI32(int64_t(j)));
    r = arith::SelectOp::create(b, curLoc, c, alts[j], r);
  }
  return r;
}

RV Generator::dynamicPick(const RV &v, Value sel,
                          const std::vector<std::vector<unsigned>> &alts) {
  RV r;
  if (alts.empty())
    return r;
  for (size_t c = 0; c < alts[0].size(); ++c) {
    SmallVector<Value> cands;
    for (auto &a : alts)
      cands.push_back(v.v[a[c]]);
    r.push(selectChain(sel, cands), v.ts[alts[0][c]]);
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

void Generator::genSNode(const tsema::SNode *n) {
  Location l = loc(n->range);
  if (n->kind != tsema::SNode::Kind::Dense) {
    error(n->range, std::string("'") + snodeKindName(n->kind) +
                        "' SNodes are not supported yet (only dense layouts "
                        "can be compiled)");
    return;
  }
  SmallVector<int64_t> axes(n->axes.begin(), n->axes.end());
  SmallVector<int64_t> shape(n->shape.begin(), n->shape.end());
  auto op = tic::snode::DenseOp::create(b, l, nodeNames[n], axes, shape);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(&op.getBody().front());
  for (const tsema::FieldInfo *f : n->places) {
    std::vector<ST> ts;
    flatten(f->elemType, ts);
    SmallVector<Attribute> comps;
    for (ST t : ts)
      comps.push_back(TypeAttr::get(mty(t)));
    tic::snode::PlaceOp::create(b, loc(f->range), f->name,
                                b.getArrayAttr(comps));
  }
  for (auto &c : n->children)
    genSNode(c.get());
}

void Generator::genLayout(ModuleOp module) {
  if (!M.root)
    return;
  // Quantized fields and autodiff companions need later stages.
  for (auto &f : M.fields) {
    const tic::Type *e = f->elemType;
    bool quant = e && (e->isQuant() ||
                       (tic::isa<tic::VectorType>(e) &&
                        tic::cast<tic::VectorType>(e)->elem->isQuant()) ||
                       (tic::isa<tic::MatrixType>(e) &&
                        tic::cast<tic::MatrixType>(e)->elem->isQuant()));
    if (quant)
      unsupported(f->range, "the quantized field '" + f->name + "'");
  }
  // Node symbols: the layout `let` name when it is free, else KIND<id>.
  std::set<std::string> used;
  for (auto &f : M.fields)
    used.insert(f->name);
  used.insert("root");
  for (const tsema::SNode *n : M.snodes) {
    if (n == M.root.get())
      continue;
    std::string name = n->letName;
    if (name.empty() || used.count(name))
      name = std::string(snodeKindName(n->kind)) + std::to_string(n->id);
    while (used.count(name))
      name += "_";
    used.insert(name);
    nodeNames[n] = name;
  }
  bool any = !M.root->children.empty() || !M.root->places.empty();
  if (!any)
    return;
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(module.getBody());
  auto tree = tic::snode::TreeOp::create(b, loc(M.root->range), "root");
  b.setInsertionPointToEnd(&tree.getBody().front());
  for (const tsema::FieldInfo *f : M.root->places) {
    std::vector<ST> ts;
    flatten(f->elemType, ts);
    SmallVector<Attribute> comps;
    for (ST t : ts)
      comps.push_back(TypeAttr::get(mty(t)));
    tic::snode::PlaceOp::create(b, loc(f->range), f->name,
                                b.getArrayAttr(comps));
  }
  for (auto &c : M.root->children)
    genSNode(c.get());
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

void Generator::collectMutated(const tast::Stmt *body) {
  forEachStmt(body, [&](const tast::Stmt *s) {
    std::function<void(const tast::Expr *)> scan = [&](const tast::Expr *e) {
      forEachExpr(e, [&](const tast::Expr *x) {
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
  gradReported.clear();
  SourceRange krange = k.decl ? k.decl->range : SourceRange();
  curLoc = loc(krange);
  if (!k.gradOf.empty())
    unsupported(krange, "a custom gradient kernel (@grad_of)");

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
      argAttrs.push_back(
          b.getDictionaryAttr({b.getNamedAttr("tc.name", b.getStringAttr(p.name))}));
      pi.nd = true;
      pi.count = 1;
    } else {
      flatten(p.type, pi.ts);
      for (size_t i = 0; i < pi.ts.size(); ++i) {
        ins.push_back(mty(pi.ts[i]));
        std::string n = pi.ts.size() == 1 && p.type->isScalar()
                            ? p.name
                            : p.name + "[" + std::to_string(i) + "]";
        argAttrs.push_back(
            b.getDictionaryAttr({b.getNamedAttr("tc.name", b.getStringAttr(n))}));
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
    const std::vector<tsema::Axis> &axes = field ? field->axes : node->indexAxes;
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
        error(s.iterable->range, "cannot iterate over the 0-D field '" +
                                     field->name + "'");
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
                                           nullptr, nullptr);
    if (s.parallelize > 0)
      sf.setParallelizeAttr(b.getI32IntegerAttr(int32_t(s.parallelize)));
    if (s.blockDim > 0)
      sf.setBlockDimAttr(b.getI32IntegerAttr(int32_t(s.blockDim)));
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
    if (step != 1) {
      unsupported(s.iterable->range, "a parallel range with a step");
      return;
    }
    ST bt = ivType.bits == 64 ? ST::i64() : ST::i32();
    for (auto &v : lo)
      v = conv(v, ivType, bt);
    for (auto &v : hi)
      v = conv(v, ivType, bt);
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
        step > 0 ? (t.sgn ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult)
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
        unsupported(s.iterable->range, "a serial struct-for over a sparse SNode");
        return;
      }
  }
  if (!loopBounds(s, lo, hi, ivType, step))
    return;
  // Struct-for loop variables index the field's axes in order.
  Block *outer = nullptr;
  serialNest(lo, hi, ivType, step,
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
  case tast::AssignOp::Add: return tast::BinaryOp::Add;
  case tast::AssignOp::Sub: return tast::BinaryOp::Sub;
  case tast::AssignOp::Mul: return tast::BinaryOp::Mul;
  case tast::AssignOp::Div: return tast::BinaryOp::Div;
  case tast::AssignOp::FloorDiv: return tast::BinaryOp::FloorDiv;
  case tast::AssignOp::Mod: return tast::BinaryOp::Mod;
  case tast::AssignOp::Pow: return tast::BinaryOp::Pow;
  case tast::AssignOp::BitAnd: return tast::BinaryOp::BitAnd;
  case tast::AssignOp::BitOr: return tast::BinaryOp::BitOr;
  case tast::AssignOp::BitXor: return tast::BinaryOp::BitXor;
  case tast::AssignOp::Shl: return tast::BinaryOp::Shl;
  case tast::AssignOp::Shr: return tast::BinaryOp::Shr;
  default: return tast::BinaryOp::Add;
  }
}

static bool atomicKindOf(tast::AssignOp op, tic::tc::AtomicKind &k) {
  using AK = tic::tc::AtomicKind;
  switch (op) {
  case tast::AssignOp::Add: k = AK::add; return true;
  case tast::AssignOp::Sub: k = AK::sub; return true;
  case tast::AssignOp::Min: k = AK::min; return true;
  case tast::AssignOp::Max: k = AK::max; return true;
  case tast::AssignOp::BitAnd: k = AK::and_; return true;
  case tast::AssignOp::BitOr: k = AK::or_; return true;
  case tast::AssignOp::BitXor: k = AK::xor_; return true;
  default: return false;
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

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

RV Generator::gen(const tast::Expr *e) {
  if (!e)
    return {};
  Location saved = curLoc;
  curLoc = loc(e->range);
  RV r;
  if (e->constValue && isValueType(e->type) &&
      e->constValue->kind != tsema::ConstValue::Kind::String &&
      e->constValue->kind != tsema::ConstValue::Kind::Type) {
    r = constRV(*e->constValue, e->type);
    curLoc = saved;
    return r;
  }
  using K = tast::Expr::Kind;
  switch (e->kind) {
  case K::IntLit: {
    auto *x = static_cast<const tast::IntLitExpr *>(e);
    ST t = e->type ? elemOf(e->type) : ST::i32();
    r.push(t.isFloat() ? cFloat(double(x->value), t) : cInt(int64_t(x->value), t),
           t);
    break;
  }
  case K::FloatLit: {
    auto *x = static_cast<const tast::FloatLitExpr *>(e);
    ST t = e->type ? elemOf(e->type) : ST::f32();
    r.push(cFloat(x->value, t), t);
    break;
  }
  case K::BoolLit:
    r.push(cBool(static_cast<const tast::BoolLitExpr *>(e)->value),
           ST::boolean());
    if (e->type)
      r = convTo(r, e->type);
    break;
  case K::StringLit:
    error(e->range, "a string can only be printed or used as an assert message");
    break;
  case K::Name:
    r = genName(*static_cast<const tast::NameExpr *>(e));
    break;
  case K::Call:
    r = genCall(*static_cast<const tast::CallExpr *>(e));
    break;
  case K::Index:
    r = genIndex(*static_cast<const tast::IndexExpr *>(e));
    break;
  case K::Member:
    r = genMember(*static_cast<const tast::MemberExpr *>(e));
    break;
  case K::Unary:
    r = genUnary(*static_cast<const tast::UnaryExpr *>(e));
    break;
  case K::Binary:
    r = genBinary(*static_cast<const tast::BinaryExpr *>(e));
    break;
  case K::Compare:
    r = genCompare(*static_cast<const tast::CompareExpr *>(e));
    break;
  case K::Ternary:
    r = genTernary(*static_cast<const tast::TernaryExpr *>(e));
    break;
  case K::Static:
    r = gen(static_cast<const tast::StaticExpr *>(e)->operand.get());
    break;
  case K::Cast:
    r = gen(static_cast<const tast::CastExpr *>(e)->operand.get());
    r = convTo(r, e->type);
    break;
  case K::List:
    r = genList(*static_cast<const tast::ListExpr *>(e));
    break;
  case K::StructLit:
    r = genStructLit(*static_cast<const tast::StructLitExpr *>(e));
    break;
  }
  curLoc = saved;
  return r;
}

RV Generator::genName(const tast::NameExpr &e) {
  RV r;
  switch (e.ref.kind) {
  case tast::NameRef::Local: {
    Binding *bd = lookup(e.ref.local);
    if (!bd) {
      error(e.range, "internal error: '" + e.name + "' has no value here");
      return r;
    }
    for (size_t i = 0; i < bd->vals.size(); ++i) {
      if (bd->mem)
        r.push(memref::LoadOp::create(b, curLoc, bd->vals[i], ValueRange{}),
               bd->ts[i]);
      else
        r.push(bd->vals[i], i < bd->ts.size() ? bd->ts[i] : ST::i32());
    }
    return r;
  }
  case tast::NameRef::Constant:
    if (e.ref.constant)
      return constRV(e.ref.constant->value, e.type ? e.type : e.ref.constant->type);
    break;
  default:
    break;
  }
  error(e.range, "'" + e.name + "' cannot be used as a value here");
  return r;
}

SmallVector<Value, 4> Generator::fieldIndices(const tsema::FieldInfo *f,
                                              ArrayRef<Value> idx) {
  unsigned rank = 0;
  for (auto a : f->axes)
    rank = std::max(rank, unsigned(a) + 1);
  SmallVector<Value, 4> full(rank, Value());
  for (size_t k = 0; k < f->axes.size() && k < idx.size(); ++k)
    full[f->axes[k]] = idx[k];
  for (auto &v : full)
    if (!v)
      v = cI32(0);
  return full;
}

static std::vector<unsigned> compShapeOf(const tic::Type *elem) {
  if (auto *v = tic::dyn_cast<tic::VectorType>(elem))
    return {v->size};
  if (auto *m = tic::dyn_cast<tic::MatrixType>(elem))
    return {m->rows, m->cols};
  return {};
}

SmallVector<Value, 4> Generator::ndIndicesFor(const LV &lv, unsigned slot) {
  SmallVector<Value, 4> idx(lv.ndIdx.begin(), lv.ndIdx.end());
  if (lv.compShape.size() == 1)
    idx.push_back(cI32(slot));
  else if (lv.compShape.size() == 2) {
    idx.push_back(cI32(slot / lv.compShape[1]));
    idx.push_back(cI32(slot % lv.compShape[1]));
  }
  return idx;
}

bool Generator::genLValue(const tast::Expr *e, LV &lv) {
  if (auto *n = tic::dyn_cast<tast::NameExpr>(e)) {
    if (n->ref.kind != tast::NameRef::Local) {
      error(e->range, "'" + n->name + "' cannot be assigned");
      return false;
    }
    Binding *bd = lookup(n->ref.local);
    if (!bd || !bd->mem) {
      error(e->range, "'" + n->name + "' is immutable (declare it with 'var')");
      return false;
    }
    lv.k = LV::Local;
    lv.var = n->ref.local;
    lv.type = n->ref.local->type;
    lv.mem = bd->vals;
    lv.slotTypes = bd->ts;
    std::vector<unsigned> all;
    for (unsigned i = 0; i < bd->vals.size(); ++i)
      all.push_back(i);
    lv.alts = {all};
    return true;
  }
  if (auto *ix = tic::dyn_cast<tast::IndexExpr>(e)) {
    using IK = tast::IndexExpr::IndexKind;
    if (ix->indexKind == IK::Field) {
      const tsema::FieldInfo *f = ix->field;
      if (!f) {
        error(e->range, "internal error: unresolved field access");
        return false;
      }
      SmallVector<Value> idx;
      for (auto &i : ix->indices)
        appendIndices(gen(i.get()), idx);
      lv.k = LV::Field;
      lv.field = f;
      lv.type = e->type;
      lv.idx = fieldIndices(f, idx);
      flatten(f->elemType, lv.slotTypes);
      std::vector<unsigned> all;
      for (unsigned i = 0; i < lv.slotTypes.size(); ++i)
        all.push_back(i);
      lv.alts = {all};
      return true;
    }
    if (ix->indexKind == IK::NDArray) {
      auto *base = tic::dyn_cast<tast::NameExpr>(ix->base.get());
      Binding *bd = base && base->ref.kind == tast::NameRef::Local
                        ? lookup(base->ref.local)
                        : nullptr;
      auto *nt = base ? tic::dyn_cast<tic::NDArrayType>(base->type) : nullptr;
      if (!bd || !nt || bd->vals.empty()) {
        unsupported(e->range, "this ndarray access");
        return false;
      }
      lv.k = LV::NDArray;
      lv.array = bd->vals[0];
      lv.type = e->type;
      {
        SmallVector<Value> idx;
        for (auto &i : ix->indices)
          appendIndices(gen(i.get()), idx);
        lv.ndIdx.append(idx.begin(), idx.end());
      }
      lv.compShape = compShapeOf(nt->elem);
      flatten(nt->elem, lv.slotTypes);
      std::vector<unsigned> all;
      for (unsigned i = 0; i < lv.slotTypes.size(); ++i)
        all.push_back(i);
      lv.alts = {all};
      return true;
    }
    if (!genLValue(ix->base.get(), lv))
      return false;
    return refineLValue(lv, e);
  }
  if (auto *m = tic::dyn_cast<tast::MemberExpr>(e)) {
    if (!genLValue(m->base.get(), lv))
      return false;
    return refineLValue(lv, e);
  }
  error(e->range, "this expression cannot be assigned");
  return false;
}

/// Narrows `lv` (whose current type is the base type of `e`) to `e`.
bool Generator::refineLValue(LV &lv, const tast::Expr *e) {
  const tic::Type *bt = lv.type;
  // Static selection: new alternative = pick(old alternative).
  auto applyStatic = [&](const std::vector<unsigned> &pick) {
    for (auto &a : lv.alts) {
      std::vector<unsigned> n;
      for (unsigned p : pick)
        n.push_back(p < a.size() ? a[p] : 0);
      a = n;
    }
  };
  // Dynamic selection among `choices` by `sel`.
  auto applyDynamic = [&](const std::vector<std::vector<unsigned>> &choices,
                          Value sel) {
    std::vector<std::vector<unsigned>> n;
    for (auto &a : lv.alts)
      for (auto &c : choices) {
        std::vector<unsigned> x;
        for (unsigned p : c)
          x.push_back(p < a.size() ? a[p] : 0);
        n.push_back(x);
      }
    if (lv.sel) {
      Value scaled = arith::MulIOp::create(b, curLoc, lv.sel,
                                           cI32(int64_t(choices.size())));
      lv.sel = arith::AddIOp::create(b, curLoc, scaled, sel);
    } else {
      lv.sel = sel;
    }
    lv.alts = n;
  };
  if (auto *m = tic::dyn_cast<tast::MemberExpr>(e)) {
    if (!m->components.empty()) {
      applyStatic(m->components);
    } else if (m->memberIndex >= 0) {
      auto *st = tic::dyn_cast<tic::StructType>(bt);
      if (!st) {
        error(e->range, "internal error: member of a non-struct");
        return false;
      }
      unsigned off = 0;
      for (int i = 0; i < m->memberIndex; ++i)
        off += flatCount(st->members[i].type);
      unsigned cnt = flatCount(st->members[m->memberIndex].type);
      std::vector<unsigned> pick;
      for (unsigned i = 0; i < cnt; ++i)
        pick.push_back(off + i);
      applyStatic(pick);
    } else {
      error(e->range, "'." + m->member + "' cannot be assigned");
      return false;
    }
    lv.type = e->type;
    return true;
  }
  auto *ix = tic::cast<tast::IndexExpr>(e);
  using IK = tast::IndexExpr::IndexKind;
  std::vector<int64_t> cidx;
  bool allConst = true;
  for (auto &i : ix->indices) {
    int64_t c;
    if (constInt(i.get(), c))
      cidx.push_back(c);
    else
      allConst = false, cidx.push_back(-1);
  }
  unsigned rows = 0, cols = 0;
  if (auto *v = tic::dyn_cast<tic::VectorType>(bt))
    rows = v->size, cols = 1;
  else if (auto *mt = tic::dyn_cast<tic::MatrixType>(bt))
    rows = mt->rows, cols = mt->cols;
  if (ix->indexKind != IK::Vector && ix->indexKind != IK::Matrix) {
    error(e->range, "this expression cannot be assigned");
    return false;
  }
  bool rowSel = ix->indexKind == IK::Matrix && ix->indices.size() == 1;
  unsigned width = rowSel ? cols : 1;
  unsigned n = ix->indexKind == IK::Vector ? rows : (rowSel ? rows : rows * cols);
  if (allConst) {
    int64_t k = ix->indexKind == IK::Matrix && !rowSel
                    ? cidx[0] * cols + cidx[1]
                    : cidx[0];
    if (k < 0 || k >= int64_t(n)) {
      error(e->range, "index " + std::to_string(k) + " is out of range");
      return false;
    }
    std::vector<unsigned> pick;
    for (unsigned i = 0; i < width; ++i)
      pick.push_back(unsigned(k) * width + i);
    applyStatic(pick);
  } else {
    Value sel;
    if (ix->indexKind == IK::Matrix && !rowSel) {
      Value r = toI32(gen(ix->indices[0].get()));
      Value c = toI32(gen(ix->indices[1].get()));
      sel = arith::AddIOp::create(
          b, curLoc, arith::MulIOp::create(b, curLoc, r, cI32(cols)), c);
    } else {
      sel = toI32(gen(ix->indices[0].get()));
    }
    std::vector<std::vector<unsigned>> choices;
    for (unsigned k = 0; k < n; ++k) {
      std::vector<unsigned> c;
      for (unsigned i = 0; i < width; ++i)
        c.push_back(k * width + i);
      choices.push_back(c);
    }
    applyDynamic(choices, sel);
  }
  lv.type = e->type;
  return true;
}

Block *Generator::beginGuard(const LV &lv, ArrayRef<ST> resultTypes) {
  if (!opts.checkBounds || guarding || lv.k == LV::Local)
    return nullptr;
  Value ok;
  std::string what;
  auto both = [&](Value c) {
    ok = ok ? Value(arith::AndIOp::create(b, curLoc, ok, c)) : c;
  };
  if (lv.k == LV::Field) {
    const tsema::FieldInfo *f = lv.field;
    if (f->unbounded || f->axes.empty())
      return nullptr;
    for (size_t k = 0; k < f->axes.size() && k < f->shape.size(); ++k) {
      Value i = lv.idx[f->axes[k]], ext = cI32(f->shape[k]);
      // Reported as TC_ERR_OUT_OF_BOUNDS with field, axis, index and extent.
      tic::tc::BoundsCheckOp::create(b, curLoc, i, ext, f->name, int32_t(k));
      both(arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::ult, i, ext));
    }
  } else {
    for (size_t k = 0; k < lv.ndIdx.size(); ++k) {
      Value n = tic::tc::NDArrayDimOp::create(b, curLoc, lv.array, int64_t(k));
      both(arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::ult,
                                 lv.ndIdx[k], n));
    }
    what = "index out of range of an ndarray parameter";
  }
  if (!ok)
    return nullptr;
  if (lv.k != LV::Field)
    tic::tc::AssertOp::create(b, curLoc, ok, what);
  Block *access = new Block(), *merge = new Block();
  SmallVector<Value> zeros;
  for (ST t : resultTypes) {
    merge->addArgument(mty(t), curLoc);
    zeros.push_back(zero(t));
  }
  cf::CondBranchOp::create(b, curLoc, ok, access, ValueRange{}, merge, zeros);
  append(access);
  b.setInsertionPointToEnd(access);
  guarding = true;
  return merge;
}

RV Generator::endGuard(Block *merge, const RV &results) {
  guarding = false;
  br(merge, results.v);
  append(merge);
  b.setInsertionPointToEnd(merge);
  RV r;
  for (size_t i = 0; i < results.size(); ++i)
    r.push(merge->getArgument(i), results.ts[i]);
  return r;
}

RV Generator::loadLV(const LV &lv) {
  if (opts.checkBounds && !guarding && lv.k != LV::Local) {
    std::vector<ST> rts;
    for (unsigned s : lv.alts[0])
      rts.push_back(lv.slotTypes[s]);
    if (Block *merge = beginGuard(lv, rts))
      return endGuard(merge, loadLV(lv));
  }
  // Load every slot any alternative uses, then select.
  std::map<unsigned, Value> loaded;
  auto slot = [&](unsigned s) -> Value {
    auto it = loaded.find(s);
    if (it != loaded.end())
      return it->second;
    Value v;
    ST t = s < lv.slotTypes.size() ? lv.slotTypes[s] : ST::i32();
    switch (lv.k) {
    case LV::Local:
      v = memref::LoadOp::create(b, curLoc, lv.mem[s], ValueRange{});
      break;
    case LV::Field:
      v = tic::tc::LoadOp::create(b, curLoc, mty(t), lv.field->name, lv.idx, s);
      break;
    case LV::NDArray:
      v = tic::tc::NDArrayLoadOp::create(b, curLoc, mty(t), lv.array,
                                         ndIndicesFor(lv, s));
      break;
    }
    loaded[s] = v;
    return v;
  };
  RV r;
  if (lv.alts.size() == 1) {
    for (unsigned s : lv.alts[0])
      r.push(slot(s), lv.slotTypes[s]);
    return r;
  }
  for (size_t c = 0; c < lv.alts[0].size(); ++c) {
    SmallVector<Value> cands;
    for (auto &a : lv.alts)
      cands.push_back(slot(a[c]));
    r.push(selectChain(lv.sel, cands), lv.slotTypes[lv.alts[0][c]]);
  }
  return r;
}

void Generator::storeLV(const LV &lv, const RV &v) {
  if (opts.checkBounds && !guarding && lv.k != LV::Local)
    if (Block *merge = beginGuard(lv, {})) {
      storeLV(lv, v);
      endGuard(merge, RV());
      return;
    }
  auto storeSlot = [&](unsigned s, Value x) {
    switch (lv.k) {
    case LV::Local:
      memref::StoreOp::create(b, curLoc, x, lv.mem[s], ValueRange{});
      break;
    case LV::Field:
      tic::tc::StoreOp::create(b, curLoc, x, lv.field->name, lv.idx, s);
      break;
    case LV::NDArray:
      tic::tc::NDArrayStoreOp::create(b, curLoc, x, lv.array,
                                      ndIndicesFor(lv, s));
      break;
    }
  };
  if (lv.alts.size() == 1) {
    for (size_t c = 0; c < lv.alts[0].size() && c < v.size(); ++c)
      storeSlot(lv.alts[0][c], v.v[c]);
    return;
  }
  if (lv.k == LV::Local) {
    // Every candidate slot keeps its value unless selected.
    for (size_t j = 0; j < lv.alts.size(); ++j) {
      Value isJ = arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::eq,
                                        lv.sel, cI32(int64_t(j)));
      for (size_t c = 0; c < lv.alts[j].size() && c < v.size(); ++c) {
        unsigned s = lv.alts[j][c];
        Value old = memref::LoadOp::create(b, curLoc, lv.mem[s], ValueRange{});
        Value nv = arith::SelectOp::create(b, curLoc, isJ, v.v[c], old);
        memref::StoreOp::create(b, curLoc, nv, lv.mem[s], ValueRange{});
      }
    }
    return;
  }
  // Global storage: branch on the selector.
  Block *merge = new Block();
  SmallVector<Block *> cases;
  SmallVector<int32_t> caseVals;
  for (size_t j = 0; j < lv.alts.size(); ++j) {
    cases.push_back(new Block());
    caseVals.push_back(int32_t(j));
  }
  SmallVector<ValueRange> caseOps(cases.size(), ValueRange{});
  cf::SwitchOp::create(b, curLoc, lv.sel, merge, ValueRange{}, caseVals, cases,
                       caseOps);
  for (size_t j = 0; j < cases.size(); ++j) {
    append(cases[j]);
    b.setInsertionPointToEnd(cases[j]);
    for (size_t c = 0; c < lv.alts[j].size() && c < v.size(); ++c)
      storeSlot(lv.alts[j][c], v.v[c]);
    br(merge);
  }
  append(merge);
  b.setInsertionPointToEnd(merge);
}

RV Generator::atomicLV(const LV &lv, tic::tc::AtomicKind kind, const RV &v,
                       SourceRange r, bool reduction) {
  using AK = tic::tc::AtomicKind;
  if (opts.checkBounds && !guarding && lv.k != LV::Local && lv.alts.size() == 1) {
    std::vector<ST> rts;
    for (unsigned s : lv.alts[0])
      rts.push_back(lv.slotTypes[s]);
    if (Block *merge = beginGuard(lv, rts))
      return endGuard(merge, atomicLV(lv, kind, v, r, reduction));
  }
  RV old;
  if (lv.alts.size() != 1) {
    unsupported(r, "an atomic update of a component chosen at run time");
    return old;
  }
  const auto &slots = lv.alts[0];
  for (size_t c = 0; c < slots.size() && c < v.size(); ++c) {
    unsigned s = slots[c];
    ST t = lv.slotTypes[s];
    Value x = v.v[c];
    if (t.isFloat() && (kind == AK::and_ || kind == AK::or_ || kind == AK::xor_)) {
      error(r, "bitwise atomic on a floating-point value");
      return old;
    }
    switch (lv.k) {
    case LV::Field:
      old.push(tic::tc::AtomicRMWOp::create(b, curLoc, mty(t), kind, x,
                                            lv.field->name, lv.idx, s),
               t);
      break;
    case LV::NDArray:
      old.push(tic::tc::NDArrayAtomicRMWOp::create(b, curLoc, mty(t), kind, x,
                                                   lv.array, ndIndicesFor(lv, s)),
               t);
      break;
    case LV::Local: {
      Value m = lv.mem[s];
      if (reduction) {
        arith::AtomicRMWKind k;
        Value operand = x;
        switch (kind) {
        case AK::add:
        case AK::sub:
          k = t.isFloat() ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
          if (kind == AK::sub)
            operand = t.isFloat()
                          ? Value(arith::NegFOp::create(b, curLoc, x))
                          : Value(arith::SubIOp::create(b, curLoc, zero(t), x));
          break;
        case AK::min:
          k = t.isFloat() ? arith::AtomicRMWKind::minimumf
              : t.sgn     ? arith::AtomicRMWKind::mins
                          : arith::AtomicRMWKind::minu;
          break;
        case AK::max:
          k = t.isFloat() ? arith::AtomicRMWKind::maximumf
              : t.sgn     ? arith::AtomicRMWKind::maxs
                          : arith::AtomicRMWKind::maxu;
          break;
        case AK::and_: k = arith::AtomicRMWKind::andi; break;
        case AK::or_: k = arith::AtomicRMWKind::ori; break;
        default:
          unsupported(r, "this reduction");
          return old;
        }
        old.push(memref::AtomicRMWOp::create(b, curLoc, k, operand, m,
                                             ValueRange{}),
                 t);
        break;
      }
      Value o = memref::LoadOp::create(b, curLoc, m, ValueRange{});
      Value n;
      bool f = t.isFloat();
      switch (kind) {
      case AK::add:
        n = f ? Value(arith::AddFOp::create(b, curLoc, o, x))
              : Value(arith::AddIOp::create(b, curLoc, o, x));
        break;
      case AK::sub:
        n = f ? Value(arith::SubFOp::create(b, curLoc, o, x))
              : Value(arith::SubIOp::create(b, curLoc, o, x));
        break;
      case AK::min:
        n = f ? Value(arith::MinNumFOp::create(b, curLoc, o, x))
            : t.sgn ? Value(arith::MinSIOp::create(b, curLoc, o, x))
                    : Value(arith::MinUIOp::create(b, curLoc, o, x));
        break;
      case AK::max:
        n = f ? Value(arith::MaxNumFOp::create(b, curLoc, o, x))
            : t.sgn ? Value(arith::MaxSIOp::create(b, curLoc, o, x))
                    : Value(arith::MaxUIOp::create(b, curLoc, o, x));
        break;
      case AK::and_: n = arith::AndIOp::create(b, curLoc, o, x); break;
      case AK::or_: n = arith::OrIOp::create(b, curLoc, o, x); break;
      case AK::xor_: n = arith::XOrIOp::create(b, curLoc, o, x); break;
      }
      memref::StoreOp::create(b, curLoc, n, m, ValueRange{});
      old.push(o, t);
      break;
    }
    }
  }
  return old;
}

RV Generator::genIndex(const tast::IndexExpr &e) {
  using IK = tast::IndexExpr::IndexKind;
  if (e.indexKind == IK::Field || e.indexKind == IK::NDArray) {
    if (e.indexKind == IK::Field && e.field && curKernel && !curKernel->noGrad &&
        curKernel->gradOf.empty()) {
      const tsema::FieldInfo *p = e.field->primal ? e.field->primal : e.field;
      if ((p->needsGrad || p->needsDual) && !gradReported.count(p)) {
        gradReported.insert(p);
        error(e.range,
              "automatic differentiation is not supported yet: kernel '" +
                  curKernel->name + "' reads the differentiable field '" +
                  p->name + "' and would need an adjoint (mark it @no_grad "
                  "to compile it without one)");
      }
    }
    LV lv;
    if (!genLValue(&e, lv))
      return {};
    return loadLV(lv);
  }
  if (e.indexKind == IK::Tuple) {
    // x.shape[k] of an ndarray: its extent at run time.
    auto *m = tic::dyn_cast<tast::MemberExpr>(e.base.get());
    auto *n = m ? tic::dyn_cast<tast::NameExpr>(m->base.get()) : nullptr;
    int64_t k;
    if (m && n && m->member == "shape" && e.indices.size() == 1 &&
        constInt(e.indices[0].get(), k) && n->ref.kind == tast::NameRef::Local) {
      Binding *bd = lookup(n->ref.local);
      auto *nt = tic::dyn_cast<tic::NDArrayType>(n->type);
      if (bd && nt && !bd->vals.empty() && k >= 0 && k < int64_t(nt->ndim)) {
        RV r;
        Value d = tic::tc::NDArrayDimOp::create(b, curLoc, bd->vals[0], k);
        r.push(d, ST::i32());
        return convTo(r, e.type);
      }
    }
    unsupported(e.range, "this tuple index");
    return {};
  }
  RV base = gen(e.base.get());
  const tic::Type *bt = e.base->type;
  unsigned rows = 0, cols = 1;
  if (auto *v = tic::dyn_cast<tic::VectorType>(bt))
    rows = v->size;
  else if (auto *mt = tic::dyn_cast<tic::MatrixType>(bt))
    rows = mt->rows, cols = mt->cols;
  bool rowSel = e.indexKind == IK::Matrix && e.indices.size() == 1;
  if (e.indexKind != IK::Vector && e.indexKind != IK::Matrix) {
    unsupported(e.range, "this index expression");
    return {};
  }
  unsigned width = rowSel ? cols : 1;
  unsigned n = e.indexKind == IK::Vector ? rows : (rowSel ? rows : rows * cols);
  int64_t c0, c1;
  bool k0 = constInt(e.indices[0].get(), c0);
  bool k1 = e.indices.size() < 2 || constInt(e.indices[1].get(), c1);
  if (k0 && k1) {
    int64_t k = e.indexKind == IK::Matrix && !rowSel ? c0 * cols + c1 : c0;
    if (k < 0 || k >= int64_t(n)) {
      error(e.range, "index " + std::to_string(k) + " is out of range");
      return {};
    }
    std::vector<unsigned> pick;
    for (unsigned i = 0; i < width; ++i)
      pick.push_back(unsigned(k) * width + i);
    return pickComponents(base, pick);
  }
  Value sel;
  if (e.indexKind == IK::Matrix && !rowSel) {
    Value r = toI32(gen(e.indices[0].get()));
    Value c = toI32(gen(e.indices[1].get()));
    sel = arith::AddIOp::create(b, curLoc,
                                arith::MulIOp::create(b, curLoc, r, cI32(cols)), c);
  } else {
    sel = toI32(gen(e.indices[0].get()));
  }
  std::vector<std::vector<unsigned>> alts;
  for (unsigned k = 0; k < n; ++k) {
    std::vector<unsigned> a;
    for (unsigned i = 0; i < width; ++i)
      a.push_back(k * width + i);
    alts.push_back(a);
  }
  return dynamicPick(base, sel, alts);
}

RV Generator::genMember(const tast::MemberExpr &e) {
  if (e.field) {
    error(e.range, "the field '" + e.field->name + "' must be indexed");
    return {};
  }
  if (!e.components.empty())
    return pickComponents(gen(e.base.get()), e.components);
  if (e.memberIndex >= 0) {
    auto *st = tic::dyn_cast<tic::StructType>(e.base->type);
    if (!st)
      return {};
    RV base = gen(e.base.get());
    unsigned off = 0;
    for (int i = 0; i < e.memberIndex; ++i)
      off += flatCount(st->members[i].type);
    std::vector<unsigned> pick;
    for (unsigned i = 0, n = flatCount(st->members[e.memberIndex].type); i < n; ++i)
      pick.push_back(off + i);
    return pickComponents(base, pick);
  }
  unsupported(e.range, "'." + e.member + "' here");
  return {};
}

RV Generator::genList(const tast::ListExpr &e) {
  RV all;
  for (auto &x : e.elements) {
    RV v = gen(x.get());
    for (size_t i = 0; i < v.size(); ++i)
      all.push(v.v[i], v.ts[i]);
  }
  return convTo(all, e.type);
}

RV Generator::genStructLit(const tast::StructLitExpr &e) {
  auto *st = tic::dyn_cast<tic::StructType>(e.type);
  if (!st) {
    error(e.range, "internal error: struct literal without a struct type");
    return {};
  }
  std::vector<RV> members(st->members.size());
  for (size_t i = 0; i < e.members.size(); ++i) {
    const auto &a = e.members[i];
    int idx = a.name.empty() ? int(i) : st->memberIndex(a.name);
    if (idx < 0 || idx >= int(members.size()))
      continue;
    members[idx] = convTo(gen(a.value.get()), st->members[idx].type);
  }
  RV r;
  for (size_t i = 0; i < members.size(); ++i) {
    RV m = members[i].size() ? members[i] : convTo(RV(), st->members[i].type);
    for (size_t j = 0; j < m.size(); ++j)
      r.push(m.v[j], m.ts[j]);
  }
  return r;
}

RV Generator::genUnary(const tast::UnaryExpr &e) {
  RV x = gen(e.operand.get());
  ST rt = elemOf(e.type);
  RV r;
  switch (e.op) {
  case tast::UnaryOp::Plus:
    return convElems(x, rt);
  case tast::UnaryOp::Neg: {
    RV c = convElems(x, rt);
    for (size_t i = 0; i < c.size(); ++i)
      r.push(rt.isFloat() ? Value(arith::NegFOp::create(b, curLoc, c.v[i]))
                          : Value(arith::SubIOp::create(b, curLoc, zero(rt), c.v[i])),
             rt);
    return r;
  }
  case tast::UnaryOp::BitNot: {
    RV c = convElems(x, rt);
    for (size_t i = 0; i < c.size(); ++i)
      r.push(arith::XOrIOp::create(b, curLoc, c.v[i], cInt(-1, rt)), rt);
    return r;
  }
  case tast::UnaryOp::Not: {
    for (size_t i = 0; i < x.size(); ++i) {
      Value t = toI1(x.v[i], x.ts[i]);
      Value n = arith::XOrIOp::create(b, curLoc, t, cBool(true));
      r.push(conv(n, ST::boolean(), rt), rt);
    }
    return r;
  }
  }
  return r;
}

Value Generator::scalarBinop(tast::BinaryOp op, Value x, Value y, ST t,
                             SourceRange r) {
  Location l = curLoc;
  bool f = t.isFloat();
  using BO = tast::BinaryOp;
  switch (op) {
  case BO::Add:
    return f ? Value(arith::AddFOp::create(b, l, x, y))
             : Value(arith::AddIOp::create(b, l, x, y));
  case BO::Sub:
    return f ? Value(arith::SubFOp::create(b, l, x, y))
             : Value(arith::SubIOp::create(b, l, x, y));
  case BO::Mul:
    return f ? Value(arith::MulFOp::create(b, l, x, y))
             : Value(arith::MulIOp::create(b, l, x, y));
  case BO::Div:
    if (f)
      return arith::DivFOp::create(b, l, x, y);
    return t.sgn ? Value(arith::DivSIOp::create(b, l, x, y))
                 : Value(arith::DivUIOp::create(b, l, x, y));
  case BO::FloorDiv:
    if (f)
      return math::FloorOp::create(b, l, arith::DivFOp::create(b, l, x, y));
    return t.sgn ? Value(arith::FloorDivSIOp::create(b, l, x, y))
                 : Value(arith::DivUIOp::create(b, l, x, y));
  case BO::Mod: {
    if (f) {
      // Python: x - y * floor(x / y) (sign of the divisor).
      Value q = math::FloorOp::create(b, l, arith::DivFOp::create(b, l, x, y));
      return arith::SubFOp::create(b, l, x, arith::MulFOp::create(b, l, y, q));
    }
    if (!t.sgn || t.isBool())
      return arith::RemUIOp::create(b, l, x, y);
    Value rem = arith::RemSIOp::create(b, l, x, y);
    Value z = zero(t);
    Value nz = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, rem, z);
    Value signDiff = arith::CmpIOp::create(
        b, l, arith::CmpIPredicate::slt, arith::XOrIOp::create(b, l, rem, y), z);
    Value adj = arith::AndIOp::create(b, l, nz, signDiff);
    Value fixed = arith::AddIOp::create(b, l, rem, y);
    return arith::SelectOp::create(b, l, adj, fixed, rem);
  }
  case BO::Shl:
    return arith::ShLIOp::create(b, l, x, y);
  case BO::Shr:
    return t.sgn ? Value(arith::ShRSIOp::create(b, l, x, y))
                 : Value(arith::ShRUIOp::create(b, l, x, y));
  case BO::BitAnd:
  case BO::And:
    return arith::AndIOp::create(b, l, x, y);
  case BO::BitOr:
  case BO::Or:
    return arith::OrIOp::create(b, l, x, y);
  case BO::BitXor:
    return arith::XOrIOp::create(b, l, x, y);
  case BO::Pow:
  case BO::MatMul:
    break;
  }
  error(r, "internal error: unexpected operator");
  return x;
}

RV Generator::binop(tast::BinaryOp op, const RV &a, const RV &c,
                    const tic::Type *res, SourceRange r) {
  RV out;
  size_t n = std::max(a.size(), c.size());
  if (a.size() == 0 || c.size() == 0)
    return out;
  bool shift = op == tast::BinaryOp::Shl || op == tast::BinaryOp::Shr;
  for (size_t i = 0; i < n; ++i) {
    size_t ia = a.size() == 1 ? 0 : std::min(i, a.size() - 1);
    size_t ic = c.size() == 1 ? 0 : std::min(i, c.size() - 1);
    ST t;
    if (res && (res->isScalar() || res->isTensor()))
      t = elemOf(res);
    else if (shift)
      t = a.ts[ia];
    else
      t = promote(a.ts[ia], c.ts[ic]);
    if (op == tast::BinaryOp::Div && !t.isFloat() && !res)
      t = (a.ts[ia].isFloat() || c.ts[ic].isFloat()) ? promote(a.ts[ia], c.ts[ic])
                                                     : defaultFloat();
    Value x = conv(a.v[ia], a.ts[ia], t), y = conv(c.v[ic], c.ts[ic], t);
    out.push(scalarBinop(op, x, y, t, r), t);
  }
  return out;
}

Value Generator::cmp(tast::CmpOp op, Value x, Value y, ST t) {
  if (t.isFloat()) {
    arith::CmpFPredicate p;
    switch (op) {
    case tast::CmpOp::Eq: p = arith::CmpFPredicate::OEQ; break;
    case tast::CmpOp::Ne: p = arith::CmpFPredicate::UNE; break;
    case tast::CmpOp::Lt: p = arith::CmpFPredicate::OLT; break;
    case tast::CmpOp::Le: p = arith::CmpFPredicate::OLE; break;
    case tast::CmpOp::Gt: p = arith::CmpFPredicate::OGT; break;
    case tast::CmpOp::Ge: p = arith::CmpFPredicate::OGE; break;
    }
    return arith::CmpFOp::create(b, curLoc, p, x, y);
  }
  bool s = t.sgn && !t.isBool();
  arith::CmpIPredicate p;
  switch (op) {
  case tast::CmpOp::Eq: p = arith::CmpIPredicate::eq; break;
  case tast::CmpOp::Ne: p = arith::CmpIPredicate::ne; break;
  case tast::CmpOp::Lt: p = s ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult; break;
  case tast::CmpOp::Le: p = s ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule; break;
  case tast::CmpOp::Gt: p = s ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt; break;
  case tast::CmpOp::Ge: p = s ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge; break;
  }
  return arith::CmpIOp::create(b, curLoc, p, x, y);
}

RV Generator::genCompare(const tast::CompareExpr &e) {
  std::vector<RV> ops;
  for (auto &o : e.operands)
    ops.push_back(gen(o.get()));
  RV acc;
  for (size_t k = 0; k < e.ops.size() && k + 1 < ops.size(); ++k) {
    const RV &a = ops[k], &c = ops[k + 1];
    size_t n = std::max(a.size(), c.size());
    if (!a.size() || !c.size())
      return {};
    RV cur;
    for (size_t i = 0; i < n; ++i) {
      size_t ia = a.size() == 1 ? 0 : i, ic = c.size() == 1 ? 0 : i;
      ST t = promote(a.ts[ia], c.ts[ic]);
      cur.push(cmp(e.ops[k], conv(a.v[ia], a.ts[ia], t), conv(c.v[ic], c.ts[ic], t), t),
               ST::boolean());
    }
    if (k == 0) {
      acc = cur;
    } else {
      for (size_t i = 0; i < acc.size() && i < cur.size(); ++i)
        acc.v[i] = arith::AndIOp::create(b, curLoc, acc.v[i], cur.v[i]);
    }
  }
  return convTo(acc, e.type);
}

RV Generator::genTernary(const tast::TernaryExpr &e) {
  std::vector<ST> rts;
  flatten(e.type, rts);
  RV c = gen(e.cond.get());
  if (!c.size())
    return {};
  if (!mayHaveEffects(e.trueValue.get()) && !mayHaveEffects(e.falseValue.get())) {
    RV t = convTo(gen(e.trueValue.get()), rts);
    RV f = convTo(gen(e.falseValue.get()), rts);
    RV r;
    for (size_t i = 0; i < rts.size(); ++i) {
      size_t ic = c.size() == 1 ? 0 : std::min(i, c.size() - 1);
      Value ci = toI1(c.v[ic], c.ts[ic]);
      r.push(arith::SelectOp::create(b, curLoc, ci, t.v[i], f.v[i]), rts[i]);
    }
    return r;
  }
  Value cond = toI1(c.v[0], c.ts[0]);
  Block *tb = new Block(), *fb = new Block(), *merge = new Block();
  for (ST t : rts)
    merge->addArgument(mty(t), curLoc);
  cf::CondBranchOp::create(b, curLoc, cond, tb, ValueRange{}, fb, ValueRange{});
  append(tb);
  b.setInsertionPointToEnd(tb);
  RV t = convTo(gen(e.trueValue.get()), rts);
  br(merge, t.v);
  append(fb);
  b.setInsertionPointToEnd(fb);
  RV f = convTo(gen(e.falseValue.get()), rts);
  br(merge, f.v);
  append(merge);
  b.setInsertionPointToEnd(merge);
  RV r;
  for (size_t i = 0; i < rts.size(); ++i)
    r.push(merge->getArgument(i), rts[i]);
  return r;
}

RV Generator::genLogical(const tast::BinaryExpr &e) {
  bool isAnd = e.op == tast::BinaryOp::And;
  ST rt = elemOf(e.type);
  RV l = gen(e.lhs.get());
  if (!l.size())
    return {};
  if (!mayHaveEffects(e.rhs.get())) {
    RV r = gen(e.rhs.get());
    if (!r.size())
      return {};
    RV out;
    size_t n = std::max(l.size(), r.size());
    for (size_t i = 0; i < n; ++i) {
      size_t il = l.size() == 1 ? 0 : i, ir = r.size() == 1 ? 0 : i;
      Value x = toI1(l.v[il], l.ts[il]), y = toI1(r.v[ir], r.ts[ir]);
      Value z = isAnd ? Value(arith::AndIOp::create(b, curLoc, x, y))
                      : Value(arith::OrIOp::create(b, curLoc, x, y));
      out.push(conv(z, ST::boolean(), rt), rt);
    }
    return out;
  }
  Value x = toI1(l.v[0], l.ts[0]);
  Block *rhsB = new Block(), *merge = new Block();
  merge->addArgument(b.getI1Type(), curLoc);
  if (isAnd)
    cf::CondBranchOp::create(b, curLoc, x, rhsB, ValueRange{}, merge,
                             ValueRange{cBool(false)});
  else
    cf::CondBranchOp::create(b, curLoc, x, merge, ValueRange{cBool(true)}, rhsB,
                             ValueRange{});
  append(rhsB);
  b.setInsertionPointToEnd(rhsB);
  RV r = gen(e.rhs.get());
  Value y = r.size() ? toI1(r.v[0], r.ts[0]) : cBool(false);
  br(merge, y);
  append(merge);
  b.setInsertionPointToEnd(merge);
  RV out;
  out.push(conv(merge->getArgument(0), ST::boolean(), rt), rt);
  return out;
}

/// x ** n for an integer n at run time: square-and-multiply loop.
Value Generator::ipow(Value x, Value n, ST t, ST nt) {
  Block *header = new Block(), *body = new Block(), *exit = new Block();
  mlir::Type xt = mty(t), ntt = mty(nt);
  Value acc0 = one(t);
  header->addArgument(xt, curLoc);
  header->addArgument(xt, curLoc);
  header->addArgument(ntt, curLoc);
  exit->addArgument(xt, curLoc);
  br(header, ValueRange{acc0, x, n});
  append(header);
  b.setInsertionPointToEnd(header);
  Value acc = header->getArgument(0), base = header->getArgument(1),
        k = header->getArgument(2);
  Value more = arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::sgt, k,
                                     zero(nt));
  cf::CondBranchOp::create(b, curLoc, more, body, ValueRange{}, exit,
                           ValueRange{acc});
  append(body);
  b.setInsertionPointToEnd(body);
  Value bit = arith::TruncIOp::create(b, curLoc, b.getI1Type(), k);
  Value prod = t.isFloat() ? Value(arith::MulFOp::create(b, curLoc, acc, base))
                           : Value(arith::MulIOp::create(b, curLoc, acc, base));
  Value acc2 = arith::SelectOp::create(b, curLoc, bit, prod, acc);
  Value base2 = t.isFloat() ? Value(arith::MulFOp::create(b, curLoc, base, base))
                            : Value(arith::MulIOp::create(b, curLoc, base, base));
  Value k2 = arith::ShRUIOp::create(b, curLoc, k, one(nt));
  br(header, ValueRange{acc2, base2, k2});
  append(exit);
  b.setInsertionPointToEnd(exit);
  return exit->getArgument(0);
}

RV Generator::pow(const RV &base, const tast::Expr *expE, const RV &ex,
                  const tic::Type *res, SourceRange r) {
  RV out;
  if (!base.size() || !ex.size())
    return out;
  size_t n = std::max(base.size(), ex.size());
  int64_t cn;
  bool constExp = expE && constInt(expE, cn) && ex.size() == 1 &&
                  !ex.ts[0].isFloat() && cn >= -64 && cn <= 64;
  for (size_t i = 0; i < n; ++i) {
    size_t ib = base.size() == 1 ? 0 : i, ie = ex.size() == 1 ? 0 : i;
    ST bt = base.ts[ib], et = ex.ts[ie];
    ST t = res && (res->isScalar() || res->isTensor()) ? elemOf(res)
                                                       : promote(bt, et);
    Value x = conv(base.v[ib], bt, t);
    Value v;
    if (constExp) {
      // Repeated multiplication (square-and-multiply on the constant).
      uint64_t k = uint64_t(cn < 0 ? -cn : cn);
      Value acc, sq = x;
      while (k) {
        if (k & 1)
          acc = acc ? (t.isFloat() ? Value(arith::MulFOp::create(b, curLoc, acc, sq))
                                   : Value(arith::MulIOp::create(b, curLoc, acc, sq)))
                    : sq;
        k >>= 1;
        if (k)
          sq = t.isFloat() ? Value(arith::MulFOp::create(b, curLoc, sq, sq))
                           : Value(arith::MulIOp::create(b, curLoc, sq, sq));
      }
      if (!acc)
        acc = one(t);
      if (cn < 0)
        acc = t.isFloat() ? Value(arith::DivFOp::create(b, curLoc, one(t), acc))
                          : Value(arith::DivSIOp::create(b, curLoc, one(t), acc));
      v = acc;
    } else if (t.isFloat()) {
      if (!et.isFloat()) {
        Value k = conv(ex.v[ie], et, ST::i32());
        v = math::FPowIOp::create(b, curLoc, x, k);
      } else {
        v = math::PowFOp::create(b, curLoc, x, conv(ex.v[ie], et, t));
      }
    } else {
      Value k = conv(ex.v[ie], et, t.bits == 64 ? ST::i64() : ST::i32());
      v = ipow(x, k, t, t.bits == 64 ? ST::i64() : ST::i32());
    }
    out.push(v, t);
  }
  return out;
}

RV Generator::genBinary(const tast::BinaryExpr &e) {
  using BO = tast::BinaryOp;
  if (e.op == BO::And || e.op == BO::Or)
    return genLogical(e);
  RV l = gen(e.lhs.get());
  RV r = gen(e.rhs.get());
  if (e.op == BO::Pow)
    return pow(l, e.rhs.get(), r, e.type, e.range);
  if (e.op == BO::MatMul) {
    // Reuse the linear-algebra helper through a synthetic call shape.
    std::vector<ST> rts;
    flatten(e.type, rts);
    ST t = rts.empty() ? ST::f32() : rts[0];
    RV a = convElems(l, t), c = convElems(r, t);
    auto shape = [](const tic::Type *ty, unsigned &rows, unsigned &cols,
                    bool &vec) {
      vec = false;
      if (auto *v = tic::dyn_cast<tic::VectorType>(ty)) {
        rows = v->size, cols = 1, vec = true;
      } else if (auto *m = tic::dyn_cast<tic::MatrixType>(ty)) {
        rows = m->rows, cols = m->cols;
      } else {
        rows = cols = 1;
      }
    };
    unsigned ar, ac, br_, bc;
    bool av, bv;
    shape(e.lhs->type, ar, ac, av);
    shape(e.rhs->type, br_, bc, bv);
    if (av && !bv) { // row vector @ matrix
      ac = ar;
      ar = 1;
    }
    if (av && bv) { // dot product
      ac = ar;
      ar = 1;
    }
    if (ac != br_) {
      error(e.range, "matrix shapes do not match for '@'");
      return {};
    }
    RV out;
    for (unsigned i = 0; i < ar; ++i)
      for (unsigned j = 0; j < bc; ++j) {
        Value acc;
        for (unsigned k = 0; k < ac; ++k) {
          Value p = scalarBinop(BO::Mul, a.v[i * ac + k], c.v[k * bc + j], t, e.range);
          acc = acc ? scalarBinop(BO::Add, acc, p, t, e.range) : p;
        }
        out.push(acc ? acc : zero(t), t);
      }
    return out;
  }
  return binop(e.op, l, r, e.type, e.range);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

RV Generator::genCall(const tast::CallExpr &e) {
  using CK = tast::CallExpr::CallKind;
  switch (e.callKind) {
  case CK::Cast: {
    RV v = e.args.empty() ? RV() : gen(e.args[0].value.get());
    return convTo(v, e.target ? e.target : e.type);
  }
  case CK::Construct: {
    RV all;
    for (auto &a : e.args) {
      RV v = gen(a.value.get());
      for (size_t i = 0; i < v.size(); ++i)
        all.push(v.v[i], v.ts[i]);
    }
    return convTo(all, e.target ? e.target : e.type);
  }
  case CK::Func:
    return genFuncCall(e);
  case CK::Builtin:
    return genBuiltin(e);
  case CK::Unresolved:
    break;
  }
  error(e.range, "internal error: unresolved call");
  return {};
}

RV Generator::genFuncCall(const tast::CallExpr &e) {
  const tsema::CheckedFunction *f = e.func;
  if (!f || !f->body) {
    error(e.range, "internal error: call of an unresolved func");
    return {};
  }
  if (inlineDepth >= 64) {
    error(e.range, "func calls nest too deeply to inline (recursion?)");
    return {};
  }
  // Arguments (runtime parameters only), converted to the parameter types.
  std::vector<std::pair<const tsema::LocalVar *, RV>> bound;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const auto &p = f->params[i];
    if (p.isTemplate)
      continue;
    RV v = i < e.args.size() ? gen(e.args[i].value.get()) : RV();
    if (p.var)
      bound.push_back({p.var, v});
  }
  std::vector<ST> rts;
  if (f->returnType && !f->returnType->isVoid())
    flatten(f->returnType, rts);
  Block *ret = new Block();
  for (ST t : rts)
    ret->addArgument(mty(t), curLoc);

  collectMutated(f->body.get());
  frames.emplace_back();
  for (auto &[var, v] : bound)
    bindLocal(var, v);
  std::vector<LoopCtx> savedLoops;
  savedLoops.swap(loops);
  FnCtx fc;
  fc.fn = f;
  fc.retBlock = ret;
  fc.retTypes = rts;
  fns.push_back(fc);
  ++inlineDepth;
  genBlock(*f->body);
  --inlineDepth;
  if (!terminated()) {
    SmallVector<Value> zs;
    for (ST t : rts)
      zs.push_back(zero(t));
    br(ret, zs);
  }
  fns.pop_back();
  loops.swap(savedLoops);
  frames.pop_back();
  append(ret);
  b.setInsertionPointToEnd(ret);
  RV r;
  for (size_t i = 0; i < rts.size(); ++i)
    r.push(ret->getArgument(i), rts[i]);
  return r;
}

static bool isElementwiseMath(Builtin bi) {
  switch (bi) {
  case Builtin::Sin: case Builtin::Cos: case Builtin::Tan: case Builtin::Asin:
  case Builtin::Acos: case Builtin::Tanh: case Builtin::Exp: case Builtin::Log:
  case Builtin::Sqrt: case Builtin::Rsqrt: case Builtin::Abs:
  case Builtin::Floor: case Builtin::Ceil: case Builtin::Round:
    return true;
  default:
    return false;
  }
}

// The receiver of a linear-algebra method call (`v.norm()`), else null.
static const tast::Expr *methodReceiver(const tast::CallExpr &e) {
  if (auto *m = dyn_cast_or_null<tast::MemberExpr>(e.callee.get()))
    return m->base.get();
  return nullptr;
}

RV Generator::genBuiltin(const tast::CallExpr &e) {
  Builtin bi = e.builtin;
  auto arg = [&](size_t i) -> const tast::Expr * {
    return i < e.args.size() ? e.args[i].value.get() : nullptr;
  };
  std::vector<ST> rts;
  flatten(e.type, rts);
  ST rt = rts.empty() ? ST::f32() : rts[0];
  if (isElementwiseMath(bi)) {
    RV x = gen(arg(0));
    RV out;
    for (size_t i = 0; i < x.size(); ++i) {
      ST rti = i < rts.size() ? rts[i] : rt;
      ST ct = rti;
      if ((bi == Builtin::Floor || bi == Builtin::Ceil || bi == Builtin::Round) &&
          x.ts[i].isFloat())
        ct = x.ts[i];
      if (!ct.isFloat() && bi != Builtin::Abs && bi != Builtin::Floor &&
          bi != Builtin::Ceil && bi != Builtin::Round)
        ct = x.ts[i].isFloat() ? x.ts[i] : ST::f32();
      Value v = conv(x.v[i], x.ts[i], ct);
      Location l = curLoc;
      Value y;
      switch (bi) {
      case Builtin::Sin: y = math::SinOp::create(b, l, v); break;
      case Builtin::Cos: y = math::CosOp::create(b, l, v); break;
      case Builtin::Tan: y = math::TanOp::create(b, l, v); break;
      case Builtin::Asin: y = math::AsinOp::create(b, l, v); break;
      case Builtin::Acos: y = math::AcosOp::create(b, l, v); break;
      case Builtin::Tanh: y = math::TanhOp::create(b, l, v); break;
      case Builtin::Exp: y = math::ExpOp::create(b, l, v); break;
      case Builtin::Log: y = math::LogOp::create(b, l, v); break;
      case Builtin::Sqrt: y = math::SqrtOp::create(b, l, v); break;
      case Builtin::Rsqrt: y = math::RsqrtOp::create(b, l, v); break;
      case Builtin::Abs:
        y = ct.isFloat() ? Value(math::AbsFOp::create(b, l, v))
            : (ct.sgn && !ct.isBool()) ? Value(math::AbsIOp::create(b, l, v))
                                       : v;
        break;
      case Builtin::Floor:
        y = ct.isFloat() ? Value(math::FloorOp::create(b, l, v)) : v;
        break;
      case Builtin::Ceil:
        y = ct.isFloat() ? Value(math::CeilOp::create(b, l, v)) : v;
        break;
      case Builtin::Round:
        y = ct.isFloat() ? Value(math::RoundOp::create(b, l, v)) : v;
        break;
      default: y = v; break;
      }
      out.push(conv(y, ct, rti), rti);
    }
    return out;
  }
  switch (bi) {
  case Builtin::Atan2:
  case Builtin::Min:
  case Builtin::Max: {
    RV x = gen(arg(0)), y = gen(arg(1));
    RV out;
    size_t n = std::max(x.size(), y.size());
    for (size_t i = 0; i < n && x.size() && y.size(); ++i) {
      ST t = i < rts.size() ? rts[i] : rt;
      Value a = conv(x.v[x.size() == 1 ? 0 : i], x.ts[x.size() == 1 ? 0 : i], t);
      Value c = conv(y.v[y.size() == 1 ? 0 : i], y.ts[y.size() == 1 ? 0 : i], t);
      Value v;
      if (bi == Builtin::Atan2) {
        ST ft = t.isFloat() ? t : ST::f32();
        v = conv(math::Atan2Op::create(b, curLoc, conv(a, t, ft), conv(c, t, ft)),
                 ft, t);
      } else if (t.isFloat()) {
        v = bi == Builtin::Min ? Value(arith::MinNumFOp::create(b, curLoc, a, c))
                               : Value(arith::MaxNumFOp::create(b, curLoc, a, c));
      } else if (t.sgn && !t.isBool()) {
        v = bi == Builtin::Min ? Value(arith::MinSIOp::create(b, curLoc, a, c))
                               : Value(arith::MaxSIOp::create(b, curLoc, a, c));
      } else {
        v = bi == Builtin::Min ? Value(arith::MinUIOp::create(b, curLoc, a, c))
                               : Value(arith::MaxUIOp::create(b, curLoc, a, c));
      }
      out.push(v, t);
    }
    return out;
  }
  case Builtin::Pow:
    return pow(gen(arg(0)), arg(1), gen(arg(1)), e.type, e.range);
  case Builtin::Clamp: {
    RV x = gen(arg(0)), lo = gen(arg(1)), hi = gen(arg(2));
    RV out;
    if (!x.size() || !lo.size() || !hi.size())
      return out;
    for (size_t i = 0; i < rts.size(); ++i) {
      ST t = rts[i];
      auto at = [&](const RV &v) {
        size_t j = v.size() == 1 ? 0 : std::min(i, v.size() - 1);
        return conv(v.v[j], v.ts[j], t);
      };
      Value a = at(x), l = at(lo), h = at(hi);
      Value v;
      if (t.isFloat())
        v = arith::MinNumFOp::create(b, curLoc,
                                     arith::MaxNumFOp::create(b, curLoc, a, l), h);
      else if (t.sgn)
        v = arith::MinSIOp::create(b, curLoc,
                                   arith::MaxSIOp::create(b, curLoc, a, l), h);
      else
        v = arith::MinUIOp::create(b, curLoc,
                                   arith::MaxUIOp::create(b, curLoc, a, l), h);
      out.push(v, t);
    }
    return out;
  }
  case Builtin::Select: {
    RV c = gen(arg(0));
    RV x = convTo(gen(arg(1)), rts), y = convTo(gen(arg(2)), rts);
    RV out;
    for (size_t i = 0; i < rts.size() && c.size(); ++i) {
      size_t j = c.size() == 1 ? 0 : std::min(i, c.size() - 1);
      out.push(arith::SelectOp::create(b, curLoc, toI1(c.v[j], c.ts[j]), x.v[i],
                                       y.v[i]),
               rts[i]);
    }
    return out;
  }
  case Builtin::Random: {
    RV out;
    for (ST t : rts) {
      Value v;
      if (t.isFloat()) {
        ST ft = t.bits == 64 ? t : ST::f32();
        v = conv(tic::tc::RandomOp::create(b, curLoc, mty(ft)), ft, t);
      } else {
        ST u32{ST::Int, 32, false};
        v = conv(tic::tc::RandomOp::create(b, curLoc, b.getI32Type()), u32, t);
      }
      out.push(v, t);
    }
    return out;
  }
  case Builtin::Print:
    return genPrint(e);
  case Builtin::Assert: {
    if (!opts.debug)
      return {}; // not even evaluated without -g
    RV c = gen(arg(0));
    if (!c.size())
      return {};
    std::string msg = "assertion failed";
    if (auto *s = tic::dyn_cast<tast::StringLitExpr>(arg(1)))
      msg = s->value;
    else if (arg(1) && arg(1)->constValue &&
             arg(1)->constValue->kind == tsema::ConstValue::Kind::String)
      msg = arg(1)->constValue->s;
    Value all = toI1(c.v[0], c.ts[0]);
    for (size_t i = 1; i < c.size(); ++i)
      all = arith::AndIOp::create(b, curLoc, all, toI1(c.v[i], c.ts[i]));
    tic::tc::AssertOp::create(b, curLoc, all, msg);
    return {};
  }
  case Builtin::AtomicAdd: case Builtin::AtomicSub: case Builtin::AtomicMin:
  case Builtin::AtomicMax: case Builtin::AtomicAnd: case Builtin::AtomicOr:
  case Builtin::AtomicXor:
    return genAtomicBuiltin(e);
  case Builtin::Dot: case Builtin::Cross: case Builtin::Norm:
  case Builtin::NormSqr: case Builtin::Normalized: case Builtin::OuterProduct:
  case Builtin::Transpose: case Builtin::Determinant: case Builtin::Inverse:
  case Builtin::Trace: {
    SmallVector<RV> args;
    // A method call (v.norm(), m.inverse(), u.dot(v)) passes its receiver
    // first; Sema keeps it in the callee, not in e.args.
    if (const tast::Expr *recv = methodReceiver(e))
      args.push_back(gen(recv));
    for (auto &a : e.args)
      args.push_back(gen(a.value.get()));
    return genLinalg(e, args);
  }
  case Builtin::AssumeInRange:
    return convTo(gen(arg(0)), e.type);
  case Builtin::BlockLocal:
  case Builtin::LoopConfig:
    return {}; // hints without effect on the CPU backend
  case Builtin::Svd: case Builtin::PolarDecompose: case Builtin::SymEig: {
    Shape s0 = shapeOf(arg(0) ? arg(0)->type : nullptr);
    if (!s0.mat || s0.rows != s0.cols || (s0.rows != 2 && s0.rows != 3)) {
      unsupported(e.range, std::string("'") + builtinSpelling(bi) +
                               "' of a matrix other than 2x2 or 3x3");
      return convTo(RV(), e.type);
    }
    SmallVector<RV> args;
    args.push_back(gen(arg(0)));
    return genLinalg(e, args);
  }
  case Builtin::Activate: case Builtin::Deactivate: case Builtin::IsActive:
  case Builtin::Append: case Builtin::Length: case Builtin::DeactivateCell:
  case Builtin::RescaleIndex: case Builtin::BitVectorize:
    unsupported(e.range, std::string("'") + builtinSpelling(bi) + "'");
    return convTo(RV(), e.type);
  default:
    break;
  }
  unsupported(e.range, "this builtin here");
  return convTo(RV(), e.type);
}

static tic::tc::AtomicKind atomicKindOfBuiltin(Builtin b) {
  using AK = tic::tc::AtomicKind;
  switch (b) {
  case Builtin::AtomicSub: return AK::sub;
  case Builtin::AtomicMin: return AK::min;
  case Builtin::AtomicMax: return AK::max;
  case Builtin::AtomicAnd: return AK::and_;
  case Builtin::AtomicOr: return AK::or_;
  case Builtin::AtomicXor: return AK::xor_;
  default: return AK::add;
  }
}

RV Generator::genAtomicBuiltin(const tast::CallExpr &e) {
  if (e.args.size() < 2) {
    error(e.range, "atomic operations take a target and a value");
    return {};
  }
  RV val = gen(e.args[1].value.get());
  LV lv;
  if (!genLValue(e.args[0].value.get(), lv))
    return {};
  std::vector<ST> tts;
  flatten(lv.type, tts);
  return atomicLV(lv, atomicKindOfBuiltin(e.builtin), convTo(val, tts), e.range,
                  false);
}

static std::string escapePercent(const std::string &s) {
  std::string r;
  for (char c : s) {
    r += c;
    if (c == '%')
      r += '%';
  }
  return r;
}

RV Generator::genPrint(const tast::CallExpr &e) {
  std::string fmt, sep = " ", end;
  for (auto &a : e.args) {
    if (a.name == "sep" || a.name == "end") {
      std::string s;
      if (auto *sl = tic::dyn_cast<tast::StringLitExpr>(a.value.get()))
        s = sl->value;
      (a.name == "sep" ? sep : end) = s;
    }
  }
  SmallVector<Value> args;
  bool first = true;
  for (auto &a : e.args) {
    if (a.name == "sep" || a.name == "end")
      continue;
    if (!first)
      fmt += escapePercent(sep);
    first = false;
    const tast::Expr *x = a.value.get();
    if (auto *sl = tic::dyn_cast<tast::StringLitExpr>(x)) {
      fmt += escapePercent(sl->value);
      continue;
    }
    if (x->constValue && x->constValue->kind == tsema::ConstValue::Kind::String) {
      fmt += escapePercent(x->constValue->s);
      continue;
    }
    RV v = gen(x);
    auto one = [&](size_t i) {
      ST t = v.ts[i];
      Value y = v.v[i];
      if (t.isFloat()) {
        fmt += t.bits == 64 ? "%.12f" : "%f";
        if (t.bits == 16)
          y = conv(y, t, ST::f32());
      } else if (t.bits == 64) {
        fmt += t.sgn ? "%lld" : "%llu";
      } else {
        bool sgn = t.sgn && !t.isBool();
        ST to{ST::Int, 32, sgn};
        y = conv(y, t, to);
        fmt += (sgn || t.isBool()) ? "%d" : "%u";
      }
      args.push_back(y);
    };
    const tic::Type *ty = x->type;
    if (auto *m = tic::dyn_cast<tic::MatrixType>(ty)) {
      fmt += "[";
      for (unsigned r = 0; r < m->rows; ++r) {
        fmt += r ? ", [" : "[";
        for (unsigned c = 0; c < m->cols; ++c) {
          if (c)
            fmt += ", ";
          if (r * m->cols + c < v.size())
            one(r * m->cols + c);
        }
        fmt += "]";
      }
      fmt += "]";
    } else if (v.size() != 1 || (ty && !ty->isScalar())) {
      fmt += "[";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i)
          fmt += ", ";
        one(i);
      }
      fmt += "]";
    } else {
      one(0);
    }
  }
  fmt += escapePercent(end);
  tic::tc::PrintOp::create(b, curLoc, fmt, args);
  return {};
}

//===----------------------------------------------------------------------===//
// Linear algebra on scalarized vectors and matrices
//===----------------------------------------------------------------------===//


RV Generator::genLinalg(const tast::CallExpr &e, ArrayRef<RV> argsIn) {
  using BO = tast::BinaryOp;
  std::vector<ST> rts;
  flatten(e.type, rts);
  ST t = rts.empty() ? ST::f32() : rts[0];
  // Compute in the result's element type (ints promoted to float where the
  // result is float, e.g. norm / inverse of an integer matrix).
  SmallVector<RV> a;
  for (const RV &x : argsIn)
    a.push_back(convElems(x, t));
  if (a.empty() || !a[0].size()) {
    error(e.range, "missing argument");
    return {};
  }
  SourceRange r = e.range;
  auto add = [&](Value x, Value y) { return scalarBinop(BO::Add, x, y, t, r); };
  auto sub = [&](Value x, Value y) { return scalarBinop(BO::Sub, x, y, t, r); };
  auto mul = [&](Value x, Value y) { return scalarBinop(BO::Mul, x, y, t, r); };
  auto div = [&](Value x, Value y) { return scalarBinop(BO::Div, x, y, t, r); };
  auto dot = [&](const RV &x, const RV &y) {
    Value acc;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      Value p = mul(x.v[i], y.v[i]);
      acc = acc ? add(acc, p) : p;
    }
    return acc ? acc : zero(t);
  };
  const tast::Expr *first = methodReceiver(e);
  if (!first && !e.args.empty())
    first = e.args[0].value.get();
  Shape s0 = shapeOf(first ? first->type : nullptr);
  RV out;
  // Determinant by cofactor expansion along the first row (n <= 4).
  std::function<Value(const std::vector<Value> &, unsigned)> det =
      [&](const std::vector<Value> &m, unsigned n) -> Value {
    if (n == 1)
      return m[0];
    if (n == 2)
      return sub(mul(m[0], m[3]), mul(m[1], m[2]));
    Value acc;
    for (unsigned j = 0; j < n; ++j) {
      std::vector<Value> minor;
      for (unsigned i = 1; i < n; ++i)
        for (unsigned k = 0; k < n; ++k)
          if (k != j)
            minor.push_back(m[i * n + k]);
      Value term = mul(m[j], det(minor, n - 1));
      acc = !acc ? term : (j % 2 ? sub(acc, term) : add(acc, term));
    }
    return acc;
  };
  switch (e.builtin) {
  case Builtin::Dot:
    out.push(dot(a[0], a.size() > 1 ? a[1] : a[0]), t);
    return out;
  case Builtin::Cross: {
    if (a.size() < 2)
      break;
    const RV &x = a[0], &y = a[1];
    if (x.size() == 3 && y.size() == 3) {
      out.push(sub(mul(x.v[1], y.v[2]), mul(x.v[2], y.v[1])), t);
      out.push(sub(mul(x.v[2], y.v[0]), mul(x.v[0], y.v[2])), t);
      out.push(sub(mul(x.v[0], y.v[1]), mul(x.v[1], y.v[0])), t);
    } else if (x.size() == 2 && y.size() == 2) {
      out.push(sub(mul(x.v[0], y.v[1]), mul(x.v[1], y.v[0])), t);
    } else {
      error(r, "cross() needs two 2-D or two 3-D vectors");
    }
    return out;
  }
  case Builtin::NormSqr:
    out.push(dot(a[0], a[0]), t);
    return out;
  case Builtin::Norm:
    out.push(math::SqrtOp::create(b, curLoc, dot(a[0], a[0])), t);
    return out;
  case Builtin::Normalized: {
    Value n = math::SqrtOp::create(b, curLoc, dot(a[0], a[0]));
    Value inv = div(one(t), n);
    for (Value x : a[0].v)
      out.push(mul(x, inv), t);
    return out;
  }
  case Builtin::OuterProduct: {
    if (a.size() < 2)
      break;
    for (Value x : a[0].v)
      for (Value y : a[1].v)
        out.push(mul(x, y), t);
    return out;
  }
  case Builtin::Transpose: {
    if (!s0.mat)
      return a[0];
    for (unsigned j = 0; j < s0.cols; ++j)
      for (unsigned i = 0; i < s0.rows; ++i)
        out.push(a[0].v[i * s0.cols + j], t);
    return out;
  }
  case Builtin::Trace: {
    Value acc;
    for (unsigned i = 0; i < std::min(s0.rows, s0.cols); ++i)
      acc = acc ? add(acc, a[0].v[i * s0.cols + i]) : a[0].v[i * s0.cols + i];
    out.push(acc ? acc : zero(t), t);
    return out;
  }
  case Builtin::Determinant:
  case Builtin::Inverse: {
    unsigned n = s0.rows;
    if (!s0.mat || s0.rows != s0.cols || n > 4) {
      unsupported(r, std::string(e.builtin == Builtin::Inverse ? "inverse"
                                                               : "determinant") +
                         " of a matrix that is not square 1x1..4x4");
      return convTo(RV(), e.type);
    }
    std::vector<Value> m(a[0].v.begin(), a[0].v.end());
    Value d = det(m, n);
    if (e.builtin == Builtin::Determinant) {
      out.push(d, t);
      return out;
    }
    // inverse = adjugate / det: inv[i][j] = (-1)^(i+j) * minor(j, i) / det.
    Value invDet = div(one(t), d);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j) {
        Value cof;
        if (n == 1) {
          cof = one(t);
        } else {
          std::vector<Value> minor;
          for (unsigned p = 0; p < n; ++p)
            for (unsigned q = 0; q < n; ++q)
              if (p != j && q != i)
                minor.push_back(m[p * n + q]);
          cof = det(minor, n - 1);
          if ((i + j) % 2)
            cof = t.isFloat() ? Value(arith::NegFOp::create(b, curLoc, cof))
                              : sub(zero(t), cof);
        }
        out.push(mul(cof, invDet), t);
      }
    return out;
  }
  case Builtin::PolarDecompose:
  case Builtin::Svd:
  case Builtin::SymEig:
    if (s0.rows == 3)
      return decompose3x3(e.builtin, a[0].v, t, r);
    return decompose2x2(e.builtin, a[0].v, t, r);
  default:
    break;
  }
  unsupported(r, "this linear-algebra builtin");
  return convTo(RV(), e.type);
}


/// 2x2 polar decomposition, SVD and symmetric eigen-decomposition, after
/// Taichi's closed forms (python/taichi/_funcs.py: polar_decompose2d, svd2d,
/// sym_eig2x2), branch-free with arith.select. Results, flattened:
///   polar_decompose: R, S (A = R S, R a rotation)
///   svd:             U, Sigma, V (A = U Sigma V^T)
///   sym_eig:         eigenvalues (vec2, descending), eigenvectors (columns)
RV Generator::decompose2x2(Builtin which, ArrayRef<Value> A, ST t,
                           SourceRange r) {
  using BO = tast::BinaryOp;
  if (!t.isFloat())
    t = defaultFloat();
  SmallVector<Value, 4> m;
  for (Value v : A)
    m.push_back(v);
  auto c = [&](double v) { return cFloat(v, t); };
  auto add = [&](Value x, Value y) { return scalarBinop(BO::Add, x, y, t, r); };
  auto sub = [&](Value x, Value y) { return scalarBinop(BO::Sub, x, y, t, r); };
  auto mul = [&](Value x, Value y) { return scalarBinop(BO::Mul, x, y, t, r); };
  auto div = [&](Value x, Value y) { return scalarBinop(BO::Div, x, y, t, r); };
  auto neg = [&](Value x) -> Value { return arith::NegFOp::create(b, curLoc, x); };
  auto sqrtv = [&](Value x) -> Value { return math::SqrtOp::create(b, curLoc, x); };
  auto sel = [&](Value cnd, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, curLoc, cnd, x, y);
  };
  auto lt = [&](Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, curLoc, arith::CmpFPredicate::OLT, x, y);
  };
  auto mat2mul = [&](ArrayRef<Value> X, ArrayRef<Value> Y) {
    SmallVector<Value, 4> out;
    for (unsigned i = 0; i < 2; ++i)
      for (unsigned j = 0; j < 2; ++j)
        out.push_back(add(mul(X[i * 2], Y[j]), mul(X[i * 2 + 1], Y[2 + j])));
    return out;
  };
  RV out;
  auto emit = [&](ArrayRef<Value> vs) {
    for (Value v : vs)
      out.push(v, t);
  };
  if (which == Builtin::SymEig) {
    // lambda = (tr +- sqrt(tr^2 - 4 det)) / 2; eigenvectors from the
    // columns of A - lambda_other I, normalized.
    Value tr = add(m[0], m[3]);
    Value det = sub(mul(m[0], m[3]), mul(m[1], m[2]));
    Value gap = sub(mul(tr, tr), mul(c(4.0), det));
    Value sq = sqrtv(arith::MaxNumFOp::create(b, curLoc, gap, c(0.0)));
    Value l1 = mul(add(tr, sq), c(0.5)), l2 = mul(sub(tr, sq), c(0.5));
    // v1 = normalized column 0 of (A - l2 I), v2 = of (A - l1 I).
    Value a2x = sub(m[0], l2), a2y = m[2];
    Value a1x = sub(m[0], l1), a1y = m[2];
    Value n2 = sqrtv(add(mul(a2x, a2x), mul(a2y, a2y)));
    Value n1 = sqrtv(add(mul(a1x, a1x), mul(a1y, a1y)));
    // Degenerate (A is a multiple of I, or the column vanishes): use the
    // other column, then the axes.
    Value b2x = m[1], b2y = sub(m[3], l2), b1x = m[1], b1y = sub(m[3], l1);
    Value nb2 = sqrtv(add(mul(b2x, b2x), mul(b2y, b2y)));
    Value nb1 = sqrtv(add(mul(b1x, b1x), mul(b1y, b1y)));
    Value eps = c(t.bits == 64 ? 1e-12 : 1e-6);
    Value use2a = lt(eps, n2), use1a = lt(eps, n1);
    Value use2b = lt(eps, nb2), use1b = lt(eps, nb1);
    Value v1x = sel(use2a, div(a2x, n2), sel(use2b, div(b2x, nb2), c(1.0)));
    Value v1y = sel(use2a, div(a2y, n2), sel(use2b, div(b2y, nb2), c(0.0)));
    Value v2x = sel(use1a, div(a1x, n1), sel(use1b, div(b1x, nb1), c(0.0)));
    Value v2y = sel(use1a, div(a1y, n1), sel(use1b, div(b1y, nb1), c(1.0)));
    emit({l1, l2});
    emit({v1x, v2x, v1y, v2y}); // eigenvectors as columns
    return out;
  }
  // Polar: R = [[cs, -sn], [sn, cs]] with (cs, sn) ~ (a00 + a11, a10 - a01).
  Value x = add(m[0], m[3]), y = sub(m[2], m[1]);
  Value len = sqrtv(add(mul(x, x), mul(y, y)));
  Value zeroLen = arith::CmpFOp::create(b, curLoc, arith::CmpFPredicate::OEQ,
                                        len, c(0.0));
  Value scale = div(c(1.0), len);
  Value cs = sel(zeroLen, c(1.0), mul(x, scale));
  Value sn = sel(zeroLen, c(0.0), mul(y, scale));
  SmallVector<Value, 4> R{cs, neg(sn), sn, cs};
  SmallVector<Value, 4> Rt{cs, sn, neg(sn), cs};
  SmallVector<Value, 4> S = mat2mul(Rt, m);
  if (which == Builtin::PolarDecompose) {
    emit(R);
    emit(S);
    return out;
  }
  // SVD of the symmetric S by one Jacobi rotation (Taichi's svd2d).
  Value small = lt(math::AbsFOp::create(b, curLoc, S[1]), c(1e-5));
  Value tao = mul(c(0.5), sub(S[0], S[3]));
  Value w = sqrtv(add(mul(tao, tao), mul(S[1], S[1])));
  Value tt = sel(lt(c(0.0), tao), div(S[1], add(tao, w)), div(S[1], sub(tao, w)));
  Value cj = div(c(1.0), sqrtv(add(mul(tt, tt), c(1.0))));
  Value sj = neg(mul(tt, cj));
  Value cc = mul(cj, cj), ss = mul(sj, sj), cs2 = mul(c(2.0), mul(cj, sj));
  Value s1j = add(sub(mul(cc, S[0]), mul(cs2, S[1])), mul(ss, S[3]));
  Value s2j = add(add(mul(ss, S[0]), mul(cs2, S[1])), mul(cc, S[3]));
  Value cr = sel(small, c(1.0), cj), sr = sel(small, c(0.0), sj);
  Value s1 = sel(small, S[0], s1j), s2 = sel(small, S[3], s2j);
  Value swap = lt(s1, s2);
  // V = swap ? [[-s, c], [-c, -s]] : [[c, s], [-s, c]]
  SmallVector<Value, 4> V{sel(swap, neg(sr), cr), sel(swap, cr, sr),
                          sel(swap, neg(cr), neg(sr)), sel(swap, neg(sr), cr)};
  Value sig1 = sel(swap, s2, s1), sig2 = sel(swap, s1, s2);
  SmallVector<Value, 4> U = mat2mul(R, V);
  emit(U);
  emit({sig1, c(0.0), c(0.0), sig2});
  emit(V);
  return out;
}

/// 3x3 decompositions by cyclic Jacobi sweeps (exact Givens rotations,
/// branch-free with arith.select; 5 sweeps for f32, 8 for f64):
///   sym_eig(A):  A = Q diag(e) Q^T, eigenvalues descending, det Q = 1;
///   svd(A):      eigen-decomposition of A^T A gives V; B = A V is
///                orthogonalized (Gram-Schmidt, u3 = u1 x u2) into U Sigma,
///                so U and V are rotations and sigma3 carries the sign of
///                det A (Taichi's convention);
///   polar(A):    R = U V^T, S = V Sigma V^T.
RV Generator::decompose3x3(Builtin which, ArrayRef<Value> A, ST t,
                           SourceRange r) {
  using BO = tast::BinaryOp;
  if (!t.isFloat())
    t = defaultFloat();
  auto c = [&](double v) { return cFloat(v, t); };
  auto add = [&](Value x, Value y) { return scalarBinop(BO::Add, x, y, t, r); };
  auto sub = [&](Value x, Value y) { return scalarBinop(BO::Sub, x, y, t, r); };
  auto mul = [&](Value x, Value y) { return scalarBinop(BO::Mul, x, y, t, r); };
  auto div = [&](Value x, Value y) { return scalarBinop(BO::Div, x, y, t, r); };
  auto neg = [&](Value x) -> Value { return arith::NegFOp::create(b, curLoc, x); };
  auto sqrtv = [&](Value x) -> Value { return math::SqrtOp::create(b, curLoc, x); };
  auto absv = [&](Value x) -> Value { return math::AbsFOp::create(b, curLoc, x); };
  auto sel = [&](Value cnd, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, curLoc, cnd, x, y);
  };
  auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, curLoc, p, x, y);
  };
  using M3 = std::array<Value, 9>;
  auto matmul = [&](const M3 &X, const M3 &Y) {
    M3 Z;
    for (unsigned i = 0; i < 3; ++i)
      for (unsigned j = 0; j < 3; ++j)
        Z[i * 3 + j] = add(add(mul(X[i * 3], Y[j]), mul(X[i * 3 + 1], Y[3 + j])),
                           mul(X[i * 3 + 2], Y[6 + j]));
    return Z;
  };
  auto transpose = [&](const M3 &X) {
    M3 Z;
    for (unsigned i = 0; i < 3; ++i)
      for (unsigned j = 0; j < 3; ++j)
        Z[j * 3 + i] = X[i * 3 + j];
    return Z;
  };
  M3 Am;
  for (unsigned i = 0; i < 9; ++i)
    Am[i] = A[i];
  M3 I3;
  for (unsigned i = 0; i < 9; ++i)
    I3[i] = c(i % 4 == 0 ? 1.0 : 0.0);

  // Jacobi eigen-decomposition of the symmetric S: S <- J^T S J, V <- V J.
  auto jacobi = [&](M3 S, M3 &V) {
    V = I3;
    unsigned sweeps = t.bits == 64 ? 8 : 5;
    const unsigned P[3] = {0, 0, 1}, Q[3] = {1, 2, 2};
    for (unsigned sw = 0; sw < sweeps; ++sw)
      for (unsigned k = 0; k < 3; ++k) {
        unsigned p = P[k], q = Q[k];
        Value apq = S[p * 3 + q], app = S[p * 3 + p], aqq = S[q * 3 + q];
        Value zero = cmp(arith::CmpFPredicate::OEQ, apq, c(0.0));
        Value theta = div(sub(aqq, app), mul(c(2.0), apq));
        Value sgn = sel(cmp(arith::CmpFPredicate::OGE, theta, c(0.0)), c(1.0),
                        c(-1.0));
        // |theta| huge: theta^2 overflows to inf and t -> 0, as it should.
        Value tt = div(sgn, add(absv(theta), sqrtv(add(mul(theta, theta), c(1.0)))));
        Value cs = div(c(1.0), sqrtv(add(mul(tt, tt), c(1.0))));
        Value sn = mul(tt, cs);
        cs = sel(zero, c(1.0), cs);
        sn = sel(zero, c(0.0), sn);
        M3 J = I3;
        J[p * 3 + p] = cs;
        J[q * 3 + q] = cs;
        J[p * 3 + q] = sn;
        J[q * 3 + p] = neg(sn);
        S = matmul(matmul(transpose(J), S), J);
        V = matmul(V, J);
      }
    return S;
  };
  // Sorts eigenvalues (descending) with the columns of V, keeping det V.
  auto sortDesc = [&](std::array<Value, 3> &ev, M3 &V) {
    const unsigned X[3] = {0, 0, 1}, Y[3] = {1, 2, 2};
    for (unsigned k = 0; k < 3; ++k) {
      unsigned i = X[k], j = Y[k];
      Value sw = cmp(arith::CmpFPredicate::OLT, ev[i], ev[j]);
      Value ei = sel(sw, ev[j], ev[i]), ej = sel(sw, ev[i], ev[j]);
      ev[i] = ei;
      ev[j] = ej;
      for (unsigned row = 0; row < 3; ++row) {
        Value vi = V[row * 3 + i], vj = V[row * 3 + j];
        // Swapping two columns flips det V: negate the moved-down column.
        V[row * 3 + i] = sel(sw, vj, vi);
        V[row * 3 + j] = sel(sw, neg(vi), vj);
      }
    }
  };
  RV out;
  auto emit = [&](ArrayRef<Value> vs) {
    for (Value v : vs)
      out.push(v, t);
  };
  if (which == Builtin::SymEig) {
    M3 V;
    M3 D = jacobi(Am, V);
    std::array<Value, 3> ev{D[0], D[4], D[8]};
    sortDesc(ev, V);
    emit(ev);
    emit(V);
    return out;
  }
  M3 V;
  M3 D = jacobi(matmul(transpose(Am), Am), V);
  std::array<Value, 3> ev{D[0], D[4], D[8]};
  sortDesc(ev, V);
  M3 B = matmul(Am, V);
  auto col = [&](const M3 &X, unsigned j) {
    return std::array<Value, 3>{X[j], X[3 + j], X[6 + j]};
  };
  auto dot3 = [&](const std::array<Value, 3> &x, const std::array<Value, 3> &y) {
    return add(add(mul(x[0], y[0]), mul(x[1], y[1])), mul(x[2], y[2]));
  };
  auto cross3 = [&](const std::array<Value, 3> &x, const std::array<Value, 3> &y) {
    return std::array<Value, 3>{sub(mul(x[1], y[2]), mul(x[2], y[1])),
                                sub(mul(x[2], y[0]), mul(x[0], y[2])),
                                sub(mul(x[0], y[1]), mul(x[1], y[0]))};
  };
  Value eps = c(t.bits == 64 ? 1e-150 : 1e-30);
  // u1 = b1 / |b1| (e1 when A = 0).
  std::array<Value, 3> b1 = col(B, 0), b2 = col(B, 1), b3 = col(B, 2);
  Value s1 = sqrtv(dot3(b1, b1));
  Value ok1 = cmp(arith::CmpFPredicate::OGT, s1, eps);
  Value inv1 = div(c(1.0), s1);
  std::array<Value, 3> u1{sel(ok1, mul(b1[0], inv1), c(1.0)),
                          sel(ok1, mul(b1[1], inv1), c(0.0)),
                          sel(ok1, mul(b1[2], inv1), c(0.0))};
  // u2 = normalized (b2 - (u1.b2) u1), or any unit vector orthogonal to u1.
  Value d12 = dot3(u1, b2);
  std::array<Value, 3> w{sub(b2[0], mul(d12, u1[0])), sub(b2[1], mul(d12, u1[1])),
                         sub(b2[2], mul(d12, u1[2]))};
  Value s2 = sqrtv(dot3(w, w));
  Value ok2 = cmp(arith::CmpFPredicate::OGT, s2, mul(eps, add(s1, c(1.0))));
  Value useX = cmp(arith::CmpFPredicate::OLT, absv(u1[0]), c(0.9));
  std::array<Value, 3> axis{sel(useX, c(1.0), c(0.0)), sel(useX, c(0.0), c(1.0)),
                            c(0.0)};
  std::array<Value, 3> o = cross3(u1, axis);
  Value on = div(c(1.0), sqrtv(dot3(o, o)));
  Value inv2 = div(c(1.0), s2);
  std::array<Value, 3> u2;
  for (unsigned i = 0; i < 3; ++i)
    u2[i] = sel(ok2, mul(w[i], inv2), mul(o[i], on));
  s2 = sel(ok2, s2, c(0.0));
  std::array<Value, 3> u3 = cross3(u1, u2);
  Value s3 = dot3(u3, b3);
  M3 U{u1[0], u2[0], u3[0], u1[1], u2[1], u3[1], u1[2], u2[2], u3[2]};
  M3 Sig{s1, c(0.0), c(0.0), c(0.0), s2, c(0.0), c(0.0), c(0.0), s3};
  if (which == Builtin::Svd) {
    emit(U);
    emit(Sig);
    emit(V);
    return out;
  }
  M3 Vt = transpose(V);
  emit(matmul(U, Vt));
  emit(matmul(matmul(V, Sig), Vt));
  return out;
}
} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void tic::codegen::loadCodeGenDialects(MLIRContext &ctx) {
  ctx.loadDialect<tic::tc::TCDialect, tic::snode::SNodeDialect,
                  arith::ArithDialect, math::MathDialect, cf::ControlFlowDialect,
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

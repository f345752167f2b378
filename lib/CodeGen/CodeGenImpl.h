//===- CodeGenImpl.h - the AST -> MLIR generator ----------------*- C++ -*-===//
//
// Private to lib/CodeGen. The generator keeps every value scalarized: an RV
// is the flat list of scalar components of a .tc value (vector components,
// matrix elements row-major, struct members flattened in order) with the
// scalar type of each component.
//
// The Generator's member functions are defined in
//   CodeGen.cpp          entry points, layout (SNode tree), kernels
//   CodeGenStmt.cpp      statements, loops, assignments
//   CodeGenExpr.cpp      conversions, expressions, operators, calls
//   CodeGenLValue.cpp    lvalues, loads/stores/atomics, bounds guards
//   CodeGenBuiltins.cpp  builtins: math, linear algebra, print, random,
//                        atomics
//   CodeGenDecompose.cpp svd, polar_decompose, sym_eig of 2x2 and 3x3 matrices
//===----------------------------------------------------------------------===//
#ifndef TIC_LIB_CODEGEN_CODEGENIMPL_H
#define TIC_LIB_CODEGEN_CODEGENIMPL_H

#include "tic/CodeGen/CodeGen.h"
#include "tic/Dialect/AD/ADDialect.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Frontend/AST.h"
#include "tic/Frontend/Diagnostics.h"
#include "tic/Frontend/Sema.h"
#include "tic/Frontend/Types.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tic {
namespace codegen {
namespace detail {

namespace ast = ::tic::ast;
namespace sema = ::tic::sema;
namespace tast = ::tic::ast;
namespace tsema = ::tic::sema;
namespace arith = ::mlir::arith;
namespace cf = ::mlir::cf;
namespace scf = ::mlir::scf;
namespace OpTrait = ::mlir::OpTrait;
using llvm::SmallVector;
using mlir::ArrayRef;
using mlir::Block;
using mlir::FileLineColLoc;
using mlir::Location;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OpBuilder;
using mlir::OwningOpRef;
using mlir::Region;
using mlir::UnknownLoc;
using mlir::Value;
using mlir::ValueRange;
using ::tic::SourceRange;
using tsema::Builtin;

/// A scalar type as code generation needs it.
struct ST {
  enum K : uint8_t { Bool, Int, Float } k = Int;
  unsigned bits = 32;
  bool sgn = true;
  bool isFloat() const { return k == Float; }
  bool isInt() const { return k == Int; }
  bool isBool() const { return k == Bool; }
  bool operator==(const ST &o) const {
    return k == o.k && bits == o.bits && (k != Int || sgn == o.sgn);
  }
  bool operator!=(const ST &o) const { return !(*this == o); }
  static ST i32() { return {Int, 32, true}; }
  static ST i64() { return {Int, 64, true}; }
  static ST f32() { return {Float, 32, true}; }
  static ST boolean() { return {Bool, 1, false}; }
};

/// Taichi's binary promotion (Types.h promoteScalars).
ST promote(ST a, ST b);

/// Scalar type of a tic scalar/quant type.
ST scalarOf(const tic::Type *t);
/// Element scalar type of scalar/vector/matrix (quant -> compute type).
ST elemOf(const tic::Type *t);
/// The scalar components of a value of type `t`, in flat order.
void flatten(const tic::Type *t, std::vector<ST> &out);
unsigned flatCount(const tic::Type *t);
bool isValueType(const tic::Type *t);

/// A scalarized value.
struct RV {
  SmallVector<Value, 4> v;
  std::vector<ST> ts;
  size_t size() const { return v.size(); }
  void push(Value x, ST t) {
    v.push_back(x);
    ts.push_back(t);
  }
};

/// An assignable location (local var, field element, ndarray element) and a
/// selection of its flat components. When the selection depends on a
/// runtime index, `alts` lists the alternatives and `sel` picks one.
struct LV {
  enum K { Local, Field, NDArray } k = Local;
  const tic::Type *type = nullptr; // type of the selected value
  std::vector<std::vector<unsigned>> alts;
  Value sel;                 // i32, set iff alts.size() > 1
  std::vector<ST> slotTypes; // per flat slot of the whole base
  // Local
  const sema::LocalVar *var = nullptr;
  SmallVector<Value, 4> mem; // rank-0 memrefs per slot
  bool reduction = false;
  // Field
  const sema::FieldInfo *field = nullptr;
  SmallVector<Value, 4> idx; // i32, one per index axis of the place
  // NDArray
  Value array;
  SmallVector<Value, 4> ndIdx;     // i32 element indices
  std::vector<unsigned> compShape; // {} scalar, {N} vector, {R, C} matrix
};

//===----------------------------------------------------------------------===//
// AST queries
//===----------------------------------------------------------------------===//

bool isAtomicBuiltin(Builtin b);
/// Whether evaluating `e` may have side effects or trap (calls, atomics,
/// random, global/ndarray loads that may be out of range, integer division).
bool mayHaveEffects(const tast::Expr *e);

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

struct Binding {
  SmallVector<Value, 4> vals; // SSA components, or rank-0 memrefs
  std::vector<ST> ts;
  bool mem = false;
};

/// Whether `s` holds a `return`, or a `break`/`continue` that leaves `s` (one
/// not inside a loop within `s`): then `s` cannot be a structured op. With
/// `allowContinue`, a `continue` does not count (the body of an scf.for
/// handles it).
bool escapes(const tast::Stmt *s, bool allowContinue = false);

/// Removes the terminator an scf builder may have put into `blk`, so that
/// code is generated at its end (terminated() stays false) and the yield is
/// added last.
inline void dropTerminator(Block *blk) {
  if (!blk->empty() && blk->back().hasTrait<OpTrait::IsTerminator>())
    blk->back().erase();
}

struct LoopCtx {
  Block *brk = nullptr; // null: break not allowed (parallel loop)
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
      return t.bits == 16   ? mlir::Type(b.getF16Type())
             : t.bits == 64 ? mlir::Type(b.getF64Type())
                            : mlir::Type(b.getF32Type());
    }
    return b.getI32Type();
  }
  Value cInt(int64_t v, ST t) {
    if (t.isFloat())
      return cFloat(double(v), t);
    unsigned bits = t.isBool() ? 1 : t.bits;
    llvm::APInt ap(bits, uint64_t(v), /*isSigned=*/false,
                   /*implicitTrunc=*/true);
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
        double d = l->kind == tsema::ConstValue::Kind::Float  ? l->f
                   : l->kind == tsema::ConstValue::Kind::Bool ? double(l->b)
                                                              : double(l->i);
        v = cFloat(d, st);
      } else if (st.isBool()) {
        bool bv = l->kind == tsema::ConstValue::Kind::Bool    ? l->b
                  : l->kind == tsema::ConstValue::Kind::Float ? l->f != 0
                                                              : l->i != 0;
        v = cBool(bv);
      } else {
        int64_t iv = l->kind == tsema::ConstValue::Kind::Int    ? l->i
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
  Value floatToInt(Value v, ST to);
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
  //
  // Control flow is structured (scf.if / scf.for / scf.while, whose regions
  // have one block) wherever the source allows it. A statement with a
  // `break`, `continue` or `return` that leaves it, and a func with an early
  // `return`, become branches between blocks instead; inside a structured
  // region such branches are wrapped in an `scf.execute_region`
  // (cfgRegion), so every region that holds several blocks belongs to a
  // kernel, a parallel loop or an execute_region.
  Region *curRegion() { return b.getInsertionBlock()->getParent(); }
  /// Whether the insertion point is in the single block of an scf op.
  bool inStructuredRegion() {
    return mlir::isa<scf::IfOp, scf::ForOp, scf::WhileOp, scf::IndexSwitchOp>(
        curRegion()->getParentOp());
  }
  /// Runs `gen`, which may create blocks, where blocks may be created: in a
  /// structured region inside a new scf.execute_region yielding `gen`'s
  /// results (of types `rts`), elsewhere in place.
  RV cfgRegion(ArrayRef<ST> rts, const std::function<RV()> &gen);
  /// Emits scf.if `cond` with one region per branch, each generated by its
  /// callback and yielding values of types `rts`; returns the results.
  RV structuredIf(Value cond, ArrayRef<ST> rts,
                  const std::function<RV()> &thenGen,
                  const std::function<RV()> &elseGen);
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
  void genPlace(const tsema::FieldInfo *f);
  void checkQuantRange(const tsema::FieldInfo *f, mlir::Value x);
  void genKernel(ModuleOp module, const tsema::CheckedFunction &k);
  void collectMutated(const tast::Stmt *body);

  // ---- statements
  void genBlock(const tast::BlockStmt &blk);
  void genStmt(const tast::Stmt &s);
  void genLet(const tast::LetStmt &s);
  void genVar(const tast::VarStmt &s);
  void genIf(const tast::IfStmt &s);
  void genIfBranches(const tast::IfStmt &s, Value cond); // as blocks
  void genWhile(const tast::WhileStmt &s);
  void genWhileBranches(const tast::WhileStmt &s); // as blocks
  void genFor(const tast::ForStmt &s);
  void genParallelFor(const tast::ForStmt &s);
  /// Adds `fields` (each once) to the block_local hint of `sf`.
  void addBlockLocal(tic::tc::StructForOp sf,
                     ArrayRef<const tsema::FieldInfo *> fields);
  void genSerialFor(const tast::ForStmt &s);
  void genSerialForBranches(const tast::ForStmt &s, ArrayRef<Value> lo,
                            ArrayRef<Value> hi, ST ivType, int64_t step);
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
  RV symEig3x3(ArrayRef<Value> A, ST t);

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
  RV genListMethod(const tast::CallExpr &e);
  RV dynamicPick(const RV &v, Value sel,
                 const std::vector<std::vector<unsigned>> &alts);

  // ---- lvalues
  bool genLValue(const tast::Expr *e, LV &lv);
  bool refineLValue(LV &lv, const tast::Expr *e);
  /// How `v[k]`, `m[r, c]` or the row `m[r]` selects components of a
  /// scalarized vector or matrix of type `baseType`: a fixed list when the
  /// indices are compile-time constants, else a run-time selector among
  /// alternatives. Shared by reads and assignments.
  struct ComponentSelect {
    bool isStatic = true;
    std::vector<unsigned> pick;              // static: the components
    Value sel;                               // dynamic: which alternative
    std::vector<std::vector<unsigned>> alts; // dynamic: the alternatives
  };
  /// Returns false after reporting a constant index out of range.
  bool selectComponents(const tast::IndexExpr &e, const tic::Type *baseType,
                        ComponentSelect &out);
  /// With bounds checks: emits `tc.assert` on the indices of `lv` and an
  /// scf.if that skips the access when they are out of range (zeros as the
  /// results). Returns that op (null: no check needed) with the insertion
  /// point in its `then` block; the caller performs the access there and
  /// then calls endGuard.
  scf::IfOp beginGuard(const LV &lv, ArrayRef<ST> resultTypes);
  RV endGuard(scf::IfOp guard, const RV &results);
  RV loadLV(const LV &lv);
  void storeLV(const LV &lv, const RV &v);
  RV atomicLV(const LV &lv, tic::tc::AtomicKind kind, const RV &v,
              SourceRange r, bool reduction);
  SmallVector<Value, 4> fieldIndices(const tsema::FieldInfo *f,
                                     ArrayRef<Value> idx);
  SmallVector<Value, 4> ndIndicesFor(const LV &lv, unsigned slot);
  /// Generates one index of a field or ndarray access. The chain of integer
  /// `+ - *` at the top of the index expression gets `nsw`: an index that
  /// overflows is out of range, which the spec makes undefined, and the flag
  /// lets LLVM see `a[i - 1, j]` as affine in the loop variables (contiguous
  /// vector loads). With bounds checks on, nothing is flagged, so that a
  /// wrapped index is reported rather than assumed away.
  RV genIndexValue(const tast::Expr *e);
  /// True while generating the top `+ - *` chain of an index expression.
  bool nswIndexArith = false;
  arith::IntegerOverflowFlags indexFlags() const {
    return nswIndexArith ? arith::IntegerOverflowFlags::nsw
                         : arith::IntegerOverflowFlags::none;
  }

  const tsema::CheckedModule &M;
  MLIRContext &ctx;
  tic::DiagnosticEngine &diags;
  const tic::codegen::CodeGenOptions &opts;
  OpBuilder b;
  std::string fileName;
  Location curLoc = UnknownLoc::get(&ctx);
  /// The source range of the expression being generated (for diagnostics).
  SourceRange curRange;
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
  /// The kernel began with bit_vectorize(N): its accesses get no bounds or
  /// range checks (tic-bit-vectorize computes whole words; docs/quant.md).
  bool bitVectorized = false;
};

} // namespace detail
} // namespace codegen
} // namespace tic

#endif

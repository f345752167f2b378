//===- SemaImpl.h - Internal state of semantic analysis ---------*- C++ -*-===//

#ifndef TIC_LIB_FRONTEND_SEMAIMPL_H
#define TIC_LIB_FRONTEND_SEMAIMPL_H

#include "tic/Frontend/ConstEval.h"
#include "tic/Frontend/Sema.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tic {
namespace sema {

/// A global name.
struct GlobalEntry {
  enum class Kind { Const, TypeAlias, Struct, Field, Kernel, Func, Instance, LayoutLet };
  Kind kind;
  SourceRange range;
  const ast::Decl *decl = nullptr;
  ConstantInfo *constant = nullptr;      // Const (null until evaluated)
  const Type *type = nullptr;            // TypeAlias, Struct (null until resolved)
  FieldInfo *field = nullptr;            // Field
  const ast::FunctionDecl *func = nullptr; // Kernel, Func
  SNode *snode = nullptr;                // LayoutLet
  bool visited = false;   // Const, TypeAlias, Struct: declaration checked
  bool resolving = false; // TypeAlias, Struct: being checked (cycles)
};

/// A name bound in a local scope.
struct LocalBinding {
  enum class Kind { Local, Field, SNode, Value };
  Kind kind = Kind::Local;
  LocalVar *local = nullptr;
  const FieldInfo *field = nullptr;
  const SNode *snode = nullptr;
  ConstValue value;
  SourceRange range;
};

/// What is being checked: a function body (kernel or func instantiation),
/// or a global constant expression (fn == nullptr).
struct FnState {
  CheckedFunction *fn = nullptr;
  bool isKernel = false;
  /// A func declared `-> template`: its first `return e` sets fn->returnType
  /// (null until then).
  bool inferReturn = false;
  std::vector<std::map<std::string, LocalBinding>> scopes;
  /// Loop nesting: for each enclosing loop, whether it is parallel /
  /// a static-for (where break is not allowed).
  struct Loop {
    bool parallel;
    bool isStatic;
    bool isStructFor;
    /// Static for: nonTopDepth of its body, and a `break`/`continue` met
    /// under `if static(...)` in the copy being checked (the rest of that
    /// copy is dropped; `break` also ends the unrolling).
    unsigned depth = 0;
    enum class Exit { None, Break, Continue } exit = Exit::None;
  };
  std::vector<Loop> loops;
  /// block_local(...) being checked right before a for loop (Taichi's
  /// form), and the fields it named, for that loop (checkFor).
  bool blockLocalBeforeFor = false;
  std::vector<const FieldInfo *> pendingBlockLocal;
  SourceRange pendingBlockLocalRange;
  /// Depth of blocks that are not the kernel's top-level scope (if bodies,
  /// while bodies, loop bodies): a for loop at depth 0 is parallel.
  unsigned nonTopDepth = 0;
  bool inParallelLoop() const {
    for (auto &l : loops)
      if (l.parallel)
        return true;
    return false;
  }
  unsigned nextLocalId = 0;
};

class Sema {
public:
  Sema(ast::Program &p, DiagnosticEngine &d, const SemaOptions &o);
  std::unique_ptr<CheckedModule> run();

  // Module state.
  ast::Program &program;
  DiagnosticEngine &diags;
  const SemaOptions &opts;
  std::unique_ptr<CheckedModule> mod;
  TypeContext *types = nullptr;
  const ScalarType *defaultFloat = nullptr;
  std::map<std::string, GlobalEntry> globals;
  std::map<std::string, const Type *> builtinTypes; // vec3, mat2, ...
  std::map<std::string, Builtin> builtinFuncs;
  std::set<std::string> definesUsed;
  /// Func instantiations by key (decl pointer + template args).
  std::map<std::string, CheckedFunction *> funcInstances;
  struct InstFrame {
    std::string key;
    std::string display;
    SourceRange callRange;
  };
  std::vector<InstFrame> instStack;
  std::set<std::string> instFailed;
  /// Fields placed explicitly: where.
  std::map<const FieldInfo *, SourceRange> placedAt;
  std::set<std::string> failedPlaces; // fields named in a failed layout statement
  std::set<std::string> failedLets;   // `let` names of failed layout statements
  FnState *st = nullptr; // current function state (never null while checking)
  std::set<std::pair<uint32_t, std::string>> reported; // dedupe (instantiations)
  bool suppressNotes = false;
  bool recursionAborted = false;
  /// Statements produced by unrolling static for loops (the budget is
  /// SemaOptions::maxUnrolledStatements).
  int64_t unrolledStatements = 0;
  std::vector<std::unique_ptr<LocalVar>> orphanLocals;
  void error(SourceRange r, const std::string &m);
  void note(SourceRange r, const std::string &m);
  void warning(SourceRange r, const std::string &m);
  FnState globalState;
  /// Runtime parameters fixed by the instance being instantiated.
  const std::map<std::string, TemplateArg> *fixedParams = nullptr;

  // Declarations (Sema.cpp).
  static bool accessesDifferentiableField(const CheckedFunction &f, bool dual);
  void collectGlobals();
  void checkConstant(ast::ConstDecl &d);
  void checkStruct(ast::StructDecl &d);
  void checkTypeAlias(ast::TypeAliasDecl &d);
  void checkFieldDecl(ast::FieldDecl &d);
  void checkKernelDecl(const ast::FunctionDecl &d);
  void checkInstance(ast::InstanceDecl &d);
  void checkStaticAssert(ast::Expr &cond, const std::string &msg, SourceRange r);
  const Type *resolveType(ast::TypeExpr &t, bool allowQuant, bool allowTemplate);
  const Type *resolveQuant(ast::QuantTypeExpr &q);
  std::optional<int64_t> evalIntArg(ast::Expr &e, const std::string &what);
  std::optional<ConstValue> evalConst(ast::Expr &e, const std::string &what);
  void redefinition(const std::string &name, SourceRange r, SourceRange prev);

  // Functions (Sema.cpp).
  /// `inferred`: the types of a func's parameters written without a type,
  /// in order (one instantiation per combination).
  CheckedFunction *instantiate(const ast::FunctionDecl &d,
                               std::vector<TemplateArg> targs,
                               SourceRange callRange, bool isKernel,
                               const std::string &exportName,
                               std::vector<const Type *> inferred = {});
  std::optional<TemplateArg> templateArgFrom(ast::Expr &e, const std::string &param);
  void checkBlockInto(ast::BlockStmt &b, std::vector<ast::StmtPtr> &out,
                      bool newScope);
  void checkStmt(ast::StmtPtr &s, std::vector<ast::StmtPtr> &out);
  void checkFor(ast::StmtPtr &s, std::vector<ast::StmtPtr> &out,
                ast::ExprStmt *loopConfig);
  void checkAssign(ast::AssignStmt &a);
  LocalVar *declareLocal(const ast::Ident &id, LocalVar::Kind k, const Type *t);
  void bind(const std::string &name, LocalBinding b);
  const LocalBinding *lookupLocal(const std::string &name) const;
  void pushScope() { st->scopes.emplace_back(); }
  void popScope() { st->scopes.pop_back(); }

  // Expressions (SemaExpr.cpp).
  const Type *checkExpr(ast::Expr &e);
  const Type *checkName(ast::NameExpr &e);
  const Type *checkCall(ast::CallExpr &e);
  const Type *checkBuiltin(ast::CallExpr &e, Builtin b, ast::Expr *receiver);
  const Type *checkIndex(ast::IndexExpr &e);
  const Type *checkMember(ast::MemberExpr &e);
  const Type *checkUnary(ast::UnaryExpr &e);
  const Type *checkBinary(ast::BinaryExpr &e);
  const Type *checkCompare(ast::CompareExpr &e);
  const Type *checkTernary(ast::TernaryExpr &e);
  const Type *checkList(ast::ListExpr &e);
  const Type *checkStructLit(ast::StructLitExpr &e);
  const Type *checkCast(ast::Expr &e, const Type *target, ast::Expr &operand);
  const Type *checkFuncCall(ast::CallExpr &e, const ast::FunctionDecl &fd);
  /// Checks that a value of type `from` can be converted implicitly to
  /// `to`; warns on narrowing. `what` describes the context for messages.
  /// An exact float constant (a literal, `pi`, a folded constant expression)
  /// takes the float precision of the context it is used in: `x * 0.1` with
  /// `x: f64`, `let a: f64 = 0.1`, `f64field[i] = 0.1` use the f64 value of
  /// 0.1, not the f32 one. Retypes `e` (keeping its shape) when `to` has a
  /// float element type; does nothing otherwise.
  void adoptContextType(ast::Expr &e, const Type *to);
  /// The unrolled copies of a static for (`static(range(a, b, step))`,
  /// `static(ndrange(...))`, `static(grouped(ndrange(...)))`, a compile-time
  /// list): one value per loop variable for each copy.
  bool staticIterations(ast::ForStmt &f, ast::StaticExpr &se,
                        std::vector<std::vector<ConstValue>> &iters);
  /// `module m(default_fp: f64);` (before anything is checked).
  void checkModuleOptions();
  /// `quietIntToFloat`: an integer converts to a float without a narrowing
  /// warning (func arguments, as in Taichi).
  bool checkConvertible(const Type *from, const Type *to, ast::Expr &at,
                        const std::string &what, bool quietIntToFloat = false);
  /// Converts the constant of `e` (if any) to `to` in place.
  void setConst(ast::Expr &e, ConstValue v);
  const ConstValue *constOf(const ast::Expr &e) const;
  bool isLValue(ast::Expr &e, bool reportLet, std::string *why);
  const FieldInfo *fieldOf(ast::Expr &e);   // expr denoting a field
  const SNode *snodeOf(ast::Expr &e);       // expr denoting an SNode (or a field's place)
  const Type *err() { return nullptr; }

  // Layout (Layout.cpp).
  void buildLayout();
  void layoutStmt(ast::LayoutStmt &s);
  SNode *layoutExpr(ast::Expr &e);
  SNode *newSNode(SNode *parent, SNode::Kind k, SourceRange r);
  void placeField(SNode *sn, FieldInfo *f, SourceRange r, bool sharedExp);
  std::optional<std::vector<Axis>> parseAxes(ast::Expr &e);
  void finishLayout();
  void computeDerived(SNode *sn);
  void validateSNode(SNode *sn);
  /// Type aliases and structs being checked, outermost first (cycles).
  std::vector<std::string> typeStack;
  /// The C names of the generated header (SemaNames.cpp).
  void checkCNames();
  /// Bytes of `sn`'s storage (saturating at kMaxLayoutBytes + 1); reports a
  /// layout larger than kMaxLayoutBytes at the first node that exceeds it.
  int64_t layoutBytes(SNode *sn);
};

std::string typeName(const Type *t);
inline bool isReservedName(const std::string &n) { return n == "root"; }

inline bool isIntLike(const Type *t) {
  return t && (t->isInt() || t->isBool());
}

/// "1 index", "3 indices", "2 arguments".
inline std::string plural(size_t n, const char *w) {
  if (n != 1 && std::string(w) == "index")
    return std::to_string(n) + " indices";
  return std::to_string(n) + " " + w + (n == 1 ? "" : "s");
}

/// The n x n identity matrix of element type `m->elem`, as a constant.
inline ConstValue identityConst(const MatrixType *m, TypeContext &types) {
  auto *el = static_cast<const ScalarType *>(m->elem);
  std::vector<ConstValue> es;
  for (unsigned r = 0; r < m->rows; ++r)
    for (unsigned c = 0; c < m->cols; ++c)
      es.push_back(
          convertConst(ConstValue::makeInt(r == c, types.i32()), el, types));
  return ConstValue::makeAggregate(std::move(es), m);
}

} // namespace sema
} // namespace tic

#endif

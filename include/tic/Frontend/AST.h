//===- AST.h - Abstract syntax tree of .tc programs -------------*- C++ -*-===//
//
// The AST mirrors the source closely (it is what `tic --emit=ast` prints).
// Semantic analysis (Sema.h) annotates expressions with types and constant
// values and produces checked, instantiated kernel bodies from it.
//
// Nodes use a kind enum and `classof` so `isa<>`, `cast<>` and `dyn_cast<>`
// below work as in LLVM, without depending on LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_FRONTEND_AST_H
#define TIC_FRONTEND_AST_H

#include "tic/Frontend/Diagnostics.h"

#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace tic {

template <typename To, typename From> bool isa(const From *node) {
  return node && To::classof(node);
}
template <typename To, typename From> To *cast(From *node) {
  assert(isa<To>(node) && "cast<> to an incompatible node kind");
  return static_cast<To *>(node);
}
template <typename To, typename From> const To *cast(const From *node) {
  assert(isa<To>(node) && "cast<> to an incompatible node kind");
  return static_cast<const To *>(node);
}
template <typename To, typename From> To *dyn_cast(From *node) {
  return isa<To>(node) ? static_cast<To *>(node) : nullptr;
}
template <typename To, typename From> const To *dyn_cast(const From *node) {
  return isa<To>(node) ? static_cast<const To *>(node) : nullptr;
}

namespace ast {

class Expr;
class TypeExpr;
using ExprPtr = std::unique_ptr<Expr>;
using TypeExprPtr = std::unique_ptr<TypeExpr>;

//===----------------------------------------------------------------------===//
// Type expressions (syntax; Sema resolves them to tic::Type)
//===----------------------------------------------------------------------===//

/// A type argument is either a type or a constant expression
/// (`vec<f32, 3>`, `ndarray<f32, n>`).
class TypeExpr {
public:
  enum Kind { Named, Generic, Quant, Template, Inferred };
  TypeExpr(Kind k, SourceRange r) : kind(k), range(r) {}
  virtual ~TypeExpr();
  Kind getKind() const { return kind; }
  const Kind kind;
  SourceRange range;
};

class NamedTypeExpr : public TypeExpr {
public:
  NamedTypeExpr(SourceRange r, std::string n)
      : TypeExpr(Named, r), name(std::move(n)) {}
  static bool classof(const TypeExpr *t) { return t->kind == Named; }
  std::string name;
};

struct TypeArg {
  TypeExprPtr type; // exactly one of type / value is set
  ExprPtr value;
};

class GenericTypeExpr : public TypeExpr {
public:
  GenericTypeExpr(SourceRange r, std::string n)
      : TypeExpr(Generic, r), name(std::move(n)) {}
  static bool classof(const TypeExpr *t) { return t->kind == Generic; }
  std::string name;
  std::vector<TypeArg> args;
};

struct Argument {
  std::string name; // empty for positional arguments
  SourceRange nameRange;
  ExprPtr value;
};

/// `quant.int(bits: 8, signed: false)`, `quant.fixed(...)`, `quant.float(...)`.
class QuantTypeExpr : public TypeExpr {
public:
  QuantTypeExpr(SourceRange r, std::string ns, std::string k)
      : TypeExpr(Quant, r), nameSpace(std::move(ns)), quantKind(std::move(k)) {}
  static bool classof(const TypeExpr *t) { return t->kind == Quant; }
  std::string nameSpace; // "quant"
  std::string quantKind; // "int", "fixed", "float"
  std::vector<Argument> args;
};

class TemplateTypeExpr : public TypeExpr {
public:
  explicit TemplateTypeExpr(SourceRange r) : TypeExpr(Template, r) {}
  static bool classof(const TypeExpr *t) { return t->kind == Template; }
};

/// The missing type of a func parameter written without one (`func f(a)`):
/// a run-time parameter whose type is the argument's, per call (one
/// instantiation per combination of argument types). `range` is the
/// parameter name's.
class InferredTypeExpr : public TypeExpr {
public:
  explicit InferredTypeExpr(SourceRange r) : TypeExpr(Inferred, r) {}
  static bool classof(const TypeExpr *t) { return t->kind == Inferred; }
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class UnaryOp { Neg, Plus, BitNot, Not };
enum class BinaryOp {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul,
  Shl, Shr, BitAnd, BitOr, BitXor,
  And, Or,
};
enum class CmpOp { Eq, Ne, Lt, Le, Gt, Ge };

const char *spelling(UnaryOp op);
const char *spelling(BinaryOp op);
const char *spelling(CmpOp op);

} // namespace ast

class Type; // semantic type, Types.h

namespace sema { // Sema.h
struct ConstValue;
struct LocalVar;
struct FieldInfo;
struct SNode;
struct ConstantInfo;
struct CheckedFunction;
enum class Builtin : uint16_t;
} // namespace sema

namespace ast {

/// What a NameExpr denotes (set by Sema; see Sema.h).
struct NameRef {
  enum Kind : uint8_t {
    Unresolved,
    Local,       // let / var / param / loop variable: `local`
    Field,       // a global field (also via a template param): `field`
    SNode,       // `root`, a layout let, a template param: `snode`
    Constant,    // `const` declaration: `constant` (value in constValue)
    CompileTime, // static-for variable or template value: Expr::constValue
    Builtin,     // builtin function: `builtin`
    Type,        // a type name (cast / construction callee): `typeRef`
    Func,        // a func (callee of a CallExpr; see CallExpr::func)
  };
  Kind kind = Unresolved;
  const sema::LocalVar *local = nullptr;
  const sema::FieldInfo *field = nullptr;
  const sema::SNode *snode = nullptr;
  const sema::ConstantInfo *constant = nullptr;
  sema::Builtin builtin{};
  const tic::Type *typeRef = nullptr;
};

class Expr {
public:
  enum Kind {
    IntLit, FloatLit, BoolLit, StringLit, Name, Call, Index, Member, Unary,
    Binary, Compare, Ternary, Static, Cast, List, StructLit,
  };
  Expr(Kind k, SourceRange r) : kind(k), range(r) {}
  virtual ~Expr();
  Kind getKind() const { return kind; }
  const Kind kind;
  SourceRange range;
  /// Set by Sema.
  const Type *type = nullptr;
  /// Set by Sema when the value is known at compile time.
  std::shared_ptr<const sema::ConstValue> constValue;
};

class IntLitExpr : public Expr {
public:
  IntLitExpr(SourceRange r, uint64_t v, std::string s)
      : Expr(IntLit, r), value(v), spelling(std::move(s)) {}
  static bool classof(const Expr *e) { return e->kind == IntLit; }
  uint64_t value;
  std::string spelling;
};

class FloatLitExpr : public Expr {
public:
  FloatLitExpr(SourceRange r, double v, bool f32Suffix, std::string s)
      : Expr(FloatLit, r), value(v), isF32(f32Suffix), spelling(std::move(s)) {}
  static bool classof(const Expr *e) { return e->kind == FloatLit; }
  double value;
  bool isF32; // written with an `f` suffix
  std::string spelling;
};

class BoolLitExpr : public Expr {
public:
  BoolLitExpr(SourceRange r, bool v) : Expr(BoolLit, r), value(v) {}
  static bool classof(const Expr *e) { return e->kind == BoolLit; }
  bool value;
};

class StringLitExpr : public Expr {
public:
  StringLitExpr(SourceRange r, std::string v)
      : Expr(StringLit, r), value(std::move(v)) {}
  static bool classof(const Expr *e) { return e->kind == StringLit; }
  std::string value; // escapes decoded
};

class NameExpr : public Expr {
public:
  NameExpr(SourceRange r, std::string n) : Expr(Name, r), name(std::move(n)) {}
  static bool classof(const Expr *e) { return e->kind == Name; }
  std::string name;
  NameRef ref; // set by Sema
};

class CallExpr : public Expr {
public:
  CallExpr(SourceRange r, ExprPtr c) : Expr(Call, r), callee(std::move(c)) {}
  static bool classof(const Expr *e) { return e->kind == Call; }
  ExprPtr callee;
  std::vector<Argument> args;
  // Set by Sema.
  enum class CallKind : uint8_t {
    Unresolved,
    Builtin,   // `builtin`; methods (x[i].append(v)) have a MemberExpr callee
    Func,      // inlined func: `func`, args in parameter order
    Cast,      // `f32(x)`: convert to `target`
    Construct, // `vec3(a, b, c)`, `mat2(...)`: build `target` from args
  };
  CallKind callKind = CallKind::Unresolved;
  sema::Builtin builtin{};
  const sema::CheckedFunction *func = nullptr;
  const Type *target = nullptr;
};

/// `a[i, j]`; `a[]` has no indices (0-D field).
class IndexExpr : public Expr {
public:
  IndexExpr(SourceRange r, ExprPtr b) : Expr(Index, r), base(std::move(b)) {}
  static bool classof(const Expr *e) { return e->kind == Index; }
  ExprPtr base;
  std::vector<ExprPtr> indices;
  // Set by Sema.
  enum class IndexKind : uint8_t {
    Unresolved,
    Field,   // global access; `field` is the accessed field
    NDArray, // ndarray parameter access
    Vector,  // v[k]
    Matrix,  // m[r, c] (or m[r] giving a row vector)
    Tuple,   // x.shape[0] (always constant)
  };
  IndexKind indexKind = IndexKind::Unresolved;
  const sema::FieldInfo *field = nullptr;
};

class MemberExpr : public Expr {
public:
  MemberExpr(SourceRange r, ExprPtr b, std::string m, SourceRange mr)
      : Expr(Member, r), base(std::move(b)), member(std::move(m)),
        memberRange(mr) {}
  static bool classof(const Expr *e) { return e->kind == Member; }
  ExprPtr base;
  std::string member;
  SourceRange memberRange;
  // Set by Sema: `x.grad`/`x.dual` -> field; struct member -> memberIndex;
  // vector components / swizzle -> components.
  const sema::FieldInfo *field = nullptr;
  int memberIndex = -1;
  std::vector<unsigned> components;
};

class UnaryExpr : public Expr {
public:
  UnaryExpr(SourceRange r, UnaryOp o, ExprPtr x)
      : Expr(Unary, r), op(o), operand(std::move(x)) {}
  static bool classof(const Expr *e) { return e->kind == Unary; }
  UnaryOp op;
  ExprPtr operand;
  SourceRange opRange;
};

class BinaryExpr : public Expr {
public:
  BinaryExpr(SourceRange r, BinaryOp o, ExprPtr l, ExprPtr rr)
      : Expr(Binary, r), op(o), lhs(std::move(l)), rhs(std::move(rr)) {}
  static bool classof(const Expr *e) { return e->kind == Binary; }
  BinaryOp op;
  ExprPtr lhs, rhs;
  SourceRange opRange;
};

/// A comparison chain `a < b <= c` (Python semantics: `a < b and b <= c`,
/// each operand evaluated once).
class CompareExpr : public Expr {
public:
  CompareExpr(SourceRange r) : Expr(Compare, r) {}
  static bool classof(const Expr *e) { return e->kind == Compare; }
  std::vector<ExprPtr> operands; // n + 1 operands
  std::vector<CmpOp> ops;        // n operators
  std::vector<SourceRange> opRanges;
};

/// `x if c else y`.
class TernaryExpr : public Expr {
public:
  TernaryExpr(SourceRange r, ExprPtr c, ExprPtr t, ExprPtr f)
      : Expr(Ternary, r), cond(std::move(c)), trueValue(std::move(t)),
        falseValue(std::move(f)) {}
  static bool classof(const Expr *e) { return e->kind == Ternary; }
  ExprPtr cond, trueValue, falseValue;
};

/// `static(e)`: evaluated at compile time.
class StaticExpr : public Expr {
public:
  StaticExpr(SourceRange r, ExprPtr x) : Expr(Static, r), operand(std::move(x)) {}
  static bool classof(const Expr *e) { return e->kind == Static; }
  ExprPtr operand;
};

/// `cast<T>(e)`. Casts written `f32(e)` are calls that Sema resolves.
class CastExpr : public Expr {
public:
  CastExpr(SourceRange r, TypeExprPtr t, ExprPtr x)
      : Expr(Cast, r), target(std::move(t)), operand(std::move(x)) {}
  static bool classof(const Expr *e) { return e->kind == Cast; }
  TypeExprPtr target;
  ExprPtr operand;
};

/// `[a, b, c]`: a vector, or a matrix when the elements are lists.
class ListExpr : public Expr {
public:
  explicit ListExpr(SourceRange r) : Expr(List, r) {}
  static bool classof(const Expr *e) { return e->kind == List; }
  std::vector<ExprPtr> elements;
  /// Written `(a, b)`: with elements of different kinds it is a tuple (a
  /// func's several results), not a vector or matrix.
  bool paren = false;
};

class StructLitExpr : public Expr {
public:
  StructLitExpr(SourceRange r, std::string n, SourceRange nr)
      : Expr(StructLit, r), structName(std::move(n)), nameRange(nr) {}
  static bool classof(const Expr *e) { return e->kind == StructLit; }
  std::string structName;
  SourceRange nameRange;
  std::vector<Argument> members; // name: value
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Ident {
  std::string name;
  SourceRange range;
};

class Stmt {
public:
  enum Kind {
    Let, Var, If, While, For, Break, Continue, Return, StaticAssert, Assign,
    ExprStmt, Block,
  };
  Stmt(Kind k, SourceRange r) : kind(k), range(r) {}
  virtual ~Stmt();
  Kind getKind() const { return kind; }
  const Kind kind;
  SourceRange range;
};

class BlockStmt : public Stmt {
public:
  explicit BlockStmt(SourceRange r) : Stmt(Block, r) {}
  static bool classof(const Stmt *s) { return s->kind == Block; }
  std::vector<StmtPtr> body;
};
using BlockPtr = std::unique_ptr<BlockStmt>;

/// `let x = e;`, `let x: T = e;`, `let a, b, c = e;` (destructuring).
class LetStmt : public Stmt {
public:
  explicit LetStmt(SourceRange r) : Stmt(Let, r) {}
  static bool classof(const Stmt *s) { return s->kind == Let; }
  std::vector<Ident> names;
  TypeExprPtr declType; // optional
  ExprPtr init;
  /// `var a, b = e;`: a destructuring that declares mutable variables.
  bool isVar = false;
  std::vector<const sema::LocalVar *> decls; // set by Sema
};

/// `var x: T = e;`, `var x = e;`, `var x: T;` (zero-initialised).
class VarStmt : public Stmt {
public:
  explicit VarStmt(SourceRange r) : Stmt(Var, r) {}
  static bool classof(const Stmt *s) { return s->kind == Var; }
  Ident name;
  TypeExprPtr declType; // optional
  ExprPtr init;         // optional
  const sema::LocalVar *decl = nullptr; // set by Sema
};

class IfStmt : public Stmt {
public:
  explicit IfStmt(SourceRange r) : Stmt(If, r) {}
  static bool classof(const Stmt *s) { return s->kind == If; }
  ExprPtr cond;
  BlockPtr thenBody;
  StmtPtr elseBody; // BlockStmt, IfStmt or null
};

class WhileStmt : public Stmt {
public:
  explicit WhileStmt(SourceRange r) : Stmt(While, r) {}
  static bool classof(const Stmt *s) { return s->kind == While; }
  ExprPtr cond;
  BlockPtr body;
};

class ForStmt : public Stmt {
public:
  explicit ForStmt(SourceRange r) : Stmt(For, r) {}
  static bool classof(const Stmt *s) { return s->kind == For; }
  std::vector<Ident> vars;
  ExprPtr iterable;
  BlockPtr body;
  // Set by Sema.
  enum class ForKind : uint8_t {
    Unresolved,
    Range,   // range(a, b) / range(n): iterable is that CallExpr
    NDRange, // ndrange(...): one variable per argument
    Struct,  // over a field (`overField`) or SNode (`overSNode`)
    Grouped, // grouped(field | snode | ndrange): one ivecN variable
  };
  ForKind forKind = ForKind::Unresolved;
  bool isParallel = false; // an outermost loop of a kernel
  std::vector<const sema::LocalVar *> varDecls;
  const sema::FieldInfo *overField = nullptr;
  const sema::SNode *overSNode = nullptr;
  // loop_config(...) preceding the loop (0: not given).
  bool serialize = false;
  int64_t parallelize = 0;
  int64_t blockDim = 0;
  // block_local(...) right before the loop (Taichi's form; a struct-for).
  std::vector<const sema::FieldInfo *> blockLocal;
};

class BreakStmt : public Stmt {
public:
  explicit BreakStmt(SourceRange r) : Stmt(Break, r) {}
  static bool classof(const Stmt *s) { return s->kind == Break; }
};

class ContinueStmt : public Stmt {
public:
  explicit ContinueStmt(SourceRange r) : Stmt(Continue, r) {}
  static bool classof(const Stmt *s) { return s->kind == Continue; }
};

class ReturnStmt : public Stmt {
public:
  explicit ReturnStmt(SourceRange r) : Stmt(Return, r) {}
  static bool classof(const Stmt *s) { return s->kind == Return; }
  ExprPtr value; // optional
};

class StaticAssertStmt : public Stmt {
public:
  explicit StaticAssertStmt(SourceRange r) : Stmt(StaticAssert, r) {}
  static bool classof(const Stmt *s) { return s->kind == StaticAssert; }
  ExprPtr cond;
  std::string message; // may be empty
};

enum class AssignOp {
  Assign, Add, Sub, Mul, Div, FloorDiv, Mod, Pow, BitAnd, BitOr, BitXor, Shl,
  Shr, Min, Max,
};
const char *spelling(AssignOp op);

class AssignStmt : public Stmt {
public:
  explicit AssignStmt(SourceRange r) : Stmt(Assign, r) {}
  static bool classof(const Stmt *s) { return s->kind == Assign; }
  AssignOp op = AssignOp::Assign;
  SourceRange opRange;
  ExprPtr target;
  ExprPtr value;
  // Set by Sema.
  bool isAtomic = false;    // compound assignment to a global, atomic
  bool isReduction = false; // kernel-scope var reduced in a parallel loop
  /// `x.fill(v);`: a scalar value broadcast to every component of `x`.
  bool fill = false;
};

class ExprStmt : public Stmt {
public:
  ExprStmt(SourceRange r, ExprPtr e) : Stmt(Kind::ExprStmt, r), expr(std::move(e)) {}
  static bool classof(const Stmt *s) { return s->kind == Kind::ExprStmt; }
  ExprPtr expr;
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

class Decl {
public:
  enum Kind {
    Const, TypeAlias, Struct, Field, Layout, Function, Instance, StaticAssert,
  };
  Decl(Kind k, SourceRange r) : kind(k), range(r) {}
  virtual ~Decl();
  Kind getKind() const { return kind; }
  const Kind kind;
  SourceRange range;
};
using DeclPtr = std::unique_ptr<Decl>;

class ConstDecl : public Decl {
public:
  explicit ConstDecl(SourceRange r) : Decl(Const, r) {}
  static bool classof(const Decl *d) { return d->kind == Const; }
  Ident name;
  TypeExprPtr declType; // optional
  ExprPtr value;
};

class TypeAliasDecl : public Decl {
public:
  explicit TypeAliasDecl(SourceRange r) : Decl(TypeAlias, r) {}
  static bool classof(const Decl *d) { return d->kind == TypeAlias; }
  Ident name;
  TypeExprPtr aliased;
};

struct StructMember {
  Ident name;
  TypeExprPtr type;
};

class StructDecl : public Decl {
public:
  explicit StructDecl(SourceRange r) : Decl(Struct, r) {}
  static bool classof(const Decl *d) { return d->kind == Struct; }
  Ident name;
  std::vector<StructMember> members;
};

/// `field a, b: T[d0, d1] needs_grad;`
class FieldDecl : public Decl {
public:
  explicit FieldDecl(SourceRange r) : Decl(Field, r) {}
  static bool classof(const Decl *d) { return d->kind == Field; }
  std::vector<Ident> names;
  TypeExprPtr elemType;
  bool hasShape = false;     // `T[...]` written (possibly empty: 0-D)
  std::vector<ExprPtr> shape;
  SourceRange shapeRange;
  bool needsGrad = false;
  bool needsDual = false;
};

/// A statement of a `layout` block: `let name = expr;` or `expr;`.
struct LayoutStmt {
  Ident letName; // empty name for an expression statement
  ExprPtr expr;
  SourceRange range;
};

class LayoutDecl : public Decl {
public:
  explicit LayoutDecl(SourceRange r) : Decl(Layout, r) {}
  static bool classof(const Decl *d) { return d->kind == Layout; }
  std::vector<LayoutStmt> stmts;
};

struct Attribute {
  Ident name;
  std::vector<Argument> args;
  SourceRange range;
};

struct Param {
  Ident name;
  TypeExprPtr type;
};

class FunctionDecl : public Decl {
public:
  explicit FunctionDecl(SourceRange r) : Decl(Function, r) {}
  static bool classof(const Decl *d) { return d->kind == Function; }
  bool isKernel = false;
  std::vector<Attribute> attrs;
  Ident name;
  std::vector<Param> params;
  TypeExprPtr returnType; // optional
  BlockPtr body;
};

class InstanceDecl : public Decl {
public:
  explicit InstanceDecl(SourceRange r) : Decl(Instance, r) {}
  static bool classof(const Decl *d) { return d->kind == Instance; }
  Ident name;
  Ident kernel;
  std::vector<Argument> args;
};

class StaticAssertDecl : public Decl {
public:
  explicit StaticAssertDecl(SourceRange r) : Decl(StaticAssert, r) {}
  static bool classof(const Decl *d) { return d->kind == StaticAssert; }
  ExprPtr cond;
  std::string message;
};

/// A whole source file.
struct Program {
  Ident moduleName; // empty: the file's stem
  /// `module m(default_fp: f64);`: module-wide settings, checked by Sema.
  struct ModuleOption {
    Ident name;
    TypeExprPtr value;
  };
  std::vector<ModuleOption> moduleOptions;
  SourceRange moduleRange; // the whole `module ...;` declaration
  std::vector<DeclPtr> decls;
};

/// Prints the AST as an indented tree (`tic --emit=ast`).
void dump(const Program &program, std::ostream &os);
void dump(const Expr &expr, std::ostream &os);

/// Deep copies (used by template instantiation and static unrolling).
ExprPtr clone(const Expr &e);
StmtPtr clone(const Stmt &s);
TypeExprPtr clone(const TypeExpr &t);
Argument clone(const Argument &a);

/// Visits `e` and its sub-expressions (pre-order).
void forEachExpr(const Expr *e, const std::function<void(const Expr *)> &fn);
/// Visits `s` and every statement nested in it (pre-order); expressions are
/// not visited.
void forEachStmt(const Stmt *s, const std::function<void(const Stmt *)> &fn);

} // namespace ast
} // namespace tic

#endif // TIC_FRONTEND_AST_H

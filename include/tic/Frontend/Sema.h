//===- Sema.h - Semantic analysis of .tc programs ---------------*- C++ -*-===//
//
// analyze() checks a parsed ast::Program and produces a CheckedModule: the
// input a code generator consumes. Plain C++17 (no LLVM/MLIR).
//
// Contract with code generation
// -----------------------------
// * Every exported entry point (a non-template kernel, or an `instance`) is
//   one CheckedFunction in CheckedModule::kernels, in declaration order.
//   Kernel templates are not in `kernels`; only their instances are.
// * A CheckedFunction's `body` is a private, fully annotated clone of the
//   source body in which
//     - template parameters are substituted (their NameExprs resolve to the
//       bound field / SNode / constant),
//     - every `static(e)` is folded (StaticExpr::constValue set),
//     - `if static(c) {A} else {B}` is replaced by the chosen block (a
//       BlockStmt; an empty one when nothing is chosen),
//     - `for k in static(range(...)) {B}` is replaced by a BlockStmt holding
//       one BlockStmt copy of B per iteration, in which the NameExprs of `k`
//       carry the iteration's value in Expr::constValue (NameRef::CompileTime),
//     - `static_assert` statements and `loop_config(...)` statements are
//       removed (the config is attached to the following ForStmt),
//     - call arguments of `func` calls are reordered into parameter order.
// * Every Expr has Expr::type set (see Types.h). Every Expr whose value is
//   known at compile time has Expr::constValue set; a code generator may
//   emit it as a constant without looking at the expression's structure
//   (always the case for constants, `x.shape[0]`, `len(x.shape)`, folded
//   arithmetic on those, and static(...)).
// * NameExpr::ref says what a name denotes (local/param/loop variable,
//   field, SNode, constant, builtin, type, func). CallExpr::callKind says
//   what a call is (builtin, func call, cast, vector/matrix construction).
//   A func call points to the CheckedFunction instantiated for that call
//   site's template arguments (CheckedModule::funcs); funcs are inlined.
// * IndexExpr::indexKind: a global field access (`x[i, j]`, `x[]`), an
//   ndarray access, a vector component or a matrix element.
// * MemberExpr: `x.grad`/`x.dual` resolve to the companion FieldInfo
//   (MemberExpr::field); `.x .y .z .w` (and swizzles like `.xy`) set
//   MemberExpr::components; struct members set MemberExpr::memberIndex.
// * ForStmt: forKind, isParallel (outermost loops of a kernel), loop
//   variables, the field/SNode a struct-for iterates, loop_config values.
// * AssignStmt: isAtomic (compound assignment to a global that the spec
//   makes atomic), isReduction (kernel-scope var updated in a parallel
//   loop with += -= min= max=).
// * Quantized field elements read as their compute type: the Expr::type of
//   `x[i]` for a quant field is the compute type.
//
// analyze() returns null iff it reported at least one error.
//===----------------------------------------------------------------------===//

#ifndef TIC_FRONTEND_SEMA_H
#define TIC_FRONTEND_SEMA_H

#include "tic/Frontend/AST.h"
#include "tic/Frontend/Diagnostics.h"
#include "tic/Frontend/Types.h"

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tic {
namespace sema {

//===----------------------------------------------------------------------===//
// Compile-time values
//===----------------------------------------------------------------------===//

/// A compile-time value: constants, folded expressions, static(...) results,
/// template arguments. Integers are stored in 64 bits (two's complement; u64
/// values reinterpret the bits), already wrapped to `type`'s width.
struct ConstValue {
  enum class Kind : uint8_t { Int, Float, Bool, String, Aggregate, Type };
  Kind kind = Kind::Int;
  const Type *type = nullptr; // the value's type (for Kind::Type: the type)
  int64_t i = 0;
  double f = 0;
  bool b = false;
  /// Float only: the value is exact, folded in double from literals, integers
  /// and other exact constants, and not yet rounded to `type`. It is rounded
  /// once, where it is used (code generation, a typed constant, a cast).
  /// Taichi folds these expressions in Python, in double: `315 / 64 / pi`
  /// rounds once, not after every step.
  bool exact = false;
  std::string s;
  /// Aggregate: vector components, matrix elements row-major, tuple
  /// elements, struct members in order.
  std::vector<ConstValue> elems;

  static ConstValue makeInt(int64_t v, const Type *t);
  static ConstValue makeFloat(double v, const Type *t);
  static ConstValue makeBool(bool v, const Type *t);
  static ConstValue makeString(std::string v, const Type *t);
  static ConstValue makeAggregate(std::vector<ConstValue> es, const Type *t);
  static ConstValue makeType(const Type *t);

  bool isInt() const { return kind == Kind::Int; }
  bool isFloat() const { return kind == Kind::Float; }
  /// An exact float, or an aggregate of exact floats (see `exact`).
  bool isExactFloat() const;
  /// Numeric value as double / int64 (bool -> 0/1, float truncated).
  double asDouble() const;
  int64_t asInt() const;
  /// Source-like spelling: `256`, `0.00390625`, `true`, `[1, 2]`, `"s"`.
  std::string str() const;
  bool operator==(const ConstValue &o) const;
};

//===----------------------------------------------------------------------===//
// Builtins (spec section 5)
//===----------------------------------------------------------------------===//

// Declared opaquely in AST.h with the same underlying type.
enum class Builtin : uint16_t {
  // math (scalars and elementwise on vectors/matrices)
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan2,
  Tanh,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Pow,
  Abs,
  Floor,
  Ceil,
  Round,
  Min,
  Max,
  Clamp,
  Select,
  Random,
  // linear algebra
  Dot,
  Cross,
  Norm,
  NormSqr,
  Normalized,
  OuterProduct,
  Transpose,
  Determinant,
  Inverse,
  Trace,
  Svd,
  PolarDecompose,
  SymEig,
  // atomics: first argument is a global access or a local var; return old
  AtomicAdd,
  AtomicSub,
  AtomicMin,
  AtomicMax,
  AtomicAnd,
  AtomicOr,
  AtomicXor,
  // sparse
  Activate,
  Deactivate,
  IsActive,
  Append,
  Length,
  DeactivateCell,
  RescaleIndex,
  // hints / io
  BlockLocal,
  AssumeInRange,
  LoopConfig,
  BitVectorize,
  Print,
  Assert,
  // iterables and metadata
  Range,
  NDRange,
  Grouped,
  Len,
  // added later (keep builtinName in sync)
  NormInv,
  Zero,
  Identity,
  Sum,
  Any,
  All,
  LastBuiltin = All,
};
const char *builtinName(Builtin b);

//===----------------------------------------------------------------------===//
// Declarations of the checked module
//===----------------------------------------------------------------------===//

struct FieldInfo;
struct SNode;
struct CheckedFunction;

/// `const NAME[: T] = e;` after folding and -D overrides.
struct ConstantInfo {
  std::string name;
  const Type *type = nullptr; // scalar (or vector/matrix for list constants)
  ConstValue value;
  bool overridden = false;    // set from -D
  std::string overrideText;   // the -D text
  SourceRange range;
};

/// Field indices are i32: an axis' extent (the product of the shapes along
/// it) is at most 2^31 - 1. Sizes, strides and offsets are 64-bit.
constexpr int64_t kMaxAxisExtent = 2147483647;
/// The largest layout (all fields of a module, in bytes): 2^47, x86-64's
/// user address space. Larger layouts are a compile error at the shape.
constexpr int64_t kMaxLayoutBytes = int64_t(1) << 47;

/// The largest `loop_config(block_dim:)`: the most threads of a CUDA block
/// (the device code's per-block reductions keep one slot per warp of it).
constexpr int64_t kMaxBlockDim = 1024;

/// Index axes: 0 = i, 1 = j, 2 = k, 3 = l.
using Axis = unsigned;
constexpr unsigned kMaxAxes = 4;
/// "i", "j", ...; "ij" for a list.
std::string axisName(Axis a);

/// A node of the layout tree.
struct SNode {
  enum class Kind {
    Root, Dense, Bitmasked, Pointer, Hash, Dynamic, BitStruct, BitArray,
  };
  Kind kind = Kind::Root;
  unsigned id = 0;                 // preorder index, root = 0
  SNode *parent = nullptr;
  std::vector<std::unique_ptr<SNode>> children; // creation order
  /// Axes this node subdivides and the shape along each (parallel vectors).
  /// Empty for Root and BitStruct. Dynamic: one axis, shape = max_len.
  std::vector<Axis> axes;
  std::vector<int64_t> shape;
  int64_t chunkSize = 0;           // Dynamic: `chunk:` (default: max_len)
  unsigned bits = 0;               // BitStruct/BitArray word width
  bool sharedExponent = false;     // BitStruct `shared_exponent: true`
  std::vector<FieldInfo *> places; // `.place(...)` fields, in order
  std::string letName;             // `let NAME = ...` in the layout, or ""
  bool implicit = false;           // created for `field x: T[d0, ...]`
  SourceRange range;
  // Derived (root-to-node): the index axes of a cell of this node in
  // ascending order and the total extent along each (product of shapes).
  std::vector<Axis> indexAxes;
  std::vector<int64_t> extents;
  bool underHash = false;          // this node or an ancestor is Hash
  /// Per index axis: unbounded (the first node on the path that splits it
  /// is a hash); the others have their extent even below a hash.
  std::vector<bool> unboundedAxes;

  static const char *kindName(Kind k) { // "dense", "bit_struct", ...
    switch (k) {
    case Kind::Root:
      return "root";
    case Kind::Dense:
      return "dense";
    case Kind::Bitmasked:
      return "bitmasked";
    case Kind::Pointer:
      return "pointer";
    case Kind::Hash:
      return "hash";
    case Kind::Dynamic:
      return "dynamic";
    case Kind::BitStruct:
      return "bit_struct";
    case Kind::BitArray:
      return "bit_array";
    }
    return "?";
  }
  bool isSparse() const {
    return kind == Kind::Pointer || kind == Kind::Bitmasked ||
           kind == Kind::Hash || kind == Kind::Dynamic;
  }
  unsigned ndim() const { return indexAxes.size(); }
};

/// A global field. Companions `x.grad` / `x.dual` are ordinary FieldInfos
/// named "x.grad" / "x.dual" with `primal` pointing back.
struct FieldInfo {
  std::string name;
  unsigned id = 0;                   // index in CheckedModule::fields
  const Type *elemType = nullptr;    // as declared (may be quantized)
  bool needsGrad = false, needsDual = false;
  FieldInfo *grad = nullptr, *dual = nullptr;
  FieldInfo *primal = nullptr;       // for companions
  SNode *place = nullptr;            // the SNode whose `places` hold it
  /// Index axes in ascending order (x[i, j] indexes axes[0], axes[1]) and
  /// the extent per axis (product of the shapes along the path).
  std::vector<Axis> axes;
  std::vector<int64_t> shape;
  bool is0D = false;                 // `T[]` or placed directly in root
  bool unbounded = false;            // below a `hash`: no shape
  std::vector<bool> unboundedAxes;   // per axis (SNode::unboundedAxes)
  bool shorthand = false;            // `T[d0, ...]` form
  bool sharedExponent = false;       // placed with shared_exponent: true
  /// Bit offset inside its bit_struct word / bit_array element width.
  unsigned bitOffset = 0;
  SourceRange range;
  unsigned ndim() const { return axes.size(); }
};

/// A local value of a checked body: `let`, `var`, parameter or loop variable.
struct LocalVar {
  enum class Kind { Let, Var, Param, LoopVar };
  Kind kind = Kind::Let;
  std::string name;
  const Type *type = nullptr;
  bool isKernelScope = false; // declared directly in a kernel's body
  unsigned id = 0;            // unique within its CheckedFunction
  SourceRange range;
};

/// A template argument (kernel `instance`, func call with template params).
struct TemplateArg {
  enum class Kind { Field, SNode, Value };
  Kind kind = Kind::Value;
  const FieldInfo *field = nullptr;
  const SNode *snode = nullptr;
  ConstValue value;
  std::string str() const;
};

/// A kernel, an instance, or an instantiated func.
struct CheckedFunction {
  struct Param {
    std::string name;
    const Type *type = nullptr;    // TemplateType for template params
    bool isTemplate = false;
    TemplateArg bound;             // template params: the bound argument
    const LocalVar *var = nullptr; // runtime params
    SourceRange range;
  };
  std::string name;        // source name: kernel / func / instance name
  /// Kernels: the name used for the C symbol (MODULE_<exportName>); the
  /// instance name for instances. Funcs: a unique spelling like `f<3, x>`.
  std::string exportName;
  bool isKernel = false;
  bool isInstance = false;
  std::string templateName; // instances: the kernel template's name
  SourceRange nameRange;    // instances: the instance's name (else decl's)
  std::vector<TemplateArg> templateArgs;
  const ast::FunctionDecl *decl = nullptr; // the source declaration
  std::vector<Param> params;               // in declaration order
  const Type *returnType = nullptr;        // VoidType when none
  bool noGrad = false;                     // @no_grad
  std::string gradOf;                      // @grad_of(k): k's name
  const CheckedFunction *gradOfKernel = nullptr;
  /// Kernels: gets a generated reverse-mode adjoint (MODULE_<k>_grad): it
  /// reads or writes a needs_grad field, directly or in a func it calls,
  /// and is neither @no_grad nor a @grad_of custom gradient.
  bool differentiable = false;
  /// Kernels: has an adjoint, generated or a @grad_of kernel's.
  bool hasAdjoint = false;
  /// Kernels: gets a forward-mode version (MODULE_<k>_fwd): it reads or
  /// writes a needs_dual field and is neither @no_grad nor a @grad_of.
  bool forwardDifferentiable = false;
  ast::BlockPtr body;                      // checked, annotated (see top)
  std::vector<std::unique_ptr<LocalVar>> locals; // every LocalVar of body
  /// Runtime (non-template) parameters in order: what the C entry takes.
  std::vector<const Param *> runtimeParams() const;
};

struct CheckedModule {
  std::string name;                    // `module` name or the file stem
  std::unique_ptr<TypeContext> types;
  std::vector<std::unique_ptr<ConstantInfo>> constants; // declaration order
  std::vector<const StructType *> structs;               // declaration order
  /// Fields in declaration order; a primal's grad then dual follow it.
  std::vector<std::unique_ptr<FieldInfo>> fields;
  std::unique_ptr<SNode> root;
  std::vector<SNode *> snodes;         // preorder; snodes[0] == root
  std::vector<std::unique_ptr<CheckedFunction>> kernels; // exported
  std::vector<std::unique_ptr<CheckedFunction>> funcs;   // instantiated
  std::string defaultFloat = "f32";

  const FieldInfo *findField(const std::string &n) const;
  const ConstantInfo *findConstant(const std::string &n) const;
  const CheckedFunction *findKernel(const std::string &n) const;
  /// Readable dump (`tic --emit=sema`).
  void dump(std::ostream &os) const;

  /// The unique symbol of every SNode but the root, as the generated code
  /// and the C interface name it: the layout's `let` name when no field and
  /// no earlier SNode has it (nor "root"), else KIND<id> (underscores
  /// appended until free).
  /// (Inline: the C interface generator uses it without linking the front
  /// end.)
  std::map<const SNode *, std::string> snodeSymbols() const {
    std::map<const SNode *, std::string> names;
    std::set<std::string> used{"root"};
    for (const auto &f : fields)
      used.insert(f->name);
    for (const SNode *n : snodes) {
      if (!n || n == root.get())
        continue;
      std::string name = n->letName;
      if (name.empty() || used.count(name))
        name = std::string(SNode::kindName(n->kind)) + std::to_string(n->id);
      while (used.count(name))
        name += "_";
      used.insert(name);
      names[n] = name;
    }
    return names;
  }

  CheckedModule();
  ~CheckedModule();
};

struct SemaOptions {
  std::string moduleStem = "module";  // used when there is no `module` decl
  /// -D overrides in command-line order: name -> value text.
  std::vector<std::pair<std::string, std::string>> defines;
  /// "f32", "f64" or "f16"; empty: the module's `default_fp` option, else
  /// f32. A value given here (`--default-fp`) overrides the module's.
  std::string defaultFloat;
  bool debug = false;                 // -g
  /// Check the names of the C interface (SemaNames.cpp): off for stages
  /// that never produce it (--emit=ast, sema, mlir).
  bool checkCNames = true;
  unsigned maxRecursionDepth = 64;    // func instantiation depth
  unsigned maxUnroll = 4096;          // iterations of one static for
  /// Statements all static for loops of a module may unroll to (nested loops
  /// multiply): bounds memory and compile time (docs/language.md).
  unsigned maxUnrolledStatements = 1 << 16;
};

/// Checks `program` (annotating the original AST's top-level expressions as
/// a side effect) and builds the checked module. Returns null iff errors
/// were reported to `diags`.
std::unique_ptr<CheckedModule> analyze(ast::Program &program,
                                       DiagnosticEngine &diags,
                                       const SemaOptions &options);

} // namespace sema
} // namespace tic

#endif // TIC_FRONTEND_SEMA_H

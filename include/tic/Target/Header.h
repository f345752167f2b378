//===- Header.h - The generated C interface of a module ---------*- C++ -*-===//
//
// Spec section 9: for module M, `tic` writes M.h (a C99/C++ header), M.json
// (the same description for generic tools) and defines every declared
// function in the object file.
//
// The three outputs come from one description, ModuleInterface:
//
//   sema::CheckedModule --describeModule--> ModuleInterface
//        ModuleInterface --emitHeader-----> M.h
//        ModuleInterface --emitModuleJSON-> M.json (also MODULE_metadata())
//        ModuleInterface --attachInterface (Interface.h)--> MLIR module
//          attribute `tic.interface` (the JSON text), read by the passes
//          that generate the entry points in the object.
//
// So the header and the object can never disagree about names, parameter
// order or types. This file needs no MLIR (only LLVM Support for JSON).
//===----------------------------------------------------------------------===//

#ifndef TIC_TARGET_HEADER_H
#define TIC_TARGET_HEADER_H

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tic {
namespace sema {
struct CheckedModule;
} // namespace sema

namespace iface {

/// Scalar element types of the C interface, spelled as in .tc ("i32",
/// "f32", "bool", ...). C mapping: iN/uN -> intN_t/uintN_t, f32 -> float,
/// f64 -> double, bool -> uint8_t (0 or 1), f16 -> uint16_t (binary16 bits).
const char *cTypeOf(const std::string &dtype);
/// "TC_DTYPE_F32" for "f32" ...
const char *tcDTypeOf(const std::string &dtype);
/// Enumerator value of tc_dtype for `dtype` (TC_DTYPE_I8 = 0 ...), -1 if none.
int tcDTypeValue(const std::string &dtype);

/// The shape of a value that crosses the C boundary.
struct ValueDesc {
  enum class Kind { Scalar, Vector, Matrix, NDArray, Struct };
  Kind kind = Kind::Scalar;
  std::string dtype;        ///< component (ndarray: element component) type
  unsigned rows = 1, cols = 1; ///< vector: rows = N; matrix: R x C
  unsigned ndim = 0;        ///< ndarray: the .tc rank (D of ndarray<T, D>)
  std::string typeText;     ///< .tc spelling, for comments ("vec<f32, 3>")
  /// Number of scalar components (1, N, R*C; ndarray: 1).
  unsigned components() const {
    return kind == Kind::Vector ? rows : kind == Kind::Matrix ? rows * cols : 1;
  }
  /// ndarray: extra trailing axes of the tc_ndarray for vector/matrix
  /// elements (0, 1 or 2); total rank = ndim + elementAxes().
  unsigned elementAxes() const;
};

struct ParamDesc {
  std::string name;  ///< source name
  std::string cName; ///< the C parameter name (keywords get a trailing _)
  ValueDesc value;
};

struct KernelDesc {
  std::string name;       ///< source name (kernel or instance)
  std::string symbol;     ///< name of the tc.kernel in MLIR (exportName)
  std::string cFunction;  ///< M_<exportName>
  bool isInstance = false;
  std::string templateText; ///< instances: "k(x, 3)"
  std::vector<ParamDesc> params; ///< runtime parameters, in order
  bool hasResult = false;
  ValueDesc result;
  bool hasGrad = false; ///< M_<k>_grad: the reverse-mode adjoint
  bool hasFwd = false;  ///< M_<k>_fwd: the forward-mode version
};

struct FieldDesc {
  std::string name;     ///< source name: "u", "u.grad"
  std::string cName;    ///< "u", "u_grad"
  std::string place;    ///< snode.place symbol in MLIR (== name)
  unsigned id = 0;      ///< enumerator value in M_field
  std::string enumName; ///< M_FIELD_U
  ValueDesc value;      ///< element (quantized: its compute type)
  std::string storageText; ///< declared element type (quant spelled out)
  std::vector<std::string> axes;  ///< "i", "j", ... per index
  std::vector<int64_t> shape;     ///< extents (empty for 0-D / unbounded)
  bool unbounded = false;         ///< below a hash: no shape, no bulk access
  bool needsGrad = false, needsDual = false;
  std::string primal;   ///< companions: the primal's name
  std::string grad;     ///< primals with needs_grad: "u.grad"
  std::string snodePath; ///< "root.dense(ij, [256, 256])"
  unsigned ndim() const { return axes.size(); }
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  /// Scalars in a bulk read/write: elements * components.
  int64_t numScalars() const { return numElements() * value.components(); }
  bool hasAccessors() const { return value.kind != ValueDesc::Kind::Struct; }
  bool hasBulk() const { return hasAccessors() && !unbounded; }
  /// Quantized fields: the bits of a container word (8, 16, 32, 64; 0 for
  /// fields of plain bytes) and the index space of the words (the field's
  /// shape, the bit_array axis divided by its lanes): MODULE_f_words_read /
  /// _words_write copy the raw words.
  unsigned wordBits = 0;
  std::vector<int64_t> wordShape;
  int64_t numWords() const {
    int64_t n = 1;
    for (int64_t s : wordShape)
      n *= s;
    return n;
  }
  bool hasWords() const { return wordBits != 0 && hasBulk(); }
};

struct ConstantDesc {
  std::string name;
  std::string typeText;  ///< "i32", "f32", "vec<f32, 2>"
  std::string dtype;     ///< scalar (or component) type
  std::string valueText; ///< source-like spelling
  std::string cValue;    ///< C expression; empty when not representable
  bool overridden = false;
  std::string overrideText;
};

/// A sparse SNode named with `let` in the layout: it gets
/// MODULE_<name>_deactivate_all. `symbol` is its name in the IR
/// (CheckedModule::snodeSymbols: the let name unless a field has it).
struct SparseNodeDesc {
  std::string name;
  std::string symbol;
};

struct ModuleInterface {
  std::string name;       ///< module name: the C prefix
  std::string upperName;  ///< macro prefix
  std::string source;     ///< input file name as given (for the banner)
  std::string ticVersion; ///< "0.1.0"
  std::string defaultFloat = "f32";
  std::vector<ConstantDesc> constants;
  std::vector<FieldDesc> fields;
  std::vector<KernelDesc> kernels;
  std::vector<std::string> layoutLines; ///< the SNode tree, one node a line
  bool hasSparse = false; ///< a pointer/bitmasked/hash/dynamic SNode exists
  std::vector<SparseNodeDesc> sparseNodes; ///< the let-named sparse ones
  /// Problems found while describing (C name clashes, ...). A module with
  /// errors must not be compiled.
  std::vector<std::string> errors;

  const FieldDesc *findField(const std::string &name) const;
};

/// Builds the description of `module`. `sourceName` is only used in the
/// header's banner comment; `ticVersion` defaults to the build's version.
ModuleInterface describeModule(const sema::CheckedModule &module,
                               const std::string &sourceName = "",
                               const std::string &ticVersion = "");

/// Writes the header. Deterministic: the same interface gives the same bytes.
void emitHeader(const ModuleInterface &m, std::ostream &os);
/// Writes the JSON description (also returned by MODULE_metadata()).
void emitModuleJSON(const ModuleInterface &m, std::ostream &os);
std::string moduleJSON(const ModuleInterface &m);
/// Reads what emitModuleJSON wrote. False (with `error`) on malformed input.
bool parseModuleJSON(const std::string &text, ModuleInterface &m,
                     std::string &error);

/// Sets name, upperName and checks C identifiers of every entry point for
/// clashes (appends to m.errors). Called by describeModule; call it after
/// building a ModuleInterface by hand.
void finalizeNames(ModuleInterface &m);

} // namespace iface

/// Convenience entry points for the driver (describeModule + emit).
void emitHeader(const sema::CheckedModule &module, std::ostream &os);
void emitModuleJSON(const sema::CheckedModule &module, std::ostream &os);

} // namespace tic

#endif // TIC_TARGET_HEADER_H

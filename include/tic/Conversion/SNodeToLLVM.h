//===- SNodeToLLVM.h - snode -> LLVM conversion patterns --------*- C++ -*-===//
//
// The snode micro-access and memory ops lowered with the recorded layout
// (SNodeLayout): the same patterns on every target. A node kind supplies its
// case of snode.lookup / is_active / deactivate; a place stored in bits (a
// bit_struct or bit_array) its memory ops.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_CONVERSION_SNODETOLLVM_H
#define TIC_CONVERSION_SNODETOLLVM_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace tic {
namespace snode {
class SNodeLayout;
} // namespace snode

/// Alias scopes of field accesses. Different fields never share bytes (an
/// out-of-range index is undefined behaviour), so every access is tagged
/// with its field's scope and declared not to alias the accesses of the
/// other fields used in the same function. LLVM then needs no run-time
/// overlap checks before vectorizing a loop that reads one field and writes
/// another (fields share the root buffer, so without the tags their
/// pointers are indistinguishable). The lists are per function: module-wide
/// lists made every access name every other field, quadratic in the number
/// of fields. The quantized fields of one container word (bit_struct,
/// bit_array) share its scope: a read-modify-write of the word for one
/// field reads and writes the others' bits too.
class FieldAliasTags {
public:
  /// Collects the fields each function of `module` accesses.
  FieldAliasTags(mlir::ModuleOp module, const snode::SNodeLayout &layout);
  /// Tags `mem`, the lowering of an access to `field` from `access`.
  void tag(mlir::Operation *mem, mlir::Operation *access,
           llvm::StringRef field);
  /// Tags `mem`, which may touch any of `fields` (snode.atomic_add_fields).
  void tag(mlir::Operation *mem, mlir::Operation *access,
           llvm::ArrayRef<llvm::StringRef> fields);

private:
  mlir::LLVM::AliasScopeAttr scope(llvm::StringRef key);
  /// The scope's name of `field`: the field, or its container word's.
  llvm::StringRef key(llvm::StringRef field);
  mlir::MLIRContext *ctx;
  const snode::SNodeLayout &layout;
  llvm::StringMap<std::string> wordKeys;
  mlir::LLVM::AliasScopeDomainAttr domain;
  llvm::DenseMap<mlir::Operation *, llvm::SetVector<llvm::StringRef>> fieldsOf;
  llvm::StringMap<mlir::LLVM::AliasScopeAttr> scopes;
  llvm::DenseMap<std::pair<mlir::Operation *, llvm::StringRef>, mlir::ArrayAttr>
      noAliasLists;
};

/// The zero cell every non-activating lookup of an inactive pointer cell
/// returns (reads see 0, nested nodes read as inactive), and the cell an
/// activating lookup returns when the pool is used up (the launch fails;
/// its writes go nowhere): internal zero-initialized globals, as large as
/// the largest pointer cell, that convert-snode-to-llvm adds.
constexpr llvm::StringLiteral kAmbientCell = "__tic_ambient_cell";
constexpr llvm::StringLiteral kSinkCell = "__tic_sink_cell";

/// get_child, lookup, place_ptr, index_extract, linearize, is_active and
/// the memory ops (load / store / atomic_rmw, tagged through `tags`), from
/// `layout`.
void populateSNodeToLLVMPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 const snode::SNodeLayout &layout,
                                 FieldAliasTags &tags);

} // namespace tic

#endif

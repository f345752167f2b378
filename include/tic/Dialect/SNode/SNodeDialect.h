//===- SNodeDialect.h - the snode dialect -----------------------*- C++ -*-===//
#ifndef TIC_DIALECT_SNODE_SNODEDIALECT_H
#define TIC_DIALECT_SNODE_SNODEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// SNodeKind (only Dense is lowered today; the others parse, verify and are
// reported as "not supported yet" by the lowerings) and AtomicKind.
#include "tic/Dialect/SNode/SNodeEnums.h.inc"

namespace tic::snode {
/// Which cells exist: activation state, pointers, hash tables, lengths.
struct StructureResource
    : mlir::SideEffects::Resource::Base<StructureResource> {
  llvm::StringRef getName() final { return "snode::Structure"; }
};
/// The values stored in placed fields.
struct FieldDataResource
    : mlir::SideEffects::Resource::Base<FieldDataResource> {
  llvm::StringRef getName() final { return "snode::FieldData"; }
};
/// Nodes whose cells are all active, always: a lookup is address
/// arithmetic with no memory effect.
inline bool isAlwaysActive(SNodeKind kind) {
  return kind == SNodeKind::Dense || kind == SNodeKind::BitStruct ||
         kind == SNodeKind::BitArray;
}
} // namespace tic::snode

#include "tic/Dialect/SNode/SNodeDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tic/Dialect/SNode/SNodeTypes.h.inc"

#include "tic/Dialect/SNode/SNodeInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tic/Dialect/SNode/SNodeOps.h.inc"

namespace tic::snode {
/// The module (closest ancestor ModuleOp, or the top-level op) of `from`.
mlir::Operation *getSymbolScope(mlir::Operation *from);
/// Tree `name` among the snode.tree ops of the module of `from`.
TreeOp lookupTree(mlir::Operation *from, llvm::StringRef name,
                  mlir::SymbolTableCollection *tables = nullptr);
/// Container op (SNodeContainerOpInterface) named `name` in any tree.
///
/// With `tables` (from verifySymbolUses) the lookup is O(1): it uses the
/// name index that snode.tree's verifier builds for the module in the same
/// verification run (nested ops are verified before the module's symbol
/// uses), checked against `tables` to be current. Without, or when there is
/// no current index, it walks the trees.
SNodeContainerOpInterface
lookupNode(mlir::Operation *from, llvm::StringRef name,
           mlir::SymbolTableCollection *tables = nullptr);
/// Place op named `name` in any tree (see lookupNode).
PlaceOp lookupPlace(mlir::Operation *from, llvm::StringRef name,
                    mlir::SymbolTableCollection *tables = nullptr);
/// Containers from the tree down to `nodeOrPlace` (inclusive when it is a
/// container; a place's own path ends at its parent container).
llvm::SmallVector<SNodeContainerOpInterface> getContainerPath(mlir::Operation *nodeOrPlace);
/// Number of indices of the index space of a place or container: one more
/// than the largest axis on its path (0 for a place directly under a tree).
unsigned getIndexRank(mlir::Operation *nodeOrPlace);
/// True for scalar types that may be field components.
bool isComponentType(mlir::Type type);
/// Size in bytes of a scalar component type (i1 takes one byte).
int64_t getComponentSize(mlir::Type type);
} // namespace tic::snode

#endif

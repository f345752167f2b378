//===- TCDialect.h - the tc dialect -----------------------------*- C++ -*-===//
#ifndef TIC_DIALECT_TC_TCDIALECT_H
#define TIC_DIALECT_TC_TCDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tic/Dialect/SNode/SNodeDialect.h"

#include "tic/Dialect/TC/TCEnums.h.inc"

namespace tic::tc {
/// The elements of ndarrays (host or device buffers passed to a kernel):
/// never the memory of fields or locals.
struct NDArrayDataResource
    : mlir::SideEffects::Resource::Base<NDArrayDataResource> {
  llvm::StringRef getName() final { return "tc::NDArrayData"; }
};
} // namespace tic::tc

#include "tic/Dialect/TC/TCDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tic/Dialect/TC/TCTypes.h.inc"

#define GET_OP_CLASSES
#include "tic/Dialect/TC/TCOps.h.inc"

namespace tic::tc {
/// On tc.load / store / atomic_rmw: `tc.active = @node` says the cells of
/// the accessed element's path down to container @node are active (the
/// access is at a sparse struct-for's own indices: the loop checked).
/// tic-lower-struct-for sets it, tic-lower-field-access uses it.
constexpr llvm::StringLiteral kKnownActiveAttrName = "tc.active";
/// On a read in a sparse struct-for at the loop's indices plus constant
/// offsets: the loop's node, whose own (active) cell the read may share
/// (tic-lower-field-access tests at run time whether it is in that cell).
constexpr llvm::StringLiteral kNeighbourAttrName = "tc.near";
/// On a tc.store to a quantized field: no other thread writes its container
/// word while the kernel runs (tic-demote-bit-stores), so it needs no
/// compare-and-swap loop.
constexpr llvm::StringLiteral kExclusiveAttrName = "tc.exclusive";
/// On a tc.load / tc.store of a field in a bit_array: the access is to the
/// whole container word of the element (as an i32), not to its lane
/// (tic-bit-vectorize).
constexpr llvm::StringLiteral kWholeWordAttrName = "tc.word";
/// On a tc.struct_for: its `block_local` hint was derived by the compiler
/// (an adjoint's, from its primal's), not written by the user:
/// tic-block-local follows it where it can and does not warn where not.
constexpr llvm::StringLiteral kDerivedHintAttrName = "tc.derived_hint";
/// `v` as `x + k` with a constant k (arith.addi / arith.subi of a
/// constant); `{v, 0}` otherwise.
std::pair<mlir::Value, int64_t> splitConstantOffset(mlir::Value v);
/// The first tc.scratch slot no op in `module` uses (the passes that add
/// scratch memory number their slots from it).
int32_t getNextScratchSlot(mlir::Operation *module);
} // namespace tic::tc

#endif

//===- LowerFieldAccess.cpp - tic-lower-field-access ----------------------===//
//
// tc.load / tc.store / tc.atomic_rmw -> snode micro-access chains + llvm
// memory operations on the component address.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include "tic/Conversion/LLVMUtils.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace tic {
#define GEN_PASS_DEF_LOWERFIELDACCESS
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// Builds root_ptr -> (get_child, [index_extract], [linearize], lookup)* ->
/// place_ptr for one access.
static Value buildComponentAddress(OpBuilder &b, Location loc,
                                   const snode::PlaceLayout &pl,
                                   ValueRange indices, int64_t comp) {
  MLIRContext *ctx = b.getContext();
  Type ptrTy = snode::PtrType::get(ctx);
  Value cur = snode::RootPtrOp::create(b, loc, ptrTy, pl.tree->name);
  for (const snode::LevelAccess &lv : pl.levels) {
    const snode::NodeLayout *n = lv.node;
    Value container = snode::GetChildOp::create(b, loc, ptrTy, cur, n->name);
    SmallVector<Value> levelIdx;
    for (auto [k, axis] : llvm::enumerate(n->axes)) {
      Value i = indices[axis];
      if (lv.below[k] == 1 && !n->needsMod[k])
        levelIdx.push_back(i);
      else
        levelIdx.push_back(snode::IndexExtractOp::create(
            b, loc, i.getType(), i, n->name, axis, lv.below[k]));
    }
    // Indices are i32 (every axis extent fits), but a node's cell count may
    // not: linearize in i64 where it exceeds 2^31 - 1.
    if (levelIdx.size() > 1 && n->numCells > INT32_MAX &&
        !levelIdx[0].getType().isInteger(64))
      for (Value &v : levelIdx)
        v = arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
    Value linear = levelIdx.size() == 1
                       ? levelIdx[0]
                       : Value(snode::LinearizeOp::create(
                             b, loc, levelIdx[0].getType(), n->name, levelIdx));
    cur = snode::LookupOp::create(b, loc, ptrTy, container, n->name, linear);
  }
  return snode::PlacePtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx), cur,
                                   pl.name, comp);
}

struct LowerFieldAccessPass
    : tic::impl::LowerFieldAccessBase<LowerFieldAccessPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    SmallVector<Operation *> accesses;
    module.walk([&](Operation *op) {
      if (isa<tc::LoadOp, tc::StoreOp, tc::AtomicRMWOp>(op)) accesses.push_back(op);
    });
    // Different fields never share bytes (an out-of-range index is undefined
    // behaviour), so every access is tagged with its field's alias scope and
    // declared not to alias the other fields' accesses. LLVM then needs no
    // run-time overlap checks before vectorizing a loop that reads one field
    // and writes another (fields share the root buffer, so without the tags
    // their pointers are indistinguishable).
    llvm::MapVector<StringRef, LLVM::AliasScopeAttr> scopes;
    {
      auto domain = LLVM::AliasScopeDomainAttr::get(
          module.getContext(), StringAttr::get(module.getContext(), "tic.fields"));
      for (Operation *op : accesses) {
        StringRef f = op->getAttrOfType<FlatSymbolRefAttr>("field").getValue();
        if (!scopes.count(f))
          scopes[f] = LLVM::AliasScopeAttr::get(
              domain, StringAttr::get(module.getContext(), f));
      }
    }
    // Only the fields a kernel accesses need telling apart inside it: the
    // noalias lists are per kernel (module-wide lists made every access
    // name every other field, quadratic in the number of fields).
    DenseMap<Operation *, llvm::SetVector<StringRef>> fieldsOf;
    for (Operation *op : accesses)
      fieldsOf[op->getParentOfType<tc::KernelOp>()].insert(
          op->getAttrOfType<FlatSymbolRefAttr>("field").getValue());
    DenseMap<std::pair<Operation *, StringRef>, ArrayAttr> noAliasLists;
    auto tag = [&](Operation *mem, Operation *kernel, StringRef field) {
      const llvm::SetVector<StringRef> &used = fieldsOf[kernel];
      if (used.size() < 2)
        return; // one field: nothing to tell apart
      ArrayAttr &others = noAliasLists[{kernel, field}];
      if (!others) {
        SmallVector<Attribute> list;
        for (StringRef name : used)
          if (name != field)
            list.push_back(scopes[name]);
        others = ArrayAttr::get(mem->getContext(), list);
      }
      auto aa = cast<LLVM::AliasAnalysisOpInterface>(mem);
      aa.setAliasScopes(ArrayAttr::get(mem->getContext(), {scopes[field]}));
      aa.setNoAliasScopes(others);
    };
    for (Operation *op : accesses) {
      StringRef field = op->getAttrOfType<FlatSymbolRefAttr>("field").getValue();
      const snode::PlaceLayout *pl = layout.lookupPlace(field);
      if (!pl) {
        op->emitOpError("references unknown field '") << field << "'";
        return signalPassFailure();
      }
      if (!pl->supported) {
        for (const auto &lv : pl->levels)
          if (lv.node->kind != snode::SNodeKind::Dense) {
            op->emitOpError("access to field '")
                << field << "' under a '" << snode::stringifySNodeKind(lv.node->kind)
                << "' SNode is not supported yet";
            break;
          }
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      Operation *kernel = op->getParentOfType<tc::KernelOp>();
      if (auto load = dyn_cast<tc::LoadOp>(op)) {
        Value addr = buildComponentAddress(b, loc, *pl, load.getIndices(), load.getComp());
        unsigned align = snode::getComponentSize(load.getType());
        auto v = LLVM::LoadOp::create(b, loc, load.getType(), addr, align);
        tag(v, kernel, field);
        load.replaceAllUsesWith(v.getResult());
      } else if (auto store = dyn_cast<tc::StoreOp>(op)) {
        Value addr = buildComponentAddress(b, loc, *pl, store.getIndices(), store.getComp());
        unsigned align = snode::getComponentSize(store.getValue().getType());
        tag(LLVM::StoreOp::create(b, loc, store.getValue(), addr, align),
            kernel, field);
      } else if (auto rmw = dyn_cast<tc::AtomicRMWOp>(op)) {
        Value addr = buildComponentAddress(b, loc, *pl, rmw.getIndices(), rmw.getComp());
        Type t = rmw.getValue().getType();
        auto old = LLVM::AtomicRMWOp::create(b, loc, toLLVMAtomicBinOp(rmw.getKind(), t),
                                             addr, rmw.getValue(),
                                             LLVM::AtomicOrdering::monotonic);
        tag(old, kernel, field);
        rmw.replaceAllUsesWith(old.getResult());
      }
      op->erase();
    }
  }
};
} // namespace

//===- ValidateAccessRules.cpp - tic-validate-access-rules ----------------===//
//
// The run-time half of the global data access rules (docs/autodiff.md): in
// kernels that have a generated adjoint, each access to a needs_grad field
// is preceded by ad.record_access with the element's linear index; the
// runtime keeps one state byte per element while a tape records.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/AD/ADDialect.h"
#include "tic/Dialect/AD/Passes.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace tic {
#define GEN_PASS_DEF_VALIDATEACCESSRULES
#include "tic/Dialect/AD/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// The index space of a field: the extent of each axis (ascending axis
/// order, as field indices are), and the number of components.
struct IndexSpace {
  SmallVector<int64_t> extents;
  int64_t components = 1;
  int64_t count() const {
    int64_t n = components;
    for (int64_t e : extents)
      n *= e;
    return n;
  }
};

/// None below a hash node (unbounded) or for an index space too large to
/// shadow with one byte per element.
std::optional<IndexSpace> indexSpaceOf(snode::PlaceOp place) {
  std::map<int64_t, int64_t> perAxis;
  for (Operation *p = place->getParentOp(); p; p = p->getParentOp()) {
    auto c = dyn_cast<snode::SNodeContainerOpInterface>(p);
    if (!c)
      break;
    if (c.getKind() == snode::SNodeKind::Hash)
      return std::nullopt;
    for (auto [a, n] : llvm::zip(c.getAxesArray(), c.getShapeArray())) {
      int64_t &e = perAxis.emplace(a, 1).first->second;
      e *= n;
    }
  }
  IndexSpace s;
  for (auto &[a, e] : perAxis)
    s.extents.push_back(e);
  s.components = place.getNumComponents();
  if (s.count() > (int64_t(1) << 34))
    return std::nullopt;
  return s;
}

struct ValidateAccessRulesPass
    : tic::impl::ValidateAccessRulesBase<ValidateAccessRulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<StringAttr, IndexSpace> checked;
    module.walk([&](snode::PlaceOp p) {
      if (p->hasAttr(ad::ADDialect::kGradAttrName))
        if (std::optional<IndexSpace> s = indexSpaceOf(p))
          checked[p.getSymNameAttr()] = *s;
    });
    for (auto k : module.getOps<tc::KernelOp>()) {
      if (!k->hasAttr(ad::ADDialect::kDifferentiableAttrName))
        continue;
      k.walk([&](Operation *op) {
        FlatSymbolRefAttr field;
        OperandRange indices = op->getOperands();
        int64_t comp = 0;
        StringRef kind;
        if (auto ld = dyn_cast<tc::LoadOp>(op)) {
          field = ld.getFieldAttr();
          indices = ld.getIndices();
          comp = ld.getComp();
          kind = "read";
        } else if (auto st = dyn_cast<tc::StoreOp>(op)) {
          field = st.getFieldAttr();
          indices = st.getIndices();
          comp = st.getComp();
          kind = "write";
        } else if (auto at = dyn_cast<tc::AtomicRMWOp>(op)) {
          field = at.getFieldAttr();
          indices = at.getIndices();
          comp = at.getComp();
          bool acc = at.getKind() == tc::AtomicKind::add ||
                     at.getKind() == tc::AtomicKind::sub;
          kind = acc ? "accumulate" : "write";
        } else {
          return;
        }
        auto it = checked.find(field.getAttr());
        if (it == checked.end() || it->second.extents.size() != indices.size())
          return;
        const IndexSpace &space = it->second;
        OpBuilder b(op);
        Location loc = op->getLoc();
        Type i64 = b.getI64Type();
        auto c = [&](int64_t v) -> Value {
          return arith::ConstantIntOp::create(b, loc, i64, v);
        };
        // row-major over the axes, components innermost
        Value lin = c(0);
        for (auto [idx, e] : llvm::zip(indices, space.extents)) {
          Value i = arith::ExtSIOp::create(b, loc, i64, idx);
          lin = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, lin, c(e)), i);
        }
        lin = arith::MulIOp::create(b, loc, lin, c(space.components));
        lin = arith::AddIOp::create(b, loc, lin, c(comp));
        ad::RecordAccessOp::create(b, loc, b.getStringAttr(kind), field, lin,
                                   b.getI64IntegerAttr(space.count()),
                                   k.getSymNameAttr());
      });
    }
  }
};

} // namespace

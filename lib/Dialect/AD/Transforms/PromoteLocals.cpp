//===- PromoteLocals.cpp - tic-promote-locals -----------------------------===//
//
// Structured store forwarding of scalar locals (DiffTaichi's "eliminate
// mutable local variables"): code generation keeps every `var` in a rank-0
// memref.alloca; here each one whose loads and stores are reached through
// scf.if / scf.for / scf.while only becomes SSA values. A branch that
// assigns it gets an scf.if result, a loop that assigns it a loop-carried
// value. Upstream mem2reg does not look through regions, hence this pass.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/AD/ADDialect.h"
#include "tic/Dialect/AD/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace tic {
#define GEN_PASS_DEF_PROMOTELOCALS
#include "tic/Dialect/AD/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// On an scf.for: the source names of its loop-carried values ("" where
/// a value is not a local).
constexpr llvm::StringLiteral kLocalNamesAttr = "tc.local_names";

bool isStructured(Operation *op) {
  return isa<scf::IfOp, scf::ForOp, scf::WhileOp>(op);
}

/// A rank-0 alloca used only by loads and stores (as their memref) that are
/// in its block or reached through structured scf ops.
bool isPromotable(memref::AllocaOp alloca) {
  if (alloca.getType().getRank() != 0)
    return false;
  Block *home = alloca->getBlock();
  for (OpOperand &use : alloca->getUses()) {
    Operation *user = use.getOwner();
    if (auto st = dyn_cast<memref::StoreOp>(user)) {
      if (st.getValueToStore() == alloca.getResult())
        return false;
    } else if (!isa<memref::LoadOp>(user)) {
      return false;
    }
    for (Block *b = user->getBlock(); b != home;) {
      Operation *parent = b->getParentOp();
      if (!parent || !isStructured(parent) || !b->getParent()->hasOneBlock())
        return false;
      b = parent->getBlock();
    }
  }
  return true;
}

class Promoter {
public:
  Promoter(MLIRContext *ctx) : rewriter(ctx) {}

  unsigned run(Region &region) {
    region.walk([&](memref::AllocaOp a) {
      if (isPromotable(a))
        slots.insert(a.getResult());
    });
    if (slots.empty())
      return 0;
    for (Block &b : region) {
      Map cur;
      processBlock(b, cur);
    }
    for (Value s : slots) {
      assert(s.use_empty() && "a promoted local still has uses");
      s.getDefiningOp()->erase();
    }
    return slots.size();
  }

private:
  using Map = llvm::DenseMap<Value, Value>;
  using Slots = llvm::SetVector<Value>;

  /// The promoted locals stored to somewhere inside `op`'s regions.
  Slots storedIn(Operation *op) {
    Slots s;
    op->walk([&](memref::StoreOp st) {
      if (slots.contains(st.getMemRef()))
        s.insert(st.getMemRef());
    });
    return s;
  }

  Value current(Map &cur, Value slot) {
    auto it = cur.find(slot);
    assert(it != cur.end() && "a local is read before its declaration");
    return it->second;
  }

  void processBlock(Block &block, Map &cur) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto a = dyn_cast<memref::AllocaOp>(op)) {
        if (!slots.contains(a.getResult()))
          continue;
        // Declared, not yet assigned: zero (code generation always assigns
        // first; this keeps every path defined).
        rewriter.setInsertionPointAfter(a);
        Type t = a.getType().getElementType();
        cur[a.getResult()] = arith::ConstantOp::create(rewriter, a.getLoc(), t,
                                                       rewriter.getZeroAttr(t));
        continue;
      }
      if (auto st = dyn_cast<memref::StoreOp>(op)) {
        if (!slots.contains(st.getMemRef()))
          continue;
        cur[st.getMemRef()] = st.getValueToStore();
        st.erase();
        continue;
      }
      if (auto ld = dyn_cast<memref::LoadOp>(op)) {
        if (!slots.contains(ld.getMemRef()))
          continue;
        ld.getResult().replaceAllUsesWith(current(cur, ld.getMemRef()));
        ld.erase();
        continue;
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        processIf(ifOp, cur);
        continue;
      }
      if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        processFor(forOp, cur);
        continue;
      }
      if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
        processWhile(whileOp, cur);
        continue;
      }
      // Any other region: the locals it uses are its own (isPromotable).
      for (Region &r : op.getRegions())
        for (Block &b : r) {
          Map inner;
          processBlock(b, inner);
        }
    }
  }

  void processIf(scf::IfOp ifOp, Map &cur) {
    Slots s = storedIn(ifOp);
    if (s.empty()) {
      for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!r->empty()) {
          Map inner = cur;
          processBlock(r->front(), inner);
        }
      return;
    }
    SmallVector<Type> types(ifOp.getResultTypes());
    for (Value v : s)
      types.push_back(cast<MemRefType>(v.getType()).getElementType());
    rewriter.setInsertionPoint(ifOp);
    auto newIf = scf::IfOp::create(rewriter, ifOp.getLoc(), types,
                                   ifOp.getCondition(), /*withElse=*/false);
    newIf->setAttrs(ifOp->getAttrs());
    newIf.getThenRegion().takeBody(ifOp.getThenRegion());
    if (ifOp.getElseRegion().empty()) {
      Block *b = new Block();
      newIf.getElseRegion().push_back(b);
      rewriter.setInsertionPointToEnd(b);
      scf::YieldOp::create(rewriter, ifOp.getLoc());
    } else {
      newIf.getElseRegion().takeBody(ifOp.getElseRegion());
    }
    for (Region *r : {&newIf.getThenRegion(), &newIf.getElseRegion()}) {
      Map inner = cur;
      Block &b = r->front();
      processBlock(b, inner);
      auto y = cast<scf::YieldOp>(b.getTerminator());
      for (Value v : s)
        y.getResultsMutable().append(current(inner, v));
    }
    unsigned n = ifOp.getNumResults();
    ifOp.replaceAllUsesWith(newIf.getResults().take_front(n));
    ifOp.erase();
    for (auto [i, v] : llvm::enumerate(s))
      cur[v] = newIf.getResult(n + i);
  }

  void processFor(scf::ForOp forOp, Map &cur) {
    Slots s = storedIn(forOp);
    if (s.empty()) {
      Map inner = cur;
      processBlock(*forOp.getBody(), inner);
      return;
    }
    SmallVector<Value> inits;
    for (Value v : s)
      inits.push_back(current(cur, v));
    unsigned n = forOp.getNumResults();
    auto known = forOp->getAttrOfType<ArrayAttr>(kLocalNamesAttr);
    rewriter.setInsertionPoint(forOp); // forOp is replaced below
    auto grown = forOp.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>(args.begin(), args.end());
        });
    auto newFor = cast<scf::ForOp>(grown->getOperation());
    Map inner = cur;
    for (auto [i, v] : llvm::enumerate(s))
      inner[v] = newFor.getRegionIterArgs()[n + i];
    processBlock(*newFor.getBody(), inner);
    // The names of the locals, for diagnostics (tic-reverse-mode).
    SmallVector<Attribute> names;
    for (unsigned i = 0; i < n; ++i)
      names.push_back(known && i < known.size() ? known[i]
                                                : rewriter.getStringAttr(""));
    for (Value v : s) {
      auto name = v.getDefiningOp()->getAttrOfType<StringAttr>("tc.name");
      names.push_back(name ? name : rewriter.getStringAttr(""));
    }
    newFor->setAttr(kLocalNamesAttr, rewriter.getArrayAttr(names));
    auto y = cast<scf::YieldOp>(newFor.getBody()->getTerminator());
    for (auto [i, v] : llvm::enumerate(s)) {
      y.setOperand(n + i, current(inner, v));
      cur[v] = newFor.getResult(n + i);
    }
  }

  void processWhile(scf::WhileOp w, Map &cur) {
    Slots s = storedIn(w);
    if (s.empty()) {
      for (Region *r : {&w.getBefore(), &w.getAfter()}) {
        Map inner = cur;
        processBlock(r->front(), inner);
      }
      return;
    }
    SmallVector<Value> inits(w.getInits());
    SmallVector<Type> types(w.getResultTypes());
    for (Value v : s) {
      inits.push_back(current(cur, v));
      types.push_back(cast<MemRefType>(v.getType()).getElementType());
    }
    rewriter.setInsertionPoint(w);
    auto nw = scf::WhileOp::create(rewriter, w.getLoc(), types, inits);
    nw->setAttrs(w->getAttrs());
    nw.getBefore().takeBody(w.getBefore());
    nw.getAfter().takeBody(w.getAfter());
    // before: (carried..., locals...) -> condition(..., locals...)
    Map before = cur;
    for (Value v : s)
      before[v] = nw.getBefore().front().addArgument(
          cast<MemRefType>(v.getType()).getElementType(), w.getLoc());
    processBlock(nw.getBefore().front(), before);
    auto cond = cast<scf::ConditionOp>(nw.getBefore().front().getTerminator());
    for (Value v : s)
      cond.getArgsMutable().append(current(before, v));
    // after: (results..., locals...) -> yield(carried..., locals...)
    Map after = cur;
    for (Value v : s)
      after[v] = nw.getAfter().front().addArgument(
          cast<MemRefType>(v.getType()).getElementType(), w.getLoc());
    processBlock(nw.getAfter().front(), after);
    auto y = cast<scf::YieldOp>(nw.getAfter().front().getTerminator());
    for (Value v : s)
      y.getResultsMutable().append(current(after, v));
    unsigned n = w.getNumResults();
    w.replaceAllUsesWith(nw.getResults().take_front(n));
    w.erase();
    for (auto [i, v] : llvm::enumerate(s))
      cur[v] = nw.getResult(n + i);
  }

  IRRewriter rewriter;
  Slots slots;
};

struct PromoteLocalsPass : tic::impl::PromoteLocalsBase<PromoteLocalsPass> {
  using PromoteLocalsBase::PromoteLocalsBase;
  void runOnOperation() override {
    getOperation().walk([&](tc::KernelOp k) {
      if (onlyDifferentiable &&
          !k->hasAttr(ad::ADDialect::kDifferentiableAttrName))
        return;
      ad::promoteLocals(k.getBody());
    });
  }
};

} // namespace

unsigned tic::ad::promoteLocals(Region &region) {
  return Promoter(region.getContext()).run(region);
}

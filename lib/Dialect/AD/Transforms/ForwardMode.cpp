//===- ForwardMode.cpp - tic-forward-mode ---------------------------------===//
//
// Forward-mode AD (Taichi's FwdMode, `needs_dual`): @k_fwd is a copy of @k
// in which every float value that depends on a needs_dual field gets its
// tangent, emitted right after it. The tangent of a scalar operation is
// sum_i J_i t_i, with J_i t_i taken from the reverse-mode derivative table
// (each rule is linear in the adjoint it is given). Locals keep their
// memref form: a float local gets a tangent local, so the kernel's
// branches and loops stay as they are.
//
//===----------------------------------------------------------------------===//
#include "Derivatives.h"

#include "tic/Dialect/AD/ADDialect.h"
#include "tic/Dialect/AD/Passes.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace tic {
#define GEN_PASS_DEF_FORWARDMODE
#include "tic/Dialect/AD/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

using ad::ADDialect;

class Tangents {
public:
  Tangents(const llvm::DenseMap<StringAttr, FlatSymbolRefAttr> &duals)
      : duals(duals) {}

  LogicalResult run(tc::KernelOp k) {
    for (Block &b : k.getBody())
      if (failed(block(b)))
        return failure();
    return success();
  }

private:
  FlatSymbolRefAttr dualOf(FlatSymbolRefAttr f) const {
    return duals.lookup(f.getAttr());
  }
  Value zero(OpBuilder &b, Location loc, Type t) {
    return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
  }
  Value tangentOrZero(OpBuilder &b, Location loc, Value v) {
    Value t = tan.lookup(v);
    return t ? t : zero(b, loc, v.getType());
  }

  LogicalResult block(Block &blk) {
    for (Operation &op : llvm::make_early_inc_range(blk))
      if (failed(visit(&op)))
        return failure();
    return success();
  }

  LogicalResult visit(Operation *op) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    Location loc = op->getLoc();
    if (auto a = dyn_cast<memref::AllocaOp>(op)) {
      auto t = a.getType();
      if (t.getRank() == 0 && isa<FloatType>(t.getElementType())) {
        auto ta = memref::AllocaOp::create(b, loc, t);
        if (auto n = a->getAttrOfType<StringAttr>("tc.name"))
          ta->setAttr("tc.name", b.getStringAttr(n.str() + ".dual"));
        localTan[a.getResult()] = ta;
      }
      return success();
    }
    if (auto st = dyn_cast<memref::StoreOp>(op)) {
      if (Value ta = localTan.lookup(st.getMemRef()))
        memref::StoreOp::create(b, loc,
                                tangentOrZero(b, loc, st.getValueToStore()), ta,
                                ValueRange{});
      return success();
    }
    if (auto ld = dyn_cast<memref::LoadOp>(op)) {
      if (Value ta = localTan.lookup(ld.getMemRef()))
        tan[ld.getResult()] = memref::LoadOp::create(b, loc, ta, ValueRange{});
      return success();
    }
    if (auto at = dyn_cast<memref::AtomicRMWOp>(op)) {
      Value ta = localTan.lookup(at.getMemref());
      Value t = tan.lookup(at.getValue());
      if (!ta || !t)
        return success();
      if (at.getKind() != arith::AtomicRMWKind::addf)
        return op->emitError("forward-mode AD: a '")
               << arith::stringifyAtomicRMWKind(at.getKind())
               << "' reduction of a differentiable value is not supported";
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, t, ta,
                                  ValueRange{});
      return success();
    }
    if (auto ld = dyn_cast<tc::LoadOp>(op)) {
      if (FlatSymbolRefAttr d = dualOf(ld.getFieldAttr()))
        if (isa<FloatType>(ld.getType()))
          tan[ld.getResult()] =
              tc::LoadOp::create(b, loc, ld.getType(), d.getValue(),
                                 ld.getIndices(), ld.getComp());
      return success();
    }
    if (auto st = dyn_cast<tc::StoreOp>(op)) {
      if (FlatSymbolRefAttr d = dualOf(st.getFieldAttr()))
        if (isa<FloatType>(st.getValue().getType()))
          tc::StoreOp::create(b, loc, tangentOrZero(b, loc, st.getValue()),
                              d.getValue(), st.getIndices(), st.getComp());
      return success();
    }
    if (auto at = dyn_cast<tc::AtomicRMWOp>(op)) {
      Value t = tan.lookup(at.getValue());
      FlatSymbolRefAttr d = dualOf(at.getFieldAttr());
      if (t && isa<FloatType>(at.getValue().getType()) && d &&
          llvm::any_of(at.getResult().getUses(), [](OpOperand &u) {
            return !isa<scf::YieldOp>(u.getOwner());
          }))
        return op->emitError("forward-mode AD: the value an atomic operation "
                             "returns has no tangent");
      if (!d || !isa<FloatType>(at.getValue().getType()))
        return success();
      if (at.getKind() != tc::AtomicKind::add &&
          at.getKind() != tc::AtomicKind::sub)
        return op->emitError("forward-mode AD: atomic ")
               << tc::stringifyAtomicKind(at.getKind())
               << " on the differentiable field " << at.getFieldAttr()
               << " has no tangent (only += and -= do)";
      if (t)
        tc::AtomicRMWOp::create(b, loc, t.getType(), at.getKind(), t,
                                d.getValue(), at.getIndices(), at.getComp());
      return success();
    }
    if (op->getNumRegions()) {
      for (Region &r : op->getRegions())
        for (Block &blk : r)
          if (failed(block(blk)))
            return failure();
      // Values leaving a region (scf results) carry no tangent here; they
      // come from control flow lifted out of break/continue.
      for (Region &r : op->getRegions())
        for (Block &blk : r)
          if (Operation *term = blk.empty() ? nullptr : &blk.back())
            for (Value v : term->getOperands())
              if (tan.count(v) && op->getNumResults())
                return op->emitError("forward-mode AD: a differentiable value "
                                     "leaving this region is not supported "
                                     "(break, continue and return in "
                                     "differentiable code)");
      return success();
    }
    if (op->getNumResults() != 1 || !isa<FloatType>(op->getResult(0).getType()))
      return success();
    // A float cast: the tangent is cast the same way (the adjoint table's
    // rule casts the other way, to the operand's type).
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      if (Value t = tan.lookup(op->getOperand(0))) {
        Type rt = op->getResult(0).getType();
        tan[op->getResult(0)] =
            isa<arith::ExtFOp>(op)
                ? arith::ExtFOp::create(b, loc, rt, t).getResult()
                : arith::TruncFOp::create(b, loc, rt, t).getResult();
      }
      return success();
    }
    // sum_i J_i t_i, one operand at a time
    IRMapping same;
    same.map(op->getResult(0), op->getResult(0));
    for (Value o : op->getOperands())
      same.map(o, o);
    Value sum;
    // Each distinct operand once: isActive picks every position it is in.
    llvm::SetVector<Value> operands(op->getOperands().begin(),
                                    op->getOperands().end());
    for (Value o : operands) {
      Value t = tan.lookup(o);
      if (!t)
        continue;
      Value part;
      ad::LocalAdjoint r = ad::emitLocalAdjoint(
          op, t, b, same, [&](Value v) { return v == o; },
          [&](Value, Value c) {
            part =
                part ? arith::AddFOp::create(b, loc, part, c).getResult() : c;
          });
      if (r == ad::LocalAdjoint::Unsupported)
        return op->emitError("forward-mode AD: '")
               << op->getName() << "' has no derivative";
      if (part)
        sum = sum ? arith::AddFOp::create(b, loc, sum, part).getResult() : part;
    }
    if (sum)
      tan[op->getResult(0)] = sum;
    return success();
  }

  const llvm::DenseMap<StringAttr, FlatSymbolRefAttr> &duals;
  llvm::DenseMap<Value, Value> tan;      // value -> its tangent
  llvm::DenseMap<Value, Value> localTan; // float local -> its tangent local
};

struct ForwardModePass : tic::impl::ForwardModeBase<ForwardModePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<StringAttr, FlatSymbolRefAttr> duals;
    module.walk([&](snode::PlaceOp p) {
      if (auto d =
              p->getAttrOfType<FlatSymbolRefAttr>(ADDialect::kDualAttrName))
        duals[p.getSymNameAttr()] = d;
    });
    SymbolTable symbols(module);
    SmallVector<tc::KernelOp> kernels(module.getOps<tc::KernelOp>());
    bool failedAny = false;
    for (tc::KernelOp k : kernels) {
      if (!k->hasAttr(ADDialect::kForwardAttrName))
        continue;
      std::string name = ADDialect::tangentKernelName(k.getSymName());
      if (symbols.lookup(name)) {
        k.emitError("the forward-mode kernel '") << name << "' already exists";
        failedAny = true;
        continue;
      }
      auto fwd = cast<tc::KernelOp>(k->clone());
      fwd.setSymName(name);
      for (StringRef a :
           {ADDialect::kForwardAttrName, ADDialect::kDifferentiableAttrName})
        fwd->removeAttr(a);
      fwd->setAttr(ADDialect::kTangentOfAttrName,
                   FlatSymbolRefAttr::get(k.getSymNameAttr()));
      module.getBody()->getOperations().insertAfter(k->getIterator(), fwd);
      symbols.insert(fwd);
      Tangents t(duals);
      if (failed(t.run(fwd))) {
        failedAny = true;
        fwd.erase();
      }
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace

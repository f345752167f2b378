//===- CodeGenLValue.cpp - lvalues, loads, stores and atomics -------------===//
//
// Part of the AST -> MLIR code generator: see CodeGenImpl.h and
// docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"
#include <cmath>

using namespace mlir;
using namespace tic::codegen::detail;

//===----------------------------------------------------------------------===//
// Lvalues: locals, field and ndarray elements, bounds guards
//===----------------------------------------------------------------------===//

SmallVector<Value, 4> Generator::fieldIndices(const tsema::FieldInfo *f,
                                              ArrayRef<Value> idx) {
  unsigned rank = 0;
  for (auto a : f->axes)
    rank = std::max(rank, unsigned(a) + 1);
  SmallVector<Value, 4> full(rank, Value());
  for (size_t k = 0; k < f->axes.size() && k < idx.size(); ++k)
    full[f->axes[k]] = idx[k];
  for (auto &v : full)
    if (!v)
      v = cI32(0);
  return full;
}

static std::vector<unsigned> compShapeOf(const tic::Type *elem) {
  if (auto *v = tic::dyn_cast<tic::VectorType>(elem))
    return {v->size};
  if (auto *m = tic::dyn_cast<tic::MatrixType>(elem))
    return {m->rows, m->cols};
  return {};
}

SmallVector<Value, 4> Generator::ndIndicesFor(const LV &lv, unsigned slot) {
  SmallVector<Value, 4> idx(lv.ndIdx.begin(), lv.ndIdx.end());
  if (lv.compShape.size() == 1)
    idx.push_back(cI32(slot));
  else if (lv.compShape.size() == 2) {
    idx.push_back(cI32(slot / lv.compShape[1]));
    idx.push_back(cI32(slot % lv.compShape[1]));
  }
  return idx;
}

bool Generator::genLValue(const tast::Expr *e, LV &lv) {
  if (auto *n = tic::dyn_cast<tast::NameExpr>(e)) {
    if (n->ref.kind != tast::NameRef::Local) {
      error(e->range, "'" + n->name + "' cannot be assigned");
      return false;
    }
    Binding *bd = lookup(n->ref.local);
    if (!bd || !bd->mem) {
      error(e->range, "'" + n->name + "' is immutable (declare it with 'var')");
      return false;
    }
    lv.k = LV::Local;
    lv.var = n->ref.local;
    lv.type = n->ref.local->type;
    lv.mem = bd->vals;
    lv.slotTypes = bd->ts;
    std::vector<unsigned> all;
    for (unsigned i = 0; i < bd->vals.size(); ++i)
      all.push_back(i);
    lv.alts = {all};
    return true;
  }
  if (auto *ix = tic::dyn_cast<tast::IndexExpr>(e)) {
    using IK = tast::IndexExpr::IndexKind;
    if (ix->indexKind == IK::Field) {
      const tsema::FieldInfo *f = ix->field;
      if (!f) {
        error(e->range, "internal error: unresolved field access");
        return false;
      }
      SmallVector<Value> idx;
      for (auto &i : ix->indices)
        appendIndices(genIndexValue(i.get()), idx);
      lv.k = LV::Field;
      lv.field = f;
      lv.type = e->type;
      lv.idx = fieldIndices(f, idx);
      flatten(f->elemType, lv.slotTypes);
      std::vector<unsigned> all;
      for (unsigned i = 0; i < lv.slotTypes.size(); ++i)
        all.push_back(i);
      lv.alts = {all};
      return true;
    }
    if (ix->indexKind == IK::NDArray) {
      auto *base = tic::dyn_cast<tast::NameExpr>(ix->base.get());
      Binding *bd = base && base->ref.kind == tast::NameRef::Local
                        ? lookup(base->ref.local)
                        : nullptr;
      auto *nt = base ? tic::dyn_cast<tic::NDArrayType>(base->type) : nullptr;
      if (!bd || !nt || bd->vals.empty()) {
        unsupported(e->range, "this ndarray access");
        return false;
      }
      lv.k = LV::NDArray;
      lv.array = bd->vals[0];
      lv.type = e->type;
      {
        SmallVector<Value> idx;
        for (auto &i : ix->indices)
          appendIndices(genIndexValue(i.get()), idx);
        lv.ndIdx.append(idx.begin(), idx.end());
      }
      lv.compShape = compShapeOf(nt->elem);
      flatten(nt->elem, lv.slotTypes);
      std::vector<unsigned> all;
      for (unsigned i = 0; i < lv.slotTypes.size(); ++i)
        all.push_back(i);
      lv.alts = {all};
      return true;
    }
    if (!genLValue(ix->base.get(), lv))
      return false;
    return refineLValue(lv, e);
  }
  if (auto *m = tic::dyn_cast<tast::MemberExpr>(e)) {
    if (!genLValue(m->base.get(), lv))
      return false;
    return refineLValue(lv, e);
  }
  error(e->range, "this expression cannot be assigned");
  return false;
}

/// Narrows `lv` (whose current type is the base type of `e`) to `e`.
bool Generator::refineLValue(LV &lv, const tast::Expr *e) {
  const tic::Type *bt = lv.type;
  // Static selection: new alternative = pick(old alternative).
  auto applyStatic = [&](const std::vector<unsigned> &pick) {
    for (auto &a : lv.alts) {
      std::vector<unsigned> n;
      for (unsigned p : pick)
        n.push_back(p < a.size() ? a[p] : 0);
      a = n;
    }
  };
  // Dynamic selection among `choices` by `sel`.
  auto applyDynamic = [&](const std::vector<std::vector<unsigned>> &choices,
                          Value sel) {
    std::vector<std::vector<unsigned>> n;
    for (auto &a : lv.alts)
      for (auto &c : choices) {
        std::vector<unsigned> x;
        for (unsigned p : c)
          x.push_back(p < a.size() ? a[p] : 0);
        n.push_back(x);
      }
    if (lv.sel) {
      Value scaled = arith::MulIOp::create(b, curLoc, lv.sel,
                                           cI32(int64_t(choices.size())));
      lv.sel = arith::AddIOp::create(b, curLoc, scaled, sel);
    } else {
      lv.sel = sel;
    }
    lv.alts = n;
  };
  if (auto *m = tic::dyn_cast<tast::MemberExpr>(e)) {
    if (!m->components.empty()) {
      applyStatic(m->components);
    } else if (m->memberIndex >= 0) {
      auto *st = tic::dyn_cast<tic::StructType>(bt);
      if (!st) {
        error(e->range, "internal error: member of a non-struct");
        return false;
      }
      unsigned off = 0;
      for (int i = 0; i < m->memberIndex; ++i)
        off += flatCount(st->members[i].type);
      unsigned cnt = flatCount(st->members[m->memberIndex].type);
      std::vector<unsigned> pick;
      for (unsigned i = 0; i < cnt; ++i)
        pick.push_back(off + i);
      applyStatic(pick);
    } else {
      error(e->range, "'." + m->member + "' cannot be assigned");
      return false;
    }
    lv.type = e->type;
    return true;
  }
  auto *ix = tic::cast<tast::IndexExpr>(e);
  using IK = tast::IndexExpr::IndexKind;
  if (ix->indexKind != IK::Vector && ix->indexKind != IK::Matrix) {
    error(e->range, "this expression cannot be assigned");
    return false;
  }
  ComponentSelect cs;
  if (!selectComponents(*ix, bt, cs))
    return false;
  if (cs.isStatic)
    applyStatic(cs.pick);
  else
    applyDynamic(cs.alts, cs.sel);
  lv.type = e->type;
  return true;
}

scf::IfOp Generator::beginGuard(const LV &lv, ArrayRef<ST> resultTypes) {
  if (!opts.checkBounds || guarding || lv.k == LV::Local || bitVectorized)
    return {};
  Value ok;
  std::string what;
  auto both = [&](Value c) {
    ok = ok ? Value(arith::AndIOp::create(b, curLoc, ok, c)) : c;
  };
  if (lv.k == LV::Field) {
    const tsema::FieldInfo *f = lv.field;
    if (f->axes.empty())
      return nullptr;
    for (size_t k = 0; k < f->axes.size() && k < f->shape.size(); ++k) {
      // Below a hash, the axes it brought are unbounded (any i32); those
      // a node above it splits keep their extent.
      if (f->unbounded && (k >= f->unboundedAxes.size() || f->unboundedAxes[k]))
        continue;
      Value i = lv.idx[f->axes[k]], ext = cI32(f->shape[k]);
      // Reported as TC_ERR_OUT_OF_BOUNDS with field, axis, index and extent.
      tic::tc::BoundsCheckOp::create(b, curLoc, i, ext, f->name, int32_t(k));
      both(arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::ult, i, ext));
    }
  } else {
    for (size_t k = 0; k < lv.ndIdx.size(); ++k) {
      Value n = tic::tc::NDArrayDimOp::create(b, curLoc, lv.array, int64_t(k));
      both(arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::ult,
                                 lv.ndIdx[k], n));
    }
    what = "index out of range of an ndarray parameter";
  }
  if (!ok)
    return {};
  if (lv.k != LV::Field)
    tic::tc::AssertOp::create(b, curLoc, ok, what);
  SmallVector<mlir::Type> types;
  for (ST t : resultTypes)
    types.push_back(mty(t));
  bool withElse = !resultTypes.empty();
  auto guard = scf::IfOp::create(b, curLoc, types, ok, /*addThenBlock=*/true,
                                 /*addElseBlock=*/withElse);
  if (withElse) {
    Block *elseB = &guard.getElseRegion().front();
    dropTerminator(elseB);
    b.setInsertionPointToEnd(elseB);
    SmallVector<Value> zeros;
    for (ST t : resultTypes)
      zeros.push_back(zero(t));
    scf::YieldOp::create(b, curLoc, zeros);
  }
  Block *access = &guard.getThenRegion().front();
  dropTerminator(access);
  b.setInsertionPointToEnd(access);
  guarding = true;
  return guard;
}

RV Generator::endGuard(scf::IfOp guard, const RV &results) {
  guarding = false;
  scf::YieldOp::create(b, curLoc, results.v);
  b.setInsertionPointAfter(guard);
  RV r;
  for (size_t i = 0; i < results.size(); ++i)
    r.push(guard.getResult(i), results.ts[i]);
  return r;
}

RV Generator::loadLV(const LV &lv) {
  if (opts.checkBounds && !guarding && lv.k != LV::Local) {
    std::vector<ST> rts;
    for (unsigned s : lv.alts[0])
      rts.push_back(lv.slotTypes[s]);
    if (scf::IfOp guard = beginGuard(lv, rts))
      return endGuard(guard, loadLV(lv));
  }
  // Load every slot any alternative uses, then select.
  std::map<unsigned, Value> loaded;
  auto slot = [&](unsigned s) -> Value {
    auto it = loaded.find(s);
    if (it != loaded.end())
      return it->second;
    Value v;
    ST t = s < lv.slotTypes.size() ? lv.slotTypes[s] : ST::i32();
    switch (lv.k) {
    case LV::Local:
      v = memref::LoadOp::create(b, curLoc, lv.mem[s], ValueRange{});
      break;
    case LV::Field:
      v = tic::tc::LoadOp::create(b, curLoc, mty(t), lv.field->name, lv.idx, s);
      break;
    case LV::NDArray:
      v = tic::tc::NDArrayLoadOp::create(b, curLoc, mty(t), lv.array,
                                         ndIndicesFor(lv, s));
      break;
    }
    loaded[s] = v;
    return v;
  };
  RV r;
  if (lv.alts.size() == 1) {
    for (unsigned s : lv.alts[0])
      r.push(slot(s), lv.slotTypes[s]);
    return r;
  }
  for (size_t c = 0; c < lv.alts[0].size(); ++c) {
    SmallVector<Value> cands;
    for (auto &a : lv.alts)
      cands.push_back(slot(a[c]));
    r.push(selectChain(lv.sel, cands), lv.slotTypes[lv.alts[0][c]]);
  }
  return r;
}

/// With -g: a value stored to a quant.fixed or quant.float field must be in
/// the type's range (spec section 7: overflow is undefined, reported in
/// debug builds): round(x / s) among the codes of a fixed point, no exponent
/// overflow for a float. NaN and infinities fail too. Integers wrap, which
/// is defined: not checked.
void Generator::checkQuantRange(const tsema::FieldInfo *f, Value x) {
  if (!opts.debug || bitVectorized || !isa<FloatType>(x.getType()))
    return;
  const tic::Type *e = f->elemType;
  if (auto *v = tic::dyn_cast<tic::VectorType>(e))
    e = v->elem;
  else if (auto *m = tic::dyn_cast<tic::MatrixType>(e))
    e = m->elem;
  auto *q = tic::dyn_cast<tic::QuantType>(e);
  if (!q || q->qkind == tic::QuantType::QKind::Int)
    return;
  // (lo, hi): the open interval of values that encode without overflow.
  double lo, hi;
  if (q->qkind == tic::QuantType::QKind::Fixed) {
    double codes =
        std::ldexp(1.0, q->isSigned ? int(q->bits) - 1 : int(q->bits));
    hi = (codes - 0.5) * q->scale;
    lo = q->isSigned ? -(codes + 0.5) * q->scale : -0.5 * q->scale;
  } else {
    // The largest exponent 2^(exp-1) (unbiased); rounding the digits up
    // past 2 - 2^-(d+1) carries into the exponent beyond it.
    // A shared exponent's digits saturate instead: below 2^(2^(exp-1)+1).
    int d = int(q->frac) - (q->isSigned ? 1 : 0);
    hi = f->sharedExponent
             ? std::ldexp(1.0, (1 << (q->exp - 1)) + 1)
             : std::ldexp(2.0 - std::ldexp(1.0, -(d + 1)), 1 << (q->exp - 1));
    lo = -hi;
  }
  mlir::Type f64 = b.getF64Type();
  Value x64 =
      x.getType().isF64() ? x : Value(arith::ExtFOp::create(b, curLoc, f64, x));
  auto cst = [&](double c) -> Value {
    return arith::ConstantOp::create(b, curLoc, b.getF64FloatAttr(c));
  };
  Value above =
      arith::CmpFOp::create(b, curLoc, arith::CmpFPredicate::OGT, x64, cst(lo));
  Value below =
      arith::CmpFOp::create(b, curLoc, arith::CmpFPredicate::OLT, x64, cst(hi));
  Value ok = arith::AndIOp::create(b, curLoc, above, below);
  tic::tc::AssertOp::create(b, curLoc, ok,
                            "value out of range of " + f->elemType->str() +
                                " stored to field '" + f->name + "'");
}

void Generator::storeLV(const LV &lv, const RV &v) {
  if (opts.checkBounds && !guarding && lv.k != LV::Local)
    if (scf::IfOp guard = beginGuard(lv, {})) {
      storeLV(lv, v);
      endGuard(guard, RV());
      return;
    }
  auto storeSlot = [&](unsigned s, Value x) {
    switch (lv.k) {
    case LV::Local:
      memref::StoreOp::create(b, curLoc, x, lv.mem[s], ValueRange{});
      break;
    case LV::Field:
      checkQuantRange(lv.field, x);
      tic::tc::StoreOp::create(b, curLoc, x, lv.field->name, lv.idx, s);
      break;
    case LV::NDArray:
      tic::tc::NDArrayStoreOp::create(b, curLoc, x, lv.array,
                                      ndIndicesFor(lv, s));
      break;
    }
  };
  if (lv.alts.size() == 1) {
    for (size_t c = 0; c < lv.alts[0].size() && c < v.size(); ++c)
      storeSlot(lv.alts[0][c], v.v[c]);
    return;
  }
  if (lv.k == LV::Local) {
    // Every candidate slot keeps its value unless selected.
    for (size_t j = 0; j < lv.alts.size(); ++j) {
      Value isJ = arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::eq,
                                        lv.sel, cI32(int64_t(j)));
      for (size_t c = 0; c < lv.alts[j].size() && c < v.size(); ++c) {
        unsigned s = lv.alts[j][c];
        Value old = memref::LoadOp::create(b, curLoc, lv.mem[s], ValueRange{});
        Value nv = arith::SelectOp::create(b, curLoc, isJ, v.v[c], old);
        memref::StoreOp::create(b, curLoc, nv, lv.mem[s], ValueRange{});
      }
    }
    return;
  }
  // Global storage: switch on the selector (out of range: no store).
  SmallVector<int64_t> caseVals;
  for (size_t j = 0; j < lv.alts.size(); ++j)
    caseVals.push_back(int64_t(j));
  Value sel = arith::IndexCastOp::create(b, curLoc, b.getIndexType(), lv.sel);
  auto sw = scf::IndexSwitchOp::create(b, curLoc, mlir::TypeRange{}, sel,
                                       caseVals, unsigned(caseVals.size()));
  for (size_t j = 0; j <= caseVals.size(); ++j) {
    Region &region =
        j < caseVals.size() ? sw.getCaseRegions()[j] : sw.getDefaultRegion();
    Block *blk = new Block();
    region.push_back(blk);
    b.setInsertionPointToEnd(blk);
    if (j < caseVals.size())
      for (size_t c = 0; c < lv.alts[j].size() && c < v.size(); ++c)
        storeSlot(lv.alts[j][c], v.v[c]);
    scf::YieldOp::create(b, curLoc);
  }
  b.setInsertionPointAfter(sw);
}

RV Generator::atomicLV(const LV &lv, tic::tc::AtomicKind kind, const RV &v,
                       SourceRange r, bool reduction) {
  using AK = tic::tc::AtomicKind;
  if (opts.checkBounds && !guarding && lv.k != LV::Local &&
      lv.alts.size() == 1) {
    std::vector<ST> rts;
    for (unsigned s : lv.alts[0])
      rts.push_back(lv.slotTypes[s]);
    if (scf::IfOp guard = beginGuard(lv, rts))
      return endGuard(guard, atomicLV(lv, kind, v, r, reduction));
  }
  RV old;
  if (lv.alts.size() != 1) {
    unsupported(r, "an atomic update of a component chosen at run time");
    return old;
  }
  const auto &slots = lv.alts[0];
  for (size_t c = 0; c < slots.size() && c < v.size(); ++c) {
    unsigned s = slots[c];
    ST t = lv.slotTypes[s];
    Value x = v.v[c];
    if (t.isFloat() &&
        (kind == AK::and_ || kind == AK::or_ || kind == AK::xor_)) {
      error(r, "bitwise atomic on a floating-point value");
      return old;
    }
    switch (lv.k) {
    case LV::Field:
      old.push(tic::tc::AtomicRMWOp::create(b, curLoc, mty(t), kind, x,
                                            lv.field->name, lv.idx, s),
               t);
      break;
    case LV::NDArray:
      old.push(tic::tc::NDArrayAtomicRMWOp::create(
                   b, curLoc, mty(t), kind, x, lv.array, ndIndicesFor(lv, s)),
               t);
      break;
    case LV::Local: {
      Value m = lv.mem[s];
      if (reduction) {
        arith::AtomicRMWKind k;
        Value operand = x;
        switch (kind) {
        case AK::add:
        case AK::sub:
          k = t.isFloat() ? arith::AtomicRMWKind::addf
                          : arith::AtomicRMWKind::addi;
          if (kind == AK::sub)
            operand = t.isFloat()
                          ? Value(arith::NegFOp::create(b, curLoc, x))
                          : Value(arith::SubIOp::create(b, curLoc, zero(t), x));
          break;
        case AK::min:
          k = t.isFloat() ? arith::AtomicRMWKind::minimumf
              : t.sgn     ? arith::AtomicRMWKind::mins
                          : arith::AtomicRMWKind::minu;
          break;
        case AK::max:
          k = t.isFloat() ? arith::AtomicRMWKind::maximumf
              : t.sgn     ? arith::AtomicRMWKind::maxs
                          : arith::AtomicRMWKind::maxu;
          break;
        case AK::and_:
          k = arith::AtomicRMWKind::andi;
          break;
        case AK::or_:
          k = arith::AtomicRMWKind::ori;
          break;
        default:
          unsupported(r, "this reduction");
          return old;
        }
        old.push(
            memref::AtomicRMWOp::create(b, curLoc, k, operand, m, ValueRange{}),
            t);
        break;
      }
      Value o = memref::LoadOp::create(b, curLoc, m, ValueRange{});
      Value n;
      bool f = t.isFloat();
      switch (kind) {
      case AK::add:
        n = f ? Value(arith::AddFOp::create(b, curLoc, o, x))
              : Value(arith::AddIOp::create(b, curLoc, o, x));
        break;
      case AK::sub:
        n = f ? Value(arith::SubFOp::create(b, curLoc, o, x))
              : Value(arith::SubIOp::create(b, curLoc, o, x));
        break;
      case AK::min:
        n = f       ? Value(arith::MinNumFOp::create(b, curLoc, o, x))
            : t.sgn ? Value(arith::MinSIOp::create(b, curLoc, o, x))
                    : Value(arith::MinUIOp::create(b, curLoc, o, x));
        break;
      case AK::max:
        n = f       ? Value(arith::MaxNumFOp::create(b, curLoc, o, x))
            : t.sgn ? Value(arith::MaxSIOp::create(b, curLoc, o, x))
                    : Value(arith::MaxUIOp::create(b, curLoc, o, x));
        break;
      case AK::and_:
        n = arith::AndIOp::create(b, curLoc, o, x);
        break;
      case AK::or_:
        n = arith::OrIOp::create(b, curLoc, o, x);
        break;
      case AK::xor_:
        n = arith::XOrIOp::create(b, curLoc, o, x);
        break;
      }
      memref::StoreOp::create(b, curLoc, n, m, ValueRange{});
      old.push(o, t);
      break;
    }
    }
  }
  return old;
}

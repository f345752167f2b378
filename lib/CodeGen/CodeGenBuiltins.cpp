//===- CodeGenBuiltins.cpp - builtin functions and linear algebra ---------===//
//
// Part of the AST -> MLIR code generator: see CodeGenImpl.h and
// docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

using namespace mlir;
using namespace tic::codegen::detail;

namespace {

const char *builtinSpelling(Builtin b) {
  switch (b) {
  case Builtin::Svd:
    return "svd";
  case Builtin::PolarDecompose:
    return "polar_decompose";
  case Builtin::SymEig:
    return "sym_eig";
  case Builtin::Activate:
    return "activate";
  case Builtin::Deactivate:
    return "deactivate";
  case Builtin::IsActive:
    return "is_active";
  case Builtin::Append:
    return "append";
  case Builtin::Length:
    return "length";
  case Builtin::DeactivateCell:
    return "deactivate";
  case Builtin::RescaleIndex:
    return "rescale_index";
  case Builtin::BlockLocal:
    return "block_local";
  case Builtin::AssumeInRange:
    return "assume_in_range";
  case Builtin::BitVectorize:
    return "bit_vectorize";
  case Builtin::LoopConfig:
    return "loop_config";
  default:
    return "this builtin";
  }
}

struct Shape {
  unsigned rows = 1, cols = 1;
  bool vec = false, mat = false;
};
Shape shapeOf(const tic::Type *t) {
  Shape s;
  if (auto *v = tic::dyn_cast<tic::VectorType>(t))
    s.rows = v->size, s.vec = true;
  else if (auto *m = tic::dyn_cast<tic::MatrixType>(t))
    s.rows = m->rows, s.cols = m->cols, s.mat = true;
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Builtins
//===----------------------------------------------------------------------===//

static bool isElementwiseMath(Builtin bi) {
  switch (bi) {
  case Builtin::Sin:
  case Builtin::Cos:
  case Builtin::Tan:
  case Builtin::Asin:
  case Builtin::Acos:
  case Builtin::Tanh:
  case Builtin::Exp:
  case Builtin::Log:
  case Builtin::Sqrt:
  case Builtin::Rsqrt:
  case Builtin::Abs:
  case Builtin::Floor:
  case Builtin::Ceil:
  case Builtin::Round:
    return true;
  default:
    return false;
  }
}

// The receiver of a linear-algebra method call (`v.norm()`), else null.
static const tast::Expr *methodReceiver(const tast::CallExpr &e) {
  if (auto *m = dyn_cast_or_null<tast::MemberExpr>(e.callee.get()))
    return m->base.get();
  return nullptr;
}

// The SNode an argument names: an SNode (`let` name, `root`, a template
// parameter) or a field (the node its element is placed in); else null.
static const sema::SNode *snodeOrPlaceOf(const tast::Expr *e) {
  while (auto *s = dyn_cast_or_null<tast::StaticExpr>(e))
    e = s->operand.get();
  if (auto *n = dyn_cast_or_null<tast::NameExpr>(e)) {
    if (n->ref.kind == tast::NameRef::SNode)
      return n->ref.snode;
    if (n->ref.kind == tast::NameRef::Field && n->ref.field)
      return n->ref.field->place;
  }
  if (auto *m = dyn_cast_or_null<tast::MemberExpr>(e))
    if (m->field)
      return m->field->place;
  return nullptr;
}

// The field an argument names (`x`, `x.grad`), or null.
static const tsema::FieldInfo *fieldOfExpr(const tast::Expr *e) {
  while (auto *s = dyn_cast_or_null<tast::StaticExpr>(e))
    e = s->operand.get();
  if (auto *n = dyn_cast_or_null<tast::NameExpr>(e))
    if (n->ref.kind == tast::NameRef::Field)
      return n->ref.field;
  if (auto *m = dyn_cast_or_null<tast::MemberExpr>(e))
    return m->field;
  return nullptr;
}

RV Generator::genBuiltin(const tast::CallExpr &e) {
  Builtin bi = e.builtin;
  auto arg = [&](size_t i) -> const tast::Expr * {
    return i < e.args.size() ? e.args[i].value.get() : nullptr;
  };
  std::vector<ST> rts;
  flatten(e.type, rts);
  ST rt = rts.empty() ? ST::f32() : rts[0];
  if (isElementwiseMath(bi)) {
    RV x = gen(arg(0));
    RV out;
    for (size_t i = 0; i < x.size(); ++i) {
      ST rti = i < rts.size() ? rts[i] : rt;
      ST ct = rti;
      if ((bi == Builtin::Floor || bi == Builtin::Ceil ||
           bi == Builtin::Round) &&
          x.ts[i].isFloat())
        ct = x.ts[i];
      if (!ct.isFloat() && bi != Builtin::Abs && bi != Builtin::Floor &&
          bi != Builtin::Ceil && bi != Builtin::Round)
        ct = x.ts[i].isFloat() ? x.ts[i] : ST::f32();
      Value v = conv(x.v[i], x.ts[i], ct);
      Location l = curLoc;
      Value y;
      switch (bi) {
      case Builtin::Sin:
        y = math::SinOp::create(b, l, v);
        break;
      case Builtin::Cos:
        y = math::CosOp::create(b, l, v);
        break;
      case Builtin::Tan:
        y = math::TanOp::create(b, l, v);
        break;
      case Builtin::Asin:
        y = math::AsinOp::create(b, l, v);
        break;
      case Builtin::Acos:
        y = math::AcosOp::create(b, l, v);
        break;
      case Builtin::Tanh:
        y = math::TanhOp::create(b, l, v);
        break;
      case Builtin::Exp:
        y = math::ExpOp::create(b, l, v);
        break;
      case Builtin::Log:
        y = math::LogOp::create(b, l, v);
        break;
      case Builtin::Sqrt:
        y = math::SqrtOp::create(b, l, v);
        break;
      case Builtin::Rsqrt:
        y = math::RsqrtOp::create(b, l, v);
        break;
      case Builtin::Abs:
        y = ct.isFloat()               ? Value(math::AbsFOp::create(b, l, v))
            : (ct.sgn && !ct.isBool()) ? Value(math::AbsIOp::create(b, l, v))
                                       : v;
        break;
      case Builtin::Floor:
        y = ct.isFloat() ? Value(math::FloorOp::create(b, l, v)) : v;
        break;
      case Builtin::Ceil:
        y = ct.isFloat() ? Value(math::CeilOp::create(b, l, v)) : v;
        break;
      case Builtin::Round:
        y = ct.isFloat() ? Value(math::RoundOp::create(b, l, v)) : v;
        break;
      default:
        y = v;
        break;
      }
      out.push(conv(y, ct, rti), rti);
    }
    return out;
  }
  switch (bi) {
  case Builtin::Sum:
  case Builtin::Any:
  case Builtin::All: {
    const tast::Expr *recv = methodReceiver(e);
    RV x = gen(recv ? recv : arg(0));
    if (!x.size())
      return {};
    Value acc;
    for (size_t i = 0; i < x.size(); ++i) {
      Value c = bi == Builtin::Sum ? conv(x.v[i], x.ts[i], rt)
                                   : toI1(x.v[i], x.ts[i]);
      if (!acc)
        acc = c;
      else if (bi == Builtin::Sum)
        acc = scalarBinop(tast::BinaryOp::Add, acc, c, rt, e.range);
      else if (bi == Builtin::Any)
        acc = arith::OrIOp::create(b, curLoc, acc, c);
      else
        acc = arith::AndIOp::create(b, curLoc, acc, c);
    }
    RV out;
    out.push(acc, bi == Builtin::Sum ? rt : ST::boolean());
    return out;
  }
  case Builtin::Zero: {
    // x * 0 (not a plain 0): -0.0 for negative x, NaN for NaN and inf.
    RV x = gen(arg(0)), out;
    for (size_t i = 0; i < x.size(); ++i)
      out.push(scalarBinop(tast::BinaryOp::Mul, x.v[i], zero(x.ts[i]), x.ts[i],
                           e.range),
               x.ts[i]);
    return out;
  }
  case Builtin::Atan2:
  case Builtin::Min:
  case Builtin::Max: {
    // min/max take two or more arguments (scalars broadcast): fold left.
    SmallVector<RV> xs;
    if (const tast::Expr *recv = methodReceiver(e)) // v.max()
      xs.push_back(gen(recv));
    for (size_t k = 0; k < e.args.size(); ++k) {
      xs.push_back(gen(arg(k)));
      if (!xs.back().size())
        return {};
    }
    if (xs.size() == 1 && bi != Builtin::Atan2) {
      // v.max() / v.min(): fold the components.
      RV all = xs[0];
      xs.clear();
      for (size_t i = 0; i < all.size(); ++i) {
        RV c;
        c.push(all.v[i], all.ts[i]);
        xs.push_back(c);
      }
    }
    if (xs.size() < 2)
      return xs.size() == 1 ? convTo(xs[0], rts) : RV();
    RV out;
    for (size_t i = 0; i < rts.size(); ++i) {
      ST t = rts[i];
      auto at = [&](const RV &v) {
        size_t j = v.size() == 1 ? 0 : i;
        return conv(v.v[j], v.ts[j], t);
      };
      Value v = at(xs[0]);
      for (size_t k = 1; k < xs.size(); ++k) {
        Value c = at(xs[k]);
        if (bi == Builtin::Atan2) {
          ST ft = t.isFloat() ? t : ST::f32();
          Value yf = conv(v, t, ft), xf = conv(c, t, ft);
          v = conv(math::Atan2Op::create(b, curLoc, yf, xf), ft, t);
        } else if (t.isFloat()) {
          v = bi == Builtin::Min
                  ? Value(arith::MinNumFOp::create(b, curLoc, v, c))
                  : Value(arith::MaxNumFOp::create(b, curLoc, v, c));
        } else if (t.sgn && !t.isBool()) {
          v = bi == Builtin::Min
                  ? Value(arith::MinSIOp::create(b, curLoc, v, c))
                  : Value(arith::MaxSIOp::create(b, curLoc, v, c));
        } else {
          v = bi == Builtin::Min
                  ? Value(arith::MinUIOp::create(b, curLoc, v, c))
                  : Value(arith::MaxUIOp::create(b, curLoc, v, c));
        }
      }
      out.push(v, t);
    }
    return out;
  }
  case Builtin::Pow: {
    RV base = gen(arg(0));
    RV exponent = gen(arg(1));
    return pow(base, arg(1), exponent, e.type, e.range);
  }
  case Builtin::Clamp: {
    RV x = gen(arg(0)), lo = gen(arg(1)), hi = gen(arg(2));
    RV out;
    if (!x.size() || !lo.size() || !hi.size())
      return out;
    for (size_t i = 0; i < rts.size(); ++i) {
      ST t = rts[i];
      auto at = [&](const RV &v) {
        size_t j = v.size() == 1 ? 0 : std::min(i, v.size() - 1);
        return conv(v.v[j], v.ts[j], t);
      };
      Value a = at(x), l = at(lo), h = at(hi);
      Value v;
      if (t.isFloat())
        v = arith::MinNumFOp::create(
            b, curLoc, arith::MaxNumFOp::create(b, curLoc, a, l), h);
      else if (t.sgn)
        v = arith::MinSIOp::create(b, curLoc,
                                   arith::MaxSIOp::create(b, curLoc, a, l), h);
      else
        v = arith::MinUIOp::create(b, curLoc,
                                   arith::MaxUIOp::create(b, curLoc, a, l), h);
      out.push(v, t);
    }
    return out;
  }
  case Builtin::Select: {
    RV c = gen(arg(0));
    RV x = convTo(gen(arg(1)), rts), y = convTo(gen(arg(2)), rts);
    RV out;
    for (size_t i = 0; i < rts.size() && c.size(); ++i) {
      size_t j = c.size() == 1 ? 0 : std::min(i, c.size() - 1);
      out.push(arith::SelectOp::create(b, curLoc, toI1(c.v[j], c.ts[j]), x.v[i],
                                       y.v[i]),
               rts[i]);
    }
    return out;
  }
  case Builtin::Random: {
    RV out;
    for (ST t : rts) {
      Value v;
      if (t.isFloat()) {
        ST ft = t.bits == 64 ? t : ST::f32();
        v = conv(tic::tc::RandomOp::create(b, curLoc, mty(ft)), ft, t);
      } else {
        ST u32{ST::Int, 32, false};
        v = conv(tic::tc::RandomOp::create(b, curLoc, b.getI32Type()), u32, t);
      }
      out.push(v, t);
    }
    return out;
  }
  case Builtin::Print:
    return genPrint(e);
  case Builtin::Assert: {
    if (!opts.debug)
      return {}; // not even evaluated without -g
    RV c = gen(arg(0));
    if (!c.size())
      return {};
    std::string msg = "assertion failed";
    if (auto *s = tic::dyn_cast<tast::StringLitExpr>(arg(1)))
      msg = s->value;
    else if (arg(1) && arg(1)->constValue &&
             arg(1)->constValue->kind == tsema::ConstValue::Kind::String)
      msg = arg(1)->constValue->s;
    Value all = toI1(c.v[0], c.ts[0]);
    for (size_t i = 1; i < c.size(); ++i)
      all = arith::AndIOp::create(b, curLoc, all, toI1(c.v[i], c.ts[i]));
    tic::tc::AssertOp::create(b, curLoc, all, msg);
    return {};
  }
  case Builtin::AtomicAdd:
  case Builtin::AtomicSub:
  case Builtin::AtomicMin:
  case Builtin::AtomicMax:
  case Builtin::AtomicAnd:
  case Builtin::AtomicOr:
  case Builtin::AtomicXor:
    return genAtomicBuiltin(e);
  case Builtin::Dot:
  case Builtin::Cross:
  case Builtin::Norm:
  case Builtin::NormInv:
  case Builtin::NormSqr:
  case Builtin::Normalized:
  case Builtin::OuterProduct:
  case Builtin::Transpose:
  case Builtin::Determinant:
  case Builtin::Inverse:
  case Builtin::Trace: {
    SmallVector<RV> args;
    // A method call (v.norm(), m.inverse(), u.dot(v)) passes its receiver
    // first; Sema keeps it in the callee, not in e.args.
    if (const tast::Expr *recv = methodReceiver(e))
      args.push_back(gen(recv));
    for (auto &a : e.args)
      args.push_back(gen(a.value.get()));
    return genLinalg(e, args);
  }
  case Builtin::AssumeInRange: {
    // tc.assume_in_range for tic-block-local (which drops it again); Sema
    // checked the bounds are constants.
    RV x = convTo(gen(arg(0)), e.type);
    RV base = convTo(gen(arg(1)), e.type);
    const tsema::ConstValue *lo = arg(2) ? arg(2)->constValue.get() : nullptr;
    const tsema::ConstValue *hi = arg(3) ? arg(3)->constValue.get() : nullptr;
    if (x.size() != base.size() || !lo || !hi || !lo->isInt() || !hi->isInt() ||
        lo->i >= hi->i)
      return x;
    // A vector: a promise per component.
    RV r;
    for (size_t k = 0; k < x.size(); ++k) {
      if (opts.debug) {
        // -g: the promise checked (in i64: x - base cannot wrap); a broken
        // one is a failed assertion.
        bool isSigned = x.ts[k].sgn;
        auto wide = [&](Value v) -> Value {
          if (v.getType().isInteger(64))
            return v;
          return isSigned ? Value(arith::ExtSIOp::create(b, curLoc,
                                                         b.getI64Type(), v))
                          : Value(arith::ExtUIOp::create(b, curLoc,
                                                         b.getI64Type(), v));
        };
        Value wx = wide(x.v[k]);
        Value wb = wide(base.v[k]);
        Value d = arith::SubIOp::create(b, curLoc, wx, wb);
        Value l =
            arith::ConstantIntOp::create(b, curLoc, b.getI64Type(), lo->i);
        Value h =
            arith::ConstantIntOp::create(b, curLoc, b.getI64Type(), hi->i);
        Value above =
            arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::sge, d, l);
        Value below =
            arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::slt, d, h);
        tic::tc::AssertOp::create(
            b, curLoc, arith::AndIOp::create(b, curLoc, above, below),
            "assume_in_range: the value lies outside [base + lo, base + hi)");
      }
      r.push(tic::tc::AssumeInRangeOp::create(
                 b, curLoc, x.v[k].getType(), x.v[k], base.v[k],
                 b.getI64IntegerAttr(lo->i), b.getI64IntegerAttr(hi->i)),
             x.ts[k]);
    }
    return r;
  }
  case Builtin::BlockLocal: {
    // Recorded on the innermost enclosing struct-for (Sema checked there is
    // one) for tic-block-local.
    Operation *op = b.getInsertionBlock()->getParentOp();
    while (op && !isa<tic::tc::StructForOp>(op))
      op = op->getParentOp();
    auto sf = dyn_cast_or_null<tic::tc::StructForOp>(op);
    if (!sf)
      return {};
    SmallVector<const tsema::FieldInfo *> fields;
    for (auto &a : e.args)
      fields.push_back(fieldOfExpr(a.value.get()));
    addBlockLocal(sf, fields);
    return {};
  }
  case Builtin::LoopConfig:
    return {}; // a hint the loops took already
  case Builtin::Svd:
  case Builtin::PolarDecompose:
  case Builtin::SymEig: {
    Shape s0 = shapeOf(arg(0) ? arg(0)->type : nullptr);
    if (!s0.mat || s0.rows != s0.cols || (s0.rows != 2 && s0.rows != 3)) {
      unsupported(e.range, std::string("'") + builtinSpelling(bi) +
                               "' of a matrix other than 2x2 or 3x3");
      return convTo(RV(), e.type);
    }
    SmallVector<RV> args;
    args.push_back(gen(arg(0)));
    return genLinalg(e, args);
  }
  case Builtin::RescaleIndex: {
    // Index arithmetic on the layout, the same for dense and sparse nodes:
    // along each index axis of the target, floor(I[a] / (extent of the
    // source along a / extent of the target along a)). Sema checked the
    // target is the source or an ancestor.
    const sema::SNode *from = snodeOrPlaceOf(arg(0)),
                      *to = snodeOrPlaceOf(arg(1));
    RV idx = gen(arg(2));
    if (!from || !to || !idx.size())
      return convTo(RV(), e.type);
    RV out;
    ST i32 = ST::i32();
    for (size_t k = 0; k < to->indexAxes.size(); ++k) {
      auto pos = std::find(from->indexAxes.begin(), from->indexAxes.end(),
                           to->indexAxes[k]) -
                 from->indexAxes.begin();
      Value v = conv(idx.v[pos], idx.ts[pos], i32);
      int64_t ratio = from->extents[pos] / to->extents[k];
      if (ratio != 1)
        v = arith::FloorDivSIOp::create(
            b, curLoc, v,
            arith::ConstantIntOp::create(b, curLoc, b.getI32Type(), ratio));
      out.push(v, i32);
    }
    return convTo(out, e.type);
  }
  case Builtin::Activate:
  case Builtin::Deactivate:
  case Builtin::IsActive: {
    // The node's own cell indices (Sema checked their number); a field
    // names the node its element is placed in.
    const sema::SNode *sn = snodeOrPlaceOf(arg(0));
    auto it = sn ? nodeNames.find(sn) : nodeNames.end();
    if (it == nodeNames.end()) {
      unsupported(e.range, std::string("'") + builtinSpelling(bi) +
                               "' on the root SNode");
      return convTo(RV(), e.type);
    }
    SmallVector<Value> idx;
    appendIndices(gen(arg(1)), idx);
    auto sym = FlatSymbolRefAttr::get(b.getContext(), it->second);
    if (bi == Builtin::IsActive) {
      Value a = tic::tc::IsActiveOp::create(b, curLoc, b.getI1Type(), sym, idx);
      RV r;
      r.push(arith::ExtUIOp::create(b, curLoc, b.getI32Type(), a), ST::i32());
      return convTo(r, e.type);
    }
    if (bi == Builtin::Activate)
      tic::tc::ActivateOp::create(b, curLoc, sym, idx);
    else
      tic::tc::DeactivateOp::create(b, curLoc, sym, idx);
    return {};
  }
  case Builtin::Append:
  case Builtin::Length:
  case Builtin::DeactivateCell:
    return genListMethod(e);
  case Builtin::BitVectorize: {
    // A kernel attribute: tic-bit-vectorize rewrites the kernel's loops over
    // 1-bit bit_array fields (Sema checked the width and the position).
    const tast::Expr *w = arg(0);
    Operation *k = b.getInsertionBlock()->getParentOp();
    while (k && !isa<tic::tc::KernelOp>(k))
      k = k->getParentOp();
    if (k && w && w->constValue)
      k->setAttr("tc.bit_vectorize",
                 b.getI32IntegerAttr(int32_t(w->constValue->i)));
    bitVectorized = true;
    return convTo(RV(), e.type);
  }
  default:
    break;
  }
  unsupported(e.range, "this builtin here");
  return convTo(RV(), e.type);
}

/// x[i].append(v), x[i].length(), x[i].deactivate() on a field placed in
/// a dynamic node: the list is the node's container at the field's indices
/// but the last (the dynamic axis, the field's last index).
RV Generator::genListMethod(const tast::CallExpr &e) {
  Builtin bi = e.builtin;
  const tast::Expr *recv = methodReceiver(e);
  const tsema::FieldInfo *f = nullptr;
  SmallVector<Value> idx;
  if (auto *ix = dyn_cast_or_null<tast::IndexExpr>(recv)) {
    f = ix->field;
    for (auto &i : ix->indices)
      appendIndices(genIndexValue(i.get()), idx);
  } else if (auto *n = dyn_cast_or_null<tast::NameExpr>(recv)) {
    if (n->ref.kind == tast::NameRef::Field)
      f = n->ref.field;
  }
  auto it = f && f->place ? nodeNames.find(f->place) : nodeNames.end();
  if (it == nodeNames.end()) {
    unsupported(e.range, std::string("'") + builtinSpelling(bi) + "' here");
    return convTo(RV(), e.type);
  }
  auto sym = FlatSymbolRefAttr::get(b.getContext(), it->second);
  // The element indices with 0 on the dynamic axis (the last one).
  LV lv;
  lv.k = LV::Field;
  lv.field = f;
  lv.idx = fieldIndices(f, idx);
  SmallVector<Value> list(lv.idx.begin(), std::prev(lv.idx.end()));
  std::vector<ST> rts;
  if (bi != Builtin::DeactivateCell)
    rts.push_back(ST::i32());
  // The appended value first (its own accesses get their own checks).
  RV v;
  if (bi == Builtin::Append) {
    std::vector<ST> ts;
    flatten(f->elemType, ts);
    v = convTo(gen(e.args[0].value.get()), ts);
  }
  // Bounds checks (-g) on the list's indices, as for an element access.
  scf::IfOp guard = beginGuard(lv, rts);
  RV r;
  switch (bi) {
  case Builtin::Length:
    r.push(tic::tc::LengthOp::create(b, curLoc, b.getI32Type(), sym, list),
           ST::i32());
    break;
  case Builtin::DeactivateCell:
    tic::tc::DeactivateOp::create(b, curLoc, sym, lv.idx);
    break;
  default: {
    // Reserve an element, then store into it when there was room: the
    // store's cell is the one just reserved (known active).
    Value k = tic::tc::AppendOp::create(b, curLoc, b.getI32Type(), sym, list);
    Value room = arith::CmpIOp::create(b, curLoc, arith::CmpIPredicate::slt, k,
                                       cI32(f->place->shape[0]));
    auto ifRoom = scf::IfOp::create(b, curLoc, room, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifRoom.thenBlock());
      SmallVector<Value> at(list.begin(), list.end());
      at.push_back(k);
      for (size_t s = 0; s < v.size(); ++s) {
        auto st = tic::tc::StoreOp::create(b, curLoc, v.v[s], f->name, at, s);
        st->setAttr(tic::tc::kKnownActiveAttrName, sym);
      }
    }
    r.push(k, ST::i32());
    break;
  }
  }
  if (guard)
    r = endGuard(guard, r);
  return convTo(r, e.type);
}

static tic::tc::AtomicKind atomicKindOfBuiltin(Builtin b) {
  using AK = tic::tc::AtomicKind;
  switch (b) {
  case Builtin::AtomicSub:
    return AK::sub;
  case Builtin::AtomicMin:
    return AK::min;
  case Builtin::AtomicMax:
    return AK::max;
  case Builtin::AtomicAnd:
    return AK::and_;
  case Builtin::AtomicOr:
    return AK::or_;
  case Builtin::AtomicXor:
    return AK::xor_;
  default:
    return AK::add;
  }
}

RV Generator::genAtomicBuiltin(const tast::CallExpr &e) {
  if (e.args.size() < 2) {
    error(e.range, "atomic operations take a target and a value");
    return {};
  }
  RV val = gen(e.args[1].value.get());
  LV lv;
  if (!genLValue(e.args[0].value.get(), lv))
    return {};
  std::vector<ST> tts;
  flatten(lv.type, tts);
  // A kernel-scope `var` is shared by every iteration of a parallel loop:
  // atomic_add(s, v) there must be a real atomic (memref.atomic_rmw, which
  // tic-privatize-reductions privatizes when the old value is unused), not the
  // plain update a thread-private local gets.
  const tast::Expr *root = e.args[0].value.get();
  while (true) {
    if (auto *m = tic::dyn_cast<tast::MemberExpr>(root))
      root = m->base.get();
    else if (auto *ix = tic::dyn_cast<tast::IndexExpr>(root))
      root = ix->base.get();
    else
      break;
  }
  auto *n = tic::dyn_cast<tast::NameExpr>(root);
  bool shared = inParallel && lv.k == LV::Local && n &&
                n->ref.kind == tast::NameRef::Local && n->ref.local &&
                n->ref.local->isKernelScope;
  return atomicLV(lv, atomicKindOfBuiltin(e.builtin), convTo(val, tts), e.range,
                  shared);
}

static std::string escapePercent(const std::string &s) {
  std::string r;
  for (char c : s) {
    r += c;
    if (c == '%')
      r += '%';
  }
  return r;
}

RV Generator::genPrint(const tast::CallExpr &e) {
  std::string fmt, sep = " ", end;
  for (auto &a : e.args) {
    if (a.name == "sep" || a.name == "end") {
      std::string s;
      if (auto *sl = tic::dyn_cast<tast::StringLitExpr>(a.value.get()))
        s = sl->value;
      (a.name == "sep" ? sep : end) = s;
    }
  }
  SmallVector<Value> args;
  bool first = true;
  for (auto &a : e.args) {
    if (a.name == "sep" || a.name == "end")
      continue;
    if (!first)
      fmt += escapePercent(sep);
    first = false;
    const tast::Expr *x = a.value.get();
    if (auto *sl = tic::dyn_cast<tast::StringLitExpr>(x)) {
      fmt += escapePercent(sl->value);
      continue;
    }
    if (x->constValue &&
        x->constValue->kind == tsema::ConstValue::Kind::String) {
      fmt += escapePercent(x->constValue->s);
      continue;
    }
    RV v = gen(x);
    auto one = [&](size_t i) {
      ST t = v.ts[i];
      Value y = v.v[i];
      if (t.isFloat()) {
        fmt += t.bits == 64 ? "%.12f" : "%f";
        if (t.bits == 16)
          y = conv(y, t, ST::f32());
      } else if (t.bits == 64) {
        fmt += t.sgn ? "%lld" : "%llu";
      } else {
        bool sgn = t.sgn && !t.isBool();
        ST to{ST::Int, 32, sgn};
        y = conv(y, t, to);
        fmt += (sgn || t.isBool()) ? "%d" : "%u";
      }
      args.push_back(y);
    };
    const tic::Type *ty = x->type;
    if (auto *m = tic::dyn_cast<tic::MatrixType>(ty)) {
      fmt += "[";
      for (unsigned r = 0; r < m->rows; ++r) {
        fmt += r ? ", [" : "[";
        for (unsigned c = 0; c < m->cols; ++c) {
          if (c)
            fmt += ", ";
          if (r * m->cols + c < v.size())
            one(r * m->cols + c);
        }
        fmt += "]";
      }
      fmt += "]";
    } else if (v.size() != 1 || (ty && !ty->isScalar())) {
      fmt += "[";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i)
          fmt += ", ";
        one(i);
      }
      fmt += "]";
    } else {
      one(0);
    }
  }
  fmt += escapePercent(end);
  tic::tc::PrintOp::create(b, curLoc, fmt, args);
  return {};
}

//===----------------------------------------------------------------------===//
// Linear algebra on scalarized vectors and matrices
//===----------------------------------------------------------------------===//

RV Generator::genLinalg(const tast::CallExpr &e, ArrayRef<RV> argsIn) {
  using BO = tast::BinaryOp;
  std::vector<ST> rts;
  flatten(e.type, rts);
  ST t = rts.empty() ? ST::f32() : rts[0];
  // Compute in the result's element type (ints promoted to float where the
  // result is float, e.g. norm / inverse of an integer matrix).
  SmallVector<RV> a;
  for (const RV &x : argsIn)
    a.push_back(convElems(x, t));
  if (a.empty() || !a[0].size()) {
    error(e.range, "missing argument");
    return {};
  }
  SourceRange r = e.range;
  auto add = [&](Value x, Value y) { return scalarBinop(BO::Add, x, y, t, r); };
  auto sub = [&](Value x, Value y) { return scalarBinop(BO::Sub, x, y, t, r); };
  auto mul = [&](Value x, Value y) { return scalarBinop(BO::Mul, x, y, t, r); };
  auto div = [&](Value x, Value y) { return scalarBinop(BO::Div, x, y, t, r); };
  auto dot = [&](const RV &x, const RV &y) {
    Value acc;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      Value p = mul(x.v[i], y.v[i]);
      acc = acc ? add(acc, p) : p;
    }
    return acc ? acc : zero(t);
  };
  const tast::Expr *first = methodReceiver(e);
  if (!first && !e.args.empty())
    first = e.args[0].value.get();
  Shape s0 = shapeOf(first ? first->type : nullptr);
  RV out;
  // Determinant by cofactor expansion along the first row (n <= 4).
  std::function<Value(const std::vector<Value> &, unsigned)> det =
      [&](const std::vector<Value> &m, unsigned n) -> Value {
    if (n == 1)
      return m[0];
    if (n == 2) {
      Value ad = mul(m[0], m[3]);
      Value bc = mul(m[1], m[2]);
      return sub(ad, bc);
    }
    Value acc;
    for (unsigned j = 0; j < n; ++j) {
      std::vector<Value> minor;
      for (unsigned i = 1; i < n; ++i)
        for (unsigned k = 0; k < n; ++k)
          if (k != j)
            minor.push_back(m[i * n + k]);
      Value term = mul(m[j], det(minor, n - 1));
      acc = !acc ? term : (j % 2 ? sub(acc, term) : add(acc, term));
    }
    return acc;
  };
  switch (e.builtin) {
  case Builtin::Dot:
    out.push(dot(a[0], a.size() > 1 ? a[1] : a[0]), t);
    return out;
  case Builtin::Cross: {
    if (a.size() < 2)
      break;
    const RV &x = a[0], &y = a[1];
    // x[i] * y[j] - x[j] * y[i], the products in this order.
    auto crossTerm = [&](unsigned i, unsigned j) {
      Value xy = mul(x.v[i], y.v[j]);
      Value yx = mul(x.v[j], y.v[i]);
      return sub(xy, yx);
    };
    if (x.size() == 3 && y.size() == 3) {
      out.push(crossTerm(1, 2), t);
      out.push(crossTerm(2, 0), t);
      out.push(crossTerm(0, 1), t);
    } else if (x.size() == 2 && y.size() == 2) {
      out.push(crossTerm(0, 1), t);
    } else {
      error(r, "cross() needs two 2-D or two 3-D vectors");
    }
    return out;
  }
  case Builtin::NormSqr:
    out.push(dot(a[0], a[0]), t);
    return out;
  case Builtin::Norm:
  case Builtin::NormInv: {
    Value s = dot(a[0], a[0]);
    if (a.size() > 1)
      s = add(s, a[1].v[0]);
    out.push(e.builtin == Builtin::Norm
                 ? Value(math::SqrtOp::create(b, curLoc, s))
                 : Value(math::RsqrtOp::create(b, curLoc, s)),
             t);
    return out;
  }
  case Builtin::Normalized: {
    Value n = math::SqrtOp::create(b, curLoc, dot(a[0], a[0]));
    if (a.size() > 1)
      n = add(n, a[1].v[0]);
    Value inv = div(one(t), n);
    for (Value x : a[0].v)
      out.push(mul(inv, x), t);
    return out;
  }
  case Builtin::OuterProduct: {
    if (a.size() < 2)
      break;
    for (Value x : a[0].v)
      for (Value y : a[1].v)
        out.push(mul(x, y), t);
    return out;
  }
  case Builtin::Transpose: {
    if (!s0.mat)
      return a[0];
    for (unsigned j = 0; j < s0.cols; ++j)
      for (unsigned i = 0; i < s0.rows; ++i)
        out.push(a[0].v[i * s0.cols + j], t);
    return out;
  }
  case Builtin::Trace: {
    Value acc;
    for (unsigned i = 0; i < std::min(s0.rows, s0.cols); ++i)
      acc = acc ? add(acc, a[0].v[i * s0.cols + i]) : a[0].v[i * s0.cols + i];
    out.push(acc ? acc : zero(t), t);
    return out;
  }
  case Builtin::Determinant:
  case Builtin::Inverse: {
    unsigned n = s0.rows;
    if (!s0.mat || s0.rows != s0.cols || n > 4) {
      unsupported(r,
                  std::string(e.builtin == Builtin::Inverse ? "inverse"
                                                            : "determinant") +
                      " of a matrix that is not square 1x1..4x4");
      return convTo(RV(), e.type);
    }
    std::vector<Value> m(a[0].v.begin(), a[0].v.end());
    Value d = det(m, n);
    if (e.builtin == Builtin::Determinant) {
      out.push(d, t);
      return out;
    }
    // inverse = adjugate / det: inv[i][j] = (-1)^(i+j) * minor(j, i) / det.
    Value invDet = div(one(t), d);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j) {
        Value cof;
        if (n == 1) {
          cof = one(t);
        } else {
          std::vector<Value> minor;
          for (unsigned p = 0; p < n; ++p)
            for (unsigned q = 0; q < n; ++q)
              if (p != j && q != i)
                minor.push_back(m[p * n + q]);
          cof = det(minor, n - 1);
          if ((i + j) % 2)
            cof = t.isFloat() ? Value(arith::NegFOp::create(b, curLoc, cof))
                              : sub(zero(t), cof);
        }
        out.push(mul(cof, invDet), t);
      }
    return out;
  }
  case Builtin::PolarDecompose:
  case Builtin::Svd:
  case Builtin::SymEig:
    if (s0.rows == 3)
      return decompose3x3(e.builtin, a[0].v, t, r);
    return decompose2x2(e.builtin, a[0].v, t, r);
  default:
    break;
  }
  unsupported(r, "this linear-algebra builtin");
  return convTo(RV(), e.type);
}

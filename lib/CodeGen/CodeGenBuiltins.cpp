//===- CodeGenBuiltins.cpp - builtin functions and linear algebra ---------===//
//
// Part of the AST -> MLIR code generator: see CodeGenImpl.h and
// docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

#include <array>

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
          v = conv(
              math::Atan2Op::create(b, curLoc, conv(v, t, ft), conv(c, t, ft)),
              ft, t);
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
  case Builtin::Pow:
    return pow(gen(arg(0)), arg(1), gen(arg(1)), e.type, e.range);
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
  case Builtin::AssumeInRange:
    return convTo(gen(arg(0)), e.type);
  case Builtin::BlockLocal:
  case Builtin::LoopConfig:
    return {}; // hints without effect on the CPU backend
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
  case Builtin::Activate:
  case Builtin::Deactivate:
  case Builtin::IsActive:
  case Builtin::Append:
  case Builtin::Length:
  case Builtin::DeactivateCell:
  case Builtin::RescaleIndex:
  case Builtin::BitVectorize:
    unsupported(e.range, std::string("'") + builtinSpelling(bi) + "'");
    return convTo(RV(), e.type);
  default:
    break;
  }
  unsupported(e.range, "this builtin here");
  return convTo(RV(), e.type);
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
  // convert-tc-to-llvm privatizes when the old value is unused), not the
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
    if (n == 2)
      return sub(mul(m[0], m[3]), mul(m[1], m[2]));
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
    if (x.size() == 3 && y.size() == 3) {
      out.push(sub(mul(x.v[1], y.v[2]), mul(x.v[2], y.v[1])), t);
      out.push(sub(mul(x.v[2], y.v[0]), mul(x.v[0], y.v[2])), t);
      out.push(sub(mul(x.v[0], y.v[1]), mul(x.v[1], y.v[0])), t);
    } else if (x.size() == 2 && y.size() == 2) {
      out.push(sub(mul(x.v[0], y.v[1]), mul(x.v[1], y.v[0])), t);
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

/// 2x2 polar decomposition, SVD and symmetric eigen-decomposition, after
/// Taichi's closed forms (python/taichi/_funcs.py: polar_decompose2d, svd2d,
/// sym_eig2x2), branch-free with arith.select. Results, flattened:
///   polar_decompose: R, S (A = R S, R a rotation)
///   svd:             U, Sigma, V (A = U Sigma V^T)
///   sym_eig:         eigenvalues (vec2, descending), eigenvectors (columns)
RV Generator::decompose2x2(Builtin which, ArrayRef<Value> A, ST t,
                           SourceRange r) {
  using BO = tast::BinaryOp;
  if (!t.isFloat())
    t = defaultFloat();
  SmallVector<Value, 4> m;
  for (Value v : A)
    m.push_back(v);
  auto c = [&](double v) { return cFloat(v, t); };
  auto add = [&](Value x, Value y) { return scalarBinop(BO::Add, x, y, t, r); };
  auto sub = [&](Value x, Value y) { return scalarBinop(BO::Sub, x, y, t, r); };
  auto mul = [&](Value x, Value y) { return scalarBinop(BO::Mul, x, y, t, r); };
  auto div = [&](Value x, Value y) { return scalarBinop(BO::Div, x, y, t, r); };
  auto neg = [&](Value x) -> Value {
    return arith::NegFOp::create(b, curLoc, x);
  };
  auto sqrtv = [&](Value x) -> Value {
    return math::SqrtOp::create(b, curLoc, x);
  };
  auto sel = [&](Value cnd, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, curLoc, cnd, x, y);
  };
  auto lt = [&](Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, curLoc, arith::CmpFPredicate::OLT, x, y);
  };
  auto mat2mul = [&](ArrayRef<Value> X, ArrayRef<Value> Y) {
    SmallVector<Value, 4> out;
    for (unsigned i = 0; i < 2; ++i)
      for (unsigned j = 0; j < 2; ++j)
        out.push_back(add(mul(X[i * 2], Y[j]), mul(X[i * 2 + 1], Y[2 + j])));
    return out;
  };
  RV out;
  auto emit = [&](ArrayRef<Value> vs) {
    for (Value v : vs)
      out.push(v, t);
  };
  auto eq = [&](Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, curLoc, arith::CmpFPredicate::OEQ, x, y);
  };
  auto andv = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, curLoc, x, y);
  };
  auto absv = [&](Value x) -> Value {
    return math::AbsFOp::create(b, curLoc, x);
  };
  // Taichi's closed forms (python/taichi/_funcs.py of Taichi 1.7.4), operation
  // for operation in its order; its branches become arith.select (both
  // sides are computed, the discarded one may be inf/NaN).
  if (which == Builtin::SymEig) {
    // _sym_eig2x2. One departure: sqrt(max(gap, 0)), where Taichi takes
    // sqrt(gap) and returns NaN when rounding makes gap slightly negative.
    Value tr = add(m[0], m[3]);
    Value det = sub(mul(m[0], m[3]), mul(m[1], m[2]));
    Value gap = sub(mul(tr, tr), mul(c(4.0), det));
    Value sq = sqrtv(arith::MaxNumFOp::create(b, curLoc, gap, c(0.0)));
    Value l1 = mul(add(tr, sq), c(0.5)), l2 = mul(sub(tr, sq), c(0.5));
    // A1 = A - l1 I, A2 = A - l2 I (l * 0 off the diagonal, as Taichi).
    Value a1_00 = sub(m[0], l1), a1_01 = sub(m[1], mul(l1, c(0.0)));
    Value a1_10 = sub(m[2], mul(l1, c(0.0))), a1_11 = sub(m[3], l1);
    Value a2_00 = sub(m[0], l2), a2_10 = sub(m[2], mul(l2, c(0.0)));
    // v = normalized([A[0, 0], A[1, 0]]): 1 / (sqrt(x^2 + y^2 + 0) + 0) * v
    auto normalizedCol = [&](Value x, Value y, Value &nx, Value &ny) {
      Value n = add(sqrtv(add(add(mul(x, x), mul(y, y)), c(0.0))), c(0.0));
      Value inv = div(c(1.0), n);
      nx = mul(inv, x);
      ny = mul(inv, y);
    };
    Value v1x, v1y, v2x, v2y;
    normalizedCol(a2_00, a2_10, v1x, v1y);
    normalizedCol(a1_00, a1_10, v2x, v2y);
    // Taichi tests all(A1 == 0) (twice): then v1 = (0, 1), v2 = (1, 0).
    Value zero1 = andv(andv(eq(a1_00, c(0.0)), eq(a1_01, c(0.0))),
                       andv(eq(a1_10, c(0.0)), eq(a1_11, c(0.0))));
    v1x = sel(zero1, c(0.0), v1x);
    v1y = sel(zero1, c(1.0), v1y);
    v2x = sel(zero1, c(1.0), v2x);
    v2y = sel(zero1, c(0.0), v2y);
    emit({l1, l2});
    emit({v1x, v2x, v1y, v2y}); // eigenvectors as columns
    return out;
  }
  // _polar_decompose2d: A = U P.
  Value detA = sub(mul(m[0], m[3]), mul(m[2], m[1]));
  Value adetA = absv(detA);
  Value negDet = lt(detA, c(0.0));
  SmallVector<Value, 4> B{sel(negDet, sub(m[0], m[3]), add(m[0], m[3])),
                          sel(negDet, add(m[1], m[2]), sub(m[1], m[2])),
                          sel(negDet, add(m[2], m[1]), sub(m[2], m[1])),
                          sel(negDet, sub(m[3], m[0]), add(m[3], m[0]))};
  Value adetB = absv(sub(mul(B[0], B[3]), mul(B[2], B[1])));
  Value k = div(c(1.0), sqrtv(adetB));
  SmallVector<Value, 4> At{m[0], m[2], m[1], m[3]};
  SmallVector<Value, 4> AtA = mat2mul(At, m);
  Value zeroA = andv(andv(eq(m[0], c(0.0)), eq(m[1], c(0.0))),
                     andv(eq(m[2], c(0.0)), eq(m[3], c(0.0))));
  SmallVector<Value, 4> R, S;
  for (unsigned i = 0; i < 4; ++i) {
    bool diag = i == 0 || i == 3;
    R.push_back(sel(zeroA, c(diag ? 1.0 : 0.0), mul(B[i], k)));
    Value p = mul(add(AtA[i], mul(adetA, c(diag ? 1.0 : 0.0))), k);
    S.push_back(sel(zeroA, m[i], p));
  }
  if (which == Builtin::PolarDecompose) {
    emit(R);
    emit(S);
    return out;
  }
  // SVD of the symmetric S by one Jacobi rotation (Taichi's svd2d).
  Value small = lt(math::AbsFOp::create(b, curLoc, S[1]), c(1e-5));
  Value tao = mul(c(0.5), sub(S[0], S[3]));
  Value w = sqrtv(add(mul(tao, tao), mul(S[1], S[1])));
  Value tt =
      sel(lt(c(0.0), tao), div(S[1], add(tao, w)), div(S[1], sub(tao, w)));
  Value cj = div(c(1.0), sqrtv(add(mul(tt, tt), c(1.0))));
  Value sj = neg(mul(tt, cj));
  Value cc = mul(cj, cj), ss = mul(sj, sj), cs2 = mul(c(2.0), mul(cj, sj));
  Value s1j = add(sub(mul(cc, S[0]), mul(cs2, S[1])), mul(ss, S[3]));
  Value s2j = add(add(mul(ss, S[0]), mul(cs2, S[1])), mul(cc, S[3]));
  Value cr = sel(small, c(1.0), cj), sr = sel(small, c(0.0), sj);
  Value s1 = sel(small, S[0], s1j), s2 = sel(small, S[3], s2j);
  Value swap = lt(s1, s2);
  // V = swap ? [[-s, c], [-c, -s]] : [[c, s], [-s, c]]
  SmallVector<Value, 4> V{sel(swap, neg(sr), cr), sel(swap, cr, sr),
                          sel(swap, neg(cr), neg(sr)), sel(swap, neg(sr), cr)};
  Value sig1 = sel(swap, s2, s1), sig2 = sel(swap, s1, s2);
  SmallVector<Value, 4> U = mat2mul(R, V);
  emit(U);
  emit({sig1, c(0.0), c(0.0), sig2});
  emit(V);
  return out;
}

/// 3x3 decompositions by cyclic Jacobi sweeps (exact Givens rotations,
/// branch-free with arith.select; 5 sweeps for f32, 8 for f64):
///   sym_eig(A):  A = Q diag(e) Q^T, eigenvalues descending, det Q = 1;
///   svd(A):      eigen-decomposition of A^T A gives V; B = A V is
///                orthogonalized (Gram-Schmidt, u3 = u1 x u2) into U Sigma,
///                so U and V are rotations and sigma3 carries the sign of
///                det A (Taichi's convention);
///   polar(A):    R = U V^T, S = V Sigma V^T.
RV Generator::decompose3x3(Builtin which, ArrayRef<Value> A, ST t,
                           SourceRange r) {
  using BO = tast::BinaryOp;
  if (!t.isFloat())
    t = defaultFloat();
  auto c = [&](double v) { return cFloat(v, t); };
  auto add = [&](Value x, Value y) { return scalarBinop(BO::Add, x, y, t, r); };
  auto sub = [&](Value x, Value y) { return scalarBinop(BO::Sub, x, y, t, r); };
  auto mul = [&](Value x, Value y) { return scalarBinop(BO::Mul, x, y, t, r); };
  auto div = [&](Value x, Value y) { return scalarBinop(BO::Div, x, y, t, r); };
  auto neg = [&](Value x) -> Value {
    return arith::NegFOp::create(b, curLoc, x);
  };
  auto sqrtv = [&](Value x) -> Value {
    return math::SqrtOp::create(b, curLoc, x);
  };
  auto absv = [&](Value x) -> Value {
    return math::AbsFOp::create(b, curLoc, x);
  };
  auto sel = [&](Value cnd, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, curLoc, cnd, x, y);
  };
  auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, curLoc, p, x, y);
  };
  using M3 = std::array<Value, 9>;
  auto matmul = [&](const M3 &X, const M3 &Y) {
    M3 Z;
    for (unsigned i = 0; i < 3; ++i)
      for (unsigned j = 0; j < 3; ++j)
        Z[i * 3 + j] =
            add(add(mul(X[i * 3], Y[j]), mul(X[i * 3 + 1], Y[3 + j])),
                mul(X[i * 3 + 2], Y[6 + j]));
    return Z;
  };
  auto transpose = [&](const M3 &X) {
    M3 Z;
    for (unsigned i = 0; i < 3; ++i)
      for (unsigned j = 0; j < 3; ++j)
        Z[j * 3 + i] = X[i * 3 + j];
    return Z;
  };
  M3 Am;
  for (unsigned i = 0; i < 9; ++i)
    Am[i] = A[i];
  M3 I3;
  for (unsigned i = 0; i < 9; ++i)
    I3[i] = c(i % 4 == 0 ? 1.0 : 0.0);

  // Jacobi eigen-decomposition of the symmetric S: S <- J^T S J, V <- V J.
  auto jacobi = [&](M3 S, M3 &V) {
    V = I3;
    unsigned sweeps = t.bits == 64 ? 8 : 5;
    const unsigned P[3] = {0, 0, 1}, Q[3] = {1, 2, 2};
    for (unsigned sw = 0; sw < sweeps; ++sw)
      for (unsigned k = 0; k < 3; ++k) {
        unsigned p = P[k], q = Q[k];
        Value apq = S[p * 3 + q], app = S[p * 3 + p], aqq = S[q * 3 + q];
        Value zero = cmp(arith::CmpFPredicate::OEQ, apq, c(0.0));
        Value theta = div(sub(aqq, app), mul(c(2.0), apq));
        Value sgn =
            sel(cmp(arith::CmpFPredicate::OGE, theta, c(0.0)), c(1.0), c(-1.0));
        // |theta| huge: theta^2 overflows to inf and t -> 0, as it should.
        Value tt =
            div(sgn, add(absv(theta), sqrtv(add(mul(theta, theta), c(1.0)))));
        Value cs = div(c(1.0), sqrtv(add(mul(tt, tt), c(1.0))));
        Value sn = mul(tt, cs);
        cs = sel(zero, c(1.0), cs);
        sn = sel(zero, c(0.0), sn);
        M3 J = I3;
        J[p * 3 + p] = cs;
        J[q * 3 + q] = cs;
        J[p * 3 + q] = sn;
        J[q * 3 + p] = neg(sn);
        S = matmul(matmul(transpose(J), S), J);
        V = matmul(V, J);
      }
    return S;
  };
  // Sorts eigenvalues (descending) with the columns of V, keeping det V.
  auto sortDesc = [&](std::array<Value, 3> &ev, M3 &V) {
    const unsigned X[3] = {0, 0, 1}, Y[3] = {1, 2, 2};
    for (unsigned k = 0; k < 3; ++k) {
      unsigned i = X[k], j = Y[k];
      Value sw = cmp(arith::CmpFPredicate::OLT, ev[i], ev[j]);
      Value ei = sel(sw, ev[j], ev[i]), ej = sel(sw, ev[i], ev[j]);
      ev[i] = ei;
      ev[j] = ej;
      for (unsigned row = 0; row < 3; ++row) {
        Value vi = V[row * 3 + i], vj = V[row * 3 + j];
        // Swapping two columns flips det V: negate the moved-down column.
        V[row * 3 + i] = sel(sw, vj, vi);
        V[row * 3 + j] = sel(sw, neg(vi), vj);
      }
    }
  };
  RV out;
  auto emit = [&](ArrayRef<Value> vs) {
    for (Value v : vs)
      out.push(v, t);
  };
  if (which == Builtin::SymEig) {
    M3 V;
    M3 D = jacobi(Am, V);
    std::array<Value, 3> ev{D[0], D[4], D[8]};
    sortDesc(ev, V);
    emit(ev);
    emit(V);
    return out;
  }
  M3 V;
  M3 D = jacobi(matmul(transpose(Am), Am), V);
  std::array<Value, 3> ev{D[0], D[4], D[8]};
  sortDesc(ev, V);
  M3 B = matmul(Am, V);
  auto col = [&](const M3 &X, unsigned j) {
    return std::array<Value, 3>{X[j], X[3 + j], X[6 + j]};
  };
  auto dot3 = [&](const std::array<Value, 3> &x,
                  const std::array<Value, 3> &y) {
    return add(add(mul(x[0], y[0]), mul(x[1], y[1])), mul(x[2], y[2]));
  };
  auto cross3 = [&](const std::array<Value, 3> &x,
                    const std::array<Value, 3> &y) {
    return std::array<Value, 3>{sub(mul(x[1], y[2]), mul(x[2], y[1])),
                                sub(mul(x[2], y[0]), mul(x[0], y[2])),
                                sub(mul(x[0], y[1]), mul(x[1], y[0]))};
  };
  Value eps = c(t.bits == 64 ? 1e-150 : 1e-30);
  // u1 = b1 / |b1| (e1 when A = 0).
  std::array<Value, 3> b1 = col(B, 0), b2 = col(B, 1), b3 = col(B, 2);
  Value s1 = sqrtv(dot3(b1, b1));
  Value ok1 = cmp(arith::CmpFPredicate::OGT, s1, eps);
  Value inv1 = div(c(1.0), s1);
  std::array<Value, 3> u1{sel(ok1, mul(b1[0], inv1), c(1.0)),
                          sel(ok1, mul(b1[1], inv1), c(0.0)),
                          sel(ok1, mul(b1[2], inv1), c(0.0))};
  // u2 = normalized (b2 - (u1.b2) u1), or any unit vector orthogonal to u1.
  Value d12 = dot3(u1, b2);
  std::array<Value, 3> w{sub(b2[0], mul(d12, u1[0])),
                         sub(b2[1], mul(d12, u1[1])),
                         sub(b2[2], mul(d12, u1[2]))};
  Value s2 = sqrtv(dot3(w, w));
  Value ok2 = cmp(arith::CmpFPredicate::OGT, s2, mul(eps, add(s1, c(1.0))));
  Value useX = cmp(arith::CmpFPredicate::OLT, absv(u1[0]), c(0.9));
  std::array<Value, 3> axis{sel(useX, c(1.0), c(0.0)),
                            sel(useX, c(0.0), c(1.0)), c(0.0)};
  std::array<Value, 3> o = cross3(u1, axis);
  Value on = div(c(1.0), sqrtv(dot3(o, o)));
  Value inv2 = div(c(1.0), s2);
  std::array<Value, 3> u2;
  for (unsigned i = 0; i < 3; ++i)
    u2[i] = sel(ok2, mul(w[i], inv2), mul(o[i], on));
  s2 = sel(ok2, s2, c(0.0));
  std::array<Value, 3> u3 = cross3(u1, u2);
  Value s3 = dot3(u3, b3);
  M3 U{u1[0], u2[0], u3[0], u1[1], u2[1], u3[1], u1[2], u2[2], u3[2]};
  M3 Sig{s1, c(0.0), c(0.0), c(0.0), s2, c(0.0), c(0.0), c(0.0), s3};
  if (which == Builtin::Svd) {
    emit(U);
    emit(Sig);
    emit(V);
    return out;
  }
  M3 Vt = transpose(V);
  emit(matmul(U, Vt));
  emit(matmul(matmul(V, Sig), Vt));
  return out;
}

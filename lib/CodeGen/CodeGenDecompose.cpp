//===- CodeGenDecompose.cpp - svd, polar_decompose, sym_eig ---------------===//
//
// Part of the AST -> MLIR code generator: see CodeGenImpl.h and
// docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

#include <array>

using namespace mlir;
using namespace tic::codegen::detail;

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
  if (which == Builtin::SymEig) {
    // lambda = (tr +- sqrt(tr^2 - 4 det)) / 2; eigenvectors from the
    // columns of A - lambda_other I, normalized.
    Value tr = add(m[0], m[3]);
    Value det = sub(mul(m[0], m[3]), mul(m[1], m[2]));
    Value gap = sub(mul(tr, tr), mul(c(4.0), det));
    Value sq = sqrtv(arith::MaxNumFOp::create(b, curLoc, gap, c(0.0)));
    Value l1 = mul(add(tr, sq), c(0.5)), l2 = mul(sub(tr, sq), c(0.5));
    // v1 = normalized column 0 of (A - l2 I), v2 = of (A - l1 I).
    Value a2x = sub(m[0], l2), a2y = m[2];
    Value a1x = sub(m[0], l1), a1y = m[2];
    Value n2 = sqrtv(add(mul(a2x, a2x), mul(a2y, a2y)));
    Value n1 = sqrtv(add(mul(a1x, a1x), mul(a1y, a1y)));
    // Degenerate (A is a multiple of I, or the column vanishes): use the
    // other column, then the axes.
    Value b2x = m[1], b2y = sub(m[3], l2), b1x = m[1], b1y = sub(m[3], l1);
    Value nb2 = sqrtv(add(mul(b2x, b2x), mul(b2y, b2y)));
    Value nb1 = sqrtv(add(mul(b1x, b1x), mul(b1y, b1y)));
    Value eps = c(t.bits == 64 ? 1e-12 : 1e-6);
    Value use2a = lt(eps, n2), use1a = lt(eps, n1);
    Value use2b = lt(eps, nb2), use1b = lt(eps, nb1);
    Value v1x = sel(use2a, div(a2x, n2), sel(use2b, div(b2x, nb2), c(1.0)));
    Value v1y = sel(use2a, div(a2y, n2), sel(use2b, div(b2y, nb2), c(0.0)));
    Value v2x = sel(use1a, div(a1x, n1), sel(use1b, div(b1x, nb1), c(0.0)));
    Value v2y = sel(use1a, div(a1y, n1), sel(use1b, div(b1y, nb1), c(1.0)));
    emit({l1, l2});
    emit({v1x, v2x, v1y, v2y}); // eigenvectors as columns
    return out;
  }
  // Polar: R = [[cs, -sn], [sn, cs]] with (cs, sn) ~ (a00 + a11, a10 - a01).
  Value x = add(m[0], m[3]), y = sub(m[2], m[1]);
  Value len = sqrtv(add(mul(x, x), mul(y, y)));
  Value zeroLen =
      arith::CmpFOp::create(b, curLoc, arith::CmpFPredicate::OEQ, len, c(0.0));
  Value scale = div(c(1.0), len);
  Value cs = sel(zeroLen, c(1.0), mul(x, scale));
  Value sn = sel(zeroLen, c(0.0), mul(y, scale));
  SmallVector<Value, 4> R{cs, neg(sn), sn, cs};
  SmallVector<Value, 4> Rt{cs, sn, neg(sn), cs};
  SmallVector<Value, 4> S = mat2mul(Rt, m);
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

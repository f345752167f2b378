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

namespace {

/// Scalar float arithmetic in one type, one IEEE operation per call, in the
/// order called: Taichi's algorithms are written out operation for
/// operation, so that results agree with Taichi's bit for bit (no folding,
/// reassociation or contraction happens on these ops later: arith ops carry
/// no fast-math flags).
struct FOps {
  OpBuilder &b;
  Location loc;
  mlir::Type ty;

  Value c(double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ty, v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value maxnum(Value x, Value y) {
    return arith::MaxNumFOp::create(b, loc, x, y);
  }
  /// Taichi's rsqrt on the CPU is 1 / sqrt(x).
  Value rsqrt(Value x) { return div(c(1.0), sqrt(x)); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value lt(Value x, Value y) { return cmp(arith::CmpFPredicate::OLT, x, y); }
  Value le(Value x, Value y) { return cmp(arith::CmpFPredicate::OLE, x, y); }
  Value gt(Value x, Value y) { return cmp(arith::CmpFPredicate::OGT, x, y); }
  Value ge(Value x, Value y) { return cmp(arith::CmpFPredicate::OGE, x, y); }
  Value eq(Value x, Value y) { return cmp(arith::CmpFPredicate::OEQ, x, y); }
  Value isZero(Value x) { return eq(x, c(0.0)); }
  Value all(ArrayRef<Value> conds) {
    Value acc = conds[0];
    for (Value x : conds.drop_front())
      acc = arith::AndIOp::create(b, loc, acc, x);
    return acc;
  }
  Value sel(Value cnd, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cnd, x, y);
  }
  void swapIf(Value cnd, Value &x, Value &y) {
    Value nx = sel(cnd, y, x), ny = sel(cnd, x, y);
    x = nx;
    y = ny;
  }

  /// Taichi's matrix product (python/taichi/lang/matrix_ops.py,
  /// _matmul_helper): every element starts from z = x[0,0] * y[0,0] * 0 and
  /// adds the products in order, z + x[i,0] y[0,j] + x[i,1] y[1,j] + ...
  SmallVector<Value, 9> matmul(ArrayRef<Value> x, ArrayRef<Value> y,
                               unsigned n) {
    Value z = mul(mul(x[0], y[0]), c(0.0));
    SmallVector<Value, 9> out;
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j) {
        Value acc = z;
        for (unsigned k = 0; k < n; ++k)
          acc = add(acc, mul(x[i * n + k], y[k * n + j]));
        out.push_back(acc);
      }
    return out;
  }
  SmallVector<Value, 9> transpose(ArrayRef<Value> x, unsigned n) {
    SmallVector<Value, 9> out;
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j)
        out.push_back(x[j * n + i]);
    return out;
  }
};

/// Taichi's _polar_decompose2d: A = U P with
///   B = [[a00 + a11, a01 - a10], [a10 - a01, a11 + a00]]   (det A >= 0)
///   B = [[a00 - a11, a01 + a10], [a10 + a01, a11 - a00]]   (det A < 0)
///   k = 1 / sqrt(|det B|), U = B k, P = (A^T A + |det A| I) k,
/// and (I, A) for the zero matrix. U is a rotation when det A >= 0, a
/// reflection when det A < 0; P is symmetric positive semi-definite.
void polar2x2(FOps &f, ArrayRef<Value> a, SmallVector<Value, 4> &U,
              SmallVector<Value, 4> &P) {
  Value a00 = a[0], a01 = a[1], a10 = a[2], a11 = a[3];
  Value zeroA =
      f.all({f.isZero(a00), f.isZero(a01), f.isZero(a10), f.isZero(a11)});
  Value detA = f.sub(f.mul(a00, a11), f.mul(a10, a01));
  Value adetA = f.abs(detA);
  Value negDet = f.lt(detA, f.c(0.0));
  Value b00 = f.sel(negDet, f.sub(a00, a11), f.add(a00, a11));
  Value b01 = f.sel(negDet, f.add(a01, a10), f.sub(a01, a10));
  Value b10 = f.sel(negDet, f.add(a10, a01), f.sub(a10, a01));
  Value b11 = f.sel(negDet, f.sub(a11, a00), f.add(a11, a00));
  Value adetB = f.abs(f.sub(f.mul(b00, b11), f.mul(b10, b01)));
  Value k = f.div(f.c(1.0), f.sqrt(adetB));
  SmallVector<Value, 9> AtA = f.matmul(f.transpose(a, 2), a, 2);
  // |det A| * I: Taichi drops the multiplications by 1, not those by 0.
  Value offDiag = f.mul(adetA, f.c(0.0));
  Value adI[4] = {adetA, offDiag, offDiag, adetA};
  Value I[4] = {f.c(1.0), f.c(0.0), f.c(0.0), f.c(1.0)};
  Value B[4] = {b00, b01, b10, b11};
  U.clear();
  P.clear();
  for (unsigned i = 0; i < 4; ++i) {
    U.push_back(f.sel(zeroA, I[i], f.mul(B[i], k)));
    P.push_back(f.sel(zeroA, a[i], f.mul(f.add(AtA[i], adI[i]), k)));
  }
}

/// Taichi's normalized(v) of a 2-vector: (1 / sqrt(x x + y y)) * v. Also
/// returns whether x x + y y is zero (the result is then NaN).
std::array<Value, 2> normalized2(FOps &f, Value x, Value y, Value &isNull) {
  Value nsq = f.add(f.mul(x, x), f.mul(y, y));
  isNull = f.isZero(nsq);
  Value inv = f.div(f.c(1.0), f.sqrt(nsq));
  return {f.mul(inv, x), f.mul(inv, y)};
}

} // namespace

/// 2x2 polar decomposition, SVD and symmetric eigen-decomposition: Taichi's
/// python/taichi/_funcs.py (_polar_decompose2d, _svd2d, _sym_eig2x2)
/// operation for operation, Taichi's branches as arith.select (both sides
/// are free of traps). Results, flattened:
///   polar_decompose: U, P (A = U P)
///   svd:             U, Sigma, V (A = U Sigma V^T)
///   sym_eig:         eigenvalues (vec2, descending), eigenvectors (columns)
RV Generator::decompose2x2(Builtin which, ArrayRef<Value> A, ST t,
                           SourceRange r) {
  if (!t.isFloat())
    t = defaultFloat();
  FOps f{b, curLoc, mty(t)};
  RV out;
  auto emit = [&](ArrayRef<Value> vs) {
    for (Value v : vs)
      out.push(v, t);
  };
  if (which == Builtin::SymEig) {
    Value a00 = A[0], a01 = A[1], a10 = A[2], a11 = A[3];
    Value tr = f.add(a00, a11);
    Value det = f.sub(f.mul(a00, a11), f.mul(a01, a10));
    Value gap = f.sub(f.mul(tr, tr), f.mul(f.c(4.0), det));
    // Not in Taichi: a gap rounded below zero (A close to a multiple of I)
    // would give NaN eigenvalues; it is taken as 0.
    gap = f.sel(f.lt(gap, f.c(0.0)), f.c(0.0), gap);
    Value sq = f.sqrt(gap);
    Value l1 = f.mul(f.add(tr, sq), f.c(0.5));
    Value l2 = f.mul(f.sub(tr, sq), f.c(0.5));
    // A1 = A - l1 I, A2 = A - l2 I (l * 0 on the off-diagonal, as Taichi).
    Value x00 = f.sub(a00, l1), x01 = f.sub(a01, f.mul(l1, f.c(0.0)));
    Value x10 = f.sub(a10, f.mul(l1, f.c(0.0))), x11 = f.sub(a11, l1);
    Value y00 = f.sub(a00, l2), y01 = f.sub(a01, f.mul(l2, f.c(0.0)));
    Value y10 = f.sub(a10, f.mul(l2, f.c(0.0))), y11 = f.sub(a11, l2);
    // Taichi tests A1 == 0 (twice: `all(A1 == 0) and all(A1 == 0)`).
    Value multipleOfI =
        f.all({f.isZero(x00), f.isZero(x01), f.isZero(x10), f.isZero(x11)});
    // v1 = normalized column 0 of A2, v2 = of A1.
    Value null1, null2, null1b, null2b;
    std::array<Value, 2> v1 = normalized2(f, y00, y10, null1);
    std::array<Value, 2> v2 = normalized2(f, x00, x10, null2);
    // Not in Taichi: where that column is zero (a diagonal A with a00 <
    // a11, say) Taichi's eigenvector is NaN; column 1 is used instead, and
    // a unit axis when that is zero too.
    std::array<Value, 2> v1b = normalized2(f, y01, y11, null1b);
    std::array<Value, 2> v2b = normalized2(f, x01, x11, null2b);
    Value axis0[2] = {f.c(1.0), f.c(0.0)}, axis1[2] = {f.c(0.0), f.c(1.0)};
    for (unsigned i = 0; i < 2; ++i) {
      v1[i] = f.sel(null1, f.sel(null1b, axis1[i], v1b[i]), v1[i]);
      v2[i] = f.sel(null2, f.sel(null2b, axis0[i], v2b[i]), v2[i]);
      v1[i] = f.sel(multipleOfI, axis1[i], v1[i]);
      v2[i] = f.sel(multipleOfI, axis0[i], v2[i]);
    }
    emit({l1, l2});
    emit({v1[0], v2[0], v1[1], v2[1]}); // eigenvectors as columns
    return out;
  }
  SmallVector<Value, 4> R, S;
  polar2x2(f, A, R, S);
  if (which == Builtin::PolarDecompose) {
    emit(R);
    emit(S);
    return out;
  }
  // Taichi's _svd2d: one Jacobi rotation diagonalizes the symmetric S.
  Value small = f.lt(f.abs(S[1]), f.c(1e-5));
  Value tao = f.mul(f.c(0.5), f.sub(S[0], S[3]));
  Value w = f.sqrt(f.add(f.mul(tao, tao), f.mul(S[1], S[1])));
  Value tt = f.sel(f.gt(tao, f.c(0.0)), f.div(S[1], f.add(tao, w)),
                   f.div(S[1], f.sub(tao, w)));
  Value cj = f.div(f.c(1.0), f.sqrt(f.add(f.mul(tt, tt), f.c(1.0))));
  Value sj = f.mul(f.neg(tt), cj);
  Value cc = f.mul(cj, cj), ss = f.mul(sj, sj);
  Value cs2 = f.mul(f.mul(f.c(2.0), cj), sj);
  Value s1j = f.add(f.sub(f.mul(cc, S[0]), f.mul(cs2, S[1])), f.mul(ss, S[3]));
  Value s2j = f.add(f.add(f.mul(ss, S[0]), f.mul(cs2, S[1])), f.mul(cc, S[3]));
  Value cr = f.sel(small, f.c(1.0), cj), sr = f.sel(small, f.c(0.0), sj);
  Value s1 = f.sel(small, S[0], s1j), s2 = f.sel(small, S[3], s2j);
  Value swap = f.lt(s1, s2);
  // V = swap ? [[-s, c], [-c, -s]] : [[c, s], [-s, c]]
  SmallVector<Value, 4> V{f.sel(swap, f.neg(sr), cr), f.sel(swap, cr, sr),
                          f.sel(swap, f.neg(cr), f.neg(sr)),
                          f.sel(swap, f.neg(sr), cr)};
  f.swapIf(swap, s1, s2);
  SmallVector<Value, 9> U = f.matmul(R, V, 2);
  emit(U);
  emit({s1, f.c(0.0), f.c(0.0), s2});
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

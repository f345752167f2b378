//===- CodeGenDecompose.cpp - svd, polar_decompose, sym_eig ---------------===//
//
// Part of the AST -> MLIR code generator: see CodeGenImpl.h and
// docs/codegen.md. The 2x2 and 3x3 decompositions are Taichi 1.7.4's
// (python/taichi/_funcs.py, taichi/math/svd.h) written out operation for
// operation, so that results match Taichi's bit for bit; the departures
// (where Taichi's result is NaN or wrong) are marked "Not in Taichi" or
// described at symEig3x3. integration_test/tests/decompositions_ref.h has
// the same algorithms in C.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

#include "llvm/ADT/bit.h"

#include <array>
#include <map>

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
  /// Constants by bit pattern, created once (an FOps emits into one block).
  std::map<uint64_t, Value> consts;

  Value c(double v) {
    Value &k = consts[llvm::bit_cast<uint64_t>(v)];
    if (!k)
      k = arith::ConstantOp::create(b, loc, b.getFloatAttr(ty, v));
    return k;
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
  Value rsqrt(Value x) {
    Value one = c(1.0);
    return div(one, sqrt(x));
  }
  /// x1 y1 - x2 y2 and x1 y1 + x2 y2, the products in this order. (These
  /// and the other sequenced calls below: the IR's order must not depend
  /// on the C++ compiler, which may evaluate call arguments in any order.)
  Value diffOfProducts(Value x1, Value y1, Value x2, Value y2) {
    Value p1 = mul(x1, y1);
    Value p2 = mul(x2, y2);
    return sub(p1, p2);
  }
  Value sumOfProducts(Value x1, Value y1, Value x2, Value y2) {
    Value p1 = mul(x1, y1);
    Value p2 = mul(x2, y2);
    return add(p1, p2);
  }
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
    Value z = mul(x[0], y[0]);
    z = mul(z, c(0.0));
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
  Value detA = f.diffOfProducts(a00, a11, a10, a01);
  Value adetA = f.abs(detA);
  Value negDet = f.lt(detA, f.c(0.0));
  Value d00 = f.sub(a00, a11), s00 = f.add(a00, a11);
  Value b00 = f.sel(negDet, d00, s00);
  Value s01 = f.add(a01, a10), d01 = f.sub(a01, a10);
  Value b01 = f.sel(negDet, s01, d01);
  Value s10 = f.add(a10, a01), d10 = f.sub(a10, a01);
  Value b10 = f.sel(negDet, s10, d10);
  Value d11 = f.sub(a11, a00), s11 = f.add(a11, a00);
  Value b11 = f.sel(negDet, d11, s11);
  Value adetB = f.abs(f.diffOfProducts(b00, b11, b10, b01));
  Value one = f.c(1.0);
  Value k = f.div(one, f.sqrt(adetB));
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
/// returns x x + y y.
std::array<Value, 2> normalized2(FOps &f, Value x, Value y, Value &nsq) {
  nsq = f.sumOfProducts(x, x, y, y);
  Value one = f.c(1.0);
  Value inv = f.div(one, f.sqrt(nsq));
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
    Value det = f.diffOfProducts(a00, a11, a01, a10);
    Value gap = f.mul(tr, tr);
    gap = f.sub(gap, f.mul(f.c(4.0), det));
    // Not in Taichi: a gap rounded below zero (A close to a multiple of I)
    // would give NaN eigenvalues; it is taken as 0.
    Value negGap = f.lt(gap, f.c(0.0));
    gap = f.sel(negGap, f.c(0.0), gap);
    Value sq = f.sqrt(gap);
    Value l1 = f.add(tr, sq);
    l1 = f.mul(l1, f.c(0.5));
    Value l2 = f.sub(tr, sq);
    l2 = f.mul(l2, f.c(0.5));
    // A1 = A - l1 I, A2 = A - l2 I (l * 0 on the off-diagonal, as Taichi).
    Value x00 = f.sub(a00, l1), x01 = f.sub(a01, f.mul(l1, f.c(0.0)));
    Value x10 = f.sub(a10, f.mul(l1, f.c(0.0))), x11 = f.sub(a11, l1);
    Value y00 = f.sub(a00, l2), y01 = f.sub(a01, f.mul(l2, f.c(0.0)));
    Value y10 = f.sub(a10, f.mul(l2, f.c(0.0))), y11 = f.sub(a11, l2);
    // Taichi tests A1 == 0 (twice: `all(A1 == 0) and all(A1 == 0)`).
    Value multipleOfI =
        f.all({f.isZero(x00), f.isZero(x01), f.isZero(x10), f.isZero(x11)});
    // v1 = normalized column 0 of A2, v2 = of A1.
    Value n1, n2, n1b, n2b;
    std::array<Value, 2> v1 = normalized2(f, y00, y10, n1);
    std::array<Value, 2> v2 = normalized2(f, x00, x10, n2);
    // Not in Taichi: A - l I = (l' - l) v v^T, so its columns are parallel
    // to v. Where column 0 is below sqrt(eps) of column 1 (a near-diagonal
    // A with a00 < a11, say) Taichi's eigenvector has lost at least half
    // its digits, and is NaN where column 0 is zero; column 1 is normalized
    // instead (a unit axis when both are zero).
    std::array<Value, 2> v1b = normalized2(f, y01, y11, n1b);
    std::array<Value, 2> v2b = normalized2(f, x01, x11, n2b);
    Value eps = f.c(t.bits == 64 ? 0x1p-52 : 0x1p-23);
    auto useCol1 = [&](Value nsq0, Value nsq1) -> Value {
      Value zero = f.isZero(nsq0);
      return arith::OrIOp::create(b, curLoc, zero,
                                  f.lt(nsq0, f.mul(nsq1, eps)));
    };
    Value other1 = useCol1(n1, n1b), other2 = useCol1(n2, n2b);
    Value null1b = f.isZero(n1b), null2b = f.isZero(n2b);
    Value axis0[2] = {f.c(1.0), f.c(0.0)}, axis1[2] = {f.c(0.0), f.c(1.0)};
    for (unsigned i = 0; i < 2; ++i) {
      v1[i] = f.sel(other1, f.sel(null1b, axis1[i], v1b[i]), v1[i]);
      v2[i] = f.sel(other2, f.sel(null2b, axis0[i], v2b[i]), v2[i]);
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
  Value absS01 = f.abs(S[1]);
  Value small = f.lt(absS01, f.c(1e-5));
  Value half = f.c(0.5);
  Value tao = f.mul(half, f.sub(S[0], S[3]));
  Value w = f.sqrt(f.sumOfProducts(tao, tao, S[1], S[1]));
  Value taoPos = f.gt(tao, f.c(0.0));
  Value ttPos = f.div(S[1], f.add(tao, w));
  Value ttNeg = f.div(S[1], f.sub(tao, w));
  Value tt = f.sel(taoPos, ttPos, ttNeg);
  Value one = f.c(1.0);
  Value ttSq = f.mul(tt, tt);
  Value cj = f.div(one, f.sqrt(f.add(ttSq, one)));
  Value sj = f.mul(f.neg(tt), cj);
  Value cc = f.mul(cj, cj), ss = f.mul(sj, sj);
  Value cs2 = f.mul(f.mul(f.c(2.0), cj), sj);
  Value s1j = f.diffOfProducts(cc, S[0], cs2, S[1]);
  s1j = f.add(s1j, f.mul(ss, S[3]));
  Value s2j = f.sumOfProducts(ss, S[0], cs2, S[1]);
  s2j = f.add(s2j, f.mul(cc, S[3]));
  Value cr = f.sel(small, f.c(1.0), cj), sr = f.sel(small, f.c(0.0), sj);
  Value s1 = f.sel(small, S[0], s1j), s2 = f.sel(small, S[3], s2j);
  Value swap = f.lt(s1, s2);
  // V = swap ? [[-s, c], [-c, -s]] : [[c, s], [-s, c]]
  SmallVector<Value, 4> V{f.sel(swap, f.neg(sr), cr), f.sel(swap, cr, sr)};
  Value negCr = f.neg(cr), negSr = f.neg(sr);
  V.push_back(f.sel(swap, negCr, negSr));
  V.push_back(f.sel(swap, f.neg(sr), cr));
  f.swapIf(swap, s1, s2);
  SmallVector<Value, 9> U = f.matmul(R, V, 2);
  emit(U);
  emit({s1, f.c(0.0), f.c(0.0), s2});
  emit(V);
  return out;
}

namespace {

using M3 = std::array<Value, 9>;

/// One conjugation of the Jacobi sweep in Sifakis et al.'s algorithm
/// (taichi/math/svd.h): an approximate Givens rotation (ch, sh) from the
/// off-diagonal `spq` and `tmp5 = spp - sqq` (the 2x2 block (p, q) of the
/// symmetric S, lower triangle), applied to S and accumulated into the
/// quaternion q. `sa`, `sb` are the other two off-diagonal entries (rows p
/// and q against the third index), `sr` the third diagonal entry, `qk` the
/// quaternion component of the rotation axis, `qk1`, `qk2` the next two
/// cyclically.
void sifakisConjugate(FOps &f, Value &spp, Value &sqq, Value &spq, Value &sa,
                      Value &sb, Value &sr, Value &qs, Value &qk, Value &qk1,
                      Value &qk2) {
  // Taichi's constants are float literals, also in f64.
  Value half = f.c(0.5f), one = f.c(1.0f);
  Value fourGammaSq = f.c(5.82842712474619f);
  Value sinPi8 = f.c(0.3826834323650897f);
  Value cosPi8 = f.c(0.9238795325112867f);
  Value tiny = f.c(1.e-20f);
  Value sh = f.mul(spq, half);
  Value t5 = f.sub(spp, sqq);
  Value t2 = f.mul(sh, sh);
  // The bit masks of the original as selects (the same bits).
  Value m = f.ge(t2, tiny);
  sh = f.sel(m, sh, f.c(0.0));
  Value ch = f.sel(m, t5, one);
  Value t1 = f.mul(sh, sh);
  t2 = f.mul(ch, ch);
  Value t3 = f.add(t1, t2);
  Value t4 = f.rsqrt(t3);
  sh = f.mul(t4, sh);
  ch = f.mul(t4, ch);
  t1 = f.mul(fourGammaSq, t1);
  m = f.le(t2, t1);
  sh = f.sel(m, sinPi8, sh);
  ch = f.sel(m, cosPi8, ch);
  t1 = f.mul(sh, sh);
  t2 = f.mul(ch, ch);
  Value c = f.sub(t2, t1);
  Value s = f.mul(ch, sh);
  s = f.add(s, s);
  t3 = f.add(t1, t2);
  sr = f.mul(sr, t3);
  sa = f.mul(sa, t3);
  sb = f.mul(sb, t3);
  sr = f.mul(sr, t3);
  t1 = f.mul(s, sa);
  t2 = f.mul(s, sb);
  sa = f.mul(c, sa);
  sb = f.mul(c, sb);
  sa = f.add(t2, sa);
  sb = f.sub(sb, t1);
  t2 = f.mul(s, s);
  t1 = f.mul(sqq, t2);
  t3 = f.mul(spp, t2);
  t4 = f.mul(c, c);
  spp = f.mul(spp, t4);
  sqq = f.mul(sqq, t4);
  spp = f.add(spp, t1);
  sqq = f.add(sqq, t3);
  t4 = f.sub(t4, t2);
  t2 = f.add(spq, spq);
  spq = f.mul(spq, t4);
  t4 = f.mul(c, s);
  t2 = f.mul(t2, t4);
  t5 = f.mul(t5, t4);
  spp = f.add(spp, t2);
  spq = f.sub(spq, t5);
  sqq = f.sub(sqq, t2);
  // q <- q * (ch + sh e_k)
  Value tk = f.mul(sh, qk), tk1 = f.mul(sh, qk1), tk2 = f.mul(sh, qk2);
  sh = f.mul(sh, qs);
  qs = f.mul(ch, qs);
  qk = f.mul(ch, qk);
  qk1 = f.mul(ch, qk1);
  qk2 = f.mul(ch, qk2);
  qk = f.add(qk, sh);
  qs = f.sub(qs, tk);
  qk1 = f.add(qk1, tk2);
  qk2 = f.sub(qk2, tk1);
}

/// 1 / sqrt(x) refined by one Newton step, as Sifakis et al. write it:
/// r + r/2 - x r (r r/2) with r = rsqrt(x).
Value sifakisRsqrtNewton(FOps &f, Value x) {
  Value t1 = f.rsqrt(x);
  Value t4 = f.mul(t1, f.c(0.5f));
  Value t3 = f.mul(t1, t4);
  t3 = f.mul(t1, t3);
  t3 = f.mul(x, t3);
  t1 = f.add(t1, t4);
  return f.sub(t1, t3);
}

/// One Givens rotation of the QR step: zeroes `apq` (row q, column p) of A
/// against the pivot `app`; rotates rows p and q of A (`rp`, `rq`) and
/// columns p and q of U (`up`, `uq`).
void sifakisGivens(FOps &f, Value apq, Value app, std::array<Value *, 3> rp,
                   std::array<Value *, 3> rq, std::array<Value *, 3> up,
                   std::array<Value *, 3> uq) {
  Value small = f.c(1.e-12f);
  Value sh = f.mul(apq, apq);
  Value keep = f.ge(sh, small);
  sh = f.sel(keep, apq, f.c(0.0));
  Value zero = f.c(0.0f);
  Value ch = f.sub(zero, app);
  ch = f.maxnum(ch, app);
  ch = f.maxnum(ch, small);
  Value pos = f.ge(app, zero);
  Value t1 = f.mul(ch, ch);
  Value t2 = f.mul(sh, sh);
  t2 = f.add(t1, t2);
  t1 = f.mul(sifakisRsqrtNewton(f, t2), t2);
  ch = f.add(ch, t1);
  // A negative pivot swaps ch and sh.
  Value nch = f.sel(pos, ch, sh), nsh = f.sel(pos, sh, ch);
  ch = nch;
  sh = nsh;
  t1 = f.mul(ch, ch);
  t2 = f.mul(sh, sh);
  t2 = f.add(t1, t2);
  t1 = sifakisRsqrtNewton(f, t2);
  ch = f.mul(ch, t1);
  sh = f.mul(sh, t1);
  Value c = f.mul(ch, ch);
  Value s = f.mul(sh, sh);
  c = f.sub(c, s);
  s = f.mul(sh, ch);
  s = f.add(s, s);
  auto rotate = [&](Value &x, Value &y) {
    Value ta = f.mul(s, x), tb = f.mul(s, y);
    x = f.mul(c, x);
    y = f.mul(c, y);
    x = f.add(x, tb);
    y = f.sub(y, ta);
  };
  for (unsigned j = 0; j < 3; ++j)
    rotate(*rp[j], *rq[j]);
  for (unsigned i = 0; i < 3; ++i)
    rotate(*up[i], *uq[i]);
}

/// Sifakis et al., "Computing the Singular Value Decomposition of 3x3
/// matrices with minimal branching and elementary floating point
/// operations", as Taichi 1.7.4 emits it (taichi/math/svd.h,
/// sifakis_svd_export): `iters` Jacobi sweeps with approximate Givens
/// rotations on A^T A (V accumulated as a quaternion), the columns of A V
/// sorted by decreasing norm, then QR by Givens rotations: A = U diag(sig)
/// V^T with U and V rotations (sig[2] < 0 when det A < 0).
void sifakisSvd(FOps &f, ArrayRef<Value> A, unsigned iters, M3 &U, M3 &V,
                std::array<Value, 3> &sig) {
  // a_rc = A[r-1][c-1], as in the original's Sa11..Sa33.
  Value a11 = A[0], a12 = A[1], a13 = A[2];
  Value a21 = A[3], a22 = A[4], a23 = A[5];
  Value a31 = A[6], a32 = A[7], a33 = A[8];
  Value qs = f.c(1.0f), qx = f.c(0.0f), qy = f.c(0.0f), qz = f.c(0.0f);
  // S = A^T A, lower triangle: s_ij = (a_1i a_1j + a_2i a_2j) + a_3i a_3j
  // accumulated as t + s.
  auto gram = [&](Value x1, Value y1, Value x2, Value y2, Value x3, Value y3) {
    Value acc = f.mul(x1, y1);
    acc = f.add(f.mul(x2, y2), acc);
    return f.add(f.mul(x3, y3), acc);
  };
  Value s11 = gram(a11, a11, a21, a21, a31, a31);
  Value s21 = gram(a12, a11, a22, a21, a32, a31);
  Value s31 = gram(a13, a11, a23, a21, a33, a31);
  Value s22 = gram(a12, a12, a22, a22, a32, a32);
  Value s32 = gram(a13, a12, a23, a22, a33, a32);
  Value s33 = gram(a13, a13, a23, a23, a33, a33);
  for (unsigned sweep = 0; sweep < iters; ++sweep) {
    sifakisConjugate(f, s11, s22, s21, s31, s32, s33, qs, qz, qx, qy);
    sifakisConjugate(f, s22, s33, s32, s21, s31, s11, qs, qx, qy, qz);
    sifakisConjugate(f, s33, s11, s31, s32, s21, s22, qs, qy, qz, qx);
  }
  // Normalize the quaternion (one Newton-refined rsqrt) and build V.
  Value t2 = f.mul(qs, qs);
  Value t1 = f.mul(qx, qx);
  t2 = f.add(t1, t2);
  t1 = f.mul(qy, qy);
  t2 = f.add(t1, t2);
  t1 = f.mul(qz, qz);
  t2 = f.add(t1, t2);
  t1 = sifakisRsqrtNewton(f, t2);
  qs = f.mul(qs, t1);
  qx = f.mul(qx, t1);
  qy = f.mul(qy, t1);
  qz = f.mul(qz, t1);
  t1 = f.mul(qx, qx);
  t2 = f.mul(qy, qy);
  Value t3 = f.mul(qz, qz);
  Value v11 = f.mul(qs, qs);
  Value v22 = f.sub(v11, t1);
  Value v33 = f.sub(v22, t2);
  v33 = f.add(v33, t3);
  v22 = f.add(v22, t2);
  v22 = f.sub(v22, t3);
  v11 = f.add(v11, t1);
  v11 = f.sub(v11, t2);
  v11 = f.sub(v11, t3);
  t1 = f.add(qx, qx);
  t2 = f.add(qy, qy);
  t3 = f.add(qz, qz);
  Value v32 = f.mul(qs, t1);
  Value v13 = f.mul(qs, t2);
  Value v21 = f.mul(qs, t3);
  t1 = f.mul(qy, t1);
  t2 = f.mul(qz, t2);
  t3 = f.mul(qx, t3);
  Value v12 = f.sub(t1, v21);
  Value v23 = f.sub(t2, v32);
  Value v31 = f.sub(t3, v13);
  v21 = f.add(t1, v21);
  v32 = f.add(t2, v32);
  v13 = f.add(t3, v13);
  // A <- A V, row by row.
  auto rowTimesV = [&](Value &x1, Value &x2, Value &x3) {
    Value y2 = x2, y3 = x3;
    x2 = f.mul(v12, x1);
    x3 = f.mul(v13, x1);
    x1 = f.mul(v11, x1);
    x1 = f.add(x1, f.mul(v21, y2));
    x1 = f.add(x1, f.mul(v31, y3));
    x2 = f.add(x2, f.mul(v22, y2));
    x2 = f.add(x2, f.mul(v32, y3));
    x3 = f.add(x3, f.mul(v23, y2));
    x3 = f.add(x3, f.mul(v33, y3));
  };
  rowTimesV(a11, a12, a13);
  rowTimesV(a21, a22, a23);
  rowTimesV(a31, a32, a33);
  // Sort the columns of A V (and V) by decreasing norm; a swap negates the
  // column that moves down, keeping both rotations.
  auto colNorm = [&](Value x, Value y, Value z) {
    Value acc = f.mul(x, x);
    acc = f.add(acc, f.mul(y, y));
    return f.add(acc, f.mul(z, z));
  };
  Value n1 = colNorm(a11, a21, a31), n2 = colNorm(a12, a22, a32),
        n3 = colNorm(a13, a23, a33);
  auto sortCols = [&](Value &ni, Value &nj, std::array<Value *, 6> ci,
                      std::array<Value *, 6> cj, std::array<Value *, 6> neg) {
    Value sw = f.lt(ni, nj);
    for (unsigned k = 0; k < 6; ++k)
      f.swapIf(sw, *ci[k], *cj[k]);
    f.swapIf(sw, ni, nj);
    Value minus = f.c(-1.0f), plus = f.c(1.0f);
    Value sgn = f.sel(sw, minus, plus);
    for (unsigned k = 0; k < 6; ++k)
      *neg[k] = f.mul(*neg[k], sgn);
  };
  sortCols(n1, n2, {&a11, &a21, &a31, &v11, &v21, &v31},
           {&a12, &a22, &a32, &v12, &v22, &v32},
           {&a12, &a22, &a32, &v12, &v22, &v32});
  sortCols(n1, n3, {&a11, &a21, &a31, &v11, &v21, &v31},
           {&a13, &a23, &a33, &v13, &v23, &v33},
           {&a11, &a21, &a31, &v11, &v21, &v31});
  sortCols(n2, n3, {&a12, &a22, &a32, &v12, &v22, &v32},
           {&a13, &a23, &a33, &v13, &v23, &v33},
           {&a13, &a23, &a33, &v13, &v23, &v33});
  // QR: Givens rotations zero a21, a31, a32; U accumulates them.
  Value u11 = f.c(1.0f), u12 = f.c(0.0f), u13 = f.c(0.0f);
  Value u21 = f.c(0.0f), u22 = f.c(1.0f), u23 = f.c(0.0f);
  Value u31 = f.c(0.0f), u32 = f.c(0.0f), u33 = f.c(1.0f);
  sifakisGivens(f, a21, a11, {&a11, &a12, &a13}, {&a21, &a22, &a23},
                {&u11, &u21, &u31}, {&u12, &u22, &u32});
  sifakisGivens(f, a31, a11, {&a11, &a12, &a13}, {&a31, &a32, &a33},
                {&u11, &u21, &u31}, {&u13, &u23, &u33});
  sifakisGivens(f, a32, a22, {&a21, &a22, &a23}, {&a31, &a32, &a33},
                {&u12, &u22, &u32}, {&u13, &u23, &u33});
  U = {u11, u12, u13, u21, u22, u23, u31, u32, u33};
  V = {v11, v12, v13, v21, v22, v23, v31, v32, v33};
  sig = {a11, a22, a33};
}

/// Cyclic Jacobi eigen-decomposition of the symmetric S (exact Givens
/// rotations, `sweeps` sweeps, no control flow): S = V diag(ev) V^T.
void jacobiEigen3x3(FOps &f, M3 S, unsigned sweeps, std::array<Value, 3> &ev,
                    M3 &V) {
  for (unsigned i = 0; i < 9; ++i)
    V[i] = f.c(i % 4 == 0 ? 1.0 : 0.0);
  const unsigned P[3] = {0, 0, 1}, Q[3] = {1, 2, 2};
  for (unsigned sw = 0; sw < sweeps; ++sw)
    for (unsigned n = 0; n < 3; ++n) {
      unsigned p = P[n], q = Q[n], k = 3 - p - q;
      Value apq = S[p * 3 + q], app = S[p * 3 + p], aqq = S[q * 3 + q];
      Value zero = f.isZero(apq);
      Value theta = f.sub(aqq, app);
      theta = f.div(theta, f.mul(f.c(2.0), apq));
      Value thetaPos = f.ge(theta, f.c(0.0));
      Value one = f.c(1.0), minusOne = f.c(-1.0);
      Value sgn = f.sel(thetaPos, one, minusOne);
      // |theta| huge: theta^2 overflows to inf and t -> 0, as it should.
      Value absTheta = f.abs(theta);
      Value thetaSq = f.mul(theta, theta);
      Value hyp = f.sqrt(f.add(thetaSq, one));
      Value t = f.div(sgn, f.add(absTheta, hyp));
      Value tSq = f.mul(t, t);
      Value c = f.div(one, f.sqrt(f.add(tSq, one)));
      Value s = f.mul(t, c);
      t = f.sel(zero, f.c(0.0), t);
      c = f.sel(zero, f.c(1.0), c);
      s = f.sel(zero, f.c(0.0), s);
      S[p * 3 + p] = f.sub(app, f.mul(t, apq));
      S[q * 3 + q] = f.add(aqq, f.mul(t, apq));
      S[p * 3 + q] = S[q * 3 + p] = f.c(0.0);
      Value akp = S[k * 3 + p], akq = S[k * 3 + q];
      S[k * 3 + p] = S[p * 3 + k] = f.diffOfProducts(c, akp, s, akq);
      S[k * 3 + q] = S[q * 3 + k] = f.sumOfProducts(s, akp, c, akq);
      for (unsigned i = 0; i < 3; ++i) {
        Value vip = V[i * 3 + p], viq = V[i * 3 + q];
        V[i * 3 + p] = f.diffOfProducts(c, vip, s, viq);
        V[i * 3 + q] = f.sumOfProducts(s, vip, c, viq);
      }
    }
  ev = {S[0], S[4], S[8]};
}

} // namespace

/// 3x3 decompositions after Taichi 1.7.4:
///   svd(A):      Sifakis et al.'s algorithm as taichi/math/svd.h writes it
///                (5 sweeps for f32, 8 for f64), operation for operation;
///   polar(A):    Taichi's _polar_decompose3d: R = U V^T, S = V Sigma V^T
///                (Taichi's matrix products);
///   sym_eig(A):  see symEig3x3.
RV Generator::decompose3x3(Builtin which, ArrayRef<Value> A, ST t,
                           SourceRange r) {
  if (!t.isFloat())
    t = defaultFloat();
  FOps f{b, curLoc, mty(t)};
  RV out;
  auto emit = [&](ArrayRef<Value> vs) {
    for (Value v : vs)
      out.push(v, t);
  };
  if (which == Builtin::SymEig)
    return symEig3x3(A, t);
  M3 U, V;
  std::array<Value, 3> sig;
  sifakisSvd(f, A, t.bits == 64 ? 8 : 5, U, V, sig);
  // Taichi's get_result(): Sigma = Matrix.zero with the diagonal set.
  Value z = f.c(0.0);
  M3 Sig{sig[0], z, z, z, sig[1], z, z, z, sig[2]};
  if (which == Builtin::Svd) {
    emit(U);
    emit(Sig);
    emit(V);
    return out;
  }
  SmallVector<Value, 9> Vt = f.transpose(V, 3);
  emit(f.matmul(U, Vt, 3));
  emit(f.matmul(f.matmul(V, Sig, 3), Vt, 3));
  return out;
}

/// Taichi's _sym_eig3x3 (python/taichi/_funcs.py): Cardano's method after
/// Kopp's dsyevh3, operation for operation; eigenvalues ascending,
/// eigenvectors as the columns of Q (a cross product gives the third).
/// Where Cardano's eigenvectors are ill-determined (|column|^2 <= 256 eps
/// max|lambda|^2, e.g. block-diagonal matrices) Taichi falls back to
/// dsyevq3 (QL); Taichi 1.7.4's port of it does not reset Q to the identity
/// and never looks at the last off-diagonal element, so its eigenvalues and
/// eigenvectors are wrong there. tic branches to cyclic Jacobi sweeps
/// instead (jacobiEigen3x3, on the upper triangle as Taichi reads it).
RV Generator::symEig3x3(ArrayRef<Value> A, ST t) {
  FOps f{b, curLoc, mty(t)};
  // Taichi reads the upper triangle and the diagonal only.
  Value a00 = A[0], a01 = A[1], a02 = A[2], a11 = A[4], a12 = A[5], a22 = A[8];
  // Python constants, rounded to the element type as Taichi does.
  const double sqrt3 = 1.73205080756887729352744634151;
  const double dblEpsilon = 2.2204460492503131e-16;
  Value m = f.add(f.add(a00, a11), a22);
  Value dd = f.mul(a01, a01), ee = f.mul(a12, a12), ff = f.mul(a02, a02);
  Value c1 = f.sumOfProducts(a00, a11, a00, a22);
  c1 = f.add(c1, f.mul(a11, a22));
  c1 = f.sub(c1, f.add(f.add(dd, ee), ff));
  Value c0 = f.sumOfProducts(a22, dd, a00, ee);
  c0 = f.add(c0, f.mul(a11, ff));
  c0 = f.sub(c0, f.mul(f.mul(a00, a11), a22));
  c0 = f.sub(c0, f.mul(f.mul(f.mul(f.c(2.0), a02), a01), a12));
  Value p = f.mul(m, m);
  p = f.sub(p, f.mul(f.c(3.0), c1));
  Value q = f.mul(m, f.sub(p, f.mul(f.c(1.5), c1)));
  q = f.sub(q, f.mul(f.c(13.5), c0));
  Value sqrtP = f.sqrt(f.abs(p));
  Value k27 = f.c(27.0);
  Value phi = f.mul(f.mul(f.c(0.25), c1), c1);
  phi = f.mul(phi, f.sub(p, c1));
  phi = f.add(phi, f.mul(c0, f.add(q, f.mul(f.c(6.75), c0))));
  phi = f.mul(k27, phi);
  Value third = f.c(1.0 / 3.0);
  phi = f.mul(third, math::Atan2Op::create(b, curLoc, f.sqrt(f.abs(phi)), q));
  Value c = f.mul(sqrtP, math::CosOp::create(b, curLoc, phi));
  Value s = f.mul(f.c(1.0 / sqrt3), sqrtP);
  s = f.mul(s, math::SinOp::create(b, curLoc, phi));
  Value e1 = f.mul(third, f.sub(m, c));
  Value e2 = f.add(e1, s);
  Value e0 = f.add(e1, c);
  e1 = f.sub(e1, s);
  // error = 256 eps u^2, u = max |lambda| (squared when >= 1).
  Value tm = f.abs(e0);
  Value u = f.abs(e1);
  tm = f.sel(f.gt(u, tm), u, tm);
  u = f.abs(e2);
  tm = f.sel(f.gt(u, tm), u, tm);
  Value belowOne = f.lt(tm, f.c(1.0));
  u = f.sel(belowOne, tm, f.mul(tm, tm));
  Value error = f.mul(f.mul(f.c(256.0 * dblEpsilon), u), u);
  // Column 0: (A - e0 I) e_x x (A - e0 I) e_y, normalized.
  Value q01 = f.diffOfProducts(a01, a12, a02, a11);
  Value q11 = f.diffOfProducts(a02, a01, a12, a00);
  Value q21 = f.mul(a01, a01);
  Value q00 = f.add(q01, f.mul(a02, e0));
  Value q10 = f.add(q11, f.mul(a12, e0));
  Value q20 = f.sub(a00, e0);
  q20 = f.sub(f.mul(q20, f.sub(a11, e0)), q21);
  auto normSq = [&](Value x, Value y, Value z) {
    Value acc = f.sumOfProducts(x, x, y, y);
    return f.add(acc, f.mul(z, z));
  };
  Value norm = normSq(q00, q10, q20);
  Value fallback = f.le(norm, error);
  norm = f.sqrt(f.div(f.c(1.0), norm));
  q00 = f.mul(q00, norm);
  q10 = f.mul(q10, norm);
  q20 = f.mul(q20, norm);
  // Column 1 likewise with e1; column 2 = column 0 x column 1.
  q01 = f.add(q01, f.mul(a02, e1));
  q11 = f.add(q11, f.mul(a12, e1));
  Value d1 = f.sub(a00, e1);
  q21 = f.sub(f.mul(d1, f.sub(a11, e1)), q21);
  norm = normSq(q01, q11, q21);
  fallback = arith::OrIOp::create(b, curLoc, fallback, f.le(norm, error));
  norm = f.sqrt(f.div(f.c(1.0), norm));
  q01 = f.mul(q01, norm);
  q11 = f.mul(q11, norm);
  q21 = f.mul(q21, norm);
  Value q02 = f.diffOfProducts(q10, q21, q20, q11);
  Value q12 = f.diffOfProducts(q20, q01, q00, q21);
  Value q22 = f.diffOfProducts(q00, q11, q10, q01);

  // The fallback is taken rarely: a branch (scf.if), not a select.
  SmallVector<ST, 12> rts(12, t);
  RV picked = structuredIf(
      fallback, rts,
      [&] {
        FOps fj{b, curLoc, mty(t)}; // constants of its own in this region
        M3 S{a00, a01, a02, a01, a11, a12, a02, a12, a22}, V;
        std::array<Value, 3> ev;
        jacobiEigen3x3(fj, S, t.bits == 64 ? 8 : 5, ev, V);
        RV res;
        for (Value x : ev)
          res.push(x, t);
        for (Value x : V)
          res.push(x, t);
        return res;
      },
      [&] {
        RV res;
        for (Value x :
             {e0, e1, e2, q00, q01, q02, q10, q11, q12, q20, q21, q22})
          res.push(x, t);
        return res;
      });
  std::array<Value, 3> ev{picked.v[0], picked.v[1], picked.v[2]};
  M3 Q;
  for (unsigned i = 0; i < 9; ++i)
    Q[i] = picked.v[3 + i];
  // Taichi's sort: ascending, columns moved along.
  const unsigned X[3] = {0, 0, 1}, Y[3] = {1, 2, 2};
  for (unsigned k = 0; k < 3; ++k) {
    unsigned i = X[k], j = Y[k];
    Value sw = f.lt(ev[j], ev[i]);
    f.swapIf(sw, ev[i], ev[j]);
    for (unsigned row = 0; row < 3; ++row)
      f.swapIf(sw, Q[row * 3 + i], Q[row * 3 + j]);
  }
  RV out;
  for (Value v : ev)
    out.push(v, t);
  for (Value v : Q)
    out.push(v, t);
  return out;
}

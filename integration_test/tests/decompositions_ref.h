/* Taichi 1.7.4's 2x2 and 3x3 decompositions written out in plain C, for
 * the decompositions test. Include it once per float type with
 *   REAL    float or double
 *   SUFFIX  a suffix for the function names (f32, f64)
 *   EPSILON FLT_EPSILON or DBL_EPSILON
 *   SQRT FABS FMAX ATAN2 COS SIN   the libm functions of that type
 * Every operation is one IEEE operation in REAL, in Taichi's order:
 *   python/taichi/_funcs.py     _polar_decompose2d, _svd2d, _sym_eig2x2,
 *                               _polar_decompose3d, _sym_eig3x3
 *   python/taichi/lang/matrix_ops.py   _matmul_helper, normalized
 *   taichi/math/svd.h           sifakis_svd_export (Sifakis et al.)
 * Taichi specifics reproduced: `x ** 2` is x * x, rsqrt is 1 / sqrt, a
 * matrix product starts every element from x[0][0] * y[0][0] * 0, scalar *
 * identity keeps the multiplications by 0, Python float constants are
 * rounded to REAL, svd.h's constants are float literals also for double,
 * and svd.h's bit masks select (written here as ?:). Matrices are
 * row-major arrays. No fused multiply-add may be formed: the driver turns
 * contraction off. */

#define REF_CAT_(a, b) a##b
#define REF_CAT(a, b) REF_CAT_(a, b)
#define REF(name) REF_CAT(name, SUFFIX)
#define K(x) ((REAL)(x))

/* _matmul_helper(x, y) for n x n matrices. */
static void REF(ti_matmul_)(const REAL *x, const REAL *y, REAL *out, int n) {
  REAL z = x[0] * y[0] * K(0);
  int i, j, k;
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j) {
      REAL acc = z;
      for (k = 0; k < n; ++k)
        acc = acc + x[i * n + k] * y[k * n + j];
      out[i * n + j] = acc;
    }
}

static void REF(ti_transpose_)(const REAL *x, REAL *out, int n) {
  int i, j;
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j)
      out[j * n + i] = x[i * n + j];
}

/* _polar_decompose2d: A = U P. */
static void REF(ti_polar2_)(const REAL *A, REAL *U, REAL *P) {
  int i;
  if (A[0] == K(0) && A[1] == K(0) && A[2] == K(0) && A[3] == K(0)) {
    U[0] = K(1), U[1] = K(0), U[2] = K(0), U[3] = K(1);
    for (i = 0; i < 4; ++i)
      P[i] = A[i];
  } else {
    REAL detA = A[0] * A[3] - A[2] * A[1];
    REAL adetA = FABS(detA);
    REAL B[4], At[4], AtA[4], adI[4], adetB, k;
    B[0] = A[0] + A[3];
    B[1] = A[1] - A[2];
    B[2] = A[2] - A[1];
    B[3] = A[3] + A[0];
    if (detA < K(0)) {
      B[0] = A[0] - A[3];
      B[1] = A[1] + A[2];
      B[2] = A[2] + A[1];
      B[3] = A[3] - A[0];
    }
    adetB = FABS(B[0] * B[3] - B[2] * B[1]);
    k = K(1) / SQRT(adetB);
    REF(ti_transpose_)(A, At, 2);
    REF(ti_matmul_)(At, A, AtA, 2);
    /* adetA * identity: Taichi folds the * 1, not the * 0. */
    adI[0] = adetA, adI[1] = adetA * K(0), adI[2] = adetA * K(0);
    adI[3] = adetA;
    for (i = 0; i < 4; ++i) {
      U[i] = B[i] * k;
      P[i] = (AtA[i] + adI[i]) * k;
    }
  }
}

/* _svd2d: A = U diag(sig) V^T. */
static void REF(ti_svd2_)(const REAL *A, REAL *U, REAL *sig, REAL *V) {
  REAL R[4], S[4], c, s, s1, s2;
  REF(ti_polar2_)(A, R, S);
  if (FABS(S[1]) < K(1e-5)) {
    c = K(1), s = K(0);
    s1 = S[0], s2 = S[3];
  } else {
    REAL tao = K(0.5) * (S[0] - S[3]);
    REAL w = SQRT(tao * tao + S[1] * S[1]);
    REAL t;
    if (tao > K(0))
      t = S[1] / (tao + w);
    else
      t = S[1] / (tao - w);
    c = K(1) / SQRT(t * t + K(1));
    s = -t * c;
    s1 = c * c * S[0] - K(2) * c * s * S[1] + s * s * S[3];
    s2 = s * s * S[0] + K(2) * c * s * S[1] + c * c * S[3];
  }
  if (s1 < s2) {
    REAL tmp = s1;
    s1 = s2;
    s2 = tmp;
    V[0] = -s, V[1] = c, V[2] = -c, V[3] = -s;
  } else {
    V[0] = c, V[1] = s, V[2] = -s, V[3] = c;
  }
  REF(ti_matmul_)(R, V, U, 2);
  sig[0] = s1, sig[1] = s2;
}

/* normalized() of a 2-vector. */
static void REF(ti_normalized2_)(REAL x, REAL y, REAL *v) {
  REAL inv = K(1) / SQRT(x * x + y * y);
  v[0] = inv * x, v[1] = inv * y;
}

/* Whether tic replaces Taichi's normalized column 0 (x0, y0) of A - l I by
 * column 1 (x1, y1): column 0 zero (Taichi: NaN) or below sqrt(eps) of
 * column 1 (Taichi's eigenvector has lost half its digits). */
static int REF(ti_weak_column_)(REAL x0, REAL y0, REAL x1, REAL y1) {
  REAL n0 = x0 * x0 + y0 * y0, n1 = x1 * x1 + y1 * y1;
  return n0 == K(0) || n0 < n1 * K(EPSILON);
}

/* _sym_eig2x2: eigenvalues descending, eigenvectors as the columns of Q.
 * Returns where tic departs from Taichi: 1 a discriminant rounded below
 * zero (Taichi: NaN), 2 a weak column (see above). */
static int REF(ti_sym_eig2_)(const REAL *A, REAL *e, REAL *Q) {
  REAL tr = A[0] + A[3];
  REAL det = A[0] * A[3] - A[1] * A[2];
  REAL gap = tr * tr - K(4) * det;
  REAL l1 = (tr + SQRT(gap)) * K(0.5), l2 = (tr - SQRT(gap)) * K(0.5);
  REAL A1[4], A2[4], v1[2], v2[2];
  A1[0] = A[0] - l1, A1[1] = A[1] - l1 * K(0);
  A1[2] = A[2] - l1 * K(0), A1[3] = A[3] - l1;
  A2[0] = A[0] - l2, A2[1] = A[1] - l2 * K(0);
  A2[2] = A[2] - l2 * K(0), A2[3] = A[3] - l2;
  e[0] = l1, e[1] = l2;
  if (A1[0] == K(0) && A1[1] == K(0) && A1[2] == K(0) && A1[3] == K(0)) {
    v1[0] = K(0), v1[1] = K(1);
    v2[0] = K(1), v2[1] = K(0);
  } else {
    REF(ti_normalized2_)(A2[0], A2[2], v1);
    REF(ti_normalized2_)(A1[0], A1[2], v2);
    if (gap >= K(0) && (REF(ti_weak_column_)(A2[0], A2[2], A2[1], A2[3]) ||
                        REF(ti_weak_column_)(A1[0], A1[2], A1[1], A1[3])))
      return 2;
  }
  Q[0] = v1[0], Q[1] = v2[0], Q[2] = v1[1], Q[3] = v2[1];
  return gap < K(0) ? 1 : 0;
}

/* One approximate Givens conjugation of sifakis_svd_export's sweep (see
 * CodeGenDecompose.cpp): the block (p, q) of the symmetric S, with the
 * other two off-diagonal entries sa, sb, the third diagonal entry sr, and
 * the quaternion (qs, qk, qk1, qk2) with qk on the rotation axis. */
static void REF(ti_sifakis_conjugate_)(REAL *spp, REAL *sqq, REAL *spq,
                                       REAL *sa, REAL *sb, REAL *sr, REAL *qs,
                                       REAL *qk, REAL *qk1, REAL *qk2) {
  const REAL four_gamma_squared = 5.82842712474619f;
  const REAL sine_pi_over_eight = 0.3826834323650897f;
  const REAL cosine_pi_over_eight = 0.9238795325112867f;
  const REAL tiny = 1.e-20f;
  REAL sh = *spq * K(0.5f), ch, t1, t2, t3, t4, t5, c, s, tk, tk1, tk2;
  t5 = *spp - *sqq;
  t2 = sh * sh;
  if (t2 >= tiny) {
    ch = t5;
  } else {
    sh = K(0);
    ch = K(1);
  }
  t1 = sh * sh;
  t2 = ch * ch;
  t3 = t1 + t2;
  t4 = K(1) / SQRT(t3);
  sh = t4 * sh;
  ch = t4 * ch;
  t1 = four_gamma_squared * t1;
  if (t2 <= t1) {
    sh = sine_pi_over_eight;
    ch = cosine_pi_over_eight;
  }
  t1 = sh * sh;
  t2 = ch * ch;
  c = t2 - t1;
  s = ch * sh;
  s = s + s;
  t3 = t1 + t2;
  *sr = *sr * t3;
  *sa = *sa * t3;
  *sb = *sb * t3;
  *sr = *sr * t3;
  t1 = s * *sa;
  t2 = s * *sb;
  *sa = c * *sa;
  *sb = c * *sb;
  *sa = t2 + *sa;
  *sb = *sb - t1;
  t2 = s * s;
  t1 = *sqq * t2;
  t3 = *spp * t2;
  t4 = c * c;
  *spp = *spp * t4;
  *sqq = *sqq * t4;
  *spp = *spp + t1;
  *sqq = *sqq + t3;
  t4 = t4 - t2;
  t2 = *spq + *spq;
  *spq = *spq * t4;
  t4 = c * s;
  t2 = t2 * t4;
  t5 = t5 * t4;
  *spp = *spp + t2;
  *spq = *spq - t5;
  *sqq = *sqq - t2;
  tk = sh * *qk;
  tk1 = sh * *qk1;
  tk2 = sh * *qk2;
  sh = sh * *qs;
  *qs = ch * *qs;
  *qk = ch * *qk;
  *qk1 = ch * *qk1;
  *qk2 = ch * *qk2;
  *qk = *qk + sh;
  *qs = *qs - tk;
  *qk1 = *qk1 + tk2;
  *qk2 = *qk2 - tk1;
}

/* rsqrt(x) refined by one Newton step as svd.h writes it. */
static REAL REF(ti_sifakis_rsqrt_)(REAL x) {
  REAL t1 = K(1) / SQRT(x);
  REAL t4 = t1 * K(0.5f);
  REAL t3 = t1 * t4;
  t3 = t1 * t3;
  t3 = x * t3;
  t1 = t1 + t4;
  return t1 - t3;
}

/* One Givens rotation of the QR step: zeroes A[q][p] against A[p][p]
 * (rows p, q of A; columns p, q of U). */
static void REF(ti_sifakis_givens_)(REAL *A, REAL *U, int p, int q) {
  const REAL small_number = 1.e-12f;
  REAL apq = A[q * 3 + p], app = A[p * 3 + p];
  REAL sh = apq * apq, ch, t1, t2, c, s;
  int j;
  sh = sh >= small_number ? apq : K(0);
  ch = K(0.0f) - app;
  ch = FMAX(ch, app);
  ch = FMAX(ch, small_number);
  t1 = ch * ch;
  t2 = sh * sh;
  t2 = t1 + t2;
  t1 = REF(ti_sifakis_rsqrt_)(t2) * t2;
  ch = ch + t1;
  if (!(app >= K(0.0f))) {
    REAL tmp = ch;
    ch = sh;
    sh = tmp;
  }
  t1 = ch * ch;
  t2 = sh * sh;
  t2 = t1 + t2;
  t1 = REF(ti_sifakis_rsqrt_)(t2);
  ch = ch * t1;
  sh = sh * t1;
  c = ch * ch;
  s = sh * sh;
  c = c - s;
  s = sh * ch;
  s = s + s;
  for (j = 0; j < 3; ++j) {
    REAL x = A[p * 3 + j], y = A[q * 3 + j];
    REAL ta = s * x, tb = s * y;
    x = c * x;
    y = c * y;
    A[p * 3 + j] = x + tb;
    A[q * 3 + j] = y - ta;
  }
  for (j = 0; j < 3; ++j) {
    REAL x = U[j * 3 + p], y = U[j * 3 + q];
    REAL ta = s * x, tb = s * y;
    x = c * x;
    y = c * y;
    U[j * 3 + p] = x + tb;
    U[j * 3 + q] = y - ta;
  }
}

/* Swaps columns i and j of the 3x3 matrices X and Y if `swap`, then
 * multiplies column k of both by -1 if `swap` (svd.h's column sort). */
static void REF(ti_sifakis_sort_)(REAL *X, REAL *Y, REAL *ni, REAL *nj, int i,
                                  int j, int k) {
  int swap = *ni < *nj, r;
  REAL sgn = swap ? K(-1.0f) : K(1.0f), tmp;
  for (r = 0; r < 3 && swap; ++r) {
    tmp = X[r * 3 + i], X[r * 3 + i] = X[r * 3 + j], X[r * 3 + j] = tmp;
    tmp = Y[r * 3 + i], Y[r * 3 + i] = Y[r * 3 + j], Y[r * 3 + j] = tmp;
  }
  if (swap)
    tmp = *ni, *ni = *nj, *nj = tmp;
  for (r = 0; r < 3; ++r) {
    X[r * 3 + k] = X[r * 3 + k] * sgn;
    Y[r * 3 + k] = Y[r * 3 + k] * sgn;
  }
}

/* sifakis_svd_export: A = U diag(sig) V^T, `iters` sweeps. */
static void REF(ti_svd3_)(const REAL *Ain, int iters, REAL *U, REAL *sig,
                          REAL *V) {
  REAL A[9], s11, s21, s31, s22, s32, s33, t1, t2, t3, n1, n2, n3;
  REAL qs = K(1.0f), qx = K(0.0f), qy = K(0.0f), qz = K(0.0f);
  REAL v11, v12, v13, v21, v22, v23, v31, v32, v33;
  int i, r;
  for (i = 0; i < 9; ++i)
    A[i] = Ain[i];
    /* S = A^T A, lower triangle, accumulated as in svd.h (t + s). */
#define GRAM(i, j) (A[6 + i] * A[6 + j] + (A[3 + i] * A[3 + j] + A[i] * A[j]))
  s11 = GRAM(0, 0);
  s21 = GRAM(1, 0);
  s31 = GRAM(2, 0);
  s22 = GRAM(1, 1);
  s32 = GRAM(2, 1);
  s33 = GRAM(2, 2);
#undef GRAM
  for (i = 0; i < iters; ++i) {
    REF(ti_sifakis_conjugate_)
    (&s11, &s22, &s21, &s31, &s32, &s33, &qs, &qz, &qx, &qy);
    REF(ti_sifakis_conjugate_)
    (&s22, &s33, &s32, &s21, &s31, &s11, &qs, &qx, &qy, &qz);
    REF(ti_sifakis_conjugate_)
    (&s33, &s11, &s31, &s32, &s21, &s22, &qs, &qy, &qz, &qx);
  }
  t2 = qz * qz + (qy * qy + (qx * qx + qs * qs));
  t1 = REF(ti_sifakis_rsqrt_)(t2);
  qs = qs * t1, qx = qx * t1, qy = qy * t1, qz = qz * t1;
  t1 = qx * qx, t2 = qy * qy, t3 = qz * qz;
  v11 = qs * qs;
  v22 = v11 - t1;
  v33 = v22 - t2;
  v33 = v33 + t3;
  v22 = v22 + t2;
  v22 = v22 - t3;
  v11 = v11 + t1;
  v11 = v11 - t2;
  v11 = v11 - t3;
  t1 = qx + qx, t2 = qy + qy, t3 = qz + qz;
  v32 = qs * t1, v13 = qs * t2, v21 = qs * t3;
  t1 = qy * t1, t2 = qz * t2, t3 = qx * t3;
  v12 = t1 - v21, v23 = t2 - v32, v31 = t3 - v13;
  v21 = t1 + v21, v32 = t2 + v32, v13 = t3 + v13;
  V[0] = v11, V[1] = v12, V[2] = v13;
  V[3] = v21, V[4] = v22, V[5] = v23;
  V[6] = v31, V[7] = v32, V[8] = v33;
  /* A <- A V, row by row, in svd.h's order. */
  for (r = 0; r < 3; ++r) {
    REAL x1 = A[r * 3], x2 = A[r * 3 + 1], x3 = A[r * 3 + 2];
    A[r * 3] = v11 * x1 + v21 * x2 + v31 * x3;
    A[r * 3 + 1] = v12 * x1 + v22 * x2 + v32 * x3;
    A[r * 3 + 2] = v13 * x1 + v23 * x2 + v33 * x3;
  }
  n1 = A[0] * A[0] + A[3] * A[3] + A[6] * A[6];
  n2 = A[1] * A[1] + A[4] * A[4] + A[7] * A[7];
  n3 = A[2] * A[2] + A[5] * A[5] + A[8] * A[8];
  REF(ti_sifakis_sort_)(A, V, &n1, &n2, 0, 1, 1);
  REF(ti_sifakis_sort_)(A, V, &n1, &n3, 0, 2, 0);
  REF(ti_sifakis_sort_)(A, V, &n2, &n3, 1, 2, 2);
  for (i = 0; i < 9; ++i)
    U[i] = i % 4 == 0 ? K(1.0f) : K(0.0f);
  REF(ti_sifakis_givens_)(A, U, 0, 1);
  REF(ti_sifakis_givens_)(A, U, 0, 2);
  REF(ti_sifakis_givens_)(A, U, 1, 2);
  sig[0] = A[0], sig[1] = A[4], sig[2] = A[8];
}

/* _polar_decompose3d: R = U V^T, S = V Sigma V^T (Sigma with exact zeros). */
static void REF(ti_polar3_)(const REAL *A, int iters, REAL *R, REAL *S) {
  REAL U[9], sig[3], V[9], Vt[9], Sig[9], VS[9];
  int i;
  REF(ti_svd3_)(A, iters, U, sig, V);
  for (i = 0; i < 9; ++i)
    Sig[i] = K(0);
  Sig[0] = sig[0], Sig[4] = sig[1], Sig[8] = sig[2];
  REF(ti_transpose_)(V, Vt, 3);
  REF(ti_matmul_)(U, Vt, R, 3);
  REF(ti_matmul_)(V, Sig, VS, 3);
  REF(ti_matmul_)(VS, Vt, S, 3);
}

/* _sym_eig3x3 (Cardano): eigenvalues ascending, eigenvectors as columns.
 * Returns 1 (and leaves e, Q unset) where Taichi falls back to its dsyevq3
 * port: tic departs from Taichi there. */
static int REF(ti_sym_eig3_)(const REAL *A, REAL *e, REAL *Q) {
  REAL m = A[0] + A[4] + A[8];
  REAL dd = A[1] * A[1], ee = A[5] * A[5], ff = A[2] * A[2];
  REAL c1 = A[0] * A[4] + A[0] * A[8] + A[4] * A[8] - (dd + ee + ff);
  REAL c0 = A[8] * dd + A[0] * ee + A[4] * ff - A[0] * A[4] * A[8] -
            K(2.0) * A[2] * A[1] * A[5];
  REAL p = m * m - K(3.0) * c1;
  REAL q = m * (p - K(1.5) * c1) - K(13.5) * c0;
  REAL sqrt_p = SQRT(FABS(p));
  REAL phi = K(27.0) * (K(0.25) * c1 * c1 * (p - c1) + c0 * (q + K(6.75) * c0));
  REAL c, s, t, u, error, norm, tmp;
  int i, j, r;
  static const int X[3] = {0, 0, 1}, Y[3] = {1, 2, 2};
  phi = K(1.0 / 3.0) * ATAN2(SQRT(FABS(phi)), q);
  c = sqrt_p * COS(phi);
  s = K(1.0 / 1.73205080756887729352744634151) /* 1 / M_SQRT3 */ * sqrt_p *
      SIN(phi);
  e[1] = K(1.0 / 3.0) * (m - c);
  e[2] = e[1] + s;
  e[0] = e[1] + c;
  e[1] = e[1] - s;
  t = FABS(e[0]);
  u = FABS(e[1]);
  if (u > t)
    t = u;
  u = FABS(e[2]);
  if (u > t)
    t = u;
  if (t < K(1.0))
    u = t;
  else
    u = t * t;
  error = K(256.0 * 2.2204460492503131e-16) * u * u;
  Q[1] = A[1] * A[5] - A[2] * A[4];
  Q[4] = A[2] * A[1] - A[5] * A[0];
  Q[7] = A[1] * A[1];
  Q[0] = Q[1] + A[2] * e[0];
  Q[3] = Q[4] + A[5] * e[0];
  Q[6] = (A[0] - e[0]) * (A[4] - e[0]) - Q[7];
  norm = Q[0] * Q[0] + Q[3] * Q[3] + Q[6] * Q[6];
  if (norm <= error)
    return 1;
  norm = SQRT(K(1.0) / norm);
  Q[0] *= norm, Q[3] *= norm, Q[6] *= norm;
  Q[1] = Q[1] + A[2] * e[1];
  Q[4] = Q[4] + A[5] * e[1];
  Q[7] = (A[0] - e[1]) * (A[4] - e[1]) - Q[7];
  norm = Q[1] * Q[1] + Q[4] * Q[4] + Q[7] * Q[7];
  if (norm <= error)
    return 1;
  norm = SQRT(K(1.0) / norm);
  Q[1] *= norm, Q[4] *= norm, Q[7] *= norm;
  Q[2] = Q[3] * Q[7] - Q[6] * Q[4];
  Q[5] = Q[6] * Q[1] - Q[0] * Q[7];
  Q[8] = Q[0] * Q[4] - Q[3] * Q[1];
  for (r = 0; r < 3; ++r) {
    i = X[r], j = Y[r];
    if (e[j] < e[i]) {
      int row;
      tmp = e[i], e[i] = e[j], e[j] = tmp;
      for (row = 0; row < 3; ++row) {
        tmp = Q[row * 3 + i];
        Q[row * 3 + i] = Q[row * 3 + j];
        Q[row * 3 + j] = tmp;
      }
    }
  }
  return 0;
}

#undef K
#undef REF
#undef REF_CAT
#undef REF_CAT_

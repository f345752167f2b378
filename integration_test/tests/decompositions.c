/* svd, polar_decompose, sym_eig of 2x2 and 3x3 matrices, f32 and f64,
 * against Taichi 1.7.4's algorithms written out in C (decompositions_ref.h):
 * bit for bit, except where tic departs from Taichi on purpose (Taichi's
 * result is NaN or, for 3x3 sym_eig, comes from its broken dsyevq3
 * fallback; see docs/codegen.md), where only the properties are checked.
 * The properties (A = R S = U Sigma V^T, orthogonality, A Q = Q diag(e),
 * orderings) are checked for every matrix. */
#include <float.h>
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "the bit-exact reference needs FLT_EVAL_METHOD == 0"
#endif
/* No contraction into fused multiply-adds: GCC's ISO C mode (-std=c99)
 * implies -ffp-contract=off; clang needs the pragma. tic emits none. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "decompositions.h"
#define LAST_ERROR decompositions_last_error
#include "common.h"

#define REAL float
#define SUFFIX f32
#define EPSILON FLT_EPSILON
#define SQRT sqrtf
#define FABS fabsf
#define FMAX fmaxf
#define ATAN2 atan2f
#define COS cosf
#define SIN sinf
#include "decompositions_ref.h"
#undef REAL
#undef SUFFIX
#undef EPSILON
#undef SQRT
#undef FABS
#undef FMAX
#undef ATAN2
#undef COS
#undef SIN

#define REAL double
#define SUFFIX f64
#define EPSILON DBL_EPSILON
#define SQRT sqrt
#define FABS fabs
#define FMAX fmax
#define ATAN2 atan2
#define COS cos
#define SIN sin
#include "decompositions_ref.h"

#define N DECOMPOSITIONS_CONST_N
#define NSPECIAL 24

static unsigned long long rng = 0x853c49e6748fea9bULL;
static double urand(void) { /* [0, 1) */
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* Test matrices (row-major, n x n): the specials first, then small
 * integers in [-2, 2] (exact zeros, ties, singular matrices), then
 * uniform [-1, 1) scaled by 10^[-2, 2), then uniform [-1, 1). */
static void fill(double *m, int n, const double *specials, int nspecial,
                 int symmetric) {
  int i, k, r, c;
  for (i = 0; i < N; ++i) {
    double *a = &m[i * n * n], scale = 1;
    for (k = 0; k < n * n; ++k) {
      if (i < nspecial)
        a[k] = specials[i * n * n + k];
      else if (i < NSPECIAL + 48)
        a[k] = (double)((int)(urand() * 5) - 2);
      else
        a[k] = 2 * urand() - 1;
    }
    if (i >= NSPECIAL + 48 && i < NSPECIAL + 96)
      scale = pow(10.0, 4 * urand() - 2);
    for (k = 0; k < n * n; ++k)
      a[k] *= scale;
    if (symmetric && i >= nspecial)
      for (r = 0; r < n; ++r)
        for (c = 0; c < r; ++c)
          a[r * n + c] = a[c * n + r];
  }
}

/* 2x2 specials: zero, +-I, diagonal, near-diagonal, singular, rotations
 * and reflections, |S01| just above and below Taichi's 1e-5 threshold. */
static const double gen2[][4] = {
    {0, 0, 0, 0},       {1, 0, 0, 1},           {-1, 0, 0, -1},
    {2, 0, 0, 3},       {3, 0, 0, -2},          {1, 1e-7, 1e-7, 1},
    {2, 1e-6, 0, 3},    {1, 2, 2, 4},           {0, 1, 0, 0},
    {0, 0, 1, 0},       {1, 2, 3, 4},           {0, -1, 1, 0},
    {0, 1, 1, 0},       {3, 0, 0, 3},           {1, 0, 0, 1e-8},
    {-1, 0, 0, -2},     {2, 1.5e-5, 1.5e-5, 3}, {1, 1, 1, 1},
    {0, 0, 0, 5},       {-3, 1, -6, 2},         {1e3, 1, 1, 0},
    {2, 9e-6, 9e-6, 3}, {1e-3, 0, 0, 1e3},      {5, 5, -5, 5}};
/* symmetric 2x2: diagonal with a00 < a11 (Taichi: NaN eigenvectors, or
 * wrong ones for diag(1e-3, 1e3)), multiples of I, and a discriminant that
 * rounds below zero (rows 4 and 5: in f32, rows 6 and 7: in f64; Taichi:
 * NaN eigenvalues). */
static const double sym2[][4] = {{0, 0, 0, 0},
                                 {1, 0, 0, 1},
                                 {1, 0, 0, 3},
                                 {3, 0, 0, 1},
                                 {1.4785536527633667, -5.3097959607839584e-05,
                                  -5.3097959607839584e-05, 1.4785535335540771},
                                 {0.7235578894615173, 3.9702397771179676e-05,
                                  3.9702397771179676e-05, 0.7235578298568726},
                                 {1.4471541591984352, 8.699221883733005e-09,
                                  8.699221883733005e-09, 1.4471541591984354},
                                 {1.0984808796320658, 1.881077647754148e-09,
                                  1.881077647754148e-09, 1.098480879632066},
                                 {-2, 0, 0, 5},
                                 {2, 2e-7, 2e-7, 2},
                                 {0, 1, 1, 0},
                                 {1, 1, 1, 1},
                                 {5, 0, 0, 5},
                                 {4, 0, 0, 4.5},
                                 {0, 0, 0, -1},
                                 {1e-3, 0, 0, 1e3},
                                 {2, 1, 1, 2},
                                 {-1, 3, 3, -1},
                                 {1, 1e-6, 1e-6, 2},
                                 {7, -2, -2, 3},
                                 {0, 0, 0, 2},
                                 {3, 4, 4, -3},
                                 {1e2, 1, 1, 1e2},
                                 {-4, 0, 0, -4}};
static const double gen3[][9] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0},    {1, 0, 0, 0, 1, 0, 0, 0, 1},
    {1, 0, 0, 0, 2, 0, 0, 0, 3},    {3, 0, 0, 0, -2, 0, 0, 0, 1},
    {1, 2, 3, 2, 4, 6, 3, 6, 9},    {0, 1, 0, 0, 0, 1, 1, 0, 0},
    {1, 0, 0, 0, 1, 0, 0, 0, -1},   {5, 0, 0, 0, 5, 0, 0, 0, 5},
    {2, 1, 0, 1, 2, 0, 0, 0, 5},    {1, 2, 3, 4, 5, 6, 7, 8, 9},
    {0, 0, 1, 0, 1, 0, 1, 0, 0},    {1, 1e-7, 0, 0, 1, 1e-7, 0, 0, 1},
    {0, -1, 0, 1, 0, 0, 0, 0, 1},   {1e3, 0, 0, 0, 1, 0, 0, 0, 1e-3},
    {1, 1, 1, 1, 1, 1, 1, 1, 1},    {-1, 0, 0, 0, -1, 0, 0, 0, -1},
    {2, 0, 0, 0, 0, 0, 0, 0, 0},    {0, 0, 0, 0, 0, 0, 0, 0, 3},
    {4, 1, 0, 0, 4, 1, 0, 0, 4},    {1, 2, 0, 2, 4, 0, 0, 0, 1},
    {-2, 1, 1, 1, -2, 1, 1, 1, -2}, {0, 3, 0, 0, 0, 0, 0, 0, 0},
    {1, 0, 0, 0, 0, 1, 0, 1, 0},    {6, -1, 2, 1, 3, -4, 0, 2, 1}};
/* symmetric 3x3: diagonal and block-diagonal matrices on which Taichi
 * falls back to its dsyevq3 port (rows 3 to 7), multiples of I. */
static const double sym3[][9] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0},       {1, 0, 0, 0, 1, 0, 0, 0, 1},
    {1, 0, 0, 0, 2, 0, 0, 0, 3},       {3, 0, 0, 0, 1, 0, 0, 0, 2},
    {6, 0, 0, 0, -4, 0, 0, 0, 2},      {2, 0, 0, 0, 6, 2, 0, 2, 4},
    {6, 0, 0, 0, 2, 1, 0, 1, 4},       {4, 2, 0, 2, 4, 0, 0, 0, 10},
    {5, 0, 0, 0, 5, 0, 0, 0, 5},       {1, 1, 1, 1, 1, 1, 1, 1, 1},
    {2, 1, 0, 1, 2, 0, 0, 0, 5},       {-2, 1, 1, 1, -2, 1, 1, 1, -2},
    {1, 1e-7, 0, 1e-7, 1, 0, 0, 0, 2}, {0, 1, 0, 1, 0, 1, 0, 1, 0},
    {2, -1, 0, -1, 2, -1, 0, -1, 2},   {1e3, 0, 0, 0, 1, 0, 0, 0, 1e-3},
    {4, 1, 2, 1, 5, 3, 2, 3, 6},       {0, 0, 0, 0, 0, 0, 0, 0, 7},
    {1, 2, 3, 2, 4, 6, 3, 6, 9},       {-1, 0, 0, 0, -1, 0, 0, 0, -1},
    {3, 1, 1, 1, 3, 1, 1, 1, 3},       {1, 0, 0, 0, 1, 0, 0, 0, 2},
    {0, 2, 0, 2, 0, 0, 0, 0, 1},       {7, 2, -3, 2, 1, 4, -3, 4, 5}};

static double in2[N * 4], insym2[N * 4], in3[N * 9], insym3[N * 9];

/* ---- bit-exact comparison */

static int bad = 0;
/* On a GPU (TIC_ARCH=cuda, scripts/gpu-check.sh) the trigonometric functions
 * the 3x3 decompositions call come from CUDA's libdevice, whose results can
 * differ from glibc's in the last bit: outputs are then only counted (and
 * the properties still checked). */
static int gpu = 0, gpu_differ = 0;

static void same(const char *what, int i, const void *got, const void *want,
                 size_t bytes, int is_f32, int count) {
  int k;
  if (memcmp(got, want, bytes) == 0)
    return;
  if (gpu) {
    ++gpu_differ;
    return;
  }
  if (bad++ < 12) {
    fprintf(stderr, "%s, matrix %d, bits differ:\n  got ", what, i);
    for (k = 0; k < count; ++k)
      fprintf(stderr, " %.17g",
              is_f32 ? (double)((const float *)got)[k]
                     : ((const double *)got)[k]);
    fprintf(stderr, "\n  want");
    for (k = 0; k < count; ++k)
      fprintf(stderr, " %.17g",
              is_f32 ? (double)((const float *)want)[k]
                     : ((const double *)want)[k]);
    fprintf(stderr, "\n");
  }
}

/* ---- properties (in double) */

static double maxabs(const double *x, int n) {
  double m = 0;
  int i;
  for (i = 0; i < n; ++i)
    m = fabs(x[i]) > m ? fabs(x[i]) : m;
  return m;
}

/* max |X Y^T or X Y - Z| (transposeY) */
static double prod_err(const double *X, const double *Y, const double *Z, int n,
                       int transposeY) {
  double m = 0;
  int i, j, k;
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j) {
      double acc = 0;
      for (k = 0; k < n; ++k)
        acc += X[i * n + k] * (transposeY ? Y[j * n + k] : Y[k * n + j]);
      acc = fabs(acc - Z[i * n + j]);
      m = acc > m ? acc : m;
    }
  return m;
}

static double orth_err(const double *X, int n) { /* max |X^T X - I| */
  double m = 0;
  int i, j, k;
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j) {
      double acc = i == j ? -1 : 0;
      for (k = 0; k < n; ++k)
        acc += X[k * n + i] * X[k * n + j];
      m = fabs(acc) > m ? fabs(acc) : m;
    }
  return m;
}

static double det_n(const double *X, int n) {
  if (n == 2)
    return X[0] * X[3] - X[1] * X[2];
  return X[0] * (X[4] * X[8] - X[5] * X[7]) -
         X[1] * (X[3] * X[8] - X[5] * X[6]) +
         X[2] * (X[3] * X[7] - X[4] * X[6]);
}

static int prop_bad = 0;
static void prop(const char *what, int i, double err, double tol) {
  if (err <= tol)
    return;
  if (prop_bad++ < 12)
    fprintf(stderr, "%s, matrix %d: error %.3g > %.3g\n", what, i, err, tol);
}

/* Relative tolerances per precision, the accuracy of Taichi's algorithms:
 * svd/polar residual (f64: Sifakis et al.'s 8 sweeps leave ~1e-8) and
 * orthogonality; sym_eig residual (2x2: the closed form takes the
 * eigenvalue gap from a discriminant, ~sqrt(eps) for near-multiples of I;
 * 3x3 f32: Cardano ~1e-3) and, for eigenvalues apart by more than `gap`,
 * orthogonality. 2x2 svd skips its rotation for |S01| < 1e-5: an absolute
 * error up to 1e-5. */
struct tols {
  double svd, orth, eig2, eig3, eig_orth, gap;
};
static const struct tols tol32 = {2e-5, 1e-5, 5e-3, 5e-3, 5e-3, 1e-2};
static const struct tols tol64 = {1e-6, 1e-12, 1e-7, 1e-9, 1e-9, 1e-3};

/* A = R S = U Sigma V^T with R, U, V orthogonal, S symmetric; sym_eig:
 * A Q = Q diag(e), ordered, Q orthogonal where the eigenvalues are apart.
 * got: R, S, U, Sigma, V, Q (n x n each), e (n). */
static void check_props(const char *tag, int n, int i, const double *A,
                        const double *Asym, const double *got, const double *e,
                        const struct tols *t) {
  const double *R = got, *S = got + n * n, *U = got + 2 * n * n,
               *Sig = got + 3 * n * n, *V = got + 4 * n * n,
               *Q = got + 5 * n * n;
  double US[9], QE[9], scale = maxabs(A, n * n), sscale = maxabs(Asym, n * n);
  double abs2 = n == 2 ? 2e-5 : 0, mingap = 1e300;
  char what[64];
  int r, c;
  for (r = 0; r < n; ++r)
    for (c = 0; c < n; ++c) {
      US[r * n + c] = U[r * n + c] * Sig[c * n + c];
      QE[r * n + c] = Q[r * n + c] * e[c];
    }
  sprintf(what, "%s polar A = R S", tag);
  prop(what, i, prod_err(R, S, A, n, 0), t->svd * scale + abs2);
  sprintf(what, "%s polar R orthogonal", tag);
  prop(what, i, orth_err(R, n), t->orth);
  sprintf(what, "%s polar S symmetric", tag);
  for (r = 0; r < n; ++r)
    for (c = 0; c < r; ++c)
      prop(what, i, fabs(S[r * n + c] - S[c * n + r]), t->svd * scale);
  sprintf(what, "%s svd A = U Sigma V^T", tag);
  prop(what, i, prod_err(US, V, A, n, 1), t->svd * scale + abs2);
  sprintf(what, "%s svd U orthogonal", tag);
  prop(what, i, orth_err(U, n), t->orth);
  sprintf(what, "%s svd V rotation", tag);
  prop(what, i, orth_err(V, n) + fabs(det_n(V, n) - 1), 4 * t->orth);
  sprintf(what, "%s svd Sigma ordered", tag);
  for (r = 0; r + 1 < n; ++r)
    prop(what, i, fabs(Sig[(r + 1) * (n + 1)]) - Sig[r * (n + 1)],
         t->svd * scale);
  if (n == 3) {
    sprintf(what, "%s svd U rotation", tag);
    prop(what, i, fabs(det_n(U, n) - 1), 4 * t->orth);
  }
  sprintf(what, "%s sym_eig A Q = Q diag(e)", tag);
  prop(what, i, prod_err(Asym, Q, QE, n, 0),
       (n == 2 ? t->eig2 : t->eig3) * sscale + 1e-30);
  sprintf(what, "%s sym_eig order", tag);
  for (r = 0; r + 1 < n; ++r) {
    double d = n == 2 ? e[r] - e[r + 1] : e[r + 1] - e[r];
    prop(what, i, -d, 0);
    mingap = d < mingap ? d : mingap;
  }
  if (mingap > t->gap * sscale) {
    sprintf(what, "%s sym_eig Q orthogonal", tag);
    prop(what, i, orth_err(Q, n), t->eig_orth);
  }
}

/* ---- the two precisions: outputs of tic and the reference per matrix */

#define DEFINE_RUN(T, SFX, IS_F32, TOL, RUN, A2, S2, R2, E2, A3, S3, R3, E3)   \
  static int run_##SFX(decompositions_ctx *ctx, int *dep2, int *dep3) {        \
    static T a2[N * 4], s2[N * 4], r2[N * 24], e2[N * 2];                      \
    static T a3[N * 9], s3[N * 9], r3[N * 54], e3[N * 3];                      \
    int i, k, code;                                                            \
    for (i = 0; i < N * 4; ++i)                                                \
      a2[i] = (T)in2[i], s2[i] = (T)insym2[i];                                 \
    for (i = 0; i < N * 9; ++i)                                                \
      a3[i] = (T)in3[i], s3[i] = (T)insym3[i];                                 \
    CHECK(decompositions_##A2##_write(ctx, a2, N * 4));                        \
    CHECK(decompositions_##S2##_write(ctx, s2, N * 4));                        \
    CHECK(decompositions_##A3##_write(ctx, a3, N * 9));                        \
    CHECK(decompositions_##S3##_write(ctx, s3, N * 9));                        \
    CHECK(decompositions_##RUN(ctx));                                          \
    CHECK(decompositions_##R2##_read(ctx, r2, N * 24));                        \
    CHECK(decompositions_##E2##_read(ctx, e2, N * 2));                         \
    CHECK(decompositions_##R3##_read(ctx, r3, N * 54));                        \
    CHECK(decompositions_##E3##_read(ctx, e3, N * 3));                         \
    for (i = 0; i < N; ++i) {                                                  \
      T R[4], S[4], U[4], sig[2], Sg[4], V[4], e[2], Q[4];                     \
      const T *got = &r2[i * 24];                                              \
      double A[4], As[4], g[24], ge[2];                                        \
      ti_polar2_##SFX(&a2[i * 4], R, S);                                       \
      ti_svd2_##SFX(&a2[i * 4], U, sig, V);                                    \
      Sg[0] = sig[0], Sg[1] = 0, Sg[2] = 0, Sg[3] = sig[1];                    \
      same(#SFX " 2x2 polar R", i, got, R, sizeof R, IS_F32, 4);               \
      same(#SFX " 2x2 polar S", i, got + 4, S, sizeof S, IS_F32, 4);           \
      same(#SFX " 2x2 svd U", i, got + 8, U, sizeof U, IS_F32, 4);             \
      same(#SFX " 2x2 svd Sigma", i, got + 12, Sg, sizeof Sg, IS_F32, 4);      \
      same(#SFX " 2x2 svd V", i, got + 16, V, sizeof V, IS_F32, 4);            \
      code = ti_sym_eig2_##SFX(&s2[i * 4], e, Q);                              \
      if (code)                                                                \
        dep2[code - 1]++;                                                      \
      else {                                                                   \
        same(#SFX " 2x2 sym_eig Q", i, got + 20, Q, sizeof Q, IS_F32, 4);      \
        same(#SFX " 2x2 sym_eig e", i, &e2[i * 2], e, sizeof e, IS_F32, 2);    \
      }                                                                        \
      for (k = 0; k < 4; ++k)                                                  \
        A[k] = a2[i * 4 + k], As[k] = s2[i * 4 + k];                           \
      for (k = 0; k < 24; ++k)                                                 \
        g[k] = got[k];                                                         \
      ge[0] = e2[i * 2], ge[1] = e2[i * 2 + 1];                                \
      check_props(#SFX " 2x2", 2, i, A, As, g, ge, &TOL);                      \
    }                                                                          \
    for (i = 0; i < N; ++i) {                                                  \
      T R[9], S[9], U[9], sig[3], Sg[9], V[9], e[3], Q[9];                     \
      const T *got = &r3[i * 54];                                              \
      double A[9], As[9], g[54], ge[3];                                        \
      int iters = IS_F32 ? 5 : 8;                                              \
      ti_polar3_##SFX(&a3[i * 9], iters, R, S);                                \
      ti_svd3_##SFX(&a3[i * 9], iters, U, sig, V);                             \
      for (k = 0; k < 9; ++k)                                                  \
        Sg[k] = 0;                                                             \
      Sg[0] = sig[0], Sg[4] = sig[1], Sg[8] = sig[2];                          \
      same(#SFX " 3x3 polar R", i, got, R, sizeof R, IS_F32, 9);               \
      same(#SFX " 3x3 polar S", i, got + 9, S, sizeof S, IS_F32, 9);           \
      same(#SFX " 3x3 svd U", i, got + 18, U, sizeof U, IS_F32, 9);            \
      same(#SFX " 3x3 svd Sigma", i, got + 27, Sg, sizeof Sg, IS_F32, 9);      \
      same(#SFX " 3x3 svd V", i, got + 36, V, sizeof V, IS_F32, 9);            \
      if (ti_sym_eig3_##SFX(&s3[i * 9], e, Q))                                 \
        ++*dep3;                                                               \
      else {                                                                   \
        same(#SFX " 3x3 sym_eig Q", i, got + 45, Q, sizeof Q, IS_F32, 9);      \
        same(#SFX " 3x3 sym_eig e", i, &e3[i * 3], e, sizeof e, IS_F32, 3);    \
      }                                                                        \
      for (k = 0; k < 9; ++k)                                                  \
        A[k] = a3[i * 9 + k], As[k] = s3[i * 9 + k];                           \
      for (k = 0; k < 54; ++k)                                                 \
        g[k] = got[k];                                                         \
      for (k = 0; k < 3; ++k)                                                  \
        ge[k] = e3[i * 3 + k];                                                 \
      check_props(#SFX " 3x3", 3, i, A, As, g, ge, &TOL);                      \
    }                                                                          \
    return 0;                                                                  \
  }

DEFINE_RUN(float, f32, 1, tol32, run_f32, a2, s2, r2, e2, a3, s3, r3, e3)
DEFINE_RUN(double, f64, 0, tol64, run_f64, d2, t2, q2, f2, d3, t3, q3, f3)

int main(void) {
  decompositions_ctx *ctx = NULL;
  int dep32[2] = {0, 0}, dep64[2] = {0, 0}, fb32 = 0, fb64 = 0;
  gpu = on_gpu();
  fill(in2, 2, &gen2[0][0], NSPECIAL, 0);
  fill(insym2, 2, &sym2[0][0], NSPECIAL, 1);
  fill(in3, 3, &gen3[0][0], NSPECIAL, 0);
  fill(insym3, 3, &sym3[0][0], NSPECIAL, 1);
  CHECK(decompositions_create(NULL, &ctx));
  if (run_f32(ctx, dep32, &fb32) || run_f64(ctx, dep64, &fb64))
    return 1;
  decompositions_destroy(ctx);
  printf("2x2 sym_eig departures from Taichi (gap < 0, NaN eigenvector): "
         "f32 %d %d, f64 %d %d\n",
         dep32[0], dep32[1], dep64[0], dep64[1]);
  printf("3x3 sym_eig departures from Taichi (its dsyevq3 fallback): "
         "f32 %d, f64 %d\n",
         fb32, fb64);
  /* The departures must be exercised: the specials are built for them. */
  if (!dep32[0] || !dep32[1] || !dep64[0] || !dep64[1] || fb32 < 4 ||
      fb64 < 4) {
    fprintf(stderr, "FAILED: a departure from Taichi is not exercised\n");
    return 1;
  }
  if (bad || prop_bad) {
    fprintf(stderr,
            "FAILED: %d outputs differ from Taichi's algorithm, %d "
            "properties fail\n",
            bad, prop_bad);
    return 1;
  }
  if (gpu)
    printf("decompositions on the GPU: %d outputs differ in bits from the "
           "CPU's (libdevice's trigonometry), every property holds\n",
           gpu_differ);
  else
    printf("decompositions: %d matrices per kind and precision, "
           "bit-identical to Taichi's algorithm outside the departures\n",
           N);
  return 0;
}

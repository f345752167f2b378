/* Taichi 1.7.4's _polar_decompose2d, _svd2d and _sym_eig2x2 in plain C (f32,
 * the same operations in the same order; -std=c99 keeps GCC from
 * contracting into FMAs), against the tic kernel, bit for bit. */
#include "decompositions_taichi.h"
#define LAST_ERROR decompositions_taichi_last_error
#include "common.h"

#include <stdint.h>

#define N DECOMPOSITIONS_TAICHI_CONST_N

static void polar(const float *A, float *R, float *S) {
  float B[4], AtA[4], detA, adetA, adetB, k;
  int i, j;
  if (A[0] == 0 && A[1] == 0 && A[2] == 0 && A[3] == 0) {
    R[0] = 1, R[1] = 0, R[2] = 0, R[3] = 1;
    for (i = 0; i < 4; ++i)
      S[i] = A[i];
    return;
  }
  detA = A[0] * A[3] - A[2] * A[1];
  adetA = fabsf(detA);
  B[0] = A[0] + A[3], B[1] = A[1] - A[2], B[2] = A[2] - A[1],
  B[3] = A[3] + A[0];
  if (detA < 0)
    B[0] = A[0] - A[3], B[1] = A[1] + A[2], B[2] = A[2] + A[1],
    B[3] = A[3] - A[0];
  adetB = fabsf(B[0] * B[3] - B[2] * B[1]);
  k = 1.0f / sqrtf(adetB);
  for (i = 0; i < 4; ++i)
    R[i] = B[i] * k;
  for (i = 0; i < 2; ++i)
    for (j = 0; j < 2; ++j)
      AtA[i * 2 + j] = A[i] * A[j] + A[2 + i] * A[2 + j];
  for (i = 0; i < 4; ++i)
    S[i] = (AtA[i] + adetA * ((i == 0 || i == 3) ? 1.0f : 0.0f)) * k;
}

static void svd(const float *A, float *U, float *Sig, float *V) {
  float R[4], S[4], c, s, s1, s2;
  int i, j;
  polar(A, R, S);
  if (fabsf(S[1]) < 1e-5f) {
    c = 1, s = 0;
    s1 = S[0], s2 = S[3];
  } else {
    float tao = 0.5f * (S[0] - S[3]);
    float w = sqrtf(tao * tao + S[1] * S[1]);
    float t = tao > 0 ? S[1] / (tao + w) : S[1] / (tao - w);
    c = 1.0f / sqrtf(t * t + 1.0f);
    s = -t * c;
    s1 = c * c * S[0] - 2 * c * s * S[1] + s * s * S[3];
    s2 = s * s * S[0] + 2 * c * s * S[1] + c * c * S[3];
  }
  if (s1 < s2) {
    float tmp = s1;
    s1 = s2, s2 = tmp;
    V[0] = -s, V[1] = c, V[2] = -c, V[3] = -s;
  } else {
    V[0] = c, V[1] = s, V[2] = -s, V[3] = c;
  }
  for (i = 0; i < 2; ++i)
    for (j = 0; j < 2; ++j)
      U[i * 2 + j] = R[i * 2] * V[j] + R[i * 2 + 1] * V[2 + j];
  Sig[0] = s1, Sig[1] = 0, Sig[2] = 0, Sig[3] = s2;
}

static void sym_eig(const float *A, float *e, float *Q) {
  float tr = A[0] + A[3], det = A[0] * A[3] - A[1] * A[2];
  float gap = tr * tr - 4 * det;
  float sq = sqrtf(gap > 0 ? gap : 0); /* tic: max(gap, 0); see docs */
  float l1 = (tr + sq) * 0.5f, l2 = (tr - sq) * 0.5f;
  float a1[4] = {A[0] - l1, A[1] - l1 * 0.0f, A[2] - l1 * 0.0f, A[3] - l1};
  float x2 = A[0] - l2, y2 = A[2] - l2 * 0.0f;
  e[0] = l1, e[1] = l2;
  if (a1[0] == 0 && a1[1] == 0 && a1[2] == 0 && a1[3] == 0) {
    Q[0] = 0, Q[1] = 1, Q[2] = 1, Q[3] = 0; /* columns (0, 1) and (1, 0) */
  } else {
    float inv2 = 1.0f / (sqrtf(x2 * x2 + y2 * y2 + 0.0f) + 0.0f);
    float inv1 = 1.0f / (sqrtf(a1[0] * a1[0] + a1[2] * a1[2] + 0.0f) + 0.0f);
    Q[0] = inv2 * x2, Q[2] = inv2 * y2;       /* column 0: v1 */
    Q[1] = inv1 * a1[0], Q[3] = inv1 * a1[2]; /* column 1: v2 */
  }
}

static int bad = 0;
static void same(const char *what, size_t i, const float *got,
                 const float *want, int count) {
  if (memcmp(got, want, sizeof(float) * (size_t)count) != 0) {
    if (bad < 10)
      fprintf(
          stderr,
          "%s[%lu]: got (%.9g %.9g %.9g %.9g), want (%.9g %.9g %.9g %.9g)\n",
          what, (unsigned long)i, got[0], got[1], count > 2 ? got[2] : 0,
          count > 3 ? got[3] : 0, want[0], want[1], count > 2 ? want[2] : 0,
          count > 3 ? want[3] : 0);
    ++bad;
  }
}

int main(void) {
  decompositions_taichi_ctx *ctx = NULL;
  static float A[N * 4], R[N * 4], S[N * 4], U[N * 4], Sg[N * 4], V[N * 4],
      Q[N * 4], e[N * 2];
  uint32_t state = 12345u;
  size_t i;
  int k;
  for (i = 0; i < N * 4; ++i) {
    state = state * 1664525u + 1013904223u;
    A[i] = (float)(state >> 8) / 8388608.0f - 1.0f; /* [-1, 1) */
  }
  /* Special cases: zero, identity, a multiple of I, diagonal, det < 0,
   * a rotation, a near-diagonal symmetric matrix. */
  {
    const float cases[7][4] = {{0, 0, 0, 0},        {1, 0, 0, 1},
                               {2, 0, 0, 2},        {3, 0, 0, -0.5f},
                               {0, 1, 1, 0},        {0.6f, -0.8f, 0.8f, 0.6f},
                               {1, 1e-7f, 1e-7f, 2}};
    for (k = 0; k < 7; ++k)
      memcpy(A + 4 * k, cases[k], sizeof cases[k]);
  }
  CHECK(decompositions_taichi_create(NULL, &ctx));
  CHECK(decompositions_taichi_A_write(ctx, A, N * 4));
  CHECK(decompositions_taichi_decompose(ctx));
  CHECK(decompositions_taichi_R_read(ctx, R, N * 4));
  CHECK(decompositions_taichi_S_read(ctx, S, N * 4));
  CHECK(decompositions_taichi_U_read(ctx, U, N * 4));
  CHECK(decompositions_taichi_Sig_read(ctx, Sg, N * 4));
  CHECK(decompositions_taichi_V_read(ctx, V, N * 4));
  CHECK(decompositions_taichi_Q_read(ctx, Q, N * 4));
  CHECK(decompositions_taichi_e_read(ctx, e, N * 2));
  for (i = 0; i < N; ++i) {
    float wr[4], ws[4], wu[4], wsig[4], wv[4], we[2], wq[4];
    polar(A + 4 * i, wr, ws);
    svd(A + 4 * i, wu, wsig, wv);
    sym_eig(S + 4 * i, we, wq);
    same("polar R", i, R + 4 * i, wr, 4);
    same("polar S", i, S + 4 * i, ws, 4);
    same("svd U", i, U + 4 * i, wu, 4);
    same("svd Sigma", i, Sg + 4 * i, wsig, 4);
    same("svd V", i, V + 4 * i, wv, 4);
    same("sym_eig e", i, e + 2 * i, we, 2);
    same("sym_eig Q", i, Q + 4 * i, wq, 4);
  }
  decompositions_taichi_destroy(ctx);
  if (bad) {
    fprintf(stderr, "FAILED: %d decompositions differ from Taichi's formulas\n",
            bad);
    return 1;
  }
  printf("decompositions_taichi: %d matrices bit for bit\n", N);
  return 0;
}

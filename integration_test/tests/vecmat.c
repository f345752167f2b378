#include "vecmat.h"
#define LAST_ERROR vecmat_last_error
#include "common.h"

#define N VECMAT_CONST_N

static float frand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)((*s >> 8) % 20001) / 10000.0f - 1.0f;
}

static void matmul3(const float *x, const float *y, float *o) {
  int r, c, k;
  for (r = 0; r < 3; ++r)
    for (c = 0; c < 3; ++c) {
      float acc = 0;
      for (k = 0; k < 3; ++k) acc += x[r * 3 + k] * y[k * 3 + c];
      o[r * 3 + c] = acc;
    }
}

static double det3(const float *m) {
  return (double)m[0] * (m[4] * m[8] - m[5] * m[7]) -
         (double)m[1] * (m[3] * m[8] - m[5] * m[6]) +
         (double)m[2] * (m[3] * m[7] - m[4] * m[6]);
}

static void inv3(const float *m, float *o) {
  double d = det3(m);
  o[0] = (float)((m[4] * m[8] - m[5] * m[7]) / d);
  o[1] = (float)((m[2] * m[7] - m[1] * m[8]) / d);
  o[2] = (float)((m[1] * m[5] - m[2] * m[4]) / d);
  o[3] = (float)((m[5] * m[6] - m[3] * m[8]) / d);
  o[4] = (float)((m[0] * m[8] - m[2] * m[6]) / d);
  o[5] = (float)((m[2] * m[3] - m[0] * m[5]) / d);
  o[6] = (float)((m[3] * m[7] - m[4] * m[6]) / d);
  o[7] = (float)((m[1] * m[6] - m[0] * m[7]) / d);
  o[8] = (float)((m[0] * m[4] - m[1] * m[3]) / d);
}

int main(void) {
  vecmat_ctx *ctx = NULL;
  static float a[N * 3], b[N * 3], m3[N * 9], m2[N * 4];
  static float vres[N * 18], vw[N * 18], sres[N * 8], sw[N * 8];
  static float mres[N * 45], mw[N * 45], m2res[N * 12], m2w[N * 12];
  static double dres[N * 3], dw[N * 3];
  unsigned seed = 12345u;
  int i, k, r, c;
  CHECK(vecmat_create(NULL, &ctx));
  for (i = 0; i < N; ++i) {
    for (k = 0; k < 3; ++k) {
      a[i * 3 + k] = frand(&seed) * 3.0f;
      b[i * 3 + k] = frand(&seed) * 2.0f;
    }
    if (i == 0) a[0] = a[1] = 0.5f, a[2] = 0.0f;
    /* well-conditioned matrices: diagonal dominant */
    for (k = 0; k < 9; ++k) m3[i * 9 + k] = frand(&seed) + (k % 4 == 0 ? 4.0f : 0.0f);
    for (k = 0; k < 4; ++k) m2[i * 4 + k] = frand(&seed) + (k % 3 == 0 ? 3.0f : 0.0f);
  }
  CHECK(vecmat_a_write(ctx, a, N * 3));
  CHECK(vecmat_b_write(ctx, b, N * 3));
  CHECK(vecmat_m3_write(ctx, m3, N * 9));
  CHECK(vecmat_m2_write(ctx, m2, N * 4));
  CHECK(vecmat_compute(ctx));
  CHECK(vecmat_vres_read(ctx, vres, N * 18));
  CHECK(vecmat_sres_read(ctx, sres, N * 8));
  CHECK(vecmat_mres_read(ctx, mres, N * 45));
  CHECK(vecmat_m2res_read(ctx, m2res, N * 12));
  CHECK(vecmat_dres_read(ctx, dres, N * 3));

  for (i = 0; i < N; ++i) {
    const float *u = &a[i * 3], *v = &b[i * 3], *m = &m3[i * 9], *p = &m2[i * 4];
    float *vo = &vw[i * 18], *so = &sw[i * 8], *mo = &mw[i * 45], *po = &m2w[i * 12];
    double nrm = sqrt((double)u[0] * u[0] + (double)u[1] * u[1] + (double)u[2] * u[2]);
    double d2 = (double)p[0] * p[3] - (double)p[1] * p[2];
    for (k = 0; k < 3; ++k) {
      vo[0 + k] = u[k] + v[k];
      vo[3 + k] = u[k] * v[k];
      vo[9 + k] = (float)(u[k] / nrm);
      vo[12 + k] = m[k * 3] * u[0] + m[k * 3 + 1] * u[1] + m[k * 3 + 2] * u[2];
      vo[15 + k] = u[0] * m[k] + u[1] * m[3 + k] + u[2] * m[6 + k];
    }
    vo[6] = u[1] * v[2] - u[2] * v[1];
    vo[7] = u[2] * v[0] - u[0] * v[2];
    vo[8] = u[0] * v[1] - u[1] * v[0];
    so[0] = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    so[1] = (float)nrm;
    so[2] = (float)(nrm * nrm);
    so[3] = (float)det3(m);
    so[4] = m[0] + m[4] + m[8];
    so[5] = (float)d2;
    so[6] = p[0] + p[3];
    so[7] = u[0] * 100.0f + u[1] * 10.0f + v[2];
    matmul3(m, m, &mo[0]);
    for (r = 0; r < 3; ++r)
      for (c = 0; c < 3; ++c) {
        mo[9 + r * 3 + c] = m[c * 3 + r];
        mo[27 + r * 3 + c] = u[r] * v[c];
        mo[36 + r * 3 + c] = r == c ? 1.0f : 0.0f;
      }
    inv3(m, &mo[18]);
    po[0] = p[0] * p[0] + p[1] * p[2];
    po[1] = p[0] * p[1] + p[1] * p[3];
    po[2] = p[2] * p[0] + p[3] * p[2];
    po[3] = p[2] * p[1] + p[3] * p[3];
    po[4] = (float)(p[3] / d2);
    po[5] = (float)(-p[1] / d2);
    po[6] = (float)(-p[2] / d2);
    po[7] = (float)(p[0] / d2);
    po[8] = p[0];
    po[9] = p[2];
    po[10] = p[1];
    po[11] = p[3];
    for (k = 0; k < 3; ++k) dw[i * 3 + k] = (double)u[k] * 2.0 + k + (k == 1 ? 0.5 : 0.0);
  }
  compare_f32("vres", vres, vw, N * 18, 1e-5, 1e-5);
  compare_f32("sres", sres, sw, N * 8, 1e-5, 1e-4);
  compare_f32("mres", mres, mw, N * 45, 1e-4, 1e-5);
  compare_f32("m2res", m2res, m2w, N * 12, 1e-5, 1e-6);
  compare_f64("dres", dres, dw, N * 3, 1e-12, 1e-12);

  {
    float got[3], want[3];
    const float s = 1.5f;
    CHECK(vecmat_local_mats(ctx, s, got));
    want[0] = 1.0f + 2.0f * s + 6.0f + (s * s - 2.0f);
    want[1] = 0.0f + s + 8.0f + 2.0f;
    want[2] = 5.0f + 6.0f * s + 0.0f + 2.0f;
    compare_f32("local_mats", got, want, 3, 1e-6, 1e-6);
  }
  vecmat_destroy(ctx);
  return TEST_RESULT();
}

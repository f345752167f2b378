#include "inferred_params.h"
#define LAST_ERROR inferred_params_last_error
#include "common.h"

#define N INFERRED_PARAMS_CONST_N

int main(void) {
  inferred_params_ctx *ctx = NULL;
  static float f[N], fw[N], v[N * 3], vw[N * 3], m[N * 4], mw[N * 4];
  static int32_t k[N], ks[N], pi[N];
  static float pf[N], pfw[N];
  static double d[N], dw[N];
  static long long got[N], want[N];
  int i, r, c;
  CHECK(inferred_params_create(NULL, &ctx));
  CHECK(inferred_params_init(ctx));
  CHECK(inferred_params_run(ctx));
  CHECK(inferred_params_out_f_read(ctx, f, N));
  CHECK(inferred_params_out_i_read(ctx, k, N));
  CHECK(inferred_params_ks_read(ctx, ks, N));
  CHECK(inferred_params_out_d_read(ctx, d, N));
  CHECK(inferred_params_out_v_read(ctx, v, N * 3));
  CHECK(inferred_params_out_m_read(ctx, m, N * 4));
  CHECK(inferred_params_out_pi_read(ctx, pi, N));
  CHECK(inferred_params_out_pf_read(ctx, pf, N));
  for (i = 0; i < N; ++i) {
    float x = (float)i * 0.25f - 3.0f;
    int32_t kk = i * 3 - 50;
    double dd = (double)i * 0.125 - 2.0;
    float vv[3] = {(float)i, 1.0f - (float)i, 0.5f * (float)i};
    float cc[3] = {1.0f, 2.0f, 3.0f};
    float mm[4] = {(float)i * 0.1f, 1.0f, -1.0f, (float)i * 0.2f}, m2[4];
    float pw = (float)i * 0.5f;
    /* f32: twice + lerp(x, 10, 0.25) + twice(x * x) + half(i32) */
    fw[i] = (x + x) + (x + (10.0f - x) * 0.25f);
    fw[i] = fw[i] + ((x * x) + (x * x));
    fw[i] = fw[i] + (float)kk * 0.5f;
    /* i32: twice + bump (a copy) + twice(k * k) */
    got[i] = k[i];
    want[i] = (long long)(kk + kk) + (kk + 1) + (long long)(kk * kk + kk * kk);
    /* f64 with a literal argument: 0.1 binds as the default float, f32 */
    dw[i] = (dd + dd) + (dd + ((double)0.1f - dd) * 0.5);
    /* vec3 and a struct */
    for (c = 0; c < 3; ++c)
      vw[i * 3 + c] = ((vv[c] + vv[c]) + (vv[c] + (cc[c] - vv[c]) * 0.5f)) +
                      1.0f * pw;
    /* mat2 (row-major), with m @ m */
    for (r = 0; r < 2; ++r)
      for (c = 0; c < 2; ++c)
        m2[r * 2 + c] = mm[r * 2] * mm[c] + mm[r * 2 + 1] * mm[2 + c];
    for (c = 0; c < 4; ++c)
      mw[i * 4 + c] = (mm[c] + mm[c]) + (mm[c] + (m2[c] - mm[c]) * 0.5f);
  }
  compare_f32("f32", f, fw, N, 0, 0);
  compare_i64("i32", got, want, N);
  compare_f64("f64", d, dw, N, 0, 0);
  compare_f32("vec3", v, vw, N * 3, 0, 0);
  compare_f32("mat2", m, mw, N * 4, 0, 0);
  /* The func's `a += 1` changed its own copy only. */
  for (i = 0; i < N; ++i) {
    got[i] = ks[i];
    want[i] = i * 3 - 50;
  }
  compare_i64("ks unchanged", got, want, N);
  /* The (i32, f32) tuple: the i32 (above 2^24) exact. */
  for (i = 0; i < N; ++i) {
    got[i] = pi[i];
    want[i] = (long long)(i * 3 - 50) * 1000003 * 2 + 1;
    pfw[i] = ((float)i * 0.25f - 3.0f) + 1.0f;
  }
  compare_i64("tuple i32", got, want, N);
  compare_f32("tuple f32", pf, pfw, N, 0, 0);
  inferred_params_destroy(ctx);
  TEST_RESULT();
}

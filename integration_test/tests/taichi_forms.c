/* Taichi idioms (see taichi_forms.tc) against a plain C reference. */
#include "taichi_forms.h"
#define LAST_ERROR taichi_forms_last_error
#include "common.h"

#define N TAICHI_FORMS_CONST_N

int main(void) {
  taichi_forms_ctx *ctx = NULL;
  static float red[N * 5], wred[N * 5];
  static int32_t boxed[12];
  static float qs[N], p[N * 3], r[N * 12], rv[N * 9], rm[N * 9], h[4 * 4 * 2];
  static float wr[N * 12], wrv[N * 9], wrm[N * 9], wh[4 * 4 * 2];
  static int32_t ri[16], steps[40], g[6 * 5], wsteps[40], wg[6 * 5];
  int i, k, j, bad = 0;
  for (i = 0; i < N * 3; ++i)
    p[i] = (float)((i * 37 % 23) - 11) * 0.25f;
  CHECK(taichi_forms_create(NULL, &ctx));
  for (i = 0; i < N; ++i)
    qs[i] = (float)i * 0.5f - 1.0f;
  CHECK(taichi_forms_p_write(ctx, p, N * 3));
  CHECK(taichi_forms_qs_write(ctx, qs, N));
  CHECK(taichi_forms_forms(ctx));
  CHECK(taichi_forms_stepped(ctx));
  CHECK(taichi_forms_grids(ctx));
  CHECK(taichi_forms_r_read(ctx, r, N * 12));
  CHECK(taichi_forms_rv_read(ctx, rv, N * 9));
  CHECK(taichi_forms_rm_read(ctx, rm, N * 9));
  CHECK(taichi_forms_ri_read(ctx, ri, 16));
  CHECK(taichi_forms_steps_read(ctx, steps, 40));
  CHECK(taichi_forms_g_read(ctx, g, 30));
  CHECK(taichi_forms_h_read(ctx, h, 32));
  CHECK(taichi_forms_red_read(ctx, red, N * 5));
  CHECK(taichi_forms_boxed_read(ctx, boxed, 12));
  for (i = 0; i < N; ++i) {
    float x = p[i * 3], y = p[i * 3 + 1], z = p[i * 3 + 2];
    float *w = wr + i * 12, *v = wrv + i * 9, *m = wrm + i * 9;
    float ss = x * x + y * y + z * z;
    float nrm = sqrtf(ss), inv = 1.0f / (nrm + 0.25f);
    w[0] = y;
    w[1] = x;
    w[2] = z * 2.0f + z * 2.0f;
    w[3] = sqrtf(ss + 1e-3f);
    w[4] = 1.0f / sqrtf(ss + 0.5f);
    w[5] = x * 0.0f;
    w[6] = nrm;
    for (k = 0; k < 3; ++k)
      for (j = 0; j < 3; ++j)
        m[k * 3 + j] = p[i * 3 + k] * p[i * 3 + j] + (k == j ? 1.0f : 0.0f);
    w[7] = m[0] + m[4] * 10.0f + m[8] * 100.0f;
    w[8] = 1074.0f;
    w[9] = 45.0f;
    w[10] = 357.0f;
    w[11] = 24.0f;
    w[0] = w[0] + (qs[i] * 2.0f + 1.5f);
    {
      float mx = x > y ? x : y, mn = x < y ? x : y;
      wred[i * 5] = mx > z ? mx : z;
      wred[i * 5 + 1] = mn < z ? mn : z;
      wred[i * 5 + 2] = x + y + z;
      wred[i * 5 + 3] = (float)(x != 0 || y != 0 || z != 0) +
                        10.0f * (float)(x > 0 && y > 0 && z > 0);
      wred[i * 5 + 4] = x + (y + 1.0f) * 10.0f + z * 0.0f +
                        (x + z + (float)(int)(x * 4.0f)) * 100.0f;
    }
    for (k = 0; k < 3; ++k) {
      v[k] = x + 1.0f + p[i * 3 + k] * 2.0f;
      v[3 + k] = inv * p[i * 3 + k];
      v[6 + k] = p[i * 3 + k] * 2.0f;
    }
  }
  for (k = 0; k < 40; ++k)
    wsteps[k] = 0;
  for (k = 3; k < 40; k += 5)
    wsteps[k] = k;
  for (k = 38; k > 0; k -= 7)
    wsteps[k] += 100;
  for (i = 0; i < 6; ++i)
    for (j = 0; j < 5; ++j)
      wg[i * 5 + j] = i * 10 + j;
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 4; ++j)
      for (k = 0; k < 2; ++k)
        wh[(i * 4 + j) * 2 + k] = (float)(i * 100 + j * 10 + k);
  compare_f32("r", r, wr, N * 12, 2e-6, 1e-6);
  compare_f32("rv", rv, wrv, N * 9, 2e-6, 1e-6);
  compare_f32("rm", rm, wrm, N * 9, 0, 0);
  compare_f32("h", h, wh, 32, 0, 0);
  compare_f32("reductions", red, wred, N * 5, 0, 0);
  for (i = 0; i < 2; ++i)
    for (j = 0; j < 3; ++j)
      for (k = 0; k < 2; ++k)
        if (boxed[(i * 3 + j) * 2 + k] != i * 100 + j * 10 + k) {
          fprintf(stderr, "boxed[%d, %d, %d] wrong\n", i, j, k);
          ++bad;
        }
  for (i = 0; i < N; ++i) /* zero(x) keeps the sign: x * 0 */
    if (signbit(r[i * 12 + 5]) != signbit(wr[i * 12 + 5])) {
      fprintf(stderr, "zero(%g): sign differs\n", p[i * 3]);
      ++bad;
    }
  for (k = 0; k < 40; ++k)
    if (steps[k] != wsteps[k]) {
      fprintf(stderr, "steps[%d]: got %d, want %d\n", k, steps[k], wsteps[k]);
      ++bad;
    }
  for (k = 0; k < 30; ++k)
    if (g[k] != wg[k]) {
      fprintf(stderr, "g[%d]: got %d, want %d\n", k, g[k], wg[k]);
      ++bad;
    }
  for (i = 0; i < 2; ++i)
    for (j = 0; j < 3; ++j)
      if (ri[i * 3 + j] != i * 10 + j) {
        fprintf(stderr, "ri[%d]: got %d\n", i * 3 + j, ri[i * 3 + j]);
        ++bad;
      }
  taichi_forms_destroy(ctx);
  if (bad || tic_test_failures) {
    fprintf(stderr, "FAILED\n");
    return 1;
  }
  printf("taichi_forms: all values match\n");
  return 0;
}

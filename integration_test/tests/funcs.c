#include "funcs.h"
#define LAST_ERROR funcs_last_error
#include "common.h"

#define N FUNCS_CONST_N

static int classify(float a) {
  if (a < 0.0f) return a < -10.0f ? -2 : -1;
  if (a == 0.0f) return 0;
  return a > 10.0f ? 2 : 1;
}
static int gcd(int a, int b) {
  while (b != 0) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}
static int first_divisor(int k) {
  int d;
  for (d = 2; d < k; ++d) {
    if (d * d > k) return k;
    if (k % d == 0) return d;
  }
  return k;
}
static float sq(float a) { return a * a; }

int main(void) {
  funcs_ctx *ctx = NULL;
  static float x[N], xw[N], v[N * 3], vw[N * 3], m[N * 4], mw[N * 4];
  static int32_t cls[N], g[N], steps[N];
  static long long got[N], want[N];
  int32_t d = 0;
  int i;
  CHECK(funcs_create(NULL, &ctx));
  CHECK(funcs_run(ctx));
  CHECK(funcs_x_read(ctx, x, N));
  CHECK(funcs_cls_read(ctx, cls, N));
  CHECK(funcs_gcd_out_read(ctx, g, N));
  CHECK(funcs_v_read(ctx, v, N * 3));
  CHECK(funcs_m_read(ctx, m, N * 4));
  CHECK(funcs_steps_read(ctx, steps, N));
  for (i = 0; i < N; ++i) {
    float a = (float)(i - 150) * 0.1f;
    double c = cos((double)a), s = sin((double)a);
    xw[i] = sq(sq(a) + 1.0f) - sq(a);
    got[i] = cls[i];
    want[i] = classify(a);
    vw[i * 3] = (float)(c * 1.0 - s * 2.0);
    vw[i * 3 + 1] = (float)(s * 1.0 + c * 2.0);
    vw[i * 3 + 2] = 3.0f + (float)classify(a);
    mw[i * 4] = 1.0f;
    mw[i * 4 + 1] = 0.0f;
    mw[i * 4 + 2] = 0.0f;
    mw[i * 4 + 3] = 1.0f;
  }
  compare_f32("poly", x, xw, N, 1e-6, 1e-6);
  compare_i64("classify", got, want, N);
  EXPECT_TRUE(cls[150] == 0); /* a == 0 exactly */
  for (i = 0; i < N; ++i) {
    got[i] = g[i];
    want[i] = gcd(i * 12, 360) + first_divisor(i + 2) * 1000;
  }
  compare_i64("gcd", got, want, N);
  compare_f32("spin", v, vw, N * 3, 1e-5, 1e-5);
  compare_f32("rot", m, mw, N * 4, 1e-6, 1e-6);
  for (i = 0; i < N; ++i) {
    long long y = i, c = 0;
    while (y > 1) {
      y = y % 2 == 0 ? y / 2 : 3 * y + 1;
      ++c;
    }
    got[i] = steps[i];
    want[i] = c;
  }
  compare_i64("steps", got, want, N);
  CHECK(funcs_direct(ctx, -20.0f, &d));
  EXPECT_TRUE(d == -200 + 12);
  CHECK(funcs_direct(ctx, 0.0f, &d));
  EXPECT_TRUE(d == 12);
  funcs_destroy(ctx);
  return TEST_RESULT();
}

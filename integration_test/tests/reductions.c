#include "reductions.h"
#define LAST_ERROR reductions_last_error
#include "common.h"

#define N REDUCTIONS_CONST_N

int main(void) {
  reductions_ctx *ctx = NULL;
  tc_options opts;
  static double x[N];
  static int32_t k[N];
  double s = 0, sw = 0, mx = 0, mxw = -1e300, r = 0;
  int32_t c = 0, cw = 0, mn = 0, mnw = 2147483647, ns = 0;
  float st[3], stw[3] = {1e30f, -1e30f, 0};
  double fsum = 0;
  int i;
  tc_options_init(&opts);
  opts.num_threads = 4;
  CHECK(reductions_create(&opts, &ctx));
  for (i = 0; i < N; ++i) {
    x[i] = sin(i * 0.37) * 100.0 + (i == 77777 ? 500.0 : 0.0);
    k[i] = (int32_t)((i * 2654435761u) % 200001u) - 100000;
  }
  k[31337] = -123456;
  CHECK(reductions_x_write(ctx, x, N));
  CHECK(reductions_k_write(ctx, k, N));
  for (i = 0; i < N; ++i) {
    float v = (float)k[i] * 0.001f;
    sw += x[i];
    cw += k[i] % 2 != 0;
    if (k[i] < mnw) mnw = k[i];
    if (x[i] > mxw) mxw = x[i];
    if (v < stw[0]) stw[0] = v;
    if (v > stw[1]) stw[1] = v;
    fsum += v;
  }
  stw[2] = (float)fsum;

  CHECK(reductions_sum_x(ctx, &s));
  compare_f64("sum_x", &s, &sw, 1, 1e-9, 1e-6);
  CHECK(reductions_count_odd(ctx, &c));
  EXPECT_TRUE(c == cw);
  CHECK(reductions_min_k(ctx, &mn));
  EXPECT_TRUE(mn == mnw && mn == -123456);
  CHECK(reductions_max_x(ctx, &mx));
  EXPECT_TRUE(mx == mxw);
  CHECK(reductions_neg_sum(ctx, &ns));
  EXPECT_TRUE(ns == 1000 - 5050);
  CHECK(reductions_stats(ctx, st));
  compare_f32("stats.minmax", st, stw, 2, 0, 0);
  /* f32 accumulation order differs from the serial sum: loose bound */
  compare_f32("stats.sum", &st[2], &stw[2], 1, 1e-3, 1.0);
  CHECK(reductions_scalar_f64(ctx, 1.0 / 3.0, 7, &r));
  {
    double w = (1.0 / 3.0) * 7.0 + 0.125;
    compare_f64("scalar_f64", &r, &w, 1, 0, 0);
  }
  {
    /* Repeated: a racy update loses increments only now and then. */
    int rep;
    int32_t cnt = 0, first = 0;
    for (rep = 0; rep < 20; ++rep) {
      CHECK(reductions_atomic_count(ctx, &cnt));
      EXPECT_TRUE(cnt == N);
      CHECK(reductions_atomic_first(ctx, &first));
      EXPECT_TRUE(first == 1000000 + 2 * N);
    }
  }
  reductions_destroy(ctx);
  return TEST_RESULT();
}

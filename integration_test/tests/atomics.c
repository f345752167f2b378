#include "atomics.h"
#define LAST_ERROR atomics_last_error
#include "common.h"

int main(void) {
  atomics_ctx *ctx = NULL;
  tc_options opts;
  int64_t total = 0, red = 0;
  double ftotal = 0;
  int32_t hist[16], mx = 0, old = 0;
  long long got[16], want[16];
  const long long n = ATOMICS_CONST_N;
  int i;
  tc_options_init(&opts);
  opts.num_threads = 4; /* more than one thread even on a small machine */
  CHECK(atomics_create(&opts, &ctx));
  CHECK(atomics_sum_to(ctx, (int32_t)n));
  CHECK(atomics_total_get(ctx, &total));
  CHECK(atomics_ftotal_get(ctx, &ftotal));
  CHECK(atomics_mx_get(ctx, &mx));
  CHECK(atomics_hist_read(ctx, hist, 16));
  {
    long long g = total, w = n * (n + 1) / 2;
    compare_i64("total", &g, &w, 1);
    compare_f64("ftotal", &ftotal, &(double){(double)w}, 1, 0, 0);
  }
  EXPECT_TRUE(mx == (int32_t)n);
  /* i in [1, n]: residue r appears floor((n - r) / 16) + 1 times (r >= 1),
     residue 0 appears floor(n / 16) times */
  for (i = 0; i < 16; ++i) {
    got[i] = hist[i];
    want[i] = i == 0 ? n / 16 : (n - i) / 16 + 1;
  }
  compare_i64("hist", got, want, 16);
  CHECK(atomics_sum_reduce(ctx, (int32_t)n, &red));
  {
    long long g = red, w = n * (n + 1) / 2;
    compare_i64("reduce", &g, &w, 1);
  }
  CHECK(atomics_old_values(ctx, &old));
  EXPECT_TRUE(old == hist[0]);
  CHECK(atomics_hist_get(ctx, 0, &old));
  EXPECT_TRUE(old == hist[0] + 5);
  atomics_destroy(ctx);
  return TEST_RESULT();
}

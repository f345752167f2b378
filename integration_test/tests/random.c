#include "random.h"
#define LAST_ERROR random_last_error
#include "common.h"

#define N RANDOM_CONST_N

/* Mean, variance and a 20-bin histogram against the uniform distribution. */
static void check_uniform(const char *what, const double *x, size_t n) {
  size_t i, hist[20] = {0};
  double s = 0, s2 = 0, mean, var, sigma_mean, expect = (double)n / 20;
  size_t bad = 0;
  for (i = 0; i < n; ++i) {
    if (!(x[i] >= 0.0 && x[i] < 1.0)) {
      if (bad++ < 5) fprintf(stderr, "%s[%lu] = %.17g outside [0, 1)\n", what, (unsigned long)i, x[i]);
      continue;
    }
    s += x[i];
    s2 += x[i] * x[i];
    hist[(int)(x[i] * 20)]++;
  }
  EXPECT_TRUE(bad == 0);
  mean = s / n;
  var = s2 / n - mean * mean;
  sigma_mean = sqrt(1.0 / 12.0 / n);
  if (fabs(mean - 0.5) > 6 * sigma_mean) {
    fprintf(stderr, "%s: mean %.6f\n", what, mean);
    ++tic_test_failures;
  }
  /* var of U^2 terms: sd of the sample variance ~ sqrt(1/180 / n) */
  if (fabs(var - 1.0 / 12.0) > 6 * sqrt(1.0 / 180.0 / n)) {
    fprintf(stderr, "%s: variance %.6f, want %.6f\n", what, var, 1.0 / 12.0);
    ++tic_test_failures;
  }
  for (i = 0; i < 20; ++i)
    if (fabs((double)hist[i] - expect) > 6 * sqrt(expect)) {
      fprintf(stderr, "%s: bin %lu has %lu samples, expect %.0f\n", what,
              (unsigned long)i, (unsigned long)hist[i], expect);
      ++tic_test_failures;
    }
}

static float r1[N], r2[N];
static double d1[N], d2[N], tmp[N];

int main(void) {
  random_ctx *ctx = NULL, *ctx2 = NULL;
  tc_options opts;
  double m = 0;
  size_t i, same;

  /* all threads: statistics */
  CHECK(random_create(NULL, &ctx));
  CHECK(random_draw(ctx));
  CHECK(random_r_read(ctx, r1, N));
  CHECK(random_d_read(ctx, d1, N));
  for (i = 0; i < N; ++i) tmp[i] = r1[i];
  check_uniform("f32", tmp, N);
  check_uniform("f64", d1, N);
  /* consecutive draws differ: not a constant or a short cycle */
  for (i = 1, same = 0; i < N; ++i) same += d1[i] == d1[i - 1];
  EXPECT_TRUE(same < 10);
  CHECK(random_mean(ctx, &m));
  EXPECT_TRUE(fabs(m - 0.5) < 6 * sqrt(1.0 / 12.0 / N));
  random_destroy(ctx);
  ctx = NULL;

  /* one thread, the same seed: the same sequence in two contexts */
  tc_options_init(&opts);
  opts.num_threads = 1;
  opts.seed = 1234;
  CHECK(random_create(&opts, &ctx));
  CHECK(random_create(&opts, &ctx2));
  CHECK(random_draw(ctx));
  CHECK(random_draw(ctx2));
  CHECK(random_r_read(ctx, r1, N));
  CHECK(random_r_read(ctx2, r2, N));
  CHECK(random_d_read(ctx, d1, N));
  CHECK(random_d_read(ctx2, d2, N));
  EXPECT_TRUE(memcmp(r1, r2, sizeof r1) == 0);
  EXPECT_TRUE(memcmp(d1, d2, sizeof d1) == 0);
  /* the generator advances: a second launch gives new numbers */
  CHECK(random_draw(ctx));
  CHECK(random_r_read(ctx, r2, N));
  EXPECT_TRUE(memcmp(r1, r2, sizeof r1) != 0);
  random_destroy(ctx2);
  ctx2 = NULL;

  /* another seed gives another sequence */
  opts.seed = 1235;
  CHECK(random_create(&opts, &ctx2));
  CHECK(random_draw(ctx2));
  CHECK(random_r_read(ctx2, r2, N));
  for (i = 0, same = 0; i < N; ++i) same += r1[i] == r2[i];
  EXPECT_TRUE(same < N / 100);
  random_destroy(ctx2);
  random_destroy(ctx);
  return TEST_RESULT();
}

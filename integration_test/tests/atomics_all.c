#include "atomics_all.h"
#define LAST_ERROR atomics_all_last_error
#include "common.h"

#define N ATOMICS_ALL_CONST_N

static uint32_t hash(int32_t i) {
  uint32_t h = (uint32_t)i * 2654435761u;
  return h ^ (h >> 15);
}

static int popcount64(uint64_t x) {
  int c = 0;
  while (x) {
    x &= x - 1;
    ++c;
  }
  return c;
}

#define GET(T, name, var)                                                      \
  T var;                                                                       \
  CHECK(atomics_all_##name##_get(ctx, &var))

int main(void) {
  atomics_all_ctx *ctx = NULL;
  tc_options opts;
  static int32_t old_add[N], old_max[N];
  static int64_t old_sub[N];
  static char seen[N + 1];
  uint64_t old_or[64], old_and[64];
  int32_t bins[7];
  long long gb[7], wb[7] = {0, 0, 0, 0, 0, 0, 0};
  int64_t w_add64 = 0, w_sub64 = 0;
  int32_t w_add32 = 0, w_sub32 = 0, w_min32 = 2147483647, w_max32 = -2147483647 - 1;
  uint32_t w_xor32 = 0;
  uint64_t w_xor64 = 0;
  float w_min_f32 = 1e30f, w_max_f32 = -1e30f;
  double w_add_f64 = 0, w_min_f64 = 1e300, w_max_f64 = -1e300;
  int i, bad, c;
  tc_options_init(&opts);
  opts.num_threads = 4;
  CHECK(atomics_all_create(&opts, &ctx));
  /* starting values */
  CHECK(atomics_all_min_i32_set(ctx, 2147483647));
  CHECK(atomics_all_max_i32_set(ctx, -2147483647 - 1));
  CHECK(atomics_all_and_u32_set(ctx, 0xFFFFFFFFu));
  CHECK(atomics_all_and_u64_set(ctx, ~(uint64_t)0));
  CHECK(atomics_all_min_f32_set(ctx, 1e30f));
  CHECK(atomics_all_max_f32_set(ctx, -1e30f));
  CHECK(atomics_all_min_f64_set(ctx, 1e300));
  CHECK(atomics_all_max_f64_set(ctx, -1e300));
  CHECK(atomics_all_contend(ctx));
  for (i = 0; i < N; ++i) {
    int32_t v = (i * 7919) % 100003 - 50000;
    float f = (float)((i * 7919) % 10007) / 3.0f;
    double d = (double)((i * 7919) % 10007) / 7.0 - 100.0;
    w_add32 = (int32_t)((uint32_t)w_add32 + (uint32_t)i);
    w_sub32 -= i % 1000;
    if (v < w_min32) w_min32 = v;
    if (v > w_max32) w_max32 = v;
    w_add64 += (int64_t)i * 1000000;
    w_sub64 -= (int64_t)i * 3;
    w_xor32 ^= hash(i);
    w_xor64 ^= (uint64_t)hash(i) << (i % 33);
    if (f < w_min_f32) w_min_f32 = f;
    if (f > w_max_f32) w_max_f32 = f;
    w_add_f64 += i * 0.25;
    if (d < w_min_f64) w_min_f64 = d;
    if (d > w_max_f64) w_max_f64 = d;
    wb[i % 7] += 1;
    wb[(i * 3) % 7] -= 2;
  }
  {
    GET(int32_t, add_i32, a32);
    GET(int32_t, sub_i32, s32);
    GET(int32_t, min_i32, mn32);
    GET(int32_t, max_i32, mx32);
    GET(int64_t, add_i64, a64);
    GET(int64_t, sub_i64, s64);
    GET(uint32_t, and_u32, and32);
    GET(uint32_t, or_u32, or32);
    GET(uint32_t, xor_u32, xor32);
    GET(uint64_t, and_u64, and64);
    GET(uint64_t, or_u64, or64);
    GET(uint64_t, xor_u64, xor64);
    GET(float, add_f32, af32);
    GET(float, min_f32, mnf32);
    GET(float, max_f32, mxf32);
    GET(double, add_f64, af64);
    GET(double, sub_f64, sf64);
    GET(double, min_f64, mnf64);
    GET(double, max_f64, mxf64);
    EXPECT_TRUE(a32 == w_add32);
    EXPECT_TRUE(s32 == w_sub32);
    EXPECT_TRUE(mn32 == w_min32);
    EXPECT_TRUE(mx32 == w_max32);
    EXPECT_TRUE(a64 == w_add64);
    EXPECT_TRUE(s64 == w_sub64);
    EXPECT_TRUE(and32 == 0x80000000u);
    EXPECT_TRUE(or32 == 0xFFFFFu);
    EXPECT_TRUE(xor32 == w_xor32);
    EXPECT_TRUE(and64 == ~(((uint64_t)1 << 40) - 1));
    EXPECT_TRUE(or64 == ((uint64_t)1 << 50) - 1);
    EXPECT_TRUE(xor64 == w_xor64);
    EXPECT_TRUE(af32 == 0.5f * N); /* exact: multiples of 0.5 below 2^24 */
    EXPECT_TRUE(mnf32 == w_min_f32 && mxf32 == w_max_f32);
    /* f64 sums of multiples of 0.25 below 2^53 are exact in any order */
    EXPECT_TRUE(af64 == w_add_f64);
    EXPECT_TRUE(sf64 == -0.125 * N);
    EXPECT_TRUE(mnf64 == w_min_f64 && mxf64 == w_max_f64);
  }
  CHECK(atomics_all_bins_read(ctx, bins, 7));
  for (i = 0; i < 7; ++i) gb[i] = bins[i];
  compare_i64("bins", gb, wb, 7);

  /* value-returning atomics: every iteration sees a distinct old value */
  CHECK(atomics_all_down_set(ctx, N));
  CHECK(atomics_all_clear_set(ctx, ~(uint64_t)0));
  CHECK(atomics_all_maxc_set(ctx, -1));
  CHECK(atomics_all_olds(ctx));
  CHECK(atomics_all_old_add_read(ctx, old_add, N));
  CHECK(atomics_all_old_sub_read(ctx, old_sub, N));
  CHECK(atomics_all_old_max_read(ctx, old_max, N));
  CHECK(atomics_all_old_or_read(ctx, old_or, 64));
  CHECK(atomics_all_old_and_read(ctx, old_and, 64));
  memset(seen, 0, sizeof seen);
  for (i = 0, bad = 0; i < N; ++i) {
    if (old_add[i] < 0 || old_add[i] >= N || seen[old_add[i]]++) ++bad;
  }
  if (bad) fprintf(stderr, "atomic_add: %d old values repeat or are out of range\n", bad);
  EXPECT_TRUE(bad == 0);
  memset(seen, 0, sizeof seen);
  for (i = 0, bad = 0; i < N; ++i) {
    if (old_sub[i] < 1 || old_sub[i] > N || seen[old_sub[i]]++) ++bad;
  }
  if (bad) fprintf(stderr, "atomic_sub: %d old values repeat or are out of range\n", bad);
  EXPECT_TRUE(bad == 0);
  {
    int32_t cnt = 0, mx = 0;
    int64_t dn = 0;
    CHECK(atomics_all_counter_get(ctx, &cnt));
    CHECK(atomics_all_down_get(ctx, &dn));
    CHECK(atomics_all_maxc_get(ctx, &mx));
    EXPECT_TRUE(cnt == N && dn == 0 && mx == N - 1);
  }
  /* atomic_max returns a value below i (the old maximum), or -1 first */
  for (i = 0, bad = 0; i < N; ++i)
    if (old_max[i] < -1 || old_max[i] >= N) ++bad;
  EXPECT_TRUE(bad == 0);
  /* one bit per iteration: the old words' popcounts are 0..63 (or 64..1) */
  {
    char pc_or[65], pc_and[65];
    memset(pc_or, 0, sizeof pc_or);
    memset(pc_and, 0, sizeof pc_and);
    for (i = 0, bad = 0; i < 64; ++i) {
      c = popcount64(old_or[i]);
      if (pc_or[c]++ || (old_or[i] >> i & 1)) ++bad;
      c = popcount64(old_and[i]);
      if (c < 1 || pc_and[c]++ || !(old_and[i] >> i & 1)) ++bad;
    }
    EXPECT_TRUE(bad == 0);
  }
  atomics_all_destroy(ctx);
  return TEST_RESULT();
}

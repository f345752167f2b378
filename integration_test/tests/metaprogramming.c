#include "metaprogramming.h"
#define LAST_ERROR metaprogramming_last_error
#include "common.h"

#define N METAPROGRAMMING_CONST_N

int main(void) {
  metaprogramming_ctx *ctx = NULL;
  static float a[N], b[N], aw[N], bw[N];
  static int32_t ia[N], g2[54], g3[60], unroll[N * 3], info[8];
  static int64_t fact[8];
  static long long got[N * 3], want[N * 3];
  int i, j, k;
  CHECK(metaprogramming_create(NULL, &ctx));
  for (i = 0; i < N; ++i) {
    a[i] = (float)i * 0.25f;
    b[i] = 10.0f - (float)i;
    ia[i] = i - 5;
  }
  CHECK(metaprogramming_a_write(ctx, a, N));
  CHECK(metaprogramming_b_write(ctx, b, N));
  CHECK(metaprogramming_ia_write(ctx, ia, N));

  /* two instances of one template touch only their own field */
  CHECK(metaprogramming_add_a(ctx, 1.5f));
  CHECK(metaprogramming_add_b(ctx, -2.0f));
  CHECK(metaprogramming_add_b_fixed(ctx));
  for (i = 0; i < N; ++i) {
    aw[i] = a[i] + 1.5f + (float)N;
    bw[i] = (b[i] + -2.0f + (float)N) + 100.0f + (float)N;
  }
  CHECK(metaprogramming_a_read(ctx, a, N));
  CHECK(metaprogramming_b_read(ctx, b, N));
  compare_f32("add_a", a, aw, N, 0, 0);
  compare_f32("add_b", b, bw, N, 0, 0);

  CHECK(metaprogramming_smooth_ab(ctx));
  CHECK(metaprogramming_b_read(ctx, b, N));
  for (i = 0; i < N; ++i)
    bw[i] = (a[i > 0 ? i - 1 : 0] + a[i < N - 1 ? i + 1 : N - 1]) * 0.5f;
  compare_f32("smooth", b, bw, N, 0, 0);

  CHECK(metaprogramming_scaled_a(ctx));
  CHECK(metaprogramming_scaled_ia(ctx));
  for (i = 0; i < N; ++i) aw[i] = a[i] * 2.0f;
  CHECK(metaprogramming_a_read(ctx, a, N));
  CHECK(metaprogramming_ia_read(ctx, ia, N));
  compare_f32("scaled_a", a, aw, N, 0, 0);
  for (i = 0; i < N; ++i) {
    got[i] = ia[i];
    want[i] = (i - 5) * 3;
  }
  compare_i64("scaled_ia", got, want, N);

  CHECK(metaprogramming_recursion(ctx));
  CHECK(metaprogramming_fact_read(ctx, fact, 8));
  CHECK(metaprogramming_info_read(ctx, info, 8));
  for (i = 0; i < 8; ++i) {
    long long f = 1;
    for (k = 2; k <= i + 3; ++k) f *= k;
    got[i] = fact[i];
    want[i] = f;
  }
  compare_i64("factorial", got, want, 8);
  {
    int f0 = 0, f1 = 1;
    for (k = 0; k < 15; ++k) {
      int t = f0 + f1;
      f0 = f1;
      f1 = t;
    }
    EXPECT_TRUE(info[0] == f0); /* fib(15) = 610 */
    EXPECT_TRUE(info[0] == 610);
  }
  EXPECT_TRUE(info[1] == 3);
  EXPECT_TRUE(info[2] == 435);
  EXPECT_TRUE(info[3] == 2 * N + 1);

  CHECK(metaprogramming_unrolled(ctx));
  CHECK(metaprogramming_unroll_read(ctx, unroll, N * 3));
  for (i = 0; i < N; ++i)
    for (k = 0; k < 3; ++k) {
      got[i * 3 + k] = unroll[i * 3 + k];
      want[i * 3 + k] = k == 1 ? -i : i * (k + 1);
    }
  compare_i64("unroll", got, want, N * 3);

  CHECK(metaprogramming_mark2(ctx, 2));
  CHECK(metaprogramming_mark3(ctx));
  CHECK(metaprogramming_g2_read(ctx, g2, 54));
  CHECK(metaprogramming_g3_read(ctx, g3, 60));
  for (i = 0; i < 6; ++i)
    for (j = 0; j < 9; ++j) {
      got[i * 9 + j] = g2[i * 9 + j];
      want[i * 9 + j] = (i * 10 + j) * 2;
    }
  compare_i64("grouped2", got, want, 54);
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 3; ++j)
      for (k = 0; k < 5; ++k) {
        int n = (i * 3 + j) * 5 + k;
        got[n] = g3[n];
        want[n] = -((i * 10 + j) * 10 + k);
      }
  compare_i64("grouped3", got, want, 60);
  metaprogramming_destroy(ctx);
  return TEST_RESULT();
}

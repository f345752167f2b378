#include "ndrange_offsets.h"
#define LAST_ERROR ndrange_offsets_last_error
#include "common.h"

int main(void) {
  ndrange_offsets_ctx *ctx = NULL;
  static int32_t a[40], g[9 * 8 * 7], h[400], inner[10];
  static int64_t big[16];
  static long long got[504], want[504];
  int32_t cnt = 0;
  int i, j, k;
  CHECK(ndrange_offsets_create(NULL, &ctx));

  /* range(-5, 17) shifted by +10 into a; an empty range does nothing */
  CHECK(ndrange_offsets_shifted(ctx, -5, 17, 10));
  CHECK(ndrange_offsets_shifted(ctx, 7, 7, 0));
  CHECK(ndrange_offsets_shifted(ctx, 9, 3, 0));
  CHECK(ndrange_offsets_a_read(ctx, a, 40));
  for (i = 0; i < 40; ++i) {
    got[i] = a[i];
    want[i] = (i >= 5 && i < 27) ? i - 10 : 0;
  }
  compare_i64("a", got, want, 40);
  CHECK(ndrange_offsets_cnt_get(ctx, &cnt));
  EXPECT_TRUE(cnt == 22);

  CHECK(ndrange_offsets_grid3(ctx));
  CHECK(ndrange_offsets_g_read(ctx, g, 504));
  for (i = 0; i < 9; ++i)
    for (j = 0; j < 8; ++j)
      for (k = 0; k < 7; ++k) {
        int n = (i * 8 + j) * 7 + k;
        got[n] = g[n];
        want[n] = i >= 2 ? i * 10000 + j * 100 + k : 0;
      }
  compare_i64("g", got, want, 504);

  CHECK(ndrange_offsets_cnt_set(ctx, 0));
  CHECK(ndrange_offsets_grid_rt(ctx, 4, 17, 1, 19));
  CHECK(ndrange_offsets_grid_rt(ctx, 0, 20, 5, 5));  /* empty second axis */
  CHECK(ndrange_offsets_grid_rt(ctx, 6, 2, 0, 20));  /* empty first axis */
  CHECK(ndrange_offsets_cnt_get(ctx, &cnt));
  EXPECT_TRUE(cnt == 13 * 18);
  CHECK(ndrange_offsets_grouped_grid(ctx));
  CHECK(ndrange_offsets_h_read(ctx, h, 400));
  for (i = 0; i < 20; ++i)
    for (j = 0; j < 20; ++j) {
      long long w = 0;
      if (i >= 4 && i < 17 && j >= 1 && j < 19) w = i * 100 + j + 1;
      if (i >= 3 && i < 7 && j >= 11 && j < 15) w = i * 1000 + j;
      got[i * 20 + j] = h[i * 20 + j];
      want[i * 20 + j] = w;
    }
  compare_i64("h", got, want, 400);

  CHECK(ndrange_offsets_wide(ctx, (int64_t)1 << 33));
  CHECK(ndrange_offsets_big_read(ctx, big, 16));
  for (i = 0; i < 16; ++i) {
    got[i] = big[i];
    want[i] = (((long long)1 << 33) + i) * 3;
  }
  compare_i64("big", got, want, 16);

  CHECK(ndrange_offsets_nested(ctx));
  CHECK(ndrange_offsets_inner_read(ctx, inner, 10));
  for (k = 0; k < 10; ++k) {
    int r = k + 3;
    long long s = 0;
    for (i = r; i < r + 3; ++i)
      for (j = -2; j < 2; ++j) s += i * j + 1;
    got[k] = inner[k];
    want[k] = s;
  }
  compare_i64("inner", got, want, 10);
  ndrange_offsets_destroy(ctx);
  return TEST_RESULT();
}

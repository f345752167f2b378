#include "nested_dense.h"
#define LAST_ERROR nested_dense_last_error
#include "common.h"

int main(void) {
  nested_dense_ctx *ctx = NULL;
  int64_t gs[] = NESTED_DENSE_G_SHAPE, hs[] = NESTED_DENSE_H_SHAPE,
          ts[] = NESTED_DENSE_T_SHAPE;
  static int32_t g[32 * 8], visits[32 * 8], copy[32 * 8], t[6 * 4 * 10];
  static long long got[32 * 8], want[32 * 8], tg[240], tw[240];
  static float h[60], hw[60];
  double s = 0, sw = 0;
  int i, j, k;
  EXPECT_TRUE(NESTED_DENSE_G_NDIM == 2 && gs[0] == 32 && gs[1] == 8);
  EXPECT_TRUE(NESTED_DENSE_H_NDIM == 2 && hs[0] == 6 && hs[1] == 10);
  EXPECT_TRUE(NESTED_DENSE_T_NDIM == 3 && ts[0] == 6 && ts[1] == 4 && ts[2] == 10);
  if (tic_test_failures) return TEST_RESULT();
  CHECK(nested_dense_create(NULL, &ctx));
  CHECK(nested_dense_fill(ctx));
  CHECK(nested_dense_transpose_copy(ctx));
  CHECK(nested_dense_g_read(ctx, g, 256));
  CHECK(nested_dense_visits_read(ctx, visits, 256));
  CHECK(nested_dense_copy_read(ctx, copy, 256));
  CHECK(nested_dense_h_read(ctx, h, 60));
  CHECK(nested_dense_t_read(ctx, t, 240));
  for (i = 0; i < 32; ++i)
    for (j = 0; j < 8; ++j) {
      got[i * 8 + j] = g[i * 8 + j];
      want[i * 8 + j] = i * 1000 + j;
    }
  compare_i64("g", got, want, 256);
  for (i = 0; i < 256; ++i) {
    got[i] = visits[i];
    want[i] = 1;
  }
  compare_i64("visits", got, want, 256);
  for (i = 0; i < 32; ++i)
    for (j = 0; j < 8; ++j) {
      got[i * 8 + j] = copy[i * 8 + j];
      want[i * 8 + j] = (31 - i) * 1000 + (7 - j);
    }
  compare_i64("copy", got, want, 256);
  for (i = 0; i < 6; ++i)
    for (j = 0; j < 10; ++j) hw[i * 10 + j] = (float)i * 0.5f - (float)j;
  compare_f32("h", h, hw, 60, 0, 0);
  for (i = 0; i < 6; ++i)
    for (j = 0; j < 4; ++j)
      for (k = 0; k < 10; ++k) {
        tg[(i * 4 + j) * 10 + k] = t[(i * 4 + j) * 10 + k];
        tw[(i * 4 + j) * 10 + k] = i * 10000 + j * 100 + k;
      }
  compare_i64("t", tg, tw, 240);

  /* host writes: set one element, write all, then a kernel reads them */
  for (i = 0; i < 60; ++i) h[i] = (float)((i * 7) % 13) - 6.0f;
  CHECK(nested_dense_h_write(ctx, h, 60));
  CHECK(nested_dense_h_set(ctx, 5, 9, 100.0f));
  h[59] = 100.0f;
  {
    int32_t v = 0;
    CHECK(nested_dense_g_set(ctx, 17, 5, -42));
    CHECK(nested_dense_g_get(ctx, 17, 5, &v));
    EXPECT_TRUE(v == -42);
    CHECK(nested_dense_t_get(ctx, 5, 3, 9, &v));
    EXPECT_TRUE(v == 50309);
  }
  CHECK(nested_dense_weighted(ctx, &s));
  for (i = 0; i < 6; ++i)
    for (j = 0; j < 10; ++j) sw += (double)h[i * 10 + j] * (i * 10 + j + 1);
  compare_f64("weighted", &s, &sw, 1, 1e-12, 0);
  nested_dense_destroy(ctx);
  return TEST_RESULT();
}

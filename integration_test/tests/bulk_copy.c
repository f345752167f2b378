/* Every bulk path: write, run a kernel, read back, compare with C. */
#include "bulk_copy.h"
#define LAST_ERROR bulk_copy_last_error
#include "common.h"

int main(void) {
  bulk_copy_ctx *ctx = NULL;
  static float small[300], small_want[300];
  static float large[512 * 1024], large_want[512 * 1024];
  static float wide[600000], wide_want[600000];
  float a[64], b[64], a_want[64], b_want[64];
  double s = 3.0, s_got = 0;
  long i, j;
  for (i = 0; i < 300; ++i) {
    small[i] = (float)i * 0.25f;
    small_want[i] = small[i] * 2.0f + (float)(i % 3 + 1);
  }
  for (i = 0; i < 512; ++i)
    for (j = 0; j < 1024; ++j) {
      large[i * 1024 + j] = (float)((i * 7 + j * 3) % 101);
      large_want[i * 1024 + j] = large[i * 1024 + j] + (float)(i - j);
    }
  for (i = 0; i < 300000; ++i) {
    wide[2 * i] = (float)i;
    wide[2 * i + 1] = (float)(i % 17);
    wide_want[2 * i] = wide[2 * i + 1];
    wide_want[2 * i + 1] = wide[2 * i] + 1.0f;
  }
  for (i = 0; i < 64; ++i) {
    a[i] = (float)i;
    b[i] = (float)(100 - i);
    a_want[i] = a[i] + b[i];
    b_want[i] = -b[i];
  }
  CHECK(bulk_copy_create(NULL, &ctx));
  CHECK(bulk_copy_small_write(ctx, small, 300));
  CHECK(bulk_copy_large_write(ctx, large, 512 * 1024));
  CHECK(bulk_copy_wide_write(ctx, wide, 600000));
  CHECK(bulk_copy_a_write(ctx, a, 64));
  CHECK(bulk_copy_b_write(ctx, b, 64));
  CHECK(bulk_copy_s_write(ctx, &s, 1));
  /* Wrong counts are refused on every path. */
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT,
                bulk_copy_small_write(ctx, small, 299));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, bulk_copy_large_read(ctx, large, 1));
  CHECK(bulk_copy_step(ctx));
  memset(small, 0, sizeof small);
  memset(large, 0, sizeof large);
  memset(wide, 0, sizeof wide);
  CHECK(bulk_copy_small_read(ctx, small, 300));
  CHECK(bulk_copy_large_read(ctx, large, 512 * 1024));
  CHECK(bulk_copy_wide_read(ctx, wide, 600000));
  CHECK(bulk_copy_a_read(ctx, a, 64));
  CHECK(bulk_copy_b_read(ctx, b, 64));
  CHECK(bulk_copy_s_read(ctx, &s_got, 1));
  compare_f32("small", small, small_want, 300, 0, 0);
  compare_f32("large", large, large_want, 512 * 1024, 0, 0);
  compare_f32("wide", wide, wide_want, 600000, 0, 0);
  compare_f32("a", a, a_want, 64, 0, 0);
  compare_f32("b", b, b_want, 64, 0, 0);
  EXPECT_TRUE(s_got == 1.5);
  bulk_copy_destroy(ctx);
  return TEST_RESULT();
}

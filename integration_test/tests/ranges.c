#include "ranges.h"
#define LAST_ERROR ranges_last_error
#include "common.h"

int main(void) {
  ranges_ctx *ctx = NULL;
  int32_t a[64], g[10 * 12];
  long long got[120], want[120];
  int i, j;
  CHECK(ranges_create(NULL, &ctx));
  CHECK(ranges_mark_range(ctx, 7, 40));
  CHECK(ranges_mark_count(ctx));
  CHECK(ranges_mark_range(ctx, 50, 50)); /* empty */
  CHECK(ranges_mark_range(ctx, 60, 55)); /* empty */
  CHECK(ranges_a_read(ctx, a, 64));
  for (i = 0; i < 64; ++i) {
    got[i] = a[i];
    want[i] = (i >= 7 && i < 40 ? i * 10 : 0) + (i < 5 ? 1 : 0);
  }
  compare_i64("a", got, want, 64);
  CHECK(ranges_mark_grid(ctx));
  CHECK(ranges_mark_grid_n(ctx));
  CHECK(ranges_g_read(ctx, g, RANGES_G_SIZE));
  for (i = 0; i < 10; ++i)
    for (j = 0; j < 12; ++j) {
      got[i * 12 + j] = g[i * 12 + j];
      want[i * 12 + j] = (i < 2 && j < 3)                         ? -1
                         : (i >= 2 && i < 7 && j >= 3 && j < 11) ? i * 100 + j
                                                                 : 0;
    }
  compare_i64("g", got, want, 120);
  ranges_destroy(ctx);
  return TEST_RESULT();
}

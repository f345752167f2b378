#include "rescale_index.h"
#define LAST_ERROR rescale_index_last_error
#include "common.h"

/* floor(a / b) for b > 0, as C's `/` truncates. */
static long long floordiv(long long a, long long b) {
  long long q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

int main(void) {
  rescale_index_ctx *ctx = NULL;
  static int32_t out[16];
  long long got[12], want[12];
  int32_t bad = -1;
  const int a = -1, b = -5;
  int k;
  CHECK(rescale_index_create(NULL, &ctx));
  CHECK(rescale_index_run(ctx, a, b));
  CHECK(rescale_index_out_read(ctx, out, 16));
  /* The docs' values: x -> block1 (4 pixels per block1 cell along each
     axis), x -> block2 (2), x -> pixel (1), block2 -> block1 (2). */
  want[0] = floordiv(7, 4);
  want[1] = floordiv(3, 4);
  want[2] = floordiv(7, 2);
  want[3] = floordiv(3, 2);
  want[4] = 7;
  want[5] = 3;
  want[6] = floordiv(want[2], 2);
  want[7] = floordiv(want[3], 2);
  want[8] = floordiv(a, 4);
  want[9] = floordiv(b, 4);
  want[10] = floordiv(a, 2);
  want[11] = floordiv(b, 2);
  EXPECT_TRUE(want[0] == 1 && want[1] == 0 && want[2] == 3 && want[3] == 1 &&
              want[6] == 1 && want[7] == 0);
  for (k = 0; k < 12; ++k)
    got[k] = out[k];
  compare_i64("rescale_index", got, want, 12);
  CHECK(rescale_index_check_blocks(ctx, &bad));
  EXPECT_TRUE(bad == 0);
  rescale_index_destroy(ctx);
  return TEST_RESULT();
}

/* Fields of more than 2^31 elements: writes at linear offsets past 2^31 and
 * 2^32 land where the C reference says, reads see them, nothing else moves. */
#include "large_fields.h"
#define LAST_ERROR large_fields_last_error
#include "common.h"

#include <stdint.h>

int main(void) {
  large_fields_ctx *ctx = NULL;
  int64_t shape[] = LARGE_FIELDS_BIG_SHAPE;
  int64_t nshape[] = LARGE_FIELDS_NESTED_SHAPE;
  /* (i, j) with i * 50000 + j past 2^31 and near the end. */
  const int32_t pts[][2] = {{0, 0},
                            {42950, 17295}, /* 2147517295 */
                            {45000, 123},
                            {49999, 49999},
                            {1, 2}};
  const int n = (int)(sizeof pts / sizeof pts[0]);
  int32_t got = 0;
  int64_t count = 0, sum = 0, want_sum = 0;
  uint8_t u = 0;
  int k;

  EXPECT_TRUE(shape[0] == 50000 && shape[1] == 50000);
  EXPECT_TRUE(nshape[0] == 100000 && nshape[1] == 25000);
  EXPECT_TRUE((uint64_t)LARGE_FIELDS_BIG_SIZE == 2500000000ull);
  CHECK(large_fields_create(NULL, &ctx));

  for (k = 0; k < n; ++k)
    CHECK(large_fields_poke(ctx, pts[k][0], pts[k][1], 10 + k));
  for (k = 0; k < n; ++k) {
    CHECK(large_fields_peek(ctx, pts[k][0], pts[k][1], &got));
    EXPECT_TRUE(got == 10 + k);
    /* The host accessor computes the same address. */
    CHECK(large_fields_big_get(ctx, pts[k][0], pts[k][1], &u));
    EXPECT_TRUE(u == 10 + k);
  }
  /* Neighbours untouched (a 32-bit offset would alias (0, 0) for points
   * 2^32 bytes apart, or write before the buffer). */
  CHECK(large_fields_peek(ctx, 42950, 17294, &got));
  EXPECT_TRUE(got == 0);
  CHECK(large_fields_big_set(ctx, 49999, 100, 200));
  for (k = 0; k < n; ++k)
    if (pts[k][0] == 49999)
      want_sum += 10 + k;
  want_sum += 200;
  CHECK(large_fields_last_row_sum(ctx, &sum));
  EXPECT_TRUE(sum == want_sum);

  /* A nested layout whose field has 2.5e9 cells: (99999, 24999) is in the
   * second outer block. */
  CHECK(large_fields_poke_nested(ctx, 99999, 24999, 77));
  CHECK(large_fields_poke_nested(ctx, 50000, 0, 78));
  CHECK(large_fields_peek_nested(ctx, 99999, 24999, &got));
  EXPECT_TRUE(got == 77);
  CHECK(large_fields_peek_nested(ctx, 50000, 0, &got));
  EXPECT_TRUE(got == 78);
  CHECK(large_fields_peek_nested(ctx, 49999, 24999, &got));
  EXPECT_TRUE(got == 0);

  CHECK(large_fields_count_cells(ctx, &count));
  EXPECT_TRUE(count == 2500000000ll);

#if LARGE_FIELDS_CONST_CHECKED
  /* --check-bounds: the extents are the full 64-bit-safe values. */
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, large_fields_poke(ctx, 50000, 0, 1));
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, large_fields_poke(ctx, 0, 50000, 1));
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS,
                large_fields_poke_nested(ctx, 100000, 0, 1));
  CHECK(large_fields_poke(ctx, 49999, 49999, 5));
#endif
  large_fields_destroy(ctx);
  return TEST_RESULT();
}

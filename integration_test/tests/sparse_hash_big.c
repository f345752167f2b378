/* Hash entries larger than a page: see sparse_hash_big.tc. The expected
 * values are computed here from the program's definition. */
#include "sparse_hash_big.h"
#define LAST_ERROR sparse_hash_big_last_error
#include "common.h"

static int64_t floordiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int main(void) {
  sparse_hash_big_ctx *ctx = NULL;
  const int lo = -40, hi = 80;
  float s = -1;
  int32_t n = -1;
  double want = 0;
  CHECK(sparse_hash_big_create(NULL, &ctx));
  CHECK(sparse_hash_big_fill(ctx, lo, hi));
  for (int i = lo; i < hi; ++i)
    for (int j = lo; j < hi; ++j)
      if ((i + j) % 7 == 0)
        want += (double)(1.0f + (float)i * 0.001f);
  CHECK(sparse_hash_big_total(ctx, &s));
  EXPECT_TRUE(s > want * (1 - 1e-5) && s < want * (1 + 1e-5));
  /* The blocks of 33 x 33 cells the written cells fall in. */
  int seen[16][16] = {{0}}, blocks = 0;
  for (int i = lo; i < hi; ++i)
    for (int j = lo; j < hi; ++j)
      if ((i + j) % 7 == 0) {
        int bi = (int)floordiv(i, 33) + 8, bj = (int)floordiv(j, 33) + 8;
        if (!seen[bi][bj]++)
          ++blocks;
      }
  CHECK(sparse_hash_big_blocks(ctx, &n));
  EXPECT_TRUE(n == blocks);
  sparse_hash_big_destroy(ctx);
  return TEST_RESULT();
}

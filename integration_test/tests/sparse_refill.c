/* A kernel that frees every cell of a full sparse grid and activates them
 * all again, many times over (see sparse_refill.tc): values as computed
 * here, the pool never beyond the cells of one full grid. */
#include "sparse_refill.h"
#define LAST_ERROR sparse_refill_last_error
#include "common.h"

enum { N = 4096, BLOCKS = N / 8, ROUNDS = 20 };

int main(void) {
  sparse_refill_ctx *ctx = NULL;
  float s = 0, want = 0;
  int32_t len = 0;
  tc_memory_stats ms;
  CHECK(sparse_refill_create(NULL, &ctx));
  CHECK(sparse_refill_fill(ctx));
  for (int r = 0; r < ROUNDS; ++r) {
    /* Every block freed, then every cell written: x = 0 + v. */
    float v = (float)(r % 5 + 1);
    CHECK(sparse_refill_cycle(ctx, v));
    want = v * N;
  }
  CHECK(sparse_refill_total(ctx, &s));
  EXPECT_TRUE(s == want);
  CHECK(sparse_refill_memory_stats(ctx, "blk", &ms));
  EXPECT_TRUE(ms.live_cells == BLOCKS);

  for (int r = 0; r < ROUNDS; ++r) {
    CHECK(sparse_refill_relist(ctx, &len));
    if (len != N)
      break;
  }
  EXPECT_TRUE(len == N);
  CHECK(sparse_refill_memory_stats(ctx, "qd", &ms));
  EXPECT_TRUE(ms.live_cells == N / 64);
  sparse_refill_destroy(ctx);
  return TEST_RESULT();
}

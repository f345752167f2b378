/* Pools that grow between launches (see sparse_pool_growth.tc): 64 MiB of
 * device memory for the fields and two pools, so the grid's pool maps at
 * first about 28 MiB of blocks (1792 of 16 KiB). Steps of 256 blocks with a
 * wait after each reach 3000 blocks (47 MiB): more than the first mapping,
 * within what the budget leaves after the small pool. The values and the
 * live blocks are checked against C. */
#include "sparse_pool_growth.h"
#define LAST_ERROR sparse_pool_growth_last_error
#include "common.h"

enum { BS = 4096, STEP = 256 * BS, BLOCKS = 3000 };

int main(void) {
  tc_options o;
  tc_options_init(&o);
  o.device_memory_bytes = (uint64_t)64 << 20;
  sparse_pool_growth_ctx *ctx = NULL;
  CHECK(sparse_pool_growth_create(&o, &ctx));
  int32_t done = 0;
  while (done < BLOCKS * BS) {
    int32_t count = BLOCKS * BS - done < STEP ? BLOCKS * BS - done : STEP;
    CHECK(sparse_pool_growth_fill(ctx, done, count));
    /* The host waits: where a pool grows. */
    CHECK(sparse_pool_growth_sync(ctx));
    done += count;
  }
  double s = 0, want = 0;
  for (int64_t i = 0; i < (int64_t)BLOCKS * BS; ++i)
    want += (double)(i % 7);
  CHECK(sparse_pool_growth_total(ctx, &s));
  EXPECT_TRUE(s == want);
  tc_memory_stats ms;
  CHECK(sparse_pool_growth_memory_stats(ctx, "blk", &ms));
  EXPECT_TRUE(ms.live_cells == BLOCKS);
  EXPECT_TRUE(ms.committed_bytes >= (uint64_t)BLOCKS * BS * 4);
  sparse_pool_growth_destroy(ctx);
  return TEST_RESULT();
}

/* Keys that move through a root-level hash (see sparse_hash_purge.tc):
 * rounds of 10000 fresh keys, each round's keys deactivated before the
 * next. snode.hash_maintain returns the dead entries to the pool when they
 * outnumber the live ones (and the table's buckets), so the pool's entries
 * stay within a few times the live keys, while every key ever activated
 * would be 10000 per round, 300000 in all. */
#include "sparse_hash_purge.h"
#define LAST_ERROR sparse_hash_purge_last_error
#include "common.h"

enum { N = 10000, ROUNDS = 30 };

int main(void) {
  sparse_hash_purge_ctx *ctx = NULL;
  CHECK(sparse_hash_purge_create(NULL, &ctx));
  double want = 0;
  for (int t = 0; t < N; ++t)
    want += (double)(t % 7 + 1);
  uint64_t most = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    int from = (r % 2 ? -1 : 1) * (r * 1000003 + 17);
    CHECK(sparse_hash_purge_insert(ctx, from, N));
    int n = -1;
    float s = -1;
    CHECK(sparse_hash_purge_count(ctx, &n));
    EXPECT_TRUE(n == N);
    CHECK(sparse_hash_purge_total(ctx, &s));
    EXPECT_TRUE(s == (float)want);
    float v = -1;
    CHECK(sparse_hash_purge_get(ctx, from + 123, &v));
    EXPECT_TRUE(v == (float)(123 % 7 + 1));
    tc_memory_stats st;
    CHECK(sparse_hash_purge_memory_stats(ctx, "blk", &st));
    if (st.live_cells > most)
      most = st.live_cells;
    CHECK(sparse_hash_purge_remove(ctx, from, N));
    CHECK(sparse_hash_purge_count(ctx, &n));
    EXPECT_TRUE(n == 0);
    /* An old key reads 0. */
    CHECK(sparse_hash_purge_get(ctx, from + 5, &v));
    EXPECT_TRUE(v == 0.0f);
  }
  /* Without the purge: 300000 entries. With it, at most the live keys plus
   * the dead ones since the last purge, which ran when they reached twice
   * what it left before (and twice the buckets). */
  EXPECT_TRUE(most >= N && most <= 4 * N);
  sparse_hash_purge_destroy(ctx);
  return TEST_RESULT();
}

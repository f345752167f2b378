/* Hash tables below other nodes grow and purge: see sparse_hash_grow.tc.
 * Values, struct-for counts and sums against plain C; memory from
 * MODULE_memory_stats: a grown table's block counts in its node's bytes,
 * goes when the parent cell goes, and churning keys keep the entries near
 * the live ones. Built --target=host,cuda (sparse_hash_grow_cuda.c) the
 * tables are purged but do not grow (EXPECT_NO_GROWTH). */
#include "sparse_hash_grow.h"
#define LAST_ERROR sparse_hash_grow_last_error
#include "common.h"

#ifndef EXPECT_NO_GROWTH
#define EXPECT_NO_GROWTH 0
#endif

/* The sum of f32(t % mod + 1) for t < n, as the kernels add it. */
static float want_sum(int n, int mod) {
  float s = 0;
  for (int t = 0; t < n; ++t)
    s += (float)(t % mod + 1);
  return s;
}
static double want_total(int n, int mod) {
  double s = 0;
  for (int t = 0; t < n; ++t)
    s += t % mod + 1;
  return s;
}

/* Bytes of the node's grown blocks: its live bytes beyond its entries'. */
static uint64_t block_bytes(const tc_memory_stats *st, uint64_t entry) {
  return st->live_bytes - st->live_cells * entry;
}

int main(void) {
  sparse_hash_grow_ctx *ctx = NULL;
  CHECK(sparse_hash_grow_create(NULL, &ctx));
  tc_memory_stats st;
  float f = -1;
  int n = -1;

  /* The bytes of an entry, from a few keys (no table grows yet). */
  CHECK(sparse_hash_grow_insert_h(ctx, 1, 0, 10));
  CHECK(sparse_hash_grow_memory_stats(ctx, "mat", &st));
  EXPECT_TRUE(st.live_cells == 10);
  uint64_t entry = st.live_bytes / 10;
  EXPECT_TRUE(st.live_bytes == 10 * entry);
  CHECK(sparse_hash_grow_remove_h(ctx, 1, 0, 10));
  /* (Their entries stay in material 1's chains until a purge.) */
  enum { DEAD = 10 };

  /* 1. Material 0's table: 60000 keys in four kernels, far past its 64
   * buckets; every key found, absent ones read 0. */
  enum { N0 = 60000 };
  for (int k = 0; k < 4; ++k)
    CHECK(sparse_hash_grow_insert_h(ctx, 0, -90000 + 3 * k * (N0 / 4), N0 / 4));
  CHECK(sparse_hash_grow_count_h(ctx, 0, &n));
  EXPECT_TRUE(n == N0);
  double tot = -1;
  {
    float t = -1;
    CHECK(sparse_hash_grow_total_h(ctx, 0, &t));
    tot = t;
  }
  /* (Four kernels of N0/4 keys: t % 7 restarts at each.) */
  double want = 4 * want_total(N0 / 4, 7);
  EXPECT_TRUE(fabs(tot - want) <= 1e-4 * want);
  CHECK(sparse_hash_grow_probe_h(ctx, 0, -90000, N0 / 4, &f));
  EXPECT_TRUE(f == want_sum(N0 / 4, 7));
  CHECK(sparse_hash_grow_probe_h(ctx, 0, -90000 + 1, N0 / 4, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_hash_grow_probe_h(ctx, 1, -90000, N0 / 4, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_hash_grow_memory_stats(ctx, "mat", &st));
  EXPECT_TRUE(st.live_cells == N0 + DEAD);
  uint64_t grown = block_bytes(&st, entry);
  if (EXPECT_NO_GROWTH) {
    EXPECT_TRUE(grown == 0);
  } else {
    /* 65536 heads (the power of two at or above the keys) and a header;
     * the blocks the table outgrew are gone. */
    if (!(grown >= 65536 * 8 && grown <= 65536 * 8 + 4096)) {
      fprintf(stderr, "material 0's block: %lu bytes\n", (unsigned long)grown);
      ++tic_test_failures;
    }
  }

  /* 2. Material 1: 30 rounds of 4000 fresh keys, each round's removed
   * before the next. Purges return the dead entries: the pool stays near
   * the live keys instead of 120000. */
  enum { N1 = 4000, ROUNDS = 30 };
  uint64_t most = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    int from = (r % 2 ? -1 : 1) * (r * 100003 + 11);
    CHECK(sparse_hash_grow_insert_h(ctx, 1, from, N1));
    CHECK(sparse_hash_grow_count_h(ctx, 1, &n));
    EXPECT_TRUE(n == N1);
    CHECK(sparse_hash_grow_probe_h(ctx, 1, from, N1, &f));
    EXPECT_TRUE(f == want_sum(N1, 7));
    CHECK(sparse_hash_grow_memory_stats(ctx, "mat", &st));
    if (st.live_cells - N0 > most)
      most = st.live_cells - N0;
    CHECK(sparse_hash_grow_remove_h(ctx, 1, from, N1));
    CHECK(sparse_hash_grow_count_h(ctx, 1, &n));
    EXPECT_TRUE(n == 0);
    CHECK(sparse_hash_grow_probe_h(ctx, 1, from, N1, &f));
    EXPECT_TRUE(f == 0.0f);
  }
  if (!(most >= N1 && most <= 4 * N1)) {
    fprintf(stderr, "material 1 kept up to %lu entries\n", (unsigned long)most);
    ++tic_test_failures;
  }
  /* Material 0 is untouched. */
  CHECK(sparse_hash_grow_probe_h(ctx, 0, -90000 + 3 * (N0 / 4), N0 / 4, &f));
  EXPECT_TRUE(f == want_sum(N0 / 4, 7));

  /* 3. Below a pointer: parent 0's table grows; deactivating the parent
   * frees its entries and its block; activated again it starts empty. */
  enum { NQ = 20000 };
  CHECK(sparse_hash_grow_insert_q(ctx, 0, 1000, NQ));
  CHECK(sparse_hash_grow_insert_q(ctx, 1, 1000, 50));
  CHECK(sparse_hash_grow_count_q(ctx, &n));
  EXPECT_TRUE(n == NQ + 50);
  CHECK(sparse_hash_grow_probe_q(ctx, 0, 1000, NQ, &f));
  EXPECT_TRUE(f == want_sum(NQ, 5));
  CHECK(sparse_hash_grow_memory_stats(ctx, "sph", &st));
  EXPECT_TRUE(st.live_cells == NQ + 50);
  uint64_t qBlocks = block_bytes(&st, entry);
  EXPECT_TRUE(EXPECT_NO_GROWTH ? qBlocks == 0 : qBlocks >= 32768 * 8);
  CHECK(sparse_hash_grow_kill_sp(ctx, 0));
  CHECK(sparse_hash_grow_count_q(ctx, &n));
  EXPECT_TRUE(n == 50);
  CHECK(sparse_hash_grow_probe_q(ctx, 0, 1000, NQ, &f));
  EXPECT_TRUE(f == 0.0f);
  /* (A loop recycles what the deactivation freed.) */
  CHECK(sparse_hash_grow_insert_q(ctx, 0, 7, 30));
  CHECK(sparse_hash_grow_count_q(ctx, &n));
  EXPECT_TRUE(n == 80);
  CHECK(sparse_hash_grow_probe_q(ctx, 0, 7, 30, &f));
  EXPECT_TRUE(f == want_sum(30, 5));
  CHECK(sparse_hash_grow_probe_q(ctx, 0, 1000, NQ, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_hash_grow_probe_q(ctx, 1, 1000, 50, &f));
  EXPECT_TRUE(f == want_sum(50, 5));
  CHECK(sparse_hash_grow_memory_stats(ctx, "sph", &st));
  EXPECT_TRUE(st.live_cells == 80);
  /* Parent 0's block went with it. */
  EXPECT_TRUE(block_bytes(&st, entry) == 0);

  /* 4. Below a hash: outer cell 5's table grows, goes with the cell. */
  enum { NW = 20000 };
  CHECK(sparse_hash_grow_insert_w(ctx, 5, -70000, NW));
  CHECK(sparse_hash_grow_insert_w(ctx, -3, 0, 100));
  CHECK(sparse_hash_grow_probe_w(ctx, 5, -70000, NW, &f));
  EXPECT_TRUE(f == want_sum(NW, 3));
  CHECK(sparse_hash_grow_probe_w(ctx, -3, 0, 100, &f));
  EXPECT_TRUE(f == want_sum(100, 3));
  CHECK(sparse_hash_grow_memory_stats(ctx, "ih", &st));
  EXPECT_TRUE(st.live_cells == NW + 100);
  uint64_t ihBlocks = block_bytes(&st, entry);
  EXPECT_TRUE(EXPECT_NO_GROWTH ? ihBlocks == 0 : ihBlocks >= 32768 * 8);
  CHECK(sparse_hash_grow_kill_oh(ctx, 5));
  CHECK(sparse_hash_grow_probe_w(ctx, 5, -70000, NW, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_hash_grow_insert_w(ctx, 5, 3, 10));
  CHECK(sparse_hash_grow_probe_w(ctx, 5, 3, 10, &f));
  EXPECT_TRUE(f == want_sum(10, 3));
  CHECK(sparse_hash_grow_probe_w(ctx, -3, 0, 100, &f));
  EXPECT_TRUE(f == want_sum(100, 3));
  CHECK(sparse_hash_grow_memory_stats(ctx, "ih", &st));
  EXPECT_TRUE(st.live_cells == 110);
  EXPECT_TRUE(block_bytes(&st, entry) == 0);

  sparse_hash_grow_destroy(ctx);
  return TEST_RESULT();
}

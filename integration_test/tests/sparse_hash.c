/* Hash SNodes: see sparse_hash.tc. Every expected value is computed here
 * from the program's definition. */
#include "sparse_hash.h"
#define LAST_ERROR sparse_hash_last_error
#include "common.h"

/* floor(a / b) for b > 0. */
static int64_t floordiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int main(void) {
  sparse_hash_ctx *ctx = NULL;
  int32_t n = -1, v = -1;
  float f = -1;
  tc_memory_stats ms;
  int k, bad = 0;
  CHECK(sparse_hash_create(NULL, &ctx));

  /* Negative and far-apart coordinates. */
  CHECK(sparse_hash_put(ctx, -1, -1, 2.5f));
  CHECK(sparse_hash_put(ctx, 1000000000, -2000000000, 1.0f));
  CHECK(sparse_hash_put(ctx, 3, 3, 4.0f));
  CHECK(sparse_hash_put(ctx, -2147483647 - 1, 2147483647, 8.0f));
  CHECK(sparse_hash_get(ctx, -1, -1, &f));
  EXPECT_TRUE(f == 2.5f);
  CHECK(sparse_hash_get(ctx, 1000000000, -2000000000, &f));
  EXPECT_TRUE(f == 1.0f);
  CHECK(sparse_hash_get(ctx, -2147483647 - 1, 2147483647, &f));
  EXPECT_TRUE(f == 8.0f);
  CHECK(sparse_hash_x_get(ctx, -1, -1, &f)); /* the C accessor too */
  EXPECT_TRUE(f == 2.5f);
  CHECK(sparse_hash_get(ctx, -4, -4, &f)); /* same block as (-1, -1) */
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_hash_count_blk(ctx, &n));
  EXPECT_TRUE(n == 4);
  CHECK(sparse_hash_count_x(ctx, &n));
  EXPECT_TRUE(n == 4 * 16);
  CHECK(sparse_hash_sum_x(ctx, &f));
  EXPECT_TRUE(f == 15.5f);
  CHECK(sparse_hash_min_i(ctx, &n)); /* block of -2^31: [-2^31, -2^31 + 4) */
  EXPECT_TRUE(n == -2147483647 - 1);
  CHECK(sparse_hash_max_i(ctx, &n)); /* block of 10^9: [10^9, 10^9 + 4) */
  EXPECT_TRUE(n == 1000000003);
  CHECK(sparse_hash_min_j(ctx, &n));
  EXPECT_TRUE(n == -2000000000);
  CHECK(sparse_hash_active_blk(ctx, -1, -1, &v)); /* blk's own indices */
  EXPECT_TRUE(v == 1);
  CHECK(sparse_hash_active_blk(ctx, 0, 0, &v)); /* (3, 3) */
  EXPECT_TRUE(v == 1);
  CHECK(sparse_hash_active_blk(ctx, 1, 0, &v));
  EXPECT_TRUE(v == 0);

  /* Reads of absent cells insert nothing. */
  CHECK(sparse_hash_memory_stats(ctx, "blk", &ms));
  {
    uint64_t before = ms.live_cells;
    CHECK(sparse_hash_read_far(ctx, 10000, &f));
    EXPECT_TRUE(f == 0.0f);
    CHECK(sparse_hash_memory_stats(ctx, "blk", &ms));
    EXPECT_TRUE(ms.live_cells == before);
  }

  /* Deactivate, reactivate: the cell reads 0. */
  CHECK(sparse_hash_kill_blk(ctx, -1, -1));
  CHECK(sparse_hash_active_blk(ctx, -1, -1, &v));
  EXPECT_TRUE(v == 0);
  CHECK(sparse_hash_get(ctx, -1, -1, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_hash_count_blk(ctx, &n));
  EXPECT_TRUE(n == 3);
  CHECK(sparse_hash_wake_blk(ctx, -1, -1));
  CHECK(sparse_hash_get(ctx, -1, -1, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_hash_count_blk(ctx, &n));
  EXPECT_TRUE(n == 4);

  /* 50000 distinct far-apart keys from every thread, in a table sized for
     16: all of them land. */
  {
    const int32_t m = 50000;
    double want = 15.5 - 2.5;
    CHECK(sparse_hash_spread(ctx, m));
    want += m;
    CHECK(sparse_hash_sum_x(ctx, &f));
    EXPECT_TRUE(fabs(f - want) < 1e-3 * want);
    CHECK(sparse_hash_count_blk(ctx, &n));
    /* (40k - 2e6) // 4 differs for every k: one block per k. */
    EXPECT_TRUE(n == 4 + m);
    for (k = 0; k < m; k += 997) {
      CHECK(sparse_hash_get(ctx, k * 40 - 2000000, 1000000 - k * 12, &f));
      bad += f != 1.0f;
    }
    EXPECT_TRUE(bad == 0);
  }

  /* Contention: distinct blocks and one cell, from every thread. */
  {
    const int32_t m = 100000;
    static int32_t want[4096];
    int blocks = 0;
    static char seen[512];
    memset(want, 0, sizeof want);
    for (k = 0; k < m; ++k) {
      want[(k * 13) % 4096] += 1;
      want[-3 + 2048] += 1;
    }
    CHECK(sparse_hash_scatter(ctx, m));
    for (k = 0; k < 4096; ++k) {
      CHECK(sparse_hash_get_c(ctx, k - 2048, &v));
      bad += v != want[k];
      if (want[k] && !seen[floordiv(k - 2048, 8) + 256]) {
        seen[floordiv(k - 2048, 8) + 256] = 1;
        ++blocks;
      }
    }
    EXPECT_TRUE(bad == 0);
    CHECK(sparse_hash_count_cb(ctx, &n));
    EXPECT_TRUE(n == blocks);
    CHECK(sparse_hash_memory_stats(ctx, "cb", &ms));
    EXPECT_TRUE(ms.live_cells == (uint64_t)blocks); /* one entry per key */
  }

  /* hash -> pointer -> bitmasked -> dense */
  {
    int ne = 0, nb3 = 0, np2 = 0;
    double st = 0;
    static char b3seen[128], p2seen[32];
    CHECK(sparse_hash_fill_t(ctx));
    for (k = 0; k < 200; k += 7) {
      int64_t i = k - 100;
      st += k;
      if (!b3seen[floordiv(i, 2) + 64]) {
        b3seen[floordiv(i, 2) + 64] = 1;
        ++nb3;
        ne += 2;
      }
      if (!p2seen[floordiv(i, 8) + 16]) {
        p2seen[floordiv(i, 8) + 16] = 1;
        ++np2;
      }
    }
    CHECK(sparse_hash_count_t(ctx, &n));
    EXPECT_TRUE(n == ne);
    CHECK(sparse_hash_count_b3(ctx, &n));
    EXPECT_TRUE(n == nb3);
    CHECK(sparse_hash_count_p2(ctx, &n));
    EXPECT_TRUE(n == np2);
    CHECK(sparse_hash_sum_t(ctx, &f));
    EXPECT_TRUE(fabs(f - st) < 1e-3);
    /* Deactivating hash cell -1 (t[-32 .. -1]) frees its pointer cells. */
    CHECK(sparse_hash_memory_stats(ctx, "p2", &ms));
    EXPECT_TRUE(ms.live_cells == (uint64_t)np2);
    CHECK(sparse_hash_kill_h1(ctx, -1));
    for (k = 0; k < 200; k += 7) {
      int64_t i = k - 100;
      if (i >= -32 && i < 0)
        st -= k;
    }
    CHECK(sparse_hash_sum_t(ctx, &f));
    EXPECT_TRUE(fabs(f - st) < 1e-3);
    CHECK(sparse_hash_memory_stats(ctx, "p2", &ms));
    {
      int left = 0;
      for (k = 0; k < 32; ++k)
        left += p2seen[k] && (k - 16 < -4 || k - 16 >= 0);
      EXPECT_TRUE(ms.live_cells == (uint64_t)left);
    }
  }

  /* Dynamic lists in the cells of a hash. */
  {
    const int32_t m = 1000;
    int32_t want_len[101];
    int64_t want_sum = 0;
    int total = 0;
    memset(want_len, 0, sizeof want_len);
    CHECK(sparse_hash_bin(ctx, m));
    for (k = 0; k < m; ++k)
      want_len[(k * 37) % 101] += 1;
    for (k = 0; k < 101; ++k) {
      int32_t w = want_len[k] < 32 ? want_len[k] : 32;
      CHECK(sparse_hash_len_p(ctx, k - 50, &n));
      bad += n != w;
      total += w;
    }
    EXPECT_TRUE(bad == 0);
    EXPECT_TRUE(total == m); /* 1000 / 101 < 32: all fit */
    for (k = 0; k < m; ++k)
      want_sum += k;
    CHECK(sparse_hash_count_p(ctx, &n));
    EXPECT_TRUE(n == total);
    CHECK(sparse_hash_sum_p(ctx, &n));
    EXPECT_TRUE(n == want_sum);
  }

  /* Three axes: a 128-bit key. */
  CHECK(sparse_hash_put3(ctx, -5, 7, -1000000, 1.0f));
  CHECK(sparse_hash_put3(ctx, 5, -7, 1000000, 2.0f));
  CHECK(sparse_hash_get3(ctx, -5, 7, -1000000, &f));
  EXPECT_TRUE(f == 1.0f);
  CHECK(sparse_hash_get3(ctx, -5, 7, 1000000, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_hash_count3(ctx, &n));
  EXPECT_TRUE(n == 2 * 8);
  CHECK(sparse_hash_sumk3(ctx, &n));
  EXPECT_TRUE(n == 0);

  /* A stencil over 3 x 3 hash blocks around the origin: neighbours in the
     loop's own block (the in-block fast path) and in other blocks, active
     or not, against a reference computed here. */
  {
    static float qv[41][41]; /* q at (i, j) for i, j in [-20, 20] */
    static char blk[16][16]; /* active 3x3 blocks, block index + 8 */
    int ii, jj;
    memset(qv, 0, sizeof qv);
    memset(blk, 0, sizeof blk);
    CHECK(sparse_hash_fill_q(ctx));
    CHECK(sparse_hash_stencil_q(ctx));
    for (k = 0; k < 7; ++k) {
      int i = k * 2 - 7, j = 4 - k * 3;
      qv[i + 20][j + 20] = (float)(k + 1);
      blk[floordiv(i, 3) + 8][floordiv(j, 3) + 8] = 1;
    }
    for (ii = -18; ii <= 18; ++ii)
      for (jj = -18; jj <= 18; ++jj) {
        float want = 0.0f;
        if (blk[floordiv(ii, 3) + 8][floordiv(jj, 3) + 8])
          want = qv[ii - 1 + 20][jj + 20] + qv[ii + 1 + 20][jj + 20] +
                 qv[ii + 20][jj - 1 + 20] + qv[ii + 20][jj + 1 + 20] +
                 0.5f * qv[ii + 20][jj + 20];
        CHECK(sparse_hash_qlap_get(ctx, ii, jj, &f));
        bad += f != want;
      }
    EXPECT_TRUE(bad == 0);
  }

  /* deactivate_all: every hash cell inactive, reading 0. */
  CHECK(sparse_hash_deactivate_all(ctx));
  CHECK(sparse_hash_count_x(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_hash_count_t(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_hash_count_p(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_hash_get_c(ctx, -3, &v));
  EXPECT_TRUE(v == 0);
  CHECK(sparse_hash_memory_stats(ctx, "p2", &ms));
  EXPECT_TRUE(ms.live_cells == 0);

  /* A table that grows: every key still found after each doubling. */
  {
    const int n = 60000;
    int r, q, total = 0;
    for (r = 0; r < 4; ++r) {
      CHECK(sparse_hash_grow_fill(ctx, n, r * 1000000 - 2000000));
      total += n;
      for (q = 0; q <= r; ++q) {
        CHECK(sparse_hash_grow_check(ctx, n, q * 1000000 - 2000000, &v));
        EXPECT_TRUE(v == 0);
      }
      CHECK(sparse_hash_grow_count(ctx, &v));
      EXPECT_TRUE(v == total);
      CHECK(sparse_hash_grow_blocks(ctx, &v));
      EXPECT_TRUE(v == total);
    }
    /* Deactivation after growth: a third of round 1's blocks. */
    CHECK(sparse_hash_grow_kill(ctx, n, 1000000 - 2000000));
    CHECK(sparse_hash_grow_check(ctx, n, 1000000 - 2000000, &v));
    EXPECT_TRUE(v == n / 3);
    CHECK(sparse_hash_grow_blocks(ctx, &v));
    EXPECT_TRUE(v == total - n / 3);
  }

  sparse_hash_destroy(ctx);
  return TEST_RESULT();
}

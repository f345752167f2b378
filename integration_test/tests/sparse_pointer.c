#include "sparse_pointer.h"
#define LAST_ERROR sparse_pointer_last_error
#include "common.h"

int main(void) {
  sparse_pointer_ctx *ctx = NULL;
  int32_t n = -1, act = -1, cbuf[1024], want_c[1024];
  float s = -1, f = -1, ubuf[32 * 32];
  double ref = 0;
  tc_memory_stats ms, total;
  int i, j, k, bad = 0, blocks[8][8];
  const int scatter_n = 100000;
  CHECK(sparse_pointer_create(NULL, &ctx));

  /* Nothing is allocated before the first write. */
  CHECK(sparse_pointer_memory_stats(ctx, "blk", &ms));
  EXPECT_TRUE(ms.live_cells == 0 && (on_gpu() || ms.committed_bytes == 0));
  CHECK(sparse_pointer_count_u(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_pointer_sum_all_u(ctx, &s)); /* reads: 0, allocate nothing */
  EXPECT_TRUE(s == 0.0f);
  CHECK(sparse_pointer_memory_stats(ctx, "blk", &ms));
  EXPECT_TRUE(ms.live_cells == 0);

  /* Ten writes; the blocks they fall in (4 x 4 elements each). */
  CHECK(sparse_pointer_fill_u(ctx));
  memset(blocks, 0, sizeof blocks);
  for (k = 0; k < 10; ++k) {
    blocks[k * 3 / 4][k * 2 / 4] = 1;
    ref += k + 1.0;
  }
  n = 0;
  for (i = 0; i < 8; ++i)
    for (j = 0; j < 8; ++j)
      n += blocks[i][j];
  {
    int32_t got_blocks = -1, got_cells = -1;
    CHECK(sparse_pointer_count_blk(ctx, &got_blocks));
    CHECK(sparse_pointer_count_u(ctx, &got_cells));
    EXPECT_TRUE(got_blocks == n);
    EXPECT_TRUE(got_cells == n * 16);
    CHECK(sparse_pointer_memory_stats(ctx, "blk", &ms));
    EXPECT_TRUE(ms.live_cells == (uint64_t)n);
    EXPECT_TRUE(ms.live_bytes >= (uint64_t)n * 16 * sizeof(float));
  }
  for (i = 0; i < 8; ++i)
    for (j = 0; j < 8; ++j) {
      CHECK(sparse_pointer_active_blk(ctx, i, j, &act));
      bad += act != blocks[i][j];
    }
  EXPECT_TRUE(bad == 0);
  CHECK(sparse_pointer_sum_u(ctx, &s));
  EXPECT_TRUE(fabs(s - ref) < 1e-4);
  CHECK(sparse_pointer_u_read(ctx, ubuf, 32 * 32));
  for (k = 0; k < 10; ++k)
    bad += ubuf[(k * 3) * 32 + k * 2] != (float)(k + 1);
  EXPECT_TRUE(bad == 0);
  {
    /* The stencil against one computed here from the bulk read. */
    static float lap[32 * 32];
    int active[32][32];
    CHECK(sparse_pointer_stencil_u(ctx));
    CHECK(sparse_pointer_lap_read(ctx, lap, 32 * 32));
    for (i = 0; i < 32; ++i)
      for (j = 0; j < 32; ++j)
        active[i][j] = blocks[i / 4][j / 4];
    for (i = 1; i < 31; ++i)
      for (j = 1; j < 31; ++j) {
        float want = 0.0f;
        if (active[i][j])
          want = ubuf[(i - 1) * 32 + j] + ubuf[(i + 1) * 32 + j] +
                 ubuf[i * 32 + j - 1] + ubuf[i * 32 + j + 1] -
                 4.0f * ubuf[i * 32 + j];
        bad += lap[i * 32 + j] != want;
      }
    EXPECT_TRUE(bad == 0);
  }
  CHECK(sparse_pointer_u_get(ctx, 1, 1, &f)); /* inactive block */
  EXPECT_TRUE(f == 0.0f);

  /* Deactivating a block frees it; reactivated, it reads 0. */
  CHECK(sparse_pointer_kill_blk(ctx, 0, 0));
  CHECK(sparse_pointer_active_blk(ctx, 0, 0, &act));
  EXPECT_TRUE(act == 0);
  for (k = 0; k < 10; ++k) /* the values block (0, 0) held */
    if (k * 3 / 4 == 0 && k * 2 / 4 == 0)
      ref -= k + 1.0;
  CHECK(sparse_pointer_sum_u(ctx, &s));
  EXPECT_TRUE(fabs(s - ref) < 1e-4);
  CHECK(sparse_pointer_wake_blk(ctx, 0, 0));
  CHECK(sparse_pointer_u_get(ctx, 0, 0, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_pointer_count_blk(ctx, &n));
  EXPECT_TRUE(n >= 1);

  /* Every thread activates blocks at once: distinct ones and one cell. */
  CHECK(sparse_pointer_scatter(ctx, scatter_n));
  memset(want_c, 0, sizeof want_c);
  for (k = 0; k < scatter_n; ++k) {
    want_c[(k * 13) % 1024] += 1;
    want_c[5] += 1;
  }
  CHECK(sparse_pointer_c_read(ctx, cbuf, 1024));
  for (i = 0; i < 1024; ++i)
    bad += cbuf[i] != want_c[i];
  EXPECT_TRUE(bad == 0);
  CHECK(sparse_pointer_count_cb(ctx, &n));
  EXPECT_TRUE(n == 64);
  CHECK(sparse_pointer_memory_stats(ctx, "cb", &ms));
  EXPECT_TRUE(ms.live_cells == 64); /* no block lost to a lost race */

  /* pointer -> bitmasked -> dense */
  CHECK(sparse_pointer_fill_h(ctx));
  {
    int pm[8] = {0}, bm[32] = {0}, npm = 0, nbm = 0;
    double sh = 0;
    for (k = 0; k < 64; k += 9) {
      pm[k / 8] = 1;
      bm[k / 2] = 1;
      sh += k;
    }
    for (i = 0; i < 8; ++i)
      npm += pm[i];
    for (i = 0; i < 32; ++i)
      nbm += bm[i];
    CHECK(sparse_pointer_count_pm(ctx, &n));
    EXPECT_TRUE(n == npm);
    CHECK(sparse_pointer_count_bm(ctx, &n));
    EXPECT_TRUE(n == nbm);
    CHECK(sparse_pointer_count_h(ctx, &n));
    EXPECT_TRUE(n == 2 * nbm);
    CHECK(sparse_pointer_sum_h(ctx, &s));
    EXPECT_TRUE(fabs(s - sh) < 1e-4);
  }

  /* 1000 activate / deactivate cycles: the freed block is reused, so the
     live cells and the committed memory stay bounded. */
  for (k = 0; k < 1000; ++k) {
    CHECK(sparse_pointer_cycle(ctx, k % 4, (float)k, &s));
    if (s != 8.0f * (float)k + 28.0f) /* 8 v + (0 + 1 + ... + 7) */
      ++bad;
    CHECK(sparse_pointer_kill_ab(ctx, k % 4));
  }
  EXPECT_TRUE(bad == 0);
  CHECK(sparse_pointer_count_ab(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_pointer_memory_stats(ctx, "ab", &ms));
  EXPECT_TRUE(ms.live_cells == 0);
  EXPECT_TRUE(on_gpu() || ms.committed_bytes <= (1u << 20)); /* one step */

  /* Nested pointer cells go back to their pools with their parent. */
  CHECK(sparse_pointer_fill_z(ctx));
  CHECK(sparse_pointer_memory_stats(ctx, "p2", &ms));
  EXPECT_TRUE(ms.live_cells == 16);
  CHECK(sparse_pointer_memory_stats(ctx, "p3", &ms));
  EXPECT_TRUE(ms.live_cells == 16);
  CHECK(sparse_pointer_kill_p1(ctx, 1));
  CHECK(sparse_pointer_memory_stats(ctx, "p1", &ms));
  EXPECT_TRUE(ms.live_cells == 3);
  CHECK(sparse_pointer_memory_stats(ctx, "p2", &ms));
  EXPECT_TRUE(ms.live_cells == 12);
  CHECK(sparse_pointer_sum_z(ctx, &s));
  EXPECT_TRUE(s == 48.0f);
  CHECK(sparse_pointer_kill_b1(ctx, 2));
  CHECK(sparse_pointer_memory_stats(ctx, "p3", &ms));
  EXPECT_TRUE(ms.live_cells == 12);
  CHECK(sparse_pointer_sum_zz(ctx, &s));
  EXPECT_TRUE(s == 48.0f);
  for (k = 0; k < 200; ++k) { /* no growth over refill / kill cycles */
    CHECK(sparse_pointer_fill_z(ctx));
    CHECK(sparse_pointer_kill_p1(ctx, k % 4));
    CHECK(sparse_pointer_kill_b1(ctx, k % 4));
  }
  CHECK(sparse_pointer_memory_stats(ctx, "p2", &ms));
  EXPECT_TRUE(ms.live_cells == 12);
  EXPECT_TRUE(on_gpu() || ms.committed_bytes <= (1u << 20));

  /* One SNode's cells only (MODULE_<snode>_deactivate_all, for the
     let-named sparse SNodes). */
  CHECK(sparse_pointer_count_cb(ctx, &n));
  EXPECT_TRUE(n == 64);

  /* A node of 512 x 512 cells: two rounds of writes (the second makes the
   * cached list stale), then an in-place scale over the active cells. */
  {
    static float big[1024][1024];
    static unsigned char bigb[512][512];
    int round, want_blocks = 0;
    double want_sum = 0;
    const int offs[2] = {0, 11}, nw[2] = {300, 200};
    for (round = 0; round < 2; ++round) {
      CHECK(sparse_pointer_fill_big(ctx, nw[round], offs[round]));
      for (k = 0; k < nw[round]; ++k) {
        int bi = (k * 37 + offs[round]) % 1024;
        int bj = (k * 101 + 3 * offs[round]) % 1024;
        big[bi][bj] = (float)(k + offs[round]) + 1.0f;
        bigb[bi / 2][bj / 2] = 1;
      }
      big[1023][1023] = 7.0f;
      bigb[511][511] = 1;
      want_blocks = 0;
      want_sum = 0;
      for (i = 0; i < 512; ++i)
        for (j = 0; j < 512; ++j)
          want_blocks += bigb[i][j];
      for (i = 0; i < 1024; ++i)
        for (j = 0; j < 1024; ++j)
          want_sum += big[i][j];
      CHECK(sparse_pointer_count_bigb(ctx, &n));
      EXPECT_TRUE(n == want_blocks);
      CHECK(sparse_pointer_sum_big(ctx, &s));
      EXPECT_TRUE(s == (float)want_sum); /* integers below 2^24: exact */
    }
    CHECK(sparse_pointer_scale_big(ctx, 2.0f));
    CHECK(sparse_pointer_sum_big(ctx, &s));
    EXPECT_TRUE(s == (float)(2 * want_sum));
  }
  CHECK(sparse_pointer_blk_deactivate_all(ctx));
  CHECK(sparse_pointer_count_blk(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_pointer_count_cb(ctx, &n));
  EXPECT_TRUE(n == 64);

  /* deactivate_all frees every block. */
  CHECK(sparse_pointer_deactivate_all(ctx));
  CHECK(sparse_pointer_count_blk(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_pointer_count_cb(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_pointer_count_h(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_pointer_memory_stats(ctx, NULL, &total));
  CHECK(sparse_pointer_memory_stats(ctx, "blk", &ms));
  EXPECT_TRUE(ms.live_cells == 0);
  CHECK(sparse_pointer_memory_stats(ctx, "p2", &ms)); /* nested ones too */
  EXPECT_TRUE(ms.live_cells == 0);
  CHECK(sparse_pointer_memory_stats(ctx, "p3", &ms));
  EXPECT_TRUE(ms.live_cells == 0);
  EXPECT_TRUE(total.reserved_bytes >= total.committed_bytes);
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT,
                sparse_pointer_memory_stats(ctx, "nope", &ms));

  sparse_pointer_destroy(ctx);
  return TEST_RESULT();
}

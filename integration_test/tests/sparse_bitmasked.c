#include "sparse_bitmasked.h"
#define LAST_ERROR sparse_bitmasked_last_error
#include "common.h"

#define N 64
#define B 8

int main(void) {
  sparse_bitmasked_ctx *ctx = NULL;
  int32_t n = -1, act = -1, vbuf[N], hbuf[16];
  float s = -1, f = -1, pbuf[64], ref_a[N], ones[N];
  double ref_sum = 0;
  int i, j, bad = 0;
  CHECK(sparse_bitmasked_create(NULL, &ctx));

  /* Nothing is active in a new context. */
  CHECK(sparse_bitmasked_count_a(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_bitmasked_sum_all_a(ctx, &s));
  EXPECT_TRUE(s == 0.0f);

  CHECK(sparse_bitmasked_fill(ctx));
  for (i = 0; i < N; ++i) {
    ref_a[i] = i % 3 == 0 ? (float)i + 0.5f : 0.0f;
    ref_sum += ref_a[i];
  }
  CHECK(sparse_bitmasked_count_a(ctx, &n));
  EXPECT_TRUE(n == (N + 2) / 3);
  CHECK(sparse_bitmasked_sum_a(ctx, &s));
  EXPECT_TRUE(fabs(s - ref_sum) < 1e-3);
  /* Reading every cell sees 0 in the inactive ones and activates none. */
  CHECK(sparse_bitmasked_sum_all_a(ctx, &s));
  EXPECT_TRUE(fabs(s - ref_sum) < 1e-3);
  CHECK(sparse_bitmasked_count_a(ctx, &n));
  EXPECT_TRUE(n == (N + 2) / 3);
  for (i = 0; i < N; ++i) {
    CHECK(sparse_bitmasked_active_a(ctx, i, &act));
    bad += act != (i % 3 == 0);
  }
  EXPECT_TRUE(bad == 0);

  /* One write activates a whole dense block under a bitmasked cell. */
  CHECK(sparse_bitmasked_count_v(ctx, &n));
  EXPECT_TRUE(n == B);
  CHECK(sparse_bitmasked_count_blocks(ctx, &n));
  EXPECT_TRUE(n == 1);
  for (i = 0; i < N / B; ++i) {
    CHECK(sparse_bitmasked_active_blk(ctx, i, &act));
    EXPECT_TRUE(act == (i == 13 / B));
  }
  CHECK(sparse_bitmasked_v_read(ctx, vbuf, N));
  for (i = 0; i < N; ++i)
    bad += vbuf[i] != (i == 13 ? 7 : 0);
  EXPECT_TRUE(bad == 0);

  /* 2-D bitmasked blocks under a dense grid, two fields per cell. */
  CHECK(sparse_bitmasked_count_pq(ctx, &n));
  EXPECT_TRUE(n == 36); /* 1 + 2 + ... + 8 */
  for (i = 0; i < 8; ++i)
    for (j = 0; j < 8; ++j) {
      CHECK(sparse_bitmasked_active_g(ctx, i, j, &act));
      bad += act != (i == j);
    }
  EXPECT_TRUE(bad == 0);
  CHECK(sparse_bitmasked_p_read(ctx, pbuf, 64));
  for (i = 0; i < 64; ++i)
    bad += pbuf[i] != (i % 9 == 0 ? (float)(i / 9) * 2.0f : 0.0f);
  EXPECT_TRUE(bad == 0);
  CHECK(
      sparse_bitmasked_count_pq(ctx, &n)); /* the bulk read activated nothing */
  EXPECT_TRUE(n == 36);

  /* Deactivation: the cell reads 0, and reads 0 again once reactivated. */
  CHECK(sparse_bitmasked_kill_a(ctx, 3));
  CHECK(sparse_bitmasked_count_a(ctx, &n));
  EXPECT_TRUE(n == (N + 2) / 3 - 1);
  CHECK(sparse_bitmasked_sum_a(ctx, &s));
  EXPECT_TRUE(fabs(s - (ref_sum - 3.5)) < 1e-3);
  CHECK(sparse_bitmasked_a_get(ctx, 3, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_bitmasked_wake_a(ctx, 3));
  CHECK(sparse_bitmasked_active_a(ctx, 3, &act));
  EXPECT_TRUE(act == 1);
  CHECK(sparse_bitmasked_a_get(ctx, 3, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(sparse_bitmasked_count_a(ctx, &n));
  EXPECT_TRUE(n == (N + 2) / 3);
  CHECK(sparse_bitmasked_kill_blk(ctx, 1));
  CHECK(sparse_bitmasked_count_v(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_bitmasked_v_get(ctx, 13, &act));
  EXPECT_TRUE(act == 0);

  /* Every thread activates the same few cells at once (nested bitmasked). */
  CHECK(sparse_bitmasked_scatter(ctx, 160000));
  CHECK(sparse_bitmasked_hits_read(ctx, hbuf, 16));
  for (i = 0; i < 16; ++i)
    bad += hbuf[i] != 10000; /* k * 7 mod 16 visits every cell equally */
  EXPECT_TRUE(bad == 0);
  CHECK(sparse_bitmasked_count_hits(ctx, &n));
  EXPECT_TRUE(n == 16);
  CHECK(sparse_bitmasked_count_inner(ctx, &n));
  EXPECT_TRUE(n == 16);
  CHECK(sparse_bitmasked_count_outer(ctx, &n));
  EXPECT_TRUE(n == 4);
  /* Deactivating an outer cell deactivates its subtree. */
  CHECK(sparse_bitmasked_kill_outer(ctx, 1));
  CHECK(sparse_bitmasked_count_hits(ctx, &n));
  EXPECT_TRUE(n == 12);
  CHECK(sparse_bitmasked_count_outer(ctx, &n));
  EXPECT_TRUE(n == 3);
  CHECK(sparse_bitmasked_hits_get(ctx, 5, &act));
  EXPECT_TRUE(act == 0);

  /* deactivate_all from the host. */
  CHECK(sparse_bitmasked_deactivate_all(ctx));
  CHECK(sparse_bitmasked_count_a(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_bitmasked_count_pq(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_bitmasked_count_hits(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_bitmasked_count_outer(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_bitmasked_sum_all_a(ctx, &s));
  EXPECT_TRUE(s == 0.0f);

  /* A bulk write activates every cell; a struct-for writing another sparse
     field activates its cells. */
  for (i = 0; i < N; ++i)
    ones[i] = 1.0f;
  CHECK(sparse_bitmasked_a_write(ctx, ones, N));
  CHECK(sparse_bitmasked_count_a(ctx, &n));
  EXPECT_TRUE(n == N);
  CHECK(sparse_bitmasked_copy_a_to_hits(ctx));
  CHECK(sparse_bitmasked_count_hits(ctx, &n));
  EXPECT_TRUE(n == 16);
  CHECK(sparse_bitmasked_a_set(ctx, 5, 2.5f));
  CHECK(sparse_bitmasked_sum_a(ctx, &s));
  EXPECT_TRUE(fabs(s - (N + 1.5)) < 1e-4);

  sparse_bitmasked_destroy(ctx);
  return TEST_RESULT();
}

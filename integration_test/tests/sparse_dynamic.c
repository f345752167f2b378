/* Dynamic SNodes: see sparse_dynamic.tc. Every expected value is computed
 * here from the program's definition. */
#include "sparse_dynamic.h"
#define LAST_ERROR sparse_dynamic_last_error
#include "common.h"

static int cmp_int(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

int main(void) {
  sparse_dynamic_ctx *ctx = NULL;
  int32_t n = -1, t = -1, v = -1, lens[5], xs[5 * 5];
  float f = -1;
  tc_memory_stats ms;
  int i, j, k, bad = 0;
  CHECK(sparse_dynamic_create(NULL, &ctx));

  /* The docs' example: list i holds 0, 1, 4, ..., (i-1)^2. */
  CHECK(sparse_dynamic_make_lists(ctx));
  CHECK(sparse_dynamic_l_read(ctx, lens, 5));
  {
    int32_t want_sum = 0;
    for (i = 0; i < 5; ++i) {
      bad += lens[i] != i;
      for (j = 0; j < i; ++j)
        want_sum += j * j;
    }
    EXPECT_TRUE(bad == 0);
    CHECK(sparse_dynamic_sum_x(ctx, &t));
    EXPECT_TRUE(t == want_sum);
    CHECK(sparse_dynamic_count_x(ctx, &n));
    EXPECT_TRUE(n == 0 + 1 + 2 + 3 + 4);
  }
  /* Bulk read: elements past a list's length read 0. (One thread runs
     each list's appends in order, so element j is j^2.) */
  CHECK(sparse_dynamic_x_read(ctx, xs, 25));
  for (i = 0; i < 5; ++i)
    for (j = 0; j < 5; ++j)
      bad += xs[i * 5 + j] != (j < i ? j * j : 0);
  EXPECT_TRUE(bad == 0);
  CHECK(sparse_dynamic_x_get(ctx, 4, 3, &v));
  EXPECT_TRUE(v == 9);
  /* Emptying a list: length 0, its elements gone and read 0. */
  CHECK(sparse_dynamic_clear_x(ctx, 4));
  CHECK(sparse_dynamic_len_x(ctx, 4, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_dynamic_count_x(ctx, &n));
  EXPECT_TRUE(n == 0 + 1 + 2 + 3);
  CHECK(sparse_dynamic_x_get(ctx, 4, 3, &v));
  EXPECT_TRUE(v == 0);

  /* 1000 appends from every thread across 63 chunk boundaries, then 5
     more into the full list: each of the first 1000 got its own element,
     the last 5 report the list full and change nothing. */
  CHECK(sparse_dynamic_fill_q(ctx, 1000, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_dynamic_len_q(ctx, &n));
  EXPECT_TRUE(n == 1000);
  {
    int32_t qs[1000];
    CHECK(sparse_dynamic_q_read(ctx, qs, 1000));
    qsort(qs, 1000, sizeof qs[0], cmp_int);
    for (k = 0; k < 1000; ++k)
      bad += qs[k] != k + 1;
    EXPECT_TRUE(bad == 0);
  }
  CHECK(sparse_dynamic_fill_q(ctx, 5, &n));
  EXPECT_TRUE(n == 5);
  CHECK(sparse_dynamic_len_q(ctx, &n));
  EXPECT_TRUE(n == 1000);
  CHECK(sparse_dynamic_sum_q(ctx, &t));
  EXPECT_TRUE(t == 1000 * 1001 / 2);
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, /* a dense node has no pool */
                sparse_dynamic_memory_stats(ctx, "ql", &ms));

  /* Every thread appends into seven lists at once, 20 times over with the
     lists emptied in between: no element lost, none duplicated, and the
     chunks are reused (memory bounded). */
  {
    const int32_t total = 100000;
    static int32_t got[20000];
    for (k = 0; k < 20; ++k) {
      CHECK(sparse_dynamic_scatter_c(ctx, total));
      for (i = 0; i < 7; ++i) {
        int32_t want_len = (total - i + 6) / 7;
        CHECK(sparse_dynamic_len_c(ctx, i, &n));
        bad += n != want_len;
        if (k == 0 || k == 19) {
          for (j = 0; j < want_len; ++j) {
            CHECK(sparse_dynamic_c_get(ctx, i, j, &got[j]));
          }
          qsort(got, (size_t)want_len, sizeof got[0], cmp_int);
          for (j = 0; j < want_len; ++j)
            bad += got[j] != i + 7 * j;
        }
      }
      CHECK(sparse_dynamic_clear_c(ctx));
    }
    EXPECT_TRUE(bad == 0);
    CHECK(sparse_dynamic_memory_stats(ctx, "cd", &ms));
    EXPECT_TRUE(ms.live_cells == 0);
    /* One filling needs 7 x 56 chunks of 1 KiB; 20 fillings reuse them. */
    EXPECT_TRUE(on_gpu() ||
                ms.committed_bytes <= 2 * 7 * 56 * 1024 + (1u << 20));
  }

  /* Particles binned into pointer buckets: appends activate the buckets;
     a struct-for over the particles visits every one once. */
  {
    const int32_t np = 500;
    int want_b[16] = {0}, nb = 0, over = 0, kept = 0;
    int64_t want_sum = 0;
    double want_pv = 0;
    CHECK(sparse_dynamic_bin(ctx, np));
    for (k = 0; k < np; ++k)
      want_b[(k * 7) % 13] += 1;
    for (i = 0; i < 16; ++i)
      nb += want_b[i] > 0;
    for (i = 0; i < 16; ++i) {
      CHECK(sparse_dynamic_bucket_len(ctx, i, &n));
      bad += n != (want_b[i] < 64 ? want_b[i] : 64);
      over += want_b[i] > 64 ? want_b[i] - 64 : 0;
      kept += want_b[i] < 64 ? want_b[i] : 64;
    }
    EXPECT_TRUE(bad == 0);
    EXPECT_TRUE(over == 0); /* 500 / 13 < 64: every particle fits */
    CHECK(sparse_dynamic_count_buckets(ctx, &n));
    EXPECT_TRUE(n == nb);
    CHECK(sparse_dynamic_count_parts(ctx, &n));
    EXPECT_TRUE(n == kept);
    for (k = 0; k < np; ++k) {
      want_sum += k;
      want_pv += k + 0.5;
    }
    CHECK(sparse_dynamic_sum_pid(ctx, &t));
    EXPECT_TRUE(t == want_sum);
    CHECK(sparse_dynamic_set_pv(ctx));
    CHECK(sparse_dynamic_sum_pv(ctx, &f));
    EXPECT_TRUE(fabs(f - want_pv) < 1e-3 * want_pv);
    CHECK(sparse_dynamic_memory_stats(ctx, "parts", &ms));
    {
      uint64_t chunks = 0;
      for (i = 0; i < 16; ++i)
        chunks += (uint64_t)(want_b[i] + 7) / 8;
      EXPECT_TRUE(ms.live_cells == chunks);
    }
    /* Deactivating a bucket returns its list's chunks to their pool. */
    CHECK(sparse_dynamic_kill_bucket(ctx, 0));
    CHECK(sparse_dynamic_bucket_len(ctx, 0, &n));
    EXPECT_TRUE(n == 0);
    CHECK(sparse_dynamic_memory_stats(ctx, "parts", &ms));
    {
      uint64_t chunks = 0;
      for (i = 1; i < 16; ++i)
        chunks += (uint64_t)(want_b[i] + 7) / 8;
      EXPECT_TRUE(ms.live_cells == chunks);
    }
    CHECK(sparse_dynamic_count_parts(ctx, &n));
    EXPECT_TRUE(n == kept - want_b[0]);
  }

  /* A 1-D list. */
  CHECK(sparse_dynamic_push_s(ctx, 40));
  CHECK(sparse_dynamic_len_s(ctx, &n));
  EXPECT_TRUE(n == 40);
  CHECK(sparse_dynamic_sum_s(ctx, &f));
  EXPECT_TRUE(f == 0.5f * (39 * 40 / 2));
  CHECK(sparse_dynamic_push_s(ctx, 100)); /* 60 fit */
  CHECK(sparse_dynamic_len_s(ctx, &n));
  EXPECT_TRUE(n == 100);
  CHECK(sparse_dynamic_clear_s(ctx));
  CHECK(sparse_dynamic_len_s(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_dynamic_sum_s(ctx, &f));
  EXPECT_TRUE(f == 0.0f);

  /* A plain write past the length raises it (as in Taichi); the elements
     before it are active and read 0. */
  CHECK(sparse_dynamic_write_w(ctx, 0, 5, 7));
  CHECK(sparse_dynamic_len_w(ctx, 0, &n));
  EXPECT_TRUE(n == 6);
  CHECK(sparse_dynamic_count_w(ctx, &n));
  EXPECT_TRUE(n == 6);
  CHECK(sparse_dynamic_write_w(ctx, 0, 2, 3)); /* inside: length unchanged */
  CHECK(sparse_dynamic_len_w(ctx, 0, &n));
  EXPECT_TRUE(n == 6);
  for (j = 0; j < 8; ++j) {
    CHECK(sparse_dynamic_active_w(ctx, 0, j, &v));
    bad += v != (j < 6);
    CHECK(sparse_dynamic_w_get(ctx, 0, j, &v));
    bad += v != (j == 5 ? 7 : j == 2 ? 3 : 0);
  }
  EXPECT_TRUE(bad == 0);
  /* activate(wd, [i, j]) makes element j active: the length is j + 1. */
  CHECK(sparse_dynamic_activate_w(ctx, 1, 3));
  CHECK(sparse_dynamic_len_w(ctx, 1, &n));
  EXPECT_TRUE(n == 4);
  /* Loops over the list's parent and over the dynamic node itself. */
  CHECK(sparse_dynamic_count_wl(ctx, &n));
  EXPECT_TRUE(n == 3);
  CHECK(sparse_dynamic_count_wd(ctx, &n));
  EXPECT_TRUE(n == 6 + 4);
  /* deactivate(wd, [i, j]) empties list i (Taichi's Dynamic_deactivate). */
  CHECK(sparse_dynamic_deactivate_w(ctx, 0, 1));
  CHECK(sparse_dynamic_len_w(ctx, 0, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_dynamic_w_get(ctx, 0, 5, &v));
  EXPECT_TRUE(v == 0);
  /* Bulk write activates every element. */
  {
    int32_t ws[3 * 8];
    for (k = 0; k < 24; ++k)
      ws[k] = k;
    CHECK(sparse_dynamic_w_write(ctx, ws, 24));
    for (i = 0; i < 3; ++i) {
      CHECK(sparse_dynamic_len_w(ctx, i, &n));
      bad += n != 8;
    }
    EXPECT_TRUE(bad == 0);
  }

  /* One SNode's lists, then all. */
  /* Long lists below a pointer: lengths across group boundaries. */
  {
    int32_t t = -1;
    long want = 0;
    const int32_t which[3] = {1, 5, 6}, len[3] = {1500, 2049, 1024};
    CHECK(sparse_dynamic_sum_lq(ctx, &t));
    EXPECT_TRUE(t == 0);
    for (int k = 0; k < 3; ++k) {
      CHECK(sparse_dynamic_fill_lq(ctx, which[k], len[k]));
      want += (long)(which[k] + 1) * len[k] * (len[k] + 1) / 2;
    }
    CHECK(sparse_dynamic_sum_lq(ctx, &t));
    EXPECT_TRUE(t == want);
    CHECK(sparse_dynamic_sum_lq(ctx, &t)); /* the list reused */
    EXPECT_TRUE(t == want);
    CHECK(sparse_dynamic_drop_lq(ctx, 5));
    want -= 6L * 2049 * 2050 / 2;
    CHECK(sparse_dynamic_sum_lq(ctx, &t));
    EXPECT_TRUE(t == want);
  }
  CHECK(sparse_dynamic_wd_deactivate_all(ctx));
  CHECK(sparse_dynamic_count_w(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_dynamic_count_x(ctx, &n));
  EXPECT_TRUE(n > 0);
  CHECK(sparse_dynamic_deactivate_all(ctx));
  CHECK(sparse_dynamic_count_x(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_dynamic_count_parts(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_dynamic_len_q(ctx, &n));
  EXPECT_TRUE(n == 0);
  CHECK(sparse_dynamic_memory_stats(ctx, "parts", &ms));
  EXPECT_TRUE(ms.live_cells == 0);
  CHECK(sparse_dynamic_memory_stats(ctx, "cd", &ms));
  EXPECT_TRUE(ms.live_cells == 0);

  sparse_dynamic_destroy(ctx);
  return TEST_RESULT();
}

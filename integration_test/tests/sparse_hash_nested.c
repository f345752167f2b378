/* Hash SNodes below dense SNodes: see sparse_hash_nested.tc. Every number
   against plain C. */
#include "sparse_hash_nested.h"
#define LAST_ERROR sparse_hash_nested_last_error
#include "common.h"

#include <stdlib.h>

static int fdiv(int a, int b) {
  int q = a / b;
  if ((a % b) != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

/* got against want (relative tolerance rtol); counts a failure. */
static void expect(const char *what, size_t i, double got, double want,
                   double rtol) {
  if (!(fabs(got - want) <= rtol * fabs(want))) {
    fprintf(stderr, "%s[%lu]: got %.9g, want %.9g\n", what, (unsigned long)i,
            got, want);
    ++tic_test_failures;
  }
}

/* A small set of (a, b) pairs. */
#define MAXP 65536
static int pa[MAXP], pb[MAXP], np;
static int addPair(int a, int b) {
  int k;
  for (k = 0; k < np; ++k)
    if (pa[k] == a && pb[k] == b)
      return 0;
  pa[np] = a, pb[np] = b, ++np;
  return 1;
}

/* The sums and block count of fill_q(n, s) against tic's, with parents 1
   and 2 of both fields freed when `freed`. */
static int check_q(sparse_hash_nested_ctx *ctx, int cyc, int n, int s,
                   int freed) {
  double sumqp = 0;
  long sumqb = 0;
  int cells = 0, t, e;
  float f;
  int32_t v;
  np = 0;
  for (t = 0; t < n; ++t) {
    int i = t % 4, j = t * 9 - 400 + s;
    if (freed && (i == 1 || i == 2))
      continue;
    sumqp += (t + 1.0) * (i + 1);
    if (addPair(i, fdiv(j, 4))) {
      ++cells;
      for (e = 0; e < 4; ++e)
        sumqp += fdiv(j, 4) * 4 + e;
    }
    sumqb += (long)(t + 1) * (i + 1);
  }
  CHECK(sparse_hash_nested_sum_qp(ctx, &f));
  expect(freed ? "sum_qp after freeing" : "sum_qp", (size_t)cyc, f, sumqp,
         1e-6);
  CHECK(sparse_hash_nested_sum_qb(ctx, &v));
  expect(freed ? "sum_qb after freeing" : "sum_qb", (size_t)cyc, v,
         (double)sumqb, 0);
  CHECK(sparse_hash_nested_cells_sph(ctx, &v));
  expect(freed ? "cells_sph after freeing" : "cells_sph", (size_t)cyc, v, cells,
         0);
  return 0;
}

int main(void) {
  sparse_hash_nested_ctx *ctx = NULL;
  float f;
  int32_t v;
  int t, k, e;
  tc_memory_stats ms;
  CHECK(sparse_hash_nested_create(NULL, &ctx));

  /* h: 3 materials, blocks of 4 along j, negative j too. */
  {
    const int n = 300;
    double sum = 0;
    long isum = 0;
    int count[3] = {0, 0, 0};
    CHECK(sparse_hash_nested_fill_h(ctx, n));
    np = 0;
    for (t = 0; t < n; ++t) {
      int i = t % 3, j = t * 7 - 50;
      sum += (double)t * (i + 1);
      if (addPair(i, fdiv(j, 4))) {
        count[i] += 4;
        isum += i * 1000 + fdiv(j, 4);
        for (e = 0; e < 4; ++e)
          sum += fdiv(j, 4) * 4 + e;
      }
    }
    for (k = 0; k < 3; ++k) {
      CHECK(sparse_hash_nested_count_h(ctx, k, &v));
      expect("count_h", (size_t)k, v, count[k], 0);
    }
    CHECK(sparse_hash_nested_sum_h(ctx, &f));
    expect("sum_h", 0, f, sum, 1e-6);
    CHECK(sparse_hash_nested_cells_blk(ctx, &v));
    expect("cells_blk", 0, v, np, 0);
    CHECK(sparse_hash_nested_isum_blk(ctx, &v));
    expect("isum_blk (the hash node's own cell indices)", 0, v, (double)isum,
           0);
    /* Values, and the tables of different materials do not mix. */
    for (t = 0; t < n; t += 17) {
      int i = t % 3, j = t * 7 - 50;
      CHECK(sparse_hash_nested_get_h(ctx, i, j, &f));
      expect("h", (size_t)t, f, t, 0);
      CHECK(sparse_hash_nested_get_h(ctx, (i + 1) % 3, j, &f));
      expect("h of another material", (size_t)t, f, 0, 0);
    }
    CHECK(sparse_hash_nested_h_get(ctx, 1, 7 - 50, &f));
    expect("h_get", 0, f, 1, 0);
    /* Neighbour reads: h (i, j +- 1) of every active element, 0 outside
       the active blocks. */
    CHECK(sparse_hash_nested_near_h(ctx));
    for (t = 0; t < n; t += 7) {
      int i = t % 3, j = t * 7 - 50, d;
      for (d = -1; d <= 1; ++d) {
        int jj = j + d, u;
        double want = 0, hv[2] = {0, 0};
        for (u = 0; u < 2; ++u) {
          int jn = jj + (u ? 1 : -1), s2;
          /* h at (i, jn): the t' with t' % 3 == i and 7 t' - 50 == jn. */
          for (s2 = 0; s2 < n; ++s2)
            if (s2 % 3 == i && s2 * 7 - 50 == jn)
              hv[u] = s2;
        }
        want = hv[0] + 2.0 * hv[1];
        /* Only elements of active blocks are visited: (i, jj) is in the
           block of (i, j) when floor(jj / 4) == floor(j / 4). */
        if (fdiv(jj, 4) != fdiv(j, 4))
          continue;
        CHECK(sparse_hash_nested_get_hl(ctx, i, jj, &f));
        expect("near_h", (size_t)t, f, want, 0);
      }
    }
    /* Reads of absent cells are 0 and insert nothing. */
    CHECK(sparse_hash_nested_read_far(ctx, 5000, &f));
    expect("read_far", 0, f, 0, 0);
    CHECK(sparse_hash_nested_cells_blk(ctx, &v));
    expect("cells_blk after reads", 0, v, np, 0);
    /* Deactivate, reactivate: the block reads 0. */
    CHECK(sparse_hash_nested_active_blk(ctx, 1, fdiv(7 - 50, 4), &v));
    EXPECT_TRUE(v == 1);
    CHECK(sparse_hash_nested_active_blk(ctx, 2, fdiv(7 - 50, 4), &v));
    EXPECT_TRUE(v == 0);
    CHECK(sparse_hash_nested_kill_blk(ctx, 1, fdiv(7 - 50, 4)));
    CHECK(sparse_hash_nested_active_blk(ctx, 1, fdiv(7 - 50, 4), &v));
    EXPECT_TRUE(v == 0);
    CHECK(sparse_hash_nested_wake_blk(ctx, 1, fdiv(7 - 50, 4)));
    CHECK(sparse_hash_nested_get_h(ctx, 1, 7 - 50, &f));
    expect("h reactivated", 0, f, 0, 0);
    CHECK(sparse_hash_nested_count_h(ctx, 1, &v));
    expect("count_h reactivated", 0, v, count[1], 0);
    CHECK(sparse_hash_nested_blk_deactivate_all(ctx));
    CHECK(sparse_hash_nested_cells_blk(ctx, &v));
    expect("cells_blk after deactivate_all", 0, v, 0, 0);
  }

  /* g: i split by two dense levels and the hash (64 rows), j unbounded. */
  {
    const int n = 200;
    long sum = 0;
    CHECK(sparse_hash_nested_fill_g(ctx, n));
    np = 0;
    for (t = 0; t < n; ++t) {
      int i = (t * 11) % 64, j = t * 5 - 20;
      sum += (long)(t + 1) * (i + 1);
      if (addPair(i / 2, fdiv(j, 2)))
        for (e = 0; e < 4; ++e)
          sum += fdiv(j, 2) * 2 + e % 2;
    }
    CHECK(sparse_hash_nested_count_g(ctx, &v));
    expect("count_g", 0, v, 4 * np, 0);
    CHECK(sparse_hash_nested_sum_g(ctx, &v));
    expect("sum_g", 0, v, (double)sum, 0);
    CHECK(sparse_hash_nested_g_get(ctx, 11, 5 - 20, &v));
    expect("g_get", 0, v, 2, 0);
  }

  /* w: a 128-bit key (j, k, the parent's cell). */
  {
    static const int pts[][3] = {
        {0, -7, 3}, {3, 100000, -100000}, {1, -1, -1}, {2, 5, 5}, {3, -7, 3}};
    double sum = 0;
    for (k = 0; k < 5; ++k) {
      CHECK(sparse_hash_nested_put_w(ctx, pts[k][0], pts[k][1], pts[k][2],
                                     (float)(k + 1)));
      sum += (k + 1.0) * (pts[k][0] * 100 + pts[k][1] * 10 + pts[k][2]);
    }
    for (k = 0; k < 5; ++k) {
      CHECK(sparse_hash_nested_get_w(ctx, pts[k][0], pts[k][1], pts[k][2], &f));
      expect("w", (size_t)k, f, k + 1, 0);
    }
    CHECK(sparse_hash_nested_get_w(ctx, 1, -7, 3, &f));
    expect("w of another parent", 0, f, 0, 0);
    CHECK(sparse_hash_nested_sum_w(ctx, &f));
    expect("sum_w", 0, f, sum, 1e-6);
  }

  /* cnt: every thread at once, then many distinct cells per parent. */
  {
    const int n = 100000, spread = 20000;
    static int ref[4][64];
    int cells = 0;
    memset(ref, 0, sizeof ref);
    CHECK(sparse_hash_nested_scatter(ctx, n));
    np = 0;
    for (k = 0; k < n; ++k) {
      int j = (k * 13) % 64 - 32;
      ref[k % 4][j + 32] += 1;
      ref[k % 4][-5 + 32] += 1;
      cells += addPair(k % 4, fdiv(j, 8));
      cells += addPair(k % 4, fdiv(-5, 8));
    }
    for (k = 0; k < 4; ++k)
      for (e = 0; e < 64; ++e) {
        CHECK(sparse_hash_nested_get_cnt(ctx, k, e - 32, &v));
        if (v != ref[k][e]) {
          expect("cnt", (size_t)(k * 64 + e), v, ref[k][e], 0);
          break;
        }
      }
    CHECK(sparse_hash_nested_total_cnt(ctx, &v));
    expect("total_cnt", 0, v, 2.0 * n, 0);
    CHECK(sparse_hash_nested_cells_ch(ctx, &v));
    expect("cells_ch", 0, v, cells, 0);
    CHECK(sparse_hash_nested_spread(ctx, spread));
    CHECK(sparse_hash_nested_cells_ch(ctx, &v));
    expect("cells_ch after spread", 0, v, cells + spread, 0);
    CHECK(sparse_hash_nested_total_cnt(ctx, &v));
    expect("total_cnt after spread", 0, v, 2.0 * n + 2.0 * spread, 0);
    CHECK(sparse_hash_nested_get_cnt(ctx, 3, 3 * 16 - 3000000, &v));
    expect("cnt spread", 0, v, 2, 0);
    /* The node's entries: every key ever activated. */
    CHECK(sparse_hash_nested_memory_stats(ctx, "ch", &ms));
    expect("live entries of ch", 0, (double)ms.live_cells, cells + spread, 0);
  }

  /* pp: dense -> hash -> pointer -> dense; deactivating a hash cell frees
     the pointer cells below it. */
  {
    double sum = 0, sum1 = 0;
    int cells = 0, cells1 = 0;
    CHECK(sparse_hash_nested_fill_pp(ctx));
    np = 0;
    for (k = 0; k < 200; k += 7) {
      int i = k % 2, j = k - 100, c = addPair(i, fdiv(j, 2));
      sum += (double)k * (i + 1);
      cells += c;
      if (!(i == 1 && fdiv(j, 8) == fdiv(-93, 8))) {
        sum1 += (double)k * (i + 1);
        cells1 += c;
      }
    }
    CHECK(sparse_hash_nested_sum_pp(ctx, &f));
    expect("sum_pp", 0, f, sum, 1e-6);
    CHECK(sparse_hash_nested_cells_pq(ctx, &v));
    expect("cells_pq", 0, v, cells, 0);
    /* k = 7: pp[1, -93], hash cell (1, floor(-93 / 8)). */
    CHECK(sparse_hash_nested_kill_ph(ctx, 1, fdiv(-93, 8)));
    CHECK(sparse_hash_nested_sum_pp(ctx, &f));
    expect("sum_pp after deactivation", 0, f, sum1, 1e-6);
    CHECK(sparse_hash_nested_cells_pq(ctx, &v));
    expect("cells_pq after deactivation", 0, v, cells1, 0);
  }

  /* Below sparse parents: 50 cycles of filling every parent's table and
     freeing two parents (their entries go back to the pool, so the pool
     stays bounded and a refilled parent starts from 0). */
  {
    int cyc;
    uint64_t live_first = 0;
    for (cyc = 0; cyc < 50; ++cyc) {
      const int n = 400, s = cyc % 7;
      CHECK(sparse_hash_nested_fill_q(ctx, n, s));
      if (check_q(ctx, cyc, n, s, 0))
        return 1;
      /* Free parents 1 and 2 of both: what they held is gone. */
      CHECK(sparse_hash_nested_kill_sp(ctx, 1));
      CHECK(sparse_hash_nested_kill_sp(ctx, 2));
      CHECK(sparse_hash_nested_kill_sb(ctx, 1));
      CHECK(sparse_hash_nested_kill_sb(ctx, 2));
      CHECK(sparse_hash_nested_get_qp(ctx, 1, 9 - 400 + s, &f));
      expect("qp of a freed parent", (size_t)cyc, f, 0, 0);
      if (check_q(ctx, cyc, n, s, 1))
        return 1;
      /* Parents 0 and 3 keep their entries (the same keys next cycle when
         s repeats); the freed ones come back to the pool. */
      CHECK(sparse_hash_nested_kill_sp(ctx, 0));
      CHECK(sparse_hash_nested_kill_sp(ctx, 3));
      CHECK(sparse_hash_nested_kill_sb(ctx, 0));
      CHECK(sparse_hash_nested_kill_sb(ctx, 3));
      CHECK(sparse_hash_nested_memory_stats(ctx, "sph", &ms));
      if (cyc == 0)
        live_first = ms.committed_bytes;
      if (cyc == 49)
        EXPECT_TRUE(ms.committed_bytes <= live_first);
    }
    CHECK(sparse_hash_nested_cells_sph(ctx, &v));
    expect("cells_sph at the end", 0, v, 0, 0);
  }

  /* With -g: indices along axes a dense node above the hash splits are
     checked (i of h: 3 rows; i of g: 64), those the hash brought are not
     (any i32). */
  if (sparse_hash_nested_is_checked(ctx, &v) != TC_OK) {
    EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS,
                  sparse_hash_nested_get_h(ctx, 5, 0, &f));
    EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS,
                  sparse_hash_nested_get_g(ctx, 64, 0, &v));
    EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS,
                  sparse_hash_nested_get_g(ctx, -1, 0, &v));
    CHECK(sparse_hash_nested_get_h(ctx, 2, -2000000000, &f));
    expect("h far (checked)", 0, f, 0, 0);
    CHECK(sparse_hash_nested_get_g(ctx, 63, 2000000000, &v));
    expect("g far (checked)", 0, v, 0, 0);
    printf("sparse_hash_nested: bounds checked\n");
  }

  sparse_hash_nested_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("sparse_hash_nested: ok\n");
  return 0;
}

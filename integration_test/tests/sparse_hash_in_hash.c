/* Hash SNodes below hash SNodes: see sparse_hash_in_hash.tc. Every
 * expected value is computed here from the program's definition. */
#include "sparse_hash_in_hash.h"
#define LAST_ERROR sparse_hash_in_hash_last_error
#include "common.h"

#include <string.h>

static int floordiv(int a, int b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

enum { NX = 3000, NY = 500, NZ = 200 };
/* x: i in [-50, 50], j in [-48, 48]. */
static int64_t xs[101][97];
static int32_t ys[41][43];
static float zs[19][13];

int main(void) {
  sparse_hash_in_hash_ctx *ctx = NULL;
  CHECK(sparse_hash_in_hash_create(NULL, &ctx));

  /* x: contended adds from every thread at both levels. */
  for (int t = 0; t < NX; ++t)
    xs[(t * 37) % 101][(t * 13) % 97] += t + 1;
  CHECK(sparse_hash_in_hash_fill_x(ctx, NX));
  int cells = 0, hcells = 0, acells = 0;
  int64_t sum = 0, hsum = 0;
  static int hseen[101][25], aseen[101];
  for (int a = 0; a < 101; ++a)
    for (int b = 0; b < 97; ++b)
      if (xs[a][b]) {
        int i = a - 50, j = b - 48;
        ++cells;
        sum += xs[a][b] * (int64_t)(i * 1000 + j);
        int jb = floordiv(j, 4);
        if (!hseen[a][jb + 12]++) {
          ++hcells;
          hsum += i * 1000 + jb;
        }
        if (!aseen[a]++)
          ++acells;
      }
  int n = -1;
  int64_t s = -1;
  /* A struct-for over x visits every element of the active blocks of 4. */
  CHECK(sparse_hash_in_hash_count_x(ctx, &n));
  EXPECT_TRUE(n == 4 * hcells);
  CHECK(sparse_hash_in_hash_sum_x(ctx, &s));
  EXPECT_TRUE(s == sum);
  CHECK(sparse_hash_in_hash_cells_h(ctx, &n));
  EXPECT_TRUE(n == hcells);
  CHECK(sparse_hash_in_hash_isum_h(ctx, &s));
  EXPECT_TRUE(s == hsum);
  CHECK(sparse_hash_in_hash_cells_a(ctx, &n));
  EXPECT_TRUE(n == acells);
  int bad = 0;
  for (int a = 0; a < 101; a += 3)
    for (int b = 0; b < 97; b += 5) {
      CHECK(sparse_hash_in_hash_get_x(ctx, a - 50, b - 48, &s));
      bad += s != xs[a][b];
    }
  /* Far outside what was written: 0, nothing inserted. */
  CHECK(sparse_hash_in_hash_get_x(ctx, -1000000, 123456789, &s));
  bad += s != 0;
  CHECK(sparse_hash_in_hash_get_x(ctx, 7, -99999, &s));
  bad += s != 0;
  EXPECT_TRUE(bad == 0);
  CHECK(sparse_hash_in_hash_count_x(ctx, &n));
  EXPECT_TRUE(n == 4 * hcells);

  /* Deactivating outer cells frees their inner tables: their cells read 0
   * and leave the struct-fors. */
  int killed[] = {-50, -13, 0, 7, 50};
  for (int k = 0; k < 5; ++k) {
    int a = killed[k] + 50;
    CHECK(sparse_hash_in_hash_kill_a(ctx, killed[k]));
    for (int b = 0; b < 97; ++b)
      if (xs[a][b]) {
        int jb = floordiv(b - 48, 4);
        if (hseen[a][jb + 12]) {
          hseen[a][jb + 12] = 0;
          --hcells;
          hsum -= (int64_t)killed[k] * 1000 + jb;
        }
        --cells;
        sum -= xs[a][b] * (int64_t)(killed[k] * 1000 + b - 48);
        xs[a][b] = 0;
      }
  }
  CHECK(sparse_hash_in_hash_count_x(ctx, &n));
  EXPECT_TRUE(n == 4 * hcells);
  CHECK(sparse_hash_in_hash_sum_x(ctx, &s));
  EXPECT_TRUE(s == sum);
  EXPECT_TRUE(cells > 0 && cells < 4 * hcells);
  CHECK(sparse_hash_in_hash_cells_h(ctx, &n));
  EXPECT_TRUE(n == hcells);
  CHECK(sparse_hash_in_hash_isum_h(ctx, &s));
  EXPECT_TRUE(s == hsum);
  int act = -1;
  CHECK(sparse_hash_in_hash_active_h(ctx, 7, 0, &act));
  EXPECT_TRUE(act == 0);
  /* Filled again: the killed rows start from 0. */
  for (int t = 0; t < NX; ++t)
    xs[(t * 37) % 101][(t * 13) % 97] += t + 1;
  CHECK(sparse_hash_in_hash_fill_x(ctx, NX));
  sum = 0;
  for (int a = 0; a < 101; ++a)
    for (int b = 0; b < 97; ++b)
      sum += xs[a][b] * (int64_t)((a - 50) * 1000 + b - 48);
  CHECK(sparse_hash_in_hash_sum_x(ctx, &s));
  EXPECT_TRUE(s == sum);

  /* The C accessors: _set inserts at both levels, _get reads (0 when
   * absent, inserting nothing). */
  CHECK(sparse_hash_in_hash_x_set(ctx, -777, 123457, 42));
  CHECK(sparse_hash_in_hash_x_get(ctx, -777, 123457, &s));
  EXPECT_TRUE(s == 42);
  CHECK(sparse_hash_in_hash_x_get(ctx, -777, 123458, &s));
  EXPECT_TRUE(s == 0);
  CHECK(sparse_hash_in_hash_x_get(ctx, 3, 5, &s));
  EXPECT_TRUE(s == xs[53][53]);
  /* The refilled blocks, and the one _set made. */
  memset(hseen, 0, sizeof hseen);
  hcells = 1;
  for (int a = 0; a < 101; ++a)
    for (int b = 0; b < 97; ++b)
      if (xs[a][b] && !hseen[a][floordiv(b - 48, 4) + 12]++)
        ++hcells;
  CHECK(sparse_hash_in_hash_cells_h(ctx, &n));
  EXPECT_TRUE(n == hcells);

  /* y: both hashes on ij. */
  for (int t = 0; t < NY; ++t)
    ys[(t * 7) % 41][(t * 5) % 43] = t + 1;
  CHECK(sparse_hash_in_hash_fill_y(ctx, NY));
  int64_t ysum = 0;
  int ycells = 0; /* inner cells of 2 x 2 elements */
  static int yseen[22][23];
  for (int a = 0; a < 41; ++a)
    for (int b = 0; b < 43; ++b)
      if (ys[a][b]) {
        if (!yseen[floordiv(a - 20, 2) + 10][floordiv(b - 21, 2) + 11]++)
          ++ycells;
        ysum += (int64_t)ys[a][b] * ((a - 20) * 1000 + b - 21);
      }
  CHECK(sparse_hash_in_hash_count_y(ctx, &n));
  EXPECT_TRUE(n == 4 * ycells);
  CHECK(sparse_hash_in_hash_sum_y(ctx, &s));
  EXPECT_TRUE(s == ysum);
  int32_t v = -1;
  bad = 0;
  for (int a = 0; a < 41; ++a)
    for (int b = 0; b < 43; ++b) {
      CHECK(sparse_hash_in_hash_get_y(ctx, a - 20, b - 21, &v));
      bad += v != ys[a][b];
    }
  EXPECT_TRUE(bad == 0);

  /* z: hash -> dense -> pointer -> hash -> dense. */
  for (int t = 0; t < NZ; ++t)
    zs[(t * 3) % 19][(t * 11) % 13] = (float)(t + 1);
  CHECK(sparse_hash_in_hash_fill_z(ctx, NZ));
  double zsum = 0;
  int zcells = 0; /* inner cells of 2 elements along j */
  static int zseen[19][7];
  for (int a = 0; a < 19; ++a)
    for (int b = 0; b < 13; ++b)
      if (zs[a][b] != 0.0f) {
        if (!zseen[a][b / 2]++)
          ++zcells;
        zsum += (double)zs[a][b] * ((a - 9) * 100 + b);
      }
  double zs_got = -1;
  CHECK(sparse_hash_in_hash_count_z(ctx, &n));
  EXPECT_TRUE(n == 2 * zcells);
  CHECK(sparse_hash_in_hash_sum_z(ctx, &zs_got));
  EXPECT_TRUE(zs_got == zsum);

  sparse_hash_in_hash_destroy(ctx);
  return TEST_RESULT();
}

#include "block_local_lists.h"
#define LAST_ERROR block_local_lists_last_error
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Particles, the grid's size and the hash grid's window of cells checked. */
enum { P = 4096, N = 64, B = 8, H0 = -40, H1 = 40, HN = H1 - H0 };

static float x[P * 2], hx[P * 2], val[P], back[P], hback[P];
static float gref[N * N], gvref[N * N * 2], got[N * N * 2];
static float wantback[P], wanthback[P];
static float href[HN * HN];

static unsigned rng = 12345u;
static float uniform(void) { /* in [0, 1) */
  rng = rng * 1664525u + 1013904223u;
  return (float)(rng >> 8) / 16777216.0f;
}
/* The stencil's corner, as the kernels compute it (floor(q - 0.5)). */
static int corner(float q) { return (int)floorf(q - 0.5f); }
static float weight(int i, int j) { return (float)(1 + i + 2 * j) * 0.125f; }

int main(void) {
  block_local_lists_ctx *ctx = NULL;
  int p, i, j;
  /* Positions: x in [1, 39) x [1, 62.5) (the stencils stay in the 64 x 64
   * grid, and miss its last two rows of blocks), hx in [-30, 30)^2,
   * clustered so that lists differ in length. */
  for (p = 0; p < P; ++p) {
    float c = p % 3 == 0 ? 0.3f : 1.0f;
    x[2 * p] = 1.0f + 38.0f * c * uniform();
    x[2 * p + 1] = 1.0f + 61.5f * uniform();
    hx[2 * p] = -30.0f + 60.0f * c * uniform();
    hx[2 * p + 1] = -30.0f + 60.0f * uniform();
    val[p] = (float)(1 + p % 16);
  }
  /* The scatters and gathers in C. */
  for (p = 0; p < P; ++p) {
    int ci = corner(x[2 * p]), cj = corner(x[2 * p + 1]);
    int hi = corner(hx[2 * p]), hj = corner(hx[2 * p + 1]);
    for (i = 0; i < 3; ++i)
      for (j = 0; j < 3; ++j) {
        int c = (ci + i) * N + cj + j;
        gref[c] += weight(i, j) * val[p];
        gvref[2 * c] += weight(i, j);
        gvref[2 * c + 1] += -2.0f * weight(i, j) * val[p];
        href[(hi + i - H0) * HN + hj + j - H0] += weight(i, j) * val[p];
      }
  }
  for (p = 0; p < P; ++p) {
    int ci = corner(x[2 * p]), cj = corner(x[2 * p + 1]);
    int hi = corner(hx[2 * p]), hj = corner(hx[2 * p + 1]);
    float s = 0.0f, hs = 0.0f;
    for (i = 0; i < 3; ++i)
      for (j = 0; j < 3; ++j) {
        s += (float)(1 + i + 2 * j) * gref[(ci + i) * N + cj + j];
        hs += (float)(1 + i + 2 * j) * href[(hi + i - H0) * HN + hj + j - H0];
      }
    wantback[p] = s;
    wanthback[p] = hs;
  }

  CHECK(block_local_lists_create(NULL, &ctx));
  CHECK(block_local_lists_x_write(ctx, x, P * 2));
  CHECK(block_local_lists_hx_write(ctx, hx, P * 2));
  CHECK(block_local_lists_val_write(ctx, val, P));
  CHECK(block_local_lists_bin(ctx));
  {
    int32_t listed = 0;
    CHECK(block_local_lists_listed(ctx, &listed));
    EXPECT_TRUE(listed == P);
  }

  /* Scatter: g and gv as the C sums, and the blocks the stencils reach
   * active (the buffered additions activate what the plain ones did). */
  CHECK(block_local_lists_p2g(ctx));
  CHECK(block_local_lists_g_read(ctx, got, N * N));
  compare_f32("p2g g", got, gref, N * N, 0.0, 0.0);
  CHECK(block_local_lists_gv_read(ctx, got, N * N * 2));
  compare_f32("p2g gv", got, gvref, N * N * 2, 0.0, 0.0);
  {
    int32_t blocks = 0, want = 0, bi, bj;
    for (bi = 0; bi < N / B; ++bi)
      for (bj = 0; bj < N / B; ++bj) {
        int reached = 0;
        for (i = bi * B; i < bi * B + B; ++i)
          for (j = bj * B; j < bj * B + B; ++j)
            reached |= gvref[2 * (i * N + j)] != 0.0f;
        want += reached;
      }
    CHECK(block_local_lists_g_blocks(ctx, &blocks));
    EXPECT_TRUE(blocks == want && want > 8 && want < (N / B) * (N / B));
  }

  /* Gather from what p2g scattered. */
  CHECK(block_local_lists_g2p(ctx));
  CHECK(block_local_lists_back_read(ctx, back, P));
  compare_f32("g2p", back, wantback, P, 0.0, 0.0);

  /* Unbounded: buckets and grid under hashes, negative positions. */
  CHECK(block_local_lists_hash_p2g(ctx));
  {
    int bad = 0;
    for (i = H0; i < H1; ++i)
      for (j = H0; j < H1; ++j) {
        float v = 0.0f;
        CHECK(block_local_lists_hg_get(ctx, i, j, &v));
        if (v != href[(i - H0) * HN + j - H0]) {
          if (bad < 5)
            fprintf(stderr, "hash_p2g (%d, %d): got %g, want %g\n", i, j, v,
                    href[(i - H0) * HN + j - H0]);
          ++bad;
        }
      }
    report_mismatches("hash_p2g", bad, (size_t)(HN * HN));
  }
  CHECK(block_local_lists_hash_g2p(ctx));
  CHECK(block_local_lists_hback_read(ctx, hback, P));
  compare_f32("hash_g2p", hback, wanthback, P, 0.0, 0.0);

  /* Taichi's layout: the lists in the grid's own pointer blocks. */
  CHECK(block_local_lists_taichi_p2g(ctx));
  CHECK(block_local_lists_tg_read(ctx, got, N * N));
  compare_f32("taichi_p2g", got, gref, N * N, 0.0, 0.0);

  block_local_lists_destroy(ctx);
  return TEST_RESULT();
}

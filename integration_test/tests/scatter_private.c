/* scatter_private.tc: scatters run on per-thread copies of their fields
 * (tic-privatize-scatter) with several threads; sums and activated cells
 * checked exactly against a serial C reference, on 1 and 4 threads, twice
 * in a row (the copies must be zero again for the second run). */
#include "scatter_private.h"
#define LAST_ERROR scatter_private_last_error
#include "common.h"

enum { N = 20000, G = 64 };

static int32_t px[N], py[N];
static float w[N];

/* Reference after `runs` calls of scatter(). */
static int32_t ref_count[G][G], ref_hits[G][G];
static float ref_v[G][G][2], ref_m[G][G], ref_seen[G][G];

static void reference(int runs) {
  memset(ref_count, 0, sizeof ref_count);
  memset(ref_hits, 0, sizeof ref_hits);
  memset(ref_v, 0, sizeof ref_v);
  memset(ref_m, 0, sizeof ref_m);
  memset(ref_seen, 0, sizeof ref_seen);
  for (int r = 0; r < runs; ++r)
    for (int p = 0; p < N; ++p) {
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          int x = px[p] + i, y = py[p] + j;
          ref_count[x][y] += 1 + i;
          ref_v[x][y][0] += w[p];
          ref_v[x][y][1] += 0.25f * (float)j;
          ref_m[x][y] += w[p] * 2.0f;
          ref_hits[x][y] += 2;
        }
      ref_count[px[p]][py[p]] += 100;
      ref_seen[px[p] + 1][py[p] + 1] += 0.5f;
    }
}

static int run(int threads) {
  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  scatter_private_ctx *ctx = NULL;
  CHECK(scatter_private_create(&opts, &ctx));
  CHECK(scatter_private_px_write(ctx, px, N));
  CHECK(scatter_private_py_write(ctx, py, N));
  CHECK(scatter_private_w_write(ctx, w, N));
  for (int runs = 1; runs <= 2; ++runs) {
    CHECK(scatter_private_scatter(ctx));
    CHECK(scatter_private_scatter_read(ctx));
    reference(runs);
    static int32_t count[G][G], hits[G][G];
    static float v[G][G][2], m[G][G], seen[G][G];
    CHECK(scatter_private_count_read(ctx, &count[0][0], G * G));
    CHECK(scatter_private_hits_read(ctx, &hits[0][0], G * G));
    CHECK(scatter_private_g_v_read(ctx, &v[0][0][0], 2 * G * G));
    CHECK(scatter_private_g_m_read(ctx, &m[0][0], G * G));
    CHECK(scatter_private_seen_read(ctx, &seen[0][0], G * G));
    int bad = 0;
    int want_blocks = 0, want_hits = 0;
    for (int bx = 0; bx < G / 8; ++bx)
      for (int by = 0; by < G / 8; ++by) {
        int any = 0;
        for (int x = 0; x < 8; ++x)
          for (int y = 0; y < 8; ++y)
            any |= ref_count[bx * 8 + x][by * 8 + y] != 0;
        want_blocks += any;
      }
    for (int x = 0; x < G; ++x)
      for (int y = 0; y < G; ++y) {
        want_hits += ref_hits[x][y] != 0;
        if (count[x][y] != ref_count[x][y] || hits[x][y] != ref_hits[x][y] ||
            v[x][y][0] != ref_v[x][y][0] || v[x][y][1] != ref_v[x][y][1] ||
            m[x][y] != ref_m[x][y] || seen[x][y] != ref_seen[x][y]) {
          if (bad < 5)
            fprintf(stderr,
                    "threads %d run %d cell (%d, %d): count %d/%d hits %d/%d "
                    "v (%g, %g)/(%g, %g) m %g/%g seen %g/%g\n",
                    threads, runs, x, y, count[x][y], ref_count[x][y],
                    hits[x][y], ref_hits[x][y], v[x][y][0], v[x][y][1],
                    ref_v[x][y][0], ref_v[x][y][1], m[x][y], ref_m[x][y],
                    seen[x][y], ref_seen[x][y]);
          ++bad;
        }
      }
    EXPECT_TRUE(bad == 0);
    /* Exactly the blocks and bitmasked cells some particle added to. */
    int32_t blocks = 0, cells = 0;
    CHECK(scatter_private_active_blocks(ctx, &blocks));
    CHECK(scatter_private_active_hits(ctx, &cells));
    EXPECT_TRUE(blocks == want_blocks);
    EXPECT_TRUE(cells == want_hits);
    EXPECT_TRUE(want_blocks > 0 && want_blocks < (G / 8) * (G / 8));
  }
  /* Buckets: particle p in list px[p] % 16; a scatter from the lists. */
  CHECK(scatter_private_bucket(ctx, N));
  CHECK(scatter_private_bucket_scatter(ctx));
  {
    static int32_t grid[G][G], want[G][G];
    memset(want, 0, sizeof want);
    for (int p = 0; p < N; ++p)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          want[px[p] + i][py[p] + j] += px[p] % 16 + 1;
    CHECK(scatter_private_grid_read(ctx, &grid[0][0], G * G));
    int bad = 0;
    for (int x = 0; x < G; ++x)
      for (int y = 0; y < G; ++y)
        bad += grid[x][y] != want[x][y];
    EXPECT_TRUE(bad == 0);
  }
  scatter_private_destroy(ctx);
  return 0;
}

int main(void) {
  /* Particles in a band that leaves blocks and cells untouched; weights
   * multiples of 1/4 (exact float sums in any order). */
  unsigned s = 12345;
  for (int p = 0; p < N; ++p) {
    s = s * 1103515245u + 12345u;
    px[p] = 4 + (int)((s >> 8) % 30);
    s = s * 1103515245u + 12345u;
    py[p] = 10 + (int)((s >> 8) % 40);
    w[p] = 0.25f * (float)(p % 7);
  }
  if (run(1) || run(4))
    return 1;
  return TEST_RESULT();
}

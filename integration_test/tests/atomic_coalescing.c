/* Contended f32 atomic adds to neighbouring components (see
 * atomic_coalescing.tc): every sum is of small integers and halves, exact in
 * f32, so the fields must equal the sums computed here, whatever the order
 * of the threads' additions. */
#include "atomic_coalescing.h"
#define LAST_ERROR atomic_coalescing_last_error
#include "common.h"

enum { N = 33, CELLS = 36, COUNT = 33 * 3001 };

int main(void) {
  atomic_coalescing_ctx *ctx = NULL;
  static float g[2 * N], m[N], q[4 * N], pg[2 * CELLS], pm[CELLS];
  static float wg[2 * N], wm[N], wq[4 * N], wpg[2 * CELLS], wpm[CELLS];
  for (int p = 0; p < COUNT; ++p) {
    int c = p % N;
    float w = (float)(p % 7);
    wg[2 * c] += w;
    wg[2 * c + 1] += 2.0f * w;
    wm[c] += 1.0f;
    wq[4 * c] += w;
    wq[4 * c + 1] += 1.0f;
    wq[4 * c + 2] += 2.0f;
    wq[4 * c + 3] += w + 3.0f;
    wpg[2 * c] += w;
    wpg[2 * c + 1] += 3.0f;
    wpm[c] += w * 0.5f;
  }
  CHECK(atomic_coalescing_create(NULL, &ctx));
  CHECK(atomic_coalescing_scatter(ctx, COUNT));
  CHECK(atomic_coalescing_g_read(ctx, g, 2 * N));
  CHECK(atomic_coalescing_m_read(ctx, m, N));
  CHECK(atomic_coalescing_q_read(ctx, q, 4 * N));
  CHECK(atomic_coalescing_pg_read(ctx, pg, 2 * CELLS));
  CHECK(atomic_coalescing_pm_read(ctx, pm, CELLS));
  int bad = 0;
  for (int k = 0; k < 2 * N; ++k)
    bad += g[k] != wg[k];
  for (int k = 0; k < N; ++k)
    bad += m[k] != wm[k];
  for (int k = 0; k < 4 * N; ++k)
    bad += q[k] != wq[k];
  for (int k = 0; k < 2 * CELLS; ++k)
    bad += pg[k] != wpg[k];
  for (int k = 0; k < CELLS; ++k)
    bad += pm[k] != wpm[k];
  EXPECT_TRUE(bad == 0);
  /* The sums are not trivially equal: a cell got thousands of additions. */
  EXPECT_TRUE(wg[1] > 1000.0f && wq[3] > 1000.0f && wpm[0] > 1000.0f);
  atomic_coalescing_destroy(ctx);
  return TEST_RESULT();
}

/* A push stencil over a pointer grid (see sparse_push.tc); expected values
 * and active blocks computed here. Every value is a small integer, exact in
 * f32 whatever the order of the atomic additions. */
#include "sparse_push.h"
#define LAST_ERROR sparse_push_last_error
#include "common.h"

enum { N = 64, B = 8, K = 300 };

int main(void) {
  static float x[N][N], y[N][N], gy[N * N];
  static int xb[N / B][N / B], yb[N / B][N / B];
  for (int t = 0; t < K; ++t) {
    int i = (t * 7) % 48 + 8, j = (t * 11) % 48 + 8;
    x[i][j] = (float)((i + 2 * j) % 5 + 1);
    xb[i / B][j / B] = 1;
  }
  /* Every element of every active block pushes (zeros too: a write
   * activates whatever it writes). */
  int di[] = {1, -1, 0, 0, 0}, dj[] = {0, 0, 1, -2, 0};
  float w[] = {1, 2, 3, 4, 1};
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      if (xb[i / B][j / B])
        for (int k = 0; k < 5; ++k) {
          int a = i + di[k], b = j + dj[k];
          y[a][b] += w[k] * x[i][j];
          yb[a / B][b / B] = 1;
        }
  int blocks = 0;
  for (int a = 0; a < N / B; ++a)
    for (int b = 0; b < N / B; ++b)
      blocks += xb[a][b] || yb[a][b];

  sparse_push_ctx *ctx = NULL;
  CHECK(sparse_push_create(NULL, &ctx));
  CHECK(sparse_push_seed(ctx, K));
  CHECK(sparse_push_push(ctx));
  CHECK(sparse_push_y_read(ctx, gy, N * N));
  int bad = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      bad += gy[i * N + j] != y[i][j];
  EXPECT_TRUE(bad == 0);
  int got = -1;
  CHECK(sparse_push_blocks(ctx, &got));
  EXPECT_TRUE(got == blocks);
  /* Pushes left the seeded blocks: some were activated by them alone. */
  int xblocks = 0;
  for (int a = 0; a < N / B; ++a)
    for (int b = 0; b < N / B; ++b)
      xblocks += xb[a][b];
  EXPECT_TRUE(blocks > xblocks);

  /* The far push, from every active block (x is 0 in those the pushes
   * activated). */
  static float z[N][N], gz[N * N];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      if ((xb[i / B][j / B] || yb[i / B][j / B]) && j >= 16)
        z[i][j - 16] += 5.0f * x[i][j];
  CHECK(sparse_push_push_far(ctx));
  CHECK(sparse_push_z_read(ctx, gz, N * N));
  CHECK(sparse_push_y_read(ctx, gy, N * N));
  bad = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      bad += gz[i * N + j] != z[i][j] || gy[i * N + j] != y[i][j];
  EXPECT_TRUE(bad == 0);
  sparse_push_destroy(ctx);
  return TEST_RESULT();
}

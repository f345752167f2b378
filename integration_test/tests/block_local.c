#include "block_local.h"
#define LAST_ERROR block_local_last_error
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 64, H0 = -16, H1 = 16 };

static float u[N * N], p[N * N * 2], q[N * N], a1[256], d[32 * 32];
static float uref[N * N], want[N * N], got[N * N];
static float hval[H1 - H0][H1 - H0];

/* Blocks init() activates (8 x 8 cells of u, 16 cells of a1). */
static int u_block(int i, int j) {
  return ((i / 8) * 7 + (j / 8) * 3) % 3 == 0;
}
static float U(int i, int j) {
  return i < 0 || i >= N || j < 0 || j >= N ? 0.0f : u[i * N + j];
}
static int floordiv(int a, int b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
/* The hash's blocks (4 x 4) that init() wrote a cell of. */
static int h_block(int bi, int bj) {
  int i, j;
  for (i = bi * 4; i < bi * 4 + 4; ++i)
    for (j = bj * 4; j < bj * 4 + 4; ++j)
      if (i >= -12 && i < 12 && j >= -8 && j < 16 && (i + j) % 5 != 0)
        return 1;
  return 0;
}
static float Hv(int i, int j) {
  return i < H0 || i >= H1 || j < H0 || j >= H1 ? 0.0f : hval[i - H0][j - H0];
}

int main(void) {
  block_local_ctx *ctx = NULL;
  int i, j, k;
  CHECK(block_local_create(NULL, &ctx));
  CHECK(block_local_init(ctx));
  /* The inputs as the module holds them (inactive cells read 0). */
  CHECK(block_local_u_read(ctx, u, N * N));
  CHECK(block_local_p_read(ctx, p, N * N * 2));
  CHECK(block_local_q_read(ctx, q, N * N));
  CHECK(block_local_a1_read(ctx, a1, 256));
  CHECK(block_local_d_read(ctx, d, 32 * 32));
  for (i = H0; i < H1; ++i)
    for (j = H0; j < H1; ++j)
      CHECK(block_local_h_get(ctx, i, j, &hval[i - H0][j - H0]));
  {
    int active = 0, nonzero = 0;
    for (i = 0; i < N; ++i)
      for (j = 0; j < N; ++j) {
        active += u_block(i, j);
        nonzero += u[i * N + j] != 0.0f;
        EXPECT_TRUE(u_block(i, j) || u[i * N + j] == 0.0f);
      }
    EXPECT_TRUE(active > N * N / 4 && active < N * N / 2 &&
                nonzero > active / 2);
  }

  /* The 5-point stencil: written in active blocks, inside the guard. */
  CHECK(block_local_stencil(ctx));
  CHECK(block_local_v_read(ctx, got, N * N));
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j)
      want[i * N + j] =
          u_block(i, j) && i > 0 && i < N - 1 && j > 0 && j < N - 1
              ? U(i - 1, j) + U(i + 1, j) + U(i, j - 1) + U(i, j + 1) -
                    4.0f * U(i, j)
              : 0.0f;
  compare_f32("stencil", got, want, N * N, 1e-6, 1e-6);

  /* The asymmetric footprint. */
  CHECK(block_local_skew(ctx));
  CHECK(block_local_w_read(ctx, got, N * N));
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      float s = 0.0f;
      if (i >= 2 && i < N - 1 && j < N - 3) {
        for (k = 0; k < 3; ++k)
          s += U(i - 2, j + k) * (float)(k + 1);
        if (U(i, j) > 0.0f)
          s += U(i + 1, j + 3);
      }
      want[i * N + j] = u_block(i, j) ? s : 0.0f;
    }
  compare_f32("skew", got, want, N * N, 1e-6, 1e-6);

  /* Vector components and a dense field. */
  CHECK(block_local_vec_and_other(ctx));
  CHECK(block_local_pv_read(ctx, got, N * N));
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      float s = 0.0f;
      if (u_block(i, j) && i > 0 && j < N - 1)
        s = p[((i - 1) * N + j) * 2 + 0] * p[(i * N + j + 1) * 2 + 1] +
            q[(i - 1) * N + j + 1] - q[i * N + j];
      want[i * N + j] = s;
    }
  compare_f32("vec_and_other", got, want, N * N, 1e-6, 1e-6);

  /* 1-D. */
  CHECK(block_local_smooth1d(ctx));
  CHECK(block_local_b1_read(ctx, got, 256));
  for (i = 0; i < 256; ++i)
    want[i] = (i / 16) % 3 != 1 && i > 0 && i < 255
                  ? 0.25f * a1[i - 1] + 0.5f * a1[i] + 0.25f * a1[i + 1]
                  : 0.0f;
  compare_f32("smooth1d", got, want, 256, 1e-6, 1e-6);

  /* Dense blocks. */
  CHECK(block_local_dense_blocks(ctx));
  CHECK(block_local_e_read(ctx, got, 32 * 32));
  for (i = 0; i < 32; ++i)
    for (j = 0; j < 32; ++j)
      want[i * 32 + j] = i > 0 && i < 31 && j > 0 && j < 31
                             ? d[(i + 1) * 32 + j - 1] -
                                   d[(i - 1) * 32 + j + 1] + d[i * 32 + j]
                             : 0.0f;
  compare_f32("dense_blocks", got, want, 32 * 32, 1e-6, 1e-6);

  /* The hash: every cell of an active block, absent neighbours 0. */
  CHECK(block_local_hash_stencil(ctx));
  {
    int bad = 0, cells = 0;
    for (i = H0; i < H1; ++i)
      for (j = H0; j < H1; ++j) {
        float g = -1.0f, w = 0.0f;
        CHECK(block_local_hv_get(ctx, i, j, &g));
        if (h_block(floordiv(i, 4), floordiv(j, 4))) {
          w = Hv(i - 1, j) + Hv(i + 1, j) + Hv(i, j - 1) + Hv(i, j + 1);
          ++cells;
        }
        check_close("hash_stencil", (size_t)((i - H0) * (H1 - H0) + j - H0), g,
                    w, 1e-6, 1e-6, &bad);
      }
    report_mismatches("hash_stencil", bad, (size_t)((H1 - H0) * (H1 - H0)));
    EXPECT_TRUE(cells > 100);
  }

  /* Bitmasked elements: mv written exactly at m's active cells. */
  {
    static float m[N * N];
    int bad = 0;
    CHECK(block_local_m_read(ctx, m, N * N));
    CHECK(block_local_sparse_cells(ctx));
    CHECK(block_local_mv_read(ctx, got, N * N));
    for (i = 0; i < N; ++i)
      for (j = 0; j < N; ++j) {
        int on = (i * 5 + j * 3) % 7 == 0 && (i / 8 + j / 8) % 2 == 0;
        float w = 0.0f;
        if (on && i > 0 && j < N - 1)
          w = m[(i - 1) * N + j] + 2.0f * m[i * N + j + 1] + 1.0f;
        check_close("sparse_cells", (size_t)(i * N + j), got[i * N + j], w,
                    1e-6, 1e-6, &bad);
      }
    report_mismatches("sparse_cells", bad, N * N);
  }

  /* Rows bounded by assume_in_range. */
  {
    static float acc2[N * N];
    memset(acc2, 0, sizeof acc2);
    memset(want, 0, sizeof want);
    for (i = 0; i < N; ++i)
      for (j = 0; j < N; ++j) {
        int r = i + (i * 7 + j * 3) % 5 - 2;
        if (u_block(i, j) && r >= 0 && r < N) {
          want[i * N + j] = U(r, j) * 0.5f + U(i, j);
          acc2[r * N + j] += U(i, j);
        }
      }
    CHECK(block_local_gather_scatter(ctx));
    CHECK(block_local_adv_read(ctx, got, N * N));
    compare_f32("gather", got, want, N * N, 1e-6, 1e-6);
    CHECK(block_local_acc2_read(ctx, got, N * N));
    compare_f32("scatter", got, acc2, N * N, 1e-5, 1e-5);
  }

  /* A reduction. */
  {
    float f = 0.0f;
    double ref = 0.0;
    k = 0;
    CHECK(block_local_flux(ctx, &f));
    for (i = 0; i < N - 1; ++i)
      for (j = 0; j < N; ++j)
        if (u_block(i, j))
          ref += (double)(U(i + 1, j) - U(i, j));
    check_close("flux", 0, f, ref, 1e-4, 1e-3, &k);
    EXPECT_TRUE(k == 0);
  }

  /* The scatter, twice: the second adds to the first's sums. */
  {
    static float acc[N * N];
    static int touched[N * N];
    int blocks = 0, got_blocks = -1, bi, bj;
    memset(acc, 0, sizeof acc);
    for (i = 0; i < N - 9; ++i)
      for (j = 1; j < N; ++j)
        if (u_block(i, j)) {
          acc[(i + 1) * N + j] += 2 * 0.5f * U(i, j);
          acc[i * N + j - 1] += 2 * U(i, j);
          acc[i * N + j] += 2.0f;
          touched[(i + 1) * N + j] = touched[i * N + j - 1] =
              touched[i * N + j] = 1;
          if (i % 8 == 0)
            touched[(i + 9) * N + j] = 1;
        }
    for (bi = 0; bi < N / 8; ++bi)
      for (bj = 0; bj < N / 8; ++bj) {
        int any = 0;
        for (i = bi * 8; i < bi * 8 + 8; ++i)
          for (j = bj * 8; j < bj * 8 + 8; ++j)
            any |= touched[i * N + j];
        blocks += any;
      }
    CHECK(block_local_push(ctx));
    CHECK(block_local_push(ctx));
    CHECK(block_local_acc_read(ctx, got, N * N));
    compare_f32("push", got, acc, N * N, 1e-5, 1e-5);
    CHECK(block_local_acc_blocks(ctx, &got_blocks));
    EXPECT_TRUE(got_blocks == blocks);
  }

  /* The hint that is dropped: u doubles in its active blocks. */
  memcpy(uref, u, sizeof u);
  CHECK(block_local_writes_hinted(ctx));
  CHECK(block_local_u_read(ctx, got, N * N));
  for (i = 0; i < N * N; ++i)
    want[i] = uref[i] * 2.0f;
  compare_f32("writes_hinted", got, want, N * N, 0, 0);

  block_local_destroy(ctx);
  return TEST_RESULT();
}

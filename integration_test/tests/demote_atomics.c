#include "demote_atomics.h"
#define LAST_ERROR demote_atomics_last_error
#include "common.h"

#define N DEMOTE_ATOMICS_CONST_N
#define GH DEMOTE_ATOMICS_CONST_GH
#define GW DEMOTE_ATOMICS_CONST_GW
#define M 4099

static float pos[N][2], force[N][2], want_force[N][2];
static int32_t near_[N];
static long long got_near[N], want_near[N];
static float g[GH][GW], gold[GH][GW], want_g[GH][GW], want_gold[GH][GW];
static int32_t pairs[N + 1], hist[16];
static long long got_i[N + 1], want_i[N + 1];
static float acc[M], want_acc[M];
static int32_t w[M];

int main(void) {
  demote_atomics_ctx *ctx = NULL;
  tc_options opts;
  tc_ndarray a, b;
  float total = 0.0f, s = 0.75f;
  int i, j, k;
  tc_options_init(&opts);
  opts.num_threads = 4; /* more than one thread even on a small machine */
  CHECK(demote_atomics_create(&opts, &ctx));

  /* forces: the same sums, in the same order, as the kernel */
  for (i = 0; i < N; ++i) {
    pos[i][0] = (float)((i * 37) % 101) / 101.0f;
    pos[i][1] = (float)((i * 53) % 97) / 97.0f;
    want_near[i] = 0;
  }
  for (i = 0; i < N; ++i) {
    float fx = 0.0f, fy = 0.0f;
    for (j = 0; j < N; ++j) {
      float dx, dy, r2, q;
      if (i == j)
        continue;
      dx = pos[j][0] - pos[i][0];
      dy = pos[j][1] - pos[i][1];
      r2 = dx * dx + dy * dy + 0.01f;
      q = r2 * sqrtf(r2);
      fx += dx / q;
      fy += dy / q;
      if (r2 < 0.05f && j > want_near[i])
        want_near[i] = j;
    }
    want_force[i][0] = fx;
    want_force[i][1] = fy;
  }
  CHECK(demote_atomics_pos_write(ctx, &pos[0][0], 2 * N));
  CHECK(demote_atomics_forces(ctx));
  CHECK(demote_atomics_force_read(ctx, &force[0][0], 2 * N));
  CHECK(demote_atomics_near_read(ctx, near_, N));
  compare_f32("force", &force[0][0], &want_force[0][0], 2 * N, 1e-4, 1e-3);
  for (i = 0; i < N; ++i)
    got_near[i] = near_[i];
  compare_i64("near", got_near, want_near, N);

  /* grid, twice: the second launch sees the first one's values */
  for (i = 0; i < GH; ++i)
    for (j = 0; j < GW; ++j)
      want_g[i][j] = 0.0f;
  for (k = 0; k < 2; ++k) {
    for (i = 0; i < GH; ++i)
      for (j = 0; j < GW; ++j) {
        want_gold[i][j] = want_g[i][j];
        want_g[i][j] += s * (float)(i - j);
        want_g[i][j] += 1.0f;
      }
    CHECK(demote_atomics_grid(ctx, s));
  }
  CHECK(demote_atomics_g_read(ctx, &g[0][0], GH * GW));
  CHECK(demote_atomics_gold_read(ctx, &gold[0][0], GH * GW));
  CHECK(demote_atomics_total_get(ctx, &total));
  compare_f32("g", &g[0][0], &want_g[0][0], GH * GW, 0, 0);
  compare_f32("gold", &gold[0][0], &want_gold[0][0], GH * GW, 0, 0);
  compare_f32("total", &total, &(float){2 * s}, 1, 0, 0);

  /* shared counts: exact with atomics */
  CHECK(demote_atomics_shared_counts(ctx));
  CHECK(demote_atomics_pairs_read(ctx, pairs, N + 1));
  for (i = 0; i <= N; ++i) {
    got_i[i] = pairs[i];
    want_i[i] = (i < N) + (i > 0);
  }
  compare_i64("pairs", got_i, want_i, N + 1);
  CHECK(demote_atomics_hist_read(ctx, hist, 16));
  for (i = 0; i < 16; ++i) {
    got_i[i] = hist[i];
    want_i[i] = N / 16 + (i < N % 16);
  }
  compare_i64("hist", got_i, want_i, 16);

  /* ndarrays */
  for (i = 0; i < M; ++i) {
    acc[i] = want_acc[i] = (float)(i % 7);
    w[i] = i % 13 - 6;
    for (k = 0; k < 5; ++k)
      want_acc[i] += (float)(w[i] * k);
  }
  memset(&a, 0, sizeof a);
  a.data = acc;
  a.ndim = 1;
  a.shape[0] = M;
  a.dtype = TC_DTYPE_F32;
  b = a;
  b.data = w;
  b.dtype = TC_DTYPE_I32;
  CHECK(demote_atomics_weights(ctx, a, b));
  compare_f32("acc", acc, want_acc, M, 0, 0);

  demote_atomics_destroy(ctx);
  return TEST_RESULT();
}

/* Demoted and atomic field updates against a plain C reference, on the
 * default number of threads. */
#include "atomic_demotion.h"
#define LAST_ERROR atomic_demotion_last_error
#include "common.h"

#define N ATOMIC_DEMOTION_CONST_N
#define Q ATOMIC_DEMOTION_CONST_Q

int main(void) {
  atomic_demotion_ctx *ctx = NULL;
  static float pos[N * 2], force[N * 2], pop[N * Q], rho[N], peak[2 * N + 1];
  static float wf[N * 2], wrho[N], wpeak[2 * N + 1];
  static int32_t hist[16];
  long long gh[16], wh[16];
  int i, j, k;
  for (i = 0; i < N; ++i) {
    pos[2 * i] = (float)((i * 37) % N) / N;
    pos[2 * i + 1] = (float)((i * 91) % N) / N;
    for (k = 0; k < Q; ++k)
      pop[i * Q + k] = (float)((i + 3 * k) % 17) * 0.125f;
  }
  CHECK(atomic_demotion_create(NULL, &ctx));
  CHECK(atomic_demotion_pos_write(ctx, pos, N * 2));
  CHECK(atomic_demotion_pop_write(ctx, pop, N * Q));
  /* Two launches: the updates accumulate on what the first one left. */
  CHECK(atomic_demotion_accumulate(ctx));
  CHECK(atomic_demotion_accumulate(ctx));
  CHECK(atomic_demotion_force_read(ctx, force, N * 2));
  CHECK(atomic_demotion_rho_read(ctx, rho, N));
  CHECK(atomic_demotion_peak_read(ctx, peak, 2 * N + 1));
  CHECK(atomic_demotion_hist_read(ctx, hist, 16));
  memset(wf, 0, sizeof wf);
  memset(wrho, 0, sizeof wrho);
  memset(wpeak, 0, sizeof wpeak);
  for (k = 0; k < 16; ++k)
    wh[k] = 2 * (N / 16);
  for (int rep = 0; rep < 2; ++rep)
    for (i = 0; i < N; ++i) {
      for (j = 0; j < N; ++j) {
        float dx = pos[2 * j] - pos[2 * i],
              dy = pos[2 * j + 1] - pos[2 * i + 1];
        float s = dx * dx + dy * dy + 0.01f;
        wf[2 * i] += dx / s;
        wf[2 * i + 1] += dy / s;
      }
      for (k = 0; k < Q; ++k)
        wrho[i] += pop[i * Q + k];
      if (wrho[i] > wpeak[2 * i + 1])
        wpeak[2 * i + 1] = wrho[i];
    }
  for (k = 0; k < 16; ++k)
    gh[k] = hist[k];
  /* The same operations in the same order per cell: bit-identical. */
  compare_f32("force", force, wf, N * 2, 0, 0);
  compare_f32("rho", rho, wrho, N, 0, 0);
  compare_f32("peak", peak, wpeak, 2 * N + 1, 0, 0);
  compare_i64("hist", gh, wh, 16);
  atomic_demotion_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("atomic_demotion: all values match\n");
  return 0;
}

/* bench/gpu/gpu_sparse_diffusion.c - the sparse diffusion
 * (bench/sparse_diffusion.tc: a 2048^2 grid of 16x16 pointer blocks, 1% and
 * 10% of them active) on the GPU: the time of two steps (u -> v -> u, two
 * struct-fors over the active blocks) on a TC_ARCH_CUDA context, beside the
 * same object on the CPU (every core of the machine), and a check that both
 * give the same grid after 20 steps (no atomics, CPU-equal numerics: bit for
 * bit). Then the steps with block_local (each block's footprint in shared
 * memory), which must give the same grid too. */
#include "gpu_common.h"
#include "sparse_diffusion.h"

#include <math.h>
#include <stdlib.h>

#define N SPARSE_DIFFUSION_CONST_N

/* Median seconds per two steps (9 samples of `reps`), after 20 steps from
 * the initial state, whose grid u is left in `u`. */
static tc_status step(sparse_diffusion_ctx *c, int bls) {
  tc_status s =
      bls ? sparse_diffusion_step_uv_bls(c) : sparse_diffusion_step_uv(c);
  if (s != TC_OK)
    return s;
  return bls ? sparse_diffusion_step_vu_bls(c) : sparse_diffusion_step_vu(c);
}

static double run(tc_arch arch, int pct, int reps, float *u, int bls) {
  tc_options o;
  tc_options_init(&o);
  o.arch = arch;
  sparse_diffusion_ctx *c;
  CHECK(sparse_diffusion_create(&o, &c), NULL, sparse_diffusion_last_error);
  CHECK(sparse_diffusion_init(c, pct), c, sparse_diffusion_last_error);
  for (int i = 0; i < 10; ++i)
    CHECK(step(c, bls), c, sparse_diffusion_last_error);
  CHECK(sparse_diffusion_u_read(c, u, (int64_t)N * N), c,
        sparse_diffusion_last_error);
  double t[9];
  for (int r = 0; r < 9; ++r) {
    double t0 = now_s();
    for (int i = 0; i < reps; ++i)
      CHECK(step(c, bls), c, sparse_diffusion_last_error);
    CHECK(sparse_diffusion_sync(c), c, sparse_diffusion_last_error);
    t[r] = (now_s() - t0) / reps;
  }
  sparse_diffusion_destroy(c);
  return median(t, 9);
}

int main(void) {
  if (device_copy_bandwidth() <= 0) {
    printf("SKIP: no CUDA device\n");
    return 0;
  }
  float *ug = malloc(sizeof(float) * N * N);
  float *uc = malloc(sizeof(float) * N * N);
  float *ub = malloc(sizeof(float) * N * N);
  if (!ug || !uc || !ub)
    return 1;
  int bad = 0;
  for (int pct = 1; pct <= 10; pct += 9) {
    double gpu = run(TC_ARCH_CUDA, pct, 50, ug, 0);
    double cpu = run(TC_ARCH_CPU, pct, 10, uc, 0);
    double bls = run(TC_ARCH_CUDA, pct, 50, ub, 1);
    size_t differ = 0, differBls = 0;
    double sum = 0;
    for (size_t k = 0; k < (size_t)N * N; ++k) {
      differ += ug[k] != uc[k];
      differBls += ub[k] != uc[k];
      sum += uc[k];
    }
    printf("sparse_diffusion %2d%% of %d^2: GPU %8.1f us per 2 steps, CPU "
           "(all cores) %9.1f us, GPU speed-up %6.1fx; after 20 steps %zu "
           "of %d values differ (sum %.3f)%s\n",
           pct, N, gpu * 1e6, cpu * 1e6, cpu / gpu, differ, N * N, sum,
           differ == 0 && sum > 0 ? "" : "  MISMATCH");
    printf("sparse_diffusion %2d%% with block_local: GPU %8.1f us per 2 steps "
           "(%.2fx the time without); after 20 steps %zu values differ%s\n",
           pct, bls * 1e6, bls / gpu, differBls,
           differBls == 0 ? "" : "  MISMATCH");
    bad += differ != 0 || differBls != 0 || !(sum > 0);
  }
  free(ug);
  free(uc);
  free(ub);
  return bad ? 1 : 0;
}

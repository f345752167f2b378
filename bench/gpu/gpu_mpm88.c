/* bench/gpu/gpu_mpm88.c - mpm88 (bench/mpm88.tc) on the GPU: the time of one
 * substep (4 launches) on a TC_ARCH_CUDA context, beside the same object on
 * the CPU (every core of the machine) for the speed-up, and a check that
 * both stay close (atomics add in a different order, so not bit for bit:
 * the mean particle position after 50 substeps within 1e-3). Sizes come
 * from the module's -D n_particles / n_grid / dt. */
#include "gpu_common.h"

/* GPU_MPM_SPARSE: the same over bench/mpm_sparse.tc, whose grid is a
 * pointer SNode of 8x8 blocks activated by the particles each substep. */
/* GPU_MPM_SPARSE_BLS: bench/gpu/mpm_sparse_bls.tc, the sparse grid with the
 * particles binned per block and P2G / G2P over the lists with block_local
 * (shared memory). */
#if defined(GPU_MPM_SPARSE_BLS)
#include "mpm_sparse_bls.h"
#define MPM(x) mpm_sparse_bls_##x
#define MPM_N_PARTICLES MPM_SPARSE_BLS_CONST_N_PARTICLES
#define MPM_N_GRID MPM_SPARSE_BLS_CONST_N_GRID
#define MPM_NAME "mpm_sparse_bls"
typedef mpm_sparse_bls_ctx mpm_ctx;
#elif defined(GPU_MPM_SPARSE)
#include "mpm_sparse.h"
#define MPM(x) mpm_sparse_##x
#define MPM_N_PARTICLES MPM_SPARSE_CONST_N_PARTICLES
#define MPM_N_GRID MPM_SPARSE_CONST_N_GRID
#define MPM_NAME "mpm_sparse"
typedef mpm_sparse_ctx mpm_ctx;
#else
#include "mpm88.h"
#define MPM(x) mpm88_##x
#define MPM_N_PARTICLES MPM88_CONST_N_PARTICLES
#define MPM_N_GRID MPM88_CONST_N_GRID
#define MPM_NAME "mpm88"
typedef mpm88_ctx mpm_ctx;
#endif

#include <math.h>
#include <string.h>

#define NP MPM_N_PARTICLES

static float X[2 * NP], V[2 * NP], J[NP], C[4 * NP];

static void init(mpm_ctx *c) {
  uint64_t s = 12345;
  for (int p = 0; p < NP; ++p) {
    for (int k = 0; k < 2; ++k) {
      uint64_t z = (s += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      X[2 * p + k] = (float)(z >> 40) * (1.0f / 16777216.0f) * 0.4f + 0.2f;
    }
    V[2 * p] = 0.0f;
    V[2 * p + 1] = -1.0f;
    J[p] = 1.0f;
  }
  memset(C, 0, sizeof(C));
  CHECK(MPM(x_write)(c, X, 2 * NP), c, MPM(last_error));
  CHECK(MPM(v_write)(c, V, 2 * NP), c, MPM(last_error));
  CHECK(MPM(J_write)(c, J, NP), c, MPM(last_error));
  CHECK(MPM(C_write)(c, C, 4 * NP), c, MPM(last_error));
}

/* Median seconds per substep (samples of `steps` substeps, then a sync),
 * and the mean x and y after 50 substeps from the initial state. */
static double run(tc_arch arch, int steps, double mean[2]) {
  tc_options o;
  tc_options_init(&o);
  o.arch = arch;
  mpm_ctx *c;
  CHECK(MPM(create)(&o, &c), NULL, MPM(last_error));
  init(c);
  for (int i = 0; i < 50; ++i)
    CHECK(MPM(substep)(c), c, MPM(last_error));
  CHECK(MPM(x_read)(c, X, 2 * NP), c, MPM(last_error));
  mean[0] = mean[1] = 0;
  for (int p = 0; p < NP; ++p) {
    mean[0] += X[2 * p] / NP;
    mean[1] += X[2 * p + 1] / NP;
  }
  double t[9];
  for (int r = 0; r < 9; ++r) {
    double t0 = now_s();
    for (int i = 0; i < steps; ++i)
      CHECK(MPM(substep)(c), c, MPM(last_error));
    CHECK(MPM(sync)(c), c, MPM(last_error));
    t[r] = (now_s() - t0) / steps;
  }
  MPM(destroy)(c);
  return median(t, 9);
}

int main(void) {
  if (device_copy_bandwidth() <= 0) {
    printf("SKIP: no CUDA device\n");
    return 0;
  }
  double mg[2], mc[2];
  double gpu = run(TC_ARCH_CUDA, 50, mg);
  double cpu = run(TC_ARCH_CPU, NP >= 500000 ? 2 : 10, mc);
  double d = fabs(mg[0] - mc[0]) + fabs(mg[1] - mc[1]);
  printf("%-10s %7d particles, %4d^2 grid: GPU %8.1f us/substep, CPU (all "
         "cores) %9.1f us/substep, GPU speed-up %6.1fx; mean x after 50 "
         "substeps GPU (%.5f, %.5f) CPU (%.5f, %.5f)%s\n",
         MPM_NAME, NP, MPM_N_GRID, gpu * 1e6, cpu * 1e6, cpu / gpu, mg[0],
         mg[1], mc[0], mc[1], d < 1e-3 ? "" : "  MISMATCH");
  return d < 1e-3 ? 0 : 1;
}

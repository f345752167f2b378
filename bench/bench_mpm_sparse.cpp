// bench/bench_mpm_sparse.cpp - bench/mpm_sparse.tc (mpm88 on a pointer grid
// of 8x8-node blocks, freed every substep) against a hand-written C++/OpenMP
// sparse grid running the same algorithm: a slot per block, a block taken
// from a preallocated pool on the first scatter into it (compare-and-swap;
// a loser keeps its block for its next allocation), every slot reset and
// the pool rewound at the start of a substep, the grid update over the
// allocated blocks, G2P reading 0 from missing ones. The constants come
// from the build (-DMPM_NP=..., -DMPM_NG=..., -DMPM_DT=...).
#include "common.h"
#include "mpm_sparse.h"

#include <atomic>
#include <cstdint>
#include <cstring>

using namespace bench;

#ifndef MPM_NP
#define MPM_NP 8192
#endif
#ifndef MPM_NG
#define MPM_NG 128
#endif
#ifndef MPM_DT
#define MPM_DT 2e-4
#endif

namespace {

/// Quadratic B-spline weights of the 3x3 stencil (MLS-MPM, as in mpm88.tc).
inline void bspline(float f, float w[3]) {
  w[0] = 0.5f * (1.5f - f) * (1.5f - f);
  w[1] = 0.75f - (f - 1.0f) * (f - 1.0f);
  w[2] = 0.5f * (f - 0.5f) * (f - 0.5f);
}

struct Ref {
  static constexpr int np = MPM_NP, ng = MPM_NG, bound = 3, B = 8,
                       nb = MPM_NG / 8;
  const float dx = (float)(1.0 / ng);
  const float dt = (float)MPM_DT;
  const float p_vol = (float)((0.5 / ng) * (0.5 / ng));
  const float p_mass = p_vol * 1.0f;
  const float gravity = 9.8f, E = 400.0f;
  struct Block {
    float v[B * B * 2];
    float m[B * B];
  };
  std::vector<float> x, v, C, J;
  std::vector<std::atomic<Block *>> slots;
  std::vector<Block> pool;
  std::atomic<int> used{0};
  Ref()
      : x(2 * np), v(2 * np), C(4 * np), J(np), slots(nb * nb),
        pool(nb * nb + 64) {
    for (auto &s : slots)
      s.store(nullptr);
  }

  /// The block of slot `s`, allocated (zeroed) on first use.
  Block *activate(int s, Block *&spare) {
    Block *b = slots[s].load(std::memory_order_acquire);
    if (b)
      return b;
    Block *fresh = spare;
    if (!fresh) {
      fresh = &pool[used.fetch_add(1, std::memory_order_relaxed)];
      std::memset(fresh, 0, sizeof(Block));
    }
    spare = nullptr;
    if (slots[s].compare_exchange_strong(b, fresh, std::memory_order_acq_rel,
                                         std::memory_order_acquire))
      return fresh;
    spare = fresh; // lost the race: keep it for the next allocation
    return b;
  }

  void substep() {
    float *x = this->x.data(), *v = this->v.data(), *C = this->C.data(),
          *J = this->J.data();
    const float dx = this->dx, dt = this->dt, p_vol = this->p_vol,
                p_mass = this->p_mass;
#pragma omp parallel for schedule(static)
    for (int s = 0; s < nb * nb; ++s)
      slots[s].store(nullptr, std::memory_order_relaxed);
    used.store(0);
#pragma omp parallel
    {
      Block *spare = nullptr;
#pragma omp for schedule(static)
      for (int p = 0; p < np; ++p) {
        float X0 = x[2 * p] / dx, X1 = x[2 * p + 1] / dx;
        int b0 = (int)(X0 - 0.5f), b1 = (int)(X1 - 0.5f);
        float f0 = X0 - b0, f1 = X1 - b1;
        float w0[3], w1[3];
        bspline(f0, w0);
        bspline(f1, w1);
        float stress = -dt * 4.0f * E * p_vol * (J[p] - 1.0f) / (dx * dx);
        float a00 = stress + p_mass * C[4 * p], a01 = p_mass * C[4 * p + 1];
        float a10 = p_mass * C[4 * p + 2], a11 = stress + p_mass * C[4 * p + 3];
        float mv0 = p_mass * v[2 * p], mv1 = p_mass * v[2 * p + 1];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            float d0 = (i - f0) * dx, d1 = (j - f1) * dx;
            float wt = w0[i] * w1[j];
            int gi = b0 + i, gj = b1 + j;
            Block *blk = activate((gi / B) * nb + gj / B, spare);
            int k = (gi % B) * B + gj % B;
            float add0 = wt * (mv0 + a00 * d0 + a01 * d1);
            float add1 = wt * (mv1 + a10 * d0 + a11 * d1);
            float addm = wt * p_mass;
#pragma omp atomic
            blk->v[2 * k] += add0;
#pragma omp atomic
            blk->v[2 * k + 1] += add1;
#pragma omp atomic
            blk->m[k] += addm;
          }
      }
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (int s = 0; s < nb * nb; ++s) {
      Block *blk = slots[s].load(std::memory_order_relaxed);
      if (!blk)
        continue;
      for (int a = 0; a < B; ++a)
        for (int c = 0; c < B; ++c) {
          int i = (s / nb) * B + a, j = (s % nb) * B + c, k = a * B + c;
          float g0 = blk->v[2 * k], g1 = blk->v[2 * k + 1], m = blk->m[k];
          if (m > 0) {
            g0 /= m;
            g1 /= m;
          }
          g1 -= dt * gravity;
          if (i < bound && g0 < 0)
            g0 = 0;
          if (i > ng - bound && g0 > 0)
            g0 = 0;
          if (j < bound && g1 < 0)
            g1 = 0;
          if (j > ng - bound && g1 > 0)
            g1 = 0;
          blk->v[2 * k] = g0;
          blk->v[2 * k + 1] = g1;
        }
    }
#pragma omp parallel for schedule(static)
    for (int p = 0; p < np; ++p) {
      float X0 = x[2 * p] / dx, X1 = x[2 * p + 1] / dx;
      int b0 = (int)(X0 - 0.5f), b1 = (int)(X1 - 0.5f);
      float f0 = X0 - b0, f1 = X1 - b1;
      float w0[3], w1[3];
      bspline(f0, w0);
      bspline(f1, w1);
      float nv0 = 0, nv1 = 0, c00 = 0, c01 = 0, c10 = 0, c11 = 0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          float d0 = (i - f0) * dx, d1 = (j - f1) * dx;
          float wt = w0[i] * w1[j];
          int gi = b0 + i, gj = b1 + j;
          Block *blk =
              slots[(gi / B) * nb + gj / B].load(std::memory_order_relaxed);
          int k = (gi % B) * B + gj % B;
          float g0 = blk ? blk->v[2 * k] : 0.0f;
          float g1 = blk ? blk->v[2 * k + 1] : 0.0f;
          nv0 += wt * g0;
          nv1 += wt * g1;
          float s = 4.0f * wt / (dx * dx);
          c00 += s * g0 * d0;
          c01 += s * g0 * d1;
          c10 += s * g1 * d0;
          c11 += s * g1 * d1;
        }
      v[2 * p] = nv0;
      v[2 * p + 1] = nv1;
      x[2 * p] += dt * nv0;
      x[2 * p + 1] += dt * nv1;
      J[p] *= 1.0f + dt * (c00 + c11);
      C[4 * p] = c00;
      C[4 * p + 1] = c01;
      C[4 * p + 2] = c10;
      C[4 * p + 3] = c11;
    }
  }
};

// Taichi's mpm88 initial state: a block in [0.2, 0.6]^2 falling at 1 m/s.
// Deterministic (splitmix64), so ours and the reference start equal.
void initState(Ref &r) {
  uint64_t s = 12345;
  auto rnd = [&s] {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
  };
  for (int p = 0; p < Ref::np; ++p) {
    r.x[2 * p] = rnd() * 0.4f + 0.2f;
    r.x[2 * p + 1] = rnd() * 0.4f + 0.2f;
    r.v[2 * p] = 0.0f;
    r.v[2 * p + 1] = -1.0f;
    r.J[p] = 1.0f;
  }
  std::fill(r.C.begin(), r.C.end(), 0.0f);
}

void upload(mpm_sparse_ctx *ctx, const Ref &r) {
  TC_CHECK(ctx, mpm_sparse_last_error,
           mpm_sparse_x_write(ctx, r.x.data(), r.x.size()));
  TC_CHECK(ctx, mpm_sparse_last_error,
           mpm_sparse_v_write(ctx, r.v.data(), r.v.size()));
  TC_CHECK(ctx, mpm_sparse_last_error,
           mpm_sparse_C_write(ctx, r.C.data(), r.C.size()));
  TC_CHECK(ctx, mpm_sparse_last_error,
           mpm_sparse_J_write(ctx, r.J.data(), r.J.size()));
}

} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("mpm_sparse", args);
  const int substeps = 20; // per timed run
  std::printf("# %d particles, %dx%d grid in %dx%d pointer blocks of 8x8, dt "
              "%g, %d substeps per timed run\n",
              Ref::np, Ref::ng, Ref::ng, Ref::nb, Ref::nb, (double)MPM_DT,
              substeps);

  tc_options opts = ticOptions(args);
  mpm_sparse_ctx *ctx = nullptr;
  if (mpm_sparse_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "mpm_sparse_create: %s\n",
                 mpm_sparse_last_error(nullptr));
    return 1;
  }
  Ref ref;
  initState(ref);
  upload(ctx, ref);

  // Correctness: 10 substeps each from the same state. Atomic float adds
  // in a different order make the sums differ in the last bits; compare
  // positions and velocities.
  const int checkSteps = 10;
  for (int s = 0; s < checkSteps; ++s) {
    TC_CHECK(ctx, mpm_sparse_last_error, mpm_sparse_substep(ctx));
    ref.substep();
  }
  std::vector<float> xo(2 * Ref::np), vo(2 * Ref::np);
  TC_CHECK(ctx, mpm_sparse_last_error,
           mpm_sparse_x_read(ctx, xo.data(), xo.size()));
  TC_CHECK(ctx, mpm_sparse_last_error,
           mpm_sparse_v_read(ctx, vo.data(), vo.size()));
  double errX = maxAbsErr(xo.data(), ref.x.data(), xo.size());
  double errV = maxAbsErr(vo.data(), ref.v.data(), vo.size());
  std::printf("# mpm_sparse: after %d substeps max abs error x %.3g, v %.3g\n",
              checkSteps, errX, errV);
  checkErr("mpm_sparse x", errX, 1e-4);
  checkErr("mpm_sparse v", errV, 1e-2);

  // Timing: both continue from the same state for the same number of
  // substeps, so they see the same particle distribution.
  Pair tm = medianPairMs(
      args,
      [&] {
        for (int s = 0; s < substeps; ++s)
          mpm_sparse_substep(ctx);
      },
      [&] {
        for (int s = 0; s < substeps; ++s)
          ref.substep();
      });
  double ours = tm.ours, refMs = tm.ref;
  char variant[32], extra[64];
  std::snprintf(variant, sizeof variant, "np=%d", Ref::np);
  std::snprintf(extra, sizeof extra, "substeps_per_run=%d", substeps);
  result("mpm_sparse", variant, ours / substeps, refMs / substeps, errX, 0,
         extra);
  mpm_sparse_destroy(ctx);
  return 0;
}

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

#include "mpm_harness.h"

namespace {

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

} // namespace

#define MPM_NAME "mpm_sparse"
#define MPM_FN(f) mpm_sparse_##f
#define MPM_GRID_NOTE " in pointer blocks of 8x8"
#define MPM_HARNESS_MAIN
#include "mpm_harness.h"

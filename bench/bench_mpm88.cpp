// bench/bench_mpm88.cpp - MLS-MPM 88-line fluid (Taichi's mpm88.py): one
// substep = clear grid + P2G (atomic scatter) + grid update + G2P.
// tic vs C++/OpenMP. The constants come from the build (-DMPM_NP=...,
// -DMPM_NG=..., -DMPM_DT=...), the same values passed to tic with -D.
#include "common.h"
#include "mpm88.h"

#include <cstdint>

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
  static constexpr int np = MPM_NP, ng = MPM_NG, bound = 3;
  const float dx = (float)(1.0 / ng);
  const float dt = (float)MPM_DT;
  const float p_vol = (float)((0.5 / ng) * (0.5 / ng));
  const float p_mass = p_vol * 1.0f;
  const float gravity = 9.8f, E = 400.0f;
  std::vector<float> x, v, C, J, gv, gm;
  Ref() : x(2 * np), v(2 * np), C(4 * np), J(np), gv(2 * ng * ng), gm(ng * ng) {}

  void substep() {
    float *x = this->x.data(), *v = this->v.data(), *C = this->C.data(),
          *J = this->J.data(), *gv = this->gv.data(), *gm = this->gm.data();
    const float dx = this->dx, dt = this->dt, p_vol = this->p_vol,
                p_mass = this->p_mass;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < ng * ng; ++k) {
      gv[2 * k] = gv[2 * k + 1] = 0.0f;
      gm[k] = 0.0f;
    }
#pragma omp parallel for schedule(static)
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
          int k = (b0 + i) * ng + (b1 + j);
          float add0 = wt * (mv0 + a00 * d0 + a01 * d1);
          float add1 = wt * (mv1 + a10 * d0 + a11 * d1);
          float addm = wt * p_mass;
#pragma omp atomic
          gv[2 * k] += add0;
#pragma omp atomic
          gv[2 * k + 1] += add1;
#pragma omp atomic
          gm[k] += addm;
        }
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < ng; ++i)
      for (int j = 0; j < ng; ++j) {
        int k = i * ng + j;
        float g0 = gv[2 * k], g1 = gv[2 * k + 1];
        if (gm[k] > 0) {
          g0 /= gm[k];
          g1 /= gm[k];
        }
        g1 -= dt * gravity;
        if (i < bound && g0 < 0) g0 = 0;
        if (i > ng - bound && g0 > 0) g0 = 0;
        if (j < bound && g1 < 0) g1 = 0;
        if (j > ng - bound && g1 > 0) g1 = 0;
        gv[2 * k] = g0;
        gv[2 * k + 1] = g1;
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
          int k = (b0 + i) * ng + (b1 + j);
          float g0 = gv[2 * k], g1 = gv[2 * k + 1];
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

#define MPM_NAME "mpm88"
#define MPM_FN(f) mpm88_##f
#define MPM_GRID_NOTE ""
#define MPM_HARNESS_MAIN
#include "mpm_harness.h"

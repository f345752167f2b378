// bench/bench_diffmpm.cpp - differentiable MLS-MPM (examples/diffmpm): the
// forward pass and the forward + backward pass (the gradient of the loss
// with respect to the initial velocity, the grid recomputed per step as in
// DiffTaichi's appendix D), tic's generated adjoints against a hand-written
// C++/OpenMP adjoint of the same substep. Also prints backward / forward
// for both (DiffTaichi: "about the cost of the forward pass").
//
// The module is examples/diffmpm/diffmpm.tc built with -D steps=DMPM_STEPS.
#include "common.h"
#include "diffmpm.h"

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

using namespace bench;

#ifndef DMPM_STEPS
#define DMPM_STEPS 65
#endif

namespace {

constexpr int kSide = 64, kNP = kSide * kSide, kSteps = DMPM_STEPS, kNG = 64,
              kBound = 3;
constexpr float kDx = 1.0f / kNG, kInvDx = (float)kNG, kDt = 1e-3f,
                kPVol = 1.0f, kMass = 1.0f, kE = 10.0f, kMu = kE, kLa = kE,
                kGravity = 3.8f, kCoeff = 0.5f;
const float kTarget[2] = {0.7f, 0.25f};

using M2 = std::array<float, 4>; // row-major 2x2

inline M2 mul(const M2 &a, const M2 &b) {
  return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
          a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
}
inline M2 transpose(const M2 &a) { return {a[0], a[2], a[1], a[3]}; }

// Quadratic B-spline weights and their derivatives in fx.
inline void weights(float fx, float w[3], float dw[3]) {
  w[0] = 0.5f * (1.5f - fx) * (1.5f - fx);
  w[1] = 0.75f - (fx - 1.0f) * (fx - 1.0f);
  w[2] = 0.5f * (fx - 0.5f) * (fx - 0.5f);
  dw[0] = fx - 1.5f;
  dw[1] = -2.0f * (fx - 1.0f);
  dw[2] = fx - 0.5f;
}

// The 3x3 grid nodes around a particle: base node, fractional position,
// B-spline weights per axis and their derivatives.
struct Stencil {
  int base[2];
  float fx[2], w[2][3], dw[2][3];
  explicit Stencil(const float *xp) {
    for (int d = 0; d < 2; ++d) {
      float X = xp[d] * kInvDx;
      base[d] = (int)(X - 0.5f);
      fx[d] = X - base[d];
      weights(fx[d], w[d], dw[d]);
    }
  }
};

// Taichi's 2x2 polar decomposition (the rotation part), and its adjoint.
struct Polar {
  M2 B, r;
  float sgnB, k; // sign of det B, 1 / sqrt(|det B|)
  bool neg;      // det A < 0
  explicit Polar(const M2 &a) {
    neg = a[0] * a[3] - a[2] * a[1] < 0;
    B = neg ? M2{a[0] - a[3], a[1] + a[2], a[2] + a[1], a[3] - a[0]}
            : M2{a[0] + a[3], a[1] - a[2], a[2] - a[1], a[3] + a[0]};
    float d = B[0] * B[3] - B[2] * B[1];
    sgnB = d < 0 ? -1.0f : 1.0f;
    k = 1.0f / std::sqrt(std::fabs(d));
    for (int i = 0; i < 4; ++i)
      r[i] = B[i] * k;
  }
  // dL/dA from dL/dr
  M2 adjoint(const M2 &gr) const {
    float gk = 0;
    M2 gB;
    for (int i = 0; i < 4; ++i) {
      gB[i] = gr[i] * k;
      gk += gr[i] * B[i];
    }
    // k = |d|^-1/2: dk/d|d| = -k^3 / 2
    float gd = gk * (-0.5f * k * k * k) * sgnB;
    gB[0] += gd * B[3];
    gB[3] += gd * B[0];
    gB[1] -= gd * B[2];
    gB[2] -= gd * B[1];
    if (neg)
      return {gB[0] - gB[3], gB[1] + gB[2], gB[2] + gB[1], gB[3] - gB[0]};
    return {gB[0] + gB[3], gB[1] - gB[2], gB[2] - gB[1], gB[3] + gB[0]};
  }
};

struct Ref {
  // State history and adjoints: [step][particle][component].
  std::vector<float> x, v, C, F, gx, gv, gC, gF;
  std::vector<float> gvin, gmin, gvout, ggvin, ggmin, ggvout; // grid + adjoints
  float initV[2] = {0, 0}, gInitV[2] = {0, 0}, loss = 0;

  Ref()
      : x(2 * kNP * kSteps), v(2 * kNP * kSteps), C(4 * kNP * kSteps),
        F(4 * kNP * kSteps), gx(x.size()), gv(v.size()), gC(C.size()),
        gF(F.size()), gvin(2 * kNG * kNG), gmin(kNG * kNG),
        gvout(2 * kNG * kNG), ggvin(gvin.size()), ggmin(gmin.size()),
        ggvout(gvout.size()) {}

  void init() {
#pragma omp parallel for schedule(static)
    for (int p = 0; p < kNP; ++p) {
      int i = p / kSide, j = p % kSide;
      x[2 * p] = 0.1f + 0.15f * i / kSide;
      x[2 * p + 1] = 0.2f + 0.15f * j / kSide;
      v[2 * p] = initV[0];
      v[2 * p + 1] = initV[1];
      F[4 * p] = F[4 * p + 3] = 1.0f;
      F[4 * p + 1] = F[4 * p + 2] = 0.0f;
      for (int c = 0; c < 4; ++c)
        C[4 * p + c] = 0.0f;
    }
  }

  void clearGrid() {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < kNG * kNG; ++k) {
      gvin[2 * k] = gvin[2 * k + 1] = gmin[k] = 0;
      gvout[2 * k] = gvout[2 * k + 1] = 0;
      ggvin[2 * k] = ggvin[2 * k + 1] = ggmin[k] = 0;
      ggvout[2 * k] = ggvout[2 * k + 1] = 0;
    }
  }

  // Everything p2g computes for one particle.
  struct P2G : Stencil {
    M2 M, Fn, A;
    float J;
    Polar polar;
    P2G(const float *xp, const float *Cp, const float *Fp)
        : Stencil(xp), polar(step(Cp, Fp)) {
      M2 cauchy = stressOf();
      const float kst = kDt * kPVol * 4 * kInvDx * kInvDx;
      for (int i = 0; i < 4; ++i)
        A[i] = -kst * cauchy[i] + kMass * Cp[i];
    }
    M2 step(const float *Cp, const float *Fp) {
      M = {1 + kDt * Cp[0], kDt * Cp[1], kDt * Cp[2], 1 + kDt * Cp[3]};
      Fn = mul(M, M2{Fp[0], Fp[1], Fp[2], Fp[3]});
      J = Fn[0] * Fn[3] - Fn[2] * Fn[1];
      return Fn;
    }
    M2 stressOf() const {
      M2 d = {Fn[0] - polar.r[0], Fn[1] - polar.r[1], Fn[2] - polar.r[2],
              Fn[3] - polar.r[3]};
      M2 c = mul(d, transpose(Fn));
      for (int i = 0; i < 4; ++i)
        c[i] *= 2 * kMu;
      c[0] += kLa * (J - 1) * J;
      c[3] += kLa * (J - 1) * J;
      return c;
    }
  };

  void p2g(int s) {
    const float *xs = &x[2 * kNP * s], *vs = &v[2 * kNP * s];
    const float *Cs = &C[4 * kNP * s], *Fs = &F[4 * kNP * s];
    float *Fn = &F[4 * kNP * (s + 1)];
#pragma omp parallel for schedule(static)
    for (int p = 0; p < kNP; ++p) {
      P2G q(xs + 2 * p, Cs + 4 * p, Fs + 4 * p);
      for (int c = 0; c < 4; ++c)
        Fn[4 * p + c] = q.Fn[c];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          float d0 = (i - q.fx[0]) * kDx, d1 = (j - q.fx[1]) * kDx;
          float wt = q.w[0][i] * q.w[1][j];
          int k = (q.base[0] + i) * kNG + q.base[1] + j;
          float m0 = kMass * vs[2 * p] + q.A[0] * d0 + q.A[1] * d1;
          float m1 = kMass * vs[2 * p + 1] + q.A[2] * d0 + q.A[3] * d1;
#pragma omp atomic
          gvin[2 * k] += wt * m0;
#pragma omp atomic
          gvin[2 * k + 1] += wt * m1;
#pragma omp atomic
          gmin[k] += wt * kMass;
        }
    }
  }

  // The grid update as a sequence of states (for its adjoint): v[0] after
  // gravity, then after each boundary condition.
  struct GridOp {
    float invM, v[5][2];
    bool zeroed[4], floor = false, stuck = false;
    float lin = 0, lit = 0, scale = 0;
    GridOp(int i, int j, const float *gv, float gm) {
      invM = 1.0f / (gm + 1e-10f);
      v[0][0] = invM * gv[0];
      v[0][1] = invM * gv[1] - kDt * kGravity;
      auto cond = [&](int c, bool z) {
        zeroed[c] = z;
        v[c + 1][0] = z ? 0 : v[c][0];
        v[c + 1][1] = z ? 0 : v[c][1];
      };
      cond(0, i < kBound && v[0][0] < 0);
      cond(1, i > kNG - kBound && v[1][0] > 0);
      cond(2, j > kNG - kBound && v[2][1] > 0);
      zeroed[3] = false;
      v[4][0] = v[3][0];
      v[4][1] = v[3][1];
      if (j < kBound && v[3][1] < 0) {
        floor = true;
        lin = v[3][1];
        lit = std::sqrt(v[3][0] * v[3][0]) + 1e-10f;
        stuck = lit + kCoeff * lin <= 0;
        scale = 1 + kCoeff * lin / lit;
        v[4][0] = stuck ? 0 : scale * v[3][0];
        v[4][1] = 0;
      }
    }
  };

  void gridOp() {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < kNG; ++i)
      for (int j = 0; j < kNG; ++j) {
        int k = i * kNG + j;
        GridOp g(i, j, &gvin[2 * k], gmin[k]);
        gvout[2 * k] = g.v[4][0];
        gvout[2 * k + 1] = g.v[4][1];
      }
  }

  void g2p(int s) {
    const float *xs = &x[2 * kNP * s];
    float *xn = &x[2 * kNP * (s + 1)], *vn = &v[2 * kNP * (s + 1)];
    float *Cn = &C[4 * kNP * (s + 1)];
#pragma omp parallel for schedule(static)
    for (int p = 0; p < kNP; ++p) {
      Stencil q(xs + 2 * p);
      const int *base = q.base;
      const float *fx = q.fx;
      const float(*w)[3] = q.w, (*dw)[3] = q.dw;
      float nv[2] = {0, 0}, nc[4] = {0, 0, 0, 0};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          float d[2] = {i - fx[0], j - fx[1]};
          int k = (base[0] + i) * kNG + base[1] + j;
          float wt = w[0][i] * w[1][j];
          for (int a = 0; a < 2; ++a) {
            float g = gvout[2 * k + a];
            nv[a] += wt * g;
            for (int b = 0; b < 2; ++b)
              nc[2 * a + b] += 4 * wt * g * d[b] * kInvDx;
          }
        }
      for (int a = 0; a < 2; ++a) {
        vn[2 * p + a] = nv[a];
        xn[2 * p + a] = xs[2 * p + a] + kDt * nv[a];
      }
      for (int c = 0; c < 4; ++c)
        Cn[4 * p + c] = nc[c];
    }
  }

  void computeLoss() {
    const float *xs = &x[2 * kNP * (kSteps - 1)];
    double s0 = 0, s1 = 0;
#pragma omp parallel for reduction(+ : s0, s1)
    for (int p = 0; p < kNP; ++p) {
      s0 += xs[2 * p] / kNP;
      s1 += xs[2 * p + 1] / kNP;
    }
    avg[0] = (float)s0;
    avg[1] = (float)s1;
    float d0 = avg[0] - kTarget[0], d1 = avg[1] - kTarget[1];
    loss = d0 * d0 + d1 * d1;
  }
  float avg[2];

  void forward() {
    init();
    for (int s = 0; s < kSteps - 1; ++s) {
      clearGrid();
      p2g(s);
      gridOp();
      g2p(s);
    }
    computeLoss();
  }

  // --- adjoints, by hand ---------------------------------------------------

  void g2pAdj(int s) {
    const float *xs = &x[2 * kNP * s];
    const float *gxn = &gx[2 * kNP * (s + 1)], *gvn = &gv[2 * kNP * (s + 1)];
    const float *gCn = &gC[4 * kNP * (s + 1)];
    float *gxs = &gx[2 * kNP * s];
#pragma omp parallel for schedule(static)
    for (int p = 0; p < kNP; ++p) {
      Stencil q(xs + 2 * p);
      const int *base = q.base;
      const float *fx = q.fx;
      const float(*w)[3] = q.w, (*dw)[3] = q.dw;
      // x_new = x + dt v_new: v_new's adjoint gets dt * x_new's
      float gnv[2] = {gvn[2 * p] + kDt * gxn[2 * p],
                      gvn[2 * p + 1] + kDt * gxn[2 * p + 1]};
      const float *gc = gCn + 4 * p;
      float gw[2][3] = {{0, 0, 0}, {0, 0, 0}}, gfx[2] = {0, 0};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          float d[2] = {i - fx[0], j - fx[1]};
          int k = (base[0] + i) * kNG + base[1] + j;
          float wt = w[0][i] * w[1][j];
          float gwt = 0;
          for (int a = 0; a < 2; ++a) {
            float g = gvout[2 * k + a];
            float cd = gc[2 * a] * d[0] + gc[2 * a + 1] * d[1];
            float gg = wt * gnv[a] + 4 * wt * kInvDx * cd;
#pragma omp atomic
            ggvout[2 * k + a] += gg;
            gwt += g * gnv[a] + 4 * kInvDx * g * cd;
            for (int b = 0; b < 2; ++b)
              gfx[b] -= 4 * wt * kInvDx * g * gc[2 * a + b];
          }
          gw[0][i] += gwt * w[1][j];
          gw[1][j] += gwt * w[0][i];
        }
      for (int d = 0; d < 2; ++d) {
        for (int i = 0; i < 3; ++i)
          gfx[d] += gw[d][i] * dw[d][i];
        gxs[2 * p + d] += gxn[2 * p + d] + gfx[d] * kInvDx;
      }
    }
  }

  void gridOpAdj() {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < kNG; ++i)
      for (int j = 0; j < kNG; ++j) {
        int k = i * kNG + j;
        GridOp g(i, j, &gvin[2 * k], gmin[k]);
        float G[2] = {ggvout[2 * k], ggvout[2 * k + 1]};
        if (g.floor) {
          if (g.stuck) {
            G[0] = G[1] = 0;
          } else {
            // v4 = (1 + c lin / lit) (vx, 0), lit = |vx| + eps, lin = vy
            float vx = g.v[3][0];
            float gs = G[0] * vx; // adjoint of the scale
            float dlit = vx == 0 ? 0 : vx / std::fabs(vx);
            float gvx = G[0] * g.scale +
                        gs * (-kCoeff * g.lin / (g.lit * g.lit)) * dlit;
            float gvy = gs * kCoeff / g.lit;
            G[0] = gvx;
            G[1] = gvy;
          }
        }
        for (int c = 2; c >= 0; --c)
          if (g.zeroed[c])
            G[0] = G[1] = 0;
        ggvin[2 * k] += g.invM * G[0];
        ggvin[2 * k + 1] += g.invM * G[1];
        ggmin[k] +=
            -(g.invM * g.invM) * (G[0] * gvin[2 * k] + G[1] * gvin[2 * k + 1]);
      }
  }

  void p2gAdj(int s) {
    const float *xs = &x[2 * kNP * s], *vs = &v[2 * kNP * s];
    const float *Cs = &C[4 * kNP * s], *Fs = &F[4 * kNP * s];
    const float *gFn = &gF[4 * kNP * (s + 1)];
    float *gxs = &gx[2 * kNP * s], *gvs = &gv[2 * kNP * s];
    float *gCs = &gC[4 * kNP * s], *gFs = &gF[4 * kNP * s];
    const float kst = kDt * kPVol * 4 * kInvDx * kInvDx;
#pragma omp parallel for schedule(static)
    for (int p = 0; p < kNP; ++p) {
      P2G q(xs + 2 * p, Cs + 4 * p, Fs + 4 * p);
      M2 gA = {0, 0, 0, 0};
      float gw[2][3] = {{0, 0, 0}, {0, 0, 0}}, gfx[2] = {0, 0}, gvp[2] = {0, 0};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          float d[2] = {(i - q.fx[0]) * kDx, (j - q.fx[1]) * kDx};
          float wt = q.w[0][i] * q.w[1][j];
          int k = (q.base[0] + i) * kNG + q.base[1] + j;
          float g[2] = {ggvin[2 * k], ggvin[2 * k + 1]};
          float mom[2] = {kMass * vs[2 * p] + q.A[0] * d[0] + q.A[1] * d[1],
                          kMass * vs[2 * p + 1] + q.A[2] * d[0] +
                              q.A[3] * d[1]};
          float gwt = g[0] * mom[0] + g[1] * mom[1] + ggmin[k] * kMass;
          for (int a = 0; a < 2; ++a) {
            gvp[a] += wt * kMass * g[a];
            for (int b = 0; b < 2; ++b)
              gA[2 * a + b] += wt * g[a] * d[b];
          }
          // d = (offset - fx) dx
          gfx[0] -= kDx * wt * (q.A[0] * g[0] + q.A[2] * g[1]);
          gfx[1] -= kDx * wt * (q.A[1] * g[0] + q.A[3] * g[1]);
          gw[0][i] += gwt * q.w[1][j];
          gw[1][j] += gwt * q.w[0][i];
        }
      for (int d = 0; d < 2; ++d) {
        for (int i = 0; i < 3; ++i)
          gfx[d] += gw[d][i] * q.dw[d][i];
        gxs[2 * p + d] += gfx[d] * kInvDx;
        gvs[2 * p + d] += gvp[d];
      }
      // A = -kst cauchy + m C
      M2 gc;
      for (int i = 0; i < 4; ++i) {
        gCs[4 * p + i] += kMass * gA[i];
        gc[i] = -kst * gA[i];
      }
      // cauchy = 2 mu (Fn - r) Fn^T + la (J - 1) J I
      M2 dR = {q.Fn[0] - q.polar.r[0], q.Fn[1] - q.polar.r[1],
               q.Fn[2] - q.polar.r[2], q.Fn[3] - q.polar.r[3]};
      M2 gcF = mul(gc, q.Fn), gcTd = mul(transpose(gc), dR);
      M2 gFnv;
      for (int i = 0; i < 4; ++i)
        gFnv[i] = gFn[4 * p + i] + 2 * kMu * (gcF[i] + gcTd[i]);
      M2 gr;
      for (int i = 0; i < 4; ++i)
        gr[i] = -2 * kMu * gcF[i];
      M2 gpol = q.polar.adjoint(gr);
      float gJ = kLa * (2 * q.J - 1) * (gc[0] + gc[3]);
      const M2 &f = q.Fn;
      M2 cof = {f[3], -f[2], -f[1], f[0]};
      for (int i = 0; i < 4; ++i)
        gFnv[i] += gpol[i] + gJ * cof[i];
      // Fn = M F, M = I + dt C
      M2 Fp = {Fs[4 * p], Fs[4 * p + 1], Fs[4 * p + 2], Fs[4 * p + 3]};
      M2 gM = mul(gFnv, transpose(Fp)), gF0 = mul(transpose(q.M), gFnv);
      for (int i = 0; i < 4; ++i) {
        gCs[4 * p + i] += kDt * gM[i];
        gFs[4 * p + i] += gF0[i];
      }
    }
  }

  void backward() {
    std::fill(gx.begin(), gx.end(), 0.0f);
    std::fill(gv.begin(), gv.end(), 0.0f);
    std::fill(gC.begin(), gC.end(), 0.0f);
    std::fill(gF.begin(), gF.end(), 0.0f);
    float ga[2] = {2 * (avg[0] - kTarget[0]), 2 * (avg[1] - kTarget[1])};
    float *gxl = &gx[2 * kNP * (kSteps - 1)];
#pragma omp parallel for schedule(static)
    for (int p = 0; p < kNP; ++p) {
      gxl[2 * p] += ga[0] / kNP;
      gxl[2 * p + 1] += ga[1] / kNP;
    }
    for (int s = kSteps - 2; s >= 0; --s) {
      clearGrid();
      p2g(s);
      gridOp();
      g2pAdj(s);
      gridOpAdj();
      p2gAdj(s);
    }
    double g0 = 0, g1 = 0;
#pragma omp parallel for reduction(+ : g0, g1)
    for (int p = 0; p < kNP; ++p) {
      g0 += gv[2 * p];
      g1 += gv[2 * p + 1];
    }
    gInitV[0] = (float)g0;
    gInitV[1] = (float)g1;
  }
};

} // namespace

int main(int argc, char **argv) {
  Args a = parseArgs(argc, argv);
  header("diffmpm", a);
  tc_options opts = ticOptions(a);
  diffmpm_ctx *ctx = nullptr;
  TC_CHECK(ctx, diffmpm_last_error, diffmpm_create(&opts, &ctx));
  const float v0[2] = {1.5f, 0.6f};
  TC_CHECK(ctx, diffmpm_last_error, diffmpm_target_set(ctx, kTarget));
  TC_CHECK(ctx, diffmpm_last_error, diffmpm_init_v_set(ctx, v0));
  static Ref ref;
  ref.initV[0] = v0[0];
  ref.initV[1] = v0[1];

  auto oursForward = [&] {
    const float zero[2] = {0, 0};
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_init_particles(ctx));
    for (int s = 0; s < kSteps - 1; ++s) {
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_clear_grid(ctx));
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_p2g(ctx, s));
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_grid_op(ctx));
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_g2p(ctx, s));
    }
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_x_avg_set(ctx, zero));
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_compute_x_avg(ctx));
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_compute_loss(ctx));
  };
  auto oursBackward = [&] {
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_clear_grads(ctx));
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_loss_grad_set(ctx, 1.0f));
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_compute_loss_grad(ctx));
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_compute_x_avg_grad(ctx));
    for (int s = kSteps - 2; s >= 0; --s) {
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_clear_grid(ctx));
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_p2g(ctx, s));
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_grid_op(ctx));
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_g2p_grad(ctx, s));
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_grid_op_grad(ctx));
      TC_CHECK(ctx, diffmpm_last_error, diffmpm_p2g_grad(ctx, s));
    }
    TC_CHECK(ctx, diffmpm_last_error, diffmpm_init_particles_grad(ctx));
  };

  // Correctness: the loss and its gradient, tic against the hand-written
  // adjoint (f32 sums in different orders: relative 1e-3).
  oursForward();
  oursBackward();
  ref.forward();
  ref.backward();
  float loss = 0, g[2];
  TC_CHECK(ctx, diffmpm_last_error, diffmpm_loss_get(ctx, &loss));
  TC_CHECK(ctx, diffmpm_last_error, diffmpm_init_v_grad_get(ctx, g));
  std::printf(
      "# loss: tic %.7g, C++ %.7g; d loss / d init_v: tic (%.6g, %.6g), "
      "C++ (%.6g, %.6g)\n",
      loss, ref.loss, g[0], g[1], ref.gInitV[0], ref.gInitV[1]);
  double err = std::fabs(loss - ref.loss) / std::fabs(ref.loss);
  for (int c = 0; c < 2; ++c)
    err = std::max(err, (double)std::fabs(g[c] - ref.gInitV[c]) /
                            std::fabs(ref.gInitV[c]));
  checkErr("relative difference of loss and gradient", err, 1e-3);

  Pair fwd = medianPairMs(a, oursForward, [&] { ref.forward(); });
  Pair both = medianPairMs(
      a,
      [&] {
        oursForward();
        oursBackward();
      },
      [&] {
        ref.forward();
        ref.backward();
      });
  char extra[160];
  std::snprintf(
      extra, sizeof extra,
      "backward_over_forward_ours=%.2f backward_over_forward_ref=%.2f",
      (both.ours - fwd.ours) / fwd.ours, (both.ref - fwd.ref) / fwd.ref);
  char variant[64];
  std::snprintf(variant, sizeof variant, "%dparticles_%dsteps,forward", kNP,
                kSteps - 1);
  result("diffmpm", variant, fwd.ours, fwd.ref, err);
  std::snprintf(variant, sizeof variant, "%dparticles_%dsteps,forward+backward",
                kNP, kSteps - 1);
  result("diffmpm", variant, both.ours, both.ref, err, 0, extra);
  diffmpm_destroy(ctx);
  return 0;
}

/* examples/taichi-ports/euler/main.c - the host side of Taichi's euler.py:
 * the compressible Euler equations, a circular Sod explosion in a closed
 * box, on the kernels of euler.tc. Headless: runs the time steps of the
 * original's GUI loop and writes the density image paint() computes, as a
 * PNG with a magma-like colour map.
 *
 *   euler [--steps S] [-o euler.png] [--threads T] [--check] [--dump FILE]
 *
 * --check runs a plain C reimplementation of the solver (the same
 * operations in the same order, in float, with the constants folded in
 * double and rounded once as tic and Taichi do) beside the kernels and
 * compares the whole state after every step; it also checks what the
 * physics guarantees: mass and energy in the closed box are conserved, and
 * the density stays positive and symmetric about the box's diagonals. Use
 * --threads 1 for a bit-for-bit comparison: set_bc() of the original copies
 * ghost cells from ghost cells in one parallel loop, so the four corner
 * cells (which only enter the time step) depend on thread timing.
 * --dump writes the final Q (N*N*4 floats, row-major) for comparing with
 * Taichi (examples/README.md).
 *
 * Exits 1 when a kernel or a check fails. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

#include "euler.h"
#include "png_util.h"

#define EXAMPLE_NAME "euler"
#define EXAMPLE_LAST_ERROR euler_last_error
#include "example_util.h"

#define N EULER_CONST_N
#define RES EULER_CONST_RES
#define METHOD EULER_CONST_METHOD

static euler_ctx *ctx;

/* ---- The C reference: euler.tc's kernels, serially ------------------ */

/* Constants as tic (and Taichi, through Python) fold them: in double,
 * rounded to f32 once where they are used. */
static const float GAMMA = (float)1.4;
static const float GAMMA_M1 = (float)(1.4 - 1.0); /* `gamma - 1` */
static const float H = (float)(1.0 / (N - 2));
static const float H_HALF = (float)(1.0 / (N - 2) / 2.0);
static const float CFL_H = (float)(0.9 * (1.0 / (N - 2)));
static const float BETA_SMOOTH = (float)1.2, BETA_SHARP = (float)2.0;

typedef struct {
  float v[4];
} v4;

static v4 *rQ, *rQ_old, *rW, *rF_x, *rF_y, *rW_xl, *rW_xr, *rW_yl, *rW_yr;
static float r_dt;

static size_t at(int i, int j) { return (size_t)i * N + (size_t)j; }
static size_t at3(int i, int j, int k) { return at(i, j) * 3 + (size_t)k; }

static int interior_cell(int i, int j) {
  return 0 < i && i < N - 1 && 0 < j && j < N - 1;
}
static int interior_x_face(int i, int j) {
  return 1 < i && i < N - 1 && 0 < j && j < N - 1;
}
static int boundary_x_face(int i, int j) {
  return (i == 1 || i == N - 1) && 0 < j && j < N - 1;
}
static int interior_y_face(int i, int j) {
  return 0 < i && i < N - 1 && 1 < j && j < N - 1;
}
static int boundary_y_face(int i, int j) {
  return 0 < i && i < N - 1 && (j == 1 || j == N - 1);
}

/* min/max of floats are IEEE minNum/maxNum (fminf/fmaxf): a NaN operand
 * gives the other one, as in tic and Taichi. */
static float mc_lim(float r) {
  return fmaxf(0.0f, fminf(2.0f * r, fminf(0.5f * (r + 1.0f), 2.0f)));
}

static v4 w_to_q(v4 w) {
  v4 q = {{0, 0, 0, 0}};
  q.v[0] = w.v[0];
  q.v[1] = w.v[0] * w.v[1];
  q.v[2] = w.v[0] * w.v[2];
  q.v[3] = w.v[0] * (w.v[3] / (GAMMA_M1 * w.v[0]) +
                     0.5f * (w.v[1] * w.v[1] + w.v[2] * w.v[2]));
  return q;
}

static v4 q_to_w(v4 q) {
  v4 w = {{0, 0, 0, 0}};
  w.v[0] = q.v[0];
  w.v[1] = q.v[1] / q.v[0];
  w.v[2] = q.v[2] / q.v[0];
  w.v[3] = GAMMA_M1 * (q.v[3] - 0.5f * (q.v[1] * q.v[1] + q.v[2] * q.v[2]) / q.v[0]);
  return w;
}

static v4 hllc_flux(v4 qL, v4 qR, float nx, float ny) {
  float rL = qL.v[0], uL = qL.v[1] / qL.v[0], vL = qL.v[2] / qL.v[0];
  float pL = GAMMA_M1 * (qL.v[3] - 0.5f * (qL.v[1] * qL.v[1] + qL.v[2] * qL.v[2]) / qL.v[0]);
  float vnL = uL * nx + vL * ny, vtL = -uL * ny + vL * nx;
  float aL = sqrtf(GAMMA * pL / rL), HL = (qL.v[3] + pL) / rL;
  float rR = qR.v[0], uR = qR.v[1] / qR.v[0], vR = qR.v[2] / qR.v[0];
  float pR = GAMMA_M1 * (qR.v[3] - 0.5f * (qR.v[1] * qR.v[1] + qR.v[2] * qR.v[2]) / qR.v[0]);
  float vnR = uR * nx + vR * ny, vtR = -uR * ny + vR * nx;
  float aR = sqrtf(GAMMA * pR / rR), HR = (qR.v[3] + pR) / rR;
  v4 fL = {{rL * vnL, rL * vnL * uL + pL * nx, rL * vnL * vL + pL * ny, rL * vnL * HL}};
  v4 fR = {{rR * vnR, rR * vnR * uR + pR * nx, rR * vnR * vR + pR * ny, rR * vnR * HR}};
  float rt = sqrtf(rR / rL);
  float u = (uL + rt * uR) / (1.0f + rt), v = (vL + rt * vR) / (1.0f + rt);
  float Hh = (HL + rt * HR) / (1.0f + rt);
  float a = sqrtf(GAMMA_M1 * (Hh - (u * u + v * v) / 2.0f));
  float vn = u * nx + v * ny;
  float sL = fminf(vnL - aL, vn - a), sR = fmaxf(vnR + aR, vn + a);
  float sM = (pL - pR + rR * vnR * (sR - vnR) - rL * vnL * (sL - vnL)) /
             (rR * (sR - vnR) - rL * (sL - vnL));
  v4 out = {{0, 0, 0, 0}};
  int k;
  if (0 <= sL) {
    out = fL;
  } else if (0 <= sM) {
    float c[4] = {1.0f, sM * nx - vtL * ny, sM * ny + vtL * nx,
                  qL.v[3] / rL + (sM - vnL) * (sM + pL / (rL * (sL - vnL)))};
    float s = rL * (sL - vnL) / (sL - sM);
    for (k = 0; k < 4; ++k)
      out.v[k] = fL.v[k] + sL * (s * c[k] - qL.v[k]);
  } else if (0 <= sR) {
    float c[4] = {1.0f, sM * nx - vtR * ny, sM * ny + vtR * nx,
                  qR.v[3] / rR + (sM - vnR) * (sM + pR / (rR * (sR - vnR)))};
    float s = rR * (sR - vnR) / (sR - sM);
    for (k = 0; k < 4; ++k)
      out.v[k] = fR.v[k] + sR * (s * c[k] - qR.v[k]);
  } else if (0 >= sR) {
    out = fR;
  }
  return out;
}

static void ref_set_ic(void) {
  int i, j;
  v4 w_in = {{10.0f, 0.0f, 0.0f, 10.0f}}, w_out = {{0.125f, 0.0f, 0.0f, 0.1f}};
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      float px = (float)i * H - H_HALF - 0.5f, py = (float)j * H - H_HALF - 0.5f;
      rQ[at(i, j)] = sqrtf(px * px + py * py) < 0.25f ? w_to_q(w_in) : w_to_q(w_out);
    }
}

static void ref_set_bc(void) {
  int i, j;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      v4 *q = &rQ[at(i, j)];
      if (interior_cell(i, j))
        continue;
      if (i == 0) {
        *q = rQ[at(i + 1, j)];
        q->v[1] = -rQ[at(i + 1, j)].v[1];
      }
      if (i == N - 1) {
        *q = rQ[at(i - 1, j)];
        q->v[1] = -rQ[at(i - 1, j)].v[1];
      }
      if (j == 0) {
        *q = rQ[at(i, j + 1)];
        q->v[2] = -rQ[at(i, j + 1)].v[2];
      }
      if (j == N - 1) {
        *q = rQ[at(i, j - 1)];
        q->v[2] = -rQ[at(i, j - 1)].v[2];
      }
    }
}

static void ref_calc_dt(void) {
  int i, j;
  r_dt = 1.0e5f;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      v4 w = q_to_w(rQ[at(i, j)]);
      float a = sqrtf(GAMMA * w.v[3] / w.v[0]);
      float vel = sqrtf(w.v[1] * w.v[1] + w.v[2] * w.v[2]);
      r_dt = fminf(r_dt, CFL_H / (a + vel) / 2.0f);
    }
}

static void ref_compute_W(void) {
  size_t c;
  for (c = 0; c < (size_t)N * N; ++c)
    rW[c] = q_to_w(rQ[c]);
}

/* MUSCL: W at offsets -2, -1, 0, +1 along the face normal. */
static v4 muscl_side(int i, int j, int di, int dj, int left) {
  v4 out;
  int f;
  for (f = 0; f < 4; ++f) {
    float wm2 = rW[at(i - 2 * di, j - 2 * dj)].v[f], wm1 = rW[at(i - di, j - dj)].v[f];
    float w0 = rW[at(i, j)].v[f], wp1 = rW[at(i + di, j + dj)].v[f];
    if (left)
      out.v[f] = wm1 + 0.5f * mc_lim((w0 - wm1) / (wm1 - wm2)) * (wm1 - wm2);
    else
      out.v[f] = w0 - 0.5f * mc_lim((w0 - wm1) / (wp1 - w0)) * (wp1 - w0);
  }
  return out;
}

static void ref_compute_F_muscl(void) {
  int i, j;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      if (interior_x_face(i, j))
        rF_x[at(i, j)] = hllc_flux(w_to_q(muscl_side(i, j, 1, 0, 1)),
                                   w_to_q(muscl_side(i, j, 1, 0, 0)), 1.0f, 0.0f);
      else if (boundary_x_face(i, j))
        rF_x[at(i, j)] = hllc_flux(rQ[at(i - 1, j)], rQ[at(i, j)], 1.0f, 0.0f);
      if (interior_y_face(i, j))
        rF_y[at(i, j)] = hllc_flux(w_to_q(muscl_side(i, j, 0, 1, 1)),
                                   w_to_q(muscl_side(i, j, 0, 1, 0)), 0.0f, 1.0f);
      else if (boundary_y_face(i, j))
        rF_y[at(i, j)] = hllc_flux(rQ[at(i, j - 1)], rQ[at(i, j)], 0.0f, 1.0f);
    }
}

static float sign_of(float a) { return a > 0.0f ? 1.0f : a < 0.0f ? -1.0f : 0.0f; }
static float cosh_of(float a) { return (expf(a) + expf(-a)) / 2.0f; }

static void thinc(float wl, float wc, float wr, float beta, float *w0, float *w1) {
  *w0 = *w1 = wc;
  if ((wr - wc) * (wc - wl) > 0.0f) {
    float eps = 1.0e-15f;
    float wmin = fminf(wr, wl), wmax = fmaxf(wr, wl), wdelta = wmax - wmin;
    float theta = sign_of(wr - wl);
    float C = (wc - wmin + eps) / (wdelta + eps);
    float B = expf(theta * beta * (2 * C - 1));
    float A = (B / cosh_of(beta) - 1) / tanhf(beta);
    *w0 = wmin + wdelta / 2.0f * (1.0f + theta * A);
    *w1 = wmin + wdelta / 2.0f * (1.0f + theta * (tanhf(beta) + A) / (1.0f + A * tanhf(beta)));
  }
}

/* One BVD choice between candidates 0 (smooth) and 1 (sharp) of a face pair. */
static void bvd(v4 *l, v4 *r, size_t c0, size_t c1, int f) {
  float smooth = fabsf(l[c0].v[f] - r[c0].v[f]) + fabsf(l[c1].v[f] - r[c1].v[f]);
  float sharp = fabsf(l[c0 + 1].v[f] - r[c0 + 1].v[f]) +
                fabsf(l[c1 + 1].v[f] - r[c1 + 1].v[f]);
  int k = smooth < sharp ? 0 : 1;
  r[c0 + 2].v[f] = r[c0 + k].v[f];
  l[c1 + 2].v[f] = l[c1 + k].v[f];
}

static void ref_compute_F_thinc(void) {
  int i, j, f;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      if (!interior_cell(i, j))
        continue;
      for (f = 0; f < 4; ++f) {
        float l = rW[at(i - 1, j)].v[f], c = rW[at(i, j)].v[f], r = rW[at(i + 1, j)].v[f];
        float d = rW[at(i, j - 1)].v[f], u = rW[at(i, j + 1)].v[f];
        thinc(l, c, r, BETA_SMOOTH, &rW_xr[at3(i, j, 0)].v[f], &rW_xl[at3(i + 1, j, 0)].v[f]);
        thinc(l, c, r, BETA_SHARP, &rW_xr[at3(i, j, 1)].v[f], &rW_xl[at3(i + 1, j, 1)].v[f]);
        thinc(d, c, u, BETA_SMOOTH, &rW_yr[at3(i, j, 0)].v[f], &rW_yl[at3(i, j + 1, 0)].v[f]);
        thinc(d, c, u, BETA_SHARP, &rW_yr[at3(i, j, 1)].v[f], &rW_yl[at3(i, j + 1, 1)].v[f]);
      }
    }
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      if (!interior_cell(i, j))
        continue;
      for (f = 0; f < 4; ++f) {
        bvd(rW_xl, rW_xr, at3(i, j, 0), at3(i + 1, j, 0), f);
        bvd(rW_yl, rW_yr, at3(i, j, 0), at3(i, j + 1, 0), f);
      }
    }
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      if (interior_x_face(i, j))
        rF_x[at(i, j)] = hllc_flux(w_to_q(rW_xl[at3(i, j, 2)]),
                                   w_to_q(rW_xr[at3(i, j, 2)]), 1.0f, 0.0f);
      else if (boundary_x_face(i, j))
        rF_x[at(i, j)] = hllc_flux(rQ[at(i - 1, j)], rQ[at(i, j)], 1.0f, 0.0f);
      if (interior_y_face(i, j))
        rF_y[at(i, j)] = hllc_flux(w_to_q(rW_yl[at3(i, j, 2)]),
                                   w_to_q(rW_yr[at3(i, j, 2)]), 0.0f, 1.0f);
      else if (boundary_y_face(i, j))
        rF_y[at(i, j)] = hllc_flux(rQ[at(i, j - 1)], rQ[at(i, j)], 0.0f, 1.0f);
    }
}

static void ref_update_Q(int rk_step) {
  int i, j, f;
  for (i = 1; i < N - 1; ++i)
    for (j = 1; j < N - 1; ++j)
      for (f = 0; f < 4; ++f) {
        float div = rF_x[at(i, j)].v[f] - rF_x[at(i + 1, j)].v[f] +
                    rF_y[at(i, j)].v[f] - rF_y[at(i, j + 1)].v[f];
        float *q = &rQ[at(i, j)].v[f];
        if (rk_step == 0)
          *q = *q + r_dt * div / H;
        else
          *q = (*q + rQ_old[at(i, j)].v[f]) / 2.0f + r_dt * div / H;
      }
}

static void ref_step(void) {
  int rk;
#ifdef HAVE_MXCSR
  /* Kernels flush denormals to zero (tic's default, and Taichi's on the
   * CPU): so does the reference (flush-to-zero and denormals-are-zero). */
  unsigned int saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040);
#endif
  ref_calc_dt();
  memcpy(rQ_old, rQ, sizeof(v4) * N * N);
  for (rk = 0; rk < 2; ++rk) {
    ref_compute_W();
    if (METHOD == 0)
      ref_compute_F_muscl();
    else
      ref_compute_F_thinc();
    ref_update_Q(rk);
    ref_set_bc();
  }
#ifdef HAVE_MXCSR
  _mm_setcsr(saved);
#endif
}

/* ---- The kernels ------------------------------------------------------ */

static void step(void) {
  int rk;
  RUN(euler_calc_dt(ctx));
  RUN(euler_copy_to_old(ctx));
  for (rk = 0; rk < 2; ++rk) {
    RUN(euler_compute_W(ctx));
    if (METHOD == 0)
      RUN(euler_compute_F_muscl(ctx));
    else
      RUN(euler_compute_F_thinc(ctx));
    RUN(rk == 0 ? euler_update_Q0(ctx) : euler_update_Q1(ctx));
    RUN(euler_set_bc(ctx));
  }
}

/* Mass and energy of the interior cells. */
static void totals(const v4 *q, double *mass, double *energy) {
  int i, j;
  *mass = *energy = 0;
  for (i = 1; i < N - 1; ++i)
    for (j = 1; j < N - 1; ++j) {
      *mass += q[at(i, j)].v[0];
      *energy += q[at(i, j)].v[3];
    }
}

/* magma-like colour map: black - purple - orange - pale yellow. */
static void colour(float t, unsigned char *rgb) {
  static const float stops[5][3] = {{0.0f, 0.0f, 0.02f},
                                    {0.32f, 0.07f, 0.43f},
                                    {0.72f, 0.21f, 0.47f},
                                    {0.99f, 0.53f, 0.38f},
                                    {0.99f, 0.99f, 0.75f}};
  float x = (t < 0 ? 0 : t > 1 ? 1 : t) * 4;
  int k = x >= 4 ? 3 : (int)x, c;
  float f = x - (float)k;
  for (c = 0; c < 3; ++c)
    rgb[c] = png_unit_to_byte(stops[k][c] + f * (stops[k + 1][c] - stops[k][c]));
}

int main(int argc, char **argv) {
  int steps = 100, threads = 0, check = 0, s, i, j, f;
  const char *out = "euler.png", *dump = NULL;
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--check"))
      check = 1;
    else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
      dump = argv[++i];
    else {
      fprintf(stderr, "usage: euler [--steps S] [-o out.png] [--threads T] "
                      "[--check] [--dump FILE]\n");
      return 2;
    }
  }
  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  RUN(euler_create(&opts, &ctx));

  size_t cells = (size_t)N * N;
  v4 *q = malloc(sizeof(v4) * cells);
  float *img = malloc(sizeof(float) * RES * RES);
  if (!q || !img)
    return 1;
  if (check) {
    rQ = malloc(sizeof(v4) * cells);
    rQ_old = malloc(sizeof(v4) * cells);
    rW = malloc(sizeof(v4) * cells);
    rF_x = calloc(cells, sizeof(v4));
    rF_y = calloc(cells, sizeof(v4));
    rW_xl = calloc(cells * 3, sizeof(v4));
    rW_xr = calloc(cells * 3, sizeof(v4));
    rW_yl = calloc(cells * 3, sizeof(v4));
    rW_yr = calloc(cells * 3, sizeof(v4));
    if (!rQ || !rQ_old || !rW || !rF_x || !rF_y || !rW_xl || !rW_xr || !rW_yl || !rW_yr)
      return 1;
    ref_set_ic();
    ref_set_bc();
  }

  double t0 = now_s(), kernel_s = 0, mass0, energy0, mass, energy;
  RUN(euler_set_ic(ctx));
  RUN(euler_set_bc(ctx));
  RUN(euler_Q_read(ctx, q->v, cells * 4));
  totals(q, &mass0, &energy0);
  long differing = 0;
  double max_rel = 0;
  for (s = 0; s < steps; ++s) {
    double ts = now_s();
    step();
    kernel_s += now_s() - ts;
    if (!check)
      continue;
    ref_step();
    float dt;
    RUN(euler_dt_get(ctx, &dt));
    if (dt != r_dt)
      FAIL("step %d: dt %.9g, the C reference %.9g", s, dt, r_dt);
    RUN(euler_Q_read(ctx, q->v, cells * 4));
    for (i = 0; i < N; ++i)
      for (j = 0; j < N; ++j)
        for (f = 0; f < 4; ++f) {
          float a = q[at(i, j)].v[f], b = rQ[at(i, j)].v[f];
          double rel;
          if (a == b)
            continue;
          ++differing;
          rel = fabs((double)a - b) / (fabs((double)b) + 1e-6);
          if (!(rel <= max_rel))
            max_rel = rel;
          if (!(rel <= 1e-4))
            FAIL("step %d: Q[%d, %d][%d] = %.9g, the C reference %.9g", s, i, j, f, a, b);
        }
  }
  double secs = now_s() - t0;

  RUN(euler_Q_read(ctx, q->v, cells * 4));
  totals(q, &mass, &energy);
  if (!(fabs(mass - mass0) <= 1e-5 * mass0))
    FAIL("mass %.9g after %d steps, %.9g at the start", mass, steps, mass0);
  if (!(fabs(energy - energy0) <= 1e-5 * energy0))
    FAIL("energy %.9g after %d steps, %.9g at the start", energy, steps, energy0);
  /* The explosion is symmetric about both diagonals of the box. Rounding
   * makes the halves differ, most at the shocks (where it grows with the
   * number of steps, in Taichi as here): the mean difference must stay
   * small. */
  double asym = 0, rho_sum = 0;
  for (i = 1; i < N - 1; ++i)
    for (j = 1; j < N - 1; ++j) {
      float rho = q[at(i, j)].v[0];
      asym += fabs((double)rho - q[at(j, i)].v[0]) +
              fabs((double)rho - q[at(N - 1 - j, N - 1 - i)].v[0]);
      rho_sum += 2.0 * rho;
      if (!(rho > 0) || !isfinite(rho))
        FAIL("density %g at (%d, %d)", rho, i, j);
    }
  asym /= rho_sum;
  if (!(asym <= 1e-3))
    FAIL("density not symmetric about the diagonals: mean relative "
         "difference %.3g", asym);

  if (dump) {
    FILE *fp = fopen(dump, "wb");
    if (!fp || fwrite(q, sizeof(v4), cells, fp) != cells || fclose(fp) != 0)
      FAIL("writing %s failed", dump);
  }

  /* paint(): density normalised to [0, 1]; x right, y up, as in the GUI. */
  RUN(euler_paint(ctx));
  RUN(euler_img_read(ctx, img, (size_t)RES * RES));
  unsigned char *rgb = malloc((size_t)RES * RES * 3);
  if (!rgb)
    return 1;
  for (i = 0; i < RES; ++i)
    for (j = 0; j < RES; ++j)
      colour(img[(size_t)i * RES + j], rgb + 3 * ((size_t)(RES - 1 - j) * RES + i));
  if (png_write_rgb(out, rgb, RES, RES))
    FAIL("writing %s failed", out);

  printf("euler: N=%d, %s, %d steps in %.3f s (%.2f ms/step in kernels); "
         "mass drift %.2e, energy drift %.2e, asymmetry %.2e; %s\n",
         N, METHOD == 0 ? "MUSCL" : "THINC-BVD", steps, secs,
         steps ? 1e3 * kernel_s / steps : 0.0, fabs(mass - mass0) / mass0,
         fabs(energy - energy0) / energy0, asym, out);
  if (check)
    printf("euler: C reference: %ld values differ (largest relative "
           "difference %.3g)%s\n",
           differing, max_rel, differing ? "" : ", bit for bit");
  free(rgb);
  free(q);
  free(img);
  euler_destroy(ctx);
  return failures != 0;
}

/* examples/taichi-ports/mgpcg/main.c - the host side of Taichi's mgpcg.py:
 * conjugate gradients preconditioned by a multigrid V-cycle, on the kernels
 * of mgpcg.tc. Headless: writes a PNG of the solution's slice k = 3/8 N_tot
 * (the image Taichi's GUI shows) and checks the solution against the
 * system itself: the residual |b - A x| / |b| is recomputed here, in double,
 * from the right-hand side and the solution read back.
 *
 *   mgpcg [--iters N] [--tol T] [-o mgpcg.png] [--threads N]
 *
 * Exits 1 when a kernel fails or the recomputed residual is above --tol. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mgpcg.h"
#include "png_util.h"

#define EXAMPLE_NAME "mgpcg"
#define EXAMPLE_LAST_ERROR mgpcg_last_error
#include "example_util.h"

#define N MGPCG_CONST_N
#define N_EXT MGPCG_CONST_N_EXT
#define N_TOT MGPCG_CONST_N_TOT
#define PRE_POST 2   /* pre_and_post_smoothing */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define BOTTOM 50    /* bottom_smoothing */

static mgpcg_ctx *ctx;


typedef tc_status (*kernel_fn)(mgpcg_ctx *);
static const kernel_fn smooth_red[4] = {mgpcg_smooth0_red, mgpcg_smooth1_red,
                                        mgpcg_smooth2_red, mgpcg_smooth3_red};
static const kernel_fn smooth_black[4] = {
    mgpcg_smooth0_black, mgpcg_smooth1_black, mgpcg_smooth2_black,
    mgpcg_smooth3_black};
static const kernel_fn clear_z[4] = {mgpcg_clear_z0, mgpcg_clear_z1,
                                     mgpcg_clear_z2, mgpcg_clear_z3};
static const kernel_fn clear_r[4] = {NULL, mgpcg_clear_r1, mgpcg_clear_r2,
                                     mgpcg_clear_r3};
static const kernel_fn restrict_[3] = {mgpcg_restrict0, mgpcg_restrict1,
                                       mgpcg_restrict2};
static const kernel_fn prolongate[3] = {mgpcg_prolongate0, mgpcg_prolongate1,
                                        mgpcg_prolongate2};

/* apply_preconditioner() of mgpcg.py: one V-cycle, z0 ~ A^-1 r0. */
static void apply_preconditioner(void) {
  int l, i;
  RUN(clear_z[0](ctx));
  for (l = 0; l < 3; ++l) {
    for (i = 0; i < (PRE_POST << l); ++i) {
      RUN(smooth_red[l](ctx));
      RUN(smooth_black[l](ctx));
    }
    RUN(clear_z[l + 1](ctx));
    RUN(clear_r[l + 1](ctx));
    RUN(restrict_[l](ctx));
  }
  for (i = 0; i < BOTTOM; ++i) {
    RUN(smooth_red[3](ctx));
    RUN(smooth_black[3](ctx));
  }
  for (l = 2; l >= 0; --l) {
    RUN(prolongate[l](ctx));
    for (i = 0; i < (PRE_POST << l); ++i) {
      RUN(smooth_black[l](ctx));
      RUN(smooth_red[l](ctx));
    }
  }
}

static size_t at(int i, int j, int k) {
  return ((size_t)i * N_TOT + (size_t)j) * N_TOT + (size_t)k;
}

int main(int argc, char **argv) {
  int iters = 400, it, i, j, k, threads = 0;
  double tol = 1e-4;
  const char *out = "mgpcg.png";
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: mgpcg [--iters N] [--tol T] [-o out.png] [--threads N]\n");
      return 2;
    }
  }
  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  RUN(mgpcg_create(&opts, &ctx));

  double t0 = now_s();
  RUN(mgpcg_init(ctx));
  float initial_rTr, old_zTr, rTr = 0, pAp, new_zTr;
  RUN(mgpcg_dot_rr(ctx, &initial_rTr));
  apply_preconditioner();
  RUN(mgpcg_update_p(ctx, 0.0f));
  RUN(mgpcg_dot_zr(ctx, &old_zTr));
  for (it = 0; it < iters; ++it) {
    RUN(mgpcg_compute_Ap(ctx));
    RUN(mgpcg_dot_pAp(ctx, &pAp));
    float alpha = old_zTr / pAp;
    RUN(mgpcg_update_x(ctx, alpha));
    RUN(mgpcg_update_r(ctx, alpha));
    RUN(mgpcg_dot_rr(ctx, &rTr));
    printf("iter %3d: residual %e\n", it, rTr);
    if (rTr < initial_rTr * 1.0e-12f)
      break;
    apply_preconditioner();
    RUN(mgpcg_dot_zr(ctx, &new_zTr));
    RUN(mgpcg_update_p(ctx, new_zTr / old_zTr));
    old_zTr = new_zTr;
  }
  double secs = now_s() - t0;

  /* The check: recompute b - A x from scratch (b as in init()). */
  size_t cells = (size_t)N_TOT * N_TOT * N_TOT;
  float *x = malloc(cells * sizeof *x);
  if (!x)
    return 1;
  RUN(mgpcg_x_read(ctx, x, cells));
  double res2 = 0, b2 = 0;
  for (i = N_EXT; i < N_TOT - N_EXT; ++i)
    for (j = N_EXT; j < N_TOT - N_EXT; ++j)
      for (k = N_EXT; k < N_TOT - N_EXT; ++k) {
        double xl = (i - N_EXT) * 2.0 / N_TOT, yl = (j - N_EXT) * 2.0 / N_TOT,
               zl = (k - N_EXT) * 2.0 / N_TOT;
        double b = sin(2 * M_PI * xl) * sin(2 * M_PI * yl) * sin(2 * M_PI * zl);
        double ax = 6.0 * x[at(i, j, k)] - x[at(i + 1, j, k)] - x[at(i - 1, j, k)] -
                    x[at(i, j + 1, k)] - x[at(i, j - 1, k)] - x[at(i, j, k + 1)] -
                    x[at(i, j, k - 1)];
        res2 += (b - ax) * (b - ax);
        b2 += b * b;
      }
  /* Outside the interior the solution must stay 0 (Dirichlet). */
  int outside = 0;
  for (i = 0; i < N_TOT; ++i)
    for (j = 0; j < N_TOT; ++j)
      for (k = 0; k < N_TOT; ++k) {
        int in = i >= N_EXT && i < N_TOT - N_EXT && j >= N_EXT &&
                 j < N_TOT - N_EXT && k >= N_EXT && k < N_TOT - N_EXT;
        outside += !in && x[at(i, j, k)] != 0.0f;
      }
  double rel = sqrt(res2 / b2);

  /* paint(): the slice k = 3/8 N_tot, scaled by 1/N_tot, as grey levels. */
  enum { IMG = 256 };
  static unsigned char rgb[IMG * IMG * 3];
  int kk = N_TOT * 3 / 8;
  for (i = 0; i < IMG; ++i)
    for (j = 0; j < IMG; ++j) {
      int ii = (int)((double)i * N / IMG) + N_EXT, jj = (int)((double)j * N / IMG) + N_EXT;
      float v = x[at(ii, jj, kk)] / N_TOT + 0.5f; /* 0 is mid grey */
      unsigned char g = png_unit_to_byte(v);
      unsigned char *c = rgb + 3 * ((size_t)(IMG - 1 - j) * IMG + i);
      c[0] = c[1] = c[2] = g;
    }
  int png_failed = png_write_rgb(out, rgb, IMG, IMG);
  printf("mgpcg: N=%d, %d iterations in %.3f s; |b - Ax|/|b| = %.3e (tol %.1e); %s\n",
         N, it + 1 < iters ? it + 1 : iters, secs, rel, tol, out);
  free(x);
  mgpcg_destroy(ctx);
  if (png_failed)
    FAIL("writing %s failed", out);
  if (outside)
    FAIL("%d cells outside the interior are not 0", outside);
  if (!(rel <= tol))
    FAIL("relative residual %.3e above %.1e", rel, tol);
  return failures != 0;
}

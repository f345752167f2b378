/* examples/laplace/main.c - Jacobi iterations for -lap(u) = f (laplace.tc),
 * checked against a plain C implementation of the same iteration.
 *
 *   laplace [--iters N] [--every K] [--source S] [--threads N]
 *           [--back-to-back N]
 *
 * Every K double sweeps (u -> v -> u) it prints the max-norm residual
 * |f + lap(u)| computed by the module's residual() kernel, the residual of
 * the C reference and the largest difference between the two solutions.
 * The residual decreases; both columns agree to float rounding.
 * --back-to-back N then times N more double sweeps of the module alone, with
 * no host work between the launches (scripts/bench-wait.sh). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "laplace.h"

static const int64_t kShape[] = LAPLACE_U_SHAPE;

/* ---- plain C reference: the same arithmetic as laplace.tc ------------- */
typedef struct {
  int n;
  float h;
  float *u, *v, *f;
} ref_state;

static void ref_init(ref_state *s, float source) {
  int n = s->n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float x = i * s->h, y = j * s->h;
      s->f[i * n + j] = source * expf(-50.0f * ((x - 0.5f) * (x - 0.5f) +
                                                (y - 0.5f) * (y - 0.5f)));
      float top = j == n - 1 ? 1.0f : 0.0f;
      s->u[i * n + j] = top;
      s->v[i * n + j] = top;
    }
}

static void ref_sweep(const ref_state *s, const float *src, float *dst) {
  int n = s->n;
  float hh = s->h * s->h;
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j)
      dst[i * n + j] =
          0.25f * (src[(i - 1) * n + j] + src[(i + 1) * n + j] +
                   src[i * n + j - 1] + src[i * n + j + 1] + hh * s->f[i * n + j]);
}

static float ref_residual(const ref_state *s) {
  int n = s->n;
  float hh = s->h * s->h, r = 0.0f;
  const float *u = s->u;
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) {
      float lap = (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                   u[i * n + j + 1] - 4.0f * u[i * n + j]) /
                  hh;
      float a = fabsf(s->f[i * n + j] + lap);
      if (a > r)
        r = a;
    }
  return r;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int check(laplace_ctx *ctx, tc_status st, const char *what) {
  if (st != TC_OK) {
    fprintf(stderr, "laplace: %s failed: %s (%s)\n", what,
            tc_status_string(st), laplace_last_error(ctx));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int iters = 2000, every = 200, threads = 0, backToBack = 0;
  float source = 10.0f;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--every") && i + 1 < argc)
      every = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--source") && i + 1 < argc)
      source = (float)atof(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--back-to-back") && i + 1 < argc)
      backToBack = atoi(argv[++i]);
    else {
      fprintf(stderr,
              "usage: %s [--iters N] [--every K] [--source S] [--threads N] "
              "[--back-to-back N]\n",
              argv[0]);
      return 2;
    }
  }
  if (iters < 0 || every < 1 || backToBack < 0) {
    fprintf(stderr, "laplace: --iters and --back-to-back must be >= 0 and "
                    "--every >= 1\n");
    return 2;
  }

  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  laplace_ctx *ctx = NULL;
  if (laplace_create(&opts, &ctx) != TC_OK) {
    fprintf(stderr, "laplace: create failed: %s\n", laplace_last_error(NULL));
    return 1;
  }
  const int n = (int)kShape[0];
  const size_t cells = (size_t)n * n;
  ref_state ref = {n, 1.0f / (float)(n - 1), malloc(sizeof(float) * cells),
                   malloc(sizeof(float) * cells), malloc(sizeof(float) * cells)};
  float *u = malloc(sizeof(float) * cells);
  if (!ref.u || !ref.v || !ref.f || !u) {
    fprintf(stderr, "laplace: out of memory\n");
    return 1;
  }

  int rc = check(ctx, laplace_init(ctx, source), "init");
  ref_init(&ref, source);
  printf("laplace: %dx%d grid, Jacobi, %d double sweeps (u->v->u)\n", n, n,
         iters);
  printf("%8s  %14s  %14s  %12s\n", "sweeps", "residual (tic)", "residual (C)",
         "max |u-u_C|");
  double t_ours = 0, t_ref = 0;
  float first = -1.0f, last = -1.0f;
  for (int it = 0; it <= iters && !rc; ++it) {
    if (it % every == 0 || it == iters) {
      float r = 0.0f;
      if ((rc = check(ctx, laplace_residual(ctx, &r), "residual")) ||
          (rc = check(ctx, laplace_u_read(ctx, u, cells), "u_read")))
        break;
      float rr = ref_residual(&ref);
      double d = 0;
      for (size_t k = 0; k < cells; ++k) {
        double e = fabs((double)u[k] - (double)ref.u[k]);
        if (e > d)
          d = e;
      }
      printf("%8d  %14.6g  %14.6g  %12.3g\n", 2 * it, r, rr, d);
      if (first < 0)
        first = r;
      last = r;
      if (!(d < 1e-3)) {
        fprintf(stderr, "laplace: tic and the C reference disagree\n");
        rc = 1;
        break;
      }
    }
    if (it == iters)
      break;
    double t0 = now_s();
    if ((rc = check(ctx, laplace_sweep_uv(ctx), "sweep_uv")) ||
        (rc = check(ctx, laplace_sweep_vu(ctx), "sweep_vu")))
      break;
    double t1 = now_s();
    ref_sweep(&ref, ref.u, ref.v);
    ref_sweep(&ref, ref.v, ref.u);
    double t2 = now_s();
    t_ours += t1 - t0;
    t_ref += t2 - t1;
  }
  if (!rc) {
    printf("residual %.6g -> %.6g (%s)\n", first, last,
           last < first ? "decreasing" : "NOT decreasing");
    printf("time per double sweep: tic %.1f us, plain C (1 thread) %.1f us\n",
           iters ? 1e6 * t_ours / iters : 0.0, iters ? 1e6 * t_ref / iters : 0.0);
    if (!(last < first) && iters > 0)
      rc = 1;
  }
  if (!rc && backToBack > 0) {
    double t0 = now_s();
    for (int it = 0; it < backToBack && !rc; ++it)
      rc = check(ctx, laplace_sweep_uv(ctx), "sweep_uv") ||
           check(ctx, laplace_sweep_vu(ctx), "sweep_vu");
    if (!rc)
      printf("back-to-back: %.1f us per double sweep\n",
             1e6 * (now_s() - t0) / backToBack);
  }
  free(u);
  free(ref.u);
  free(ref.v);
  free(ref.f);
  laplace_destroy(ctx);
  return rc;
}

/* examples/taichi-ports/mpm128/main.c - the host side of Taichi's mpm128.py,
 * headless: instead of a GUI window it writes one PNG per frame,
 * DIR/mpm128_0000.png, ... (512x512, particles coloured by material with the
 * original's palette). Gravity points down and the mouse attractor is off,
 * which is what the original does while no key or button is pressed.
 *
 *   mpm128 [--frames N] [--substeps N] [--out DIR] [--every N] [--threads N]
 *          [--seed S] [--free-fall N]
 *
 * --every N writes every N-th frame (and the last); --substeps defaults to
 * int(2e-3 // dt) = 19 as in the original.
 *
 * The state is checked against what the method guarantees, recomputed here
 * in double from the fields read back; any violation prints why and exits 1:
 *   - after reset: 3000 particles per material, each block inside its
 *     rectangle with its mean position at the rectangle's centre (within 5
 *     standard errors of a uniform sample), v = 0, F = I, Jp = 1;
 *   - every frame: no NaN or infinity; every particle's 3x3 stencil inside
 *     the grid; the grid mass after P2G equals the particle mass sum (the
 *     B-spline weights are a partition of unity); materials keep their
 *     counts; jelly never changes Jp (Jp == 1 exactly); fluid F is
 *     sqrt(J) I (diagonal, equal entries); snow F has its singular values
 *     inside the plasticity clamp [1 - 2.5e-2, 1 + 4.5e-3];
 *   - every substep of the first --free-fall substeps (38 by default; no
 *     block touches a wall yet): total momentum is that of free fall,
 *     mean v = k dt g 30, and the centre of mass has moved by
 *     dt^2 g 30 k (k + 1) / 2 (P2G/G2P conserve momentum and internal
 *     forces cancel).
 * The snow lands around frame 95, so the plasticity check needs ~100
 * frames to see singular values at the clamp. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mpm128.h"
#include "png_util.h"

#define EXAMPLE_NAME "mpm128"
#define EXAMPLE_LAST_ERROR mpm128_last_error
#include "example_util.h"

#define IMG 512
#define NP MPM128_CONST_N_PARTICLES
#define NG MPM128_CONST_N_GRID

static const double kDt = 1e-4 / MPM128_CONST_QUALITY; /* dt of mpm128.py */
static const double kPMass =
    (0.5 / NG) * (0.5 / NG) * 1.0; /* p_vol * p_rho */

static mpm128_ctx *ctx;
static float xs[2 * NP], vs[2 * NP], Fs[4 * NP], Jps[NP];
static int32_t mats[NP];
static float gm[NG * NG];




static void read_particles(void) {
  RUN(mpm128_x_read(ctx, xs, 2 * (size_t)NP));
  RUN(mpm128_v_read(ctx, vs, 2 * (size_t)NP));
  RUN(mpm128_F_read(ctx, Fs, 4 * (size_t)NP));
  RUN(mpm128_Jp_read(ctx, Jps, (size_t)NP));
  RUN(mpm128_material_read(ctx, mats, (size_t)NP));
}

/* reset(): group g = i // 3000 is material g, uniform in
 * [0.3 + 0.1 g, 0.5 + 0.1 g) x [0.05 + 0.32 g, 0.25 + 0.32 g). */
static void check_reset(void) {
  const int group = NP / 3;
  double sx[3] = {0}, sy[3] = {0};
  int count[3] = {0};
  read_particles();
  for (int p = 0; p < NP; ++p) {
    int g = p / group, m = mats[p];
    if (m != g) {
      FAIL("reset: particle %d has material %d, expected %d", p, m, g);
      continue;
    }
    ++count[m];
    double x0 = 0.3 + 0.1 * g, y0 = 0.05 + 0.32 * g;
    double x = xs[2 * p], y = xs[2 * p + 1];
    if (!(x >= x0 - 1e-6 && x <= x0 + 0.2 + 1e-6 && y >= y0 - 1e-6 &&
          y <= y0 + 0.2 + 1e-6))
      FAIL("reset: particle %d at (%g, %g) outside block %d", p, x, y, g);
    sx[g] += x - x0 - 0.1;
    sy[g] += y - y0 - 0.1;
    const float *F = Fs + 4 * p;
    if (vs[2 * p] != 0 || vs[2 * p + 1] != 0 || F[0] != 1 || F[1] != 0 ||
        F[2] != 0 || F[3] != 1 || Jps[p] != 1)
      FAIL("reset: particle %d does not start at rest with F = I, Jp = 1", p);
  }
  /* Standard error of the mean of n uniform samples of width 0.2. */
  const double se = 0.2 / sqrt(12.0) / sqrt((double)group);
  for (int g = 0; g < 3; ++g) {
    if (count[g] != group)
      FAIL("reset: %d particles of material %d, expected %d", count[g], g,
           group);
    if (fabs(sx[g] / group) > 5 * se || fabs(sy[g] / group) > 5 * se)
      FAIL("reset: block %d is off-centre by (%g, %g) (5 s.e. = %g)", g,
           sx[g] / group, sy[g] / group, 5 * se);
  }
}

/* Singular values of a 2x2 matrix: square roots of the eigenvalues of
 * F^T F, in double. */
static void singular_values(const float *F, double *s0, double *s1) {
  double a = F[0], b = F[1], c = F[2], d = F[3];
  double p = a * a + c * c, q = b * b + d * d, r = a * b + c * d;
  double mean = 0.5 * (p + q), dev = sqrt(0.25 * (p - q) * (p - q) + r * r);
  *s0 = sqrt(mean + dev);
  *s1 = sqrt(fmax(mean - dev, 0.0));
}

/* The invariants that hold after every substep. */
static void check_frame(int frame) {
  int count[3] = {0};
  read_particles();
  RUN(mpm128_grid_m_read(ctx, gm, (size_t)NG * NG));
  for (int p = 0; p < NP; ++p) {
    double x = xs[2 * p], y = xs[2 * p + 1];
    const float *F = Fs + 4 * p;
    int finite = isfinite(x) && isfinite(y) && isfinite(vs[2 * p]) &&
                 isfinite(vs[2 * p + 1]) && isfinite(Jps[p]);
    for (int k = 0; k < 4; ++k)
      finite = finite && isfinite(F[k]);
    if (!finite) {
      FAIL("frame %d: particle %d has a NaN or infinite value", frame, p);
      continue;
    }
    /* base = floor(x * inv_dx - 0.5); the stencil is base .. base + 2. */
    double bx = floor(x * NG - 0.5), by = floor(y * NG - 0.5);
    if (bx < 0 || by < 0 || bx + 2 > NG - 1 || by + 2 > NG - 1)
      FAIL("frame %d: particle %d at (%g, %g) left the grid", frame, p, x, y);
    int m = mats[p];
    if (m < 0 || m > 2) {
      FAIL("frame %d: particle %d has material %d", frame, p, m);
      continue;
    }
    ++count[m];
    if (m == 1 && Jps[p] != 1.0f)
      FAIL("frame %d: jelly particle %d has Jp = %.9g, expected 1", frame, p,
           Jps[p]);
    if (m == 0 && (F[1] != 0 || F[2] != 0 || F[0] != F[3] || !(F[0] > 0)))
      FAIL("frame %d: fluid particle %d has F = [[%g, %g], [%g, %g]], "
           "expected sqrt(J) I",
           frame, p, F[0], F[1], F[2], F[3]);
    if (m == 2) {
      double s0, s1;
      singular_values(F, &s0, &s1);
      if (s0 > 1 + 4.5e-3 + 1e-4 || s1 < 1 - 2.5e-2 - 1e-4)
        FAIL("frame %d: snow particle %d has singular values %.6f, %.6f "
             "outside [0.975, 1.0045]",
             frame, p, s0, s1);
    }
  }
  for (int m = 0; m < 3; ++m)
    if (count[m] != NP / 3)
      FAIL("frame %d: %d particles of material %d, expected %d", frame,
           count[m], m, NP / 3);
  double mass = 0;
  for (int k = 0; k < NG * NG; ++k) {
    if (!(gm[k] >= 0))
      FAIL("frame %d: grid mass %g at node %d", frame, gm[k], k);
    mass += gm[k];
  }
  double expect = NP * kPMass;
  if (fabs(mass - expect) > 1e-5 * expect)
    FAIL("frame %d: grid mass after P2G is %.9g, particle mass sum %.9g",
         frame, mass, expect);
}

/* Free fall of the whole system for the first substeps: with every block
 * away from the walls, P2G and G2P conserve momentum, internal (stress)
 * forces sum to zero on the grid and the attractor is off, so after k
 * substeps mean(v) = k dt a and the centre of mass has moved by
 * dt^2 a k (k + 1) / 2, with a = 30 gravity (grid update of mpm128.py). */
static void check_free_fall(int k, const double com0[2], const float g[2]) {
  double mv[2] = {0}, com[2] = {0};
  RUN(mpm128_x_read(ctx, xs, 2 * (size_t)NP));
  RUN(mpm128_v_read(ctx, vs, 2 * (size_t)NP));
  for (int p = 0; p < NP; ++p)
    for (int c = 0; c < 2; ++c) {
      mv[c] += vs[2 * p + c];
      com[c] += xs[2 * p + c];
    }
  for (int c = 0; c < 2; ++c) {
    double a = 30.0 * g[c];
    double v_expect = k * kDt * a, d_expect = kDt * kDt * a * k * (k + 1) / 2;
    double v_got = mv[c] / NP, d_got = com[c] / NP - com0[c];
    /* Tolerances: float rounding of the transfers, relative to the speed
     * and displacement a unit acceleration would give; for the positions
     * also half an ulp of x < 1 per substep: every particle moves by the
     * same dt v, so x += dt v rounds the same way for all particles of a
     * binade and the rounding errors do not average out. */
    double v_tol = 1e-3 * k * kDt * 30.0;
    double d_tol = 1e-3 * kDt * kDt * 30.0 * k * (k + 1) / 2 +
                   k * ldexp(1.0, -25);
    if (fabs(v_got - v_expect) > v_tol)
      FAIL("substep %d: mean v[%d] = %.9g, free fall gives %.9g", k, c,
           v_got, v_expect);
    if (fabs(d_got - d_expect) > d_tol)
      FAIL("substep %d: centre of mass moved %.9g along axis %d, free fall "
           "gives %.9g",
           k, d_got, c, d_expect);
  }
}

static const unsigned char kPalette[3][3] = {
    {0x06, 0x85, 0x87}, {0xED, 0x55, 0x3B}, {0xEE, 0xEE, 0xF0}};

/* gui.circles(x, radius=1.5, palette=..., palette_indices=material) on the
 * background 0x112F41. */
static void draw(unsigned char *rgb) {
  for (int k = 0; k < IMG * IMG; ++k) {
    rgb[3 * k] = 0x11;
    rgb[3 * k + 1] = 0x2f;
    rgb[3 * k + 2] = 0x41;
  }
  for (int p = 0; p < NP; ++p) {
    float px = xs[2 * p] * IMG, py = (1.0f - xs[2 * p + 1]) * IMG;
    const unsigned char *col = kPalette[mats[p] >= 0 && mats[p] < 3 ? mats[p] : 0];
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) {
        int X = (int)floorf(px) + dx, Y = (int)floorf(py) + dy;
        float ex = X + 0.5f - px, ey = Y + 0.5f - py;
        if (X < 0 || Y < 0 || X >= IMG || Y >= IMG ||
            ex * ex + ey * ey > 1.5f * 1.5f)
          continue;
        memcpy(rgb + 3 * ((size_t)Y * IMG + X), col, 3);
      }
  }
}

static void usage(const char *argv0) {
  fprintf(stderr,
          "usage: %s [--frames N] [--substeps N] [--out DIR] [--every N]\n"
          "          [--threads N] [--seed S] [--free-fall N]\n",
          argv0);
  exit(2);
}

int main(int argc, char **argv) {
  /* int(2e-3 // dt) substeps per frame, as in mpm128.py. */
  /* Python's float floor division: 2e-3 // 1e-4 is 19.0, not 20. */
  int frames = 100, threads = 0, every = 1, free_fall = 38;
  int substeps = (int)round((2e-3 - fmod(2e-3, kDt)) / kDt);
  unsigned long long seed = 0;
  const char *out = "frames";
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (i + 1 >= argc)
      usage(argv[0]);
    if (!strcmp(a, "--frames"))
      frames = atoi(argv[++i]);
    else if (!strcmp(a, "--substeps"))
      substeps = atoi(argv[++i]);
    else if (!strcmp(a, "--out"))
      out = argv[++i];
    else if (!strcmp(a, "--every"))
      every = atoi(argv[++i]);
    else if (!strcmp(a, "--threads"))
      threads = atoi(argv[++i]);
    else if (!strcmp(a, "--seed"))
      seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--free-fall"))
      free_fall = atoi(argv[++i]);
    else
      usage(argv[0]);
  }
  if (frames < 0 || substeps < 1 || every < 1 || free_fall < 0) {
    fprintf(stderr, "mpm128: --frames and --free-fall must be >= 0, "
                    "--substeps and --every >= 1\n");
    return 2;
  }
  if (mkdir(out, 0777) != 0 && errno != EEXIST) {
    perror(out);
    return 1;
  }

  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  opts.seed = seed;
  if (mpm128_create(&opts, &ctx) != TC_OK) {
    fprintf(stderr, "mpm128: create failed: %s\n", mpm128_last_error(NULL));
    return 1;
  }
  unsigned char *rgb = malloc((size_t)IMG * IMG * 3);
  size_t pathlen = strlen(out) + 32;
  char *path = malloc(pathlen);
  if (!rgb || !path) {
    fprintf(stderr, "mpm128: out of memory\n");
    return 1;
  }

  /* reset(); gravity[None] = [0, -1]; attractor off (no mouse button). */
  const float gravity[2] = {0.0f, -1.0f}, attractor[2] = {0.5f, 0.5f};
  RUN(mpm128_reset(ctx));
  RUN(mpm128_gravity_set(ctx, gravity));
  RUN(mpm128_attractor_pos_set(ctx, attractor));
  RUN(mpm128_attractor_strength_set(ctx, 0.0f));
  check_reset();
  double com0[2] = {0, 0};
  for (int p = 0; p < NP; ++p) {
    com0[0] += xs[2 * p];
    com0[1] += xs[2 * p + 1];
  }
  com0[0] /= NP;
  com0[1] /= NP;

  double t_sim = 0;
  long long step = 0;
  for (int f = 0; f < frames && !failures; ++f) {
    for (int s = 0; s < substeps; ++s) {
      double t0 = now_s();
      RUN(mpm128_substep(ctx));
      t_sim += now_s() - t0;
      if (++step <= free_fall)
        check_free_fall((int)step, com0, gravity);
    }
    check_frame(f);
    if (f % every == 0 || f == frames - 1) {
      draw(rgb);
      snprintf(path, pathlen, "%s/mpm128_%04d.png", out, f);
      if (png_write_rgb(path, rgb, IMG, IMG) != 0)
        return 1;
    }
    if (f % 10 == 0 || f == frames - 1) {
      double cy[3] = {0};
      for (int p = 0; p < NP; ++p)
        cy[mats[p]] += xs[2 * p + 1];
      printf("frame %4d: mean height fluid %.3f jelly %.3f snow %.3f\n", f,
             cy[0] / (NP / 3), cy[1] / (NP / 3), cy[2] / (NP / 3));
    }
  }
  if (failures) {
    fprintf(stderr, "mpm128: %d check(s) failed\n", failures);
    return 1;
  }
  printf("mpm128: %d particles, %d frames x %d substeps in %.2f s "
         "(%.1f us per substep); checks passed; frames in %s/\n",
         NP, frames, substeps, t_sim, step ? 1e6 * t_sim / step : 0.0, out);
  free(path);
  free(rgb);
  mpm128_destroy(ctx);
  return 0;
}

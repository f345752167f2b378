/* examples/mpm88/main.c - runs the MLS-MPM fluid of mpm88.tc and writes one
 * PNG per frame: frames/mpm88_0000.png, ... (512x512, particles as dots).
 *
 *   mpm88 [--frames N] [--substeps N] [--out DIR] [--threads N]
 *
 * A block of fluid falls under gravity, hits the floor and splashes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mpm88.h"
#include "png_util.h"

#define IMG 512

static const int64_t kParticles[] = MPM88_X_SHAPE;

static int check(mpm88_ctx *ctx, tc_status st, const char *what) {
  if (st != TC_OK) {
    fprintf(stderr, "mpm88: %s failed: %s (%s)\n", what, tc_status_string(st),
            mpm88_last_error(ctx));
    return 1;
  }
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Background and particle colours of Taichi's mpm88 GUI. */
static void draw(unsigned char *rgb, const float *x, int64_t n) {
  for (int k = 0; k < IMG * IMG; ++k) {
    rgb[3 * k] = 0x11;
    rgb[3 * k + 1] = 0x2f;
    rgb[3 * k + 2] = 0x41;
  }
  for (int64_t p = 0; p < n; ++p) {
    /* x in [0, 1]^2, y up; a dot of radius ~1.5 px. */
    float px = x[2 * p] * IMG, py = (1.0f - x[2 * p + 1]) * IMG;
    int cx = (int)px, cy = (int)py;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int X = cx + dx, Y = cy + dy;
        if (X < 0 || Y < 0 || X >= IMG || Y >= IMG)
          continue;
        if (dx != 0 && dy != 0) /* a plus-shaped dot */
          continue;
        unsigned char *c = rgb + 3 * ((size_t)Y * IMG + X);
        c[0] = 0x06;
        c[1] = 0x85;
        c[2] = 0x87;
      }
  }
}

int main(int argc, char **argv) {
  int frames = 50, substeps = 50, threads = 0;
  const char *out = "frames";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--substeps") && i + 1 < argc)
      substeps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else {
      fprintf(stderr,
              "usage: %s [--frames N] [--substeps N] [--out DIR] [--threads N]\n",
              argv[0]);
      return 2;
    }
  }
  if (frames < 0 || substeps < 1) {
    fprintf(stderr, "mpm88: --frames must be >= 0 and --substeps >= 1\n");
    return 2;
  }
  if (mkdir(out, 0777) != 0 && errno != EEXIST) {
    perror(out);
    return 1;
  }

  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  mpm88_ctx *ctx = NULL;
  if (mpm88_create(&opts, &ctx) != TC_OK) {
    fprintf(stderr, "mpm88: create failed: %s\n", mpm88_last_error(NULL));
    return 1;
  }
  const int64_t n = kParticles[0];
  float *x = malloc(sizeof(float) * 2 * (size_t)n);
  unsigned char *rgb = malloc((size_t)IMG * IMG * 3);
  size_t pathlen = strlen(out) + 32;
  char *path = malloc(pathlen);
  if (!x || !rgb || !path) {
    fprintf(stderr, "mpm88: out of memory\n");
    return 1;
  }
  int rc = check(ctx, mpm88_init(ctx), "init");
  double t_sim = 0;
  for (int f = 0; f < frames && !rc; ++f) {
    double t0 = now_s();
    for (int s = 0; s < substeps && !rc; ++s)
      rc = check(ctx, mpm88_substep(ctx), "substep");
    t_sim += now_s() - t0;
    if (rc || (rc = check(ctx, mpm88_x_read(ctx, x, 2 * (size_t)n), "x_read")))
      break;
    /* Centre of mass, to show on the console that the block falls. */
    double cy = 0;
    for (int64_t p = 0; p < n; ++p)
      cy += x[2 * p + 1];
    draw(rgb, x, n);
    snprintf(path, pathlen, "%s/mpm88_%04d.png", out, f);
    if (png_write_rgb(path, rgb, IMG, IMG) != 0) {
      rc = 1;
      break;
    }
    printf("frame %3d: %s  mean height %.3f\n", f, path, cy / n);
  }
  if (!rc)
    printf("mpm88: %lld particles, %d frames x %d substeps in %.2f s "
           "(%.1f us per substep); frames in %s/\n",
           (long long)n, frames, substeps, t_sim,
           frames ? 1e6 * t_sim / ((double)frames * substeps) : 0.0, out);
  free(path);
  free(rgb);
  free(x);
  mpm88_destroy(ctx);
  return rc;
}

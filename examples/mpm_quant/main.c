/* examples/mpm_quant/main.c - mpm88 with quantized particles beside the f32
 * mpm88, same initial particles, same kernels: one PNG per frame with both
 * side by side (left f32, right quantized), frames/mpm_quant_XXXX.png
 * (1024x512), and the bytes per particle of each module, measured from
 * their layouts (the root buffer of each context minus the f32 grid both
 * share).
 *
 *   mpm_quant [--frames N] [--out DIR] [--threads N]
 *
 * Fails (exit 1) unless the quantized particles stay in the box, their mean
 * height follows the f32 run's within 0.02 and they take at most 60% of the
 * f32 bytes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "mpm88.h"
#include "mpm_quant.h"
#define EXAMPLE_NAME "mpm_quant"
#define EXAMPLE_LAST_ERROR mpm_quant_last_error
#include "example_util.h"
#include "png_util.h"

#define IMG 512
#define SUBSTEPS 50

static const int64_t kParticles[] = MPM_QUANT_X_SHAPE;
static const int64_t kGrid[] = MPM_QUANT_GRID_M_SHAPE;

/* Dots as mpm88 draws them, into the panel at column offset `x0`. */
static void draw(unsigned char *rgb, int x0, const float *x, int64_t n) {
  for (int y = 0; y < IMG; ++y)
    for (int c = 0; c < IMG; ++c) {
      unsigned char *p = rgb + 3 * ((size_t)y * 2 * IMG + x0 + c);
      p[0] = 0x11, p[1] = 0x2f, p[2] = 0x41;
    }
  for (int64_t k = 0; k < n; ++k) {
    int cx = (int)(x[2 * k] * IMG), cy = (int)((1.0f - x[2 * k + 1]) * IMG);
    for (int d = -1; d <= 1; ++d)
      for (int e = -1; e <= 1; ++e) {
        int X = cx + d, Y = cy + e;
        if ((d && e) || X < 0 || Y < 0 || X >= IMG || Y >= IMG)
          continue;
        unsigned char *p = rgb + 3 * ((size_t)Y * 2 * IMG + x0 + X);
        p[0] = 0x06, p[1] = 0x85, p[2] = 0x87;
      }
  }
}

static double mean_height(const float *x, int64_t n) {
  double s = 0;
  for (int64_t k = 0; k < n; ++k)
    s += x[2 * k + 1];
  return s / (double)n;
}

int main(int argc, char **argv) {
  struct frame_args args = {50, 0, "frames"};
  int rc = parse_frame_args(argc, argv, &args);
  if (rc)
    return rc;
  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = args.threads;
  mpm_quant_ctx *ctx = NULL;
  mpm88_ctx *ref = NULL;
  RUN(mpm_quant_create(&opts, &ctx));
  if (mpm88_create(&opts, &ref) != TC_OK) {
    fprintf(stderr, "mpm_quant: mpm88_create failed: %s\n",
            mpm88_last_error(NULL));
    return 1;
  }
  const int64_t n = kParticles[0];

  /* Bytes per particle: each context's root buffer less the grid (vec2 +
     f32 per node in both). */
  tc_memory_stats sq, sf;
  RUN(mpm_quant_memory_stats(ctx, NULL, &sq));
  if (mpm88_memory_stats(ref, NULL, &sf) != TC_OK)
    return 1;
  double grid = (double)(kGrid[0] * kGrid[1]) * (2 * sizeof(float) + sizeof(float));
  double bq = ((double)sq.reserved_bytes - grid) / (double)n;
  double bf = ((double)sf.reserved_bytes - grid) / (double)n;
  printf("bytes per particle: f32 %.1f, quantized %.1f (%.0f%%)\n", bf, bq,
         100.0 * bq / bf);
  if (!(bq <= 0.6 * bf))
    FAIL("the quantized particles take %.1f bytes, more than 60%% of %.1f\n",
         bq, bf);

  float *xq = malloc(sizeof(float) * 2 * (size_t)n);
  float *xf = malloc(sizeof(float) * 2 * (size_t)n);
  unsigned char *rgb = malloc((size_t)IMG * 2 * IMG * 3);
  char path[4096];
  if (!xq || !xf || !rgb) {
    fprintf(stderr, "mpm_quant: out of memory\n");
    return 1;
  }
  RUN(mpm_quant_init(ctx));
  if (mpm88_init(ref) != TC_OK)
    return 1;
  double t_q = 0, t_f = 0, worst = 0;
  for (int f = 0; f < args.frames; ++f) {
    double t0 = now_s();
    for (int s = 0; s < SUBSTEPS; ++s)
      RUN(mpm_quant_substep(ctx));
    double t1 = now_s();
    for (int s = 0; s < SUBSTEPS; ++s)
      if (mpm88_substep(ref) != TC_OK)
        return 1;
    t_q += t1 - t0;
    t_f += now_s() - t1;
    RUN(mpm_quant_x_read(ctx, xq, 2 * (size_t)n));
    if (mpm88_x_read(ref, xf, 2 * (size_t)n) != TC_OK)
      return 1;
    for (int64_t k = 0; k < 2 * n; ++k)
      if (!(xq[k] >= 0.0f && xq[k] < 1.0f)) {
        FAIL("frame %d: particle %lld left the box (%g)\n", f,
             (long long)(k / 2), xq[k]);
        break;
      }
    double hq = mean_height(xq, n), hf = mean_height(xf, n);
    worst = fmax(worst, fabs(hq - hf));
    if (!(fabs(hq - hf) <= 0.02))
      FAIL("frame %d: mean height %.4f, the f32 run's %.4f\n", f, hq, hf);
    draw(rgb, 0, xf, n);
    draw(rgb, IMG, xq, n);
    snprintf(path, sizeof path, "%s/mpm_quant_%04d.png", args.out, f);
    if (png_write_rgb(path, rgb, 2 * IMG, IMG) != 0)
      return 1;
    printf("frame %3d: %s  mean height f32 %.4f, quantized %.4f\n", f, path,
           hf, hq);
  }
  printf("mpm_quant: %lld particles, %d frames x %d substeps: quantized %.2f s, "
         "f32 %.2f s; mean heights differ by %.4f at most\n",
         (long long)n, args.frames, SUBSTEPS, t_q, t_f, worst);
  free(rgb);
  free(xf);
  free(xq);
  mpm88_destroy(ref);
  mpm_quant_destroy(ctx);
  return failures ? 1 : 0;
}

/* examples/life/main.c - Conway's Game of Life, one bit per cell
 * (life.tc, bit_vectorize(32)).
 *
 *   life [--frames N] [--out DIR] [--threads N]
 *
 * Runs N generations (default 100) of a random soup on the n x n grid the
 * module was built for (32768 x 32768: two 128 MiB fields) and writes a
 * 512 x 512 window of the centre as DIR/life_XXXX.png every 10 generations.
 *
 * Built with -D n=1024 and LIFE_CHECK (the target life_check), it runs the
 * same soup through life_bytes.tc (a byte per cell, scalar kernels) and
 * fails unless both grids agree on every cell after every generation. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "life.h"
#define EXAMPLE_NAME "life"
#define EXAMPLE_LAST_ERROR life_last_error
#include "example_util.h"
#include "png_util.h"
#ifdef LIFE_CHECK
#include "life_bytes.h"
#endif

#define WIN 512

static const int64_t kShape[] = LIFE_A_SHAPE;

/* A window of the current generation (in b after an odd number of steps)
 * centred in the grid, as a PNG (alive: white). */
static int write_window(life_ctx *ctx, int64_t n, int in_b, const char *path) {
  static int32_t cells[WIN * WIN];
  static unsigned char rgb[WIN * WIN * 3];
  int w = n < WIN ? (int)n : WIN;
  tc_ndarray d;
  memset(&d, 0, sizeof d);
  d.data = cells;
  d.ndim = 2;
  d.shape[0] = d.shape[1] = w;
  d.dtype = TC_DTYPE_I32;
  int32_t o = (int32_t)((n - w) / 2);
  RUN(in_b ? life_window_b(ctx, d, o, o) : life_window_a(ctx, d, o, o));
  long alive = 0;
  for (int k = 0; k < w * w; ++k) {
    unsigned char c = cells[k] ? 0xf0 : 0x18;
    rgb[3 * k] = rgb[3 * k + 1] = rgb[3 * k + 2] = c;
    alive += cells[k];
  }
  if (png_write_rgb(path, rgb, w, w) != 0)
    return -1;
  return (int)alive;
}

int main(int argc, char **argv) {
  struct frame_args args = {100, 0, "frames"};
  int rc = parse_frame_args(argc, argv, &args);
  if (rc)
    return rc;
  const int64_t n = kShape[0];
  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = args.threads;
  life_ctx *ctx = NULL;
  RUN(life_create(&opts, &ctx));
  printf("life: %lld x %lld cells, 2 bits each (two 1-bit fields: %.0f MiB)\n",
         (long long)n, (long long)n,
         2.0 * (double)n * (double)n / 8 / (1 << 20));
  double t0 = now_s();
  RUN(life_init(ctx));
  printf("life: random soup in %.2f s\n", now_s() - t0);

#ifdef LIFE_CHECK
  /* The byte-per-cell reference from the same soup. */
  life_bytes_ctx *ref = NULL;
  if (life_bytes_create(&opts, &ref) != TC_OK)
    return 1;
  size_t cells = (size_t)(n * n);
  uint32_t *bits = malloc(cells * sizeof *bits);
  uint8_t *bytes = malloc(cells), *want = malloc(cells);
  if (!bits || !bytes || !want)
    return 1;
  RUN(life_a_read(ctx, bits, cells));
  for (size_t k = 0; k < cells; ++k)
    bytes[k] = (uint8_t)bits[k];
  if (life_bytes_a_write(ref, bytes, cells) != TC_OK ||
      life_bytes_b_write(ref, bytes, cells) != TC_OK)
    return 1;
  RUN(life_b_write(ctx, bits, cells));
#endif

  double t_gen = 0;
  for (int g = 0; g < args.frames; ++g) {
    double t1 = now_s();
    RUN(g % 2 ? life_step_ba(ctx) : life_step_ab(ctx));
    t_gen += now_s() - t1;
#ifdef LIFE_CHECK
    if ((g % 2 ? life_bytes_step_ba(ref) : life_bytes_step_ab(ref)) != TC_OK)
      return 1;
    RUN(g % 2 ? life_a_read(ctx, bits, cells) : life_b_read(ctx, bits, cells));
    if ((g % 2 ? life_bytes_a_read(ref, want, cells)
               : life_bytes_b_read(ref, want, cells)) != TC_OK)
      return 1;
    size_t bad = 0;
    for (size_t k = 0; k < cells; ++k)
      bad += (uint8_t)bits[k] != want[k];
    if (bad)
      FAIL("generation %d: %zu cells differ from the byte-per-cell run\n",
           g + 1, bad);
#endif
    if (g % 10 == 9 || g + 1 == args.frames) {
      char path[4096];
      snprintf(path, sizeof path, "%s/life_%04d.png", args.out, g + 1);
      int alive = write_window(ctx, n, g % 2 == 0, path);
      if (alive < 0)
        return 1;
      printf("generation %4d: %s (%d alive in the window)\n", g + 1, path,
             alive);
    }
  }
  printf("life: %d generations of %lld cells in %.2f s (%.2f ns per cell)\n",
         args.frames, (long long)(n * n), t_gen,
         args.frames
             ? 1e9 * t_gen / ((double)args.frames * (double)n * (double)n)
             : 0.0);
#ifdef LIFE_CHECK
  if (!failures)
    printf("life: bit-per-cell and byte-per-cell grids agree after every "
           "generation\n");
  free(bits), free(bytes), free(want);
  life_bytes_destroy(ref);
#endif
  life_destroy(ctx);
  return failures ? 1 : 0;
}

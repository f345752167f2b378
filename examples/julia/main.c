/* examples/julia/main.c - renders the Julia set of julia.tc into julia.png.
 *
 *   julia [-o FILE] [--t T]
 *
 * The kernel paints pixels[i, j] (i along x, j along y, 1 = escaped at once,
 * 0 = inside the set) for c = (-0.8, 0.2 cos t). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "julia.h"
#include "png_util.h"

static const int64_t kShape[] = JULIA_PIXELS_SHAPE;

int main(int argc, char **argv) {
  const char *out = "julia.png";
  float t = 0.3f;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--t") && i + 1 < argc)
      t = (float)atof(argv[++i]);
    else {
      fprintf(stderr, "usage: %s [-o FILE] [--t T]\n", argv[0]);
      return 2;
    }
  }
  julia_ctx *ctx = NULL;
  if (julia_create(NULL, &ctx) != TC_OK) {
    fprintf(stderr, "julia: create failed: %s\n", julia_last_error(NULL));
    return 1;
  }
  const int w = (int)kShape[0], h = (int)kShape[1];
  float *px = malloc(sizeof(float) * (size_t)w * h);
  unsigned char *rgb = malloc((size_t)w * h * 3);
  if (!px || !rgb) {
    fprintf(stderr, "julia: out of memory\n");
    return 1;
  }
  tc_status st = julia_paint(ctx, t);
  if (st == TC_OK)
    st = julia_pixels_read(ctx, px, (size_t)w * h);
  if (st != TC_OK) {
    fprintf(stderr, "julia: %s (%s)\n", tc_status_string(st),
            julia_last_error(ctx));
    return 1;
  }
  /* pixels[i, j] -> image column i, row h-1-j (y up); a blue-gold palette. */
  double mean = 0;
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      float v = px[(size_t)i * h + j];
      mean += v;
      float s = 1.0f - v; /* 0 far outside, 1 inside the set */
      unsigned char *c = rgb + 3 * ((size_t)(h - 1 - j) * w + i);
      c[0] = png_unit_to_byte(s * s * 1.2f);
      c[1] = png_unit_to_byte(s * 0.9f);
      c[2] = png_unit_to_byte(0.25f + 0.75f * s);
    }
  int rc = png_write_rgb(out, rgb, w, h) != 0;
  if (!rc)
    printf("julia: %dx%d pixels, t = %.2f, mean value %.4f -> %s\n", w, h,
           (double)t, mean / ((double)w * h), out);
  free(rgb);
  free(px);
  julia_destroy(ctx);
  return rc;
}

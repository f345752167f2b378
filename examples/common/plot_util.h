/* examples/common/plot_util.h - line plots into an 8-bit RGB image for the
 * examples that optimise something (header-only, C99): a line, a dot, and
 * the loss per iteration on a log scale. */
#ifndef TIC_EXAMPLES_PLOT_UTIL_H
#define TIC_EXAMPLES_PLOT_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An RGB image of w x h pixels, top row first. */
struct plot_image {
  unsigned char *rgb;
  int w, h;
};

static void plot_pixel(struct plot_image *im, int x, int y,
                       const unsigned char c[3]) {
  if (x >= 0 && y >= 0 && x < im->w && y < im->h)
    memcpy(im->rgb + 3 * ((size_t)y * im->w + x), c, 3);
}

/* Bresenham's line from (x0, y0) to (x1, y1). */
static void plot_line(struct plot_image *im, int x0, int y0, int x1, int y1,
                      const unsigned char c[3]) {
  int dx = abs(x1 - x0), dy = -abs(y1 - y0);
  int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, e = dx + dy;
  for (;;) {
    plot_pixel(im, x0, y0, c);
    if (x0 == x1 && y0 == y1)
      break;
    int e2 = 2 * e;
    if (e2 >= dy)
      e += dy, x0 += sx;
    if (e2 <= dx)
      e += dx, y0 += sy;
  }
}

/* A 3 x 3 dot centred on (x, y). */
static void plot_dot(struct plot_image *im, int x, int y,
                     const unsigned char c[3]) {
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      plot_pixel(im, x + dx, y + dy, c);
}

/* losses[0..n) on a log scale in the box [x0, x1] x [y0, y1], with axes. */
static void plot_losses(struct plot_image *im, const float *losses, int n,
                        int x0, int y0, int x1, int y1,
                        const unsigned char axis[3],
                        const unsigned char curve[3]) {
  plot_line(im, x0, y1, x1, y1, axis);
  plot_line(im, x0, y0, x0, y1, axis);
  double lmax = log10(losses[0] + 1e-20), lmin = lmax;
  for (int i = 0; i < n; ++i) {
    double l = log10(losses[i] + 1e-20);
    lmin = l < lmin ? l : lmin;
    lmax = l > lmax ? l : lmax;
  }
  if (lmax - lmin < 1e-6)
    lmax = lmin + 1;
  int px = -1, py = -1;
  for (int i = 0; i < n; ++i) {
    int x = x0 + (int)((double)i / (n > 1 ? n - 1 : 1) * (x1 - x0));
    int y = y0 + (int)((lmax - log10(losses[i] + 1e-20)) / (lmax - lmin) *
                       (y1 - y0));
    if (px >= 0)
      plot_line(im, px, py, x, y, curve);
    px = x, py = y;
  }
}

#endif

/* examples/mpm_sparse/main.c - runs mpm_sparse.tc: a square of fluid thrown
 * sideways onto a floor, on a grid that exists only where the particles
 * are (a hash of pointer blocks, particles binned into dynamic lists).
 * Writes one PNG per frame, frames/mpm_sparse_0000.png, ... (640x256, the
 * region x in [-1.0, 1.5], y in [0, 1]): particles in blue, the grid blocks
 * that exist in grey, none elsewhere.
 *
 *   mpm_sparse [--frames N] [--out DIR] [--threads N]
 *
 * Checks every frame, on the grid built from the particles' positions:
 * every particle is in exactly one bucket (the
 * struct-for over the lists counts n_particles), the grid holds the
 * particles' whole mass, every particle's 3x3 stencil lies in blocks that
 * exist, no particle is below the floor or not finite; exits 1
 * otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpm_sparse.h"
#define EXAMPLE_NAME "mpm_sparse"
#define EXAMPLE_LAST_ERROR mpm_sparse_last_error
#include "example_util.h"
#include "png_util.h"

#define NP MPM_SPARSE_CONST_N_PARTICLES
#define NG MPM_SPARSE_CONST_N_GRID
#define BLOCK MPM_SPARSE_CONST_BLOCK
#define MAXB MPM_SPARSE_CONST_MAX_BLOCKS
#define W 640
#define H 256
#define X0 (-1.0f) /* left edge of the picture */
#define PX 256.0f  /* pixels per unit length */

static int floordiv(int a, int b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int main(int argc, char **argv) {
  struct frame_args args = {60, 0, "frames"};
  int st = parse_frame_args(argc, argv, &args);
  if (st)
    return st;
  int frames = args.frames, threads = args.threads;
  const char *out = args.out;
  const int steps = 25; /* substeps per frame */
  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  mpm_sparse_ctx *ctx = NULL;
  RUN(mpm_sparse_create(&opts, &ctx));
  RUN(mpm_sparse_init(ctx));

  float *x = malloc(sizeof(float) * 2 * NP);
  int32_t *blocks = malloc(sizeof(int32_t) * 2 * MAXB);
  unsigned char *rgb = malloc(3 * W * H);
  if (!x || !blocks || !rgb) {
    fprintf(stderr, "mpm_sparse: out of memory\n");
    return 1;
  }
  const double mass = NP * MPM_SPARSE_CONST_P_MASS;
  double t0 = now_s();
  for (int f = 0; f < frames; ++f) {
    for (int s = 0; s < steps; ++s) {
      RUN(mpm_sparse_rebuild(ctx));
      RUN(mpm_sparse_advance(ctx));
    }
    /* The grid and buckets of the particles' current positions (the next
       substep starts the same way). */
    RUN(mpm_sparse_rebuild(ctx));
    int32_t binned = 0, nb = 0;
    float gm = 0;
    RUN(mpm_sparse_binned(ctx, &binned));
    RUN(mpm_sparse_grid_mass(ctx, &gm));
    RUN(mpm_sparse_list_blocks(ctx, &nb));
    RUN(mpm_sparse_x_read(ctx, x, 2 * NP));
    RUN(mpm_sparse_block_list_read(ctx, blocks, 2 * MAXB));
    tc_memory_stats leaves;
    RUN(mpm_sparse_memory_stats(ctx, "gleaf", &leaves));

    if (binned != NP)
      FAIL("frame %d: %d particles in the buckets, expected %d", f, binned, NP);
    if (fabs(gm - mass) > 1e-3 * mass)
      FAIL("frame %d: grid mass %g, particles' mass %g", f, gm, mass);
    if (nb > MAXB)
      FAIL("frame %d: %d blocks, more than the list holds", f, nb);
    /* Every particle's stencil corner block exists (as do the others of
       its 3x3 stencil; the corner is what the binning used). */
    for (int p = 0; p < NP; ++p) {
      float px = x[2 * p], py = x[2 * p + 1];
      if (!isfinite(px) || !isfinite(py) || py < 0.0f) {
        FAIL("frame %d: particle %d at (%g, %g)", f, p, px, py);
        continue;
      }
      int bx = floordiv((int)floorf(px * NG - 0.5f), BLOCK);
      int by = floordiv((int)floorf(py * NG - 0.5f), BLOCK);
      int found = 0;
      for (int b = 0; b < nb && b < MAXB && !found; ++b)
        found = blocks[2 * b] == bx && blocks[2 * b + 1] == by;
      if (!found)
        FAIL("frame %d: particle %d's block (%d, %d) does not exist", f, p, bx,
             by);
    }

    /* The picture: blocks in grey, particles in blue. */
    memset(rgb, 0, 3 * W * H);
    const float bpx = PX * BLOCK / NG; /* pixels per block */
    for (int b = 0; b < nb && b < MAXB; ++b) {
      int x0 = (int)floorf((blocks[2 * b] * BLOCK / (float)NG - X0) * PX);
      int y0 = (int)floorf(blocks[2 * b + 1] * BLOCK / (float)NG * PX);
      for (int yy = y0; yy < y0 + (int)bpx; ++yy)
        for (int xx = x0; xx < x0 + (int)bpx; ++xx) {
          if (xx < 0 || xx >= W || yy < 0 || yy >= H)
            continue;
          int edge = xx == x0 || yy == y0;
          unsigned char *q = rgb + 3 * ((H - 1 - yy) * W + xx);
          q[0] = q[1] = q[2] = edge ? 90 : 40;
        }
    }
    for (int p = 0; p < NP; ++p) {
      int xx = (int)((x[2 * p] - X0) * PX), yy = (int)(x[2 * p + 1] * PX);
      if (xx < 0 || xx >= W || yy < 0 || yy >= H)
        continue;
      unsigned char *q = rgb + 3 * ((H - 1 - yy) * W + xx);
      q[0] = 0x06;
      q[1] = 0x85;
      q[2] = 0xd0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/mpm_sparse_%04d.png", out, f);
    if (png_write_rgb(path, rgb, W, H) != 0) {
      fprintf(stderr, "mpm_sparse: cannot write %s\n", path);
      return 1;
    }
    printf("frame %3d: %s  %4d grid blocks, %6llu leaves (%.1f MiB "
           "committed)\n",
           f, path, nb, (unsigned long long)leaves.live_cells,
           leaves.committed_bytes / 1048576.0);
  }
  printf("mpm_sparse: %d frames in %.2f s; frames in %s/\n", frames,
         now_s() - t0, out);
  mpm_sparse_destroy(ctx);
  free(x);
  free(blocks);
  free(rgb);
  return failures ? 1 : 0;
}

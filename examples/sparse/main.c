/* examples/sparse/main.c - a splat circles the domain of sparse.tc; each frame
 * it is drawn, smoothed, pruned, and the blocks it left are freed. Writes
 * one PNG per frame: frames/sparse_0000.png, ... (512x512: density in
 * orange, allocated blocks in blue, unallocated space black).
 *
 *   sparse [--frames N] [--out DIR] [--threads N]
 *
 * Checks every frame against what the C side sees through the bulk read:
 * the active cells are exactly those at or above the pruning threshold, the
 * allocated blocks exactly those holding one, and the pool's live cells
 * (sparse_memory_stats) equal the allocated blocks; exits 1 otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sparse.h"
#define EXAMPLE_NAME "sparse"
#define EXAMPLE_LAST_ERROR sparse_last_error
#include "example_util.h"
#include "png_util.h"

#define N SPARSE_CONST_N
#define NB SPARSE_CONST_NB
#define BLOCK SPARSE_CONST_BLOCK
#define IMG 512
#define THRESHOLD 0.02f

int main(int argc, char **argv) {
  struct frame_args args = {60, 0, "frames"};
  int st = parse_frame_args(argc, argv, &args);
  if (st)
    return st;
  int frames = args.frames, threads = args.threads;
  const char *out = args.out;
  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  sparse_ctx *ctx = NULL;
  RUN(sparse_create(&opts, &ctx));

  float *density = malloc(sizeof(float) * N * N);
  int32_t *blocks = malloc(sizeof(int32_t) * NB * NB);
  unsigned char *rgb = malloc(3 * IMG * IMG);
  if (!density || !blocks || !rgb) {
    fprintf(stderr, "sparse: out of memory\n");
    return 1;
  }
  double t0 = now_s();
  for (int f = 0; f < frames; ++f) {
    /* The splat circles the domain's centre. */
    float phase = 6.2831853f * (float)f / 60.0f;
    float cx = N / 2 + 300.0f * cosf(phase), cy = N / 2 + 300.0f * sinf(phase);
    RUN(sparse_splat(ctx, cx, cy, 40.0f));
    RUN(sparse_smooth(ctx));
    RUN(sparse_prune(ctx, THRESHOLD));
    RUN(sparse_prune_blocks(ctx));

    int32_t cells = 0, nblocks = 0;
    RUN(sparse_count_cells(ctx, &cells));
    RUN(sparse_count_blocks(ctx, &nblocks));
    RUN(sparse_density_read(ctx, density, (size_t)N * N));
    RUN(sparse_block_map(ctx));
    RUN(sparse_blockmap_read(ctx, blocks, (size_t)NB * NB));
    tc_memory_stats ms;
    RUN(sparse_memory_stats(ctx, "blocks", &ms));

    /* What the C side sees must agree with the kernels' counts. */
    int32_t want_cells = 0, want_blocks = 0, mapped = 0;
    for (int b = 0; b < NB * NB; ++b) {
      int bi = b / NB, bj = b % NB, any = 0;
      for (int a = 0; a < BLOCK * BLOCK; ++a) {
        float d = density[(size_t)(bi * BLOCK + a / BLOCK) * N + bj * BLOCK +
                          a % BLOCK];
        if (d >= THRESHOLD) {
          ++want_cells;
          any = 1;
        } else if (d != 0.0f) {
          FAIL("frame %d: a pruned cell of block (%d, %d) reads %g", f, bi, bj,
               d);
        }
      }
      want_blocks += any;
      mapped += blocks[b];
      if (blocks[b] != any)
        FAIL("frame %d: block (%d, %d) allocated %d, holds cells %d", f, bi, bj,
             blocks[b], any);
    }
    if (cells != want_cells)
      FAIL("frame %d: %d active cells, %d at or above the threshold", f, cells,
           want_cells);
    if (nblocks != want_blocks || mapped != want_blocks ||
        ms.live_cells != (uint64_t)want_blocks)
      FAIL("frame %d: %d blocks, map %d, pool %llu, expected %d", f, nblocks,
           mapped, (unsigned long long)ms.live_cells, want_blocks);

    /* 2x2 cells per pixel: density in orange over the allocated blocks. */
    for (int y = 0; y < IMG; ++y)
      for (int x = 0; x < IMG; ++x) {
        int i = x * N / IMG, j = (IMG - 1 - y) * N / IMG;
        float d = density[(size_t)i * N + j];
        int alloc = blocks[(i / BLOCK) * NB + j / BLOCK];
        unsigned char *p = rgb + 3 * (y * IMG + x);
        float v = d > 1.0f ? 1.0f : d;
        p[0] = png_unit_to_byte(v + (alloc ? 0.05f : 0.0f));
        p[1] = png_unit_to_byte(0.55f * v + (alloc ? 0.1f : 0.0f));
        p[2] = png_unit_to_byte(alloc ? 0.35f : 0.0f);
      }
    char path[4096];
    snprintf(path, sizeof path, "%s/sparse_%04d.png", out, f);
    if (png_write_rgb(path, rgb, IMG, IMG) != 0) {
      fprintf(stderr, "sparse: cannot write %s\n", path);
      return 1;
    }
    printf("frame %3d: %s  %6d active cells in %4d blocks (%.1f MiB "
           "committed)\n",
           f, path, cells, nblocks, ms.committed_bytes / 1048576.0);
  }
  printf("sparse: %d frames in %.2f s; frames in %s/\n", frames, now_s() - t0,
         out);
  sparse_destroy(ctx);
  free(density);
  free(blocks);
  free(rgb);
  return failures ? 1 : 0;
}

/* bench/gpu/gpu_stream.c - copy, saxpy (bench/stream.tc), the 5-point
 * stencil (bench/stencil.tc) and a sum reduction (bench/reduce.tc: 4 bytes
 * per element; one call = one synchronous launch) on the GPU, as a fraction of
 * the device's measured copy bandwidth (issue 13's target: at least 80%).
 * Checks the results against a C reference first. Bytes counted: copy 8 per
 * element (x read, y written), saxpy 12 (x, y read, y written), stencil 8 per
 * cell (a read once, b written). The stencil also over a blocked layout
 * (bench/gpu/stencil_blocked.tc: 8 x 32 blocks, a struct-for), without and
 * with block_local (shared memory). Run with the modules compiled by tic
 * --target=host,cuda; the context is TC_ARCH_CUDA. */
#include "gpu_common.h"
#include "reduce.h"
#include "stencil.h"
#include "stencil_blocked.h"
#include "stream.h"

#include <math.h>
#include <string.h>

#define REPS 15
#define LAUNCHES 10

/* b against the 5-point sweep of a (m x m, row-major) inside the border; 0
 * when it matches. */
static int check_stencil(const char *what, const float *a, const float *b,
                         size_t m) {
  for (size_t i = 1; i + 1 < m; ++i)
    for (size_t j = 1; j + 1 < m; ++j) {
      size_t k = i * m + j;
      float e = 0.2f * (a[k] + a[k - m] + a[k + m] + a[k - 1] + a[k + 1]);
      if (fabsf(b[k] - e) > 1e-6f * fabsf(e) + 1e-7f) {
        printf("FAILED: %s b[%zu,%zu] = %g, expected %g\n", what, i, j, b[k],
               e);
        return 1;
      }
    }
  return 0;
}

int main(int argc, char **argv) {
  const char *name = argc > 0 ? strrchr(argv[0], '/') : NULL;
  double peak = device_copy_bandwidth();
  if (peak <= 0) {
    printf("SKIP: no CUDA device\n");
    return 0;
  }
  tc_options o;
  tc_options_init(&o);
  o.arch = TC_ARCH_CUDA;
  stream_ctx *s;
  CHECK(stream_create(&o, &s), NULL, stream_last_error);
  size_t n = STREAM_CONST_N;
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float)),
        *r = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) {
    x[i] = (float)((i * 2654435761u) % 1000) * 0.001f;
    y[i] = (float)(i % 97);
  }
  CHECK(stream_x_write(s, x, n), s, stream_last_error);
  CHECK(stream_y_write(s, y, n), s, stream_last_error);
  CHECK(stream_saxpy(s, 2.0f), s, stream_last_error);
  CHECK(stream_y_read(s, r, n), s, stream_last_error);
  for (size_t i = 0; i < n; ++i)
    if (r[i] != 2.0f * x[i] + y[i]) {
      printf("FAILED: saxpy y[%zu] = %g, expected %g\n", i, r[i],
             2.0f * x[i] + y[i]);
      return 1;
    }
  CHECK(stream_copy(s), s, stream_last_error);
  CHECK(stream_y_read(s, r, n), s, stream_last_error);
  if (memcmp(r, x, n * sizeof(float)) != 0) {
    printf("FAILED: copy\n");
    return 1;
  }
  /* Each sample: LAUNCHES back-to-back launches, then one sync. */
  double tc[REPS], ts[REPS];
  for (int i = 0; i < REPS; ++i) {
    double t0 = now_s();
    for (int k = 0; k < LAUNCHES; ++k)
      CHECK(stream_copy(s), s, stream_last_error);
    CHECK(stream_sync(s), s, stream_last_error);
    tc[i] = (now_s() - t0) / LAUNCHES;
    t0 = now_s();
    for (int k = 0; k < LAUNCHES; ++k)
      CHECK(stream_saxpy(s, 0.5f), s, stream_last_error);
    CHECK(stream_sync(s), s, stream_last_error);
    ts[i] = (now_s() - t0) / LAUNCHES;
  }
  double copyBW = 8.0 * (double)n / median(tc, REPS);
  double saxpyBW = 12.0 * (double)n / median(ts, REPS);
  stream_destroy(s);

  stencil_ctx *st;
  CHECK(stencil_create(&o, &st), NULL, stencil_last_error);
  size_t m = STENCIL_CONST_N, cells = m * m;
  float *a = malloc(cells * sizeof(float)), *b = malloc(cells * sizeof(float));
  for (size_t i = 0; i < cells; ++i)
    a[i] = (float)((i * 2654435761u) % 1000) * 0.001f;
  CHECK(stencil_a_write(st, a, cells), st, stencil_last_error);
  CHECK(stencil_step(st), st, stencil_last_error);
  CHECK(stencil_b_read(st, b, cells), st, stencil_last_error);
  if (check_stencil("stencil", a, b, m))
    return 1;
  double tst[REPS];
  for (int i = 0; i < REPS; ++i) {
    double t0 = now_s();
    for (int k = 0; k < LAUNCHES; ++k)
      CHECK(stencil_step(st), st, stencil_last_error);
    CHECK(stencil_sync(st), st, stencil_last_error);
    tst[i] = (now_s() - t0) / LAUNCHES;
  }
  double stencilBW = 8.0 * (double)((m - 2) * (m - 2)) / median(tst, REPS);
  stencil_destroy(st);

  /* The blocked layout: the same sweep, read and written row-major through
   * the field API; plain (0) and with block_local (1). */
  double blockedBW[2];
  for (int bls = 0; bls < 2; ++bls) {
    stencil_blocked_ctx *sb;
    CHECK(stencil_blocked_create(&o, &sb), NULL, stencil_blocked_last_error);
    size_t mb = STENCIL_BLOCKED_CONST_N;
    if (mb * mb != cells) {
      printf("FAILED: stencil_blocked has %zu cells, stencil %zu\n", mb * mb,
             cells);
      return 1;
    }
    memset(b, 0, cells * sizeof(float));
    CHECK(stencil_blocked_a_write(sb, a, cells), sb,
          stencil_blocked_last_error);
    CHECK(bls ? stencil_blocked_step_bls(sb) : stencil_blocked_step(sb), sb,
          stencil_blocked_last_error);
    CHECK(stencil_blocked_b_read(sb, b, cells), sb, stencil_blocked_last_error);
    if (check_stencil(bls ? "stencil_blocked (block_local)" : "stencil_blocked",
                      a, b, m))
      return 1;
    for (int i = 0; i < REPS; ++i) {
      double t0 = now_s();
      for (int k = 0; k < LAUNCHES; ++k)
        CHECK(bls ? stencil_blocked_step_bls(sb) : stencil_blocked_step(sb), sb,
              stencil_blocked_last_error);
      CHECK(stencil_blocked_sync(sb), sb, stencil_blocked_last_error);
      tst[i] = (now_s() - t0) / LAUNCHES;
    }
    blockedBW[bls] = 8.0 * (double)((m - 2) * (m - 2)) / median(tst, REPS);
    stencil_blocked_destroy(sb);
  }

  reduce_ctx *rd;
  CHECK(reduce_create(&o, &rd), NULL, reduce_last_error);
  size_t nr = REDUCE_CONST_N;
  float *xr = malloc(nr * sizeof(float));
  double want = 0;
  for (size_t i = 0; i < nr; ++i) {
    xr[i] = (float)((i * 2654435761u) % 1000) * 0.001f;
    want += xr[i];
  }
  CHECK(reduce_x_write(rd, xr, nr), rd, reduce_last_error);
  float got = 0;
  CHECK(reduce_sum(rd, &got), rd, reduce_last_error);
  if (fabs(got - want) > 1e-4 * want) {
    printf("FAILED: sum = %.9g, expected %.9g\n", got, want);
    return 1;
  }
  double tr[REPS];
  for (int i = 0; i < REPS; ++i) {
    double t0 = now_s();
    for (int k = 0; k < LAUNCHES; ++k)
      CHECK(reduce_sum(rd, &got), rd, reduce_last_error);
    tr[i] = (now_s() - t0) / LAUNCHES;
  }
  double sumBW = 4.0 * (double)nr / median(tr, REPS);
  reduce_destroy(rd);
  free(xr);

  printf("device copy bandwidth (cuMemcpyDtoD, read+write): %.0f GB/s\n",
         peak * 1e-9);
  printf("%-28s %10s %8s  (%s)\n", "kernel", "GB/s", "of peak",
         name ? name + 1 : argv[0]);
  printf("%-28s %10.0f %7.0f%%\n", "copy  (2^26 f32)", copyBW * 1e-9,
         100 * copyBW / peak);
  printf("%-28s %10.0f %7.0f%%\n", "saxpy (2^26 f32)", saxpyBW * 1e-9,
         100 * saxpyBW / peak);
  printf("%-28s %10.0f %7.0f%%\n", "stencil (8192^2 f32)", stencilBW * 1e-9,
         100 * stencilBW / peak);
  printf("%-28s %10.0f %7.0f%%\n", "stencil, 8x32 blocks", blockedBW[0] * 1e-9,
         100 * blockedBW[0] / peak);
  printf("%-28s %10.0f %7.0f%%\n", "stencil, blocks, block_local",
         blockedBW[1] * 1e-9, 100 * blockedBW[1] / peak);
  printf("%-28s %10.0f %7.0f%%\n", "sum (2^26 f32, returned)", sumBW * 1e-9,
         100 * sumBW / peak);
  free(x);
  free(y);
  free(r);
  free(a);
  free(b);
  return 0;
}

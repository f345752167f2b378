#include "block_local_promise.h"
#define LAST_ERROR block_local_promise_last_error
#include "common.h"

#include <string.h>

enum { P = 512, N = 64 };

static float x[P], back[P], wantback[P], g[N], gref[N];

/* The kernels' numbers in C: they do not depend on the binning. */
static void reference(void) {
  int p;
  memset(gref, 0, sizeof gref);
  for (p = 0; p < P; ++p) {
    int c = (int)x[p];
    gref[c] += 1.0f;
    if (c + 1 < N)
      gref[c + 1] += 0.5f;
  }
  for (p = 0; p < P; ++p) {
    int c = (int)x[p];
    wantback[p] = gref[c] + (c + 1 < N ? 2.0f * gref[c + 1] : 0.0f);
  }
}

static int expect_broken_promise(block_local_promise_ctx *ctx, tc_status st) {
  return expect_failure(st, TC_ERR_ASSERTION,
                        block_local_promise_last_error(ctx), "assume_in_range",
                        "block_local_promise.tc:");
}

/* p2g and g2p over the particles as binned: the C numbers. */
static int check_kernels(block_local_promise_ctx *ctx, const char *when) {
  char what[64];
  CHECK(block_local_promise_p2g(ctx));
  CHECK(block_local_promise_g_read(ctx, g, N));
  snprintf(what, sizeof what, "p2g %s", when);
  compare_f32(what, g, gref, N, 0.0, 0.0);
  CHECK(block_local_promise_g2p(ctx));
  CHECK(block_local_promise_back_read(ctx, back, P));
  snprintf(what, sizeof what, "g2p %s", when);
  compare_f32(what, back, wantback, P, 0.0, 0.0);
  return 0;
}

int main(void) {
  block_local_promise_ctx *ctx = NULL;
  int p;
  for (p = 0; p < P; ++p)
    x[p] = (float)((p * 37) % N) + 0.25f * (float)(p % 4);
  reference();
  CHECK(block_local_promise_create(NULL, &ctx));
  CHECK(block_local_promise_x_write(ctx, x, P));

  /* The promise kept: no report, the C numbers. */
  CHECK(block_local_promise_bin(ctx, 0));
  if (check_kernels(ctx, "before"))
    return 1;

  /* Broken for the particles binned a block low: reported (the kernel's
   * results are then undefined, as after any failed assertion, but the
   * buffered accesses stay inside their buffers), and the context goes on:
   * binned right again, the C numbers. */
  CHECK(block_local_promise_bin(ctx, 3));
  expect_broken_promise(ctx, block_local_promise_p2g(ctx));
  expect_broken_promise(ctx, block_local_promise_g2p(ctx));
  CHECK(block_local_promise_bin(ctx, 0));
  if (check_kernels(ctx, "after"))
    return 1;

  block_local_promise_destroy(ctx);
  return TEST_RESULT();
}

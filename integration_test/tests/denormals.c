/* Driver of denormals.tc, compiled with --denormals=flush (the default), and
 * included by denormals_preserve.c with EXPECT_PRESERVE for
 * --denormals=preserve. Checks the kernels' results on the caller and on
 * the worker threads, and that the caller's MXCSR (x86) is the same after
 * each kernel call, with the caller's own flush bits on and off. */
#include "denormals.h"

#define LAST_ERROR(ctx) denormals_last_error(ctx)
#include "common.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#define FTZ_DAZ 0x8040u
#else
#define HAVE_MXCSR 0
#endif

#ifndef EXPECT_PRESERVE
/* --denormals only changes the mode on x86; elsewhere kernels keep IEEE. */
#define EXPECT_PRESERVE (!HAVE_MXCSR)
#endif

enum { N = 4096 };
static float xs[N], prod[N], twice[N];
static const float tiny = 1e-30f, s = 1e-9f; /* tiny * s = 1e-39: denormal */
static const float sub = 3e-39f;             /* a denormal input */
/* IEEE results, computed by the C compiler's code before any mode change. */
static float ref_prod, ref_twice;

static float multiply(float a, float b) {
  volatile float va = a, vb = b;
  return va * vb;
}

static void expect(const char *what, size_t i, float got, float want,
                   int *bad) {
  if (got != want) {
    if (*bad < 10)
      fprintf(stderr, "%s[%lu] = %g, want %g\n", what, (unsigned long)i,
              (double)got, (double)want);
    ++*bad;
  }
}

/* One round of kernel calls with the caller's MXCSR flush bits set to
 * caller_bits. */
static int run(denormals_ctx *ctx, unsigned caller_bits) {
  size_t i;
  int bad = 0;
  float r = -1.0f;
#if HAVE_MXCSR
  unsigned before, after;
  _mm_setcsr((_mm_getcsr() & ~FTZ_DAZ) | caller_bits);
  before = _mm_getcsr();
#else
  (void)caller_bits;
#endif
  for (i = 0; i < N; ++i)
    xs[i] = i % 2 ? sub : tiny;
  CHECK(denormals_x_write(ctx, xs, N));
  CHECK(denormals_scale(ctx, s));
  CHECK(denormals_first(ctx, s, &r));
#if HAVE_MXCSR
  after = _mm_getcsr();
  if (after != before) {
    fprintf(stderr, "MXCSR changed by the kernels: %#x -> %#x\n", before,
            after);
    ++bad;
  }
#endif
  expect("first()", 0, r, EXPECT_PRESERVE ? ref_prod : 0.0f, &bad);
  CHECK(denormals_prod_read(ctx, prod, N));
  CHECK(denormals_twice_read(ctx, twice, N));
  for (i = 0; i < N; ++i) {
    if (i % 2 == 0) { /* tiny * s: denormal result; tiny * 2: normal */
      expect("prod", i, prod[i], EXPECT_PRESERVE ? ref_prod : 0.0f, &bad);
      expect("twice", i, twice[i], 2e-30f, &bad);
    } else { /* sub * s underflows in either mode; sub * 2: denormal input */
      expect("prod", i, prod[i], 0.0f, &bad);
      expect("twice", i, twice[i], EXPECT_PRESERVE ? ref_twice : 0.0f, &bad);
    }
  }
  /* The caller's own code is back in its own mode after the kernels. */
  if ((multiply(tiny, s) != 0.0f) != !caller_bits) {
    fprintf(stderr, "the caller's mode changed: tiny * s = %g\n",
            (double)multiply(tiny, s));
    ++bad;
  }
  return bad;
}

int main(void) {
  denormals_ctx *ctx = NULL;
  tc_options opts;
  int bad = 0;
  ref_prod = multiply(tiny, s);
  ref_twice = multiply(sub, 2.0f);
  if (!(ref_prod > 0.0f && ref_prod < 1.2e-38f) || !(ref_twice > 0.0f)) {
    fprintf(stderr, "the C reference does not produce denormals\n");
    return 1;
  }
  tc_options_init(&opts);
  opts.num_threads = 4; /* chunks run on worker threads too */
  if (denormals_create(&opts, &ctx) != TC_OK) {
    fprintf(stderr, "create: %s\n", denormals_last_error(NULL));
    return 1;
  }
  bad += run(ctx, 0);
#if HAVE_MXCSR
  /* The caller flushes itself: the kernel's mode still decides. */
  bad += run(ctx, FTZ_DAZ);
  _mm_setcsr(_mm_getcsr() & ~FTZ_DAZ);
#endif
  denormals_destroy(ctx);
  if (bad) {
    fprintf(stderr, "FAILED: %d mismatches\n", bad);
    return 1;
  }
  printf("PASSED (%s)\n", EXPECT_PRESERVE ? "preserve" : "flush");
  return 0;
}

/* Helpers shared by the integration test drivers (C99). A driver defines
 * LAST_ERROR(ctx) as its module's MODULE_last_error before including this. */
#ifndef TIC_INTEGRATION_COMMON_H
#define TIC_INTEGRATION_COMMON_H

#include <tic/runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    tc_status st_ = (call);                                                    \
    if (st_ != TC_OK) {                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__,        \
              #call, tc_status_string(st_), LAST_ERROR(ctx));                  \
      return 1;                                                                \
    }                                                                          \
  } while (0)

#define EXPECT_STATUS(expected, call)                                          \
  do {                                                                         \
    tc_status st_ = (call);                                                    \
    if (st_ != (expected)) {                                                   \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__,        \
              __LINE__, #call, tc_status_string(st_),                          \
              tc_status_string(expected));                                     \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static int tic_test_failures = 0;

/* An ndarray argument over `p`: 1-D of n0 elements, or 2-D n0 x n1 when
 * n1 is not 0. */
static inline tc_ndarray tic_test_ndarray(void *p, tc_dtype t, int64_t n0,
                                          int64_t n1) {
  tc_ndarray a;
  memset(&a, 0, sizeof a);
  a.data = p;
  a.ndim = n1 ? 2 : 1;
  a.shape[0] = n0;
  a.shape[1] = n1;
  a.dtype = t;
  return a;
}

/* Whether the contexts run on a GPU (TIC_ARCH=cuda, scripts/gpu-check.sh).
 * A GPU's pools are one device allocation each, made whole when the context
 * is created, so their committed bytes do not grow with use as the CPU's
 * do: the checks of lazily committed memory apply on the CPU only. */
static inline int on_gpu(void) {
  const char *arch = getenv("TIC_ARCH");
  return arch && strcmp(arch, "cuda") == 0;
}

/* Compares got[i] with want[i] (|d| <= atol + rtol * |want|), printing the
 * first few mismatches; returns the number of mismatches. */
/* One float comparison; prints the first few mismatches. */
static inline void check_close(const char *what, size_t i, double got,
                               double want, double rtol, double atol, int *bad) {
  if (!(fabs(got - want) <= atol + rtol * fabs(want))) {
    if (*bad < 10)
      fprintf(stderr, "%s[%lu]: got %.9g, want %.9g\n", what, (unsigned long)i,
              got, want);
    ++*bad;
  }
}

static inline int report_mismatches(const char *what, int bad, size_t n) {
  if (bad) fprintf(stderr, "%s: %d of %lu values differ\n", what, bad, (unsigned long)n);
  tic_test_failures += bad != 0;
  return bad;
}

static inline int compare_f64(const char *what, const double *got, const double *want,
                       size_t n, double rtol, double atol) {
  size_t i;
  int bad = 0;
  for (i = 0; i < n; ++i)
    check_close(what, i, got[i], want[i], rtol, atol, &bad);
  return report_mismatches(what, bad, n);
}

/* f32 results against a reference computed in double. */
static inline int compare_f32_f64(const char *what, const float *got, const double *want,
                       size_t n, double rtol, double atol) {
  size_t i;
  int bad = 0;
  for (i = 0; i < n; ++i)
    check_close(what, i, got[i], want[i], rtol, atol, &bad);
  return report_mismatches(what, bad, n);
}

static inline int compare_f32(const char *what, const float *got, const float *want,
                       size_t n, double rtol, double atol) {
  size_t i;
  int bad = 0;
  for (i = 0; i < n; ++i)
    check_close(what, i, got[i], want[i], rtol, atol, &bad);
  return report_mismatches(what, bad, n);
}

static inline int compare_i64(const char *what, const long long *got,
                       const long long *want, size_t n) {
  size_t i;
  int bad = 0;
  for (i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      if (bad < 10)
        fprintf(stderr, "%s[%lu]: got %lld, want %lld\n", what,
                (unsigned long)i, got[i], want[i]);
      ++bad;
    }
  return report_mismatches(what, bad, n);
}

#define EXPECT_TRUE(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);      \
      ++tic_test_failures;                                                     \
    }                                                                          \
  } while (0)

/* Ends main(): 0 when nothing failed. */
/* Whether `st` is `want` with a message holding `a` and `b` (either may
 * be NULL); prints it ("caught: ...") or counts a failure. */
static inline int expect_failure(tc_status st, tc_status want, const char *msg,
                                 const char *a, const char *b) {
  if (st != want || (a && !strstr(msg, a)) || (b && !strstr(msg, b))) {
    fprintf(stderr, "expected %s mentioning '%s'%s%s%s, got %s: %s\n",
            tc_status_string(want), a ? a : "", b ? " and '" : "", b ? b : "",
            b ? "'" : "", tc_status_string(st), msg);
    ++tic_test_failures;
    return 1;
  }
  printf("caught: %s\n", msg);
  return 0;
}

#define TEST_RESULT()                                                          \
  (tic_test_failures ? (fprintf(stderr, "FAILED\n"), 1) : (printf("PASSED\n"), 0))

#endif

/* integration_test/tests/quant_ref.h - plain C references of the quantized
 * encodings, written from docs/quant.md (not from tic's code): the tests of
 * quantized fields (quant_*.c) and test/Target/Bits/encodings.mlir compare
 * tic's bits and values with them. C99 plus GCC's __int128 (exact
 * fixed-point rounding). */
#ifndef TIC_TEST_QUANT_REF_H
#define TIC_TEST_QUANT_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The low n bits of v, sign- or zero-extended. */
static inline int64_t wrap(int64_t v, int n, int is_signed) {
  uint64_t m = n == 64 ? ~0ull : (1ull << n) - 1, u = (uint64_t)v & m;
  if (is_signed && (u >> (n - 1)) & 1)
    return (int64_t)(u | ~m);
  return (int64_t)u;
}

/* quant.fixed: the integer nearest to the exact x / s (ties away from
 * zero), wrapped; decoding is float(i) * float(s) in f32. The quotient is
 * decided exactly: x = ma 2^(ea-53), s = ms 2^(es-53) with integer ma, ms. */
__extension__ typedef __int128 i128;
static inline int64_t fixed_enc(float x, double s, int n, int is_signed) {
  int ea, es, d;
  double fa = frexp(fabs((double)x), &ea), fs = frexp(s, &es);
  i128 num = (i128)ldexp(fa, 53), den = (i128)ldexp(fs, 53), r;
  if (fa == 0.0)
    return 0;
  d = ea - es;
  if (d < -60)
    return 0;
  if (d >= 0)
    num <<= d;
  else
    den <<= -d;
  r = (2 * num + den) / (2 * den);
  return wrap(x < 0 ? -(int64_t)r : (int64_t)r, n, is_signed);
}
static inline float fixed_dec(int64_t i, double s) {
  return (float)i * (float)s;
}
static inline float fixed_rt(float x, double s, int n, int is_signed) {
  return fixed_dec(fixed_enc(x, s, n, is_signed), s);
}

/* quant.float(exp: E, frac: F): d = F - signed digit bits, bias 2^(E-1)-1;
 * the magnitude rounds to d digits (ties away from zero, a carry bumps the
 * exponent); a stored exponent <= 0 is +0. Returns the decoded value. */
static inline float float_rt(float x, int E, int F, int is_signed) {
  int d = F - (is_signed ? 1 : 0), bias = (1 << (E - 1)) - 1, e2;
  double a = fabs((double)x), fr, m;
  long S;
  if (!is_signed && x < 0)
    a = 0; /* not tested */
  if (a == 0 || !(fabsf(x) >= 1.17549435e-38f))
    return 0.0f;      /* zero, or an f32 subnormal */
  fr = frexp(a, &e2); /* a = fr 2^e2, fr in [0.5, 1) */
  m = floor((2 * fr - 1) * ldexp(1.0, d) + 0.5); /* digits, rounded */
  S = (long)(e2 - 1) + bias;
  if (m >= ldexp(1.0, d)) {
    m = 0;
    ++S;
  }
  if (S <= 0)
    return 0.0f;
  a = ldexp(1.0 + m / ldexp(1.0, d), (int)(S - bias));
  return (float)(x < 0 ? -a : a);
}

static inline uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
/* A shared-exponent group of n components of quant.float(exp: E, frac: F,
 * signed: sg) (docs/quant.md): p = F - 1 digit bits when signed, F when
 * unsigned, with an explicit leading one; E_max the largest unbiased f32
 * exponent of the non-zero, normal components; stored exponent
 * S = E_max + bias, all zero when S <= 0; digits round(|x| / 2^(E_max-p+1))
 * (ties away from zero) saturated at 2^p - 1. out gets the decoded values. */
static inline void shared_rt(const float *x, float *out, int n, int E, int F,
                             int sg) {
  int p = sg ? F - 1 : F, bias = (1 << (E - 1)) - 1, i, e, emax = 0, any = 0;
  for (i = 0; i < n; ++i)
    if (fabsf(x[i]) >= 1.17549435e-38f) {
      frexp((double)x[i], &e);
      if (!any || e - 1 > emax)
        emax = e - 1;
      any = 1;
    }
  for (i = 0; i < n; ++i) {
    double q, d;
    if (!any || emax + bias <= 0) {
      out[i] = 0.0f;
      continue;
    }
    q = ldexp(1.0, emax - p + 1);
    d = floor(fabs((double)x[i]) / q + 0.5);
    if (d > ldexp(1.0, p) - 1)
      d = ldexp(1.0, p) - 1;
    out[i] = (float)(x[i] < 0 ? -d * q : d * q);
  }
}
/* Bit-exact float comparison (for drivers that include common.h first). */
#define EXPECT_F(got, want)                                                    \
  do {                                                                         \
    float g_ = (got), w_ = (want);                                             \
    if (fbits(g_) != fbits(w_)) {                                              \
      fprintf(stderr, "%s:%d: %s = %.9g, want %.9g\n", __FILE__, __LINE__,     \
              #got, g_, w_);                                                   \
      ++tic_test_failures;                                                     \
    }                                                                          \
  } while (0)

/* A xorshift64 stream for test inputs: the next 32 bits of *state. */
static inline uint32_t xorshift32(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return (uint32_t)(*state >> 32);
}

/* One B3/S23 Game of Life step of an n x n grid of 0/1 cells inside a dead
   border (rows 0 and n-1, columns outside [border, n - border)), as the
   bit_vectorize tests' life kernels do; cells outside stay as they were in
   `out`. */
static inline void life_step_ref(const uint32_t *in, uint32_t *out, int n,
                                 int border) {
  int i, j, di, dj;
  for (i = 1; i < n - 1; ++i)
    for (j = border; j < n - border; ++j) {
      uint32_t c = 0;
      for (di = -1; di <= 1; ++di)
        for (dj = -1; dj <= 1; ++dj)
          if (di || dj)
            c += in[(i + di) * n + j + dj];
      out[i * n + j] = c == 3 || (c == 2 && in[i * n + j]);
    }
}

#endif

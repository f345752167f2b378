/* Checks the lowered bits ops (encodings.mlir) against references written
 * from docs/quant.md: exhaustively over every code point, and on a million
 * pseudo-random reals per real format. Prints one line per group; exits 1
 * with the first mismatches otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "quant_ref.h" /* wrap, fixed_enc: integration_test/tests */

int32_t ext_s(int16_t w);
int64_t ext_u(int16_t w);
int16_t ins(int32_t v, int16_t w);
int32_t sfx_enc(float x);
float sfx_dec(int32_t c);
int32_t ufx_enc(float x);
float ufx_dec(int32_t c);
int32_t sfl_enc(float x);
float sfl_dec(int32_t w);
int32_t ufl_enc(float x);
float ufl_dec(int32_t w);

static int failures;
#define FAIL(...)                                                              \
  do {                                                                         \
    if (failures++ < 10) {                                                     \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
    }                                                                          \
  } while (0)

static uint32_t rng = 12345u;
static uint32_t next(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng;
}

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* quant.float: the value of stored exponent e and digits d (e >= 1), and
 * the code of x: round the magnitude to p digit bits, ties away from zero,
 * a carry bumping the exponent; below the smallest normal: zero. */
static double float_value(int e, int m, int sign, int exp_bits, int p) {
  int bias = (1 << (exp_bits - 1)) - 1;
  double v = ldexp(1.0 + (double)m / (double)(1 << p), e - bias);
  return sign ? -v : v;
}
static int float_code(float x, int exp_bits, int p, int is_signed, int *e_out,
                      int *m_out, int *sign_out) {
  int bias = (1 << (exp_bits - 1)) - 1, E;
  double a = fabs((double)x), fr = frexp(a, &E); /* a = fr * 2^E, fr in [.5, 1) */
  double mant = fr * 2.0 - 1.0;                  /* a = (1 + mant) 2^(E-1) */
  double q = floor(mant * (double)(1 << p) + 0.5);
  int e;
  if (q >= (double)(1 << p)) {
    q = 0;
    E += 1;
  }
  e = E - 1 + bias;
  *sign_out = is_signed && signbit(x);
  if (a == 0 || e <= 0) {
    *e_out = 0;
    *m_out = 0;
    *sign_out = 0;
    return 1;
  }
  if (e >= (1 << exp_bits))
    return 0; /* overflow: undefined, not checked */
  *e_out = e;
  *m_out = (int)q;
  return 1;
}

static void check_extract_insert(void) {
  int w, v, before = failures;
  for (w = 0; w < 65536; ++w) {
    int16_t ww = (int16_t)(uint16_t)w;
    int32_t f = (w >> 3) & 31;
    if (f & 16)
      f -= 32;
    if (ext_s(ww) != f)
      FAIL("ext_s(%#x) = %d, want %d", w, ext_s(ww), f);
    if (ext_u(ww) != ((w >> 4) & 511))
      FAIL("ext_u(%#x) = %lld, want %d", w, (long long)ext_u(ww), (w >> 4) & 511);
    for (v = -300; v <= 300; v += 7) {
      uint16_t want = (uint16_t)((w & ~(127 << 6)) | ((v & 127) << 6));
      if ((uint16_t)ins(v, ww) != want)
        FAIL("ins(%d, %#x) = %#x, want %#x", v, w, (uint16_t)ins(v, ww), want);
    }
  }
  printf("extract/insert: %s\n", failures == before ? "ok" : "FAILED");
}

static void check_fixed(void) {
  int c, i, before = failures;
  /* Every code: decode is float(c) * f32(scale); encode(decode) is c. */
  for (c = -2048; c < 2048; ++c) {
    float want = (float)c * (float)0.01;
    if (bits_of(sfx_dec(c)) != bits_of(want))
      FAIL("sfx_dec(%d) = %.9g, want %.9g", c, sfx_dec(c), want);
    if (sfx_enc(sfx_dec(c)) != c)
      FAIL("sfx_enc(sfx_dec(%d)) = %d", c, sfx_enc(sfx_dec(c)));
  }
  for (c = 0; c < 1024; ++c) {
    float want = (float)c * (float)0.001953125;
    if (bits_of(ufx_dec(c)) != bits_of(want))
      FAIL("ufx_dec(%d) = %.9g, want %.9g", c, ufx_dec(c), want);
    if (ufx_enc(ufx_dec(c)) != c)
      FAIL("ufx_enc(ufx_dec(%d)) = %d", c, ufx_enc(ufx_dec(c)));
  }
  /* Reals: in range, out of range (they wrap), and exact ties. */
  for (i = 0; i < 1000000; ++i) {
    float x = ((float)(next() >> 8) / 16777216.0f - 0.5f) * 100.0f;
    if (i % 4 == 0) /* near ties of scale 0.01 (0.005 is inexact) */
      x = (float)((int)(next() % 8000) - 4000) * 0.005f;
    else if (i % 4 == 1) /* exact ties of scale 2^-9 */
      x = ((float)((int)(next() % 4000) - 2000) + 0.5f) * 0.001953125f;
    if (sfx_enc(x) != fixed_enc(x, 0.01, 12, 1))
      FAIL("sfx_enc(%.9g) = %d, want %lld", x, sfx_enc(x),
           (long long)fixed_enc(x, 0.01, 12, 1));
    if (ufx_enc(x) != fixed_enc(x, 0.001953125, 10, 0))
      FAIL("ufx_enc(%.9g) = %d, want %lld", x, ufx_enc(x),
           (long long)fixed_enc(x, 0.001953125, 10, 0));
  }
  printf("fixed: %s\n", failures == before ? "ok" : "FAILED");
}

static void check_float(void) {
  int e, m, s, i, before = failures;
  /* signed exp 5 / frac 11: 10 digit bits under the sign. */
  for (e = 1; e < 32; ++e)
    for (m = 0; m < 1024; ++m)
      for (s = 0; s < 2; ++s) {
        int32_t w = (e << 11) | (s << 10) | m;
        float want = (float)float_value(e, m, s, 5, 10);
        if (bits_of(sfl_dec(w)) != bits_of(want))
          FAIL("sfl_dec(%#x) = %.9g, want %.9g", w, sfl_dec(w), want);
        if (sfl_enc(sfl_dec(w)) != w)
          FAIL("sfl_enc(sfl_dec(%#x)) = %#x", w, sfl_enc(sfl_dec(w)));
      }
  if (sfl_dec(0) != 0.0f || sfl_enc(0.0f) != 0 || sfl_enc(-0.0f) != 0)
    FAIL("signed quant.float zero");
  /* unsigned exp 6 / frac 8: 8 digit bits. */
  for (e = 1; e < 64; ++e)
    for (m = 0; m < 256; ++m) {
      int32_t w = (e << 8) | m;
      float want = (float)float_value(e, m, 0, 6, 8);
      if (bits_of(ufl_dec(w)) != bits_of(want))
        FAIL("ufl_dec(%#x) = %.9g, want %.9g", w, ufl_dec(w), want);
      if (ufl_enc(ufl_dec(w)) != w)
        FAIL("ufl_enc(ufl_dec(%#x)) = %#x", w, ufl_enc(ufl_dec(w)));
    }
  /* Reals over the formats' ranges and below them (flushed to zero). */
  for (i = 0; i < 1000000; ++i) {
    int ce, cm, cs;
    float x = ldexpf((float)(next() >> 8) / 16777216.0f + 0.5f,
                     (int)(next() % 40) - 22);
    if (next() & 1)
      x = -x;
    if (float_code(x, 5, 10, 1, &ce, &cm, &cs)) {
      int32_t want = (ce << 11) | (cs << 10) | cm;
      if (sfl_enc(x) != want)
        FAIL("sfl_enc(%a) = %#x, want %#x", (double)x, sfl_enc(x), want);
    }
    if (x > 0 && float_code(x, 6, 8, 0, &ce, &cm, &cs)) {
      int32_t want = (ce << 8) | cm;
      if (ufl_enc(x) != want)
        FAIL("ufl_enc(%a) = %#x, want %#x", (double)x, ufl_enc(x), want);
    }
  }
  printf("float: %s\n", failures == before ? "ok" : "FAILED");
}

int main(void) {
  check_extract_insert();
  check_fixed();
  check_float();
  if (failures) {
    printf("%d mismatches\n", failures);
    return 1;
  }
  printf("all encodings agree\n");
  return 0;
}

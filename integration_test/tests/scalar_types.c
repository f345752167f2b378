#include "scalar_types.h"
#define LAST_ERROR scalar_types_last_error
#include "common.h"

#include <stdint.h>

#define N SCALAR_TYPES_CONST_N
#define OPS 12

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Reference semantics, computed in 64-bit and truncated to the type. */
static long long floordiv_s(long long a, long long b) {
  long long q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
static long long mod_s(long long a, long long b) {
  long long r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/* Edge values first, then random bits. */
#define FILL(T, UT, BITS, SIGNED)                                              \
  for (i = 0; i < N; ++i) {                                                    \
    UT ra = (UT)next_u64(), rb = (UT)next_u64();                               \
    if (i < 8) {                                                               \
      static const long long ea[8] = {-1, 0, 1, 7, -7, 100, -100, 3};         \
      static const long long eb[8] = {2, 3, -3, -2, 2, -7, 7, 1};              \
      ra = (UT)ea[i];                                                          \
      rb = (UT)eb[i];                                                          \
    } else if (i < 12) {                                                       \
      /* max + max, min - 1 ...: wraparound */                                 \
      UT mx = SIGNED ? (UT)(((UT)1 << (BITS - 1)) - 1) : (UT)~(UT)0;           \
      ra = i % 2 ? mx : (UT)(mx + 1);                                          \
      rb = i < 10 ? mx : (UT)(mx - 5);                                         \
    }                                                                          \
    if (rb == 0) rb = 5;                                                       \
    /* INT_MIN // -1 overflows: undefined in tic as in C */                    \
    if (SIGNED && (T)rb == (T)-1 && ra == (UT)((UT)1 << (BITS - 1))) ra = 9;   \
    a[i] = (T)ra;                                                              \
    b[i] = (T)rb;                                                              \
    s[i] = (T)(next_u64() % BITS);                                             \
  }

#define CHECK_TYPE(TNAME, T, UT, BITS, SIGNED)                                 \
  do {                                                                         \
    static T a[N], b[N], s[N], r[N * OPS];                                     \
    static float q[N], qw[N];                                                  \
    static long long got[N * OPS], want[N * OPS];                              \
    FILL(T, UT, BITS, SIGNED)                                                  \
    CHECK(scalar_types_a_##TNAME##_write(ctx, a, N));                          \
    CHECK(scalar_types_b_##TNAME##_write(ctx, b, N));                          \
    CHECK(scalar_types_s_##TNAME##_write(ctx, s, N));                          \
    CHECK(scalar_types_ops_##TNAME(ctx));                                      \
    CHECK(scalar_types_r_##TNAME##_read(ctx, r, N * OPS));                     \
    CHECK(scalar_types_q_##TNAME##_read(ctx, q, N));                           \
    for (i = 0; i < N; ++i) {                                                  \
      unsigned long long ua = (unsigned long long)(UT)a[i];                    \
      unsigned long long ub = (unsigned long long)(UT)b[i];                    \
      long long *w = &want[i * OPS];                                           \
      w[0] = (long long)(T)(ua + ub);                                          \
      w[1] = (long long)(T)(ua - ub);                                          \
      w[2] = (long long)(T)(ua * ub);                                          \
      if (SIGNED) {                                                            \
        w[3] = (long long)(T)floordiv_s((long long)a[i], (long long)b[i]);     \
        w[4] = (long long)(T)mod_s((long long)a[i], (long long)b[i]);          \
        w[6] = (long long)(T)((long long)a[i] >> s[i]);                        \
      } else {                                                                 \
        w[3] = (long long)(T)(ua / ub);                                        \
        w[4] = (long long)(T)(ua % ub);                                        \
        w[6] = (long long)(T)(ua >> s[i]);                                     \
      }                                                                        \
      w[5] = (long long)(T)(ua << s[i]);                                       \
      w[7] = (long long)(T)(ua & ub);                                          \
      w[8] = (long long)(T)(ua | ub);                                          \
      w[9] = (long long)(T)(ua ^ ub);                                          \
      w[10] = (long long)(T)(~ua);                                             \
      w[11] = (long long)(a[i] < b[i] ? a[i] : b[i]);                          \
      qw[i] = (float)a[i] / (float)b[i];                                       \
    }                                                                          \
    for (i = 0; i < N * OPS; ++i) got[i] = (long long)r[i];                    \
    compare_i64("r_" #TNAME, got, want, N * OPS);                              \
    compare_f32("q_" #TNAME, q, qw, N, 1e-6, 0);                               \
  } while (0)

int main(void) {
  scalar_types_ctx *ctx = NULL;
  int i, k;
  CHECK(scalar_types_create(NULL, &ctx));

  CHECK_TYPE(i8, int8_t, uint8_t, 8, 1);
  CHECK_TYPE(i16, int16_t, uint16_t, 16, 1);
  CHECK_TYPE(i32, int32_t, uint32_t, 32, 1);
  CHECK_TYPE(i64, int64_t, uint64_t, 64, 1);
  CHECK_TYPE(u8, uint8_t, uint8_t, 8, 0);
  CHECK_TYPE(u16, uint16_t, uint16_t, 16, 0);
  CHECK_TYPE(u32, uint32_t, uint32_t, 32, 0);
  CHECK_TYPE(u64, uint64_t, uint64_t, 64, 0);

  /* floats: + - * / // % (Python semantics on negatives) */
  {
    static float fa[N], fb[N], fr[N * 6], fw[N * 6];
    static double da[N], db[N], dr[N * 6], dw[N * 6];
    for (i = 0; i < N; ++i) {
      double x = ((double)(next_u64() % 200001) - 100000.0) / 997.0;
      double y = ((double)(next_u64() % 2001) - 1000.0) / 131.0;
      if (y == 0) y = 0.75;
      fa[i] = (float)x;
      fb[i] = (float)y;
      da[i] = x;
      db[i] = y;
    }
    CHECK(scalar_types_fa32_write(ctx, fa, N));
    CHECK(scalar_types_fb32_write(ctx, fb, N));
    CHECK(scalar_types_fa64_write(ctx, da, N));
    CHECK(scalar_types_fb64_write(ctx, db, N));
    CHECK(scalar_types_ops_f32(ctx));
    CHECK(scalar_types_ops_f64(ctx));
    CHECK(scalar_types_fr32_read(ctx, fr, N * 6));
    CHECK(scalar_types_fr64_read(ctx, dr, N * 6));
    for (i = 0; i < N; ++i) {
      float x = fa[i], y = fb[i];
      double u = da[i], v = db[i];
      fw[i * 6 + 0] = x + y;
      fw[i * 6 + 1] = x - y;
      fw[i * 6 + 2] = x * y;
      fw[i * 6 + 3] = x / y;
      fw[i * 6 + 4] = floorf(x / y);
      fw[i * 6 + 5] = x - y * floorf(x / y);
      dw[i * 6 + 0] = u + v;
      dw[i * 6 + 1] = u - v;
      dw[i * 6 + 2] = u * v;
      dw[i * 6 + 3] = u / v;
      dw[i * 6 + 4] = floor(u / v);
      dw[i * 6 + 5] = u - v * floor(u / v);
    }
    compare_f32("fr32", fr, fw, N * 6, 1e-5, 1e-4);
    compare_f64("fr64", dr, dw, N * 6, 1e-12, 1e-10);
    /* the modulo takes the sign of the divisor */
    for (i = 0; i < N; ++i) {
      EXPECT_TRUE(dr[i * 6 + 5] == 0 || (dr[i * 6 + 5] < 0) == (db[i] < 0));
    }

    /* casts: float -> int truncates toward zero; int -> float */
    {
      static long long cig[N * 8], cdg[N * 8], cw[N * 8], cdw[N * 8];
      static int64_t ci[N * 8], cd[N * 8];
      static double cf[N * 8], cfw[N * 8];
      static float cg[N * 8], cgw[N * 8];
      static int8_t a8[N];
      static int16_t a16[N];
      static int32_t a32[N];
      static int64_t a64[N];
      static uint8_t b8[N];
      static uint16_t b16[N];
      static uint32_t b32[N];
      static uint64_t b64[N];
      for (i = 0; i < N; ++i) {
        /* values inside every target type's range: |x| < 127 */
        fa[i] = (float)(((double)(next_u64() % 25001) - 12500.0) / 99.0);
        da[i] = ((double)(next_u64() % 25001) - 12500.0) / 99.0;
      }
      CHECK(scalar_types_fa32_write(ctx, fa, N));
      CHECK(scalar_types_fa64_write(ctx, da, N));
      CHECK(scalar_types_casts(ctx));
      CHECK(scalar_types_ci_read(ctx, ci, N * 8));
      CHECK(scalar_types_cd_read(ctx, cd, N * 8));
      CHECK(scalar_types_cf_read(ctx, cf, N * 8));
      CHECK(scalar_types_cg_read(ctx, cg, N * 8));
      CHECK(scalar_types_a_i8_read(ctx, a8, N));
      CHECK(scalar_types_a_i16_read(ctx, a16, N));
      CHECK(scalar_types_a_i32_read(ctx, a32, N));
      CHECK(scalar_types_a_i64_read(ctx, a64, N));
      CHECK(scalar_types_a_u8_read(ctx, b8, N));
      CHECK(scalar_types_a_u16_read(ctx, b16, N));
      CHECK(scalar_types_a_u32_read(ctx, b32, N));
      CHECK(scalar_types_a_u64_read(ctx, b64, N));
      for (i = 0; i < N; ++i) {
        float x = fa[i];
        double y = da[i];
        cw[i * 8 + 0] = (int8_t)x;
        cw[i * 8 + 1] = (int16_t)x;
        cw[i * 8 + 2] = (int32_t)x;
        cw[i * 8 + 3] = (int64_t)x;
        cw[i * 8 + 4] = (uint8_t)fabsf(x);
        cw[i * 8 + 5] = (uint16_t)fabsf(x);
        cw[i * 8 + 6] = (uint32_t)fabsf(x);
        cw[i * 8 + 7] = (long long)(uint64_t)fabsf(x);
        cdw[i * 8 + 0] = (int8_t)y;
        cdw[i * 8 + 1] = (int16_t)y;
        cdw[i * 8 + 2] = (int32_t)y;
        cdw[i * 8 + 3] = (int64_t)y;
        cdw[i * 8 + 4] = (uint8_t)fabs(y);
        cdw[i * 8 + 5] = (uint16_t)fabs(y);
        cdw[i * 8 + 6] = (uint32_t)fabs(y);
        cdw[i * 8 + 7] = (long long)(uint64_t)fabs(y);
        cfw[i * 8 + 0] = (double)a8[i];
        cfw[i * 8 + 1] = (double)a16[i];
        cfw[i * 8 + 2] = (double)a32[i];
        cfw[i * 8 + 3] = (double)a64[i];
        cfw[i * 8 + 4] = (double)b8[i];
        cfw[i * 8 + 5] = (double)b16[i];
        cfw[i * 8 + 6] = (double)b32[i];
        cfw[i * 8 + 7] = (double)b64[i];
        cgw[i * 8 + 0] = (float)a8[i];
        cgw[i * 8 + 1] = (float)a16[i];
        cgw[i * 8 + 2] = (float)a32[i];
        cgw[i * 8 + 3] = (float)a64[i];
        cgw[i * 8 + 4] = (float)b8[i];
        cgw[i * 8 + 5] = (float)b16[i];
        cgw[i * 8 + 6] = (float)b32[i];
        cgw[i * 8 + 7] = (float)b64[i];
      }
      for (k = 0; k < N * 8; ++k) {
        cig[k] = ci[k];
        cdg[k] = cd[k];
      }
      compare_i64("f32->int", cig, cw, N * 8);
      compare_i64("f64->int", cdg, cdw, N * 8);
      compare_f64("int->f64", cf, cfw, N * 8, 0, 0);
      compare_f32("int->f32", cg, cgw, N * 8, 0, 0);
    }
  }

  /* promotion of mixed operand types */
  {
    double got = 0, want;
    int32_t x = -5;
    uint32_t y = 3;
    int8_t p = 100;
    int16_t q = 300;
    float f = 0.25f;
    CHECK(scalar_types_mixed(ctx, x, y, p, q, f, &got));
    want = (double)(uint32_t)((uint32_t)x + y) * 1000000.0 +
           (double)(int16_t)(p * q) + (double)((float)x + f);
    compare_f64("mixed", &got, &want, 1, 1e-12, 0);
  }

  scalar_types_destroy(ctx);
  return TEST_RESULT();
}

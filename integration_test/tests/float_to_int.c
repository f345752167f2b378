/* The C reference of the rule: trunc, clamp to [min, max], NaN -> 0. */
#include "float_to_int.h"
#define LAST_ERROR float_to_int_last_error
#include "common.h"

#include <stdint.h>

static double clampd(double v, double lo, double hi_excl, int *lo_hit,
                     int *hi_hit) {
  double t = trunc(v);
  *lo_hit = t < lo;
  *hi_hit = t >= hi_excl;
  return t;
}

#define SAT(T, MIN, MAX, LO, HI)                                               \
  static T sat_##T(double v) {                                                 \
    int l, h;                                                                  \
    double t;                                                                  \
    if (isnan(v))                                                              \
      return 0;                                                                \
    t = clampd(v, LO, HI, &l, &h);                                             \
    if (l)                                                                     \
      return MIN;                                                              \
    if (h)                                                                     \
      return MAX;                                                              \
    return (T)t;                                                               \
  }
SAT(int32_t, INT32_MIN, INT32_MAX, -2147483648.0, 2147483648.0)
SAT(int8_t, INT8_MIN, INT8_MAX, -128.0, 128.0)
SAT(uint8_t, 0, UINT8_MAX, 0.0, 256.0)
SAT(uint16_t, 0, UINT16_MAX, 0.0, 65536.0)
SAT(int64_t, INT64_MIN, INT64_MAX, -9223372036854775808.0,
    9223372036854775808.0)
SAT(uint64_t, 0, UINT64_MAX, 0.0, 18446744073709551616.0)

int main(void) {
  float_to_int_ctx *ctx = NULL;
  float in[16] = {3.7f,          -3.7f,          1e30f,  -1e30f,
                  0.0f,          -0.0f,          300.0f, -5.0f,
                  2147483520.0f, -2147483648.0f, 127.9f, -128.9f,
                  65535.5f,      70000.0f,       0.0f,   0.0f};
  double in64[16] = {1e300,        -1e300, 9.3e18,       -9.3e18,
                     1.9e19,       -1.0,   4294967296.5, -2147483648.9,
                     2147483647.9, 0.5,    -0.5,         0.0,
                     0.0,          0.0,    0.0,          0.0};
  int32_t r32[16];
  int64_t r64[16];
  int8_t r8[16];
  uint8_t ru8[16];
  uint16_t ru16[16];
  uint64_t ru64[16];
  float folded[4];
  tc_ndarray a, a64;
  int i, bad = 0;
  in[14] = NAN;
  in[15] = INFINITY;
  in64[12] = NAN;
  in64[13] = -INFINITY;
  memset(&a, 0, sizeof a);
  a.data = in;
  a.ndim = 1;
  a.shape[0] = 16;
  a.dtype = TC_DTYPE_F32;
  a64 = a;
  a64.data = in64;
  a64.dtype = TC_DTYPE_F64;

  CHECK(float_to_int_create(NULL, &ctx));
  CHECK(float_to_int_convert(ctx, a));
  CHECK(float_to_int_r32_read(ctx, r32, 16));
  CHECK(float_to_int_r64_read(ctx, r64, 16));
  CHECK(float_to_int_r8_read(ctx, r8, 16));
  CHECK(float_to_int_ru8_read(ctx, ru8, 16));
  CHECK(float_to_int_ru16_read(ctx, ru16, 16));
  CHECK(float_to_int_ru64_read(ctx, ru64, 16));
  for (i = 0; i < 16; ++i) {
    double v = in[i];
    if (r32[i] != sat_int32_t(v) || r8[i] != sat_int8_t(v) ||
        ru8[i] != sat_uint8_t(v) || ru16[i] != sat_uint16_t(v) ||
        r64[i] != sat_int64_t(v) || ru64[i] != sat_uint64_t(v)) {
      fprintf(stderr,
              "f32 %d (%g): got %d %d %u %u %lld %llu, want %d %d %u %u %lld "
              "%llu\n",
              i, v, (int)r32[i], (int)r8[i], (unsigned)ru8[i],
              (unsigned)ru16[i], (long long)r64[i], (unsigned long long)ru64[i],
              (int)sat_int32_t(v), (int)sat_int8_t(v), (unsigned)sat_uint8_t(v),
              (unsigned)sat_uint16_t(v), (long long)sat_int64_t(v),
              (unsigned long long)sat_uint64_t(v));
      ++bad;
    }
  }
  CHECK(float_to_int_convert64(ctx, a64));
  CHECK(float_to_int_r32_read(ctx, r32, 16));
  CHECK(float_to_int_r64_read(ctx, r64, 16));
  CHECK(float_to_int_ru64_read(ctx, ru64, 16));
  for (i = 0; i < 16; ++i) {
    double v = in64[i];
    if (r32[i] != sat_int32_t(v) || r64[i] != sat_int64_t(v) ||
        ru64[i] != sat_uint64_t(v)) {
      fprintf(stderr, "f64 %d (%g): got %d %lld %llu, want %d %lld %llu\n", i,
              v, (int)r32[i], (long long)r64[i], (unsigned long long)ru64[i],
              (int)sat_int32_t(v), (long long)sat_int64_t(v),
              (unsigned long long)sat_uint64_t(v));
      ++bad;
    }
  }
  EXPECT_TRUE(bad == 0);
  CHECK(float_to_int_folded(ctx, folded));
  for (i = 0; i < 4; ++i)
    EXPECT_TRUE(folded[i] == 1.0f);
  float_to_int_destroy(ctx);
  return TEST_RESULT();
}

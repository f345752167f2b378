/* Taichi 1.7.4's quantized-type tests restated: see quant_taichi.tc (which
 * lists the Taichi tests not restated and why). Every expected value is
 * computed here from the program's definition: quant_ref.h (integers wrap,
 * fixed points round from the exact quotient, floats round on the f32
 * pattern; written from docs/quant.md), the shared-exponent encoder below
 * (docs/quant.md, "Shared exponents", with unsigned components), plain C
 * for the bit arrays. Where Taichi's test states a value (x == 43,
 * approx(-3.3), ...) that is checked as well. */
#include "quant_taichi.h"
#define LAST_ERROR quant_taichi_last_error
#include "common.h"
#include "quant_ref.h"

#include <stdint.h>

#define PI 3.14159265358979323846

/* Value comparison (+0 == -0). */
#define EXPECT_FV(got, want)                                                   \
  do {                                                                         \
    float g_ = (got), w_ = (want);                                             \
    if (g_ != w_) {                                                            \
      fprintf(stderr, "%s:%d: %s = %.9g, want %.9g\n", __FILE__, __LINE__,     \
              #got, g_, w_);                                                   \
      ++tic_test_failures;                                                     \
    }                                                                          \
  } while (0)
/* Integer comparison. */
#define EXPECT_I(got, want)                                                    \
  do {                                                                         \
    long long g_ = (long long)(got), w_ = (long long)(want);                   \
    if (g_ != w_) {                                                            \
      fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", __FILE__, __LINE__,     \
              #got, g_, w_);                                                   \
      ++tic_test_failures;                                                     \
    }                                                                          \
  } while (0)
/* pytest.approx(want, rel, abs). */
#define EXPECT_APPROX(got, want, rel, abs_)                                    \
  do {                                                                         \
    double g_ = (got), w_ = (want);                                            \
    if (!(fabs(g_ - w_) <= (abs_) || fabs(g_ - w_) <= (rel)*fabs(w_))) {       \
      fprintf(stderr, "%s:%d: %s = %.9g, want approx %.9g\n", __FILE__,        \
              __LINE__, #got, g_, w_);                                         \
      ++tic_test_failures;                                                     \
    }                                                                          \
  } while (0)

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t next(void) { return xorshift32(&rng); }

#define nd tic_test_ndarray

/* A store to component k (Python-scope x[None] = v, or an atomic's
   result): the others keep their decoded values, the group re-encodes. */
static void shared_store(float *st, int k, float v, int E, int F, int sg) {
  float t[2];
  t[0] = st[0];
  t[1] = st[1];
  t[k] = v;
  shared_rt(t, st, 2, E, F, sg);
}

/* The eight (physical, compute, bits) programs of test_bitpacked_fields. */
static const int bp_bits[8][3] = {{3, 3, 2},   {4, 7, 5},   {17, 11, 4},
                                  {32, 23, 9}, {7, 12, 13}, {18, 22, 24},
                                  {5, 5, 6},   {10, 10, 12}};
static const int64_t bp_vals[8][3] = {
    {3, 7, -2},        {7, 127, -16},
    {65535, 1023, -8}, {2147483647LL, 8388607, -256},
    {63, 4095, -4096}, {131071, 4194303, -8388608},
    {15, 5, 20},       {11, 19, 2020}};

#define VN QUANT_TAICHI_CONST_VN
#define VBOUND QUANT_TAICHI_CONST_VBOUND
static uint32_t bx[VN * VN], by[VN * VN], bz[VN * VN], bref[VN * VN];

static int in_interior(int i, int j) {
  return i >= VBOUND && i < VN - VBOUND && j >= VBOUND && j < VN - VBOUND;
}

int main(void) {
  quant_taichi_ctx *ctx = NULL;
  int32_t i32v, ret;
  uint32_t u32v;
  float f, v2[2];
  int k, i, j, bad;
  CHECK(quant_taichi_create(NULL, &ctx));

  /* test_bitpacked_fields.py::test_simple_array */
  CHECK(quant_taichi_sa_set(ctx));
  CHECK(quant_taichi_sa_verify(ctx, &ret));
  EXPECT_I(ret, 0);
  for (k = 0; k < 12; ++k) {
    CHECK(quant_taichi_sa_x_get(ctx, k, &i32v));
    EXPECT_I(i32v, wrap(-(1LL << k), 13, 1));
    EXPECT_I(i32v, -(1LL << k));
    CHECK(quant_taichi_sa_y_get(ctx, k, &u32v));
    EXPECT_I(u32v, wrap((1LL << k) - 1, 19, 0));
  }

  /* test_bitpacked_fields.py::test_quant_int_load_and_store */
  {
    int32_t cases[5][3] = {{(1 << 12) - 1, (1 << 14) - 1, -(1 << 3)},
                           {(1 << 11) - 1, (1 << 13) - 1, -(1 << 2)},
                           {0, 0, 0},
                           {123, 4567, 8},
                           {10, 31, 11}};
    tc_ndarray t = nd(cases, TC_DTYPE_I32, 5, 3);
    for (k = 0; k < 5; ++k) {
      CHECK(quant_taichi_ls_set(ctx, t, k));
      CHECK(quant_taichi_ls_verify(ctx, t, k, &ret));
      EXPECT_I(ret, 0);
      CHECK(quant_taichi_ls_x_get(ctx, &i32v));
      EXPECT_I(i32v, wrap(cases[k][0], 13, 1));
      CHECK(quant_taichi_ls_y_get(ctx, &u32v));
      EXPECT_I(u32v, wrap(cases[k][1], 14, 0));
      CHECK(quant_taichi_ls_z_get(ctx, &i32v));
      EXPECT_I(i32v, wrap(cases[k][2], 5, 1));
      /* Python-scope writes: the C accessors. */
      CHECK(quant_taichi_ls_x_set(ctx, 0));
      CHECK(quant_taichi_ls_y_set(ctx, 0));
      CHECK(quant_taichi_ls_z_set(ctx, 0));
      CHECK(quant_taichi_ls_x_set(ctx, cases[k][0]));
      CHECK(quant_taichi_ls_y_set(ctx, (uint32_t)cases[k][1]));
      CHECK(quant_taichi_ls_z_set(ctx, cases[k][2]));
      CHECK(quant_taichi_ls_verify(ctx, t, k, &ret));
      EXPECT_I(ret, 0);
    }
  }

  /* test_bitpacked_fields.py::test_quant_int_full_struct */
  CHECK(quant_taichi_full_x_set(ctx, 0, 15));
  CHECK(quant_taichi_full_x_get(ctx, 0, &i32v));
  EXPECT_I(i32v, wrap(15, 32, 1));
  CHECK(quant_taichi_full_x_set(ctx, 0, 12));
  CHECK(quant_taichi_full_x_get(ctx, 0, &i32v));
  EXPECT_I(i32v, wrap(12, 32, 1));

  /* test_bitpacked_fields.py::test_bitpacked_fields */
#define BP(K, T)                                                               \
  do {                                                                         \
    const int64_t *v_ = bp_vals[K - 1];                                        \
    const int *b_ = bp_bits[K - 1];                                            \
    T a_, b2_, c_;                                                             \
    CHECK(quant_taichi_bp##K##_set(ctx, (T)v_[0], (T)v_[1], (T)v_[2]));        \
    CHECK(                                                                     \
        quant_taichi_bp##K##_verify(ctx, (T)v_[0], (T)v_[1], (T)v_[2], &ret)); \
    EXPECT_I(ret, 0);                                                          \
    CHECK(quant_taichi_bp##K##_a_get(ctx, &a_));                               \
    CHECK(quant_taichi_bp##K##_b_get(ctx, &b2_));                              \
    CHECK(quant_taichi_bp##K##_c_get(ctx, &c_));                               \
    EXPECT_I(a_, wrap(v_[0], b_[0], 1));                                       \
    EXPECT_I(b2_, wrap(v_[1], b_[1], 0));                                      \
    EXPECT_I(c_, wrap(v_[2], b_[2], 1));                                       \
    EXPECT_I(a_, v_[0]);                                                       \
    EXPECT_I(b2_, v_[1]);                                                      \
    EXPECT_I(c_, v_[2]);                                                       \
  } while (0)
  BP(1, int8_t);
  BP(2, int16_t);
  BP(3, int32_t);
  BP(4, int64_t);
  BP(5, int16_t);
  BP(6, int32_t);
  BP(7, int16_t);
  BP(8, int32_t);

  /* test_bitpacked_fields.py::test_bitpacked_fields_struct_for:
     fixed(32, max 1024), s = 2^-21. */
  for (k = 0; k < 64; ++k)
    if (k / 16 % 2 == 0)
      CHECK(quant_taichi_sf_x_set(ctx, k, 0.0f));
  CHECK(quant_taichi_sf_assign(ctx));
  for (k = 0; k < 64; ++k) {
    CHECK(quant_taichi_sf_x_get(ctx, k, &f));
    if (k / 16 % 2 == 0) {
      EXPECT_F(f, fixed_rt((float)k, 1024.0 / 2147483648.0, 32, 1));
      EXPECT_APPROX(f, k, 0, 1e-3);
    } else {
      EXPECT_F(f, 0.0f);
    }
  }

  /* test_bitpacked_fields.py::test_multiple_types (one format per shared
     group: p and q are both quant.float(exp: 5, frac: 10)) */
  CHECK(quant_taichi_mt_set(ctx));
  CHECK(quant_taichi_mt_verify(ctx, &ret));
  EXPECT_I(ret, 0);
  for (k = 0; k < 12; ++k) {
    float in[2], want[2];
    in[0] = (float)(3 * k);
    in[1] = (float)(2 * k);
    shared_rt(in, want, 2, 5, 10, 1);
    CHECK(quant_taichi_mt_p_get(ctx, k, &f));
    EXPECT_FV(f, want[0]);
    EXPECT_FV(f, 3 * k);
    CHECK(quant_taichi_mt_q_get(ctx, k, &f));
    EXPECT_FV(f, want[1]);
    EXPECT_FV(f, 2 * k);
    CHECK(quant_taichi_mt_r_get(ctx, k, &u32v));
    EXPECT_I(u32v, wrap(k, 4, 0));
  }

  /* test_quant_float.py::test_quant_float_unsigned[32], [64] */
  {
    const float tests[] = {
        0.0f, 1.0f / 1024, 1.75f / 1024, 0.25f, 0.5f, 0.75f, 1, 2, 3, 4, 5,
        6,    7,           128,          256,   512,  1024};
    CHECK(quant_taichi_fu32_get(ctx, &f));
    EXPECT_F(f, 0.0f);
    CHECK(quant_taichi_fu64_get(ctx, &f));
    EXPECT_F(f, 0.0f);
    for (k = 0; k < (int)(sizeof tests / sizeof *tests); ++k) {
      CHECK(quant_taichi_fu32_set(ctx, tests[k]));
      CHECK(quant_taichi_fu32_get(ctx, &f));
      EXPECT_F(f, float_rt(tests[k], 6, 13, 0));
      EXPECT_FV(f, tests[k]);
      CHECK(quant_taichi_fu64_set(ctx, tests[k]));
      CHECK(quant_taichi_fu64_get(ctx, &f));
      EXPECT_F(f, float_rt(tests[k], 6, 13, 0));
      EXPECT_FV(f, tests[k]);
    }
  }

  /* test_quant_float.py::test_quant_float_signed */
  {
    const float tests[] = {0, 0.125f, 0.5f, 2, 4, 6, 7, 8, 9};
    const float ftz[] = {1e-30f, 1e-20f, 1e-10f, 1e-2f};
    CHECK(quant_taichi_fs_get(ctx, &f));
    EXPECT_F(f, 0.0f);
    for (k = 0; k < 9; ++k) {
      CHECK(quant_taichi_fs_set(ctx, tests[k]));
      CHECK(quant_taichi_fs_get(ctx, &f));
      EXPECT_F(f, float_rt(tests[k], 6, 13, 1));
      EXPECT_FV(f, tests[k]);
      CHECK(quant_taichi_fs_set(ctx, -tests[k]));
      CHECK(quant_taichi_fs_get(ctx, &f));
      EXPECT_F(f, float_rt(-tests[k], 6, 13, 1)); /* -0 reads +0 */
      EXPECT_FV(f, -tests[k]);
    }
    for (k = 0; k < 4; ++k) {
      CHECK(quant_taichi_fs_set(ctx, ftz[k]));
      CHECK(quant_taichi_fs_get(ctx, &f));
      EXPECT_F(f, float_rt(ftz[k], 6, 13, 1));
      EXPECT_APPROX(f, ftz[k], 0, 1e-5);
      CHECK(quant_taichi_fs_set(ctx, -ftz[k]));
      CHECK(quant_taichi_fs_get(ctx, &f));
      EXPECT_F(f, float_rt(-ftz[k], 6, 13, 1));
      EXPECT_APPROX(f, -ftz[k], 0, 1e-5);
    }
  }

  /* test_quant_float.py::test_quant_float_precision[23], [24] */
  {
    const float tests[] = {(float)PI, (float)ldexp(PI, 100)};
    for (k = 0; k < 2; ++k) {
      CHECK(quant_taichi_fp24_set(ctx, tests[k]));
      CHECK(quant_taichi_fp24_get(ctx, &f));
      EXPECT_F(f, float_rt(tests[k], 8, 24, 1));
      EXPECT_F(f, tests[k]); /* sufficient digits */
      CHECK(quant_taichi_fp23_set(ctx, tests[k]));
      CHECK(quant_taichi_fp23_get(ctx, &f));
      EXPECT_F(f, float_rt(tests[k], 8, 23, 1));
      EXPECT_TRUE(f != tests[k]); /* pi's f32 pattern ends in a 1 */
      EXPECT_APPROX(f, tests[k], 3e-7, 0);
    }
  }

  /* test_quant_float.py::test_quant_float_truncation[True], [False] */
  {
    const float in[] = {1.0f, 1.5f, 1.75f, 1.625f};
    const float taichi_s[] = {1.0f, 1.5f, 2.0f, 1.5f};
    const float taichi_u[] = {1.0f, 1.5f, 1.75f, 1.75f};
    for (k = 0; k < 4; ++k) {
      CHECK(quant_taichi_ft_s_set(ctx, in[k]));
      CHECK(quant_taichi_ft_s_get(ctx, &f));
      EXPECT_F(f, float_rt(in[k], 5, 2, 1));
      EXPECT_FV(f, taichi_s[k]);
      CHECK(quant_taichi_ft_u_set(ctx, in[k]));
      CHECK(quant_taichi_ft_u_get(ctx, &f));
      EXPECT_F(f, float_rt(in[k], 5, 2, 0));
      EXPECT_FV(f, taichi_u[k]);
    }
  }

  /* test_quant_float.py::test_quant_float_atomic_demotion */
  CHECK(quant_taichi_fad_foo(ctx));
  CHECK(quant_taichi_fad_foo(ctx));
  CHECK(quant_taichi_fad_get(ctx, &f));
  EXPECT_F(f, float_rt(float_rt(0.0f + 1.0f, 5, 2, 1) + 1.0f, 5, 2, 1));
  EXPECT_FV(f, 2.0f);

  /* test_quant_fixed.py::test_quant_fixed: fixed(32, max 2), s = 2^-30. */
  {
    const double s = 2.0 / 2147483648.0;
    CHECK(quant_taichi_qf_foo(ctx));
    CHECK(quant_taichi_qf_x_get(ctx, &f));
    EXPECT_F(f, fixed_rt(fixed_rt(0.7f, s, 32, 1) + 0.4f, s, 32, 1));
    EXPECT_APPROX(f, 1.1, 1e-6, 1e-12);
    CHECK(quant_taichi_qf_x_set(ctx, 0.64f));
    CHECK(quant_taichi_qf_x_get(ctx, &f));
    EXPECT_F(f, fixed_rt(0.64f, s, 32, 1));
    EXPECT_APPROX(f, 0.64, 1e-6, 1e-12);
    CHECK(quant_taichi_qf_x_set(ctx, 0.66f));
    CHECK(quant_taichi_qf_x_get(ctx, &f));
    EXPECT_F(f, fixed_rt(0.66f, s, 32, 1));
    EXPECT_APPROX(f, 0.66, 1e-6, 1e-12);
  }

  /* test_quant_fixed.py::test_quant_fixed_matrix_rotation: fixed(16, max
     1.2). Each step is compared with the exact rotation of the state tic
     had before it, rounded to the fixed point: tic computes in f32, so a
     component may land one code away where the exact product is near a
     tie. After five steps of 18 degrees: Taichi's abs 1e-4. */
  {
    const double s = 1.2 / 32768, c = cos(PI / 10), sn = sin(PI / 10);
    float r0[2], r1[2], n0[2], n1[2];
    int step;
    r0[0] = 1.0f;
    r0[1] = 0.0f;
    r1[0] = 0.0f;
    r1[1] = 1.0f;
    CHECK(quant_taichi_rot_r0_set(ctx, r0));
    CHECK(quant_taichi_rot_r1_set(ctx, r1));
    for (step = 0; step < 5; ++step) {
      double y[4];
      CHECK(quant_taichi_rot_r0_get(ctx, r0));
      CHECK(quant_taichi_rot_r1_get(ctx, r1));
      if (step == 0) {
        EXPECT_F(r0[0], fixed_rt(1.0f, s, 16, 1));
        EXPECT_F(r0[1], 0.0f);
      }
      CHECK(quant_taichi_rotate_18_degrees(ctx));
      CHECK(quant_taichi_rot_r0_get(ctx, n0));
      CHECK(quant_taichi_rot_r1_get(ctx, n1));
      y[0] = r0[0] * c - r0[1] * sn;
      y[1] = r0[0] * sn + r0[1] * c;
      y[2] = r1[0] * c - r1[1] * sn;
      y[3] = r1[0] * sn + r1[1] * c;
      EXPECT_TRUE(fabs(n0[0] - fixed_rt((float)y[0], s, 16, 1)) <= 1.0001 * s);
      EXPECT_TRUE(fabs(n0[1] - fixed_rt((float)y[1], s, 16, 1)) <= 1.0001 * s);
      EXPECT_TRUE(fabs(n1[0] - fixed_rt((float)y[2], s, 16, 1)) <= 1.0001 * s);
      EXPECT_TRUE(fabs(n1[1] - fixed_rt((float)y[3], s, 16, 1)) <= 1.0001 * s);
      /* every value is a code of the type */
      EXPECT_F(n0[0], fixed_rt(n0[0], s, 16, 1));
      EXPECT_F(n1[1], fixed_rt(n1[1], s, 16, 1));
    }
    EXPECT_APPROX(n0[0], 0.0, 0, 1e-4);
    EXPECT_APPROX(n0[1], 1.0, 0, 1e-4);
    EXPECT_APPROX(n1[0], -1.0, 0, 1e-4);
    EXPECT_APPROX(n1[1], 0.0, 0, 1e-4);
  }

  /* test_quant_fixed.py::test_quant_fixed_implicit_cast: scale 0.1 */
  CHECK(quant_taichi_ic_fx_foo(ctx));
  CHECK(quant_taichi_ic_fx_get(ctx, &f));
  EXPECT_F(f, fixed_rt(10.0f, 409.6 / 4096, 13, 1));
  EXPECT_APPROX(f, 10.0, 1e-6, 1e-12);

  /* test_quant_fixed.py::test_quant_fixed_cache_read_only: scale 0.1 */
  {
    const float in[] = {0.7f, 1.2f};
    for (k = 0; k < 2; ++k) {
      CHECK(quant_taichi_cro_x_set(ctx, in[k]));
      CHECK(quant_taichi_cro_x_get(ctx, &f));
      EXPECT_F(f, fixed_rt(in[k], 1638.4 / 16384, 15, 1));
      CHECK(quant_taichi_cro_test(ctx, in[k], &ret));
      EXPECT_I(ret, fixed_rt(in[k], 1638.4 / 16384, 15, 1) == in[k]);
      EXPECT_I(ret, 1); /* Taichi's assert */
    }
  }

  /* test_quant_int.py::test_quant_int_implicit_cast */
  CHECK(quant_taichi_ic_i_foo(ctx));
  CHECK(quant_taichi_ic_i_get(ctx, &i32v));
  EXPECT_I(i32v, wrap((int32_t)10.3f, 13, 1));
  EXPECT_I(i32v, 10);

  /* test_quant_int.py::test_quant_store_fusion, test_quant_store_no_fusion:
     the printed lines "i i+1" (fusion) and "i", "i+1" (no fusion). */
  {
    int32_t out[20];
    for (j = 0; j < 2; ++j) {
      memset(out, 0x55, sizeof out);
      if (j == 0)
        CHECK(quant_taichi_store_fusion(ctx, nd(out, TC_DTYPE_I32, 20, 0)));
      else
        CHECK(quant_taichi_store_no_fusion(ctx, nd(out, TC_DTYPE_I32, 20, 0)));
      for (k = 0; k < 10; ++k) {
        EXPECT_I(out[2 * k], wrap(k, 16, 1));
        EXPECT_I(out[2 * k + 1], wrap(k + 1, 16, 1));
      }
    }
  }

  /* test_quant_atomics.py::test_quant_int_atomics */
  CHECK(quant_taichi_at_x_set(ctx, 3));
  CHECK(quant_taichi_at_y_set(ctx, 2));
  CHECK(quant_taichi_at_z_set(ctx, 0));
  CHECK(quant_taichi_at_foo(ctx));
  CHECK(quant_taichi_at_x_get(ctx, &i32v));
  EXPECT_I(i32v, wrap(3 + 10 * 4, 13, 1));
  EXPECT_I(i32v, 43);
  CHECK(quant_taichi_at_y_get(ctx, &i32v));
  EXPECT_I(i32v, wrap(2 - 5, 5, 1));
  EXPECT_I(i32v, -3);
  CHECK(quant_taichi_at_z_get(ctx, &u32v));
  EXPECT_I(u32v, wrap(0 + 3, 2, 0));
  EXPECT_I(u32v, 3);

  /* test_quant_atomics.py::test_quant_int_atomics_b64 */
  {
    int64_t want[4] = {100, 200, 300, 0};
    for (k = 0; k < 3; ++k)
      CHECK(quant_taichi_at64_set(ctx, k, (int32_t)want[k]));
    CHECK(quant_taichi_at64_foo(ctx));
    for (k = 0; k < 9; ++k)
      want[k % 3] += k;
    for (k = 0; k < 4; ++k) {
      CHECK(quant_taichi_at64_get(ctx, k, &i32v));
      EXPECT_I(i32v, wrap(want[k], 13, 1));
    }
    CHECK(quant_taichi_at64_get(ctx, 0, &i32v));
    EXPECT_I(i32v, 109);
    CHECK(quant_taichi_at64_get(ctx, 1, &i32v));
    EXPECT_I(i32v, 212);
    CHECK(quant_taichi_at64_get(ctx, 2, &i32v));
    EXPECT_I(i32v, 315);
  }

  /* test_quant_atomics.py::test_quant_fixed_atomics: += on a fixed point
     adds round(delta / s) to the digits. */
  {
    const double sx = 409.6 / 4096, sy = 52428.8 / 524288;
    int64_t cx = fixed_enc(0.7f, sx, 13, 1), cy = fixed_enc(123.4f, sy, 19, 0);
    CHECK(quant_taichi_afx_foo(ctx));
    for (k = 0; k < 10; ++k) {
      cx = wrap(cx + fixed_enc(-0.4f, sx, 64, 1), 13, 1);
      cy = wrap(cy + fixed_enc(100.1f, sy, 64, 1), 19, 0);
    }
    CHECK(quant_taichi_afx_x_get(ctx, &f));
    EXPECT_F(f, fixed_dec(cx, sx));
    EXPECT_APPROX(f, -3.3, 1e-6, 1e-12);
    CHECK(quant_taichi_afx_y_get(ctx, &f));
    EXPECT_F(f, fixed_dec(cy, sy));
    EXPECT_APPROX(f, 1124.4, 1e-6, 1e-12);
  }

  /* test_quant_array.py::test_1D_quant_array */
  CHECK(quant_taichi_qa1_set_val(ctx));
  CHECK(quant_taichi_qa1_verify_val(ctx, &ret));
  EXPECT_I(ret, 0);
  for (k = 0; k < 32; ++k) {
    CHECK(quant_taichi_qa1_get(ctx, k, &u32v));
    EXPECT_I(u32v, wrap(k % 2, 1, 0));
  }

  /* test_quant_array.py::test_1D_quant_array_negative */
  {
    int32_t before[4], after[4];
    CHECK(quant_taichi_qan_assign(ctx, nd(before, TC_DTYPE_I32, 4, 0),
                                  nd(after, TC_DTYPE_I32, 4, 0)));
    for (k = 0; k < 4; ++k) {
      EXPECT_I(before[k], 0);
      EXPECT_I(after[k], wrap(-k, 7, 1));
      EXPECT_I(after[k], -k);
      CHECK(quant_taichi_qan_get(ctx, k, &i32v));
      EXPECT_I(i32v, wrap(-k, 7, 1));
    }
  }

  /* test_quant_array.py::test_1D_quant_array_fixed: fixed(8, max 2) */
  CHECK(quant_taichi_qaf_set_val(ctx));
  CHECK(quant_taichi_qaf_verify_val(ctx, &ret));
  EXPECT_I(ret, 0);
  for (k = 0; k < 4; ++k) {
    CHECK(quant_taichi_qaf_get(ctx, k, &f));
    EXPECT_F(f, fixed_rt((float)k * 0.5f, 2.0 / 128, 8, 1));
    EXPECT_FV(f, (float)k * 0.5f);
  }

  /* test_quant_array.py::test_2D_quant_array */
  CHECK(quant_taichi_qa2_set_val(ctx));
  CHECK(quant_taichi_qa2_verify_val(ctx, &ret));
  EXPECT_I(ret, 0);
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 8; ++j) {
      CHECK(quant_taichi_qa2_get(ctx, i, j, &u32v));
      EXPECT_I(u32v, wrap((i * 8 + j) % 2, 1, 0));
    }

  /* test_quant_array.py::test_quant_array_struct_for */
  CHECK(quant_taichi_qas_activate(ctx));
  CHECK(quant_taichi_qas_assign(ctx));
  CHECK(quant_taichi_qas_verify(ctx, &ret));
  EXPECT_I(ret, 0);
  for (k = 0; k < 64; ++k) {
    CHECK(quant_taichi_qas_get(ctx, k, &i32v));
    EXPECT_I(i32v, k / 16 % 2 == 0 ? wrap(wrap(k, 7, 1) - 1, 7, 1) : 0);
  }

  /* test_quant_array_vectorization.py::test_vectorized_struct_for: random
     bits in the interior (Taichi's init), y = x one word at a time. */
  for (i = 0; i < VN; ++i)
    for (j = 0; j < VN; ++j)
      bx[i * VN + j] = in_interior(i, j) ? (uint32_t)(next() % 2) : 0;
  CHECK(quant_taichi_vs_x_write(ctx, bx, VN * VN));
  CHECK(quant_taichi_vs_assign_vectorized(ctx));
  CHECK(quant_taichi_vs_verify(ctx, &ret));
  EXPECT_I(ret, 0);
  CHECK(quant_taichi_vs_y_read(ctx, by, VN * VN));
  for (k = 0, bad = 0; k < VN * VN; ++k)
    bad += by[k] != bx[k];
  EXPECT_I(bad, 0);

  /* test_quant_array_vectorization.py::test_offset_load: y = z = x shifted
     by (dx, dy); compared wherever the scalar program reads x in range
     (rows 0 and VN - 1 are skipped by the kernel). */
  for (i = 0; i < VN; ++i)
    for (j = 0; j < VN; ++j)
      bx[i * VN + j] = in_interior(i, j) ? (uint32_t)(next() % 2) : 0;
  CHECK(quant_taichi_ol_x_write(ctx, bx, VN * VN));
#define OFFSET_LOAD(NAME, DX, DY)                                              \
  do {                                                                         \
    CHECK(quant_taichi_ol_assign_##NAME(ctx));                                 \
    CHECK(quant_taichi_ol_verify_##NAME(ctx, &ret));                           \
    EXPECT_I(ret, 0);                                                          \
    CHECK(quant_taichi_ol_y_read(ctx, by, VN *VN));                            \
    CHECK(quant_taichi_ol_z_read(ctx, bz, VN *VN));                            \
    for (i = 0, bad = 0; i < VN; ++i)                                          \
      for (j = 0; j < VN; ++j) {                                               \
        int si = i + (DX), sj = j + (DY);                                      \
        if (i == 0 || i == VN - 1 || sj < 0 || sj >= VN)                       \
          continue;                                                            \
        if (by[i * VN + j] != bx[si * VN + sj] ||                              \
            bz[i * VN + j] != bx[si * VN + sj]) {                              \
          if (bad++ < 5)                                                       \
            fprintf(stderr,                                                    \
                    "offset_load(%d, %d) at (%d, %d): %u %u, want %u\n", DX,   \
                    DY, i, j, by[i * VN + j], bz[i * VN + j],                  \
                    bx[si * VN + sj]);                                         \
        }                                                                      \
      }                                                                        \
    EXPECT_I(bad, 0);                                                          \
  } while (0)
  OFFSET_LOAD(0_1, 0, 1);
  OFFSET_LOAD(1_0, 1, 0);
  OFFSET_LOAD(0_m1, 0, -1);
  OFFSET_LOAD(m1_0, -1, 0);
  OFFSET_LOAD(1_1, 1, 1);
  OFFSET_LOAD(1_m1, 1, -1);
  OFFSET_LOAD(m1_m1, -1, -1);
  OFFSET_LOAD(m1_1, -1, 1);

  /* test_bit_array_vectorization.py::test_evolve: one B3/S23 step,
     vectorized (y, every cell) and naive (z, the interior), against plain
     C; y is compared wherever all eight neighbours are in range. */
  for (i = 0; i < VN; ++i)
    for (j = 0; j < VN; ++j)
      bx[i * VN + j] = in_interior(i, j) ? (uint32_t)(next() % 2) : 0;
  CHECK(quant_taichi_ev_x_write(ctx, bx, VN * VN));
  CHECK(quant_taichi_evolve_naive(ctx));
  CHECK(quant_taichi_evolve_vectorized(ctx));
  CHECK(quant_taichi_ev_y_read(ctx, by, VN * VN));
  CHECK(quant_taichi_ev_z_read(ctx, bz, VN * VN));
  for (i = 1; i < VN - 1; ++i)
    for (j = 1; j < VN - 1; ++j) {
      uint32_t c = 0;
      int di, dj;
      for (di = -1; di <= 1; ++di)
        for (dj = -1; dj <= 1; ++dj)
          if (di || dj)
            c += bx[(i + di) * VN + j + dj];
      bref[i * VN + j] = c == 3 || (c == 2 && bx[i * VN + j] == 1);
    }
  for (i = 1, bad = 0; i < VN - 1; ++i)
    for (j = 1; j < VN - 1; ++j) {
      if (by[i * VN + j] != bref[i * VN + j] && bad++ < 5)
        fprintf(stderr, "evolve_vectorized (%d, %d): %u, want %u\n", i, j,
                by[i * VN + j], bref[i * VN + j]);
      if (in_interior(i, j) && bz[i * VN + j] != bref[i * VN + j] && bad++ < 5)
        fprintf(stderr, "evolve_naive (%d, %d): %u, want %u\n", i, j,
                bz[i * VN + j], bref[i * VN + j]);
    }
  EXPECT_I(bad, 0);

  /* test_quant_float_shared_exp.py, exponent_bits = 5, 6, 7, 8: a and b are
     quant.float(exp: E, frac: 12, signed: false) sharing one exponent. st
     is the reference state (decoded values). */
  {
    int E;
    for (E = 5; E <= 8; ++E) {
      tc_status (*foo)(quant_taichi_ctx *, float, float);
      tc_status (*inc)(quant_taichi_ctx *, float, float);
      tc_status (*a_set)(quant_taichi_ctx *, float);
      tc_status (*b_set)(quant_taichi_ctx *, float);
      tc_status (*a_get)(quant_taichi_ctx *, float *);
      tc_status (*b_get)(quant_taichi_ctx *, float *);
      tc_status (*na_set)(quant_taichi_ctx *, float);
      tc_status (*nb_set)(quant_taichi_ctx *, float);
      tc_status (*na_get)(quant_taichi_ctx *, float *);
      tc_status (*nb_get)(quant_taichi_ctx *, float *);
      float st[2] = {0, 0}, a, b;
      switch (E) {
#define SE_CASE(N)                                                             \
  case N:                                                                      \
    foo = quant_taichi_se##N##_foo;                                            \
    inc = quant_taichi_se##N##_inc;                                            \
    a_set = quant_taichi_se##N##_a_set;                                        \
    b_set = quant_taichi_se##N##_b_set;                                        \
    a_get = quant_taichi_se##N##_a_get;                                        \
    b_get = quant_taichi_se##N##_b_get;                                        \
    na_set = quant_taichi_sn##N##_a_set;                                       \
    nb_set = quant_taichi_sn##N##_b_set;                                       \
    na_get = quant_taichi_sn##N##_a_get;                                       \
    nb_get = quant_taichi_sn##N##_b_get;                                       \
    break;
        SE_CASE(5)
        SE_CASE(6)
        SE_CASE(7)
        SE_CASE(8)
      default:
        return 1;
      }
#define SE_CHECK(want_a, want_b)                                               \
  do {                                                                         \
    CHECK(a_get(ctx, &a));                                                     \
    CHECK(b_get(ctx, &b));                                                     \
    if (a != (want_a) || b != (want_b)) {                                      \
      fprintf(                                                                 \
          stderr, "%s:%d: exp %d: (a, b) = (%.9g, %.9g), want (%.9g, %.9g)\n", \
          __FILE__, __LINE__, E, a, b, (double)(want_a), (double)(want_b));    \
      ++tic_test_failures;                                                     \
    }                                                                          \
  } while (0)
#define SE_SET(k, v)                                                           \
  do {                                                                         \
    CHECK((k) == 0 ? a_set(ctx, v) : b_set(ctx, v));                           \
    shared_store(st, k, v, E, 12, 0);                                          \
  } while (0)
#define SE_FOO(x, y)                                                           \
  do {                                                                         \
    float in_[2];                                                              \
    in_[0] = (x);                                                              \
    in_[1] = (y);                                                              \
    CHECK(foo(ctx, in_[0], in_[1]));                                           \
    shared_rt(in_, st, 2, E, 12, 0);                                           \
  } while (0)
#define SE_INC(da, db)                                                         \
  do {                                                                         \
    CHECK(inc(ctx, da, db));                                                   \
    shared_store(st, 0, st[0] + (float)(da), E, 12, 0);                        \
    shared_store(st, 1, st[1] + (float)(db), E, 12, 0);                        \
  } while (0)

      /* test_quant_float_shared_exp.py::test_shared_exponents */
      SE_CHECK(0.0f, 0.0f);
      SE_SET(0, 10.0f);
      SE_CHECK(st[0], st[1]);
      SE_CHECK(10.0f, 0.0f);
      SE_SET(0, 0.0f);
      SE_CHECK(st[0], st[1]);
      SE_CHECK(0.0f, 0.0f);
      SE_FOO(3.2f, 0.25f);
      SE_CHECK(st[0], st[1]);
      EXPECT_APPROX(a, 3.2, 1e-3, 0);
      EXPECT_APPROX(b, 0.25, 2e-2, 0);
      SE_SET(0, 0.27f);
      SE_CHECK(st[0], st[1]);
      EXPECT_APPROX(a, 0.27, 1e-2, 0);
      EXPECT_APPROX(b, 0.25, 2e-2, 0);
      SE_SET(0, 100.0f);
      SE_CHECK(st[0], st[1]);
      EXPECT_APPROX(a, 100, 1e-3, 0);
      EXPECT_APPROX(b, 0.25, 1e-2, 0);
      SE_SET(1, 0.0f);
      SE_CHECK(st[0], st[1]);
      EXPECT_APPROX(a, 100, 1e-3, 0);
      EXPECT_FV(b, 0.0f);
      SE_FOO(0.0f, 0.0f);
      SE_CHECK(st[0], st[1]);
      SE_CHECK(0.0f, 0.0f);
      SE_FOO(1000.0f, 1e-6f); /* flush to zero */
      SE_CHECK(st[0], st[1]);
      SE_CHECK(1000.0f, 0.0f);
      SE_FOO(1000.0f, 1000.0f);
      SE_CHECK(st[0], st[1]);
      SE_CHECK(1000.0f, 1000.0f);
      SE_FOO(1e-30f, 1e-30f);
      SE_CHECK(st[0], st[1]);
      if (E == 8) {
        EXPECT_APPROX(a, 1e-30, 1e-3, 0);
        EXPECT_APPROX(b, 1e-30, 1e-3, 0);
      } else {
        /* insufficient exponent bits: flush to zero */
        EXPECT_FV(a, 0.0f);
        EXPECT_FV(b, 0.0f);
      }

      /* test_quant_float_shared_exp.py::test_shared_exponent_add */
      SE_FOO(0.0f, 0.0f);
      SE_SET(0, 4.0f);
      SE_CHECK(st[0], st[1]);
      SE_CHECK(4.0f, 0.0f);
      SE_SET(1, 3.0f);
      SE_CHECK(st[0], st[1]);
      SE_CHECK(4.0f, 3.0f);
      SE_INC(0.0f, 1.0f);
      SE_CHECK(st[0], st[1]);
      SE_CHECK(4.0f, 4.0f);
      for (k = 0; k < 100; ++k) {
        SE_INC(4.0f, 1.0f);
        SE_CHECK(st[0], st[1]);
        SE_CHECK((float)(4 + (k + 1) * 4), (float)(4 + (k + 1)));
      }

      /* test_quant_float_shared_exp.py::test_shared_exponent_borrow */
      SE_FOO(0.0f, 100.0f);
      for (k = 0; k < 100; ++k) {
        SE_CHECK(st[0], st[1]);
        SE_CHECK((float)k, (float)(100 - k));
        SE_INC(1.0f, -1.0f);
      }

      /* test_quant_float_shared_exp.py::test_shared_exponent_negative:
         both quant.float(exp: E, frac: 12, signed: true) */
      CHECK(na_set(ctx, 37.0f));
      CHECK(na_get(ctx, &a));
      st[0] = st[1] = 0;
      shared_store(st, 0, 37.0f, E, 12, 1);
      EXPECT_FV(a, st[0]);
      EXPECT_FV(a, 37.0f);
      CHECK(nb_set(ctx, -123.0f));
      shared_store(st, 1, -123.0f, E, 12, 1);
      CHECK(na_get(ctx, &a));
      CHECK(nb_get(ctx, &b));
      EXPECT_FV(a, st[0]);
      EXPECT_FV(b, st[1]);
      EXPECT_FV(b, -123.0f);
    }
  }

  /* test_quant_time_integration.py::test_quant_time_integration: 1000 steps
     of the midpoint rule around the unit circle, for each of the four
     programs; Taichi's tolerances at steps 500 and 1000, and a C
     simulation of the same program (f32 arithmetic, the reference
     encodings) step by step. */
  {
    const float dt = (float)(PI * 2 / 1000);
    int prog, step;
    for (prog = 0; prog < 4; ++prog) {
      float x[2] = {1.0f, 0.0f}, px[1000], py[1000];
      double maxd = 0;
      switch (prog) {
      case 0:
        CHECK(quant_taichi_ti_f_set(ctx, x));
        break;
      case 1:
        CHECK(quant_taichi_ti_fx_set(ctx, x));
        break;
      case 2:
        CHECK(quant_taichi_ti_e0_set(ctx, x[0]));
        CHECK(quant_taichi_ti_e1_set(ctx, x[1]));
        break;
      default:
        CHECK(quant_taichi_ti_sh_set(ctx, x));
        break;
      }
      for (step = 0; step < 1000; ++step) {
        float h = 0.5f * dt, m0, m1, q[2];
        switch (prog) {
        case 0:
          CHECK(quant_taichi_advance_f(ctx, dt));
          CHECK(quant_taichi_ti_f_get(ctx, v2));
          break;
        case 1:
          CHECK(quant_taichi_advance_fx(ctx, dt));
          CHECK(quant_taichi_ti_fx_get(ctx, v2));
          break;
        case 2:
          CHECK(quant_taichi_advance_e(ctx, dt));
          CHECK(quant_taichi_ti_e0_get(ctx, &v2[0]));
          CHECK(quant_taichi_ti_e1_get(ctx, &v2[1]));
          break;
        default:
          CHECK(quant_taichi_advance_sh(ctx, dt));
          CHECK(quant_taichi_ti_sh_get(ctx, v2));
          break;
        }
        px[step] = v2[0];
        py[step] = v2[1];
        /* the reference step from the reference state */
        m0 = x[0] + h * -x[1];
        m1 = x[1] + h * x[0];
        q[0] = x[0] + -m1 * dt;
        q[1] = x[1] + m0 * dt;
        switch (prog) {
        case 0:
          x[0] = q[0];
          x[1] = q[1];
          break;
        case 1:
          x[0] = fixed_rt(q[0], 2.0 / 32768, 16, 1);
          x[1] = fixed_rt(q[1], 2.0 / 32768, 16, 1);
          break;
        case 2:
          x[0] = float_rt(q[0], 6, 13, 1);
          x[1] = float_rt(q[1], 6, 13, 1);
          break;
        default:
          shared_rt(q, x, 2, 6, 13, 1);
          break;
        }
        if (fabs(px[step] - x[0]) > maxd)
          maxd = fabs(px[step] - x[0]);
        if (fabs(py[step] - x[1]) > maxd)
          maxd = fabs(py[step] - x[1]);
      }
      /* f32 rounding (and an encoding's tie) may differ from the C
         simulation's; the two stay within 1e-3 over the whole orbit. */
      if (maxd > 1e-3) {
        fprintf(stderr, "time integration %d: %g from the C simulation\n", prog,
                maxd);
        ++tic_test_failures;
      }
      EXPECT_APPROX(px[1000 / 2 - 1], -1.0, 0, 2e-2);
      EXPECT_APPROX(py[1000 / 2 - 1], 0.0, 0, 2e-2);
      EXPECT_APPROX(px[999], 1.0, 0, 2e-2);
      EXPECT_APPROX(py[999], 0.0, 0, 3e-2);
    }
  }

  quant_taichi_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("quant_taichi: ok\n");
  return 0;
}

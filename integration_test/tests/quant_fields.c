/* Quantized fields: see quant_fields.tc. Every expected value comes from the
 * C reference below, written from docs/quant.md, or from the acceptance
 * cases of the QuanTaichi extracts (values computed from the paper). */
#include "quant_fields.h"
#define LAST_ERROR quant_fields_last_error
#include "common.h"
#include "quant_ref.h"

static uint64_t rng = 88172645463325252ull;
static uint32_t next(void) { return xorshift32(&rng); }

static tc_ndarray nd(float *p, int64_t n) {
  return tic_test_ndarray(p, TC_DTYPE_F32, n, 0);
}

#define NR 65536
static float xs[NR], got1[NR], got2[NR];
static int32_t ints[NR];

int main(void) {
  quant_fields_ctx *ctx = NULL;
  const double s12 = 20.48 / 2048, s10 = 2.0 / 1024;
  int32_t i32v, j;
  int64_t i64v;
  float f, v3[3];
  uint32_t u32v;
  int k, bad = 0;
  CHECK(quant_fields_create(NULL, &ctx));

  /* Every code of a 16-bit int: stores wrap nothing here, reads
     sign-extend. */
  CHECK(quant_fields_store_ri(ctx, NR));
  CHECK(quant_fields_ri_read(ctx, ints, NR));
  for (k = 0; k < NR; ++k)
    bad += ints[k] != k - 32768;
  EXPECT_TRUE(bad == 0);

  /* Every code of fixed(12, s = 0.01) (and whatever the unsigned
     fixed(10, s = 2^-9) beside it makes of the same reals), then random
     reals, ties of 2^-9 and out-of-range values that wrap. */
  for (k = 0; k < 4096; ++k)
    xs[k] = fixed_dec(k - 2048, s12);
  for (j = 0; j < 2; ++j) {
    CHECK(quant_fields_store_rfx(ctx, nd(xs, 4096), 4096));
    CHECK(quant_fields_load_rfx(ctx, nd(got1, 4096), nd(got2, 4096), 4096));
    for (k = 0, bad = 0; k < 4096; ++k) {
      if (fbits(got1[k]) != fbits(fixed_rt(xs[k], s12, 12, 1)) ||
          fbits(got2[k]) != fbits(fixed_rt(xs[k], s10, 10, 0))) {
        if (bad++ < 5)
          fprintf(stderr, "fixed %.9g: %.9g %.9g, want %.9g %.9g\n", xs[k],
                  got1[k], got2[k], fixed_rt(xs[k], s12, 12, 1),
                  fixed_rt(xs[k], s10, 10, 0));
      }
      if (j == 0 && got1[k] != xs[k])
        ++bad; /* every code reads back as itself */
    }
    EXPECT_TRUE(bad == 0);
    for (k = 0; k < 4096; ++k) {
      float x = ((float)(next() >> 8) / 16777216.0f - 0.5f) * 60.0f;
      if (k % 3 == 0)
        x = ((float)((int)(next() % 2000) - 1000) + 0.5f) * 0.001953125f;
      else if (k % 3 == 1)
        x = (float)((int)(next() % 8000) - 4000) * 0.005f;
      xs[k] = x;
    }
  }

  /* Every code of quant.float(5, 11) reads back as itself; reals round. */
  {
    int n = 0, S, m, sg;
    for (S = 1; S < 32; ++S)
      for (m = 0; m < 1024; ++m)
        for (sg = 0; sg < 2; ++sg) {
          double v = ldexp(1.0 + m / 1024.0, S - 15);
          xs[n++] = (float)(sg ? -v : v);
        }
    xs[n++] = 0.0f;
    CHECK(quant_fields_store_rfl(ctx, nd(xs, n), n));
    CHECK(quant_fields_rfl_read(ctx, got1, NR));
    for (k = 0, bad = 0; k < n; ++k)
      bad += fbits(got1[k]) != fbits(xs[k]);
    EXPECT_TRUE(bad == 0);
    for (k = 0; k < NR; ++k) {
      float mag =
          ldexp((float)(next() >> 8) / 16777216.0f, (int)(next() % 40) - 23);
      xs[k] = (next() & 1) ? -mag : mag;
    }
    CHECK(quant_fields_store_rfl(ctx, nd(xs, NR), NR));
    CHECK(quant_fields_rfl_read(ctx, got1, NR));
    for (k = 0, bad = 0; k < NR; ++k)
      if (fbits(got1[k]) != fbits(float_rt(xs[k], 5, 11, 1)) && bad++ < 5)
        fprintf(stderr, "e5f11 %.9g: %.9g, want %.9g\n", xs[k], got1[k],
                float_rt(xs[k], 5, 11, 1));
    EXPECT_TRUE(bad == 0);
  }

  /* The raw words: rfx's 12-bit codes at bits [0, 12), rufx's 10-bit ones
     at [12, 22) of each 32-bit word (the xs stored last). */
  {
    static uint32_t words[4096];
    CHECK(quant_fields_store_rfx(ctx, nd(xs, 4096), 4096));
    CHECK(quant_fields_rfx_words_read(ctx, words, 4096));
    for (k = 0, bad = 0; k < 4096; ++k) {
      uint32_t want = ((uint32_t)fixed_enc(xs[k], s12, 12, 1) & 0xfffu) |
                      (((uint32_t)fixed_enc(xs[k], s10, 10, 0) & 0x3ffu) << 12);
      if (words[k] != want && bad++ < 5)
        fprintf(stderr, "word %d: %08x, want %08x\n", k, words[k], want);
    }
    EXPECT_TRUE(bad == 0);
    /* Written back shifted by one element, the decoded values follow. */
    for (k = 0; k < 4096; ++k)
      got1[k] = fixed_rt(xs[(k + 1) % 4096], s12, 12, 1);
    memmove(words, words + 1, 4095 * sizeof *words);
    words[4095] = (uint32_t)fixed_enc(xs[0], s12, 12, 1) & 0xfffu;
    words[4095] |= ((uint32_t)fixed_enc(xs[0], s10, 10, 0) & 0x3ffu) << 12;
    CHECK(quant_fields_rufx_words_write(ctx, words, 4096));
    CHECK(quant_fields_load_rfx(ctx, nd(got2, 4096), nd(xs, 4096), 4096));
    for (k = 0, bad = 0; k < 4096; ++k)
      bad += fbits(got2[k]) != fbits(got1[k]);
    EXPECT_TRUE(bad == 0);
    EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT,
                  quant_fields_rfx_words_read(ctx, words, 4095));
  }

  /* Fig. 8 layouts through the C accessors. */
  for (k = 0; k < 8; ++k) {
    CHECK(quant_fields_a6_set(ctx, k, 29 * k - 100));
    CHECK(quant_fields_af_set(ctx, k, 1.3f * (float)k - 4.1f));
    CHECK(quant_fields_bfx_set(ctx, k, 0.37f * (float)k - 1.5f));
    CHECK(quant_fields_bi_set(ctx, k, 77 * k - 300));
  }
  for (k = 0; k < 8; ++k) {
    CHECK(quant_fields_a6_get(ctx, k, &i32v));
    EXPECT_TRUE(i32v == wrap(29 * k - 100, 6, 1));
    CHECK(quant_fields_af_get(ctx, k, &f));
    EXPECT_F(f, float_rt(1.3f * (float)k - 4.1f, 5, 5, 1));
    CHECK(quant_fields_bfx_get(ctx, k, &f));
    EXPECT_F(f, fixed_rt(0.37f * (float)k - 1.5f, 4.0 / 128, 8, 1));
    CHECK(quant_fields_bi_get(ctx, k, &i32v));
    EXPECT_TRUE(i32v == wrap(77 * k - 300, 8, 1));
  }
  for (k = 0; k < 16; ++k)
    CHECK(quant_fields_c4_set(ctx, k, 5 * k - 40));
  for (k = 0; k < 16; ++k) {
    CHECK(quant_fields_c4_get(ctx, k, &i32v));
    EXPECT_TRUE(i32v == wrap(5 * k - 40, 4, 1));
  }
  /* A bit_array's words: 4 lanes of 4 bits, lane 0 lowest. */
  {
    uint16_t w16[4];
    CHECK(quant_fields_c4_words_read(ctx, w16, 4));
    for (k = 0; k < 4; ++k) {
      uint16_t want = 0;
      for (j = 0; j < 4; ++j)
        want |= (uint16_t)((wrap(5 * (4 * k + j) - 40, 4, 0) & 0xf) << (4 * j));
      EXPECT_TRUE(w16[k] == want);
    }
  }
  /* An atomic add returns the old value and wraps inside its lane. */
  CHECK(quant_fields_c4_set(ctx, 5, 7));
  CHECK(quant_fields_add_ret(ctx, 5, 1, &i32v));
  EXPECT_TRUE(i32v == 7);
  CHECK(quant_fields_c4_get(ctx, 5, &i32v));
  EXPECT_TRUE(i32v == -8);
  CHECK(quant_fields_c4_get(ctx, 4, &i32v));
  EXPECT_TRUE(i32v == wrap(5 * 4 - 40, 4, 1));
  CHECK(quant_fields_c4_get(ctx, 6, &i32v));
  EXPECT_TRUE(i32v == wrap(5 * 6 - 40, 4, 1));

  /* A store to one field keeps the others' bits; u3 at bit 5 wraps. */
  CHECK(quant_fields_set_all(ctx, 3, 17, 6, -1234567));
  CHECK(quant_fields_set_u3(ctx, 3, 13));
  CHECK(quant_fields_u3_get(ctx, 3, &i32v));
  EXPECT_TRUE(i32v == 5);
  CHECK(quant_fields_lo_get(ctx, 3, &i32v));
  EXPECT_TRUE(i32v == 17);
  CHECK(quant_fields_hi_get(ctx, 3, &i32v));
  EXPECT_TRUE(i32v == -1234567);
  CHECK(quant_fields_minmax(ctx, 3, 9));
  CHECK(quant_fields_lo_get(ctx, 3, &i32v));
  EXPECT_TRUE(i32v == 9);
  CHECK(quant_fields_hi_get(ctx, 3, &i32v));
  EXPECT_TRUE(i32v == 9);
  CHECK(quant_fields_u3_get(ctx, 3, &i32v));
  EXPECT_TRUE(i32v == 5);

  /* 8-bit containers. */
  for (k = 0; k < 8; ++k) {
    CHECK(quant_fields_q8i_set(ctx, k, k - 5));
    CHECK(quant_fields_q8f_set(ctx, k, 0.11f * (float)k - 0.4f));
  }
  for (k = 0; k < 8; ++k) {
    CHECK(quant_fields_q8i_get(ctx, k, &i32v));
    EXPECT_TRUE(i32v == wrap(k - 5, 3, 1));
    CHECK(quant_fields_q8f_get(ctx, k, &f));
    EXPECT_F(f, fixed_rt(0.11f * (float)k - 0.4f, 1.0 / 16, 5, 1));
  }

  /* Acceptance cases. fixed(17, max 3.14): s = 3.14 / 2^16. */
  {
    const float in[] = {1.0f, -1.0f, -3.14f, 0.5f, 3.1399f};
    for (k = 0; k < 5; ++k) {
      CHECK(quant_fields_fx17_set(ctx, k, in[k]));
      CHECK(quant_fields_fx17_get(ctx, k, &f));
      EXPECT_F(f, fixed_rt(in[k], 3.14 / 65536, 17, 1));
      EXPECT_TRUE(fabs(f - in[k]) <= 3.14 / 65536 / 2 + 1e-7);
    }
    CHECK(quant_fields_fx17_get(ctx, 0, &f));
    EXPECT_TRUE(fabsf(f - 0.99998385f) < 1e-7f);
  }
  {
    const float in[] = {1.0f,      -2.5f, 300.0f, 0.1f,
                        0.015625f, 0.01f, 511.9f, 1.99999f};
    const float want[] = {1.0f,      -2.5f, 300.0f,     0.099998474f,
                          0.015625f, 0.0f,  511.90625f, 2.0f};
    for (k = 0; k < 8; ++k) {
      CHECK(quant_fields_f18_set(ctx, k, in[k]));
      CHECK(quant_fields_f18_get(ctx, k, &f));
      EXPECT_F(f, float_rt(in[k], 4, 14, 1));
      EXPECT_TRUE(fabsf(f - want[k]) <= 1e-8f * fabsf(want[k]));
    }
  }
  {
    const float in[] = {1.01f, -1.5f, 3.0e38f, 1e-38f};
    const float want[] = {1.0078125f, -1.5f, 3.00405527e38f, 0.0f};
    for (k = 0; k < 4; ++k) {
      CHECK(quant_fields_bf16_set(ctx, k, in[k]));
      CHECK(quant_fields_bf16_get(ctx, k, &f));
      EXPECT_F(f, float_rt(in[k], 8, 8, 1));
      EXPECT_TRUE(fabsf(f - want[k]) <= 1e-7f * fabsf(want[k]));
    }
  }
  {
    const float in[] = {0.1f, 1234.5678f};
    const float want[] = {0.10000038f, 1234.5625f};
    for (k = 0; k < 2; ++k) {
      CHECK(quant_fields_uf22_set(ctx, k, in[k]));
      CHECK(quant_fields_uf22_get(ctx, k, &f));
      EXPECT_F(f, float_rt(in[k], 6, 16, 0));
      EXPECT_TRUE(fabsf(f - want[k]) <= 1e-7f * fabsf(want[k]));
    }
  }
  v3[0] = 0.5f;
  v3[1] = -1.25f;
  v3[2] = 1.999f;
  CHECK(quant_fields_pos_set(ctx, 2, v3));
  memset(v3, 0, sizeof v3);
  CHECK(quant_fields_pos_get(ctx, 2, v3));
  EXPECT_F(v3[0], fixed_rt(0.5f, 2.0 / 1048576, 21, 1));
  EXPECT_F(v3[1], fixed_rt(-1.25f, 2.0 / 1048576, 21, 1));
  EXPECT_F(v3[2], fixed_rt(1.999f, 2.0 / 1048576, 21, 1));
  CHECK(quant_fields_big_set(ctx, 1, ((int64_t)1 << 39) - 5));
  CHECK(quant_fields_big_get(ctx, 1, &i64v));
  EXPECT_TRUE(i64v == ((int64_t)1 << 39) - 5);
  CHECK(quant_fields_big_set(ctx, 1, (int64_t)1 << 39));
  CHECK(quant_fields_big_get(ctx, 1, &i64v));
  EXPECT_TRUE(i64v == -((int64_t)1 << 39));

  /* Atomic adds from every thread lose nothing; each wraps in its field. */
  CHECK(quant_fields_count(ctx, 100000));
  CHECK(quant_fields_cnt_lo_get(ctx, &i32v));
  EXPECT_TRUE(i32v == wrap(100000, 16, 1));
  CHECK(quant_fields_cnt_hi_get(ctx, &i32v));
  EXPECT_TRUE(i32v == wrap(300000, 16, 1));
  CHECK(quant_fields_fa_get(ctx, &f));
  EXPECT_F(f, fixed_dec(wrap(100000, 14, 1), 64.0 / 8192));
  CHECK(quant_fields_fb_get(ctx, &f));
  EXPECT_F(f, fixed_dec(wrap(-1600000, 18, 1), 64.0 / 131072));
  for (k = 0; k < 8; ++k) {
    CHECK(quant_fields_lanes_get(ctx, k, &u32v));
    EXPECT_TRUE(u32v == 100000 / 8 % 256);
  }
  /* fixed(32, max 2^20), s = 2^-11: 100000 adds of 0.25 give 25000; adds
     of 0.4 s round to 0 each. */
  CHECK(quant_fields_add_fixed32(ctx, 100000, 0.25f));
  CHECK(quant_fields_fx32_get(ctx, &f));
  EXPECT_F(f, 25000.0f);
  CHECK(quant_fields_add_fixed32(ctx, 1000, 0.4f / 2048));
  CHECK(quant_fields_fx32_get(ctx, &f));
  EXPECT_F(f, 25000.0f);
  CHECK(quant_fields_add_float(ctx, 1000));
  CHECK(quant_fields_ffl_get(ctx, &f));
  EXPECT_F(f, 1000.0f);
  /* 32 lanes of one word set at once, 32 words: every bit ends set. */
  CHECK(quant_fields_set_bits(ctx));
  CHECK(quant_fields_count_bits(ctx, &i32v));
  EXPECT_TRUE(i32v == 1024);

  quant_fields_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("quant_fields: ok\n");
  return 0;
}

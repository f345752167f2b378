/* Lanes of bit_arrays read on their own: see quant_lanes.tc. Every
 * expected value is computed here from the values written. */
#include "quant_lanes.h"
#define LAST_ERROR quant_lanes_last_error
#include "common.h"

#define M 16

static tc_ndarray nd(void *p, int64_t n, tc_dtype t) {
  return tic_test_ndarray(p, t, n, 0);
}

int main(void) {
  quant_lanes_ctx *ctx = NULL;
  int32_t sa[M * M], sb[M * M], prod[M * M];
  uint32_t u8s[8], u16[16], uo[16];
  int32_t s16[16], o[96], v;
  float f16[16], f8[16], f[32];
  int i, j, k;
  CHECK(quant_lanes_create(NULL, &ctx));

  /* Both int8 signs, every lane position. */
  for (i = 0; i < M; ++i)
    for (j = 0; j < M; ++j) {
      sa[i * M + j] = (i * 37 + j * 11) % 256 - 128;
      sb[i * M + j] = (i * 13 + j * 29 + 5) % 256 - 128;
    }
  CHECK(quant_lanes_sa_write(ctx, sa, M * M));
  CHECK(quant_lanes_sb_write(ctx, sb, M * M));
  CHECK(quant_lanes_matmul(ctx));
  CHECK(quant_lanes_prod_read(ctx, prod, M * M));
  for (i = 0; i < M; ++i)
    for (j = 0; j < M; ++j) {
      int32_t want = 0;
      for (k = 0; k < M; ++k)
        want += sa[i * M + k] * sb[k * M + j];
      EXPECT_TRUE(prod[i * M + j] == want);
    }

  /* Unsigned bytes past 127, signed and unsigned half-words past 2^15,
     fixed points of both signs (exact: multiples of their scales). */
  for (k = 0; k < 8; ++k)
    u8s[k] = (uint32_t)(k * 45 + 200) % 256;
  for (k = 0; k < 16; ++k) {
    s16[k] = k * 3001 - 24000;
    u16[k] = (uint32_t)(65535 - k * 4000);
    f16[k] = (float)(k - 8) * 0.75f + 0.125f * (float)k;
    f8[k] = 0.125f * (float)k;
  }
  CHECK(quant_lanes_u8s_write(ctx, u8s, 8));
  CHECK(quant_lanes_s16_write(ctx, s16, 16));
  CHECK(quant_lanes_u16_write(ctx, u16, 16));
  CHECK(quant_lanes_f16_write(ctx, f16, 16));
  CHECK(quant_lanes_f8_write(ctx, f8, 16));
  CHECK(quant_lanes_gather(ctx, nd(o, 96, TC_DTYPE_I32),
                           nd(f, 32, TC_DTYPE_F32)));
  for (k = 0; k < 32; ++k) {
    EXPECT_TRUE(o[k] == s16[k % 16]);
    EXPECT_TRUE(o[32 + k] == (int32_t)u16[k % 16]);
    EXPECT_TRUE(o[64 + k] == (int32_t)u8s[k % 8]);
    EXPECT_TRUE(f[k] == f16[k % 16] + f8[k % 16]);
  }

  CHECK(quant_lanes_pick(ctx, &v));
  EXPECT_TRUE(v == sa[3 * M + 5] * 1000 + (int32_t)u8s[6] + s16[15]);
  CHECK(quant_lanes_pick_loop(ctx, nd(o, 4, TC_DTYPE_I32)));
  for (k = 0; k < 4; ++k)
    EXPECT_TRUE(o[k] == sb[k * M + 2] + sb[k * M + 3] * 256);

  /* Lane 1 of each word read while lanes 0 and 2 are written. */
  CHECK(quant_lanes_mixed(ctx, nd(o, 8, TC_DTYPE_I32)));
  for (k = 0; k < 8; ++k)
    EXPECT_TRUE(o[k] == (int32_t)u16[4 * (k % 4) + 1]);
  CHECK(quant_lanes_u16_read(ctx, uo, 16));
  for (k = 0; k < 16; ++k) {
    uint32_t want = u16[k];
    if (k % 4 == 0)
      want = (uint32_t)(k / 4);
    else if (k % 4 == 2)
      want = (uint32_t)(1000 + 4 + k / 4);
    EXPECT_TRUE(uo[k] == want);
  }

  /* Lanes under a bitmasked node: cells 0 and 2 of 4 active. */
  {
    const int32_t at[] = {3, 5, 20, 23}, val[] = {-5, 100, -128, 127};
    int32_t want = 0;
    for (k = 0; k < 4; ++k) {
      CHECK(quant_lanes_set_sparse(ctx, at[k], val[k]));
      want += val[k] * (at[k] + 1);
    }
    CHECK(quant_lanes_sum_sparse(ctx, &v));
    EXPECT_TRUE(v == want);
  }

  quant_lanes_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("quant_lanes: ok\n");
  return 0;
}

/* Range checks of quantized stores with tic -g: see quant_range.tc. The
 * limits follow from docs/quant.md: a fixed point takes x while round(x / s)
 * is one of its codes; a quant.float(exp: E, frac: F) while x rounds below
 * 2^(2^(E-1) + 1) (a shared exponent's digits saturate: while x is below
 * it). */
#include "quant_range.h"
#define LAST_ERROR quant_range_last_error
#include "common.h"

#define OK(call) EXPECT_STATUS(TC_OK, call)
#define BAD(call) EXPECT_STATUS(TC_ERR_ASSERTION, call)

int main(void) {
  quant_range_ctx *ctx = NULL;
  float f;
  CHECK(quant_range_create(NULL, &ctx));
  /* s = 1/64: 127.49 / 64 is code 127, 127.5 / 64 rounds to 128. */
  OK(quant_range_setc(ctx, 127.49f / 64));
  BAD(quant_range_setc(ctx, 127.5f / 64));
  OK(quant_range_setc(ctx, -128.49f / 64));
  BAD(quant_range_setc(ctx, -128.5f / 64));
  BAD(quant_range_setc(ctx, NAN));
  OK(quant_range_setu(ctx, 63.49f / 64));
  OK(quant_range_setu(ctx, -0.49f / 64));
  BAD(quant_range_setu(ctx, 63.5f / 64));
  BAD(quant_range_setu(ctx, -0.5f / 64));
  /* exp 4: the largest exponent is 8, 4 digits: 496 is the largest value,
     x rounds past it from 2^8 (2 - 2^-5) = 504 on. */
  OK(quant_range_setf(ctx, 503.9f));
  BAD(quant_range_setf(ctx, 504.0f));
  BAD(quant_range_setf(ctx, -504.0f));
  BAD(quant_range_setf(ctx, INFINITY));
  /* exp 5 shared: the digits saturate (131000 reads 130048), the exponent
     overflows from 2^17 on. */
  OK(quant_range_setv(ctx, 131000.0f));
  BAD(quant_range_setv(ctx, 131072.0f));
  /* Integers wrap: no check. */
  OK(quant_range_setn(ctx, 1000));
  /* A reported store still happened (undefined value), later ones work. */
  OK(quant_range_setc(ctx, 0.5f));
  CHECK(quant_range_c_get(ctx, 0, &f));
  EXPECT_TRUE(f == 0.5f);
  quant_range_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("quant_range: ok\n");
  return 0;
}

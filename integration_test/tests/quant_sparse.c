/* Quantized fields under sparse parents: see quant_sparse.tc. */
#include "quant_sparse.h"
#define LAST_ERROR quant_sparse_last_error
#include "common.h"

int main(void) {
  quant_sparse_ctx *ctx = NULL;
  float f, want = 0;
  int32_t v, n = 0;
  int k;
  CHECK(quant_sparse_create(NULL, &ctx));
  CHECK(quant_sparse_fill(ctx));
  /* Cells 24..39 fill pointer blocks 3 and 4 exactly: the struct-for sees
     those 16 cells (s = 2^-12: every value is exact). */
  CHECK(quant_sparse_sum(ctx, &f));
  for (k = 24; k < 40; ++k)
    want += (float)k * 0.125f - 3.0f + (float)(-k);
  EXPECT_TRUE(f == want);
  CHECK(quant_sparse_sp_get(ctx, 3, &f));
  EXPECT_TRUE(f == 0.0f);
  CHECK(quant_sparse_sp_get(ctx, 30, &f));
  EXPECT_TRUE(f == 30 * 0.125f - 3.0f);
  CHECK(quant_sparse_sq_get(ctx, 30, &v));
  EXPECT_TRUE(v == -30);
  /* Words 2 and 3 of the bitmasked node are active (lanes 32..63, k % 4
     each); the others read 0 and are not visited. */
  CHECK(quant_sparse_count_flags(ctx, &n));
  {
    int32_t w = 0;
    for (k = 32; k < 64; ++k)
      w += k % 4 + 1;
    EXPECT_TRUE(n == w);
  }
  CHECK(quant_sparse_flag_get(ctx, 5, &v));
  EXPECT_TRUE(v == 0);
  CHECK(quant_sparse_flag_get(ctx, 47, &v));
  EXPECT_TRUE(v == 3);
  quant_sparse_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("quant_sparse: ok\n");
  return 0;
}

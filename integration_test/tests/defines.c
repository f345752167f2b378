#include "defines.h"
#define LAST_ERROR defines_last_error
#include "common.h"

#if DEFINES_CONST_N != 13
#error "-D n=13 did not reach the header"
#endif

int main(void) {
  defines_ctx *ctx = NULL;
  float x[DEFINES_X_SIZE], want[13];
  int64_t shape[] = DEFINES_X_SHAPE;
  int i;
  EXPECT_TRUE(shape[0] == 13 && DEFINES_X_SIZE == 13);
  EXPECT_TRUE(DEFINES_CONST_SCALE == 2.5f && DEFINES_CONST_LABEL == 7);
  CHECK(defines_create(NULL, &ctx));
  CHECK(defines_fill(ctx));
  CHECK(defines_x_read(ctx, x, 13));
  for (i = 0; i < 13; ++i) want[i] = (13 - i) * 2.5f + 7;
  compare_f32("x", x, want, 13, 1e-6, 0);
  EXPECT_TRUE(strstr(defines_metadata(), "\"module\": \"defines\"") != NULL);
  defines_destroy(ctx);
  return TEST_RESULT();
}

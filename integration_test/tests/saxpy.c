#include "saxpy.h"
#define LAST_ERROR saxpy_last_error
#include "common.h"

int main(void) {
  saxpy_ctx *ctx = NULL;
  static float x[SAXPY_X_SIZE], y[SAXPY_Y_SIZE], want[SAXPY_Y_SIZE];
  size_t i, n = SAXPY_X_SIZE;
  int64_t shape[] = SAXPY_X_SHAPE;
  EXPECT_TRUE(shape[0] == SAXPY_CONST_N && n == (size_t)SAXPY_CONST_N);
  CHECK(saxpy_create(NULL, &ctx));
  for (i = 0; i < n; ++i) {
    x[i] = (float)i * 0.5f;
    y[i] = 1.0f - (float)(i % 7);
    want[i] = 3.0f * x[i] + y[i];
  }
  CHECK(saxpy_x_write(ctx, x, n));
  CHECK(saxpy_y_write(ctx, y, n));
  CHECK(saxpy_saxpy(ctx, 3.0f));
  memset(y, 0, sizeof y);
  CHECK(saxpy_y_read(ctx, y, n));
  compare_f32("y", y, want, n, 1e-6, 1e-6);
  /* the field accessors see the same values */
  {
    float v = 0;
    CHECK(saxpy_y_get(ctx, 12345, &v));
    EXPECT_TRUE(v == want[12345]);
    EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, saxpy_y_get(ctx, SAXPY_CONST_N, &v));
    EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, saxpy_y_set(ctx, -1, 0.0f));
    EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, saxpy_y_read(ctx, y, n - 1));
  }
  saxpy_destroy(ctx);
  return TEST_RESULT();
}

#include "stencil2d.h"
#define LAST_ERROR stencil2d_last_error
#include "common.h"

#define NX STENCIL2D_CONST_NX
#define NY STENCIL2D_CONST_NY

int main(void) {
  stencil2d_ctx *ctx = NULL;
  static float a[NX * NY], b[NX * NY], want[NX * NY];
  int i, j;
  int64_t shape[] = STENCIL2D_A_SHAPE;
  EXPECT_TRUE(shape[0] == 37 && shape[1] == 53 && STENCIL2D_A_SIZE == 37 * 53);
  CHECK(stencil2d_create(NULL, &ctx));
  for (i = 0; i < NX; ++i)
    for (j = 0; j < NY; ++j)
      a[i * NY + j] = (float)((i * 7 + j * 13) % 17) - 8.0f;
  for (i = 0; i < NX * NY; ++i) want[i] = 0.0f; /* b starts zeroed */
  for (i = 1; i < NX - 1; ++i)
    for (j = 1; j < NY - 1; ++j)
      want[i * NY + j] = (1.0f - 0.3f) * a[i * NY + j] +
                         0.3f * 0.25f *
                             (a[(i - 1) * NY + j] + a[(i + 1) * NY + j] +
                              a[i * NY + j - 1] + a[i * NY + j + 1]);
  CHECK(stencil2d_a_write(ctx, a, STENCIL2D_A_SIZE));
  CHECK(stencil2d_smooth(ctx, 0.3f));
  CHECK(stencil2d_b_read(ctx, b, STENCIL2D_B_SIZE));
  compare_f32("b", b, want, NX * NY, 1e-5, 1e-5);
  {
    float v;
    CHECK(stencil2d_b_get(ctx, 36, 52, &v));
    EXPECT_TRUE(v == 0.0f);
    CHECK(stencil2d_b_get(ctx, 20, 30, &v));
    compare_f32("b[20,30]", &v, &want[20 * NY + 30], 1, 1e-5, 1e-5);
  }
  stencil2d_destroy(ctx);
  return TEST_RESULT();
}

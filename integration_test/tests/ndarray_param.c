#include "ndarray_param.h"
#define LAST_ERROR ndarray_param_last_error
#include "common.h"

#define H 29
#define W 41

int main(void) {
  ndarray_param_ctx *ctx = NULL;
  static float src[H][W], dst[H][W], want[H][W];
  static float pts[10][2], wpts[10][2];
  tc_ndarray s, d, p;
  int i, j;
  CHECK(ndarray_param_create(NULL, &ctx));
  for (i = 0; i < H; ++i)
    for (j = 0; j < W; ++j) {
      src[i][j] = (float)((i * 3 + j * 5) % 11);
      dst[i][j] = want[i][j] = -1.0f;
    }
  for (i = 1; i < H - 1; ++i)
    for (j = 1; j < W - 1; ++j)
      want[i][j] = 0.2f * (src[i][j] + src[i - 1][j] + src[i + 1][j] +
                           src[i][j - 1] + src[i][j + 1]);
  memset(&s, 0, sizeof s);
  s.data = src;
  s.ndim = 2;
  s.shape[0] = H;
  s.shape[1] = W;
  s.dtype = TC_DTYPE_F32;
  d = s;
  d.data = dst;
  CHECK(ndarray_param_blur(ctx, s, d));
  compare_f32("dst", &dst[0][0], &want[0][0], H * W, 1e-5, 1e-5);

  for (i = 0; i < 10; ++i) {
    pts[i][0] = (float)i;
    pts[i][1] = (float)-i;
    wpts[i][0] = 1.5f * i;
    wpts[i][1] = -1.5f * i;
  }
  memset(&p, 0, sizeof p);
  p.data = pts;
  p.ndim = 2; /* vec2 elements: the component axis comes last */
  p.shape[0] = 10;
  p.shape[1] = 2;
  p.dtype = TC_DTYPE_F32;
  CHECK(ndarray_param_scale_points(ctx, p, 1.5f));
  compare_f32("pts", &pts[0][0], &wpts[0][0], 20, 1e-6, 1e-6);

  /* mismatches are reported, not crashes */
  s.dtype = TC_DTYPE_I32;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, ndarray_param_blur(ctx, s, d));
  EXPECT_TRUE(strstr(ndarray_param_last_error(ctx), "src") != NULL);
  s.dtype = TC_DTYPE_F32;
  s.ndim = 3;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, ndarray_param_blur(ctx, s, d));
  s.ndim = 2;
  d.data = NULL;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, ndarray_param_blur(ctx, s, d));
  ndarray_param_destroy(ctx);
  return TEST_RESULT();
}

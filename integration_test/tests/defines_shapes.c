#include "defines_shapes.h"
#define LAST_ERROR defines_shapes_last_error
#include "common.h"

#if DEFINES_SHAPES_CONST_ROWS != 10 || DEFINES_SHAPES_CONST_COLS != 7
#error "-D rows=10 -D cols=7 did not reach the header"
#endif
#if DEFINES_SHAPES_CONST_TOTAL != 70 || DEFINES_SHAPES_CONST_HALF != 5
#error "derived constants do not follow the overrides"
#endif

#define R 10
#define C 7

int main(void) {
  defines_shapes_ctx *ctx = NULL;
  int64_t ms[] = DEFINES_SHAPES_M_SHAPE, vs[] = DEFINES_SHAPES_V_SHAPE,
          bs[] = DEFINES_SHAPES_BLK_SHAPE;
  static float m[DEFINES_SHAPES_M_SIZE], mw[R * C], v[DEFINES_SHAPES_V_SIZE], vw[C * 2];
  static int32_t blk[DEFINES_SHAPES_BLK_SIZE];
  static long long got[R * C], want[R * C];
  int32_t cnt = 0;
  int i, j;
  EXPECT_TRUE(ms[0] == R && ms[1] == C && DEFINES_SHAPES_M_SIZE == R * C);
  EXPECT_TRUE(vs[0] == C && DEFINES_SHAPES_V_SIZE == C * 2);
  EXPECT_TRUE(bs[0] == R && bs[1] == C && DEFINES_SHAPES_BLK_SIZE == R * C);
  EXPECT_TRUE(strstr(defines_shapes_metadata(), "\"overridden\": true") != NULL);
  CHECK(defines_shapes_create(NULL, &ctx));
  CHECK(defines_shapes_fill(ctx));
  CHECK(defines_shapes_m_read(ctx, m, R * C));
  CHECK(defines_shapes_v_read(ctx, v, C * 2));
  CHECK(defines_shapes_blk_read(ctx, blk, R * C));
  for (i = 0; i < R; ++i)
    for (j = 0; j < C; ++j) {
      mw[i * C + j] = (float)(i * C + j) / (float)(R * C);
      got[i * C + j] = blk[i * C + j];
      want[i * C + j] = i * 100 + j;
    }
  for (j = 0; j < C; ++j) {
    vw[j * 2] = (float)j;
    vw[j * 2 + 1] = (float)R;
  }
  compare_f32("m", m, mw, R * C, 1e-6, 0);
  compare_f32("v", v, vw, C * 2, 0, 0);
  compare_i64("blk", got, want, R * C);
  CHECK(defines_shapes_count(ctx, &cnt));
  EXPECT_TRUE(cnt == R * C + 70 * 1000);
  /* the accessors check against the overridden extents */
  {
    float x = 0;
    CHECK(defines_shapes_m_get(ctx, R - 1, C - 1, &x));
    EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, defines_shapes_m_get(ctx, R, 0, &x));
    EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, defines_shapes_m_get(ctx, 0, C, &x));
  }
  defines_shapes_destroy(ctx);
  return TEST_RESULT();
}

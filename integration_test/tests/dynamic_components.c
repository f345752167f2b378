#include "dynamic_components.h"
#define LAST_ERROR dynamic_components_last_error
#include "common.h"

int main(void) {
  dynamic_components_ctx *ctx = NULL;
  static float v[16 * 4], vw[16 * 4], m[8 * 9], mw[8 * 9], w[16 * 3],
      ww[16 * 3];
  int i, k, r, c;
  float got, want;
  CHECK(dynamic_components_create(NULL, &ctx));
  /* Each run-time k stores only component k. */
  for (k = 0; k < 4; ++k)
    CHECK(dynamic_components_set_v(ctx, k, 100.0f * (float)(k + 1)));
  CHECK(dynamic_components_set_v(ctx, 2, -5.0f)); /* overwrite one */
  CHECK(dynamic_components_v_read(ctx, v, 16 * 4));
  for (i = 0; i < 16; ++i)
    for (k = 0; k < 4; ++k)
      vw[i * 4 + k] =
          (k == 2 ? -5.0f : 100.0f * (float)(k + 1)) + (float)i;
  compare_f32("v", v, vw, 16 * 4, 0, 0);
  for (i = 0; i < 16; ++i)
    for (k = 0; k < 4; ++k) {
      CHECK(dynamic_components_get_v(ctx, i, k, &got));
      want = vw[i * 4 + k];
      EXPECT_TRUE(got == want);
    }
  CHECK(dynamic_components_set_m(ctx));
  CHECK(dynamic_components_m_read(ctx, m, 8 * 9));
  for (i = 0; i < 8; ++i)
    for (r = 0; r < 3; ++r)
      for (c = 0; c < 3; ++c)
        mw[i * 9 + r * 3 + c] = (float)(i * 10 + r * 3 + c);
  compare_f32("m", m, mw, 8 * 9, 0, 0);
  CHECK(dynamic_components_rotate_w(ctx));
  CHECK(dynamic_components_rotate_w(ctx));
  CHECK(dynamic_components_w_read(ctx, w, 16 * 3));
  for (i = 0; i < 16 * 3; ++i)
    ww[i] = 0.0f;
  for (r = 0; r < 2; ++r)
    for (i = 0; i < 16; ++i)
      for (k = 0; k < 3; ++k)
        ww[i * 3 + (k + i) % 3] += (float)(k + 1) * 0.5f;
  compare_f32("w", w, ww, 16 * 3, 0, 0);
  dynamic_components_destroy(ctx);
  TEST_RESULT();
}

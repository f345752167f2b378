#include "structs.h"
#define LAST_ERROR structs_last_error
#include "common.h"

#define N STRUCTS_CONST_N

int main(void) {
  structs_ctx *ctx = NULL;
  static float x[N * 3], v[N * 3], m[N], wx[N * 3], wv[N * 3], wm[N];
  static int32_t id[N];
  static long long gid[N], wid[N];
  const float dt = 0.125f, g[3] = {0.0f, -9.75f, 1.5f};
  float tm[3], wtm[3] = {0, 0, 0}, lit = 0, wlit;
  int i, k;
  CHECK(structs_create(NULL, &ctx));
  CHECK(structs_init(ctx));
  CHECK(structs_step(ctx, dt, g));
  CHECK(structs_export(ctx));
  CHECK(structs_out_x_read(ctx, x, N * 3));
  CHECK(structs_out_v_read(ctx, v, N * 3));
  CHECK(structs_out_m_read(ctx, m, N));
  CHECK(structs_out_id_read(ctx, id, N));
  for (i = 0; i < N; ++i) {
    float fi = (float)i;
    float px[3] = {fi, 2.0f * fi, -fi};
    float pv[3] = {1.0f * fi, 0.5f * fi, 0.25f * fi};
    for (k = 0; k < 3; ++k) {
      pv[k] += dt * g[k];
      px[k] = px[k] + dt * pv[k];
    }
    pv[1] -= 1.0f;
    for (k = 0; k < 3; ++k) {
      wx[i * 3 + k] = px[k];
      wv[i * 3 + k] = pv[k];
    }
    wm[i] = (1.0f + fi) * 2.0f;
    wid[i] = i * 3 + 1;
    gid[i] = id[i];
    for (k = 0; k < 3; ++k) wtm[k] += wm[i] * pv[k];
  }
  compare_f32("x", x, wx, N * 3, 1e-6, 1e-6);
  compare_f32("v", v, wv, N * 3, 1e-6, 1e-6);
  compare_f32("m", m, wm, N, 0, 0);
  compare_i64("id", gid, wid, N);
  CHECK(structs_total_momentum(ctx, tm));
  compare_f32("momentum", tm, wtm, 3, 1e-5, 1e-3);
  CHECK(structs_literal(ctx, 2.5f, &lit));
  wlit = 2.5f + 10.0f + 7.0f + 2.5f;
  EXPECT_TRUE(lit == wlit);
  structs_destroy(ctx);
  return TEST_RESULT();
}

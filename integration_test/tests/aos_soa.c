#include "aos_soa.h"
#define LAST_ERROR aos_soa_last_error
#include "common.h"

#define N AOS_SOA_CONST_N

int main(void) {
  aos_soa_ctx *ctx = NULL;
  static float p[3 * N], v[3 * N], pa[3 * N], ps[3 * N], va[3 * N], vs[3 * N];
  static float wp[3 * N], wv[3 * N];
  const float g[3] = {0.0f, -9.8f, 0.5f};
  const float dt = 0.01f;
  int i, c, s;
  CHECK(aos_soa_create(NULL, &ctx));
  for (i = 0; i < 3 * N; ++i) {
    p[i] = (float)(i % 11) * 0.1f;
    v[i] = (float)(i % 5) - 2.0f;
  }
  memcpy(wp, p, sizeof p);
  memcpy(wv, v, sizeof v);
  CHECK(aos_soa_ap_write(ctx, p, 3 * N));
  CHECK(aos_soa_av_write(ctx, v, 3 * N));
  CHECK(aos_soa_sp_write(ctx, p, 3 * N));
  CHECK(aos_soa_sv_write(ctx, v, 3 * N));
  for (s = 0; s < 10; ++s) {
    CHECK(aos_soa_step_aos(ctx, dt, g));
    CHECK(aos_soa_step_soa(ctx, dt, g));
    for (i = 0; i < N; ++i)
      for (c = 0; c < 3; ++c) {
        wv[3 * i + c] = wv[3 * i + c] + dt * g[c];
        wp[3 * i + c] = wp[3 * i + c] + dt * wv[3 * i + c];
      }
  }
  CHECK(aos_soa_ap_read(ctx, pa, 3 * N));
  CHECK(aos_soa_av_read(ctx, va, 3 * N));
  CHECK(aos_soa_sp_read(ctx, ps, 3 * N));
  CHECK(aos_soa_sv_read(ctx, vs, 3 * N));
  if (memcmp(pa, ps, sizeof pa) != 0 || memcmp(va, vs, sizeof va) != 0) {
    fprintf(stderr, "AoS and SoA results differ\n");
    ++tic_test_failures;
  }
  compare_f32("p", pa, wp, 3 * N, 1e-5, 1e-5);
  compare_f32("v", va, wv, 3 * N, 1e-5, 1e-5);
  {
    float e[3];
    CHECK(aos_soa_sp_get(ctx, 7, e));
    compare_f32("sp[7]", e, &wp[21], 3, 1e-5, 1e-5);
  }
  aos_soa_destroy(ctx);
  return TEST_RESULT();
}

/* Shared exponents: see quant_shared.tc. The C encoder follows
 * docs/quant.md: p digit bits (frac - 1 when signed) with an explicit
 * leading one, E_max the largest component's exponent, digits
 * round(|x| / 2^(E_max - p + 1)) saturated at 2^p - 1; decoding gives
 * digits * 2^(E_max - p + 1). */
#include "quant_shared.h"
#define LAST_ERROR quant_shared_last_error
#include "common.h"
#include "quant_ref.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next(void) { return xorshift32(&rng); }
static float rnd(void) {
  float m = ldexpf((float)(next() >> 8) / 16777216.0f, (int)(next() % 24) - 12);
  return (next() & 1) ? -m : m;
}

#define N 4096
static float xs[3 * N], got[3];

int main(void) {
  quant_shared_ctx *ctx = NULL;
  tc_ndarray a;
  float want[3], v[3];
  int32_t c;
  int k, j, bad = 0;
  CHECK(quant_shared_create(NULL, &ctx));
  memset(&a, 0, sizeof a);
  a.data = xs;
  a.ndim = 1;
  a.shape[0] = 3 * N;
  a.dtype = TC_DTYPE_F32;

  /* The reference's acceptance cases 16 and 18, then random vectors
     (components up to 2^12 apart: small ones lose digits or vanish). */
  {
    const float cases[][3] = {{1.0f, 0.5f, 0.001f},
                              {1.0f, 0.5f, 0.01f},
                              {-1.0f, 0.25f, -0.125f},
                              {0, 0, 0},
                              {1.9999f, 0, 0}};
    const float wants[][3] = {{1.0f, 0.5f, 0.0f},
                              {1.0f, 0.5f, 0.015625f},
                              {-1.0f, 0.25f, -0.125f},
                              {0, 0, 0},
                              {1.984375f, 0, 0}};
    for (k = 0; k < 5; ++k)
      for (j = 0; j < 3; ++j)
        xs[3 * k + j] = cases[k][j];
    for (k = 5; k < N; ++k)
      for (j = 0; j < 3; ++j)
        xs[3 * k + j] = rnd();
    CHECK(quant_shared_set_cat(ctx, N));
    CHECK(quant_shared_store_vel(ctx, a, N));
    for (k = 0; k < N; ++k) {
      CHECK(quant_shared_vel_get(ctx, k, got));
      shared_rt(xs + 3 * k, want, 3, 6, 8, 1);
      for (j = 0; j < 3; ++j)
        if (got[j] != want[j] && bad++ < 5)
          fprintf(stderr, "vel[%d][%d] = %.9g from %.9g, want %.9g\n", k, j,
                  got[j], xs[3 * k + j], want[j]);
      if (k < 5)
        for (j = 0; j < 3; ++j)
          bad += got[j] != wants[k][j];
      CHECK(quant_shared_cat_get(ctx, k, &c));
      bad += c != k % 4; /* the category keeps its bits */
    }
    EXPECT_TRUE(bad == 0);
  }

  /* Acceptance case 17: a partial store re-encodes the siblings. */
  v[0] = 1.0f;
  v[1] = 0.75f;
  v[2] = 0.3f;
  CHECK(quant_shared_vel_set(ctx, 7, v));
  CHECK(quant_shared_store_x(ctx, 7, 100.0f));
  CHECK(quant_shared_vel_get(ctx, 7, got));
  EXPECT_TRUE(got[0] == 100.0f && got[1] == 1.0f && got[2] == 0.0f);
  CHECK(quant_shared_store_x(ctx, 7, 1.0f));
  CHECK(quant_shared_vel_get(ctx, 7, got));
  EXPECT_TRUE(got[0] == 1.0f && got[1] == 1.0f && got[2] == 0.0f);
  CHECK(quant_shared_cat_get(ctx, 7, &c));
  EXPECT_TRUE(c == 3);
  /* The same against the encoder: the siblings are what they decoded to. */
  for (k = 100, bad = 0; k < 300; ++k) {
    float x = rnd(), cur[3];
    CHECK(quant_shared_vel_get(ctx, k, cur));
    CHECK(quant_shared_store_x(ctx, k, x));
    cur[0] = x;
    shared_rt(cur, want, 3, 6, 8, 1);
    CHECK(quant_shared_vel_get(ctx, k, got));
    for (j = 0; j < 3; ++j)
      bad += got[j] != want[j];
  }
  EXPECT_TRUE(bad == 0);

  /* Three scalar fields sharing one exponent (store fusion writes them
     with one store). */
  CHECK(quant_shared_store_rgb(ctx, a, N));
  for (k = 0, bad = 0; k < N; ++k) {
    float rgb[3];
    CHECK(quant_shared_r_get(ctx, k, &rgb[0]));
    CHECK(quant_shared_g_get(ctx, k, &rgb[1]));
    CHECK(quant_shared_b_get(ctx, k, &rgb[2]));
    shared_rt(xs + 3 * k, want, 3, 5, 9, 1);
    for (j = 0; j < 3; ++j)
      if (rgb[j] != want[j] && bad++ < 5)
        fprintf(stderr, "rgb[%d][%d] = %.9g from %.9g, want %.9g\n", k, j,
                rgb[j], xs[3 * k + j], want[j]);
  }
  EXPECT_TRUE(bad == 0);
  /* Each accessor store re-encodes the group; then 200 concurrent adds of
     1 to g[0], each re-encoding r and b around the new g (compare-and-swap
     loops: the adds happen one after the other, whatever their order). */
  {
    float st[3];
    shared_rt(xs, st, 3, 5, 9, 1); /* as store_rgb left word 0 */
    CHECK(quant_shared_r_set(ctx, 0, 0.5f));
    st[0] = 0.5f;
    shared_rt(st, st, 3, 5, 9, 1);
    CHECK(quant_shared_g_set(ctx, 0, 0.0f));
    st[1] = 0.0f;
    shared_rt(st, st, 3, 5, 9, 1);
    CHECK(quant_shared_b_set(ctx, 0, 0.0f));
    st[2] = 0.0f;
    shared_rt(st, st, 3, 5, 9, 1);
    CHECK(quant_shared_add_g(ctx, 200));
    for (k = 0; k < 200; ++k) {
      st[1] += 1.0f;
      shared_rt(st, st, 3, 5, 9, 1);
    }
    CHECK(quant_shared_r_get(ctx, 0, &v[0]));
    CHECK(quant_shared_g_get(ctx, 0, &v[1]));
    CHECK(quant_shared_b_get(ctx, 0, &v[2]));
    EXPECT_TRUE(v[1] == 200.0f);
    for (j = 0; j < 3; ++j)
      if (v[j] != st[j]) {
        fprintf(stderr, "rgb[0][%d] = %.9g, want %.9g\n", j, v[j], st[j]);
        ++tic_test_failures;
      }
  }

  quant_shared_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("quant_shared: ok\n");
  return 0;
}

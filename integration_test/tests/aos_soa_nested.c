#include "aos_soa_nested.h"
#define LAST_ERROR aos_soa_nested_last_error
#include "common.h"

#define N AOS_SOA_NESTED_CONST_N

#define READ3(pfx, A, B, C)                                                    \
  CHECK(aos_soa_nested_##A##_read(ctx, pfx##a, N * 2));                        \
  CHECK(aos_soa_nested_##B##_read(ctx, pfx##b, N * 2));                        \
  CHECK(aos_soa_nested_##C##_read(ctx, pfx##c, N))

int main(void) {
  aos_soa_nested_ctx *ctx = NULL;
  static float xa[N * 2], xb[N * 2], xc[N];   /* AoS */
  static float ya[N * 2], yb[N * 2], yc[N];   /* SoA */
  static float za[N * 2], zb[N * 2], zc[N];   /* flat */
  static float wa[N * 2], wb[N * 2], wc[N];   /* C reference */
  int64_t shape[] = AOS_SOA_NESTED_AA_SHAPE;
  int i;
  EXPECT_TRUE(shape[0] == N && AOS_SOA_NESTED_AA_SIZE == N * 2);
  CHECK(aos_soa_nested_create(NULL, &ctx));
  CHECK(aos_soa_nested_init_aos(ctx));
  CHECK(aos_soa_nested_init_soa(ctx));
  CHECK(aos_soa_nested_init_flat(ctx));
  CHECK(aos_soa_nested_update_aos(ctx));
  CHECK(aos_soa_nested_update_soa(ctx));
  CHECK(aos_soa_nested_update_flat(ctx));
  READ3(x, aa, ab, ac);
  READ3(y, sa, sb, sc);
  READ3(z, fa, fb, fc);

  for (i = 0; i < N; ++i) {
    wa[i * 2] = (float)i * 0.5f;
    wa[i * 2 + 1] = (float)(i * i % 17);
    wb[i * 2] = 1.0f;
    wb[i * 2 + 1] = -(float)i;
    wc[i] = (float)(i % 3);
  }
  {
    static float nb[N * 2], nc[N];
    for (i = 0; i < N; ++i) {
      int l = (i + N - 1) % N, r = (i + 9) % N, k;
      for (k = 0; k < 2; ++k)
        nb[i * 2 + k] = wb[i * 2 + k] + wa[l * 2 + k] - 0.25f * wa[r * 2 + k];
      nc[i] = wc[i] + (wa[i * 2] * wa[r * 2] + wa[i * 2 + 1] * wa[r * 2 + 1]);
    }
    memcpy(wb, nb, sizeof nb);
    memcpy(wc, nc, sizeof nc);
  }
  compare_f32("flat.a", za, wa, N * 2, 1e-6, 1e-6);
  compare_f32("flat.b", zb, wb, N * 2, 1e-6, 1e-6);
  compare_f32("flat.c", zc, wc, N, 1e-6, 1e-6);
  /* the nested layouts agree bit for bit with the flat one */
  EXPECT_TRUE(memcmp(xa, za, sizeof za) == 0);
  EXPECT_TRUE(memcmp(xb, zb, sizeof zb) == 0);
  EXPECT_TRUE(memcmp(xc, zc, sizeof zc) == 0);
  EXPECT_TRUE(memcmp(ya, za, sizeof za) == 0);
  EXPECT_TRUE(memcmp(yb, zb, sizeof zb) == 0);
  EXPECT_TRUE(memcmp(yc, zc, sizeof zc) == 0);

  /* host accessors address the same logical element in every layout */
  {
    float v1[2], v2[2], v3[2];
    CHECK(aos_soa_nested_aa_get(ctx, 13, v1));
    CHECK(aos_soa_nested_sa_get(ctx, 13, v2));
    CHECK(aos_soa_nested_fa_get(ctx, 13, v3));
    EXPECT_TRUE(v1[0] == wa[26] && v1[1] == wa[27]);
    EXPECT_TRUE(v2[0] == wa[26] && v2[1] == wa[27]);
    EXPECT_TRUE(v3[0] == wa[26] && v3[1] == wa[27]);
    /* a write through set in a nested layout lands at the same bulk index */
    v1[0] = 123.0f;
    CHECK(aos_soa_nested_ab_set(ctx, N - 1, v1));
    CHECK(aos_soa_nested_ab_read(ctx, xb, N * 2));
    EXPECT_TRUE(xb[(N - 1) * 2] == 123.0f);
  }

  /* the struct placed in a nested layout */
  CHECK(aos_soa_nested_struct_run(ctx));
  CHECK(aos_soa_nested_struct_export(ctx));
  READ3(z, fa, fb, fc);
  compare_f32("struct.p", za, wa, N * 2, 0, 0);
  compare_f32("struct.b", zb, wb, N * 2, 0, 0);
  compare_f32("struct.q", zc, wc, N, 0, 0);
  aos_soa_nested_destroy(ctx);
  return TEST_RESULT();
}

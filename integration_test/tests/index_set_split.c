/* The same conditions evaluated in C on every index. */
#include "index_set_split.h"
#define LAST_ERROR index_set_split_last_error
#include "common.h"

#define N INDEX_SET_SPLIT_CONST_N

int main(void) {
  index_set_split_ctx *ctx = NULL;
  static float u[N * N], got[N * N], want[N * N];
  int32_t hits[N], want_hits[N];
  const int32_t bands[][2] = {{0, N},   {5, 9},   {-10, 4},  {30, 100},
                              {20, 10}, {-5, -1}, {N, N + 3}};
  int i, j, k;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j)
      u[i * N + j] = (float)(i * 100 + j);
  for (i = 0; i < N * N; ++i)
    want[i] = -1.0f;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j)
      if (i > 0 && i < N - 1 && 0 < j && j <= N - 2)
        want[i * N + j] = 0.25f * (u[(i - 1) * N + j] + u[(i + 1) * N + j] +
                                   u[i * N + j - 1] + u[i * N + j + 1]);
  memset(want_hits, 0, sizeof want_hits);
  CHECK(index_set_split_create(NULL, &ctx));
  CHECK(index_set_split_fill(ctx));
  CHECK(index_set_split_smooth(ctx));
  CHECK(index_set_split_out_read(ctx, got, N * N));
  compare_f32("smooth", got, want, N * N, 0, 0);
  for (k = 0; k < (int)(sizeof bands / sizeof bands[0]); ++k) {
    float s = (k == 3) ? -1.0f : 1.0f; /* one band with the test false */
    CHECK(index_set_split_band(ctx, bands[k][0], bands[k][1], s));
    for (i = 0; i < N; ++i)
      if (i >= bands[k][0] && i < bands[k][1] && s > 0.0f && i > 2)
        ++want_hits[i];
  }
  CHECK(index_set_split_hits_read(ctx, hits, N));
  for (i = 0; i < N; ++i)
    if (hits[i] != want_hits[i]) {
      fprintf(stderr, "hits[%d] = %d, want %d\n", i, hits[i], want_hits[i]);
      tic_test_failures++;
    }
  index_set_split_destroy(ctx);
  return TEST_RESULT();
}

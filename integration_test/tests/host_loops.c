/* Serial loops in host code over fields (see host_loops.tc), against C. */
#include "host_loops.h"
#define LAST_ERROR host_loops_last_error
#include "common.h"

enum { N = 100, M = 60 };

int main(void) {
  host_loops_ctx *ctx = NULL;
  CHECK(host_loops_create(NULL, &ctx));

  /* A counted loop: the field and the kernel-scope sum. */
  float s = 0, want = 0;
  CHECK(host_loops_fill(ctx, M, &s));
  for (int k = 0; k < M; ++k)
    want += (float)k * 0.5f;
  EXPECT_TRUE(s == want);
  int bad = 0;
  for (int k = 0; k < N; ++k) {
    float v = -1;
    CHECK(host_loops_get_a(ctx, k, &v));
    bad += v != (k < M ? (float)k * 0.5f : 0.0f);
  }
  EXPECT_TRUE(bad == 0);

  /* A while loop whose condition reads the field it writes. */
  int32_t j = 0;
  CHECK(host_loops_set_b(ctx, 40, 7));
  CHECK(host_loops_mark(ctx, M, &j));
  EXPECT_TRUE(j == 40);
  bad = 0;
  for (int k = 0; k < N; ++k) {
    int32_t v = -1;
    CHECK(host_loops_get_b(ctx, k, &v));
    bad += v != (k < 40 ? k + 1 : k == 40 ? 7 : 0);
  }
  EXPECT_TRUE(bad == 0);

  /* Values carried out of the loop. */
  int32_t at = 0, atWant = -1;
  float top = -1.0f;
  for (int k = 0; k < 30; ++k) {
    float v = (float)k * 0.5f * (float)k;
    if (v > top) {
      top = v;
      atWant = k;
    }
  }
  CHECK(host_loops_best(ctx, 30, &at));
  EXPECT_TRUE(at == atWant);

  /* A pointer grid: cells activated and read in host code. */
  float sp = 0, spWant = 0;
  CHECK(host_loops_sparse(ctx, 20, &sp));
  for (int k = 0; k < 20; ++k)
    spWant += (float)k;
  EXPECT_TRUE(sp == spWant);
  int32_t blocks = 0, blocksWant = 0;
  for (int blk = 0; blk < 16; ++blk)
    for (int k = 0; k < 20; ++k)
      if ((3 * k) / 8 == blk) {
        ++blocksWant;
        break;
      }
  CHECK(host_loops_count_blocks(ctx, &blocks));
  EXPECT_TRUE(blocks == blocksWant);

  /* Printing: host code, in order (the test's expected output). */
  CHECK(host_loops_show(ctx, 3));
  host_loops_destroy(ctx);
  return TEST_RESULT();
}

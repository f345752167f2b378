/* sparse_hash_list.tc: the cached list of a hash -> pointer path must
 * follow every change of the path; counts and sums against a C model of
 * the active blocks (3 x 3 elements each; hash cells of 2 x 2 blocks). */
#include "sparse_hash_list.h"
#define LAST_ERROR sparse_hash_list_last_error
#include "common.h"

enum { MAXB = 4096 };

/* The model: active blocks (block indices = floor(element / 3)) and the
 * sum of the values in each. */
static int nb = 0;
static int32_t bi[MAXB], bj[MAXB];

static int32_t floordiv(int32_t a, int32_t b) {
  int32_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int find_block(int32_t i, int32_t j) {
  for (int k = 0; k < nb; ++k)
    if (bi[k] == i && bj[k] == j)
      return k;
  return -1;
}

static double block_sum[MAXB];

static void model_put(int32_t i, int32_t j, float v, float old) {
  int32_t b0 = floordiv(i, 3), b1 = floordiv(j, 3);
  int k = find_block(b0, b1);
  if (k < 0) {
    k = nb++;
    bi[k] = b0;
    bj[k] = b1;
    block_sum[k] = 0;
  }
  block_sum[k] += v - old;
}

static void model_drop(int k) {
  --nb;
  bi[k] = bi[nb];
  bj[k] = bj[nb];
  block_sum[k] = block_sum[nb];
}

static int check(sparse_hash_list_ctx *ctx, const char *what) {
  int32_t c = -1;
  float s = -1;
  double want = 0;
  for (int k = 0; k < nb; ++k)
    want += block_sum[k];
  CHECK(sparse_hash_list_count(ctx, &c));
  CHECK(sparse_hash_list_total(ctx, &s));
  if (c != 2 * 9 * nb || fabs(s - want) > 1e-3 * (1 + fabs(want))) {
    fprintf(stderr, "%s: count %d (want %d), total %g (want %g)\n", what, c,
            2 * 9 * nb, s, want);
    ++tic_test_failures;
  }
  return 0;
}

int main(void) {
  sparse_hash_list_ctx *ctx = NULL;
  CHECK(sparse_hash_list_create(NULL, &ctx));
  if (check(ctx, "empty"))
    return 1;

  CHECK(sparse_hash_list_put(ctx, 0, 0, 1.0f));
  model_put(0, 0, 1.0f, 0);
  check(ctx, "first block");
  check(ctx, "unchanged");

  /* A new hash key, far away and negative. */
  CHECK(sparse_hash_list_put(ctx, -7, 100, 2.0f));
  model_put(-7, 100, 2.0f, 0);
  check(ctx, "new key");

  /* A new block in an existing hash cell (only the pointer's epoch). */
  CHECK(sparse_hash_list_put(ctx, 4, 0, 3.0f));
  model_put(4, 0, 3.0f, 0);
  check(ctx, "new block, old key");

  /* Values change, the structure does not. */
  CHECK(sparse_hash_list_bump(ctx));
  for (int k = 0; k < nb; ++k)
    block_sum[k] += 9.0;
  check(ctx, "bumped");

  /* A block deactivated, then a whole hash cell. */
  CHECK(sparse_hash_list_drop_block(ctx, 1, 0));
  model_drop(find_block(1, 0));
  check(ctx, "block dropped");
  CHECK(sparse_hash_list_drop_hash(ctx, floordiv(-7, 6), floordiv(100, 6)));
  model_drop(find_block(floordiv(-7, 3), floordiv(100, 3)));
  check(ctx, "hash cell dropped");

  /* The key again: a reactivated cell reads 0 but for the write. */
  CHECK(sparse_hash_list_put(ctx, -7, 100, 5.0f));
  model_put(-7, 100, 5.0f, 0);
  check(ctx, "key reactivated");

  /* Many keys: the table grows between launches. */
  for (int32_t k = 0; k < 300; ++k) {
    int32_t i = (k * 7919) % 2000 - 1000, j = (k * 104729) % 3000 - 1500;
    float v = (float)(k % 5);
    /* These coordinates are distinct (and none of the earlier ones): no
     * element is written twice, only a block may repeat. */
    CHECK(sparse_hash_list_put(ctx, i, j, v));
    model_put(i, j, v, 0);
  }
  check(ctx, "many keys");

  /* Everything off, then one block again. */
  CHECK(sparse_hash_list_deactivate_all(ctx));
  nb = 0;
  check(ctx, "deactivate_all");
  CHECK(sparse_hash_list_put(ctx, 2, 2, 7.0f));
  model_put(2, 2, 7.0f, 0);
  check(ctx, "after deactivate_all");

  sparse_hash_list_destroy(ctx);
  return TEST_RESULT();
}

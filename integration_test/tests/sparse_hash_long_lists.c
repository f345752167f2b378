/* Long lists below a hash (see sparse_hash_long_lists.tc): counts and sums
 * over a struct-for that runs a list's elements in groups, against C. */
#include "sparse_hash_long_lists.h"
#define LAST_ERROR sparse_hash_long_lists_last_error
#include "common.h"

enum { N = 18000, LISTS = 4 };

int main(void) {
  sparse_hash_long_lists_ctx *ctx = NULL;
  CHECK(sparse_hash_long_lists_create(NULL, &ctx));
  CHECK(sparse_hash_long_lists_bin(ctx, N));
  int64_t len[LISTS] = {0}, values = 0, lists = 0, positions = 0;
  int32_t total = 0;
  for (int q = 0; q < N; ++q) {
    int r = q % 4;
    if (r != 3 || q % 64 == 3) {
      values += q;
      lists += r * 1000 - 1500;
      ++len[r];
      ++total;
    }
  }
  for (int r = 0; r < LISTS; ++r)
    positions += len[r] * (len[r] - 1) / 2;
  /* Three lists of 4500 elements (five groups each), one of 282. */
  EXPECT_TRUE(len[0] == 4500 && len[3] < 1024);
  int32_t c = 0;
  int64_t s = 0;
  CHECK(sparse_hash_long_lists_count(ctx, &c));
  EXPECT_TRUE(c == total);
  CHECK(sparse_hash_long_lists_sum_values(ctx, &s));
  EXPECT_TRUE(s == values);
  CHECK(sparse_hash_long_lists_sum_lists(ctx, &s));
  EXPECT_TRUE(s == lists);
  CHECK(sparse_hash_long_lists_sum_positions(ctx, &s));
  EXPECT_TRUE(s == positions);
  CHECK(sparse_hash_long_lists_double(ctx));
  CHECK(sparse_hash_long_lists_sum_values(ctx, &s));
  EXPECT_TRUE(s == 2 * values);
  sparse_hash_long_lists_destroy(ctx);
  return TEST_RESULT();
}

#include "while_loops.h"
#define LAST_ERROR while_loops_last_error
#include "common.h"

#define N WHILE_LOOPS_CONST_N

int main(void) {
  while_loops_ctx *ctx = NULL;
  static int32_t f[5][N];
  static long long got[N], want[5][N];
  static const char *names[5] = {"digits", "bits_set", "isqrt", "pairs", "lastp"};
  int i, k;
  CHECK(while_loops_create(NULL, &ctx));
  CHECK(while_loops_run(ctx));
  CHECK(while_loops_digits_read(ctx, f[0], N));
  CHECK(while_loops_bits_set_read(ctx, f[1], N));
  CHECK(while_loops_isqrt_read(ctx, f[2], N));
  CHECK(while_loops_pairs_read(ctx, f[3], N));
  CHECK(while_loops_lastp_read(ctx, f[4], N));
  for (i = 0; i < N; ++i) {
    int x, c = 0, p = 0, r = 0, a, b, t = i % 50, q;
    for (x = i; x > 0; x /= 10)
      if (x % 10 != 0 && x % 10 != 7) ++c;
    want[0][i] = c;
    for (x = i; x != 0 && p < 5; x >>= 1) p += x & 1;
    want[1][i] = p;
    while ((r + 1) * (r + 1) <= i) ++r;
    want[2][i] = r;
    c = 0;
    for (a = 2; a < t; a += 2)
      for (b = a + 1; b < t; ++b)
        if (a + b == t) {
          ++c;
          break;
        }
    want[3][i] = c;
    want[4][i] = -1;
    for (q = i - 1; q >= 2; --q) {
      int d, prime = 1;
      for (d = 2; d * d <= q; ++d)
        if (q % d == 0) {
          prime = 0;
          break;
        }
      if (prime) {
        want[4][i] = q;
        break;
      }
    }
  }
  for (k = 0; k < 5; ++k) {
    for (i = 0; i < N; ++i) got[i] = f[k][i];
    compare_i64(names[k], got, want[k], N);
  }
  while_loops_destroy(ctx);
  return TEST_RESULT();
}

#include "serial_loops.h"
#define LAST_ERROR serial_loops_last_error
#include "common.h"

#define N SERIAL_LOOPS_CONST_N

int main(void) {
  serial_loops_ctx *ctx = NULL;
  static int32_t spf[N], od[N], col[N];
  static long long got[N], want[N];
  int i, d;
  CHECK(serial_loops_create(NULL, &ctx));
  CHECK(serial_loops_factor(ctx));
  CHECK(serial_loops_collatz_steps(ctx));
  CHECK(serial_loops_spf_read(ctx, spf, N));
  CHECK(serial_loops_odd_divisors_read(ctx, od, N));
  CHECK(serial_loops_collatz_read(ctx, col, N));
  for (i = 0; i < N; ++i) {
    int f = i;
    for (d = 2; d < i; ++d) {
      if (d * d > i) break;
      if (i % d != 0) continue;
      f = d;
      break;
    }
    got[i] = spf[i];
    want[i] = f;
  }
  compare_i64("spf", got, want, N);
  for (i = 0; i < N; ++i) {
    int c = 0;
    for (d = 1; d <= i; d += 2)
      if (i % d == 0) ++c;
    got[i] = od[i];
    want[i] = c;
  }
  compare_i64("odd_divisors", got, want, N);
  for (i = 0; i < N; ++i) {
    long long x = i;
    int steps = 0;
    while (x > 1) {
      x = x % 2 == 0 ? x / 2 : 3 * x + 1;
      if (++steps >= 1000) break;
    }
    got[i] = col[i];
    want[i] = steps;
  }
  compare_i64("collatz", got, want, N);
  serial_loops_destroy(ctx);
  return TEST_RESULT();
}

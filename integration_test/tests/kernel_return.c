#include "kernel_return.h"
#define LAST_ERROR kernel_return_last_error
#include "common.h"

int main(void) {
  kernel_return_ctx *ctx = NULL;
  float s = 0, d = 0, r[3] = {0, 0, 0}, t = 0;
  const float a[3] = {1, 2, 3}, b[3] = {4, -5, 6}, m[4] = {1.5f, 9, 9, 2.5f};
  int64_t k = 0;
  double want = 0;
  int i;
  CHECK(kernel_return_create(NULL, &ctx));
  CHECK(kernel_return_fill(ctx));
  CHECK(kernel_return_total(ctx, &s));
  for (i = 0; i < KERNEL_RETURN_CONST_N; ++i) want += i * 0.5;
  {
    double got = s;
    compare_f64("total", &got, &want, 1, 1e-5, 0);
  }
  CHECK(kernel_return_dot3(ctx, a, b, &d));
  EXPECT_TRUE(d == 12.0f);
  CHECK(kernel_return_axpy3(ctx, 2.0f, a, b, r));
  EXPECT_TRUE(r[0] == 6.0f && r[1] == -1.0f && r[2] == 12.0f);
  CHECK(kernel_return_trace2(ctx, m, &t));
  EXPECT_TRUE(t == 4.0f);
  CHECK(kernel_return_twice(ctx, (int64_t)1 << 40, &k));
  EXPECT_TRUE(k == (int64_t)1 << 41);
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, kernel_return_total(ctx, NULL));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, kernel_return_total(NULL, &s));
  kernel_return_destroy(ctx);
  return TEST_RESULT();
}

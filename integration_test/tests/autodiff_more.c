/* AD-12 (custom gradient) and AD-14 (time of impact) of docs/autodiff.md,
 * and a `continue` in a differentiated serial loop. */
#include "autodiff_more.h"
#define LAST_ERROR autodiff_more_last_error
#include "common.h"

typedef tc_status (*step_fn)(autodiff_more_ctx *, int32_t);

static int ball(autodiff_more_ctx *ctx, step_fn step, float *h, float *dh) {
  int t;
  float zero[11] = {0};
  CHECK(autodiff_more_bx_write(ctx, zero, 11));
  CHECK(autodiff_more_bv_write(ctx, zero, 11));
  CHECK(autodiff_more_bx_set(ctx, 0, 0.53f));
  CHECK(autodiff_more_bv_set(ctx, 0, -1.0f));
  CHECK(autodiff_more_tape_begin(ctx));
  for (t = 1; t < 11; ++t) CHECK(step(ctx, t));
  CHECK(autodiff_more_final_height(ctx));
  CHECK(autodiff_more_tape_end(ctx));
  CHECK(autodiff_more_tape_backward(ctx, AUTODIFF_MORE_FIELD_HEIGHT));
  CHECK(autodiff_more_height_get(ctx, h));
  CHECK(autodiff_more_bx_grad_get(ctx, 0, dh));
  return 0;
}

int main(void) {
  autodiff_more_ctx *ctx = NULL;
  const float xs[4] = {0.5f, 1.0f, -2.0f, 3.0f};
  float g[4], h, dh;
  double want[4] = {7, 7, 7, 7}, got;
  int i;
  CHECK(autodiff_more_create(NULL, &ctx));

  /* AD-12: x.grad = 7, not 3 x^2 */
  CHECK(autodiff_more_x_write(ctx, xs, 4));
  CHECK(autodiff_more_loss_set(ctx, 0.0f));
  CHECK(autodiff_more_tape_begin(ctx));
  CHECK(autodiff_more_cube(ctx));
  CHECK(autodiff_more_sumk(ctx));
  CHECK(autodiff_more_tape_end(ctx));
  CHECK(autodiff_more_tape_backward(ctx, AUTODIFF_MORE_FIELD_LOSS));
  CHECK(autodiff_more_x_grad_read(ctx, g, 4));
  for (i = 0; i < 4; ++i) {
    got = g[i];
    compare_f64("AD-12 x.grad", &got, &want[i], 1, 1e-6, 1e-6);
  }

  /* AD-14: naive: final 0.33, d/dx0 = +1 (wrong sign); TOI: 0.47, -1 */
  if (ball(ctx, autodiff_more_naive, &h, &dh)) return 1;
  printf("naive: final height %.4f, d height / d x0 = %.4f\n", h, dh);
  got = h; want[0] = 0.33;
  compare_f64("AD-14 naive final height", &got, want, 1, 0, 1e-5);
  got = dh; want[0] = 1.0;
  compare_f64("AD-14 naive gradient", &got, want, 1, 0, 1e-5);
  if (ball(ctx, autodiff_more_toi, &h, &dh)) return 1;
  printf("TOI:   final height %.4f, d height / d x0 = %.4f\n", h, dh);
  got = h; want[0] = 0.47;
  compare_f64("AD-14 TOI final height", &got, want, 1, 0, 1e-5);
  got = dh; want[0] = -1.0;
  compare_f64("AD-14 TOI gradient", &got, want, 1, 0, 1e-5);
  /* a continue in a serial loop: dz/dx = 8 x */
  {
    const float one[4] = {1, 1, 1, 1};
    CHECK(autodiff_more_xc_write(ctx, xs, 4));
    CHECK(autodiff_more_clear_grads(ctx));
    CHECK(autodiff_more_zc_grad_write(ctx, one, 4));
    CHECK(autodiff_more_skip_two_grad(ctx));
    CHECK(autodiff_more_xc_grad_read(ctx, g, 4));
    for (i = 0; i < 4; ++i) {
      double w = 8.0 * xs[i];
      got = g[i];
      compare_f64("continue: x.grad", &got, &w, 1, 1e-6, 1e-6);
    }
  }
  /* a run-time trip count: w = x^m; more than 256 iterations overflow the
     adjoint stack, which fails the launch */
  {
    const float one[4] = {1, 1, 1, 1}, xp[4] = {0.5f, 1.1f, -0.9f, 1.0f};
    const int m = 7;
    CHECK(autodiff_more_xp_write(ctx, xp, 4));
    CHECK(autodiff_more_power(ctx, m));
    CHECK(autodiff_more_clear_grads(ctx));
    CHECK(autodiff_more_wp_grad_write(ctx, one, 4));
    CHECK(autodiff_more_power_grad(ctx, m));
    CHECK(autodiff_more_xp_grad_read(ctx, g, 4));
    for (i = 0; i < 4; ++i) {
      double w = m * pow(xp[i], m - 1);
      got = g[i];
      compare_f64("x^m: x.grad", &got, &w, 1, 1e-5, 1e-6);
    }
    EXPECT_STATUS(TC_ERR_ASSERTION, autodiff_more_power_grad(ctx, 300));
    if (!strstr(autodiff_more_last_error(ctx), "adjoint stack overflow")) {
      fprintf(stderr, "unexpected message: %s\n",
              autodiff_more_last_error(ctx));
      return 1;
    }
  }
  autodiff_more_destroy(ctx);
  return tic_test_failures ? 1 : 0;
}

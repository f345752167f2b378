/* Reverse-mode AD acceptance cases (autodiff_cases.tc): gradients from the
 * tape and from explicit adjoint calls against their analytic values. */
#include "autodiff_cases.h"
#define LAST_ERROR autodiff_cases_last_error
#include "common.h"

#define RTOL 1e-5
#define ATOL 1e-6

static int expect(const char *what, const float *got, const double *want,
                  size_t n) {
  return compare_f32_f64(what, got, want, n, RTOL, ATOL);
}

int main(void) {
  autodiff_cases_ctx *ctx = NULL;
  float f[1000], g[1000];
  double want[1000];
  int i, t;
  CHECK(autodiff_cases_create(NULL, &ctx));

  /* AD-1 */
  for (i = 0; i < 16; ++i)
    f[i] = 0.1f * (float)i;
  CHECK(autodiff_cases_x1_write(ctx, f, 16));
  CHECK(autodiff_cases_tape_begin(ctx));
  CHECK(autodiff_cases_ad1_k1(ctx));
  CHECK(autodiff_cases_ad1_k2(ctx));
  CHECK(autodiff_cases_tape_end(ctx));
  CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS1));
  CHECK(autodiff_cases_x1_grad_read(ctx, g, 16));
  for (i = 0; i < 16; ++i) {
    double x = f[i];
    want[i] = 2.0 * x * cos(x * x);
  }
  expect("AD-1 x.grad", g, want, 16);
  CHECK(autodiff_cases_y1_grad_read(ctx, g, 16));
  /* y's adjoint was consumed by the store's adjoint: 0 after backward */
  for (i = 0; i < 16; ++i)
    want[i] = 0.0;
  expect("AD-1 y.grad after backward", g, want, 16);

  /* AD-2 */
  for (i = 0; i < 1000; ++i)
    f[i] = (float)i / 1000.0f;
  CHECK(autodiff_cases_x2_write(ctx, f, 1000));
  CHECK(autodiff_cases_tape_begin(ctx));
  CHECK(autodiff_cases_loss2_set(ctx, 0.0f));
  CHECK(autodiff_cases_ad2(ctx));
  CHECK(autodiff_cases_tape_end(ctx));
  CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS2));
  CHECK(autodiff_cases_x2_grad_read(ctx, g, 1000));
  for (i = 0; i < 1000; ++i)
    want[i] = 2.0 * f[i];
  expect("AD-2 x.grad", g, want, 1000);

  /* AD-3 */
  for (i = 0; i < 8; ++i)
    f[i] = 0.25f * (float)(i - 3);
  CHECK(autodiff_cases_x3_write(ctx, f, 8));
  CHECK(autodiff_cases_tape_begin(ctx));
  CHECK(autodiff_cases_ad3_k1(ctx));
  CHECK(autodiff_cases_ad3_k2(ctx));
  CHECK(autodiff_cases_tape_end(ctx));
  CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS3));
  CHECK(autodiff_cases_x3_grad_read(ctx, g, 8));
  for (i = 0; i < 8; ++i)
    want[i] = 18.0 * f[i];
  expect("AD-3 x.grad", g, want, 8);

  /* AD-4 */
  {
    const float xa[4] = {-1.0f, -0.5f, 0.5f, 1.0f}, xb[2] = {0.0f, 2.0f};
    const double wa[4] = {2, 2, 1, 1}, wb[2] = {0, -0.25};
    CHECK(autodiff_cases_x4a_write(ctx, xa, 4));
    CHECK(autodiff_cases_x4b_write(ctx, xb, 2));
    CHECK(autodiff_cases_tape_begin(ctx));
    CHECK(autodiff_cases_ad4a(ctx));
    CHECK(autodiff_cases_ad4b(ctx));
    CHECK(autodiff_cases_tape_end(ctx));
    CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS4));
    CHECK(autodiff_cases_x4a_grad_read(ctx, g, 4));
    expect("AD-4a x.grad", g, wa, 4);
    CHECK(autodiff_cases_x4b_grad_read(ctx, g, 2));
    expect("AD-4b x.grad", g, wb, 2);
  }

  /* AD-5 */
  {
    const float x[4] = {2.0f, -1.0f, 0.5f, 3.0f};
    CHECK(autodiff_cases_x5_write(ctx, x, 4));
    CHECK(autodiff_cases_tape_begin(ctx));
    CHECK(autodiff_cases_ad5(ctx));
    CHECK(autodiff_cases_tape_end(ctx));
    CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS5));
    CHECK(autodiff_cases_x5_grad_read(ctx, g, 4));
    for (i = 0; i < 4; ++i)
      want[i] = 3.0 * x[i] * x[i] + 1.0;
    expect("AD-5 x.grad", g, want, 4);
  }

  /* AD-6 */
  {
    const double w[8] = {1, -1, 0, 0, 0, 0, -1, 1};
    for (i = 0; i < 8; ++i)
      f[i] = (float)(i * i);
    CHECK(autodiff_cases_x6_write(ctx, f, 8));
    CHECK(autodiff_cases_tape_begin(ctx));
    CHECK(autodiff_cases_ad6(ctx));
    CHECK(autodiff_cases_tape_end(ctx));
    CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS6));
    CHECK(autodiff_cases_x6_grad_read(ctx, g, 8));
    expect("AD-6 x.grad", g, w, 8);
  }

  /* AD-7 */
  {
    const int32_t q[4] = {0, 0, 1, 3};
    const float w[4] = {1, 2, 3, 4}, x[4] = {0.5f, -2.0f, 7.0f, 1.5f};
    const double wx[4] = {3, 3, 0, 4};
    double ww[4];
    CHECK(autodiff_cases_q7_write(ctx, q, 4));
    CHECK(autodiff_cases_w7_write(ctx, w, 4));
    CHECK(autodiff_cases_x7_write(ctx, x, 4));
    CHECK(autodiff_cases_tape_begin(ctx));
    CHECK(autodiff_cases_ad7(ctx));
    CHECK(autodiff_cases_tape_end(ctx));
    CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS7));
    CHECK(autodiff_cases_x7_grad_read(ctx, g, 4));
    expect("AD-7 x.grad", g, wx, 4);
    for (i = 0; i < 4; ++i)
      ww[i] = x[q[i]];
    CHECK(autodiff_cases_w7_grad_read(ctx, g, 4));
    expect("AD-7 w.grad", g, ww, 4);
  }

  /* AD-8 */
  {
    for (i = 0; i < 20; ++i)
      f[i] = 0.0f;
    for (i = 0; i < 4; ++i)
      f[i] = 1.0f;
    CHECK(autodiff_cases_x8_write(ctx, f, 20));
    for (i = 0; i < 4; ++i)
      f[i] = 2.0f;
    CHECK(autodiff_cases_v8_write(ctx, f, 4));
    CHECK(autodiff_cases_tape_begin(ctx));
    for (t = 1; t < 5; ++t)
      CHECK(autodiff_cases_ad8_step(ctx, t, 0.1f));
    CHECK(autodiff_cases_ad8_loss(ctx));
    CHECK(autodiff_cases_tape_end(ctx));
    CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS8));
    CHECK(autodiff_cases_x8_read(ctx, g, 20));
    for (i = 0; i < 4; ++i)
      want[i] = 1.8;
    expect("AD-8 x[4]", g + 16, want, 4);
    CHECK(autodiff_cases_v8_grad_read(ctx, g, 4));
    for (i = 0; i < 4; ++i)
      want[i] = 1.44;
    expect("AD-8 v.grad", g, want, 4);
    CHECK(autodiff_cases_x8_grad_read(ctx, g, 20));
    /* x.grad[t] = 3.6 for t = 0; the plain stores consumed t >= 1 */
    for (i = 0; i < 20; ++i)
      want[i] = i < 4 ? 3.6 : 0.0;
    expect("AD-8 x.grad", g, want, 20);
  }

  /* AD-9 */
  {
    const double a = 0.9;
    for (i = 0; i < 15; ++i)
      f[i] = i % 5 == 0 ? 2.0f : 0.0f;
    CHECK(autodiff_cases_h9_write(ctx, f, 15));
    CHECK(autodiff_cases_a9_set(ctx, (float)a));
    CHECK(autodiff_cases_tape_begin(ctx));
    CHECK(autodiff_cases_ad9(ctx));
    CHECK(autodiff_cases_ad9_loss(ctx));
    CHECK(autodiff_cases_tape_end(ctx));
    CHECK(autodiff_cases_tape_backward(ctx, AUTODIFF_CASES_FIELD_LOSS9));
    CHECK(autodiff_cases_h9_grad_read(ctx, g, 15));
    for (i = 0; i < 3; ++i)
      want[i] = a * a * a * a;
    for (i = 0; i < 3; ++i)
      g[i] = g[5 * i];
    expect("AD-9 h.grad[i, 0]", g, want, 3);
    CHECK(autodiff_cases_a9_grad_get(ctx, g));
    want[0] = 3 * 4 * a * a * a * 2;
    expect("AD-9 a.grad", g, want, 1);
  }

  /* AD-13: explicit adjoints, no tape */
  {
    const float x[4] = {0.1f, 0.7f, 1.3f, -2.0f}, one[4] = {1, 1, 1, 1};
    CHECK(autodiff_cases_x13_write(ctx, x, 4));
    CHECK(autodiff_cases_ad13_store(ctx));
    CHECK(autodiff_cases_clear_grads(ctx));
    CHECK(autodiff_cases_y13_grad_write(ctx, one, 4));
    CHECK(autodiff_cases_ad13_store_grad(ctx));
    CHECK(autodiff_cases_ad13_store_grad(ctx)); /* adds nothing: consumed */
    CHECK(autodiff_cases_x13_grad_read(ctx, g, 4));
    for (i = 0; i < 4; ++i)
      want[i] = cos((double)x[i]);
    expect("AD-13 store x.grad", g, want, 4);
    CHECK(autodiff_cases_clear_grads(ctx));
    CHECK(autodiff_cases_z13_grad_write(ctx, one, 4));
    CHECK(autodiff_cases_ad13_acc_grad(ctx));
    CHECK(autodiff_cases_ad13_acc_grad(ctx)); /* z.grad stays: twice */
    CHECK(autodiff_cases_x13_grad_read(ctx, g, 4));
    for (i = 0; i < 4; ++i)
      want[i] = 2.0 * cos((double)x[i]);
    expect("AD-13 += x.grad", g, want, 4);
  }

  autodiff_cases_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("autodiff_cases: all passed\n");
  return 0;
}

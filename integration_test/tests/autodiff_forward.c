/* Forward mode against reverse mode (autodiff_forward.tc, f64): the tangent
 * of the loss along random directions d equals dot(grad, d) to 1e-12, and
 * tangents and adjoints of loops carrying locals (Horner's rule, nested
 * loops) match their analytic derivatives. */
#include "autodiff_forward.h"
#define LAST_ERROR autodiff_forward_last_error
#include "common.h"

#define N 12

static uint32_t rng = 12345u;
static double rnd(void) {
  rng = rng * 1664525u + 1013904223u;
  return (double)(rng >> 8) / 16777216.0 - 0.5;
}

int main(void) {
  autodiff_forward_ctx *ctx = NULL;
  double p[N], g[N], d[N], zt[N], want[N], tangent, dot;
  int i, trial;
  CHECK(autodiff_forward_create(NULL, &ctx));
  for (i = 0; i < N; ++i)
    p[i] = 0.9 * rnd() + 0.5;
  CHECK(autodiff_forward_p_write(ctx, p, N));
  /* reverse mode */
  CHECK(autodiff_forward_loss_set(ctx, 0.0));
  CHECK(autodiff_forward_tape_begin(ctx));
  CHECK(autodiff_forward_shape(ctx));
  CHECK(autodiff_forward_reduce(ctx));
  CHECK(autodiff_forward_tape_end(ctx));
  CHECK(autodiff_forward_tape_backward(ctx, AUTODIFF_FORWARD_FIELD_LOSS));
  CHECK(autodiff_forward_p_grad_read(ctx, g, N));
  /* forward mode along a few directions */
  for (trial = 0; trial < 4; ++trial) {
    for (i = 0; i < N; ++i)
      d[i] = trial == 0 ? (i == 3) : rnd();
    CHECK(autodiff_forward_clear_duals(ctx));
    CHECK(autodiff_forward_p_dual_write(ctx, d, N));
    CHECK(autodiff_forward_loss_set(ctx, 0.0));
    CHECK(autodiff_forward_shape_fwd(ctx));
    CHECK(autodiff_forward_reduce_fwd(ctx));
    CHECK(autodiff_forward_loss_dual_get(ctx, &tangent));
    dot = 0;
    for (i = 0; i < N; ++i)
      dot += g[i] * d[i];
    compare_f64("tangent of the loss vs dot(grad, d)", &tangent, &dot, 1, 1e-12,
                1e-14);
  }
  /* z = ((p + 1/2) p + 1/3) p + 1/4 after acc = 1, dz/dp = 3p^2 + p + 1/3 */
  for (i = 0; i < N; ++i)
    d[i] = 1.0;
  CHECK(autodiff_forward_p_dual_write(ctx, d, N));
  CHECK(autodiff_forward_horner_fwd(ctx));
  CHECK(autodiff_forward_z_dual_read(ctx, zt, N));
  for (i = 0; i < N; ++i)
    want[i] = 3 * p[i] * p[i] + p[i] + 1.0 / 3.0;
  compare_f64("tangent of Horner's rule", zt, want, N, 1e-12, 1e-14);
  /* ... and its adjoint, through the adjoint stack */
  CHECK(autodiff_forward_clear_grads(ctx));
  CHECK(autodiff_forward_z_grad_write(ctx, d, N));
  CHECK(autodiff_forward_horner_grad(ctx));
  CHECK(autodiff_forward_p_grad_read(ctx, g, N));
  compare_f64("adjoint of Horner's rule", g, want, N, 1e-12, 1e-14);
  /* nested carried loops: w = 3 t^2, t = p^2 + p/2 + 1/2 */
  CHECK(autodiff_forward_nested_fwd(ctx));
  CHECK(autodiff_forward_w_dual_read(ctx, zt, N));
  for (i = 0; i < N; ++i) {
    double t = p[i] * p[i] + 0.5 * p[i] + 0.5;
    want[i] = 6.0 * t * (2.0 * p[i] + 0.5);
  }
  compare_f64("tangent of nested loops", zt, want, N, 1e-12, 1e-14);
  CHECK(autodiff_forward_clear_grads(ctx));
  CHECK(autodiff_forward_w_grad_write(ctx, d, N));
  CHECK(autodiff_forward_nested_grad(ctx));
  CHECK(autodiff_forward_p_grad_read(ctx, g, N));
  compare_f64("adjoint of nested loops", g, want, N, 1e-12, 1e-14);
  /* while loops and break, both modes against the analytic derivatives */
  {
    const double xw[4] = {1.5, 2.0, 3.0, 1.1}, ones[4] = {1, 1, 1, 1};
    double wl[4], wh[4], wb[4], dl[4], dh[4], db[4], t[4];
    CHECK(autodiff_forward_xw_write(ctx, xw, 4));
    CHECK(autodiff_forward_loops(ctx));
    CHECK(autodiff_forward_wl_read(ctx, wl, 4));
    CHECK(autodiff_forward_wh_read(ctx, wh, 4));
    CHECK(autodiff_forward_wb_read(ctx, wb, 4));
    for (i = 0; i < 4; ++i) {
      int n = (int)floor(log(wb[i]) / log(xw[i]) + 0.5);
      dl[i] = 5 * pow(xw[i], 4);
      dh[i] = 2 * wh[i] / xw[i];
      db[i] = n * pow(xw[i], n - 1);
    }
    /* reverse: one adjoint seeded at a time */
    CHECK(autodiff_forward_clear_grads(ctx));
    CHECK(autodiff_forward_wl_grad_write(ctx, ones, 4));
    CHECK(autodiff_forward_loops_grad(ctx));
    CHECK(autodiff_forward_xw_grad_read(ctx, t, 4));
    compare_f64("while: x.grad of x^5", t, dl, 4, 1e-12, 1e-14);
    CHECK(autodiff_forward_clear_grads(ctx));
    CHECK(autodiff_forward_wh_grad_write(ctx, ones, 4));
    CHECK(autodiff_forward_loops_grad(ctx));
    CHECK(autodiff_forward_xw_grad_read(ctx, t, 4));
    compare_f64("while: x.grad of the halving", t, dh, 4, 1e-12, 1e-14);
    CHECK(autodiff_forward_clear_grads(ctx));
    CHECK(autodiff_forward_wb_grad_write(ctx, ones, 4));
    CHECK(autodiff_forward_loops_grad(ctx));
    CHECK(autodiff_forward_xw_grad_read(ctx, t, 4));
    compare_f64("break: x.grad", t, db, 4, 1e-12, 1e-14);
    /* forward */
    CHECK(autodiff_forward_clear_duals(ctx));
    CHECK(autodiff_forward_xw_dual_write(ctx, ones, 4));
    CHECK(autodiff_forward_loops_fwd(ctx));
    CHECK(autodiff_forward_wl_dual_read(ctx, t, 4));
    compare_f64("while: tangent of x^5", t, dl, 4, 1e-12, 1e-14);
    CHECK(autodiff_forward_wh_dual_read(ctx, t, 4));
    compare_f64("while: tangent of the halving", t, dh, 4, 1e-12, 1e-14);
    CHECK(autodiff_forward_wb_dual_read(ctx, t, 4));
    compare_f64("break: tangent", t, db, 4, 1e-12, 1e-14);
  }
  /* float casts in forward mode: c32 = 3 f32(p), c64 = 2 c32 */
  {
    float t32[N];
    double ones[N], want6[N];
    for (i = 0; i < N; ++i)
      ones[i] = 1.0, want6[i] = 6.0;
    CHECK(autodiff_forward_clear_duals(ctx));
    CHECK(autodiff_forward_p_dual_write(ctx, ones, N));
    CHECK(autodiff_forward_casts_fwd(ctx));
    CHECK(autodiff_forward_c32_dual_read(ctx, t32, N));
    for (i = 0; i < N; ++i) {
      double got3 = t32[i], want3 = 3.0;
      compare_f64("tangent through f64 -> f32", &got3, &want3, 1, 1e-6, 0);
    }
    CHECK(autodiff_forward_c64_dual_read(ctx, zt, N));
    compare_f64("tangent through f32 -> f64", zt, want6, N, 1e-6, 0);
  }
  autodiff_forward_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("autodiff_forward: forward mode agrees with reverse mode\n");
  return 0;
}

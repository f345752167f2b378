/* autodiff_quant.tc: gradients through quantized fields, against the
 * analytic derivatives of the decoded values. */
#include "autodiff_quant.h"
#define LAST_ERROR autodiff_quant_last_error
#include "common.h"

#define N 64

int main(void) {
  autodiff_quant_ctx *ctx = NULL;
  float x[N], q[N], r[N], bv[N], g[N];
  double got[N], want[N];
  int i;
  CHECK(autodiff_quant_create(NULL, &ctx));
  for (i = 0; i < N; ++i) {
    x[i] = 3.5f * sinf(0.37f * (float)i);
    bv[i] = 0.1f * (float)i - 3.0f;
  }
  CHECK(autodiff_quant_x_write(ctx, x, N));
  CHECK(autodiff_quant_b_write(ctx, bv, N));
  CHECK(autodiff_quant_loss_set(ctx, 0.0f));
  CHECK(autodiff_quant_tape_begin(ctx));
  CHECK(autodiff_quant_store_q(ctx));
  CHECK(autodiff_quant_loss_q(ctx));
  CHECK(autodiff_quant_tape_end(ctx));
  CHECK(autodiff_quant_tape_backward(ctx, AUTODIFF_QUANT_FIELD_LOSS));
  /* the decoded values the kernels saw */
  CHECK(autodiff_quant_q_read(ctx, q, N));
  CHECK(autodiff_quant_r_read(ctx, r, N));
  CHECK(autodiff_quant_b_read(ctx, bv, N));
  /* d/dq (q^2 r) = 2 q r, straight through q's encoding to x; r (which
     -x feeds) has no adjoint, so nothing flows back through it */
  CHECK(autodiff_quant_q_grad_read(ctx, g, N));
  for (i = 0; i < N; ++i) {
    got[i] = g[i];
    want[i] = 0.0; /* consumed by store_q's adjoint */
  }
  compare_f64("q.grad after the store's adjoint", got, want, N, 0, 1e-6);
  CHECK(autodiff_quant_x_grad_read(ctx, g, N));
  for (i = 0; i < N; ++i) {
    got[i] = g[i];
    want[i] = 2.0 * q[i] * r[i];
  }
  compare_f64("x.grad through the quantized store", got, want, N, 1e-5, 1e-5);
  CHECK(autodiff_quant_b_grad_read(ctx, g, N));
  for (i = 0; i < N; ++i) {
    got[i] = g[i];
    want[i] = cos((double)bv[i]);
  }
  compare_f64("b.grad (quant.float lanes)", got, want, N, 1e-5, 1e-6);
  autodiff_quant_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("autodiff_quant: gradients through quantized fields match\n");
  return 0;
}

#include "block_local_grad.h"
#define LAST_ERROR block_local_grad_last_error
#include "common.h"

enum { N = 32 };

int main(void) {
  block_local_grad_ctx *ctx = NULL;
  static float u[N * N], w[N * N], got[N * N];
  static double want[N * N], vref[N * N];
  int i, j;
  CHECK(block_local_grad_create(NULL, &ctx));
  for (i = 0; i < N * N; ++i) {
    u[i] = (float)((i * 37) % 29) * 0.125f - 1.5f;
    w[i] = (float)((i * 11) % 7) - 3.0f;
  }
  CHECK(block_local_grad_u_write(ctx, u, N * N));
  CHECK(block_local_grad_smooth(ctx));
  CHECK(block_local_grad_v_read(ctx, got, N * N));
  for (i = 1; i < N - 1; ++i)
    for (j = 1; j < N - 1; ++j)
      vref[i * N + j] = (double)u[(i - 1) * N + j] * u[(i + 1) * N + j] +
                        0.5 * u[i * N + j - 1] +
                        (double)u[i * N + j] * u[i * N + j + 1];
  compare_f32_f64("v", got, vref, N * N, 1e-6, 1e-6);

  /* The adjoint with v.grad = w: u.grad is the sum of w times the partial
   * derivatives of each written v. */
  CHECK(block_local_grad_v_grad_write(ctx, w, N * N));
  CHECK(block_local_grad_smooth_grad(ctx));
  CHECK(block_local_grad_u_grad_read(ctx, got, N * N));
  for (i = 1; i < N - 1; ++i)
    for (j = 1; j < N - 1; ++j) {
      double g = w[i * N + j];
      want[(i - 1) * N + j] += g * u[(i + 1) * N + j];
      want[(i + 1) * N + j] += g * u[(i - 1) * N + j];
      want[i * N + j - 1] += g * 0.5;
      want[i * N + j] += g * u[i * N + j + 1];
      want[i * N + j + 1] += g * u[i * N + j];
    }
  compare_f32_f64("u.grad", got, want, N * N, 1e-5, 1e-5);
  block_local_grad_destroy(ctx);
  return TEST_RESULT();
}

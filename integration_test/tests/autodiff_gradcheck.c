/* Central-difference check of reverse-mode gradients (autodiff_gradcheck.tc):
 * d loss / d p[j] and d loss / d k from the tape against
 * (L(x + h) - L(x - h)) / 2h in f64. */
#include "autodiff_gradcheck.h"
#define LAST_ERROR autodiff_gradcheck_last_error
#include "common.h"

#define N 16
#define T 6

static tc_status forward(autodiff_gradcheck_ctx *ctx, int taped) {
  int t;
  tc_status st;
  if ((st = autodiff_gradcheck_clear_acc(ctx)) != TC_OK) return st;
  if ((st = autodiff_gradcheck_loss_set(ctx, 0.0)) != TC_OK) return st;
  if (taped && (st = autodiff_gradcheck_tape_begin(ctx)) != TC_OK) return st;
  if ((st = autodiff_gradcheck_init(ctx)) != TC_OK) return st;
  for (t = 1; t < T; ++t) {
    if ((st = autodiff_gradcheck_step(ctx, t, 0.1)) != TC_OK) return st;
    if ((st = autodiff_gradcheck_mix(ctx, t)) != TC_OK) return st;
  }
  if ((st = autodiff_gradcheck_scatter(ctx)) != TC_OK) return st;
  if ((st = autodiff_gradcheck_compute_loss(ctx)) != TC_OK) return st;
  if (taped && (st = autodiff_gradcheck_tape_end(ctx)) != TC_OK) return st;
  return TC_OK;
}

static double loss_at(autodiff_gradcheck_ctx *ctx, const double *p, double k,
                      int *ok) {
  double l = 0.0;
  *ok = autodiff_gradcheck_p_write(ctx, p, N) == TC_OK &&
        autodiff_gradcheck_k_set(ctx, k) == TC_OK &&
        forward(ctx, 0) == TC_OK &&
        autodiff_gradcheck_loss_get(ctx, &l) == TC_OK;
  return l;
}

int main(void) {
  autodiff_gradcheck_ctx *ctx = NULL;
  double p[N], grad[N + 1], fd[N + 1], k = 0.7, kg = 0.0, s[T * N];
  const double h = 1e-6;
  int i, ok, branches = 0;
  CHECK(autodiff_gradcheck_create(NULL, &ctx));
  for (i = 0; i < N; ++i) p[i] = 0.6 + 0.05 * (double)((i * 7) % N);
  CHECK(autodiff_gradcheck_p_write(ctx, p, N));
  CHECK(autodiff_gradcheck_k_set(ctx, k));
  CHECK(forward(ctx, 1));
  CHECK(autodiff_gradcheck_tape_backward(ctx, AUTODIFF_GRADCHECK_FIELD_LOSS));
  CHECK(autodiff_gradcheck_p_grad_read(ctx, grad, N));
  CHECK(autodiff_gradcheck_k_grad_get(ctx, &kg));
  grad[N] = kg;
  /* both sides of the branch are taken somewhere */
  CHECK(autodiff_gradcheck_s_read(ctx, s, T * N));
  for (i = 0; i < (T - 1) * N; ++i) branches |= s[i] > 0.8 ? 1 : 2;
  if (branches != 3) {
    fprintf(stderr, "the test data take only one side of the branch\n");
    return 1;
  }
  for (i = 0; i <= N; ++i) {
    double lp, lm;
    if (i < N) {
      double save = p[i];
      p[i] = save + h;
      lp = loss_at(ctx, p, k, &ok);
      if (!ok) return 1;
      p[i] = save - h;
      lm = loss_at(ctx, p, k, &ok);
      if (!ok) return 1;
      p[i] = save;
    } else {
      lp = loss_at(ctx, p, k + h, &ok);
      if (!ok) return 1;
      lm = loss_at(ctx, p, k - h, &ok);
      if (!ok) return 1;
    }
    fd[i] = (lp - lm) / (2.0 * h);
  }
  compare_f64("d loss / d (p..., k)", grad, fd, N + 1, 1e-6, 1e-9);
  autodiff_gradcheck_destroy(ctx);
  if (tic_test_failures) return 1;
  printf("autodiff_gradcheck: %d gradients match central differences\n", N + 1);
  return 0;
}

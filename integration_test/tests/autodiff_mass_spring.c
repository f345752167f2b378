/* AD-17 (autodiff_mass_spring.tc, f64): d loss / d rest_length from the tape
 * against central differences (1e-6 relative), then 200 gradient steps
 * reach the rest lengths the DiffTaichi thesis reports, [0.600, 0.600,
 * 0.529]. */
#include "autodiff_mass_spring.h"
#define LAST_ERROR autodiff_mass_spring_last_error
#include "common.h"

enum { STEPS = 1024, N = 3 };

static tc_status forward(autodiff_mass_spring_ctx *ctx, int taped, double *loss) {
  static const double x0[2 * N] = {0.3, 0.5, 0.3, 0.4, 0.4, 0.4};
  double zero[2 * N] = {0};
  tc_status st;
  int i, t;
  if ((st = autodiff_mass_spring_clear_forces(ctx))) return st;
  for (i = 0; i < N; ++i) {
    if ((st = autodiff_mass_spring_x_set(ctx, 0, i, x0 + 2 * i))) return st;
    if ((st = autodiff_mass_spring_v_set(ctx, 0, i, zero + 2 * i))) return st;
  }
  if (taped && (st = autodiff_mass_spring_tape_begin(ctx))) return st;
  for (t = 1; t < STEPS; ++t) {
    if ((st = autodiff_mass_spring_apply_spring_force(ctx, t))) return st;
    if ((st = autodiff_mass_spring_time_integrate(ctx, t))) return st;
  }
  if ((st = autodiff_mass_spring_compute_loss(ctx, STEPS - 1))) return st;
  if (taped && (st = autodiff_mass_spring_tape_end(ctx))) return st;
  return autodiff_mass_spring_loss_get(ctx, loss);
}

int main(void) {
  autodiff_mass_spring_ctx *ctx = NULL;
  const int32_t a[N] = {0, 1, 2}, b[N] = {1, 2, 0};
  double rest[N] = {0.1, 0.1, 0.1 * 1.4142135623730951}, g[N], fd[N], l, lp, lm;
  const double thesis[N] = {0.600, 0.600, 0.529};
  int s, it;
  CHECK(autodiff_mass_spring_create(NULL, &ctx));
  CHECK(autodiff_mass_spring_anchor_a_write(ctx, a, N));
  CHECK(autodiff_mass_spring_anchor_b_write(ctx, b, N));
  CHECK(autodiff_mass_spring_rest_length_write(ctx, rest, N));
  CHECK(forward(ctx, 1, &l));
  CHECK(autodiff_mass_spring_tape_backward(ctx, AUTODIFF_MASS_SPRING_FIELD_LOSS));
  CHECK(autodiff_mass_spring_rest_length_grad_read(ctx, g, N));
  for (s = 0; s < N; ++s) {
    const double h = 1e-6, save = rest[s];
    rest[s] = save + h;
    CHECK(autodiff_mass_spring_rest_length_write(ctx, rest, N));
    CHECK(forward(ctx, 0, &lp));
    rest[s] = save - h;
    CHECK(autodiff_mass_spring_rest_length_write(ctx, rest, N));
    CHECK(forward(ctx, 0, &lm));
    rest[s] = save;
    fd[s] = (lp - lm) / (2 * h);
  }
  CHECK(autodiff_mass_spring_rest_length_write(ctx, rest, N));
  compare_f64("d loss / d rest_length", g, fd, N, 1e-6, 1e-12);
  for (it = 0; it < 200; ++it) {
    CHECK(forward(ctx, 1, &l));
    CHECK(autodiff_mass_spring_tape_backward(ctx, AUTODIFF_MASS_SPRING_FIELD_LOSS));
    CHECK(autodiff_mass_spring_gradient_step(ctx, 5.0));
  }
  CHECK(autodiff_mass_spring_rest_length_read(ctx, rest, N));
  compare_f64("rest lengths after 200 steps", rest, thesis, N, 0.0, 1e-3);
  autodiff_mass_spring_destroy(ctx);
  if (tic_test_failures) return 1;
  printf("autodiff_mass_spring: [%.4f, %.4f, %.4f]\n", rest[0], rest[1], rest[2]);
  return 0;
}

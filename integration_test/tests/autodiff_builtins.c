/* Derivative table check (autodiff_builtins.tc): x.grad after the adjoint
 * of y[i, k] = f_k(x[i, k]) with y.grad = 1, against f_k'(x) written here.
 * 1e-10 relative in f64, 1e-4 in f32 (the tolerances). */
#include "autodiff_builtins.h"
#define LAST_ERROR autodiff_builtins_last_error
#include "common.h"

#define K 24
static const double points[3] = {0.2, 0.7, 1.3};

/* the argument of builtin k at point p: asin/acos need |x| < 1 */
static double arg(int k, int p) {
  return (k == 3 || k == 4) ? points[p] * 0.5 : points[p];
}

static double deriv(int k, double x) {
  switch (k) {
  case 0: return cos(x);
  case 1: return -sin(x);
  case 2: return 1.0 / (cos(x) * cos(x));
  case 3: return 1.0 / sqrt(1.0 - x * x);
  case 4: return -1.0 / sqrt(1.0 - x * x);
  case 5: return 0.7 / (x * x + 0.49);      /* d/dy atan2(y, 0.7) */
  case 6: return -0.7 / (x * x + 0.49);     /* d/dx atan2(0.7, x) */
  case 7: return 1.0 - tanh(x) * tanh(x);
  case 8: return exp(x);
  case 9: return 1.0 / x;
  case 10: return 0.5 / sqrt(x);
  case 11: return -0.5 * pow(x, -1.5);
  case 12: return 3.0 * x * x;
  case 13: return 2.5 * pow(x, 1.5);
  case 14: return log(2.0) * pow(2.0, x);
  case 15: return x > 0 ? 1.0 : -1.0;
  case 16: return 0.0;
  case 17: return 1.0;                       /* one of min/max takes x */
  case 18: return (x > 0.25 && x < 1.0) ? 1.0 : 0.0;
  case 19: return x > 0.5 ? 2.0 * x : -1.0;
  case 20: return 1.0 / ((1.0 + x) * (1.0 + x));
  case 21: return sqrt(5.0) * 5.0 * x / sqrt(5.0 * x * x + 1.0) / sqrt(5.0) +
                  10.0 * x;                  /* |v| + v.v, v = (x, 2x, 1) */
  case 22: return 2.0 * x;                   /* x^2 - 2 */
  case 23: return -0.5 / (x * x);            /* 1/x - 1/(2x) + 1/2 */
  }
  return 0.0;
}

int main(void) {
  autodiff_builtins_ctx *ctx = NULL;
  double x[3 * K], g[3 * K], want[3 * K], ones[3 * K];
  float xf[3 * K], gf[3 * K], onesf[3 * K];
  int i, k, bad = 0;
  CHECK(autodiff_builtins_create(NULL, &ctx));
  for (i = 0; i < 3; ++i)
    for (k = 0; k < K; ++k) {
      x[i * K + k] = arg(k, i);
      xf[i * K + k] = (float)arg(k, i);
      want[i * K + k] = deriv(k, arg(k, i));
      ones[i * K + k] = 1.0;
      onesf[i * K + k] = 1.0f;
    }
  CHECK(autodiff_builtins_x64_write(ctx, x, 3 * K));
  CHECK(autodiff_builtins_x32_write(ctx, xf, 3 * K));
  CHECK(autodiff_builtins_table64(ctx));
  CHECK(autodiff_builtins_table32(ctx));
  CHECK(autodiff_builtins_y64_grad_write(ctx, ones, 3 * K));
  CHECK(autodiff_builtins_y32_grad_write(ctx, onesf, 3 * K));
  CHECK(autodiff_builtins_table64_grad(ctx));
  CHECK(autodiff_builtins_table32_grad(ctx));
  CHECK(autodiff_builtins_x64_grad_read(ctx, g, 3 * K));
  CHECK(autodiff_builtins_x32_grad_read(ctx, gf, 3 * K));
  for (i = 0; i < 3 * K; ++i) {
    check_close("f64 x.grad (column = builtin)", i, g[i], want[i], 1e-10,
                1e-12, &bad);
  }
  report_mismatches("f64 derivatives", bad, 3 * K);
  bad = 0;
  for (i = 0; i < 3 * K; ++i)
    check_close("f32 x.grad (column = builtin)", i, gf[i], want[i], 1e-4,
                1e-6, &bad);
  report_mismatches("f32 derivatives", bad, 3 * K);
  autodiff_builtins_destroy(ctx);
  if (tic_test_failures) return 1;
  printf("autodiff_builtins: %d derivatives match\n", 2 * 3 * K);
  return 0;
}

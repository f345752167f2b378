/* Taichi 1.7.4's autodiff tests restated (autodiff_taichi.tc): each section
 * runs the program the way the Taichi test does (kernel, then kernel.grad()
 * with the output's adjoint seeded; ti.ad.Tape; ti.ad.FwdMode) and compares
 * with references computed here: analytic derivatives where Taichi uses
 * numpy/autograd, the test's own formulas where it asserts numbers.
 * 1e-4 relative for f32, 1e-10 for f64.
 *
 *   test_ad_basics.py: test_poly, test_trigonometric, test_frac,
 *     test_unary, test_minmax, test_atan2(_f64), test_pow(_f64) (grad_test
 *     and grad_test_fwd, each in f32 and f64), test_mod_fwd   -> basics()
 *     test_mod, test_select, test_select_fwd,
 *     test_obey_kernel_simplicity, test_ad_precision_1/_2, test_ad_frac,
 *     test_ad_global_store_forwarding, test_ad_set_loss_grad  -> misc()
 *   test_ad_if.py (+ test_ad_if_fwd.py): test_ad_if_simple, test_ad_if,
 *     test_ad_if_mutable, test_ad_if_nested, test_ad_if_parallel(_f64),
 *     test_ad_if_parallel_complex(_f64),
 *     test_if_condition_depend_on_for_loop_index             -> ifs()
 *   test_ad_for.py (+ test_ad_for_fwd.py): test_ad_sum,
 *     test_ad_sum_local_atomic, test_ad_power, test_ad_fibonacci,
 *     test_ad_fibonacci_index, test_ad_global_ptr, test_integer_stack,
 *     test_double_for_loops, test_double_for_loops_more_nests,
 *     test_complex_body                                      -> fors()
 *     test_mixed_inner_loops(_tape), test_inner_loops_local_variable_*,
 *     test_more_inner_loops_local_variable_*,
 *     test_stacked_inner_loops_local_variable_*,
 *     test_stacked_mixed_ib_and_non_ib_inner_loops_local_variable_*,
 *     test_large_for_loops_*, test_multiple_ib_deeper_non_scalar,
 *     test_multiple_ib_inner_mixed, test_ib_global_load,
 *     test_for_loop_index                                    -> inner_loops()
 *   test_ad_atomic.py::test_ad_reduce,
 *   test_ad_atomic_fwd.py::test_ad_reduce_fwd,
 *   test_ad_basics_fwd.py: test_ad_fwd_add, test_ad_fwd_multiply,
 *     test_multiple_calls, test_clear_all_dual_field,
 *   test_ad_math_func.py::test_polar_decompose_2D            -> fwd_and_rest()
 *
 * Not restated:
 *   - test_ad_for_fwd.py::test_complex_body: tic's forward mode fails to
 *     compile a float cast (f32 <-> f64) on a value with a tangent ("in code
 *     generation: 'arith.truncf' op operand type 'f32' and result type 'f32'
 *     are cast incompatible"): the tangent takes the reverse-mode rule of
 *     Derivatives.cpp, which casts to the operand's type. The reverse-mode
 *     twin is restated; its fields have no .dual.
 *   - test_ad_basics.py::test_ad_rand: Taichi raises "RandStmt not
 *     supported"; tic gives random() a zero derivative (docs/autodiff.md).
 *   - the tests that assert nothing (test_violate_kernel_simplicity1/2,
 *     test_cast, test_size1, test_ad_nested_for), test_triple_for_loops_bls
 *     (block-local storage), and the test_multiple_ib* variants that the
 *     restated test_multiple_ib_deeper_non_scalar and
 *     test_multiple_ib_inner_mixed cover. */
#include "autodiff_taichi.h"
#define LAST_ERROR autodiff_taichi_last_error
#include "common.h"

#define AT(name) autodiff_taichi_##name
#define FIELD(name) AUTODIFF_TAICHI_FIELD_##name
typedef autodiff_taichi_ctx ctx_t;

#define RTOL32 1e-4
#define ATOL32 1e-6
#define RTOL64 1e-10
#define ATOL64 1e-12

static void near32(const char *what, const float *got, const double *want,
                   size_t n) {
  compare_f32_f64(what, got, want, n, RTOL32, ATOL32);
}
static void near64(const char *what, const double *got, const double *want,
                   size_t n) {
  compare_f64(what, got, want, n, RTOL64, ATOL64);
}
static void near32s(const char *what, float got, double want) {
  near32(what, &got, &want, 1);
}
static void near64s(const char *what, double got, double want) {
  near64(what, &got, &want, 1);
}
static void fill32(float *a, size_t n, float v) {
  size_t i;
  for (i = 0; i < n; ++i)
    a[i] = v;
}
static void fill64(double *a, size_t n, double v) {
  size_t i;
  for (i = 0; i < n; ++i)
    a[i] = v;
}

/* ------------------------------------------------------------------ B ---- */
#define NB 35
/* Value and derivative of function k of autodiff_taichi.tc's `basics`. */
static void basic_ref(int k, double x, double *f, double *d) {
  double n, dn, m, dm;
  switch (k) {
  case 0:
    *f = x;
    *d = 1;
    break;
  case 1:
    *f = fabs(-x);
    *d = x > 0 ? 1 : (x < 0 ? -1 : 0);
    break;
  case 2:
    *f = -x;
    *d = -1;
    break;
  case 3:
  case 4:
    *f = x * x;
    *d = 2 * x;
    break;
  case 5:
    *f = x * x * x;
    *d = 3 * x * x;
    break;
  case 6:
    *f = x * x * x * x;
    *d = 4 * x * x * x;
    break;
  case 7:
    *f = 0.4 * x * x - 3;
    *d = 0.8 * x;
    break;
  case 8:
    *f = (x - 3) * (x - 1);
    *d = 2 * x - 4;
    break;
  case 9:
    *f = (x - 3) * (x - 1) + x * x;
    *d = 4 * x - 4;
    break;
  case 10:
    *f = tanh(x);
    *d = 1 - tanh(x) * tanh(x);
    break;
  case 11:
    *f = sin(x);
    *d = cos(x);
    break;
  case 12:
    *f = cos(x);
    *d = -sin(x);
    break;
  case 13:
    *f = acos(x);
    *d = -1 / sqrt(1 - x * x);
    break;
  case 14:
    *f = asin(x);
    *d = 1 / sqrt(1 - x * x);
    break;
  case 15:
    *f = 1 / x;
    *d = -1 / (x * x);
    break;
  case 16:
    *f = (x + 1) / (x - 1);
    *d = -2 / ((x - 1) * (x - 1));
    break;
  case 17:
    n = (x + 1) * (x + 2);
    dn = 2 * x + 3;
    m = (x - 1) * (x + 3);
    dm = 2 * x + 2;
    *f = n / m;
    *d = (dn * m - n * dm) / (m * m);
    break;
  case 18:
    *f = sqrt(x);
    *d = 0.5 / sqrt(x);
    break;
  case 19:
    *f = 1 / sqrt(x);
    *d = -0.5 / (x * sqrt(x));
    break;
  case 20:
    *f = exp(x);
    *d = exp(x);
    break;
  case 21:
    *f = log(x);
    *d = 1 / x;
    break;
  case 22:
  case 24:
    *f = x < 0 ? x : 0;
    *d = x < 0;
    break; /* min(x, 0) */
  case 23:
  case 25:
    *f = x < 1 ? x : 1;
    *d = x < 1;
    break; /* min(x, 1) */
  case 26:
  case 28:
    *f = x > 0 ? x : 0;
    *d = x > 0;
    break; /* max(x, 0) */
  case 27:
  case 29:
    *f = x > 1 ? x : 1;
    *d = x > 1;
    break; /* max(x, 1) */
  case 30:
    *f = atan2(0.4, x);
    *d = -0.4 / (x * x + 0.16);
    break;
  case 31:
    *f = atan2(x, 0.4);
    *d = 0.4 / (x * x + 0.16);
    break;
  case 32:
    *f = pow(0.4, x);
    *d = pow(0.4, x) * log(0.4);
    break;
  case 33:
    *f = pow(x, 0.4);
    *d = 0.4 * pow(x, -0.6);
    break;
  default:
    *f = x - 3 * floor(x / 3);
    *d = 1;
    break; /* 34: x % 3 */
  }
}

/* grad_test and grad_test_fwd at v = 0.234, as Taichi: y.grad = 1, func(),
 * func.grad(); then FwdMode with seed 1. */
static int basics(ctx_t *ctx) {
  float x32[NB], y32[NB], g32[NB], one32[NB];
  double x64[NB], y64[NB], g64[NB], one64[NB], f[NB], d[NB];
  int k;
  const double v = 0.234;
  fill32(x32, NB, (float)v);
  fill32(one32, NB, 1.0f);
  for (k = 0; k < NB; ++k)
    basic_ref(k, (float)v, &f[k], &d[k]);
  CHECK(AT(bx32_write)(ctx, x32, NB));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(by32_grad_write)(ctx, one32, NB));
  CHECK(AT(basics32)(ctx));
  CHECK(AT(basics32_grad)(ctx));
  CHECK(AT(by32_read)(ctx, y32, NB));
  near32("test_ad_basics f32: y", y32, f, NB);
  CHECK(AT(bx32_grad_read)(ctx, g32, NB));
  near32("test_ad_basics f32 grad_test: x.grad", g32, d, NB);
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(bx32_dual_write)(ctx, one32, NB));
  CHECK(AT(basics32_fwd)(ctx));
  CHECK(AT(by32_read)(ctx, y32, NB));
  near32("test_ad_basics f32 fwd: y", y32, f, NB);
  CHECK(AT(by32_dual_read)(ctx, g32, NB));
  near32("test_ad_basics f32 grad_test_fwd: y.dual", g32, d, NB);

  /* f64 (test_atan2_f64, test_pow_f64; the other functions likewise) */
  fill64(x64, NB, v);
  fill64(one64, NB, 1.0);
  for (k = 0; k < NB; ++k)
    basic_ref(k, v, &f[k], &d[k]);
  CHECK(AT(bx64_write)(ctx, x64, NB));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(by64_grad_write)(ctx, one64, NB));
  CHECK(AT(basics64)(ctx));
  CHECK(AT(basics64_grad)(ctx));
  CHECK(AT(by64_read)(ctx, y64, NB));
  near64("test_ad_basics f64: y", y64, f, NB);
  CHECK(AT(bx64_grad_read)(ctx, g64, NB));
  near64("test_ad_basics f64 grad_test: x.grad", g64, d, NB);
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(bx64_dual_write)(ctx, one64, NB));
  CHECK(AT(basics64_fwd)(ctx));
  CHECK(AT(by64_dual_read)(ctx, g64, NB));
  near64("test_ad_basics f64 grad_test_fwd: y.dual", g64, d, NB);
  return 0;
}

/* -------------------------------------------- S, O, P, FR, GS, SL ---- */
static uint32_t rng = 20240611u;
static double uniform(void) {
  rng = rng * 1664525u + 1013904223u;
  return ((double)(rng >> 8) + 0.5) / 16777216.0;
}

static int misc(ctx_t *ctx) {
  float a[16], b[16], g[16], one[16];
  double want[16], want2[16];
  float s32;
  double s64;
  int i;
  fill32(one, 16, 1.0f);

  /* test_select: loss[i] += select(i % 2, x[i], y[i]) */
  for (i = 0; i < 5; ++i) {
    a[i] = (float)i;
    b[i] = (float)-i;
  }
  CHECK(AT(sx_write)(ctx, a, 5));
  CHECK(AT(sy_write)(ctx, b, 5));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(sloss_grad_write)(ctx, one, 5));
  CHECK(AT(select_acc)(ctx));
  CHECK(AT(select_acc_grad)(ctx));
  for (i = 0; i < 5; ++i) {
    want[i] = i % 2 ? a[i] : b[i];
    want2[i] = i % 2 ? 1.0 : 0.0;
  }
  CHECK(AT(sloss_read)(ctx, g, 5));
  near32("test_select: loss", g, want, 5);
  CHECK(AT(sx_grad_read)(ctx, g, 5));
  near32("test_select: x.grad", g, want2, 5);
  for (i = 0; i < 5; ++i)
    want2[i] = i % 2 ? 0.0 : 1.0;
  CHECK(AT(sy_grad_read)(ctx, g, 5));
  near32("test_select: y.grad", g, want2, 5);
  /* test_select_fwd: loss[i] = select(...), seeding x, then y */
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(sx_dual_write)(ctx, one, 5));
  CHECK(AT(select_store_fwd)(ctx));
  CHECK(AT(sloss_f_read)(ctx, g, 5));
  near32("test_select_fwd: loss", g, want, 5);
  for (i = 0; i < 5; ++i)
    want2[i] = i % 2 ? 1.0 : 0.0;
  CHECK(AT(sloss_f_dual_read)(ctx, g, 5));
  near32("test_select_fwd: loss.dual (param x)", g, want2, 5);
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(sy_dual_write)(ctx, one, 5));
  CHECK(AT(select_store_fwd)(ctx));
  for (i = 0; i < 5; ++i)
    want2[i] = i % 2 ? 0.0 : 1.0;
  CHECK(AT(sloss_f_dual_read)(ctx, g, 5));
  near32("test_select_fwd: loss.dual (param y)", g, want2, 5);

  /* test_mod: y = x % 3, then y += x % 3 (atomic), and both adjoints run;
   * integer values have no derivative, so x.grad stays 0 */
  {
    int32_t xi = 7, yi, gi;
    CHECK(AT(mod_x_set)(ctx, 0, xi));
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(mod_y_grad_set)(ctx, 0, 1));
    CHECK(AT(mod_store)(ctx));
    CHECK(AT(mod_store_grad)(ctx));
    CHECK(AT(mod_atomic)(ctx));
    CHECK(AT(mod_atomic_grad)(ctx));
    CHECK(AT(mod_y_get)(ctx, 0, &yi));
    near32s("test_mod: y", (float)yi, 2.0 * (xi % 3));
    CHECK(AT(mod_x_grad_get)(ctx, 0, &gi));
    near32s("test_mod: x.grad", (float)gi, 0.0);
  }

  /* test_obey_kernel_simplicity: 3 x (y += 42 x; y -= 5 x) */
  CHECK(AT(ox_set)(ctx, 0, 0.1f));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(oy_grad_set)(ctx, 0, 1.0f));
  CHECK(AT(obey)(ctx));
  CHECK(AT(obey_grad)(ctx));
  CHECK(AT(ox_grad_get)(ctx, 0, &s32));
  near32s("test_obey_kernel_simplicity: x.grad", s32, (42.0 - 5.0) * 3);

  /* test_ad_precision_1: loss (f32) = x (f64); only func.grad() runs */
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(p1_loss_grad_set)(ctx, 1.0f));
  CHECK(AT(precision_1_grad)(ctx));
  CHECK(AT(p1_x_grad_get)(ctx, &s64));
  near64s("test_ad_precision_1: x.grad", s64, 1.0);
  /* test_ad_precision_2: loss (f64) = x (f32), under a tape */
  CHECK(AT(tape_begin)(ctx));
  CHECK(AT(precision_2)(ctx));
  CHECK(AT(tape_end)(ctx));
  CHECK(AT(tape_backward)(ctx, FIELD(P2_LOSS)));
  CHECK(AT(p2_x_grad_get)(ctx, &s32));
  near32s("test_ad_precision_2: x.grad", s32, 1.0);

  /* test_ad_frac: loss = sum frac(x)^2 over 10 normal samples; the
   * gradient is 2 modf(x) */
  for (i = 0; i < 10; ++i) {
    double ipart, r = sqrt(-2.0 * log(uniform()));
    r *= cos(6.283185307179586 * uniform()); /* Box-Muller: N(0, 1) */
    a[i] = (float)r;
    want[i] = 2.0 * modf((double)a[i], &ipart);
  }
  CHECK(AT(field0_write)(ctx, a, 10));
  CHECK(AT(frac_loss_set)(ctx, 0.0f));
  CHECK(AT(tape_begin)(ctx));
  CHECK(AT(frac_k)(ctx));
  CHECK(AT(frac_loss_k)(ctx));
  CHECK(AT(tape_end)(ctx));
  CHECK(AT(tape_backward)(ctx, FIELD(FRAC_LOSS)));
  CHECK(AT(field0_grad_read)(ctx, g, 10));
  near32("test_ad_frac: field0.grad", g, want, 10);

  /* test_ad_global_store_forwarding: e = 120 x through a, b, c, d */
  CHECK(AT(gx_set)(ctx, 1.0f));
  CHECK(AT(tape_begin)(ctx));
  CHECK(AT(store_forwarding)(ctx));
  CHECK(AT(tape_end)(ctx));
  CHECK(AT(tape_backward)(ctx, FIELD(GE)));
  CHECK(AT(ge_get)(ctx, &s32));
  near32s("test_ad_global_store_forwarding: e", s32, 1.0 * 2 * 3 * 4 * 5);
  CHECK(AT(gx_grad_get)(ctx, &s32));
  near32s("test_ad_global_store_forwarding: x.grad", s32, 2.0 * 3 * 4 * 5);
  CHECK(AT(ga_grad_get)(ctx, &g[0]));
  CHECK(AT(gb_grad_get)(ctx, &g[1]));
  CHECK(AT(gc_grad_get)(ctx, &g[2]));
  CHECK(AT(gd_grad_get)(ctx, &g[3]));
  fill64(want, 4, 0.0);
  near32("test_ad_global_store_forwarding: a..d.grad", g, want, 4);

  /* test_ad_set_loss_grad: loss = x, = 2x, = 4x in three kernels */
  CHECK(AT(sl_eval_x)(ctx));
  CHECK(AT(tape_begin)(ctx));
  CHECK(AT(sl_compute_1)(ctx));
  CHECK(AT(sl_compute_2)(ctx));
  CHECK(AT(sl_compute_3)(ctx));
  CHECK(AT(tape_end)(ctx));
  CHECK(AT(tape_backward)(ctx, FIELD(SLLOSS)));
  CHECK(AT(slloss_get)(ctx, &s32));
  near32s("test_ad_set_loss_grad: loss", s32, 4.0 * 1.0);
  CHECK(AT(slx_grad_get)(ctx, &s32));
  near32s("test_ad_set_loss_grad: x.grad", s32, 4.0);
  return 0;
}

/* ------------------------------------------------------------------ I ---- */
/* d/dx of `y = x if x > 0 else 2 x` and of `t = 1 / x if x > 0 else 0` */
static double d_if(double x) { return x > 0 ? 1.0 : 2.0; }
static double d_complex(double x) { return x > 0 ? -1.0 / (x * x) : 0.0; }

static int ifs(ctx_t *ctx) {
  const float x2[2] = {0, 1}, xc[2] = {0, 2},
              one[20] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                         1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const double x2d[2] = {0, 1}, xcd[2] = {0, 2}, oned[2] = {1, 1};
  float g[20], x[20], s32;
  double want[20], want2[20], g64[2];
  int i;

  /* test_ad_if_simple (+ test_ad_if_simple_fwd) */
  CHECK(AT(is_x_set)(ctx, 1.0f));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(is_y_grad_set)(ctx, 1.0f));
  CHECK(AT(if_simple)(ctx));
  CHECK(AT(if_simple_grad)(ctx));
  CHECK(AT(is_x_grad_get)(ctx, &s32));
  near32s("test_ad_if_simple: x.grad", s32, 1.0 > 0 ? 1.0 : 0.0);
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(is_x_dual_set)(ctx, 1.0f));
  CHECK(AT(if_simple_fwd)(ctx));
  CHECK(AT(is_y_dual_get)(ctx, &s32));
  near32s("test_ad_if_simple_fwd: y.dual", s32, 1.0);

  /* test_ad_if and test_ad_if_mutable: func(i: i32), x = [0, 1] */
  for (i = 0; i < 2; ++i)
    want[i] = d_if(x2[i]);
  CHECK(AT(if_x_write)(ctx, x2, 2));
  CHECK(AT(im_x_write)(ctx, x2, 2));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(if_y_grad_write)(ctx, one, 2));
  CHECK(AT(im_y_grad_write)(ctx, one, 2));
  for (i = 0; i < 2; ++i) {
    CHECK(AT(if_param)(ctx, i));
    CHECK(AT(if_param_grad)(ctx, i));
    CHECK(AT(if_mutable)(ctx, i));
    CHECK(AT(if_mutable_grad)(ctx, i));
  }
  CHECK(AT(if_x_grad_read)(ctx, g, 2));
  near32("test_ad_if: x.grad", g, want, 2);
  CHECK(AT(im_x_grad_read)(ctx, g, 2));
  near32("test_ad_if_mutable: x.grad", g, want, 2);
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(if_x_dual_write)(ctx, one, 2));
  CHECK(AT(im_x_dual_write)(ctx, one, 2));
  for (i = 0; i < 2; ++i) {
    CHECK(AT(if_param_fwd)(ctx, i));
    CHECK(AT(if_mutable_fwd)(ctx, i));
  }
  CHECK(AT(if_y_dual_read)(ctx, g, 2));
  near32("test_ad_if_fwd.py::test_ad_if: y.dual", g, want, 2);
  CHECK(AT(im_y_dual_read)(ctx, g, 2));
  near32("test_ad_if_fwd.py::test_ad_if_mutable: y.dual", g, want, 2);

  /* test_ad_if_nested: x = i % 4, z = 1; y = 0, z, 2z, 3z */
  for (i = 0; i < 20; ++i) {
    x[i] = (float)(i % 4);
    want2[i] = x[i] < 2 ? (x[i] == 0 ? 0.0 : 1.0) : (x[i] == 2 ? 2.0 : 3.0);
    want[i] = want2[i] * 1.0;
  }
  CHECK(AT(in_x_write)(ctx, x, 20));
  CHECK(AT(in_z_write)(ctx, one, 20));
  CHECK(AT(if_nested)(ctx));
  CHECK(AT(in_y_read)(ctx, g, 20));
  near32("test_ad_if_nested: y", g, want, 20);
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(in_y_grad_write)(ctx, one, 20));
  CHECK(AT(if_nested_grad)(ctx));
  CHECK(AT(in_z_grad_read)(ctx, g, 20));
  near32("test_ad_if_nested: z.grad", g, want2, 20);
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(in_z_dual_write)(ctx, one, 20));
  CHECK(AT(if_nested_fwd)(ctx));
  CHECK(AT(in_y_dual_read)(ctx, g, 20));
  near32("test_ad_if_fwd.py::test_ad_if_nested: y.dual", g, want2, 20);

  /* test_ad_if_parallel(_f64) */
  for (i = 0; i < 2; ++i)
    want[i] = d_if(x2[i]);
  CHECK(AT(ip_x32_write)(ctx, x2, 2));
  CHECK(AT(ip_x64_write)(ctx, x2d, 2));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(ip_y32_grad_write)(ctx, one, 2));
  CHECK(AT(ip_y64_grad_write)(ctx, oned, 2));
  CHECK(AT(if_parallel32)(ctx));
  CHECK(AT(if_parallel32_grad)(ctx));
  CHECK(AT(if_parallel64)(ctx));
  CHECK(AT(if_parallel64_grad)(ctx));
  CHECK(AT(ip_x32_grad_read)(ctx, g, 2));
  near32("test_ad_if_parallel: x.grad", g, want, 2);
  CHECK(AT(ip_x64_grad_read)(ctx, g64, 2));
  near64("test_ad_if_parallel_f64: x.grad", g64, want, 2);
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(ip_x32_dual_write)(ctx, one, 2));
  CHECK(AT(ip_x64_dual_write)(ctx, oned, 2));
  CHECK(AT(if_parallel32_fwd)(ctx));
  CHECK(AT(if_parallel64_fwd)(ctx));
  CHECK(AT(ip_y32_dual_read)(ctx, g, 2));
  near32("test_ad_if_fwd.py::test_ad_if_parallel: y.dual", g, want, 2);
  CHECK(AT(ip_y64_dual_read)(ctx, g64, 2));
  near64("test_ad_if_fwd.py::test_ad_if_parallel_f64: y.dual", g64, want, 2);

  /* test_ad_if_parallel_complex(_f64): x = [0, 2]; the untaken 1/x at 0
   * must give 0, not NaN */
  for (i = 0; i < 2; ++i)
    want[i] = d_complex(xc[i]);
  CHECK(AT(ic_x32_write)(ctx, xc, 2));
  CHECK(AT(ic_x64_write)(ctx, xcd, 2));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(ic_y32_grad_write)(ctx, one, 2));
  CHECK(AT(ic_y64_grad_write)(ctx, oned, 2));
  CHECK(AT(if_complex32)(ctx));
  CHECK(AT(if_complex32_grad)(ctx));
  CHECK(AT(if_complex64)(ctx));
  CHECK(AT(if_complex64_grad)(ctx));
  CHECK(AT(ic_x32_grad_read)(ctx, g, 2));
  near32("test_ad_if_parallel_complex: x.grad", g, want, 2);
  CHECK(AT(ic_x64_grad_read)(ctx, g64, 2));
  near64("test_ad_if_parallel_complex_f64: x.grad", g64, want, 2);
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(ic_x32_dual_write)(ctx, one, 2));
  CHECK(AT(ic_x64_dual_write)(ctx, oned, 2));
  CHECK(AT(if_complex32_fwd)(ctx));
  CHECK(AT(if_complex64_fwd)(ctx));
  CHECK(AT(ic_y32_dual_read)(ctx, g, 2));
  near32("test_ad_if_fwd.py::test_ad_if_parallel_complex: y.dual", g, want, 2);
  CHECK(AT(ic_y64_dual_read)(ctx, g64, 2));
  near64("test_ad_if_fwd.py::test_ad_if_parallel_complex_f64: y.dual", g64,
         want, 2);

  /* test_if_condition_depend_on_for_loop_index: the tape runs (Taichi's
   * only check); the primal values are F = 4 + 8 f_bend pos, pos += t, and
   * loss_n depends on nothing, so f_bend.grad stays 0 */
  {
    static float pos[300], F[300];
    static double wpos[300], wF[300];
    const float f_bend = 0.5f;
    const int t = 5;
    for (i = 0; i < 300; ++i) {
      pos[i] = (float)(0.01 * i - 1.0);
      wF[i] = 4.0 + 8.0 * f_bend * pos[i];
      wpos[i] = pos[i] + 1.0 * t;
    }
    CHECK(AT(cp_pos_write)(ctx, pos, 300));
    CHECK(AT(cp_f_bend_set)(ctx, 0, f_bend));
    CHECK(AT(tape_begin)(ctx));
    CHECK(AT(simulation)(ctx, t));
    CHECK(AT(tape_end)(ctx));
    CHECK(AT(tape_backward)(ctx, FIELD(CP_LOSS_N)));
    CHECK(AT(cp_F_read)(ctx, F, 300));
    near32("test_if_condition_depend_on_for_loop_index: F", F, wF, 300);
    CHECK(AT(cp_pos_read)(ctx, pos, 300));
    near32("test_if_condition_depend_on_for_loop_index: pos", pos, wpos, 300);
    CHECK(AT(cp_f_bend_grad_get)(ctx, 0, &s32));
    near32s("test_if_condition_depend_on_for_loop_index: f_bend.grad", s32,
            0.0);
  }
  return 0;
}

/* ------------------------------------------------------------------ F ---- */
static int fors(ctx_t *ctx) {
  float a[16], g[16], one[16], f[16];
  double want[16], want2[16];
  int32_t c[32];
  int i, j, k;
  fill32(one, 16, 1.0f);

  /* test_ad_sum, test_ad_sum_local_atomic, test_ad_power: a = 3, b = i
   * loop trips; p = 1 + b a, 1 + b a, a^b */
  {
    typedef tc_status (*kern)(ctx_t *);
    typedef tc_status (*rd)(ctx_t *, float *, size_t);
    typedef tc_status (*wr)(ctx_t *, const float *, size_t);
    const char *names[3] = {"test_ad_sum", "test_ad_sum_local_atomic",
                            "test_ad_power"};
    kern prim[3] = {AT(compute_sum), AT(compute_sum_local_atomic), AT(power)};
    kern grad[3] = {AT(compute_sum_grad), AT(compute_sum_local_atomic_grad),
                    AT(power_grad)};
    kern fwd[3] = {AT(compute_sum_fwd), AT(compute_sum_local_atomic_fwd),
                   AT(power_fwd)};
    rd p_read[3] = {AT(fp_sum_read), AT(fp_atomic_read), AT(fp_power_read)};
    rd p_dual_read[3] = {AT(fp_sum_dual_read), AT(fp_atomic_dual_read),
                         AT(fp_power_dual_read)};
    wr p_grad_write[3] = {AT(fp_sum_grad_write), AT(fp_atomic_grad_write),
                          AT(fp_power_grad_write)};
    char what[96];
    int t;
    fill32(a, 10, 3.0f);
    for (i = 0; i < 10; ++i)
      c[i] = i;
    CHECK(AT(fa_write)(ctx, a, 10));
    CHECK(AT(fb_write)(ctx, c, 10));
    for (t = 0; t < 3; ++t) {
      for (i = 0; i < 10; ++i) {
        if (t < 2) {
          want[i] = 1.0 + c[i] * (double)a[i];
          want2[i] = c[i];
        } else {
          want[i] = pow(a[i], c[i]);
          want2[i] = c[i] * pow(a[i], c[i] - 1);
        }
      }
      CHECK(prim[t](ctx));
      CHECK(p_read[t](ctx, g, 10));
      sprintf(what, "%s: p", names[t]);
      near32(what, g, want, 10);
      CHECK(AT(clear_grads)(ctx));
      CHECK(p_grad_write[t](ctx, one, 10));
      CHECK(grad[t](ctx));
      CHECK(AT(fa_grad_read)(ctx, g, 10));
      sprintf(what, "%s: a.grad", names[t]);
      near32(what, g, want2, 10);
      CHECK(AT(clear_duals)(ctx));
      CHECK(AT(fa_dual_write)(ctx, one, 10));
      CHECK(fwd[t](ctx));
      CHECK(p_dual_read[t](ctx, g, 10));
      sprintf(what, "%s_fwd: p.dual", names[t]);
      near32(what, g, want2, 10);
    }
  }

  /* test_ad_fibonacci: p, q = a, b; c = i times p, q = q, p + q; f = q.
   * The reference carries the tangents along a and along b. */
  {
    double fa_[15], fb_[15];
    float b[15];
    fill32(a, 15, 0.0f);
    fill32(b, 15, 1.0f);
    for (i = 0; i < 15; ++i) {
      double p = a[i], q = b[i], pa = 1, qa = 0, pb = 0, qb = 1, tmp;
      c[i] = i;
      for (j = 0; j < c[i]; ++j) {
        tmp = p;
        p = q;
        q = tmp + q;
        tmp = pa;
        pa = qa;
        qa = tmp + qa;
        tmp = pb;
        pb = qb;
        qb = tmp + qb;
      }
      want[i] = q;
      fa_[i] = qa;
      fb_[i] = qb;
    }
    CHECK(AT(fib_a_write)(ctx, a, 15));
    CHECK(AT(fib_b_write)(ctx, b, 15));
    CHECK(AT(fib_c_write)(ctx, c, 15));
    CHECK(AT(fib)(ctx));
    CHECK(AT(fib_f_read)(ctx, f, 15));
    near32("test_ad_fibonacci: f", f, want, 15);
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(fib_f_grad_write)(ctx, one, 15));
    CHECK(AT(fib_grad)(ctx));
    CHECK(AT(fib_a_grad_read)(ctx, g, 15));
    near32("test_ad_fibonacci: a.grad", g, fa_, 15);
    CHECK(AT(fib_b_grad_read)(ctx, g, 15));
    near32("test_ad_fibonacci: b.grad", g, fb_, 15);
    /* Taichi's own identities: a.grad[i] = f[i - 1], b.grad[i] = f[i] */
    for (i = 0; i < 15; ++i)
      want2[i] = i == 0 ? 0.0 : f[i - 1];
    CHECK(AT(fib_a_grad_read)(ctx, g, 15));
    near32("test_ad_fibonacci: a.grad = f[i - 1]", g, want2, 15);
    CHECK(AT(fib_b_grad_read)(ctx, g, 15));
    for (i = 0; i < 15; ++i)
      want2[i] = f[i];
    near32("test_ad_fibonacci: b.grad = f[i]", g, want2, 15);
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(fib_a_dual_write)(ctx, one, 15));
    CHECK(AT(fib_fwd)(ctx));
    CHECK(AT(fib_f_dual_read)(ctx, g, 15));
    near32("test_ad_fibonacci_fwd: f.dual (param a)", g, fa_, 15);
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(fib_b_dual_write)(ctx, one, 15));
    CHECK(AT(fib_fwd)(ctx));
    CHECK(AT(fib_f_dual_read)(ctx, g, 15));
    near32("test_ad_fibonacci_fwd: f.dual (param b)", g, fb_, 15);
  }

  /* test_ad_fibonacci_index: five threads walk q = 1, 2, 3, 5, 8 and
   * accumulate b[q] += a[q]; a second loop sums b into f */
  {
    int hits[10] = {0};
    fill32(a, 10, 1.0f);
    for (i = 0; i < 5; ++i) {
      int p = 0, q = 1, tmp;
      for (j = 0; j < 5; ++j) {
        tmp = p;
        p = q;
        q = tmp + q;
        hits[q] += 1;
      }
    }
    for (i = 0; i < 10; ++i)
      want[i] = hits[i];
    CHECK(AT(fi_a_write)(ctx, a, 10));
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(fi_f_grad_set)(ctx, 1.0f));
    CHECK(AT(fib_index)(ctx));
    CHECK(AT(fib_index_grad)(ctx));
    CHECK(AT(fi_b_read)(ctx, g, 10));
    near32("test_ad_fibonacci_index: b", g, want, 10);
    CHECK(AT(fi_a_grad_read)(ctx, g, 10));
    near32("test_ad_fibonacci_index: a.grad", g, want, 10);
  }

  /* test_ad_global_ptr: b[i] = sum_p a[p]^2, f = sum b: a.grad = 2 a N */
  for (i = 0; i < 5; ++i) {
    a[i] = (float)i;
    want[i] = 2.0 * a[i] * 5;
  }
  CHECK(AT(gp_a_write)(ctx, a, 5));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(gp_f_grad_set)(ctx, 1.0f));
  CHECK(AT(global_ptr)(ctx));
  CHECK(AT(global_ptr_grad)(ctx));
  CHECK(AT(gp_a_grad_read)(ctx, g, 5));
  near32("test_ad_global_ptr: a.grad", g, want, 5);

  /* test_integer_stack: an i32 local (weight *= 10) carried beside s */
  {
    float b[5];
    fill32(a, 5, 1.0f);
    fill32(b, 5, 1.0f);
    for (i = 0; i < 5; ++i) {
      double w = 1, s = 0, da = 0;
      c[i] = i;
      for (j = 0; j < c[i]; ++j) {
        s += w * a[i] + b[i];
        da += w;
        w *= 10;
      }
      want[i] = s;
      want2[i] = da;
    }
    CHECK(AT(st_a_write)(ctx, a, 5));
    CHECK(AT(st_b_write)(ctx, b, 5));
    CHECK(AT(st_c_write)(ctx, c, 5));
    CHECK(AT(int_stack)(ctx));
    CHECK(AT(st_f_read)(ctx, f, 5));
    near32("test_integer_stack: f", f, want, 5);
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(st_f_grad_write)(ctx, one, 5));
    CHECK(AT(int_stack_grad)(ctx));
    CHECK(AT(st_a_grad_read)(ctx, g, 5));
    near32("test_integer_stack: a.grad", g, want2, 5);
    for (i = 0; i < 5; ++i)
      want2[i] = c[i];
    CHECK(AT(st_b_grad_read)(ctx, g, 5));
    near32("test_integer_stack: b.grad", g, want2, 5);
  }

  /* test_double_for_loops: weight = a^c, f = 2c (weight + b);
   * df/da = 2c c a^(c-1), df/db = 2c */
  {
    float b[5];
    double da[5], db[5];
    fill32(a, 5, 2.0f);
    fill32(b, 5, 1.0f);
    for (i = 0; i < 5; ++i) {
      c[i] = i;
      want[i] = 2.0 * c[i] * (pow(a[i], c[i]) + b[i]);
      da[i] = c[i] == 0 ? 0.0 : 2.0 * c[i] * c[i] * pow(a[i], c[i] - 1);
      db[i] = 2.0 * c[i];
    }
    CHECK(AT(df_a_write)(ctx, a, 5));
    CHECK(AT(df_b_write)(ctx, b, 5));
    CHECK(AT(df_c_write)(ctx, c, 5));
    CHECK(AT(double_for)(ctx));
    CHECK(AT(df_f_read)(ctx, f, 5));
    near32("test_double_for_loops: f", f, want, 5);
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(df_f_grad_write)(ctx, one, 5));
    CHECK(AT(double_for_grad)(ctx));
    CHECK(AT(df_a_grad_read)(ctx, g, 5));
    near32("test_double_for_loops: a.grad", g, da, 5);
    CHECK(AT(df_b_grad_read)(ctx, g, 5));
    near32("test_double_for_loops: b.grad", g, db, 5);
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(df_a_dual_write)(ctx, one, 5));
    CHECK(AT(double_for_fwd)(ctx));
    CHECK(AT(df_f_dual_read)(ctx, g, 5));
    near32("test_ad_for_fwd.py::test_double_for_loops: f.dual (param a)", g, da,
           5);
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(df_b_dual_write)(ctx, one, 5));
    CHECK(AT(double_for_fwd)(ctx));
    CHECK(AT(df_f_dual_read)(ctx, g, 5));
    near32("test_ad_for_fwd.py::test_double_for_loops: f.dual (param b)", g, db,
           5);
  }

  /* test_double_for_loops_more_nests: c[i, k] = i + k, the same sums over k */
  {
    float b[6], f2[18];
    double wf[18], da[6], db[6];
    fill32(a, 6, 2.0f);
    fill32(b, 6, 1.0f);
    for (i = 0; i < 6; ++i) {
      da[i] = db[i] = 0;
      for (k = 0; k < 3; ++k) {
        int n = i + k;
        c[i * 3 + k] = n;
        wf[i * 3 + k] = 2.0 * n * (pow(a[i], n) + b[i]);
        da[i] += n == 0 ? 0.0 : 2.0 * n * n * pow(a[i], n - 1);
        db[i] += 2.0 * n;
      }
    }
    CHECK(AT(dn_a_write)(ctx, a, 6));
    CHECK(AT(dn_b_write)(ctx, b, 6));
    CHECK(AT(dn_c_write)(ctx, c, 18));
    CHECK(AT(double_for_nests)(ctx));
    CHECK(AT(dn_f_read)(ctx, f2, 18));
    near32("test_double_for_loops_more_nests: f", f2, wf, 18);
    fill32(f2, 18, 1.0f);
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(dn_f_grad_write)(ctx, f2, 18));
    CHECK(AT(double_for_nests_grad)(ctx));
    CHECK(AT(dn_a_grad_read)(ctx, g, 6));
    near32("test_double_for_loops_more_nests: a.grad", g, da, 6);
    CHECK(AT(dn_b_grad_read)(ctx, g, 6));
    near32("test_double_for_loops_more_nests: b.grad", g, db, 6);
  }

  /* test_complex_body: weight 2 -> (weight + 1) 4 (through f64 and back);
   * f = sum (weight + 1) a, a.grad = g = sum (weight + 1) */
  {
    float b[5];
    fill32(a, 5, 2.0f);
    fill32(b, 5, 1.0f);
    for (i = 0; i < 5; ++i) {
      double w = 2, tw = 0;
      c[i] = i;
      for (j = 0; j < c[i]; ++j) {
        tw += w + 1;
        w = (w + 1) * 4;
      }
      want[i] = tw;
      want2[i] = tw * a[i];
    }
    CHECK(AT(cb_a_write)(ctx, a, 5));
    CHECK(AT(cb_b_write)(ctx, b, 5));
    CHECK(AT(cb_c_write)(ctx, c, 5));
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(cb_f_grad_write)(ctx, one, 5));
    CHECK(AT(complex_body)(ctx));
    CHECK(AT(complex_body_grad)(ctx));
    CHECK(AT(cb_f_read)(ctx, f, 5));
    near32("test_complex_body: f", f, want2, 5);
    CHECK(AT(cb_g_read)(ctx, f, 5));
    near32("test_complex_body: g", f, want, 5);
    CHECK(AT(cb_a_grad_read)(ctx, g, 5));
    near32("test_complex_body: a.grad", g, want, 5);
  }
  return 0;
}

/* ------------------------------------------- the inner-loop tests ---- */
typedef tc_status (*kern_fn)(ctx_t *);
typedef tc_status (*get_fn)(ctx_t *, float *);
typedef tc_status (*set_fn)(ctx_t *, float);

/* One loss of x (0-D lx) three ways: kernel.grad() with loss.grad = 1
 * (the *_kernel_grad tests), under a tape (the *_tape tests) and in
 * forward mode (test_ad_for_fwd.py). */
static int loss_of_x(ctx_t *ctx, const char *name, kern_fn k, kern_fn k_grad,
                     kern_fn k_fwd, get_fn loss_get, set_fn loss_set,
                     set_fn loss_grad_set, get_fn loss_dual_get,
                     autodiff_taichi_field loss_id, double x, double want_loss,
                     double want_grad) {
  float v;
  char what[160];
  CHECK(AT(lx_set)(ctx, (float)x));
  /* kernel.grad() */
  CHECK(loss_set(ctx, 0.0f));
  CHECK(AT(clear_grads)(ctx));
  CHECK(loss_grad_set(ctx, 1.0f));
  CHECK(k(ctx));
  CHECK(k_grad(ctx));
  CHECK(loss_get(ctx, &v));
  sprintf(what, "%s: loss", name);
  near32s(what, v, want_loss);
  CHECK(AT(lx_grad_get)(ctx, &v));
  sprintf(what, "%s (kernel grad): x.grad", name);
  near32s(what, v, want_grad);
  /* tape */
  CHECK(loss_set(ctx, 0.0f));
  CHECK(AT(tape_begin)(ctx));
  CHECK(k(ctx));
  CHECK(AT(tape_end)(ctx));
  CHECK(AT(tape_backward)(ctx, loss_id));
  CHECK(AT(lx_grad_get)(ctx, &v));
  sprintf(what, "%s (tape): x.grad", name);
  near32s(what, v, want_grad);
  /* forward */
  CHECK(loss_set(ctx, 0.0f));
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(lx_dual_set)(ctx, 1.0f));
  CHECK(k_fwd(ctx));
  CHECK(loss_get(ctx, &v));
  sprintf(what, "%s (fwd): loss", name);
  near32s(what, v, want_loss);
  CHECK(loss_dual_get(ctx, &v));
  sprintf(what, "%s (fwd): loss.dual", name);
  near32s(what, v, want_grad);
  return 0;
}

static int inner_loops(ctx_t *ctx) {
  float g[16], v;
  double want[16], want2[16];
  int i, j;
  const double x = 0.0, s = sin(x), cs = cos(x); /* Taichi's x = 0 */

  /* test_mixed_inner_loops(_tape): 5 x (sin x + 2 (sin x + 1)) */
  if (loss_of_x(ctx, "test_mixed_inner_loops", AT(mixed_inner_loops),
                AT(mixed_inner_loops_grad), AT(mixed_inner_loops_fwd),
                AT(l_mixed_get), AT(l_mixed_set), AT(l_mixed_grad_set),
                AT(l_mixed_dual_get), FIELD(L_MIXED), x, 5 * (s + 2 * (s + 1)),
                5 * 3 * cs))
    return 1;
  /* test_inner_loops_local_variable_*: 2 x 3 x (3 (sin x + 1) + 3 sin x) */
  if (loss_of_x(
          ctx, "test_inner_loops_local_variable",
          AT(inner_loops_local_variable), AT(inner_loops_local_variable_grad),
          AT(inner_loops_local_variable_fwd), AT(l_local_get), AT(l_local_set),
          AT(l_local_grad_set), AT(l_local_dual_get), FIELD(L_LOCAL), x,
          2 * 3 * (3 * (s + 1) + 3 * s), 2 * 3 * 6 * cs))
    return 1;
  /* test_more_inner_loops_local_variable_*: 2 x 2 x (3 x 2 sin x +
   * 3 (sin x + 1)) */
  if (loss_of_x(ctx, "test_more_inner_loops_local_variable",
                AT(more_inner_loops_local_variable),
                AT(more_inner_loops_local_variable_grad),
                AT(more_inner_loops_local_variable_fwd), AT(l_more_get),
                AT(l_more_set), AT(l_more_grad_set), AT(l_more_dual_get),
                FIELD(L_MORE), x, 2 * 2 * (3 * 2 * s + 3 * (s + 1)),
                2 * 2 * 9 * cs))
    return 1;
  /* test_stacked_inner_loops_local_variable_*: 2 x (sin x + 2 x 3 x 3
   * (sin x + 1)) */
  if (loss_of_x(ctx, "test_stacked_inner_loops_local_variable",
                AT(stacked_inner_loops_local_variable),
                AT(stacked_inner_loops_local_variable_grad),
                AT(stacked_inner_loops_local_variable_fwd), AT(l_stacked_get),
                AT(l_stacked_set), AT(l_stacked_grad_set),
                AT(l_stacked_dual_get), FIELD(L_STACKED), x,
                2 * (s + 18 * (s + 1)), 2 * 19 * cs))
    return 1;
  /* test_stacked_mixed_ib_and_non_ib_inner_loops_local_variable_*:
   * 2 x (sin x + 3 x 9 (sin x + 1)) */
  if (loss_of_x(ctx, "test_stacked_mixed_ib_and_non_ib_inner_loops",
                AT(stacked_mixed_inner_loops),
                AT(stacked_mixed_inner_loops_grad),
                AT(stacked_mixed_inner_loops_fwd), AT(l_stacked_mixed_get),
                AT(l_stacked_mixed_set), AT(l_stacked_mixed_grad_set),
                AT(l_stacked_mixed_dual_get), FIELD(L_STACKED_MIXED), x,
                2 * (s + 27 * (s + 1)), 2 * 28 * cs))
    return 1;

  /* test_large_for_loops_*: 5 x 2000 x 1000 atomic adds, no carried local */
  CHECK(AT(lg_x_set)(ctx, (float)x));
  CHECK(AT(lg_loss_set)(ctx, 0.0f));
  CHECK(AT(tape_begin)(ctx));
  CHECK(AT(large_loop)(ctx));
  CHECK(AT(tape_end)(ctx));
  CHECK(AT(tape_backward)(ctx, FIELD(LG_LOSS)));
  CHECK(AT(lg_loss_get)(ctx, &v));
  near32s("test_large_for_loops: loss", v, 1e7 * (s + 1));
  CHECK(AT(lg_x_grad_get)(ctx, &v));
  near32s("test_large_for_loops: x.grad", v, 1e7 * cs);

  /* test_multiple_ib_deeper_non_scalar: y[j] = (j + 3 j + 6 j) x[j] */
  {
    float one[10], y[10];
    fill32(one, 10, 1.0f);
    for (j = 0; j < 10; ++j) {
      want2[j] = j + 3.0 * j + 3.0 * 2 * j;
      want[j] = want2[j] * one[j];
    }
    CHECK(AT(ib_x_write)(ctx, one, 10));
    fill32(y, 10, 0.0f);
    CHECK(AT(ib_y_write)(ctx, y, 10));
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(ib_y_grad_write)(ctx, one, 10));
    CHECK(AT(ib_deeper_non_scalar)(ctx));
    CHECK(AT(ib_deeper_non_scalar_grad)(ctx));
    CHECK(AT(ib_y_read)(ctx, y, 10));
    near32("test_multiple_ib_deeper_non_scalar: y", y, want, 10);
    CHECK(AT(ib_x_grad_read)(ctx, g, 10));
    near32("test_multiple_ib_deeper_non_scalar: x.grad", g, want2, 10);
    fill32(y, 10, 0.0f);
    CHECK(AT(ib_y_write)(ctx, y, 10));
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(ib_x_dual_write)(ctx, one, 10));
    CHECK(AT(ib_deeper_non_scalar_fwd)(ctx));
    CHECK(AT(ib_y_dual_read)(ctx, g, 10));
    near32("test_ad_for_fwd.py::test_multiple_ib_deeper_non_scalar: y.dual", g,
           want2, 10);
  }

  /* test_multiple_ib_inner_mixed:
   * y = 2 (3 + 3 (2 + 2 (1 + 2)) + 3 x 2 x 2) x */
  {
    const double n = 2 * (3 + 3 * (2 + 2 * (1 + 2)) + 3 * 2 * 2);
    CHECK(AT(im2_x_set)(ctx, 1.0f));
    CHECK(AT(im2_y_set)(ctx, 0.0f));
    CHECK(AT(tape_begin)(ctx));
    CHECK(AT(ib_inner_mixed)(ctx));
    CHECK(AT(tape_end)(ctx));
    CHECK(AT(tape_backward)(ctx, FIELD(IM2_Y)));
    CHECK(AT(im2_y_get)(ctx, &v));
    near32s("test_multiple_ib_inner_mixed: y", v, n * 1.0);
    CHECK(AT(im2_x_grad_get)(ctx, &v));
    near32s("test_multiple_ib_inner_mixed: x.grad", v, n);
    CHECK(AT(im2_y_set)(ctx, 0.0f));
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(im2_x_dual_set)(ctx, 1.0f));
    CHECK(AT(ib_inner_mixed_fwd)(ctx));
    CHECK(AT(im2_y_dual_get)(ctx, &v));
    near32s("test_ad_for_fwd.py::test_multiple_ib_inner_mixed: y.dual", v, n);
  }

  /* test_ib_global_load: p[i] += i (b[i] times), then p[i] = a[i] i */
  {
    float a[10], one[10];
    int32_t b[10];
    fill32(one, 10, 1.0f);
    for (i = 0; i < 10; ++i) {
      a[i] = (float)i;
      b[i] = 2;
      want[i] = (double)a[i] * i;
      want2[i] = i;
    }
    CHECK(AT(gl_a_write)(ctx, a, 10));
    CHECK(AT(gl_b_write)(ctx, b, 10));
    CHECK(AT(ib_global_load)(ctx));
    CHECK(AT(gl_p_read)(ctx, g, 10));
    near32("test_ib_global_load: p", g, want, 10);
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(gl_p_grad_write)(ctx, one, 10));
    CHECK(AT(ib_global_load_grad)(ctx));
    CHECK(AT(gl_a_grad_read)(ctx, g, 10));
    near32("test_ib_global_load: a.grad", g, want2, 10);
  }

  /* test_for_loop_index: loss = sum_i exp(sum_j x[i, j]) */
  {
    const float xs[4] = {-0.57279384f, 0.7815071f, 0.45064202f, -0.299493f};
    for (i = 0; i < 2; ++i)
      for (j = 0; j < 2; ++j)
        want[i * 2 + j] = exp((double)xs[i * 2] + (double)xs[i * 2 + 1]);
    CHECK(AT(fl_x_write)(ctx, xs, 4));
    CHECK(AT(fl_loss_set)(ctx, 0.0f));
    CHECK(AT(clear_grads)(ctx));
    CHECK(AT(for_loop_index)(ctx));
    CHECK(AT(fl_loss_grad_set)(ctx, 1.0f));
    CHECK(AT(for_loop_index_grad)(ctx));
    CHECK(AT(fl_x_grad_read)(ctx, g, 4));
    near32("test_for_loop_index: x.grad", g, want, 4);
  }
  return 0;
}

/* ------------------------------------------------------- A, FW, M ---- */
/* Taichi's polar_decompose2d: r = [[c, -s], [s, c]], (c, s) the direction
 * of (F00 + F11, F10 - F01) */
static void polar_r(const double F[4], double r[4]) {
  double x = F[0] + F[3], y = F[2] - F[1], sc = 1.0 / sqrt(x * x + y * y);
  r[0] = x * sc;
  r[1] = -y * sc;
  r[2] = y * sc;
  r[3] = x * sc;
}

static int fwd_and_rest(ctx_t *ctx) {
  float x[16], g[16], one[16], v;
  double want[16], sum = 0, dsum = 0;
  int i, t;
  fill32(one, 16, 1.0f);

  /* test_ad_reduce: loss = sum x^2, x = i */
  for (i = 0; i < 16; ++i) {
    x[i] = (float)i;
    want[i] = 2.0 * x[i];
    sum += (double)x[i] * x[i];
    dsum += 2.0 * x[i];
  }
  CHECK(AT(ar_x_write)(ctx, x, 16));
  CHECK(AT(ar_loss_set)(ctx, 0.0f));
  CHECK(AT(clear_grads)(ctx));
  CHECK(AT(ar_loss_grad_set)(ctx, 1.0f));
  CHECK(AT(reduce)(ctx));
  CHECK(AT(reduce_grad)(ctx));
  CHECK(AT(ar_loss_get)(ctx, &v));
  near32s("test_ad_reduce: loss", v, sum);
  CHECK(AT(ar_x_grad_read)(ctx, g, 16));
  near32("test_ad_reduce: x.grad", g, want, 16);
  /* test_ad_reduce_fwd: seed 1 everywhere */
  CHECK(AT(ar_loss_set)(ctx, 0.0f));
  CHECK(AT(clear_duals)(ctx));
  CHECK(AT(ar_x_dual_write)(ctx, one, 16));
  CHECK(AT(reduce_fwd)(ctx));
  CHECK(AT(ar_loss_get)(ctx, &v));
  near32s("test_ad_reduce_fwd: loss", v, sum);
  CHECK(AT(ar_loss_dual_get)(ctx, &v));
  near32s("test_ad_reduce_fwd: loss.dual", v, dsum);

  /* test_ad_fwd_add: loss[1] += 2 x[3], seed e_3 */
  {
    const float seed_add[5] = {0, 0, 0, 1, 0}, seed_mul[5] = {0, 0, 0, 1, 1};
    for (i = 0; i < 5; ++i)
      x[i] = (float)i;
    CHECK(AT(fw_x_write)(ctx, x, 5));
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(fw_x_dual_write)(ctx, seed_add, 5));
    CHECK(AT(ad_fwd_add_fwd)(ctx));
    CHECK(AT(fw_loss_dual_get)(ctx, 1, &v));
    near32s("test_ad_fwd_add: loss.dual[1]", v, 2.0 * seed_add[3]);
    /* test_ad_fwd_multiply: loss[1] += x[3] x[4], seed e_3 + e_4 */
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(fw_x_dual_write)(ctx, seed_mul, 5));
    CHECK(AT(ad_fwd_multiply_fwd)(ctx));
    CHECK(AT(fw_loss_dual_get)(ctx, 1, &v));
    near32s("test_ad_fwd_multiply: loss.dual[1]", v,
            (double)seed_mul[3] * x[4] + (double)x[3] * seed_mul[4]);
  }

  /* test_multiple_calls: loss_1 += 3 b1^2 + 5 a3^2, loss_2 += 4 b2^2 +
   * 6 a4^2; a = b = i; each FwdMode seeds one parameter with ones */
  for (i = 0; i < 5; ++i)
    x[i] = (float)i;
  CHECK(AT(mc_a_write)(ctx, x, 5));
  CHECK(AT(mc_b_write)(ctx, x, 5));
  for (t = 0; t < 4; ++t) {
    static const char *what[4] = {"test_multiple_calls: loss_1.dual (param a)",
                                  "test_multiple_calls: loss_1.dual (param b)",
                                  "test_multiple_calls: loss_2.dual (param b)",
                                  "test_multiple_calls: loss_2.dual (param a)"};
    const double expect[4] = {10.0 * x[3], 6.0 * x[1], 8.0 * x[2], 12.0 * x[4]};
    CHECK(AT(clear_duals)(ctx));
    if (t == 0 || t == 3)
      CHECK(AT(mc_a_dual_write)(ctx, one, 5));
    else
      CHECK(AT(mc_b_dual_write)(ctx, one, 5));
    CHECK(AT(multiple_calls_fwd)(ctx));
    if (t < 2)
      CHECK(AT(mc_loss_1_dual_get)(ctx, &v));
    else
      CHECK(AT(mc_loss_2_dual_get)(ctx, &v));
    near32s(what[t], v, expect[t]);
  }

  /* test_clear_all_dual_field: y = x^2, loss += y; five FwdModes, each
   * clearing the duals: y.dual = 2 x every time */
  CHECK(AT(cd_x_set)(ctx, 2.0f));
  CHECK(AT(cd_y_set)(ctx, 3.0f));
  for (t = 0; t < 5; ++t) {
    CHECK(AT(clear_duals)(ctx));
    CHECK(AT(cd_x_dual_set)(ctx, 1.0f));
    CHECK(AT(clear_dual_test_fwd)(ctx));
    CHECK(AT(cd_y_dual_get)(ctx, &v));
    near32s("test_clear_all_dual_field: y.dual", v, 2.0 * 2.0);
  }

  /* test_polar_decompose_2D: F_1 += R of F under a tape (what Taichi
   * runs); then F_1.grad = W through the adjoint against central
   * differences of sum W o R(F) */
  {
    const float F[4] = {1.2f, 0.3f, -0.4f, 0.9f};
    const double W[4] = {0.7, -1.1, 0.4, 2.0};
    float gw[4], F1[4];
    double Fd[4], r[4], rp[4], rm[4], dF[4];
    int k;
    for (k = 0; k < 4; ++k)
      Fd[k] = F[k];
    polar_r(Fd, r);
    for (k = 0; k < 4; ++k) {
      const double h = 1e-6;
      double Fp[4], Fm[4], sp = 0, sm = 0;
      int m;
      memcpy(Fp, Fd, sizeof Fp);
      memcpy(Fm, Fd, sizeof Fm);
      Fp[k] += h;
      Fm[k] -= h;
      polar_r(Fp, rp);
      polar_r(Fm, rm);
      for (m = 0; m < 4; ++m) {
        sp += W[m] * rp[m];
        sm += W[m] * rm[m];
      }
      dF[k] = (sp - sm) / (2 * h);
    }
    CHECK(AT(pd_F_set)(ctx, F));
    CHECK(AT(tape_begin)(ctx));
    CHECK(AT(polar_decompose_2D)(ctx));
    CHECK(AT(tape_end)(ctx));
    CHECK(AT(tape_backward)(ctx, FIELD(PD_LOSS)));
    CHECK(AT(pd_F_1_get)(ctx, F1));
    near32("test_polar_decompose_2D: F_1 = R", F1, r, 4);
    CHECK(AT(pd_F_grad_get)(ctx, gw));
    fill64(want, 4, 0.0);
    near32("test_polar_decompose_2D: F.grad (loss independent of F)", gw, want,
           4);
    CHECK(AT(clear_grads)(ctx));
    for (k = 0; k < 4; ++k)
      gw[k] = (float)W[k];
    CHECK(AT(pd_F_1_grad_set)(ctx, gw));
    CHECK(AT(polar_decompose_2D_grad)(ctx));
    CHECK(AT(pd_F_grad_get)(ctx, gw));
    near32("test_polar_decompose_2D: F.grad of sum W o R", gw, dF, 4);
  }
  return 0;
}

int main(void) {
  ctx_t *ctx = NULL;
  CHECK(AT(create)(NULL, &ctx));
  if (basics(ctx) || misc(ctx) || ifs(ctx) || fors(ctx) || inner_loops(ctx) ||
      fwd_and_rest(ctx)) {
    AT(destroy)(ctx);
    return 1;
  }
  AT(destroy)(ctx);
  if (tic_test_failures) {
    fprintf(stderr, "autodiff_taichi: %d checks failed\n", tic_test_failures);
    return 1;
  }
  printf("autodiff_taichi: Taichi 1.7.4's autodiff expectations hold\n");
  return 0;
}

#include "math_builtins.h"
#define LAST_ERROR math_builtins_last_error
#include "common.h"

#define N MATH_BUILTINS_CONST_N
#define OPS MATH_BUILTINS_CONST_OPS

static const char *names[OPS] = {"sin", "cos", "tan", "asin", "acos", "atan2", "tanh",
                                 "exp", "log", "sqrt", "rsqrt", "pow", "abs", "floor",
                                 "ceil", "round", "min", "max", "clamp", "select", "**"};

/* Reference in double for both precisions. round: half away from zero. */
static void reference(double a, double b, double *w) {
  double c = a * 2.0;
  w[0] = sin(a * 3.0);
  w[1] = cos(a * 3.0);
  w[2] = tan(a);
  w[3] = asin(a);
  w[4] = acos(a);
  w[5] = atan2(a, b - 2.0);
  w[6] = tanh(a * 4.0);
  w[7] = exp(a * 5.0);
  w[8] = log(b);
  w[9] = sqrt(b);
  w[10] = 1.0 / sqrt(b);
  w[11] = pow(b, a * 3.0);
  w[12] = fabs(a);
  w[13] = floor(a * 7.5);
  w[14] = ceil(a * 7.5);
  w[15] = round(a * 7.5);
  w[16] = a < b - 2.0 ? a : b - 2.0;
  w[17] = a > b - 2.0 ? a : b - 2.0;
  w[18] = c < -0.5 ? -0.5 : c > 0.75 ? 0.75 : c;
  w[19] = a > 0.0 ? a : b;
  w[20] = pow(b, 2.5);
}

int main(void) {
  math_builtins_ctx *ctx = NULL;
  static float x32[N], y32[N], r32[N * OPS];
  static double x64[N], y64[N], r64[N * OPS];
  static double g[N], w[N], want[OPS];
  static int32_t ia[N], ib[N], ir[N * 4];
  static long long gi[N * 4], wi[N * 4];
  int i, k;
  CHECK(math_builtins_create(NULL, &ctx));
  for (i = 0; i < N; ++i) {
    double a = -0.995 + 1.99 * i / (N - 1);
    double b = 0.5 + 3.5 * ((i * 37) % N) / (double)N;
    if (i == 100) a = 0.2; /* 7.5 * a = 1.5: round half away from zero */
    if (i == 101) a = -0.2;
    x32[i] = (float)a;
    y32[i] = (float)b;
    x64[i] = a;
    y64[i] = b;
  }
  CHECK(math_builtins_x32_write(ctx, x32, N));
  CHECK(math_builtins_y32_write(ctx, y32, N));
  CHECK(math_builtins_x64_write(ctx, x64, N));
  CHECK(math_builtins_y64_write(ctx, y64, N));
  CHECK(math_builtins_math32(ctx));
  CHECK(math_builtins_math64(ctx));
  CHECK(math_builtins_r32_read(ctx, r32, N * OPS));
  CHECK(math_builtins_r64_read(ctx, r64, N * OPS));
  for (k = 0; k < OPS; ++k) {
    char what[32];
    /* f32: inputs are the f32 values, reference in double, f32 tolerance */
    for (i = 0; i < N; ++i) {
      reference((double)x32[i], (double)y32[i], want);
      g[i] = r32[i * OPS + k];
      w[i] = want[k];
    }
    sprintf(what, "f32 %s", names[k]);
    compare_f64(what, g, w, N, 2e-6, 2e-6);
    for (i = 0; i < N; ++i) {
      reference(x64[i], y64[i], want);
      g[i] = r64[i * OPS + k];
      w[i] = want[k];
    }
    sprintf(what, "f64 %s", names[k]);
    compare_f64(what, g, w, N, 1e-14, 1e-15);
  }

  for (i = 0; i < N; ++i) {
    ia[i] = (i * 7919) % 201 - 100;
    ib[i] = (i * 104729) % 151 - 75;
  }
  CHECK(math_builtins_ia_write(ctx, ia, N));
  CHECK(math_builtins_ib_write(ctx, ib, N));
  CHECK(math_builtins_int_math(ctx));
  CHECK(math_builtins_ir_read(ctx, ir, N * 4));
  for (i = 0; i < N; ++i) {
    int a = ia[i], b = ib[i], hi = b + 50;
    int c = a < -20 ? -20 : a;
    c = c > hi ? hi : c;
    wi[i * 4] = a < 0 ? -a : a;
    wi[i * 4 + 1] = a < b ? a : b;
    wi[i * 4 + 2] = a > b ? a : b;
    wi[i * 4 + 3] = c;
    for (k = 0; k < 4; ++k) gi[i * 4 + k] = ir[i * 4 + k];
  }
  compare_i64("int", gi, wi, N * 4);

  {
    const float v[3] = {-2.25f, 0.5f, 9.0f};
    float r[3], rw[3];
    CHECK(math_builtins_vec_math(ctx, v, r));
    for (k = 0; k < 3; ++k)
      rw[k] = sqrtf(fabsf(v[k])) + floorf(v[k]) + (v[k] > 0 ? v[k] : 0.0f);
    compare_f32("vec_math", r, rw, 3, 1e-6, 0);
  }
  math_builtins_destroy(ctx);
  return TEST_RESULT();
}

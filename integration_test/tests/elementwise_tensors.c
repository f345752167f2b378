/* Elementwise builtins and conversions on vec2, vec3, mat2, mat3 against a
 * plain C reference computed here, component by component. */
#include "elementwise_tensors.h"
#define LAST_ERROR elementwise_tensors_last_error
#include "common.h"

#include <stdint.h>

#define N ELEMENTWISE_TENSORS_CONST_N
#define OPS ELEMENTWISE_TENSORS_CONST_OPS
#define IOPS ELEMENTWISE_TENSORS_CONST_IOPS
#define DOPS ELEMENTWISE_TENSORS_CONST_DOPS
#define MAXC 9

static const char *names[OPS] = {
    "sin", "cos", "tan", "asin", "acos", "atan2", "tanh", "exp",
    "log", "sqrt", "rsqrt", "pow", "abs", "floor", "ceil", "round",
    "min", "max(s)", "clamp", "select", "**2.5", "neg", "f32(i32)", "**2",
    "min3", "max3", "abs(a)**b"};
static const char *inames[IOPS] = {"i32", "cast<i32>", "abs", "min", "max",
                                   "clamp", "neg", "//", "%"};
static const char *dnames[DOPS] = {"f64*3", "cast<f64>", "f64(i32)*0.5"};

/* Python floor division and modulo on i32. */
static int32_t floordiv(int32_t a, int32_t b) {
  int32_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static int32_t pymod(int32_t a, int32_t b) {
  int32_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

/* Reference for one component; float steps are rounded as the kernel's f32
 * arithmetic rounds them, transcendental functions are computed in double. */
static void reference(float a, float b, double *w, int32_t *wi, double *wd) {
  float a3 = a * 3.0f, a75 = a * 7.5f, c = a * 2.0f;
  int32_t ia = (int32_t)a75, ib = (int32_t)(b * 3.0f);
  w[0] = sin(a3);
  w[1] = cos(a3);
  w[2] = tan(a);
  w[3] = asin(a);
  w[4] = acos(a);
  w[5] = atan2(a, b - 2.0f);
  w[6] = tanh(a * 4.0f);
  w[7] = exp(a * 5.0f);
  w[8] = log(b);
  w[9] = sqrt(b);
  w[10] = 1.0 / sqrt(b);
  w[11] = pow(b, a3);
  w[12] = fabsf(a);
  w[13] = floorf(a75);
  w[14] = ceilf(a75);
  w[15] = roundf(a75);
  w[16] = a < b - 2.0f ? a : b - 2.0f;
  w[17] = a > 0.25f ? a : 0.25f;
  w[18] = c < -0.5f ? -0.5f : c > 0.75f ? 0.75f : c;
  w[19] = a > 0.0f ? a : b;
  w[20] = pow(b, 2.5);
  w[21] = -a;
  w[22] = (float)ia;
  w[23] = a * a;
  w[24] = a < b ? a : b;
  w[24] = w[24] < a * 0.5f ? w[24] : a * 0.5f;
  w[25] = a > b - 2.0f ? a : b - 2.0f;
  w[25] = w[25] > 0.25f ? w[25] : 0.25f;
  w[26] = pow(fabsf(a), b);
  wi[0] = ia;
  wi[1] = ib;
  wi[2] = ia < 0 ? -ia : ia;
  wi[3] = ia < ib ? ia : ib;
  wi[4] = ia > ib ? ia : ib;
  wi[5] = ia < -3 ? -3 : ia > 2 ? 2 : ia;
  wi[6] = -ia;
  wi[7] = floordiv(ia, 2);
  wi[8] = pymod(ia, 3);
  wd[0] = (double)a * 3.0;
  wd[1] = (double)b;
  wd[2] = (double)ia * 0.5;
}

typedef tc_status (*write_f32)(elementwise_tensors_ctx *, const float *, size_t);
typedef tc_status (*read_f32)(elementwise_tensors_ctx *, float *, size_t);
typedef tc_status (*read_i32)(elementwise_tensors_ctx *, int32_t *, size_t);
typedef tc_status (*read_f64)(elementwise_tensors_ctx *, double *, size_t);
typedef tc_status (*kernel_fn)(elementwise_tensors_ctx *);

struct shape {
  const char *name;
  size_t comps;
  write_f32 wx, wy;
  kernel_fn run;
  read_f32 rr;
  read_i32 ri;
  read_f64 rd;
};

static int check_shape(elementwise_tensors_ctx *ctx, const struct shape *s) {
  static float x[N * MAXC], y[N * MAXC], r[N * OPS * MAXC];
  static int32_t ri[N * IOPS * MAXC];
  static double rd[N * DOPS * MAXC];
  size_t C = s->comps, i, k, c;
  int bad = 0, ibad = 0, dbad = 0;
  char what[64];
  for (i = 0; i < N; ++i)
    for (c = 0; c < C; ++c) {
      /* Distinct values in every component, so that a component taken from
       * the wrong place is noticed. */
      size_t j = i * C + c;
      x[j] = (float)(-0.995 + 1.99 * (double)((j * 29) % (N * C)) / (N * C - 1));
      y[j] = (float)(0.5 + 3.5 * (double)((j * 17 + 5) % (N * C)) / (N * C));
    }
  x[0] = 0.2f; /* 7.5 * a = 1.5: rounding half away from zero */
  x[1] = -0.2f;
  CHECK(s->wx(ctx, x, N * C));
  CHECK(s->wy(ctx, y, N * C));
  CHECK(s->run(ctx));
  CHECK(s->rr(ctx, r, N * OPS * C));
  CHECK(s->ri(ctx, ri, N * IOPS * C));
  CHECK(s->rd(ctx, rd, N * DOPS * C));
  for (i = 0; i < N; ++i)
    for (c = 0; c < C; ++c) {
      double w[OPS], wd[DOPS];
      int32_t wi[IOPS];
      reference(x[i * C + c], y[i * C + c], w, wi, wd);
      for (k = 0; k < OPS; ++k) {
        sprintf(what, "%s %s comp %lu", s->name, names[k], (unsigned long)c);
        check_close(what, i, r[(i * OPS + k) * C + c], w[k], 2e-6, 2e-6, &bad);
      }
      for (k = 0; k < IOPS; ++k) {
        int32_t got = ri[(i * IOPS + k) * C + c];
        if (got != wi[k]) {
          if (ibad < 10)
            fprintf(stderr, "%s %s comp %lu [%lu]: got %d, want %d\n", s->name,
                    inames[k], (unsigned long)c, (unsigned long)i, (int)got,
                    (int)wi[k]);
          ++ibad;
        }
      }
      for (k = 0; k < DOPS; ++k) {
        sprintf(what, "%s %s comp %lu", s->name, dnames[k], (unsigned long)c);
        check_close(what, i, rd[(i * DOPS + k) * C + c], wd[k], 0, 0, &dbad);
      }
    }
  report_mismatches(s->name, bad, N * OPS * C);
  report_mismatches(s->name, ibad, N * IOPS * C);
  report_mismatches(s->name, dbad, N * DOPS * C);
  return 0;
}

int main(void) {
  elementwise_tensors_ctx *ctx = NULL;
  size_t s;
  const struct shape shapes[] = {
      {"vec2", 2, elementwise_tensors_x2_write, elementwise_tensors_y2_write,
       elementwise_tensors_ew_vec2, elementwise_tensors_r2_read,
       elementwise_tensors_i2_read, elementwise_tensors_d2_read},
      {"vec3", 3, elementwise_tensors_x3_write, elementwise_tensors_y3_write,
       elementwise_tensors_ew_vec3, elementwise_tensors_r3_read,
       elementwise_tensors_i3_read, elementwise_tensors_d3_read},
      {"mat2", 4, elementwise_tensors_xm2_write, elementwise_tensors_ym2_write,
       elementwise_tensors_ew_mat2, elementwise_tensors_rm2_read,
       elementwise_tensors_im2_read, elementwise_tensors_dm2_read},
      {"mat3", 9, elementwise_tensors_xm3_write, elementwise_tensors_ym3_write,
       elementwise_tensors_ew_mat3, elementwise_tensors_rm3_read,
       elementwise_tensors_im3_read, elementwise_tensors_dm3_read},
  };
  CHECK(elementwise_tensors_create(NULL, &ctx));
  for (s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    if (check_shape(ctx, &shapes[s]))
      return 1;
  elementwise_tensors_destroy(ctx);
  if (tic_test_failures) {
    fprintf(stderr, "FAILED\n");
    return 1;
  }
  printf("elementwise_tensors: all components match\n");
  return 0;
}

/* Constant folding in double, rounded once: bit-exact against C. */
#include "float_constants.h"
#define LAST_ERROR float_constants_last_error
#include "common.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_E
#define M_E 2.71828182845904523536
#endif

static int bad = 0;
static void same_f32(const char *what, float got, float want) {
  if (memcmp(&got, &want, sizeof got) != 0) {
    fprintf(stderr, "%s: got %.9g, want %.9g\n", what, got, want);
    ++bad;
  }
}
static void same_f64(const char *what, double got, double want) {
  if (memcmp(&got, &want, sizeof got) != 0) {
    fprintf(stderr, "%s: got %.17g, want %.17g\n", what, got, want);
    ++bad;
  }
}

int main(void) {
  float_constants_ctx *ctx = NULL;
  float r[8];
  double d[8];
  const double x = 1.2345678901234567;
  const float y = 0.3f;
  CHECK(float_constants_create(NULL, &ctx));
  CHECK(float_constants_consts(ctx, x, y));
  CHECK(float_constants_r_read(ctx, r, 8));
  CHECK(float_constants_d_read(ctx, d, 8));
  same_f32("315/64/pi", r[0], (float)(315.0 / 64.0 / M_PI));
  same_f32("0.75*dt", r[1], (float)(0.75 * 0.03));
  same_f32("1-1/tau", r[2], (float)(1.0 - 1.0 / 0.53));
  same_f32("1/n*sqrt(2)", r[3], (float)(1.0 / 7.0 * sqrt(2.0)));
  same_f32("y*(2/3)", r[4], y * (float)(2.0 / 3.0));
  same_f32("e", r[5], (float)M_E);
  same_f64("x*0.1", d[0], x * 0.1);
  same_f64("poly6 in f64", d[1], 315.0 / 64.0 / M_PI);
  same_f64("gamma-1", d[2], 1.4 - 1.0);
  same_f64("f64(0.02)+x", d[3], 0.02 + x);
  same_f64("acc+=0.7", d[4], x + 0.7);
  same_f64("1/3 in f64", d[5], 1.0 / 3.0);
  same_f64("2*pi*x", d[6], 2.0 * M_PI * x);
  float_constants_destroy(ctx);
  if (bad) {
    fprintf(stderr, "FAILED: %d values differ\n", bad);
    return 1;
  }
  printf("float_constants: all values bit-exact\n");
  return 0;
}

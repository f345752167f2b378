/* Runs itself once per x86-64 level (TIC_CPU_LEVEL=1..4): each version of
 * the kernels must give the C reference's values, bit for bit (tic does not
 * contract a*b+c into FMAs unless asked, so every level rounds alike). */
#include "cpu_dispatch.h"
#define LAST_ERROR cpu_dispatch_last_error
#include "common.h"

#include <tic/rt.h>

#define N CPU_DISPATCH_CONST_N

static int child(void) {
  cpu_dispatch_ctx *ctx = NULL;
  static float x[N], y[N], want_y[N];
  static double z[N], want_z[N];
  double s = 0, want_s = 0;
  int i, bad = 0;
  for (i = 0; i < N; ++i) {
    x[i] = (float)((i * 7919) % 1000) * 0.013f - 6.5f;
    y[i] = (float)i * 0.25f;
    want_y[i] = 2.5f * x[i] + y[i];
    want_z[i] = (double)x[i] * 0.5 + sqrt((double)fabsf(x[i]));
  }
  CHECK(cpu_dispatch_create(NULL, &ctx));
  CHECK(cpu_dispatch_x_write(ctx, x, N));
  CHECK(cpu_dispatch_y_write(ctx, y, N));
  CHECK(cpu_dispatch_saxpy(ctx, 2.5f));
  CHECK(cpu_dispatch_mixed(ctx, &s));
  CHECK(cpu_dispatch_y_read(ctx, y, N));
  CHECK(cpu_dispatch_z_read(ctx, z, N));
  for (i = 0; i < N; ++i) {
    bad += memcmp(&y[i], &want_y[i], sizeof y[i]) != 0;
    bad += memcmp(&z[i], &want_z[i], sizeof z[i]) != 0;
    want_s += want_z[i];
  }
  /* The sum's order depends on the thread chunks, not on the level. */
  if (fabs(s - want_s) > 1e-9 * fabs(want_s))
    ++bad;
  printf("level %d: %d mismatches\n", (int)tic_rt_cpu_level(), bad);
  cpu_dispatch_destroy(ctx);
  return bad != 0;
}

int main(int argc, char **argv) {
  char cmd[4096];
  int level, failed = 0;
  if (argc > 1 && strcmp(argv[1], "--child") == 0)
    return child();
  for (level = 1; level <= 4; ++level) {
    if (strlen(argv[0]) > 3000)
      return 1;
    sprintf(cmd, "TIC_CPU_LEVEL=%d '%s' --child", level, argv[0]);
    if (system(cmd) != 0) {
      fprintf(stderr, "TIC_CPU_LEVEL=%d: FAILED\n", level);
      failed = 1;
    }
  }
  return failed;
}

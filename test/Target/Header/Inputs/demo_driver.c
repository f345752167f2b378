/* Driver of e2e-dense.mlir: uses the generated demo.h and the object. */
#include "demo.h"

#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    tc_status st_ = (call);                                                    \
    if (st_ != TC_OK) {                                                        \
      printf("FAILED %s: %s\n", #call, demo_last_error(ctx));                  \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(void) {
  demo_ctx *ctx = NULL;
  tc_options opts;
  float u[15], arr[15], x[12], r[2], v;
  int64_t ushape[] = DEMO_U_SHAPE;
  tc_ndarray a;
  int i;
  tc_options_init(&opts);
  opts.num_threads = 2;
  if (demo_create(&opts, &ctx) != TC_OK) {
    printf("create: %s\n", demo_last_error(NULL));
    return 1;
  }
  printf("ok\n");
  for (i = 0; i < 15; ++i)
    CHECK(demo_u_set(ctx, i / 3, i % 3, (float)i));
  CHECK(demo_u_read(ctx, u, DEMO_U_SIZE));
  printf("u");
  for (i = 0; i < 15; ++i) printf(" %g", u[i]);
  printf("\n");
  CHECK(demo_scale(ctx, 2.0f));
  CHECK(demo_u_read(ctx, u, 15));
  printf("scaled");
  for (i = 0; i < 15; ++i) printf(" %g", u[i]);
  printf("\n");
  CHECK(demo_u_get(ctx, 4, 2, &v));
  printf("u[4,2] = %g\n", v);
  printf("oob: %d", (int)demo_u_get(ctx, 0, 3, &v));
  printf(" %s\n", demo_last_error(ctx));
  printf("count: %d", (int)demo_u_read(ctx, u, 14));
  printf(" %s\n", demo_last_error(ctx));

  for (i = 0; i < 15; ++i) arr[i] = (float)i;
  memset(&a, 0, sizeof a);
  a.data = arr;
  a.ndim = 1; /* wrong rank */
  a.shape[0] = 15;
  a.dtype = TC_DTYPE_F32;
  printf("ndarray: %d\n", (int)demo_load_u(ctx, a, 0.5f));
  a.ndim = 2;
  a.shape[0] = ushape[0];
  a.shape[1] = ushape[1];
  CHECK(demo_load_u(ctx, a, 0.5f));
  CHECK(demo_u_read(ctx, u, 15));
  printf("loaded %g %g %g\n", u[0], u[1], u[2]);

  {
    float x0[3] = {1.0f, 2.0f, 3.0f};
    CHECK(demo_x_set(ctx, 0, x0));
    CHECK(demo_pair(ctx, 0, r));
    printf("pair %g %g\n", r[0], r[1]);
  }
  CHECK(demo_x_read(ctx, x, DEMO_X_SIZE));
  printf("x");
  for (i = 0; i < 12; ++i) printf(" %g", x[i]);
  printf("\n");

  CHECK(demo_loss_grad_set(ctx, 5.0f));
  CHECK(demo_clear_grads(ctx));
  CHECK(demo_loss_grad_get(ctx, &v));
  printf("loss.grad %g -> clear_grads %d\n", v, (int)demo_sync(ctx));
  printf("null ctx: %d\n", (int)demo_scale(NULL, 1.0f));
  demo_destroy(ctx);
  printf("done\n");
  return 0;
}

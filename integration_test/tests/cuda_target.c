/* integration.cuda_target: a module compiled with --target=host,cuda. Runs
 * on the context's arch (TIC_ARCH; the CPU by default) and checks host code
 * around launches, a reduction, ndarrays, a serialized loop and random()
 * against C; without a GPU, TC_ARCH_CUDA must fail with TC_ERR_NO_DEVICE
 * and TC_ARCH_ANY fall back to the CPU. */
#include "cuda_target.h"
#define LAST_ERROR cuda_target_last_error
#include "common.h"

#define N CUDA_TARGET_CONST_N

static int run(cuda_target_ctx *ctx) {
  static float x[N], src[N], dst[N], y[N];
  float total, s;
  int32_t count, order[64];
  int i, bad = 0;
  double mean = 0;
  tc_ndarray a, b;
  CHECK(cuda_target_fill(ctx, 0.5f));
  CHECK(cuda_target_x_read(ctx, x, N));
  for (i = 0; i < N; ++i)
    bad += x[i] != 0.5f * (float)i;
  CHECK(cuda_target_total_get(ctx, &total));
  if (total != 0.5f * (float)(N - 1)) {
    fprintf(stderr, "total = %g, expected %g\n", total, 0.5 * (N - 1));
    ++bad;
  }
  CHECK(cuda_target_sum(ctx, &s));
  if (fabs(s - 0.25 * N * (N - 1.0)) > 1e-5 * 0.25 * N * N) {
    fprintf(stderr, "sum = %g, expected %g\n", s, 0.25 * N * (N - 1.0));
    ++bad;
  }
  CHECK(cuda_target_count_positive(ctx));
  CHECK(cuda_target_count_get(ctx, &count));
  if (count != ((int)(0.5f * (float)(N - 1))) % 7 + 1) {
    fprintf(stderr, "count = %d\n", (int)count);
    ++bad;
  }
  for (i = 0; i < N; ++i) {
    src[i] = (float)(i % 13) - 6.0f;
    dst[i] = -100.0f;
  }
  memset(&a, 0, sizeof a);
  a.data = src;
  a.ndim = 1;
  a.shape[0] = N;
  a.dtype = TC_DTYPE_F32;
  b = a;
  b.data = dst;
  CHECK(cuda_target_scale_into(ctx, a, b, 2.0f));
  for (i = 0; i < N; ++i)
    if (dst[i] != 2.0f * src[i] + 1.0f) {
      if (bad < 5)
        fprintf(stderr, "dst[%d] = %g, expected %g\n", i, dst[i],
                2.0f * src[i] + 1.0f);
      ++bad;
    }
  CHECK(cuda_target_serial_order(ctx));
  CHECK(cuda_target_order_read(ctx, order, 64));
  for (i = 0; i < 64; ++i)
    if (order[i] != i * (i + 1) / 2) {
      fprintf(stderr, "order[%d] = %d, expected %d\n", i, (int)order[i],
              i * (i + 1) / 2);
      ++bad;
    }
  CHECK(cuda_target_randomize(ctx));
  CHECK(cuda_target_y_read(ctx, y, N));
  for (i = 0; i < N; ++i) {
    bad += !(y[i] >= 0.0f && y[i] < 1.0f);
    mean += y[i] / N;
  }
  if (fabs(mean - 0.5) > 0.05 || y[0] == y[1]) {
    fprintf(stderr, "random(): mean %g, y[0] %g y[1] %g\n", mean, y[0], y[1]);
    ++bad;
  }
  CHECK(cuda_target_sync(ctx));
  return bad;
}

int main(void) {
  cuda_target_ctx *ctx = NULL;
  tc_options o;
  int bad;
  /* The arch TIC_ARCH asks for (the CPU when unset). */
  CHECK(cuda_target_create(NULL, &ctx));
  bad = run(ctx);
  cuda_target_destroy(ctx);
  /* TC_ARCH_ANY: the GPU when there is one, else the CPU. */
  tc_options_init(&o);
  o.arch = TC_ARCH_ANY;
  ctx = NULL;
  CHECK(cuda_target_create(&o, &ctx));
  bad += run(ctx);
  cuda_target_destroy(ctx);
  /* TC_ARCH_CUDA: works, or says why not. */
  o.arch = TC_ARCH_CUDA;
  ctx = NULL;
  {
    tc_status st = cuda_target_create(&o, &ctx);
    if (st == TC_OK) {
      bad += run(ctx);
      cuda_target_destroy(ctx);
      /* A device memory budget smaller than the fields. */
      o.device_memory_bytes = 64;
      ctx = NULL;
      st = cuda_target_create(&o, &ctx);
      if (st != TC_ERR_OUT_OF_MEMORY ||
          !strstr(cuda_target_last_error(NULL), "device_memory_bytes")) {
        fprintf(stderr, "device_memory_bytes = 64: %s: %s\n",
                tc_status_string(st), cuda_target_last_error(NULL));
        ++bad;
      }
      if (st == TC_OK)
        cuda_target_destroy(ctx);
    } else if (st != TC_ERR_NO_DEVICE ||
               !strstr(cuda_target_last_error(NULL), "CUDA")) {
      fprintf(stderr, "TC_ARCH_CUDA: %s: %s\n", tc_status_string(st),
              cuda_target_last_error(NULL));
      ++bad;
    } else {
      printf("no GPU: %s\n", cuda_target_last_error(NULL));
    }
  }
  if (bad)
    fprintf(stderr, "%d mismatches\n", bad);
  return bad != 0;
}

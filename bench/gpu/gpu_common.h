/* bench/gpu/gpu_common.h - timing and the device's own bandwidth for the GPU
 * benchmarks (scripts/gpu-check.sh). The device bandwidth is measured with
 * the CUDA driver's device-to-device copy (cuMemcpyDtoD of 1 GiB, counting
 * bytes read plus bytes written), loaded with dlopen like libtic_runtime
 * does, so that the benchmarks need no CUDA toolkit to build. */
#ifndef TIC_BENCH_GPU_COMMON_H
#define TIC_BENCH_GPU_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[n / 2];
}

/* Bytes per second of a 1 GiB device-to-device copy (read + write), the
 * median of 20; 0 when the driver cannot be used. Uses the primary context
 * libtic_runtime also uses. */
static double device_copy_bandwidth(void) {
  typedef int (*init_t)(unsigned);
  typedef int (*dev_t)(int *, int);
  typedef int (*retain_t)(void **, int);
  typedef int (*setctx_t)(void *);
  typedef int (*alloc_t)(unsigned long long *, size_t);
  typedef int (*free_t)(unsigned long long);
  typedef int (*d2d_t)(unsigned long long, unsigned long long, size_t);
  typedef int (*sync_t)(void);
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return 0;
  init_t cuInit = (init_t)dlsym(h, "cuInit");
  dev_t cuDeviceGet = (dev_t)dlsym(h, "cuDeviceGet");
  retain_t retain = (retain_t)dlsym(h, "cuDevicePrimaryCtxRetain");
  setctx_t setctx = (setctx_t)dlsym(h, "cuCtxSetCurrent");
  alloc_t alloc = (alloc_t)dlsym(h, "cuMemAlloc_v2");
  free_t mfree = (free_t)dlsym(h, "cuMemFree_v2");
  d2d_t d2d = (d2d_t)dlsym(h, "cuMemcpyDtoD_v2");
  sync_t sync = (sync_t)dlsym(h, "cuCtxSynchronize");
  int dev;
  void *ctx;
  unsigned long long a, b;
  size_t bytes = (size_t)1 << 30;
  double t[20];
  if (!cuInit || cuInit(0) || cuDeviceGet(&dev, 0) || retain(&ctx, dev) ||
      setctx(ctx) || alloc(&a, bytes) || alloc(&b, bytes))
    return 0;
  d2d(b, a, bytes);
  sync();
  for (int i = 0; i < 20; ++i) {
    double t0 = now_s();
    d2d(b, a, bytes);
    sync();
    t[i] = now_s() - t0;
  }
  mfree(a);
  mfree(b);
  return 2.0 * (double)bytes / median(t, 20);
}

#define CHECK(call, ctx, last_error)                                           \
  do {                                                                         \
    tc_status s_ = (call);                                                     \
    if (s_ != TC_OK) {                                                         \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
              last_error(ctx));                                                \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#endif

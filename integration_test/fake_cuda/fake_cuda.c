/* A stand-in for the CUDA driver (libcuda.so.1) for the integration tests
 * (integration.host_cuda.*; RunIntegrationTest.cmake, FAKE_CUDA_DIR).
 *
 * Device memory is host address space mapped PROT_NONE: any access to it
 * from host code faults, so a test run through this driver crashes where
 * generated host code or the runtime would dereference device memory (the
 * root buffer, a pool) instead of copying it, and aborts where it frees
 * device memory twice. Copies and fills open the pages around the access;
 * launches do nothing, so the results are meaningless: only a crash is a
 * failure. Only the entry points the runtime resolves (runtime/src/Cuda.cpp)
 * exist, and the copy the GPU benchmarks time. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef unsigned long long CUdeviceptr;
typedef int CUresult;
enum { kSuccess = 0, kOutOfMemory = 2, kNotFound = 500 };
enum { kPage = 4096 };

struct mapping {
  uintptr_t base;
  size_t bytes;
};
static struct mapping *maps;
static size_t numMaps, capMaps;

static size_t pages(size_t n) { return (n + kPage - 1) / kPage * kPage; }

/* Makes [p, p + n) accessible (prot) or not, page by page. */
static void protect(CUdeviceptr p, size_t n, int prot) {
  uintptr_t a = (uintptr_t)p & ~(uintptr_t)(kPage - 1);
  uintptr_t e = ((uintptr_t)p + n + kPage - 1) & ~(uintptr_t)(kPage - 1);
  mprotect((void *)a, e - a, prot);
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  return kSuccess;
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetName(char *name, int len, int device) {
  (void)device;
  snprintf(name, (size_t)len, "tic fake CUDA device (no kernels run)");
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)attribute;
  (void)device;
  *value = 4; /* multiprocessors */
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  (void)device;
  *ctx = (void *)&maps;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  return kSuccess;
}
CUresult cuCtxSetCurrent(void *ctx) {
  (void)ctx;
  return kSuccess;
}
CUresult cuCtxSynchronize(void) { return kSuccess; }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  size_t bytes = pages(n ? n : 1);
  void *m = mmap(NULL, bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return kOutOfMemory;
  if (numMaps == capMaps) {
    size_t cap = capMaps ? 2 * capMaps : 64;
    struct mapping *grown = realloc(maps, cap * sizeof *maps);
    if (!grown) {
      munmap(m, bytes);
      return kOutOfMemory;
    }
    maps = grown;
    capMaps = cap;
  }
  maps[numMaps].base = (uintptr_t)m;
  maps[numMaps].bytes = bytes;
  ++numMaps;
  *p = (CUdeviceptr)(uintptr_t)m;
  return kSuccess;
}
/* Freeing what is not allocated (twice, say) is a bug of the runtime: the
 * program aborts, and the test fails. */
CUresult cuMemFree_v2(CUdeviceptr p) {
  for (size_t i = 0; i < numMaps; ++i)
    if (maps[i].base == (uintptr_t)p) {
      munmap((void *)maps[i].base, maps[i].bytes);
      maps[i] = maps[--numMaps];
      return kSuccess;
    }
  fprintf(stderr, "fake CUDA driver: cuMemFree of %#llx, not allocated\n", p);
  abort();
}
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
  if (n == 0 || v == 0) /* fresh mappings read as zero */
    return kSuccess;
  protect(p, n, PROT_READ | PROT_WRITE);
  memset((void *)(uintptr_t)p, v, n);
  protect(p, n, PROT_NONE);
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  if (n == 0)
    return kSuccess;
  protect(dst, n, PROT_READ | PROT_WRITE);
  memcpy((void *)(uintptr_t)dst, src, n);
  protect(dst, n, PROT_NONE);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  if (n == 0)
    return kSuccess;
  protect(src, n, PROT_READ);
  memcpy(dst, (const void *)(uintptr_t)src, n);
  protect(src, n, PROT_NONE);
  return kSuccess;
}

/* Not resolved by the runtime; the GPU benchmarks measure copy bandwidth
 * with it (bench/gpu/gpu_common.h). */
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  if (n == 0)
    return kSuccess;
  protect(src, n, PROT_READ);
  protect(dst, n, PROT_READ | PROT_WRITE);
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  protect(dst, n, PROT_NONE);
  protect(src, n, PROT_NONE);
  return kSuccess;
}

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                            int *options, void **values) {
  (void)image;
  (void)n;
  (void)options;
  (void)values;
  *module = (void *)&maps;
  return kSuccess;
}
CUresult cuModuleUnload(void *module) {
  (void)module;
  return kSuccess;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  *function = (void *)name;
  return kSuccess;
}
/* No globals: the runtime then reads no device failure record. */
/* Globals a module's PTX may define: the access-rule flag and state words
 * of tic -g (every module seems to have them, so that tape_begin and
 * tape_end exercise their copies; inaccessible like all device memory).
 * Other names, the failure record among them, are not found. */
CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *bytes, void *module,
                              const char *name) {
  static const char *const names[] = {"__tic_ad_recording", "__tic_ad_state_0",
                                      "__tic_ad_state_1"};
  static const size_t sizes[] = {4, 64, 64};
  static CUdeviceptr globals[3];
  (void)module;
  for (size_t i = 0; i < 3; ++i) {
    if (strcmp(name, names[i]) != 0)
      continue;
    if (!globals[i]) {
      void *m = mmap(NULL, pages(sizes[i]), PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED)
        return kOutOfMemory;
      globals[i] = (CUdeviceptr)(uintptr_t)m;
    }
    *p = globals[i];
    if (bytes)
      *bytes = sizes[i];
    return kSuccess;
  }
  return kNotFound;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)f;
  (void)gx;
  (void)gy;
  (void)gz;
  (void)bx;
  (void)by;
  (void)bz;
  (void)shared;
  (void)stream;
  (void)params;
  (void)extra;
  return kSuccess;
}
CUresult cuGetErrorString(CUresult r, const char **text) {
  (void)r;
  *text = "error of the fake CUDA driver";
  return kSuccess;
}
CUresult cuGetErrorName(CUresult r, const char **name) {
  (void)r;
  *name = "CUDA_ERROR_FAKE";
  return kSuccess;
}

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
 * exist, and the copy the GPU benchmarks time.
 *
 * The virtual memory management API (runtime/src/CudaPools.cpp) checks its
 * rules: reservations and allocations in multiples of the granularity,
 * mappings of whole allocations inside a reservation that do not overlap,
 * access set on mapped ranges only, no reservation freed while mapped. A
 * copy or fill that touches a reserved range where nothing is mapped with
 * access aborts, as a kernel touching it would fault on a GPU.
 *
 * Asynchronous copies (pinned host memory, events) are queued in stream
 * order and done when an event is queried, at a synchronous copy or fill,
 * or at a synchronize: host code that reads a copy's destination before
 * its event reported it done reads stale bytes. fake_cuda_hold_events(1)
 * makes queries answer "not ready" (a device still busy) until
 * fake_cuda_hold_events(0). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef unsigned long long CUdeviceptr;
typedef int CUresult;
enum { kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kNotFound = 500 };
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

/* The virtual memory management API. */
enum { kGranularity = 2 << 20 };
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct {
  int type, id;
} CUmemLocation;
typedef struct {
  int type, requestedHandleTypes;
  CUmemLocation location;
  void *win32HandleMetaData;
  unsigned char allocFlags[8];
} CUmemAllocationProp;
typedef struct {
  CUmemLocation location;
  int flags;
} CUmemAccessDesc;

struct handle {
  size_t bytes;
  int mappings, released;
};
struct vmap {
  uintptr_t at;
  size_t bytes;
  struct handle *h;
  int access;
};
static struct mapping *reservations;
static size_t numReservations, capReservations;
static struct vmap *vmaps;
static size_t numVmaps, capVmaps;

static void fail(const char *what) {
  fprintf(stderr, "fake CUDA driver: %s\n", what);
  abort();
}

static int grow(void **array, size_t *cap, size_t count, size_t size) {
  if (count < *cap)
    return 1;
  size_t n = *cap ? 2 * *cap : 16;
  void *grown = realloc(*array, n * size);
  if (!grown)
    return 0;
  *array = grown;
  *cap = n;
  return 1;
}

/* The reservation holding [p, p + n), or NULL; a range partly in one is a
 * bug of the runtime. */
static struct mapping *reservationOf(uintptr_t p, size_t n) {
  for (size_t i = 0; i < numReservations; ++i) {
    struct mapping *r = &reservations[i];
    if (p >= r->base && p + n <= r->base + r->bytes)
      return r;
    if (p < r->base + r->bytes && p + n > r->base)
      fail("a range runs past the end of a reservation");
  }
  return NULL;
}

/* Device memory copies and fills may touch: anything outside the
 * reservations, and in them mapped ranges with access set. */
static void checkAccess(CUdeviceptr dp, size_t n, const char *what) {
  uintptr_t p = (uintptr_t)dp;
  if (n == 0 || !reservationOf(p, n))
    return;
  while (n > 0) {
    size_t i = 0;
    for (; i < numVmaps; ++i)
      if (p >= vmaps[i].at && p < vmaps[i].at + vmaps[i].bytes)
        break;
    if (i == numVmaps || !vmaps[i].access) {
      fprintf(stderr,
              "fake CUDA driver: %s touches reserved device memory "
              "at %#lx where nothing is mapped read-write\n",
              what, (unsigned long)p);
      abort();
    }
    size_t in = vmaps[i].at + vmaps[i].bytes - p;
    if (in > n)
      in = n;
    p += in;
    n -= in;
  }
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, int device) {
  (void)device;
  *bytes = (size_t)16 << 30;
  return kSuccess;
}
CUresult cuMemGetAllocationGranularity(size_t *g,
                                       const CUmemAllocationProp *prop,
                                       int option) {
  if (!prop || prop->type != 1 || prop->location.type != 1 || option != 0)
    return kInvalidValue;
  *g = kGranularity;
  return kSuccess;
}
CUresult cuMemAddressReserve(CUdeviceptr *p, size_t n, size_t align,
                             CUdeviceptr addr, unsigned long long flags) {
  (void)align;
  (void)addr;
  (void)flags;
  if (n == 0 || n % kGranularity != 0)
    return kInvalidValue;
  void *m = mmap(NULL, n, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED || !grow((void **)&reservations, &capReservations,
                               numReservations, sizeof *reservations))
    return kOutOfMemory;
  reservations[numReservations].base = (uintptr_t)m;
  reservations[numReservations].bytes = n;
  ++numReservations;
  *p = (CUdeviceptr)(uintptr_t)m;
  return kSuccess;
}
CUresult cuMemAddressFree(CUdeviceptr p, size_t n) {
  for (size_t i = 0; i < numReservations; ++i) {
    struct mapping *r = &reservations[i];
    if (r->base != (uintptr_t)p)
      continue;
    if (r->bytes != n)
      fail("cuMemAddressFree with another size than reserved");
    for (size_t k = 0; k < numVmaps; ++k)
      if (vmaps[k].at >= r->base && vmaps[k].at < r->base + r->bytes)
        fail("cuMemAddressFree of a reservation that is still mapped");
    munmap((void *)r->base, r->bytes);
    *r = reservations[--numReservations];
    return kSuccess;
  }
  fail("cuMemAddressFree of what is not reserved");
  return kInvalidValue;
}
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t n,
                     const CUmemAllocationProp *prop,
                     unsigned long long flags) {
  if (flags != 0 || !prop || prop->type != 1 || prop->location.type != 1 ||
      n == 0 || n % kGranularity != 0)
    return kInvalidValue;
  struct handle *m = calloc(1, sizeof *m);
  if (!m)
    return kOutOfMemory;
  m->bytes = n;
  *h = (CUmemGenericAllocationHandle)(uintptr_t)m;
  return kSuccess;
}
CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
  struct handle *m = (struct handle *)(uintptr_t)h;
  if (m->released)
    fail("cuMemRelease of a released allocation");
  m->released = 1;
  if (m->mappings == 0)
    free(m);
  return kSuccess;
}
CUresult cuMemMap(CUdeviceptr p, size_t n, size_t offset,
                  CUmemGenericAllocationHandle h, unsigned long long flags) {
  struct handle *m = (struct handle *)(uintptr_t)h;
  struct mapping *r = reservationOf((uintptr_t)p, n);
  if (!r || offset != 0 || flags != 0 || m->released || n != m->bytes ||
      ((uintptr_t)p - r->base) % kGranularity != 0)
    return kInvalidValue;
  for (size_t i = 0; i < numVmaps; ++i)
    if ((uintptr_t)p < vmaps[i].at + vmaps[i].bytes &&
        (uintptr_t)p + n > vmaps[i].at)
      fail("cuMemMap over a mapped range");
  if (!grow((void **)&vmaps, &capVmaps, numVmaps, sizeof *vmaps))
    return kOutOfMemory;
  vmaps[numVmaps].at = (uintptr_t)p;
  vmaps[numVmaps].bytes = n;
  vmaps[numVmaps].h = m;
  vmaps[numVmaps].access = 0;
  ++numVmaps;
  ++m->mappings;
  return kSuccess;
}
CUresult cuMemUnmap(CUdeviceptr p, size_t n) {
  for (size_t i = 0; i < numVmaps; ++i) {
    if (vmaps[i].at != (uintptr_t)p)
      continue;
    if (vmaps[i].bytes != n)
      fail("cuMemUnmap with another size than mapped");
    struct handle *m = vmaps[i].h;
    /* Unmapped memory reads as zero when mapped again (as fresh). */
    madvise((void *)vmaps[i].at, n, MADV_DONTNEED);
    vmaps[i] = vmaps[--numVmaps];
    if (--m->mappings == 0 && m->released)
      free(m);
    return kSuccess;
  }
  fail("cuMemUnmap of what is not mapped");
  return kInvalidValue;
}
CUresult cuMemSetAccess(CUdeviceptr p, size_t n, const CUmemAccessDesc *desc,
                        size_t count) {
  if (count != 1 || desc->location.type != 1 || desc->flags != 3)
    return kInvalidValue;
  uintptr_t a = (uintptr_t)p, e = a + n;
  while (a < e) {
    size_t i = 0;
    for (; i < numVmaps; ++i)
      if (a >= vmaps[i].at && a < vmaps[i].at + vmaps[i].bytes)
        break;
    if (i == numVmaps)
      return kInvalidValue;
    vmaps[i].access = 1;
    a = vmaps[i].at + vmaps[i].bytes;
  }
  return kSuccess;
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
/* Asynchronous copies not done yet, in stream order. */
struct queued {
  int toDevice;
  CUdeviceptr dev;
  void *host;
  size_t n;
};
static struct queued *queue;
static size_t numQueued, capQueued;
static int eventsHeld;

static void copyToDevice(CUdeviceptr dst, const void *src, size_t n);
static void copyToHost(void *dst, CUdeviceptr src, size_t n);

/* Does the queued copies (the device catching up). */
static void drain(void) {
  for (size_t i = 0; i < numQueued; ++i) {
    struct queued q = queue[i];
    if (q.toDevice)
      copyToDevice(q.dev, q.host, q.n);
    else
      copyToHost(q.host, q.dev, q.n);
  }
  numQueued = 0;
}

static CUresult enqueue(int toDevice, CUdeviceptr dev, void *host, size_t n,
                        void *stream) {
  if (stream)
    fail("a stream other than the default one");
  checkAccess(dev, n, toDevice ? "cuMemcpyHtoDAsync" : "cuMemcpyDtoHAsync");
  if (!grow((void **)&queue, &capQueued, numQueued, sizeof *queue))
    return kOutOfMemory;
  queue[numQueued].toDevice = toDevice;
  queue[numQueued].dev = dev;
  queue[numQueued].host = host;
  queue[numQueued].n = n;
  ++numQueued;
  return kSuccess;
}

void fake_cuda_hold_events(int on) { eventsHeld = on; }

CUresult cuCtxSynchronize(void) {
  drain();
  return kSuccess;
}

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
  drain();
  checkAccess(p, n, "cuMemsetD8");
  if (n == 0 || v == 0) /* fresh mappings read as zero */
    return kSuccess;
  protect(p, n, PROT_READ | PROT_WRITE);
  memset((void *)(uintptr_t)p, v, n);
  protect(p, n, PROT_NONE);
  return kSuccess;
}
static void copyToDevice(CUdeviceptr dst, const void *src, size_t n) {
  checkAccess(dst, n, "cuMemcpyHtoD");
  if (n == 0)
    return;
  protect(dst, n, PROT_READ | PROT_WRITE);
  memcpy((void *)(uintptr_t)dst, src, n);
  protect(dst, n, PROT_NONE);
}
static void copyToHost(void *dst, CUdeviceptr src, size_t n) {
  checkAccess(src, n, "cuMemcpyDtoH");
  if (n == 0)
    return;
  protect(src, n, PROT_READ);
  memcpy(dst, (const void *)(uintptr_t)src, n);
  protect(src, n, PROT_NONE);
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  drain();
  copyToDevice(dst, src, n);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  drain();
  copyToHost(dst, src, n);
  return kSuccess;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
                              void *stream) {
  return enqueue(1, dst, (void *)src, n, stream);
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n,
                              void *stream) {
  return enqueue(0, src, dst, n, stream);
}
/* Pinned host memory: plain host memory here, filled with a pattern (its
 * contents are undefined until a copy arrives). */
CUresult cuMemAllocHost_v2(void **p, size_t n) {
  *p = malloc(n ? n : 1);
  if (!*p)
    return kOutOfMemory;
  memset(*p, 0xa5, n);
  return kSuccess;
}
CUresult cuMemFreeHost(void *p) {
  free(p);
  return kSuccess;
}
/* One event stands for "the copies queued so far": querying it does them,
 * unless the test holds events. */
static int theEvent;
CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = &theEvent;
  return kSuccess;
}
CUresult cuEventRecord(void *event, void *stream) {
  (void)event;
  if (stream)
    fail("a stream other than the default one");
  return kSuccess;
}
CUresult cuEventQuery(void *event) {
  (void)event;
  if (eventsHeld)
    return 600; /* CUDA_ERROR_NOT_READY */
  drain();
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *event) {
  (void)event;
  return kSuccess;
}

/* Not resolved by the runtime; the GPU benchmarks measure copy bandwidth
 * with it (bench/gpu/gpu_common.h). */
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  checkAccess(src, n, "cuMemcpyDtoD");
  checkAccess(dst, n, "cuMemcpyDtoD");
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

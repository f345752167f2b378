//===- Cuda.cpp - The CUDA backend: driver loader, memory, launches -------===//
//
// Kernels compiled with --target=cuda carry their PTX in the module
// descriptor (tic_rt_module_desc::ptx). This file runs them:
//  * the CUDA driver is loaded with dlopen("libcuda.so.1") the first time a
//    context asks for a device, so that a program that never does needs no
//    CUDA installed (and libtic_runtime no link dependency on it);
//  * a context on the device uses the device's primary context (shared with
//    other CUDA libraries of the process), holds its root buffer in device
//    memory (cuMemAlloc, zeroed) and loads the module's PTX on its first
//    launch (the driver compiles it for the GPU it runs on, so PTX for
//    sm_80 runs on newer GPUs too);
//  * launches are asynchronous on the legacy default stream: the host waits
//    only where it touches device data (field reads and writes, stages,
//    MODULE_sync), which the driver's ordering on that stream gives; where
//    it has waited after a launch, the pools of sparse SNodes may grow
//    (CudaPools.cpp).
//
// Without a GPU or driver, every CUDA request fails with TC_ERR_NO_DEVICE
// and a message saying why; TC_ARCH_ANY then falls back to the CPU.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "Internal.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <new>

using namespace tic::rt;
using namespace tic::rt::cu;

Loader tic::rt::cu::loader;

const char *tic::rt::cu::errorText(CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (loader.drv.cuGetErrorName)
    loader.drv.cuGetErrorName(r, &name);
  if (loader.drv.cuGetErrorString)
    loader.drv.cuGetErrorString(r, &text);
  static thread_local char buf[256];
  std::snprintf(buf, sizeof(buf), "%s (%d): %s", name ? name : "CUDA error", r,
                text ? text : "no description");
  return buf;
}

namespace {

template <typename Fn> bool resolve(void *lib, const char *name, Fn &out) {
  void *p = dlsym(lib, name);
  std::memcpy(&out, &p, sizeof(p));
  return p != nullptr;
}

void loadDriver() {
  Loader &l = loader;
  const char *lib = "libcuda.so.1";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    std::snprintf(l.why, sizeof(l.why),
                  "the CUDA driver (%s) cannot be loaded: %s", lib,
                  e ? e : "not found");
    return;
  }
  Driver &d = l.drv;
  bool ok = true;
#define TIC_RESOLVE(field, symbol)                                             \
  if (ok && !resolve(h, symbol, d.field)) {                                    \
    ok = false;                                                                \
    std::snprintf(l.why, sizeof(l.why),                                        \
                  "the CUDA driver %s has no %s (too old?)", lib, symbol);     \
  }
  TIC_RESOLVE(cuInit, "cuInit")
  TIC_RESOLVE(cuDeviceGetCount, "cuDeviceGetCount")
  TIC_RESOLVE(cuDeviceGet, "cuDeviceGet")
  TIC_RESOLVE(cuDeviceGetName, "cuDeviceGetName")
  TIC_RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute")
  TIC_RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  TIC_RESOLVE(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")
  TIC_RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent")
  TIC_RESOLVE(cuCtxSynchronize, "cuCtxSynchronize")
  TIC_RESOLVE(cuMemAlloc, "cuMemAlloc_v2")
  TIC_RESOLVE(cuMemFree, "cuMemFree_v2")
  TIC_RESOLVE(cuMemsetD8, "cuMemsetD8_v2")
  TIC_RESOLVE(cuMemcpyHtoD, "cuMemcpyHtoD_v2")
  TIC_RESOLVE(cuMemcpyDtoH, "cuMemcpyDtoH_v2")
  TIC_RESOLVE(cuModuleLoadDataEx, "cuModuleLoadDataEx")
  TIC_RESOLVE(cuModuleUnload, "cuModuleUnload")
  TIC_RESOLVE(cuModuleGetFunction, "cuModuleGetFunction")
  TIC_RESOLVE(cuModuleGetGlobal, "cuModuleGetGlobal_v2")
  TIC_RESOLVE(cuLaunchKernel, "cuLaunchKernel")
  TIC_RESOLVE(cuGetErrorString, "cuGetErrorString")
  TIC_RESOLVE(cuGetErrorName, "cuGetErrorName")
#undef TIC_RESOLVE
  if (!ok)
    return;
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    std::snprintf(l.why, sizeof(l.why), "cuInit failed: %s", errorText(r));
    return;
  }
  int count = 0;
  r = d.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count <= 0) {
    std::snprintf(l.why, sizeof(l.why), "the CUDA driver sees no GPU%s%s",
                  r != CUDA_SUCCESS ? ": " : "",
                  r != CUDA_SUCCESS ? errorText(r) : "");
    return;
  }
  if ((r = d.cuDeviceGet(&l.device, 0)) != CUDA_SUCCESS ||
      (r = d.cuDevicePrimaryCtxRetain(&l.primary, l.device)) != CUDA_SUCCESS) {
    std::snprintf(l.why, sizeof(l.why), "cannot open GPU 0: %s", errorText(r));
    return;
  }
  d.cuDeviceGetName(l.deviceName, sizeof(l.deviceName) - 1, l.device);
  d.cuDeviceGetAttribute(&l.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                         l.device);
  if (l.smCount < 1)
    l.smCount = 1;
  // Optional: the device's memory and the virtual memory management API,
  // with which pools reserve address space and grow (CudaPools.cpp).
  size_t total = 0;
  if (resolve(h, "cuDeviceTotalMem_v2", d.cuDeviceTotalMem) &&
      d.cuDeviceTotalMem(&total, l.device) == CUDA_SUCCESS)
    l.totalMemory = total;
  bool vmm = resolve(h, "cuMemGetAllocationGranularity",
                     d.cuMemGetAllocationGranularity) &&
             resolve(h, "cuMemAddressReserve", d.cuMemAddressReserve) &&
             resolve(h, "cuMemAddressFree", d.cuMemAddressFree) &&
             resolve(h, "cuMemCreate", d.cuMemCreate) &&
             resolve(h, "cuMemRelease", d.cuMemRelease) &&
             resolve(h, "cuMemMap", d.cuMemMap) &&
             resolve(h, "cuMemUnmap", d.cuMemUnmap) &&
             resolve(h, "cuMemSetAccess", d.cuMemSetAccess);
  size_t granularity = 0;
  CUmemAllocationProp prop = devicePinned();
  if (vmm && l.totalMemory &&
      d.cuMemGetAllocationGranularity(&granularity, &prop,
                                      CU_MEM_ALLOC_GRANULARITY_MINIMUM) ==
          CUDA_SUCCESS &&
      granularity > 0 && (granularity & (granularity - 1)) == 0)
    l.granularity = granularity;
  l.asyncCopies = resolve(h, "cuMemAllocHost_v2", d.cuMemAllocHost) &&
                  resolve(h, "cuMemFreeHost", d.cuMemFreeHost) &&
                  resolve(h, "cuMemcpyDtoHAsync_v2", d.cuMemcpyDtoHAsync) &&
                  resolve(h, "cuMemcpyHtoDAsync_v2", d.cuMemcpyHtoDAsync) &&
                  resolve(h, "cuEventCreate", d.cuEventCreate) &&
                  resolve(h, "cuEventRecord", d.cuEventRecord) &&
                  resolve(h, "cuEventQuery", d.cuEventQuery) &&
                  resolve(h, "cuEventDestroy_v2", d.cuEventDestroy);
  l.status = TC_OK;
}

} // namespace

bool tic::rt::cu::makeCurrent() {
  return loader.drv.cuCtxSetCurrent(loader.primary) == CUDA_SUCCESS;
}

namespace tic {
namespace rt {

tc_status cudaLoaderInit(char *why, size_t whyCap) {
  pthread_once(&loader.once, loadDriver);
  if (loader.status != TC_OK && why && whyCap)
    std::snprintf(why, whyCap, "%s", loader.why);
  return loader.status;
}

tc_status cudaCreateContext(tic_rt_context *ctx, uint64_t size,
                            uint64_t align) {
  void *mem = std::calloc(1, sizeof(CudaState));
  if (!mem)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "cannot allocate the CUDA state");
  ctx->cuda = new (mem) CudaState();
  if (!makeCurrent())
    return tic_rt_fail(nullptr, TC_ERR_DEVICE,
                       "cannot make the CUDA context of %s current",
                       loader.deviceName);
  if (size == 0)
    size = 1;
  uint64_t budget = ctx->opts.device_memory_bytes;
  if (budget && size > budget)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "module '%s' needs %llu bytes of device memory for its "
                       "fields, more than tc_options.device_memory_bytes "
                       "(%llu)",
                       ctx->desc->name ? ctx->desc->name : "?",
                       (unsigned long long)size, (unsigned long long)budget);
  // cuMemAlloc aligns to 256 bytes; a larger root alignment is padded.
  uint64_t pad = align > 256 ? align - 1 : 0;
  CUdeviceptr p = 0;
  CUresult r = loader.drv.cuMemAlloc(&p, size_t(size + pad));
  if (r != CUDA_SUCCESS)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "cannot allocate the %llu bytes of the root buffer on "
                       "%s: %s",
                       (unsigned long long)size, loader.deviceName,
                       errorText(r));
  ctx->cuda->rootAlloc = p;
  p = (p + pad) / (pad + 1) * (pad + 1);
  ctx->root = reinterpret_cast<void *>(p);
  r = loader.drv.cuMemsetD8(p, 0, size_t(size));
  if (r != CUDA_SUCCESS)
    return tic_rt_fail(nullptr, TC_ERR_DEVICE,
                       "cannot zero the root buffer on %s: %s",
                       loader.deviceName, errorText(r));
  return TC_OK;
}

void cudaDestroyContext(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  if (!s)
    return;
  if (makeCurrent()) {
    loader.drv.cuCtxSynchronize();
    if (s->rootAlloc)
      loader.drv.cuMemFree(s->rootAlloc);
    if (s->scratch)
      loader.drv.cuMemFree(s->scratch);
    cudaFreePools(ctx);
    if (s->module)
      loader.drv.cuModuleUnload(s->module);
  }
  ctx->root = nullptr;
  std::free(s->pools);
  std::free(s->adStates);
  std::free(s->adStateBytes);
  std::free(s->keys);
  std::free(s->functions);
  s->~CudaState();
  std::free(s);
  ctx->cuda = nullptr;
}

const char *cudaDeviceName() { return loader.deviceName; }

} // namespace rt
} // namespace tic

namespace {

void findAccessRuleStates(tic_rt_context *ctx);

/// The function of `k` in ctx's module (loaded on first use); null after
/// recording a kernel failure.
CUfunction lookupFunction(tic_rt_context *ctx, const tic_rt_cuda_kernel *k) {
  CudaState *s = ctx->cuda;
  for (int32_t i = 0; i < s->numFunctions; ++i)
    if (s->keys[i] == k)
      return s->functions[i];
  const tic_rt_module_desc *d = ctx->desc;
  if (!s->module) {
    char log[4096] = {0};
    int opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[2] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
    CUresult r =
        loader.drv.cuModuleLoadDataEx(&s->module, d->ptx, 2, opts, vals);
    if (r != CUDA_SUCCESS) {
      s->module = nullptr;
      reportKernelFailure(ctx, TC_ERR_DEVICE,
                          "module '%s': the CUDA driver cannot load its PTX "
                          "for %s: %s%s%s",
                          d->name ? d->name : "?", loader.deviceName,
                          errorText(r), log[0] ? "\n" : "", log);
      return nullptr;
    }
    size_t bytes = 0;
    if (loader.drv.cuModuleGetGlobal(&s->failure, &bytes, s->module,
                                     "__tic_failure") != CUDA_SUCCESS ||
        bytes != sizeof(tic_rt_cuda_failure))
      s->failure = 0;
    findAccessRuleStates(ctx);
  }
  CUfunction f = nullptr;
  CUresult r = loader.drv.cuModuleGetFunction(&f, s->module, k->name);
  if (r != CUDA_SUCCESS) {
    reportKernelFailure(ctx, TC_ERR_DEVICE,
                        "module '%s': no kernel '%s' in its PTX: %s",
                        d->name ? d->name : "?", k->name, errorText(r));
    return nullptr;
  }
  if (s->numFunctions == s->capFunctions) {
    int32_t cap = s->capFunctions ? 2 * s->capFunctions : 16;
    auto *keys = static_cast<const tic_rt_cuda_kernel **>(
        std::realloc(s->keys, sizeof(*s->keys) * size_t(cap)));
    if (keys)
      s->keys = keys;
    auto *fns = static_cast<CUfunction *>(
        std::realloc(s->functions, sizeof(*s->functions) * size_t(cap)));
    if (fns)
      s->functions = fns;
    if (!keys || !fns)
      return f; // not cached; still usable
    s->capFunctions = cap;
  }
  s->keys[s->numFunctions] = k;
  s->functions[s->numFunctions++] = f;
  return f;
}

} // namespace

bool tic::rt::cu::check(tic_rt_context *ctx, CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return true;
  reportKernelFailure(ctx, TC_ERR_DEVICE, "module '%s' on %s: %s failed: %s",
                      ctx->desc->name ? ctx->desc->name : "?",
                      loader.deviceName, what, errorText(r));
  return false;
}

namespace {

/// The access-rule states of a module compiled with -g (its globals
/// __tic_ad_recording and __tic_ad_state_0, _1, ...), once it is loaded;
/// a tape recording already sets its flag.
void findAccessRuleStates(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  size_t bytes = 0;
  if (loader.drv.cuModuleGetGlobal(&s->adRecording, &bytes, s->module,
                                   "__tic_ad_recording") != CUDA_SUCCESS ||
      bytes != sizeof(int32_t)) {
    s->adRecording = 0;
    return;
  }
  for (int32_t k = 0;; ++k) {
    char name[64];
    std::snprintf(name, sizeof(name), "__tic_ad_state_%d", int(k));
    CUdeviceptr p = 0;
    if (loader.drv.cuModuleGetGlobal(&p, &bytes, s->module, name) !=
        CUDA_SUCCESS)
      break;
    auto *states = static_cast<CUdeviceptr *>(
        std::realloc(s->adStates, sizeof(CUdeviceptr) * size_t(k + 1)));
    if (states)
      s->adStates = states;
    auto *sizes = static_cast<size_t *>(
        std::realloc(s->adStateBytes, sizeof(size_t) * size_t(k + 1)));
    if (sizes)
      s->adStateBytes = sizes;
    if (!states || !sizes)
      break; // validate what fits
    s->adStates[k] = p;
    s->adStateBytes[k] = bytes;
    s->numAdStates = k + 1;
  }
  if (ctx->tapeRecording)
    cudaSetTapeRecording(ctx, true);
}

/// Reports (as the CPU's checks do) and clears the failure the device code
/// recorded, if any; waits for the launches in flight.
void checkDeviceFailure(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  if (!s->failure)
    return;
  tic_rt_cuda_failure f;
  if (!check(ctx, loader.drv.cuMemcpyDtoH(&f, s->failure, sizeof(f)),
             "reading the device's failure record") ||
      f.status == 0)
    return;
  char text[1024] = {0}, where[1024] = {0};
  auto read = [&](char *dst, uint64_t src, int32_t len) {
    if (src && len > 0)
      loader.drv.cuMemcpyDtoH(dst, CUdeviceptr(src),
                              size_t(len < 1023 ? len : 1023));
  };
  read(text, f.text, f.text_len);
  read(where, f.where, f.where_len);
  if (f.status == TC_ERR_ASSERTION && f.axis == TIC_RT_CUDA_ACCESS_RULE) {
    // "kernel\0field": the CPU's report.
    size_t k = std::strlen(text);
    tic_rt_ad_access_violation(ctx, text,
                               k + 1 < sizeof(text) ? text + k + 1 : "?",
                               uint64_t(f.index), int32_t(f.extent));
  } else if (f.status == TC_ERR_OUT_OF_BOUNDS)
    tic_rt_report_out_of_bounds(ctx, text, f.axis, f.index, f.extent,
                                where[0] ? where : nullptr);
  else if (f.status == TC_ERR_OUT_OF_MEMORY)
    reportKernelFailure(ctx, TC_ERR_OUT_OF_MEMORY,
                        "%s%sSNode '%s' is out of device memory: its pool "
                        "on %s holds %lld cells (a pool grows only between "
                        "launches, where the host waits for the device: "
                        "MODULE_sync, a field read; up to the device's "
                        "memory or tc_options.device_memory_bytes)",
                        where[0] ? where : "", where[0] ? ": " : "", text,
                        loader.deviceName, (long long)f.extent);
  else
    tic_rt_report_assert(ctx, text, where[0] ? where : nullptr);
  tic_rt_cuda_failure zero{};
  loader.drv.cuMemcpyHtoD(s->failure, &zero, sizeof(zero));
}

constexpr size_t kStageAlign = 256;

} // namespace

namespace tic {
namespace rt {

void cudaSetTapeRecording(tic_rt_context *ctx, bool on) {
  CudaState *s = ctx->cuda;
  if (!s || !s->adRecording || !makeCurrent())
    return;
  // In stream order: launches before see the old flag, later ones the new
  // one and, for a new tape, every element fresh.
  if (on)
    for (int32_t k = 0; k < s->numAdStates; ++k)
      if (!check(ctx,
                 loader.drv.cuMemsetD8(s->adStates[k], 0, s->adStateBytes[k]),
                 "clearing the access-rule states"))
        return;
  int32_t flag = on ? 1 : 0;
  check(ctx, loader.drv.cuMemcpyHtoD(s->adRecording, &flag, sizeof(flag)),
        "setting the access-rule flag");
}

} // namespace rt
} // namespace tic

extern "C" {

int32_t tic_rt_on_device(const tic_rt_context *ctx) {
  return ctx && ctx->cuda ? 1 : 0;
}

void tic_rt_cuda_launch(tic_rt_context *ctx, const tic_rt_cuda_kernel *kernel,
                        void **params, int32_t numParams, int64_t total,
                        tic_rt_cuda_stage *stages, int32_t numStages) {
  if (!ctx || !ctx->cuda || total <= 0)
    return;
  CudaState *s = ctx->cuda;
  if (!makeCurrent()) {
    reportKernelFailure(ctx, TC_ERR_DEVICE,
                        "cannot make the CUDA context "
                        "current");
    return;
  }
  CUfunction f = lookupFunction(ctx, kernel);
  if (!f)
    return;
  // Cells a previous launch freed are recycled first (stream order: after
  // it, before this one), so this one can reuse them.
  if (s->freedSinceCollect)
    cudaCollectPools(ctx);
  // Pools whose use, read after an earlier launch, has arrived grow before
  // this one (no wait).
  cudaGrowPoolsFromRead(ctx);
  // Stages: one scratch allocation, each stage at a 256-byte boundary.
  size_t need = 0;
  for (int32_t i = 0; i < numStages; ++i)
    need +=
        (size_t(stages[i].bytes) + kStageAlign - 1) / kStageAlign * kStageAlign;
  if (need > s->scratchBytes) {
    if (s->scratch)
      loader.drv.cuMemFree(s->scratch);
    s->scratch = 0;
    s->scratchBytes = 0;
    if (!check(ctx, loader.drv.cuMemAlloc(&s->scratch, need),
               "allocating device memory for a launch's host data"))
      return;
    s->scratchBytes = need;
  }
  CUdeviceptr at = s->scratch;
  for (int32_t i = 0; i < numStages; ++i) {
    tic_rt_cuda_stage &st = stages[i];
    if (st.bytes > 0 &&
        !check(ctx, loader.drv.cuMemcpyHtoD(at, st.host, size_t(st.bytes)),
               "copying a launch's host data to the device"))
      return;
    *st.param = reinterpret_cast<void *>(at);
    at += (size_t(st.bytes) + kStageAlign - 1) / kStageAlign * kStageAlign;
  }
  if (kernel->flags & TIC_RT_CUDA_RANDOM) {
    // A different stream of numbers per launch, reproducible from the seed.
    uint64_t seed = ctx->opts.seed + 0x9E3779B97F4A7C15ull * ++s->launches;
    std::memcpy(params[numParams - 1], &seed, sizeof(seed));
  }
  unsigned block = kernel->block_dim > 0 ? unsigned(kernel->block_dim) : 128u;
  if (block > 1024)
    block = 1024;
  // Enough blocks to fill every SM (2048 threads each); the kernels are
  // grid-stride loops, so fewer blocks than iterations is fine.
  uint64_t blocks = (kernel->flags & TIC_RT_CUDA_BLOCKS)
                        ? uint64_t(total)
                        : (uint64_t(total) + block - 1) / block;
  uint64_t maxBlocks = uint64_t(loader.smCount) * (2048 / block);
  if (blocks > maxBlocks)
    blocks = maxBlocks;
  if (kernel->flags & TIC_RT_CUDA_SERIAL)
    blocks = block = 1;
  if (!check(ctx,
             loader.drv.cuLaunchKernel(f, unsigned(blocks), 1, 1, block, 1, 1,
                                       0, nullptr, params, nullptr),
             kernel->name))
    return;
  if (kernel->flags & TIC_RT_CUDA_FREES)
    s->freedSinceCollect = true;
  s->launchedSinceGrowth = true;
  if (kernel->flags & TIC_RT_CUDA_CHECKED) {
    // Report a failed check from this launch, as the CPU does.
    if (check(ctx, loader.drv.cuCtxSynchronize(), kernel->name)) {
      checkDeviceFailure(ctx);
      cudaGrowPools(ctx);
    }
  } else {
    cudaReadPoolStates(ctx);
  }
  if (numStages == 0)
    return;
  at = s->scratch;
  for (int32_t i = 0; i < numStages; ++i) {
    tic_rt_cuda_stage &st = stages[i];
    if (st.bytes > 0 &&
        !check(ctx, loader.drv.cuMemcpyDtoH(st.host, at, size_t(st.bytes)),
               kernel->name))
      return;
    at += (size_t(st.bytes) + kStageAlign - 1) / kStageAlign * kStageAlign;
  }
}

void tic_rt_field_read(tic_rt_context *ctx, void *dst, const void *field,
                       uint64_t bytes) {
  if (!ctx || !ctx->cuda) {
    std::memcpy(dst, field, size_t(bytes));
    return;
  }
  if (!makeCurrent() ||
      !check(ctx,
             loader.drv.cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(field),
                                     size_t(bytes)),
             "reading field memory")) {
    std::memset(dst, 0, size_t(bytes));
    return;
  }
  // The copy waited for the launches before it: the device is idle.
  cudaGrowPools(ctx);
}

void tic_rt_field_write(tic_rt_context *ctx, void *field, const void *src,
                        uint64_t bytes) {
  if (!ctx || !ctx->cuda) {
    std::memcpy(field, src, size_t(bytes));
    return;
  }
  if (makeCurrent())
    check(ctx,
          loader.drv.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(field), src,
                                  size_t(bytes)),
          "writing field memory");
}

void tic_rt_field_fill(tic_rt_context *ctx, void *field, uint8_t value,
                       uint64_t bytes) {
  if (!ctx || !ctx->cuda) {
    std::memset(field, value, size_t(bytes));
    return;
  }
  if (makeCurrent())
    check(ctx,
          loader.drv.cuMemsetD8(reinterpret_cast<CUdeviceptr>(field), value,
                                size_t(bytes)),
          "setting field memory");
}

tc_status tic_rt_sync(tic_rt_context *ctx) {
  if (!ctx || !ctx->cuda)
    return TC_OK;
  if (makeCurrent() &&
      check(ctx, loader.drv.cuCtxSynchronize(), "waiting for the device")) {
    checkDeviceFailure(ctx);
    cudaGrowPools(ctx);
  }
  return tic_rt_take_kernel_status(ctx);
}

} // extern "C"

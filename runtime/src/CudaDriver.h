//===- CudaDriver.h - The CUDA driver API as the runtime uses it -*- C++
//-*-===//
//
// The few driver API types, constants and entry points the CUDA backend uses
// (cuda.h is not needed to build the runtime: the driver is loaded with
// dlopen, Cuda.cpp), and what a context on the device holds. Shared by
// Cuda.cpp (loader, launches, copies) and CudaPools.cpp (the SNode pools in
// device memory). The structs mirror cuda.h's member for member;
// test/unit/runtime/CudaDriverLayoutTest.cpp checks them against it where
// the toolkit is installed.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_RUNTIME_CUDADRIVER_H
#define TIC_RUNTIME_CUDADRIVER_H

#include "Internal.h"

#include <cstddef>
#include <cstdint>
#include <pthread.h>

namespace tic {
namespace rt {
namespace cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// The virtual memory management API (CUDA 10.2 and later): address space
// reserved, physical memory mapped into it piece by piece.
using CUmemGenericAllocationHandle = unsigned long long;
struct CUmemLocation {
  int type; // CUmemLocationType
  int id;
};
struct CUmemAllocationProp {
  int type;                 // CUmemAllocationType
  int requestedHandleTypes; // CUmemAllocationHandleType
  CUmemLocation location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};
struct CUmemAccessDesc {
  CUmemLocation location;
  int flags; // CUmemAccess_flags
};
constexpr int CU_MEM_ALLOCATION_TYPE_PINNED = 1;
constexpr int CU_MEM_HANDLE_TYPE_NONE = 0;
constexpr int CU_MEM_LOCATION_TYPE_DEVICE = 1;
constexpr int CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3;
constexpr int CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0;

/// The driver entry points, resolved once.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule,
                                const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  // Optional (pools that grow; null where the driver lacks one).
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuMemGetAllocationGranularity)(size_t *,
                                            const CUmemAllocationProp *, int);
  CUresult (*cuMemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr,
                                  unsigned long long);
  CUresult (*cuMemAddressFree)(CUdeviceptr, size_t);
  CUresult (*cuMemCreate)(CUmemGenericAllocationHandle *, size_t,
                          const CUmemAllocationProp *, unsigned long long);
  CUresult (*cuMemRelease)(CUmemGenericAllocationHandle);
  CUresult (*cuMemMap)(CUdeviceptr, size_t, size_t,
                       CUmemGenericAllocationHandle, unsigned long long);
  CUresult (*cuMemUnmap)(CUdeviceptr, size_t);
  CUresult (*cuMemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *,
                             size_t);
  // Optional (pools that grow between launches without a wait: their
  // states read asynchronously into pinned memory, CudaPools.cpp).
  CUresult (*cuMemAllocHost)(void **, size_t);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventQuery)(CUevent);
  CUresult (*cuEventDestroy)(CUevent);
};

struct Loader {
  pthread_once_t once = PTHREAD_ONCE_INIT;
  tc_status status = TC_ERR_NO_DEVICE;
  char why[512] = {0};
  Driver drv{};
  CUdevice device = 0;
  CUcontext primary = nullptr;
  int smCount = 1;
  char deviceName[128] = {0};
  /// The device's memory in bytes (0: unknown).
  uint64_t totalMemory = 0;
  /// The granularity of mappings (bytes) when the driver has the virtual
  /// memory management API, else 0 (pools are then one allocation each).
  uint64_t granularity = 0;
  /// Whether the driver has pinned host memory, asynchronous copies and
  /// events: pools then also grow from states read without a wait.
  bool asyncCopies = false;
};

/// Properties of memory of the device in use, for cuMemCreate.
inline CUmemAllocationProp devicePinned() {
  CUmemAllocationProp p{};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = 0; // GPU 0 (loadDriver)
  return p;
}

/// The process's driver (Cuda.cpp).
extern Loader loader;

/// "NAME (code): description" of a driver error.
const char *errorText(CUresult r);
/// Makes the primary context current on the calling thread.
bool makeCurrent();
/// True on success; else records a TC_ERR_DEVICE kernel failure on `ctx`
/// saying that `what` failed, and false.
bool check(tic_rt_context *ctx, CUresult r, const char *what);

/// The memory of one SNode pool on the device: one allocation (cells, then
/// the free and pending lists of ABI 6), or with the virtual memory API a
/// reserved range whose parts (cells, free list, pending list) are mapped
/// from their starts as the pool grows (CudaPools.cpp).
struct DevicePool {
  CUdeviceptr fixed = 0; // the one allocation; 0 when reserved
  CUdeviceptr va = 0;    // the reservation; 0 when fixed
  size_t vaBytes = 0;
  uint64_t elementSize = 0;
  uint64_t stateOffset = 0;
  uint64_t reserved = 0; // elements the reservation (or allocation) holds
  uint64_t mapped = 0;   // elements usable now (the state's capacity)
  size_t cellBytes = 0, listBytes = 0;   // reserved bytes of each part
  size_t cellMapped = 0, listMapped = 0; // mapped bytes of each part
  struct Chunk {
    CUdeviceptr at;
    size_t bytes;
    CUmemGenericAllocationHandle handle;
  };
  Chunk *chunks = nullptr;
  int32_t numChunks = 0, capChunks = 0;
};

} // namespace cu

/// What a context on the device holds.
struct CudaState {
  cu::CUdeviceptr rootAlloc =
      0; // the root buffer's allocation (ctx->root: aligned)
  cu::CUmodule module = nullptr;
  // Functions looked up so far, by kernel descriptor.
  const tic_rt_cuda_kernel **keys = nullptr;
  cu::CUfunction *functions = nullptr;
  int32_t numFunctions = 0, capFunctions = 0;
  // Device copies of staged host memory, reused by later launches.
  cu::CUdeviceptr scratch = 0;
  size_t scratchBytes = 0;
  uint64_t launches = 0;
  // The module's failure record (tic_rt_cuda_failure), 0 when it has none.
  cu::CUdeviceptr failure = 0;
  // The memory of each pool (numPools entries) and the collect kernel
  // (looked up once the module is loaded; null when it has none).
  cu::DevicePool *pools = nullptr;
  int32_t numPools = 0;
  bool collectLooked = false;
  cu::CUfunction collect = nullptr;
  cu::CUfunction collectEnd = nullptr; // ABI 6
  // A TIC_RT_CUDA_FREES kernel was launched since the last collect.
  bool freedSinceCollect = false;
  // A kernel was launched since the pools last looked at their use
  // (cudaGrowPools).
  bool launchedSinceGrowth = false;
  // The pools' states read without a wait (cudaLookAtPools): pinned host
  // memory holding the span of the root buffer from the first growable
  // pool's state to the last one's, then a capacity pair per pool to raise
  // it from; the event recorded after the copy, which is in flight while
  // `stateRead` is set.
  char *pinned = nullptr;
  uint64_t pinnedLo = 0, pinnedHi = 0;
  cu::CUevent statesCopied = nullptr;
  bool stateRead = false;
  // The access-rule validation of a module compiled with -g: its flag
  // (__tic_ad_recording, i32) and state words (__tic_ad_state_<k>); 0 and
  // none without.
  cu::CUdeviceptr adRecording = 0;
  cu::CUdeviceptr *adStates = nullptr;
  size_t *adStateBytes = nullptr;
  int32_t numAdStates = 0;
};

} // namespace rt
} // namespace tic

#endif

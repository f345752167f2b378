//===- CudaLoader.cpp - Hook for the CUDA driver loader -------------------===//
//
// The CUDA backend will live here: dlopen("libcuda.so.1") (so that CPU-only
// machines never need CUDA installed), resolve the driver API entry points
// (cuInit, cuDeviceGet, cuCtxCreate, cuModuleLoadData, cuLaunchKernel, ...),
// create a context on the first device and load the module's embedded PTX.
//
// Until then every CUDA request fails cleanly with TC_ERR_NO_DEVICE, and
// TC_ARCH_ANY falls back to the CPU.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdio>

namespace tic {
namespace rt {

tc_status cudaLoaderInit(char *why, size_t whyCap) {
  if (why && whyCap)
    std::snprintf(why, whyCap,
                  "this libtic_runtime %s has no CUDA backend yet (the CUDA "
                  "driver loader is not implemented); use TC_ARCH_CPU or "
                  "TC_ARCH_ANY",
                  tc_runtime_version());
  return TC_ERR_NO_DEVICE;
}

} // namespace rt
} // namespace tic

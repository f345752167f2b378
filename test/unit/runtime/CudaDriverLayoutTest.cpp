//===- CudaDriverLayoutTest.cpp - The runtime's CUDA structs vs cuda.h ----===//
//
// The runtime declares the driver API types it uses itself (it builds
// without the CUDA toolkit; runtime/src/CudaDriver.h). Where the toolkit is
// installed, this checks them member by member against cuda.h: a mismatch
// is a compile error.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

namespace cu = tic::rt::cu;

#define TIC_SAME_MEMBER(ours, theirs, m)                                       \
  static_assert(offsetof(ours, m) == offsetof(theirs, m) &&                    \
                    sizeof(ours::m) == sizeof(theirs::m),                      \
                #ours "::" #m " differs from cuda.h")

static_assert(sizeof(cu::CUdeviceptr) == sizeof(CUdeviceptr), "CUdeviceptr");
static_assert(sizeof(cu::CUmemGenericAllocationHandle) ==
                  sizeof(CUmemGenericAllocationHandle),
              "CUmemGenericAllocationHandle");
static_assert(sizeof(cu::CUmemLocation) == sizeof(CUmemLocation),
              "CUmemLocation");
TIC_SAME_MEMBER(cu::CUmemLocation, CUmemLocation, type);
TIC_SAME_MEMBER(cu::CUmemLocation, CUmemLocation, id);
static_assert(sizeof(cu::CUmemAllocationProp) == sizeof(CUmemAllocationProp),
              "CUmemAllocationProp");
TIC_SAME_MEMBER(cu::CUmemAllocationProp, CUmemAllocationProp, type);
TIC_SAME_MEMBER(cu::CUmemAllocationProp, CUmemAllocationProp,
                requestedHandleTypes);
TIC_SAME_MEMBER(cu::CUmemAllocationProp, CUmemAllocationProp, location);
TIC_SAME_MEMBER(cu::CUmemAllocationProp, CUmemAllocationProp,
                win32HandleMetaData);
TIC_SAME_MEMBER(cu::CUmemAllocationProp, CUmemAllocationProp, allocFlags);
static_assert(sizeof(cu::CUmemAccessDesc) == sizeof(CUmemAccessDesc),
              "CUmemAccessDesc");
TIC_SAME_MEMBER(cu::CUmemAccessDesc, CUmemAccessDesc, location);
TIC_SAME_MEMBER(cu::CUmemAccessDesc, CUmemAccessDesc, flags);
static_assert(sizeof(int) == sizeof(CUmemAllocationType) &&
                  sizeof(int) == sizeof(CUmemAccess_flags),
              "the enums are int-sized");

// The constants.
static_assert(cu::CUDA_SUCCESS == CUDA_SUCCESS, "CUDA_SUCCESS");
static_assert(cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
                  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
              "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT");
static_assert(cu::CU_JIT_ERROR_LOG_BUFFER == CU_JIT_ERROR_LOG_BUFFER &&
                  cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES ==
                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
              "CU_JIT_*");
static_assert(cu::CU_MEM_ALLOCATION_TYPE_PINNED ==
                      CU_MEM_ALLOCATION_TYPE_PINNED &&
                  cu::CU_MEM_HANDLE_TYPE_NONE == CU_MEM_HANDLE_TYPE_NONE &&
                  cu::CU_MEM_LOCATION_TYPE_DEVICE ==
                      CU_MEM_LOCATION_TYPE_DEVICE &&
                  cu::CU_MEM_ACCESS_FLAGS_PROT_READWRITE ==
                      CU_MEM_ACCESS_FLAGS_PROT_READWRITE &&
                  cu::CU_MEM_ALLOC_GRANULARITY_MINIMUM ==
                      CU_MEM_ALLOC_GRANULARITY_MINIMUM,
              "CU_MEM_*");

// The entry points of the virtual memory API: the runtime's pointer types
// take and return what cuda.h's functions do (its own structs for cuda.h's,
// int for the enums: the same sizes). Those cuda.h renames by macros
// (cuMemAlloc to cuMemAlloc_v2) cannot be named here.
template <typename Ours, typename Theirs> constexpr bool compatible() {
  return sizeof(Ours) == sizeof(Theirs) &&
         std::is_pointer<Ours>::value == std::is_pointer<Theirs>::value;
}
template <typename Ours, typename Theirs> struct SameShape;
template <typename R1, typename... A1, typename R2, typename... A2>
struct SameShape<R1 (*)(A1...), R2(A2...)> {
  static constexpr bool value = sizeof...(A1) == sizeof...(A2) &&
                                compatible<R1, R2>() &&
                                (compatible<A1, A2>() && ...);
};
#define TIC_SAME_ENTRY(f)                                                      \
  static_assert(SameShape<decltype(cu::Driver::f), decltype(::f)>::value,      \
                #f " differs from cuda.h")
TIC_SAME_ENTRY(cuMemGetAllocationGranularity);
TIC_SAME_ENTRY(cuMemAddressReserve);
TIC_SAME_ENTRY(cuMemAddressFree);
TIC_SAME_ENTRY(cuMemCreate);
TIC_SAME_ENTRY(cuMemRelease);
TIC_SAME_ENTRY(cuMemMap);
TIC_SAME_ENTRY(cuMemUnmap);
TIC_SAME_ENTRY(cuMemSetAccess);
// The pools' states read without a wait (pinned memory, events).
TIC_SAME_ENTRY(cuMemFreeHost);
TIC_SAME_ENTRY(cuEventCreate);
TIC_SAME_ENTRY(cuEventRecord);
TIC_SAME_ENTRY(cuEventQuery);
static_assert(cu::CUDA_ERROR_NOT_READY == CUDA_ERROR_NOT_READY &&
                  cu::CU_EVENT_DISABLE_TIMING == CU_EVENT_DISABLE_TIMING,
              "CUDA_ERROR_NOT_READY, CU_EVENT_DISABLE_TIMING");

// The checks above are made by the compiler; the test records that they
// were (a build without cuda.h has no such test).
TEST(CudaDriverLayout, MatchesCudaH) { SUCCEED(); }

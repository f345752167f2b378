//===- RuntimeABI.h - The runtime ABI as the compiler sees it ---*- C++ -*-===//
//
// Generated code and libtic_runtime share structs, status codes and dtype
// values. They are defined once, in the runtime's public C headers
// (runtime/include/tic/runtime.h and rt.h); the compiler includes those
// headers and builds its LLVM types from them here, and the static_asserts
// fail the build if a struct's layout ever stops matching what the LLVM
// types below describe. test/unit/runtime/AbiTest.cpp checks the same
// layouts from the runtime's side.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_TARGET_RUNTIMEABI_H
#define TIC_TARGET_RUNTIMEABI_H

#include "tic/rt.h"
#include "tic/runtime.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstddef>

namespace tic {
namespace abi {

/// tc_status values (runtime.h).
enum Status : int32_t {
  kOk = TC_OK,
  kInvalidArgument = TC_ERR_INVALID_ARGUMENT,
  kOutOfMemory = TC_ERR_OUT_OF_MEMORY,
  kOutOfBounds = TC_ERR_OUT_OF_BOUNDS,
  kAssertion = TC_ERR_ASSERTION,
  kUnsupported = TC_ERR_UNSUPPORTED,
};

/// The descriptor version generated modules record.
constexpr uint32_t kAbiVersion = TIC_RT_ABI_VERSION;

// tc_ndarray { void *data; int32_t ndim; int64_t shape[N]; tc_dtype dtype; }
static_assert(offsetof(tc_ndarray, data) == 0, "tc_ndarray.data");
static_assert(offsetof(tc_ndarray, ndim) == 8, "tc_ndarray.ndim");
static_assert(offsetof(tc_ndarray, shape) == 16, "tc_ndarray.shape");
static_assert(offsetof(tc_ndarray, dtype) == 16 + 8 * TC_NDARRAY_MAX_DIMS,
              "tc_ndarray.dtype");
static_assert(sizeof(tc_dtype) == 4, "tc_dtype is an int-sized enum");

/// tc_ndarray as an LLVM struct: {ptr, i32, [N x i64], i32}.
inline mlir::LLVM::LLVMStructType ndarrayType(mlir::MLIRContext *ctx) {
  auto i32 = mlir::IntegerType::get(ctx, 32),
       i64 = mlir::IntegerType::get(ctx, 64);
  return mlir::LLVM::LLVMStructType::getLiteral(
      ctx, {mlir::LLVM::LLVMPointerType::get(ctx), i32,
            mlir::LLVM::LLVMArrayType::get(i64, TC_NDARRAY_MAX_DIMS), i32});
}
/// Field numbers of ndarrayType().
enum NDArrayField : int32_t {
  kNDData = 0,
  kNDRank = 1,
  kNDShape = 2,
  kNDDType = 3
};

// tic_rt_module_desc (rt.h), ABI 4.
static_assert(offsetof(tic_rt_module_desc, abi_version) == 0, "desc");
static_assert(offsetof(tic_rt_module_desc, name) == 8, "desc.name");
static_assert(offsetof(tic_rt_module_desc, root_size) == 16, "desc.root_size");
static_assert(offsetof(tic_rt_module_desc, root_align) == 24,
              "desc.root_align");
static_assert(offsetof(tic_rt_module_desc, num_fields) == 32,
              "desc.num_fields");
static_assert(offsetof(tic_rt_module_desc, field_names) == 40,
              "desc.field_names");
static_assert(offsetof(tic_rt_module_desc, field_bytes) == 48,
              "desc.field_bytes");
static_assert(offsetof(tic_rt_module_desc, num_pools) == 56, "desc.num_pools");
static_assert(offsetof(tic_rt_module_desc, pools) == 64, "desc.pools");
static_assert(offsetof(tic_rt_module_desc, ptx) == 72, "desc.ptx");
static_assert(sizeof(tic_rt_module_desc) == 80, "desc size");

/// tic_rt_module_desc as an LLVM struct:
/// {i32, ptr, i64, i64, i32, ptr, ptr, i32, ptr, ptr}.
inline mlir::LLVM::LLVMStructType moduleDescType(mlir::MLIRContext *ctx) {
  auto i32 = mlir::IntegerType::get(ctx, 32),
       i64 = mlir::IntegerType::get(ctx, 64);
  auto ptr = mlir::LLVM::LLVMPointerType::get(ctx);
  return mlir::LLVM::LLVMStructType::getLiteral(
      ctx, {i32, ptr, i64, i64, i32, ptr, ptr, i32, ptr, ptr});
}

// tic_rt_cuda_kernel { const char *name; int32_t flags, block_dim; }
static_assert(offsetof(tic_rt_cuda_kernel, name) == 0, "cuda_kernel.name");
static_assert(offsetof(tic_rt_cuda_kernel, flags) == 8, "cuda_kernel.flags");
static_assert(offsetof(tic_rt_cuda_kernel, block_dim) == 12,
              "cuda_kernel.block_dim");
static_assert(sizeof(tic_rt_cuda_kernel) == 16, "cuda_kernel size");

/// tic_rt_cuda_kernel as an LLVM struct: {ptr, i32, i32}.
inline mlir::LLVM::LLVMStructType cudaKernelType(mlir::MLIRContext *ctx) {
  auto i32 = mlir::IntegerType::get(ctx, 32);
  return mlir::LLVM::LLVMStructType::getLiteral(
      ctx, {mlir::LLVM::LLVMPointerType::get(ctx), i32, i32});
}

// tic_rt_cuda_stage { void *host; int64_t bytes; void **param; }
static_assert(offsetof(tic_rt_cuda_stage, host) == 0, "cuda_stage.host");
static_assert(offsetof(tic_rt_cuda_stage, bytes) == 8, "cuda_stage.bytes");
static_assert(offsetof(tic_rt_cuda_stage, param) == 16, "cuda_stage.param");
static_assert(sizeof(tic_rt_cuda_stage) == 24, "cuda_stage size");

/// tic_rt_cuda_stage as an LLVM struct: {ptr, i64, ptr}.
inline mlir::LLVM::LLVMStructType cudaStageType(mlir::MLIRContext *ctx) {
  auto ptr = mlir::LLVM::LLVMPointerType::get(ctx);
  return mlir::LLVM::LLVMStructType::getLiteral(
      ctx, {ptr, mlir::IntegerType::get(ctx, 64), ptr});
}

// tic_rt_pool_desc { const char *name; uint64_t element_size, max_elements,
// state_offset; } (ABI 5)
static_assert(offsetof(tic_rt_pool_desc, name) == 0, "pool.name");
static_assert(offsetof(tic_rt_pool_desc, element_size) == 8,
              "pool.element_size");
static_assert(offsetof(tic_rt_pool_desc, max_elements) == 16,
              "pool.max_elements");
static_assert(offsetof(tic_rt_pool_desc, state_offset) == 24,
              "pool.state_offset");
static_assert(sizeof(tic_rt_pool_desc) == 32, "pool desc size");

/// tic_rt_pool_desc as an LLVM struct: {ptr, i64, i64, i64}.
inline mlir::LLVM::LLVMStructType poolDescType(mlir::MLIRContext *ctx) {
  auto i64 = mlir::IntegerType::get(ctx, 64);
  return mlir::LLVM::LLVMStructType::getLiteral(
      ctx, {mlir::LLVM::LLVMPointerType::get(ctx), i64, i64, i64});
}

/// tic_rt_pool_state: eight 64-bit words that generated code addresses by
/// their byte offsets.
enum PoolStateField : int64_t {
  kPoolBase = offsetof(tic_rt_pool_state, base),
  kPoolElementSize = offsetof(tic_rt_pool_state, element_size),
  kPoolCapacity = offsetof(tic_rt_pool_state, capacity),
  kPoolMaxElements = offsetof(tic_rt_pool_state, max_elements),
  kPoolNext = offsetof(tic_rt_pool_state, next),
  kPoolFreeHead = offsetof(tic_rt_pool_state, free_head),
  kPoolPendingHead = offsetof(tic_rt_pool_state, pending_head),
  kPoolLive = offsetof(tic_rt_pool_state, live),
  kPoolFreeList = offsetof(tic_rt_pool_state, free_list),
  kPoolPendingList = offsetof(tic_rt_pool_state, pending_list),
  kPoolFreeCount = offsetof(tic_rt_pool_state, free_count),
  kPoolFreeTaken = offsetof(tic_rt_pool_state, free_taken),
  kPoolPendingCount = offsetof(tic_rt_pool_state, pending_count),
};
constexpr int64_t kPoolStateBytes = sizeof(tic_rt_pool_state);
static_assert(sizeof(tic_rt_pool_state) == 128, "pool state size");

} // namespace abi
} // namespace tic

#endif // TIC_TARGET_RUNTIMEABI_H

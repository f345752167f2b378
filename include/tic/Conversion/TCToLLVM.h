//===- TCToLLVM.h - tc -> LLVM conversion patterns --------------*- C++ -*-===//
//
// The tc ops that depend on the target are lowered by pattern sets (after
// MLIR's ArithToLLVM / GPUToNVVM): what every target shares takes the
// target's TargetInfo as a parameter, what a target does structurally
// differently (how a kernel, a task and a launch become functions and calls)
// is a pattern set of the target's conversion pass:
//
//   convert-tc-to-llvm (CPU)   populateTCToLLVMFunctionPatterns,
//                              populateTCToLLVMLaunchPatterns,
//                              populateTCRuntimeToLLVMPatterns(CPU's)
//   convert-tc-to-gpu (CUDA)   populateTCToGPUPatterns,
//                              populateTCRuntimeToLLVMPatterns(CUDA's)
//
// The function patterns record, per function they create, where its
// implicit values live (FunctionEnvs); the patterns of the ops inside read
// them from there.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_CONVERSION_TCTOLLVM_H
#define TIC_CONVERSION_TCTOLLVM_H

#include "tic/Target/TargetInfo.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace tic {
namespace snode {
class SNodeLayout;
} // namespace snode
namespace tc {
class NDArrayType;
class BlockForOp;
} // namespace tc

/// The implicit values of every function the conversion created.
class FunctionEnvs {
public:
  void set(mlir::Operation *fn, const FunctionEnv &env) { envs[fn] = env; }
  /// The env of the function `op` is in, or null.
  const FunctionEnv *lookup(mlir::Operation *op) const;

private:
  llvm::DenseMap<mlir::Operation *, FunctionEnv> envs;
};

/// An ndarray inside a generated function is a descriptor: an
/// unrealized_conversion_cast of its data pointer (!llvm.ptr) and extents
/// (i64, one per dimension) to its tc.ndarray type. How the pointer and the
/// extents reach the function is the target's (CPU: the tc_ndarray a kernel
/// receives, a task's closure; CUDA: kernel parameters); the element
/// accesses on a descriptor are shared.
mlir::Value createNDArrayDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                                    tc::NDArrayType type, mlir::Value data,
                                    mlir::ValueRange extents);
struct NDArrayParts {
  mlir::Value data;
  mlir::ValueRange extents;
};
/// The parts of `ndarray` when it is a descriptor.
std::optional<NDArrayParts> getNDArrayParts(mlir::Value ndarray);

/// Every target: tc.random, tc.print, tc.assert, tc.bounds_check and
/// snode.root_ptr through `target`'s hooks (with the env of the function
/// they are in), tc.ndarray_load / store / atomic_rmw / dim on descriptors
/// (row-major i64 address arithmetic, llvm.load / store / atomicrmw).
void populateTCRuntimeToLLVMPatterns(mlir::RewritePatternSet &patterns,
                                     const TargetInfo &target,
                                     const FunctionEnvs &envs,
                                     const snode::SNodeLayout &layout);
/// The ndarray part of populateTCRuntimeToLLVMPatterns.
void populateTCNDArrayToLLVMPatterns(mlir::RewritePatternSet &patterns);
/// Marks the ops populateTCRuntimeToLLVMPatterns lowers illegal.
void addTCRuntimeIllegalOps(mlir::ConversionTarget &target);

/// The CPU, first stage: tc.kernel @k -> func.func @k(%ctx, params) (an
/// ndarray parameter is a tc_ndarray pointer, loaded into a descriptor at
/// entry); tc.task @t -> llvm.func internal @t(closure, begin, end, tid)
/// (context and captures loaded from the closure); tc.return -> the
/// function's return.
void populateTCToLLVMFunctionPatterns(const mlir::LLVMTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      FunctionEnvs &envs);
/// What the host side of a --target=cuda object knows of its device code.
struct CUDALaunches {
  /// The tasks whose kernels take a seed (they call random()).
  llvm::StringSet<> usesRandom;
  /// The tasks that check assertions or indices (their launches wait and
  /// report the device's failure record).
  llvm::StringSet<> checked;
  /// The tasks that may free cells of sparse SNodes (the runtime recycles
  /// them before the next launch).
  llvm::StringSet<> frees;
  /// The tasks whose iterations run on a block of threads each
  /// (tc.block_for).
  llvm::StringSet<> blocks;
};

/// Replaces a tc.block_for by one loop over its linear index from `first`
/// to its trip count by `step` (i32 values at the op, e.g. 0 and 1 for one
/// thread), the body's indices unflattened row-major from it. Leaves the
/// builder's insertion point after that loop.
void lowerBlockFor(mlir::OpBuilder &b, tc::BlockForOp op, mlir::Value first,
                   mlir::Value step);

/// The CPU, second stage: tc.launch -> a stack closure and
/// tic_rt_parallel_for (a direct call when `serialize`); with `cuda`, a
/// tic_rt_cuda_launch instead when the context is on a device.
/// tc.field_copy -> tic_rt_field_read / tic_rt_field_write.
void populateTCToLLVMLaunchPatterns(const mlir::LLVMTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const FunctionEnvs &envs,
                                    const CUDALaunches *cuda = nullptr);

/// CUDA, the device side: tc.task -> gpu.func kernel in `gpuModule` (a
/// grid-stride loop over the task's iterations; the root buffer, the
/// captures, the number of iterations and, where random() is used, a seed
/// are parameters); tc.kernel is erased (the host side is the CUDA
/// runtime's). Small bodies run `unroll` grid-stride iterations per trip;
/// the reductions of the tasks in `wholeWarps` (launched on whole warps,
/// mapped to their block_dim, 0 where the runtime picks it) are combined
/// across each warp, then across the block, before their one atomic.
void populateTCToGPUPatterns(mlir::RewritePatternSet &patterns,
                             mlir::gpu::GPUModuleOp gpuModule,
                             FunctionEnvs &envs, unsigned unroll,
                             const llvm::StringMap<uint32_t> &wholeWarps);

} // namespace tic

#endif

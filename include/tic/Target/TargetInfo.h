//===- TargetInfo.h - what the lowering asks of a target -------*- C++ -*-===//
//
// One object per target (after Triton's TargetInfoBase): the CPU's in
// lib/Target/CPU/CPUTargetInfo.cpp, CUDA's in lib/Target/CUDA/
// CUDATargetInfo.cpp. The pattern set every target shares
// (populateTCRuntimeToLLVMPatterns in tic/Conversion/TCToLLVM.h: tc.random,
// tc.print, tc.assert, tc.bounds_check, snode.root_ptr) takes it as a
// parameter; what a target does structurally differently (how kernels,
// tasks and launches become functions and calls) is a pattern set of its
// own conversion, and the snode and ndarray lowerings are the same for
// every target.
//
//===----------------------------------------------------------------------===//
#ifndef TIC_TARGET_TARGETINFO_H
#define TIC_TARGET_TARGETINFO_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace tic {
namespace snode {
class SNodeLayout;
} // namespace snode

/// The implicit values of one generated function (kernel or task) that the
/// hooks need; which ones are set depends on the target.
struct FunctionEnv {
  mlir::Value context;    ///< CPU: the tic_rt_context pointer
  mlir::Value threadId;   ///< CPU: the worker's index (i32)
  mlir::Value rootBuffer; ///< CUDA: the root buffer parameter
  mlir::Value rngState;   ///< CUDA: the thread's PCG32 state (memref<i64>)
  mlir::Value rngInc;     ///< CUDA: the thread's PCG32 increment (i64)
};

class TargetInfo {
public:
  virtual ~TargetInfo();
  /// "cpu", "cuda".
  virtual llvm::StringRef getName() const = 0;
  /// The context's root buffer, as !llvm.ptr.
  virtual mlir::Value getRootBuffer(mlir::OpBuilder &b, mlir::Location loc,
                                    const FunctionEnv &env) const = 0;
  /// A uniform random value of type `t`: f32 / f64 in [0, 1), or 32
  /// random bits (i32).
  virtual mlir::Value random(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Type t, const FunctionEnv &env) const = 0;
  /// Prints one line, printf-style; `args` are promoted as for C varargs
  /// (f64, i32 or wider).
  virtual void print(mlir::OpBuilder &b, mlir::Location loc,
                     llvm::StringRef format, mlir::ValueRange args,
                     const FunctionEnv &env) const = 0;
  /// Reports a failed assertion with `message` when `cond` is false.
  virtual void assertTrue(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value cond, llvm::StringRef message,
                          const FunctionEnv &env) const = 0;
  /// Reports an out-of-range index of `field` on `axis` when
  /// !(index <u extent) (both i32).
  virtual void checkIndex(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value index, mlir::Value extent,
                          llvm::StringRef field, unsigned axis,
                          const FunctionEnv &env) const = 0;
  /// The run-time validation of the access rules (ad.record_access, the
  /// same code on every target): the state words of the `count` scalars of
  /// `field` (!llvm.ptr to i32 words holding a TIC_RT_AD_* byte per
  /// element), null (!llvm.ptr) while no tape records; a null Value on a
  /// target that does not validate (the accesses are then not checked).
  virtual mlir::Value accessRuleState(mlir::OpBuilder &b, mlir::Location loc,
                                      llvm::StringRef field, int64_t count,
                                      const FunctionEnv &env) const {
    return {};
  }
  /// Reports that `kernel` broke an access rule at element `index` (i64) of
  /// `field`: `what` (i32) is TIC_RT_AD_WRITE_AFTER_WRITE ... (tic/rt.h).
  virtual void reportAccessRule(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::StringRef kernel, llvm::StringRef field,
                                mlir::Value index, mlir::Value what,
                                const FunctionEnv &env) const {}
  /// tc.num_threads: the threads parallel loops run on (i32); null when the
  /// target has no such count (the op is then rejected).
  virtual mlir::Value numThreads(mlir::OpBuilder &b, mlir::Location loc,
                                 const FunctionEnv &env) const {
    return {};
  }
  /// tc.on_device (host code): whether the context runs its launches on a
  /// GPU (i1); null when the target has no host code (the op is then
  /// rejected).
  virtual mlir::Value onDevice(mlir::OpBuilder &b, mlir::Location loc,
                               const FunctionEnv &env) const {
    return {};
  }
  /// tc.scratch: the base (!llvm.ptr, null when it cannot be allocated) of
  /// `bytes` (i64) zeroed bytes of scratch slot `slot`; a null Value when
  /// the target has no scratch memory (the op is then rejected).
  virtual mlir::Value scratch(mlir::OpBuilder &b, mlir::Location loc,
                              int32_t slot, mlir::Value bytes,
                              const FunctionEnv &env) const {
    return {};
  }
  /// snode.hash_block: `bytes` (i64) zeroed bytes for the grown bucket
  /// heads of a table of the hash node with pool `pool`, whose header's
  /// block slot is `owner` (!llvm.ptr), owned by the runtime (freed once
  /// `owner` no longer holds it); null (!llvm.ptr) without memory. A null
  /// Value when the target has none (the op is then rejected).
  virtual mlir::Value hashBlock(mlir::OpBuilder &b, mlir::Location loc,
                                int32_t pool, mlir::Value owner,
                                mlir::Value bytes,
                                const FunctionEnv &env) const {
    return {};
  }
  /// snode.pool_bound: at least the count of pool `pool`'s elements handed
  /// out (i32), known to host code without reading device memory; a null
  /// Value when the target has no host code (the op is then rejected).
  virtual mlir::Value poolBound(mlir::OpBuilder &b, mlir::Location loc,
                                int32_t pool, const FunctionEnv &env) const {
    return {};
  }
  /// Fresh element `index` (i64) of pool `pool` (of SNode `node`), at or
  /// past its `capacity` (i64): the element, or null (as !llvm.ptr) with
  /// the failure reported. The rest of allocating and freeing cells is the
  /// same on every target (tic/Conversion/PoolLowering.h).
  virtual mlir::Value allocateBeyondCapacity(mlir::OpBuilder &b,
                                             mlir::Location loc, int32_t pool,
                                             llvm::StringRef node,
                                             mlir::Value index,
                                             mlir::Value capacity,
                                             const FunctionEnv &env) const = 0;
};

/// The CPU: calls into libtic_runtime (tic_rt_root, tic_rt_rand_*,
/// tic_rt_print, tic_rt_report_*), declared in `module` on first use.
std::unique_ptr<TargetInfo> createCPUTargetInfo(mlir::ModuleOp module);
/// CUDA: a PCG32 stream per GPU thread, gpu.printf, cf.assert.
std::unique_ptr<TargetInfo> createCUDATargetInfo();
/// CUDA: the PCG32 stream of global thread `thread` (i64) from the launch's
/// `seed` (i64), seeded as the CPU seeds worker `thread`: returns the state
/// slot (memref<i64>, in the function) and the increment, for FunctionEnv.
std::pair<mlir::Value, mlir::Value> seedCUDARandom(mlir::OpBuilder &b,
                                                   mlir::Location loc,
                                                   mlir::Value seed,
                                                   mlir::Value thread);

} // namespace tic

#endif

//===- Internal.h - Private definitions of libtic_runtime ------*- C++ -*-===//
//
// The layout of tic_rt_context and helpers shared by the runtime's source
// files. Nothing here is part of the ABI: generated code only sees the opaque
// tic_rt_context through the functions of tic/rt.h.
//
// The runtime is C++17 without exceptions, RTTI or the C++ standard library's
// run-time parts (no operator new, std::string, std::vector, std::mutex,
// std::thread): a program that links libtic_runtime.a from C needs only libc
// and libpthread.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_RUNTIME_SRC_INTERNAL_H
#define TIC_RUNTIME_SRC_INTERNAL_H

#include "tic/rt.h"

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <pthread.h>

namespace tic {
namespace rt {

/// Size of a cache line; per-thread state is padded to it to avoid false
/// sharing, and the root buffer is aligned to it at least.
constexpr size_t kCacheLine = 64;

/// Capacity of the stored error message, terminating NUL included; longer
/// messages are truncated.
constexpr size_t kErrorCapacity = 1024;

/// Elements a pool has beyond its SNode's most cells: those that threads
/// whose hash insert lost a race give back, reused after the launch.
/// Address space on the CPU; device memory on a GPU.
constexpr uint64_t kPoolRaceRoom = 65536;

/// State of one PCG32 generator (O'Neill, pcg-random.org), one per thread.
struct alignas(kCacheLine) RngState {
  uint64_t state;
  uint64_t inc; // stream selector, always odd
};

struct AccessLog;
/// Frees the access log of the access-rule validation (Tape.cpp).
void destroyAccessLog(AccessLog *log);

/// One recorded launch on the autodiff tape.
struct TapeEntry {
  tic_rt_kernel_fn fn;
  void *args; // malloc'd copy (NULL when size is 0)
  size_t size;
};

/// The integer stored in an enum member written by C code, read without
/// assuming it is one of the enumerators (C callers may store any int).
template <typename Enum> int rawEnumValue(const Enum &e) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
  int v;
  std::memcpy(&v, &e, sizeof(v));
  return v;
}

/// Seeds `rng` for thread `threadIndex` from the context seed.
void seedRng(RngState &rng, uint64_t seed, uint32_t threadIndex);

/// Formats into `buf` (capacity `cap`, always NUL-terminated).
void formatMessage(char *buf, size_t cap, const char *fmt, va_list ap);

/// Records a kernel failure, callable from parallel tasks: the first one
/// since the last tic_rt_take_kernel_status wins, both for the status and for
/// the message. NULL ctx: the calling thread's last error. Returns `status`.
tc_status reportKernelFailure(tic_rt_context *ctx, tc_status status,
                              const char *fmt, ...) TC_PRINTF_FORMAT(3, 4);

/// Loads the CUDA driver (dlopen("libcuda.so.1"), once per process), calls
/// cuInit and opens GPU 0's primary context (Cuda.cpp). TC_ERR_NO_DEVICE
/// with the reason in `why` (capacity `whyCap`) when there is none.
tc_status cudaLoaderInit(char *why, size_t whyCap);

/// A context's state on the device (Cuda.cpp).
struct CudaState;
/// Puts `ctx` on the device: its zeroed root buffer of `size` bytes in
/// device memory, aligned to `align` (a power of two). On failure the
/// message is recorded on the calling thread.
tc_status cudaCreateContext(tic_rt_context *ctx, uint64_t size, uint64_t align);
/// Waits for the device and frees what cudaCreateContext and the launches
/// allocated (no-op for a CPU context).
void cudaDestroyContext(tic_rt_context *ctx);
/// The name of the GPU in use ("" before cudaLoaderInit succeeded).
const char *cudaDeviceName();
/// Pool `i` of `desc`: descriptors of ABI 3 and 4 have no state_offset
/// (their table's entries are three members long; state_offset reads 0).
inline tic_rt_pool_desc poolDescAt(const tic_rt_module_desc *desc, int32_t i) {
  if (desc->abi_version >= 5)
    return desc->pools[i];
  struct V3 {
    const char *name;
    uint64_t element_size, max_elements;
  };
  const V3 &old = reinterpret_cast<const V3 *>(desc->pools)[i];
  tic_rt_pool_desc pd{};
  pd.name = old.name;
  pd.element_size = old.element_size;
  pd.max_elements = old.max_elements;
  return pd;
}
inline const char *poolName(const tic_rt_module_desc *desc, int32_t i) {
  return poolDescAt(desc, i).name;
}
/// The pools of a device context (ABI 5): device memory for each, zeroed,
/// and its tic_rt_pool_state written to the device root buffer.
/// The state offsets are checked (tic_rt_context_create). With the driver's
/// virtual memory API (ABI 6) each reserves address space for all its
/// cells and maps part of it (CudaPools.cpp).
tc_status cudaCreatePools(tic_rt_context *ctx);
/// Frees the pools' device memory (the device is idle).
void cudaFreePools(tic_rt_context *ctx);
/// Where the host has just waited for the device (it is idle) and a kernel
/// ran since the last look: maps more memory into each reserved pool whose
/// bump index passed half of what is mapped, and raises its capacity.
void cudaGrowPools(tic_rt_context *ctx);
/// After a launch, when the driver has asynchronous copies and a pool may
/// still grow: reads the pools' states behind it into pinned host memory,
/// the host not waiting, unless such a read is in flight.
void cudaReadPoolStates(tic_rt_context *ctx);
/// Before a launch: when the states read by cudaReadPoolStates have
/// arrived, grows the pools from them as cudaGrowPools does, raising the
/// capacities with asynchronous copies ahead of the launch (stream order);
/// else nothing, the host not waiting.
void cudaGrowPoolsFromRead(tic_rt_context *ctx);
/// Launches the module's pool collect kernel (TIC_RT_POOL_COLLECT_KERNEL),
/// asynchronously, when it has one and launched anything.
void cudaCollectPools(tic_rt_context *ctx);
/// Recycles the cells freed in the pools of a CPU context (between loops:
/// no task runs). Nothing on a device context.
void collectPools(tic_rt_context *ctx);
/// A tape starts (`on`: the module's access-rule states cleared, its flag
/// set) or ends (the flag cleared) on a device context compiled with -g.
void cudaSetTapeRecording(tic_rt_context *ctx, bool on);
/// The elements mapped for device pool `pool` now: at least its count at
/// the next launch (no wait; tic_rt_snode_pool_bound).
uint64_t cudaPoolBound(const tic_rt_context *ctx, int32_t pool);
/// Statistics of device pool `pool` (waits for the device).
void cudaPoolStats(tic_rt_context *ctx, int32_t pool, tic_rt_pool_stats *out);

/// One launch of tic_rt_parallel_for: `numChunks` chunks of `grain` indices
/// over [begin, begin + n); thread t of `team` runs the t-th contiguous block
/// of about numChunks / team chunks.
struct ParallelJob {
  tic_rt_context *ctx;
  tic_rt_task_fn fn;
  void *closure;
  int64_t begin;
  uint64_t n;
  uint64_t grain;
  uint64_t numChunks;
  uint64_t team;
  bool watchFailures; // stop once a task reports a kernel failure
  uint32_t fpMode;    // the launching thread's floatModeBits()
};

/// The bits of the calling thread's floating-point control that the
/// launching thread passes on to the workers running its loop: on x86 the
/// MXCSR flush-to-zero and denormals-are-zero bits (set by kernels compiled
/// with --denormals=flush); 0 elsewhere.
uint32_t floatModeBits();

/// Makes the calling thread's floatModeBits() equal to `bits` (the other
/// control bits stay as they are).
void setFloatModeBits(uint32_t bits);

/// Runs part `part` of `parts` of `job`'s chunks (a contiguous block of
/// them) on the calling thread as thread `threadId` (Parallel.cpp).
void runJobChunks(const ParallelJob &job, uint64_t part, uint64_t parts,
                  int32_t threadId);

/// The context's worker threads (ThreadPool.cpp).
struct ThreadPool;
struct WorkerSlot;

/// Runs `job` (team >= 2) with the calling thread as thread 0 and the
/// context's workers as threads 1 .. team - 1; starts the workers on first
/// use. Returns when every chunk is done. False, having run nothing, when no
/// pool can be set up or another launch on the same context is in progress.
bool runOnPool(tic_rt_context *ctx, const ParallelJob &job);

/// Stops and joins the workers and frees `pool` (NULL: no-op).
void destroyThreadPool(ThreadPool *pool);

/// The pool thread index of the calling thread while it runs tasks of a
/// launch (workers: always), else -1.
int32_t currentPoolThread();

/// CPUs this process may run on (affinity mask), at least 1.
int32_t availableCpus();

/// The thread count requested by an OMP_NUM_THREADS value (its first list
/// entry), or 0 when `ompNumThreads` is NULL or not a number in [1, max].
int32_t parseThreadCount(const char *ompNumThreads, int32_t max);

/// How long idle pool threads spin before sleeping, in microseconds, from the
/// values of TIC_SPIN_US and OMP_WAIT_POLICY (NULL: unset) for a pool of
/// `threads` threads on `cpus` CPUs. See docs/runtime.md.
uint32_t resolveSpinMicros(const char *ticSpinUs, const char *ompWaitPolicy,
                           int32_t threads, int32_t cpus);

} // namespace rt
} // namespace tic

/// The runtime state behind every generated `MODULE_ctx`.
namespace tic::rt {
/// One slot of tic_rt_scratch.
struct ScratchSlot {
  void *data = nullptr;
  uint64_t bytes = 0;
};
/// The header of a block of tic_rt_hash_block (the heads follow it), in a
/// list of the context's blocks.
struct HashBlock {
  HashBlock *prev, *next;
  void *const *owner; // the table header's slot that names the block
  uint64_t bytes;     // of heads
  int32_t pool;
  char pad[64 - 2 * sizeof(void *) - sizeof(void *) - 8 - 4];
};
static_assert(sizeof(HashBlock) == 64, "heads keep the allocation's alignment");
/// Frees the blocks of tic_rt_hash_block that no table header names any
/// more (between loops: no task runs); with `all`, every block (the
/// context goes).
void sweepHashBlocks(tic_rt_context *ctx, bool all);
/// The bytes of the context's tic_rt_hash_block blocks of pool `pool` (-1:
/// of all pools), headers included.
uint64_t hashBlockBytes(tic_rt_context *ctx, int32_t pool);
} // namespace tic::rt

struct tic_rt_context {
  const tic_rt_module_desc *desc = nullptr;
  tc_options opts{}; // resolved: arch is never ANY, num_threads never 0

  // Dense root buffer (device memory when `cuda` is set).
  void *root = nullptr;
  uint64_t rootSize = 0;     // desc->root_size
  size_t rootAllocBytes = 0; // bytes actually reserved
  bool rootMapped = false;   // true: munmap, false: free

  // Set when the context runs its kernels on a CUDA device (Cuda.cpp).
  tic::rt::CudaState *cuda = nullptr;

  // One generator per thread (numThreads entries, cache-line aligned).
  tic::rt::RngState *rng = nullptr;
  int32_t numThreads = 1;

  // Worker threads, started by the first launch that needs them.
  tic::rt::ThreadPool *pool = nullptr;

  // Last error message; guarded by errorLock because parallel tasks may
  // report failures concurrently.
  pthread_mutex_t errorLock = PTHREAD_MUTEX_INITIALIZER;
  char lastError[tic::rt::kErrorCapacity] = {0};

  // First failure reported by a kernel task since the last
  // tic_rt_take_kernel_status (a tc_status, TC_OK when none).
  std::atomic<int> kernelStatus{TC_OK};

  // Pools of the pointer SNodes (desc->pools), numPools entries.
  tic_rt_pool **pools = nullptr;
  int32_t numPools = 0;

  // Autodiff tape.
  std::atomic<bool> tapeRecording{false};
  /// The access log of the global data access rules' validation (kernels
  /// compiled with -g, while a tape records; Tape.cpp). Null until used.
  std::atomic<tic::rt::AccessLog *> accessLog{nullptr};
  tic::rt::TapeEntry *tape = nullptr;
  size_t tapeSize = 0;
  size_t tapeCapacity = 0;

  // Scratch slots of generated code (tic_rt_scratch): zeroed memory that
  // the code returns to zero after each use. numScratch entries.
  tic::rt::ScratchSlot *scratch = nullptr;
  int32_t numScratch = 0;

  // Grown bucket heads of hash tables below other nodes
  // (tic_rt_hash_block), a list guarded by hashBlockLock.
  pthread_mutex_t hashBlockLock = PTHREAD_MUTEX_INITIALIZER;
  tic::rt::HashBlock *hashBlocks = nullptr;
};

#endif // TIC_RUNTIME_SRC_INTERNAL_H

//===- Parallel.cpp - CPU parallel-for on the runtime's threads -----------===//
//
// Generated code never emits OpenMP or threads itself: every parallel loop is
// a call to tic_rt_parallel_for with a task function and a closure. The
// runtime splits the range into chunks and runs them on the context's own
// worker threads (ThreadPool.cpp).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#ifdef __SSE__
#include <xmmintrin.h>
#endif

using namespace tic::rt;

namespace {

/// Chunks per thread when the caller lets the runtime choose the grain: small
/// enough for load balance, large enough to amortize the call overhead.
constexpr uint64_t kChunksPerThread = 8;

/// MXCSR: flush-to-zero (bit 15) and denormals-are-zero (bit 6).
constexpr uint32_t kFtzDaz = 0x8040;

} // namespace

uint32_t tic::rt::floatModeBits() {
#ifdef __SSE__
  return _mm_getcsr() & kFtzDaz;
#else
  return 0;
#endif
}

void tic::rt::setFloatModeBits(uint32_t bits) {
#ifdef __SSE__
  uint32_t csr = _mm_getcsr();
  if ((csr & kFtzDaz) != bits)
    _mm_setcsr((csr & ~kFtzDaz) | (bits & kFtzDaz));
#else
  (void)bits;
#endif
}

void tic::rt::runJobChunks(const ParallelJob &job, uint64_t part,
                           uint64_t parts, int32_t threadId) {
  // Part p of `parts` is one contiguous block of chunks (OpenMP's static
  // schedule): neighbouring iterations, which tend to touch neighbouring
  // memory, stay on one thread. Scatters from particles sorted in space
  // (MPM's P2G) then rarely contend for a cache line across threads.
  uint64_t first =
      job.numChunks / parts * part +
      (part < job.numChunks % parts ? part : job.numChunks % parts);
  uint64_t count = job.numChunks / parts + (part < job.numChunks % parts);
  for (uint64_t c = first; c < first + count; ++c) {
    if (job.watchFailures &&
        job.ctx->kernelStatus.load(std::memory_order_relaxed) != TC_OK)
      return;
    uint64_t lo = c * job.grain;
    uint64_t len = job.n - lo < job.grain ? job.n - lo : job.grain;
    // Unsigned arithmetic wraps like two's complement, so ranges whose
    // length does not fit in int64_t still produce correct bounds.
    int64_t b = int64_t(uint64_t(job.begin) + lo);
    int64_t e = int64_t(uint64_t(job.begin) + lo + len);
    job.fn(job.closure, b, e, threadId);
  }
}

namespace {
/// Loops this thread is running tasks of (tic_rt_parallel_for calls).
thread_local int32_t loopDepth = 0;
struct LoopDepthGuard {
  LoopDepthGuard() { ++loopDepth; }
  ~LoopDepthGuard() { --loopDepth; }
  LoopDepthGuard(const LoopDepthGuard &) = delete;
  LoopDepthGuard &operator=(const LoopDepthGuard &) = delete;
};
} // namespace

extern "C" void tic_rt_parallel_for(tic_rt_context *ctx, int64_t begin,
                                    int64_t end, int64_t grain,
                                    tic_rt_task_fn fn, void *closure) {
  if (!fn || end <= begin)
    return;
  uint64_t n = uint64_t(end) - uint64_t(begin);
  uint64_t threads = uint64_t(tic_rt_num_threads(ctx));

  uint64_t g;
  if (grain > 0) {
    g = uint64_t(grain);
  } else {
    uint64_t parts = threads * kChunksPerThread;
    g = n / parts + (n % parts != 0);
    if (g == 0)
      g = 1;
  }
  uint64_t numChunks = n / g + (n % g != 0);

  // Skip remaining chunks once a task reports a failure, unless a failure
  // was already pending (not yet taken) when the loop started.
  bool watchFailures =
      ctx && ctx->kernelStatus.load(std::memory_order_relaxed) == TC_OK;

  // A call from inside a task of another loop stays on its thread and keeps
  // that thread's id.
  int32_t current = currentPoolThread();
  bool nested = current >= 0;
  int32_t callerId = nested ? int32_t(uint64_t(current) % threads) : 0;
  // Cells freed by the loops before this one (or by host code) are
  // recycled now: no task of theirs runs any more, and this loop may
  // activate as many (a kernel that empties a grid and fills it again).
  // Not from inside a task (a worker's, or one this thread runs).
  if (ctx && !nested && loopDepth == 0)
    tic::rt::collectPools(ctx);
  LoopDepthGuard inLoop;

  if (numChunks == 1) {
    fn(closure, begin, end, callerId);
    return;
  }

  ParallelJob job{ctx,
                  fn,
                  closure,
                  begin,
                  n,
                  g,
                  numChunks,
                  /*team=*/1,
                  watchFailures,
                  floatModeBits()};
  if (ctx && threads > 1 && !nested) {
    job.team = threads < numChunks ? threads : numChunks;
    if (runOnPool(ctx, job))
      return;
    // No threads could be set up: run every chunk here, still with the
    // chunk -> thread_id mapping of the team.
    for (uint64_t t = 0; t < job.team; ++t)
      runJobChunks(job, t, job.team, int32_t(t));
    return;
  }
  runJobChunks(job, 0, 1, callerId);
}

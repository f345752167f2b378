//===- Parallel.cpp - CPU parallel-for over OpenMP threads ----------------===//
//
// Generated code never emits OpenMP itself: every parallel loop is a call to
// tic_rt_parallel_for with a task function and a closure. This keeps the
// objects free of the choice of OpenMP runtime (libgomp vs libomp).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

/// Chunks per thread when the caller lets the runtime choose the grain: small
/// enough for load balance, large enough to amortize the call overhead.
constexpr uint64_t kChunksPerThread = 8;

/// Runs the chunks c = first, first + stride, ... of the loop on the calling
/// thread. Stops early when a kernel failure is reported during this loop.
void runChunks(tic_rt_context *ctx, int64_t begin, uint64_t n, uint64_t grain,
               uint64_t numChunks, uint64_t first, uint64_t stride,
               tic_rt_task_fn fn, void *closure, int32_t threadId,
               bool watchFailures) {
  for (uint64_t c = first; c < numChunks; c += stride) {
    if (watchFailures &&
        ctx->kernelStatus.load(std::memory_order_relaxed) != TC_OK)
      return;
    uint64_t lo = c * grain;
    uint64_t len = n - lo < grain ? n - lo : grain;
    // Unsigned arithmetic wraps like two's complement, so ranges whose
    // length does not fit in int64_t still produce correct bounds.
    int64_t b = int64_t(uint64_t(begin) + lo);
    int64_t e = int64_t(uint64_t(begin) + lo + len);
    fn(closure, b, e, threadId);
  }
}

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

  // A call from inside a parallel region (a task of another loop) stays on
  // its thread and keeps that thread's id.
  int32_t callerId = 0;
  bool nested = false;
#ifdef _OPENMP
  nested = omp_in_parallel() != 0;
  if (nested)
    callerId = int32_t(uint64_t(omp_get_thread_num()) % threads);
#endif

  if (numChunks == 1) {
    fn(closure, begin, end, callerId);
    return;
  }

#ifdef _OPENMP
  if (threads > 1 && !nested) {
    int teamSize = int(threads < numChunks ? threads : numChunks);
#pragma omp parallel num_threads(teamSize)
    {
      // Static round-robin assignment: chunk c runs on thread c % team.
      uint64_t tid = uint64_t(omp_get_thread_num());
      uint64_t team = uint64_t(omp_get_num_threads());
      runChunks(ctx, begin, n, g, numChunks, tid, team, fn, closure,
                int32_t(tid), watchFailures);
    }
    return;
  }
#endif
  runChunks(ctx, begin, n, g, numChunks, 0, 1, fn, closure, callerId,
            watchFailures);
}

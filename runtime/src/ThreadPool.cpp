//===- ThreadPool.cpp - The runtime's worker threads ----------------------===//
//
// Each context owns up to num_threads - 1 worker threads, started on its first
// parallel launch; the launching thread always works as thread 0. A launch
// opens one share per worker (the chunks of thread_id w), wakes the workers
// through a per-worker futex word and runs its own share. Then it runs every
// share that no worker has claimed yet itself, with that share's thread_id,
// and waits only for workers that are running theirs. So a launch never
// waits for a worker that is asleep or has no CPU (a loaded machine): at
// worst it runs at the speed of one thread.
//
// Idle threads (workers between launches, the launcher waiting for the last
// worker) spin for a short time, yielding the CPU to any other runnable
// thread, and then sleep on a futex. Spinning keeps back-to-back launches
// cheap; yielding and sleeping soon keep a loaded machine usable. (libgomp's
// default spins for milliseconds and takes the time slice the partner thread
// needs whenever cores are shared: 2-thread runs were 7-80x slower than
// 1-thread runs on a busy 2-core machine, docs/performance.md.) The spin time
// is TIC_SPIN_US, else derived from OMP_WAIT_POLICY, else kDefaultSpinUs
// (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

using namespace tic::rt;

namespace {

/// Spin time of idle threads when neither TIC_SPIN_US nor OMP_WAIT_POLICY
/// says otherwise (measured in docs/performance.md).
constexpr uint32_t kDefaultSpinUs = 50;
/// Spin time for OMP_WAIT_POLICY=active.
constexpr uint32_t kActiveSpinUs = 10000;
/// Spin rounds with a pause instruction before spinning turns to
/// sched_yield.
constexpr uint32_t kPauseRounds = 64;
/// Upper bound of TIC_SPIN_US.
constexpr uint32_t kMaxSpinUs = 1000000;

/// Incremented in the child after fork(): the child has none of the parent's
/// worker threads, so pools created before the fork are abandoned.
std::atomic<uint32_t> forkEpoch{0};
pthread_once_t atforkOnce = PTHREAD_ONCE_INIT;

void onForkChild() { forkEpoch.fetch_add(1, std::memory_order_relaxed); }
void registerAtfork() { pthread_atfork(nullptr, nullptr, onForkChild); }

/// Index of the pool thread running on this OS thread: the worker's index on
/// a worker, 0 on a launching thread while it runs its own chunks, -1
/// otherwise.
thread_local int32_t currentThreadIndex = -1;

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

/// Sleeps while `*word == expected` (or returns at once when it differs).
/// May return spuriously.
void futexWait(std::atomic<uint32_t> *word, uint32_t expected) {
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAIT_PRIVATE,
          expected, nullptr, nullptr, 0);
#else
  (void)expected;
  timespec ts = {0, 50000};
  nanosleep(&ts, nullptr);
#endif
}

/// Wakes the threads sleeping in futexWait on `word`.
void futexWakeAll(std::atomic<uint32_t> *word) {
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE_PRIVATE,
          INT32_MAX, nullptr, nullptr, 0);
#else
  (void)word;
#endif
}

/// Spins up to `spinUs` microseconds until `done()`; true when it became so.
/// After a few rounds of pause instructions each round yields the CPU, so
/// that a spinning thread runs only when no other thread wants its CPU.
template <typename Pred> bool spinUntil(uint32_t spinUs, Pred done) {
  if (spinUs == 0)
    return false;
  uint64_t deadline = nowNs() + uint64_t(spinUs) * 1000;
  for (uint32_t i = 1;; ++i) {
    if (done())
      return true;
    if (i < kPauseRounds) {
      cpuRelax();
      continue;
    }
    sched_yield();
    if (nowNs() >= deadline)
      return done();
  }
}

/// Waits until `word` differs from `old` and returns its new value: spins,
/// then sleeps. `sleeping` tells wakers that a futex wake is needed.
uint32_t waitForChange(std::atomic<uint32_t> &word, uint32_t old,
                       std::atomic<uint32_t> &sleeping, uint32_t spinUs) {
  uint32_t v;
  if (spinUntil(spinUs, [&] {
        return (v = word.load(std::memory_order_acquire)) != old;
      }))
    return v;
  for (;;) {
    // Paired with the seq_cst store + load in wake(): either the waker sees
    // `sleeping` and wakes us, or we see its new value here.
    sleeping.store(1, std::memory_order_seq_cst);
    v = word.load(std::memory_order_seq_cst);
    if (v == old)
      futexWait(&word, old);
    sleeping.store(0, std::memory_order_relaxed);
    v = word.load(std::memory_order_acquire);
    if (v != old)
      return v;
  }
}

/// Changes `word` (owned by the calling thread) and wakes the thread that
/// waits for it to change.
void wake(std::atomic<uint32_t> &word, std::atomic<uint32_t> &sleeping) {
  word.store(word.load(std::memory_order_relaxed) + 1,
             std::memory_order_seq_cst);
  if (sleeping.load(std::memory_order_seq_cst))
    futexWakeAll(&word);
}

/// Parses a decimal integer in [0, max]; -1 when `s` is not one.
int64_t parseUnsigned(const char *s, int64_t max) {
  if (!s)
    return -1;
  while (*s == ' ' || *s == '\t')
    ++s;
  if (*s < '0' || *s > '9')
    return -1;
  int64_t v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    v = v * 10 + (*s - '0');
    if (v > max)
      return -1;
  }
  while (*s == ' ' || *s == '\t')
    ++s;
  return *s == '\0' ? v : -1;
}

bool equalsIgnoreCase(const char *a, const char *b) {
  for (; *a && *b; ++a, ++b) {
    char x = *a >= 'A' && *a <= 'Z' ? char(*a - 'A' + 'a') : *a;
    if (x != *b)
      return false;
  }
  return *a == *b;
}

} // namespace

/// One worker thread's slot, in its own cache line.
struct alignas(kCacheLine) tic::rt::WorkerSlot {
  /// Futex word: incremented by the launcher for every launch (and for the
  /// shutdown) it hands to this worker.
  std::atomic<uint32_t> generation{0};
  std::atomic<uint32_t> sleeping{0};
  /// Even: this worker's share of the current launch is open; odd: it was
  /// claimed, by the worker or by the launcher (see runOnPool).
  std::atomic<uint64_t> claim{1};
  ThreadPool *pool = nullptr;
  int32_t index = 0;
  pthread_t thread;
};

struct tic::rt::ThreadPool {
  ParallelJob job;      // the current launch; written before publishing
  int32_t capacity = 0; // num_threads - 1
  int32_t started = 0;  // workers 1..started are running
  uint32_t spinUs = 0;
  uint32_t epoch = 0; // forkEpoch when the workers were started
  std::atomic<bool> busy{false};
  std::atomic<bool> stop{false};
  WorkerSlot *slots = nullptr; // capacity + 1 entries; [0] is unused

  /// Workers of the current launch that have not finished (futex word).
  alignas(kCacheLine) std::atomic<uint32_t> pending{0};
  std::atomic<uint32_t> launcherSleeping{0};
};

namespace {

void runSlice(const ParallelJob &job, int32_t index) {
  runJobChunks(job, uint64_t(index), job.team, index);
}

/// Claims `slot`'s share of the open launch; false when there is none or
/// someone else claimed it. The acquire pairs with the launcher's release
/// when it opened the launch, so the claimer sees the job.
bool claimSlice(WorkerSlot &slot) {
  uint64_t c = slot.claim.load(std::memory_order_acquire);
  return (c & 1) == 0 && slot.claim.compare_exchange_strong(
                             c, c + 1, std::memory_order_acq_rel);
}

/// Counts one claimed share of the launch as done; the release makes its
/// writes visible to the launcher.
void finishSlice(ThreadPool *pool) {
  if (pool->pending.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      pool->launcherSleeping.load(std::memory_order_seq_cst))
    futexWakeAll(&pool->pending);
}

void *workerMain(void *arg) {
  WorkerSlot *slot = static_cast<WorkerSlot *>(arg);
  ThreadPool *pool = slot->pool;
  currentThreadIndex = slot->index;
  uint32_t seen = 0;
  for (;;) {
    seen = waitForChange(slot->generation, seen, slot->sleeping, pool->spinUs);
    if (pool->stop.load(std::memory_order_acquire))
      return nullptr;
    if (!claimSlice(*slot))
      continue; // the launcher ran this share already
    // Run with the launching thread's denormal mode (kernels built with
    // --denormals=flush set it around each launch).
    setFloatModeBits(pool->job.fpMode);
    runSlice(pool->job, slot->index);
    finishSlice(pool);
  }
}

/// Starts workers until the pool has `capacity` of them or creating a thread
/// fails (the launcher then runs the missing workers' chunks itself).
void startWorkers(ThreadPool *pool) {
  // Workers never handle signals: block them all while creating threads
  // (new threads inherit the mask) so that signals go to the program's own
  // threads.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  while (pool->started < pool->capacity) {
    WorkerSlot &slot = pool->slots[pool->started + 1];
    slot.pool = pool;
    slot.index = pool->started + 1;
    if (pthread_create(&slot.thread, nullptr, workerMain, &slot) != 0)
      break;
#if defined(__linux__) && defined(__GLIBC__)
    char name[16];
    std::snprintf(name, sizeof(name), "tic-worker-%d", int(slot.index));
    pthread_setname_np(slot.thread, name);
#endif
    ++pool->started;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

ThreadPool *createPool(const tic_rt_context *ctx) {
  pthread_once(&atforkOnce, registerAtfork);
  void *mem =
      std::aligned_alloc(kCacheLine, (sizeof(ThreadPool) + kCacheLine - 1) /
                                         kCacheLine * kCacheLine);
  if (!mem)
    return nullptr;
  ThreadPool *pool = new (mem) ThreadPool();
  pool->capacity = ctx->numThreads - 1;
  pool->slots = static_cast<WorkerSlot *>(std::aligned_alloc(
      alignof(WorkerSlot), sizeof(WorkerSlot) * size_t(pool->capacity + 1)));
  if (!pool->slots) {
    pool->~ThreadPool();
    std::free(pool);
    return nullptr;
  }
  for (int32_t i = 0; i <= pool->capacity; ++i)
    new (&pool->slots[i]) WorkerSlot();
  pool->spinUs = resolveSpinMicros(std::getenv("TIC_SPIN_US"),
                                   std::getenv("OMP_WAIT_POLICY"),
                                   ctx->numThreads, availableCpus());
  pool->epoch = forkEpoch.load(std::memory_order_relaxed);
  startWorkers(pool);
  return pool;
}

void freePool(ThreadPool *pool) {
  for (int32_t i = 0; i <= pool->capacity; ++i)
    pool->slots[i].~WorkerSlot();
  std::free(pool->slots);
  pool->~ThreadPool();
  std::free(pool);
}

} // namespace

int32_t tic::rt::currentPoolThread() { return currentThreadIndex; }

int32_t tic::rt::availableCpus() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? int32_t(n < INT32_MAX ? n : INT32_MAX) : 1;
}

int32_t tic::rt::parseThreadCount(const char *ompNumThreads, int32_t max) {
  if (!ompNumThreads)
    return 0;
  // OMP_NUM_THREADS may be a list ("4,2"): the first entry is the outer level.
  char first[32];
  size_t len = 0;
  while (ompNumThreads[len] && ompNumThreads[len] != ',' &&
         len + 1 < sizeof(first)) {
    first[len] = ompNumThreads[len];
    ++len;
  }
  if (ompNumThreads[len] && ompNumThreads[len] != ',')
    return 0;
  first[len] = '\0';
  int64_t v = parseUnsigned(first, max);
  return v > 0 ? int32_t(v) : 0;
}

uint32_t tic::rt::resolveSpinMicros(const char *ticSpinUs,
                                    const char *ompWaitPolicy, int32_t threads,
                                    int32_t cpus) {
  if (ticSpinUs && *ticSpinUs) {
    int64_t v = parseUnsigned(ticSpinUs, kMaxSpinUs);
    if (v >= 0)
      return uint32_t(v);
  }
  if (ompWaitPolicy && equalsIgnoreCase(ompWaitPolicy, "passive"))
    return 0;
  if (ompWaitPolicy && equalsIgnoreCase(ompWaitPolicy, "active"))
    return kActiveSpinUs;
  // More threads than cores: a spinning thread always keeps a runnable one
  // from running.
  if (threads > cpus)
    return 0;
  return kDefaultSpinUs;
}

bool tic::rt::runOnPool(tic_rt_context *ctx, const ParallelJob &job) {
  ThreadPool *pool = ctx->pool;
  if (pool && pool->epoch != forkEpoch.load(std::memory_order_relaxed)) {
    // A forked child: the workers are gone. Forget them (the memory of the
    // parent's pool is released; its threads do not exist here).
    freePool(pool);
    pool = ctx->pool = nullptr;
  }
  if (!pool) {
    pool = ctx->pool = createPool(ctx);
    if (!pool)
      return false;
  }
  // One context is used by one host thread at a time; a second concurrent
  // launch (a misuse) runs on its own thread instead of corrupting the pool.
  if (pool->busy.exchange(true, std::memory_order_acquire))
    return false;

  int32_t team = int32_t(job.team);
  int32_t helpers = team - 1 < pool->started ? team - 1 : pool->started;
  pool->job = job;
  pool->pending.store(uint32_t(helpers), std::memory_order_relaxed);
  for (int32_t w = 1; w <= helpers; ++w) {
    WorkerSlot &slot = pool->slots[w];
    // Open the share (odd -> even); the release publishes the job.
    slot.claim.store(slot.claim.load(std::memory_order_relaxed) + 1,
                     std::memory_order_release);
    wake(slot.generation, slot.sleeping);
  }

  // The launcher is thread 0. Then it runs every share that no worker has
  // claimed yet (a worker still asleep, or waiting for a CPU on a loaded
  // machine) with that share's thread index, so the launch does not wait
  // for threads that are not running; workers that could not be started
  // count as such. The chunk -> thread_id mapping stays the same; only the
  // OS thread behind a thread_id changes, and one thread_id is never used by
  // two threads at once.
  int32_t saved = currentThreadIndex;
  currentThreadIndex = 0;
  runSlice(job, 0);
  for (int32_t w = 1; w < team; ++w) {
    bool mine = w > helpers;
    if (!mine && claimSlice(pool->slots[w])) {
      mine = true;
      pool->pending.fetch_sub(1, std::memory_order_relaxed);
    }
    if (mine) {
      currentThreadIndex = w;
      runSlice(job, w);
    }
  }
  currentThreadIndex = saved;

  // Wait for the workers; the acquire pairs with their decrements, so their
  // writes are visible to the caller afterwards.
  uint32_t left;
  if (!spinUntil(pool->spinUs, [&] {
        return (left = pool->pending.load(std::memory_order_acquire)) == 0;
      })) {
    for (;;) {
      pool->launcherSleeping.store(1, std::memory_order_seq_cst);
      left = pool->pending.load(std::memory_order_seq_cst);
      if (left != 0)
        futexWait(&pool->pending, left);
      pool->launcherSleeping.store(0, std::memory_order_relaxed);
      if (pool->pending.load(std::memory_order_acquire) == 0)
        break;
    }
  }
  pool->busy.store(false, std::memory_order_release);
  return true;
}

void tic::rt::destroyThreadPool(ThreadPool *pool) {
  if (!pool)
    return;
  if (pool->epoch == forkEpoch.load(std::memory_order_relaxed)) {
    pool->stop.store(true, std::memory_order_release);
    for (int32_t w = 1; w <= pool->started; ++w)
      wake(pool->slots[w].generation, pool->slots[w].sleeping);
    for (int32_t w = 1; w <= pool->started; ++w)
      pthread_join(pool->slots[w].thread, nullptr);
  }
  freePool(pool);
}

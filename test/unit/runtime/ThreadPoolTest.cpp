//===- ThreadPoolTest.cpp - The runtime's worker threads ------------------===//
//
// Behaviour of the worker threads behind tic_rt_parallel_for, through the
// public ABI: many threads, many launches, sleeping workers, concurrent
// contexts, fork, and the wait policy (idle workers sleep unless told to
// spin), observed in /proc rather than by timing.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <sched.h>
#include <set>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#ifdef __SSE__
#include <xmmintrin.h>
#endif

using tic::test::Context;
using tic::test::makeDesc;

namespace {

/// Sets an environment variable for the lifetime of the object.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) {
      hadOld_ = true;
      old_ = old;
    }
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadOld_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

private:
  std::string name_, old_;
  bool hadOld_ = false;
};

/// Per launch: hits per index and the OS thread behind each thread_id.
struct Launch {
  explicit Launch(size_t n, int32_t threads)
      : n(n), hits(new std::atomic<int>[n]),
        owner(new std::atomic<size_t>[threads]), threads(threads) {
    for (size_t i = 0; i < n; ++i)
      hits[i] = 0;
    for (int32_t t = 0; t < threads; ++t)
      owner[t] = 0;
  }
  size_t n;
  std::unique_ptr<std::atomic<int>[]> hits;
  std::unique_ptr<std::atomic<size_t>[]> owner;
  int32_t threads;
  std::atomic<int> badThreadId{0};
  std::atomic<int> sharedThreadId{0};
  int64_t grain = 0;

  static void task(void *closure, int64_t b, int64_t e, int32_t t) {
    auto *l = static_cast<Launch *>(closure);
    if (t < 0 || t >= l->threads) {
      l->badThreadId++;
      return;
    }
    // Chunk c must run on thread c % team (team = min(threads, chunks)).
    size_t self = std::hash<std::thread::id>()(std::this_thread::get_id()) | 1;
    size_t expected = 0;
    if (!l->owner[t].compare_exchange_strong(expected, self) &&
        expected != self)
      l->sharedThreadId++; // two OS threads used one thread_id
    for (int64_t i = b; i < e; ++i)
      l->hits[i]++;
  }

  void check(int64_t grain) const {
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(hits[i].load(), 1) << "index " << i << " grain " << grain;
    EXPECT_EQ(badThreadId.load(), 0);
    EXPECT_EQ(sharedThreadId.load(), 0);
  }
};

void launchAndCheck(tic_rt_context *ctx, size_t n, int64_t grain) {
  Launch l(n, tic_rt_num_threads(ctx));
  tic_rt_parallel_for(ctx, 0, int64_t(n), grain, &Launch::task, &l);
  l.check(grain);
}

TEST(ThreadPool, ManyThreadsManyLaunches) {
  // Far more threads than cores: most workers sleep most of the time.
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(64);
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK);
  for (int rep = 0; rep < 300; ++rep)
    launchAndCheck(ctx, 1000 + size_t(rep % 7), rep % 3 == 0 ? 1 : 0);
}

TEST(ThreadPool, SleepingWorkersWakeUp) {
  // TIC_SPIN_US=0: workers and the launcher go to sleep at once, so every
  // launch wakes sleeping threads.
  ScopedEnv spin("TIC_SPIN_US", "0");
  tic_rt_module_desc desc = makeDesc();
  for (int32_t threads : {2, 3, 8}) {
    tc_options o = Context::threads(threads);
    Context ctx(desc, &o);
    for (int rep = 0; rep < 200; ++rep) {
      launchAndCheck(ctx, 64 + size_t(rep), 1 + rep % 5);
      if (rep % 50 == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

TEST(ThreadPool, WorkersAreOtherThreads) {
  // Chunks of 1 ms: the launcher's own share takes 10 ms, long enough for
  // the workers to wake up and claim theirs (the launcher runs the shares
  // of workers that have not claimed theirs by the time it is done).
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  struct Slow {
    Launch l{40, 4};
    static void task(void *closure, int64_t b, int64_t e, int32_t t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      Launch::task(&static_cast<Slow *>(closure)->l, b, e, t);
    }
  } slow;
  tic_rt_parallel_for(ctx, 0, 40, 1, &Slow::task, &slow);
  slow.l.check(1);
  size_t caller = std::hash<std::thread::id>()(std::this_thread::get_id()) | 1;
  EXPECT_EQ(slow.l.owner[0].load(), caller) << "thread 0 is the caller";
  std::set<size_t> distinct;
  for (int t = 0; t < 4; ++t)
    distinct.insert(slow.l.owner[t].load());
  EXPECT_GE(distinct.size(), 2u) << "no worker thread took part";
}

TEST(ThreadPool, ConcurrentContexts) {
  // Different contexts may be used from different host threads at once.
  tic_rt_module_desc desc = makeDesc();
  std::atomic<int> failures{0};
  std::vector<std::thread> hosts;
  for (int h = 0; h < 4; ++h)
    hosts.emplace_back([&, h] {
      tc_options o = Context::threads(3 + h % 2);
      Context ctx(desc, &o);
      for (int rep = 0; rep < 100; ++rep) {
        Launch l(500, tic_rt_num_threads(ctx));
        tic_rt_parallel_for(ctx, 0, 500, 0, &Launch::task, &l);
        for (size_t i = 0; i < l.n; ++i)
          if (l.hits[i].load() != 1)
            failures++;
        if (l.badThreadId.load() || l.sharedThreadId.load())
          failures++;
      }
    });
  for (std::thread &t : hosts)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPool, CreateAndDestroyWithoutLaunching) {
  tic_rt_module_desc desc = makeDesc();
  for (int i = 0; i < 50; ++i) {
    tc_options o = Context::threads(8);
    Context ctx(desc, &o);
    if (i % 2)
      launchAndCheck(ctx, 100, 1);
  }
}

TEST(ThreadPool, ForkedChildStartsItsOwnWorkers) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  launchAndCheck(ctx, 1000, 1); // workers exist in the parent
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child has no workers: the launch must not wait for them.
    Launch l(1000, 4);
    tic_rt_parallel_for(ctx, 0, 1000, 1, &Launch::task, &l);
    int bad = l.badThreadId.load() + l.sharedThreadId.load();
    for (size_t i = 0; i < l.n; ++i)
      bad += l.hits[i].load() != 1;
    _exit(bad == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  launchAndCheck(ctx, 1000, 1); // the parent's workers still work
}

TEST(ThreadPool, ThreadCreationFailureRunsOnTheCallingThread) {
  // num_threads = 65536 where the process cannot start that many threads:
  // the runtime must neither exit nor lose work (libgomp printed "Thread
  // creation failed" and exited the program). A child limits its address
  // space so that thread stacks cannot be mapped after a few workers.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "an address-space limit and the sanitizer's shadow memory "
                  "do not mix";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  GTEST_SKIP() << "an address-space limit and the sanitizer's shadow memory "
                  "do not mix";
#endif
#endif
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    tic_rt_module_desc desc = makeDesc();
    tc_options o = Context::threads(65536);
    tic_rt_context *ctx = nullptr;
    if (tic_rt_context_create(&o, &desc, &ctx) != TC_OK)
      _exit(2);
    // Current mappings plus 64 MiB: room for a handful of 8 MiB stacks.
    std::ifstream statm("/proc/self/statm");
    unsigned long pages = 0;
    statm >> pages;
    rlimit lim;
    lim.rlim_cur = lim.rlim_max =
        rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + (rlim_t(64) << 20);
    if (setrlimit(RLIMIT_AS, &lim) != 0)
      _exit(3);
    int bad = 0;
    for (int rep = 0; rep < 3; ++rep) {
      Launch l(200000, 65536);
      tic_rt_parallel_for(ctx, 0, int64_t(l.n), 1, &Launch::task, &l);
      bad += l.badThreadId.load() + l.sharedThreadId.load();
      for (size_t i = 0; i < l.n; ++i)
        bad += l.hits[i].load() != 1;
    }
    // The limit must have stopped thread creation, or this test shows
    // nothing.
    int tasks = 0;
    if (DIR *d = opendir("/proc/self/task")) {
      while (readdir(d))
        ++tasks;
      closedir(d);
    }
    if (tasks <= 2 || tasks > 1000)
      _exit(4);
    tic_rt_context_destroy(ctx);
    _exit(bad == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of a signal";
  // 1: lost or duplicated work; 2, 3: setup failed; 4: the limit did not
  // stop thread creation.
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ThreadPool, DefaultThreadCountHonoursOmpNumThreads) {
  tic_rt_module_desc desc = makeDesc();
  {
    ScopedEnv env("OMP_NUM_THREADS", "3");
    Context ctx(desc);
    EXPECT_EQ(tic_rt_num_threads(ctx), 3);
  }
  {
    ScopedEnv env("OMP_NUM_THREADS", "5,2");
    Context ctx(desc);
    EXPECT_EQ(tic_rt_num_threads(ctx), 5);
  }
  {
    // Unset, or not a positive number: the CPUs this process may use.
    cpu_set_t set;
    ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
    for (const char *value : {(const char *)nullptr, "0", "x", "-2"}) {
      ScopedEnv env("OMP_NUM_THREADS", value);
      Context ctx(desc);
      EXPECT_EQ(tic_rt_num_threads(ctx), CPU_COUNT(&set))
          << "OMP_NUM_THREADS=" << (value ? value : "(unset)");
    }
  }
}

#ifdef __SSE__
TEST(ThreadPool, WorkersTakeTheLaunchersDenormalMode) {
  // MXCSR flush-to-zero and denormals-are-zero: every task of a launch runs
  // with the launching thread's bits, also when the workers were started
  // (and so inherited MXCSR) under the other mode.
  const unsigned kFtzDaz = 0x8040;
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  struct Modes {
    std::atomic<int> wrong{0};
    unsigned want = 0;
    static void task(void *c, int64_t, int64_t, int32_t) {
      auto *m = static_cast<Modes *>(c);
      if ((_mm_getcsr() & 0x8040) != m->want)
        m->wrong++;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  } modes;
  unsigned saved = _mm_getcsr();
  for (unsigned bits : {kFtzDaz, 0u, kFtzDaz, 0u}) {
    _mm_setcsr((saved & ~kFtzDaz) | bits);
    modes.want = bits;
    tic_rt_parallel_for(ctx, 0, 64, 1, &Modes::task, &modes);
    EXPECT_EQ((_mm_getcsr() & kFtzDaz), bits) << "the launcher's mode changed";
  }
  _mm_setcsr(saved);
  EXPECT_EQ(modes.wrong.load(), 0);
}
#endif

#ifdef __linux__
/// Scheduler states ('R', 'S', ...) of this process's tic worker threads.
std::vector<char> workerStates() {
  std::vector<char> states;
  DIR *dir = opendir("/proc/self/task");
  if (!dir)
    return states;
  while (dirent *e = readdir(dir)) {
    if (e->d_name[0] == '.')
      continue;
    std::string base = std::string("/proc/self/task/") + e->d_name;
    std::ifstream comm(base + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind("tic-worker-", 0) != 0)
      continue;
    std::ifstream stat(base + "/stat");
    std::string line;
    std::getline(stat, line);
    size_t paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size())
      states.push_back(line[paren + 2]);
  }
  closedir(dir);
  return states;
}

/// Launches once on 2 threads (no more than the CPUs of a CI machine, where
/// the default policy spins), waits `waitMs`, returns the worker's state.
std::vector<char> statesAfterLaunch(int waitMs) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(2);
  Context ctx(desc, &o);
  launchAndCheck(ctx, 300, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(waitMs));
  return workerStates();
}

TEST(ThreadPool, IdleWorkersSleepByDefault) {
  // The default policy (TIC_SPIN_US and OMP_WAIT_POLICY unset): a short
  // spin, then sleep. 200 ms after a launch no worker may still be running.
  ScopedEnv spin("TIC_SPIN_US", nullptr);
  ScopedEnv policy("OMP_WAIT_POLICY", nullptr);
  std::vector<char> states = statesAfterLaunch(200);
  ASSERT_EQ(states.size(), 1u);
  for (char s : states)
    EXPECT_EQ(s, 'S');
}

TEST(ThreadPool, PassivePolicySleepsAtOnce) {
  ScopedEnv spin("TIC_SPIN_US", nullptr);
  ScopedEnv policy("OMP_WAIT_POLICY", "passive");
  std::vector<char> states = statesAfterLaunch(50);
  ASSERT_EQ(states.size(), 1u);
  for (char s : states)
    EXPECT_EQ(s, 'S');
}

TEST(ThreadPool, UserSpinTimeIsRespected) {
  // TIC_SPIN_US=1 s: the workers are still spinning (running or runnable)
  // 100 ms after the launch, although OMP_WAIT_POLICY says passive.
  ScopedEnv spin("TIC_SPIN_US", "1000000");
  ScopedEnv policy("OMP_WAIT_POLICY", "passive");
  std::vector<char> states = statesAfterLaunch(100);
  ASSERT_EQ(states.size(), 1u);
  for (char s : states)
    EXPECT_EQ(s, 'R');
}
#endif

} // namespace

// bench/common.h - shared helpers of the tic benchmarks.
//
// Every benchmark program compares a kernel compiled by tic (through its
// generated C header) with a hand-written C++/OpenMP reference in the same
// process, on the same number of threads. It first checks that both compute
// the same result (max abs error), then times each one: `warmup` untimed
// runs, then the median of `reps` timed runs. Results are printed as one
// machine-readable line per measurement:
//
//   RESULT bench=<name> variant=<v> ours_ms=<t> ref_ms=<t> ratio=<ours/ref>
//          maxerr=<e> [gbps_ours=<g> gbps_ref=<g>]
//
// scripts/bench.sh collects these lines into the table of docs/performance.md.
#ifndef TIC_BENCH_COMMON_H
#define TIC_BENCH_COMMON_H

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <tic/runtime.h>

namespace bench {

struct Args {
  int reps = 15;      // timed runs (median)
  int warmup = 3;     // untimed runs first
  int threads = 0;    // 0: omp_get_max_threads()
  long size = 0;      // benchmark-specific problem size override (0: default)
};

inline Args parseArgs(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&](const char *name) -> long {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::exit(2);
      }
      return std::strtol(argv[++i], nullptr, 10);
    };
    if (s == "--reps")
      a.reps = (int)next("--reps");
    else if (s == "--warmup")
      a.warmup = (int)next("--warmup");
    else if (s == "--threads")
      a.threads = (int)next("--threads");
    else if (s == "--size")
      a.size = next("--size");
    else if (s == "-h" || s == "--help") {
      std::printf("usage: %s [--reps N] [--warmup N] [--threads N]\n", argv[0]);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", s.c_str());
      std::exit(2);
    }
  }
  if (a.threads <= 0)
    a.threads = omp_get_max_threads();
  if (a.reps < 1)
    a.reps = 1;
  omp_set_num_threads(a.threads);
  return a;
}

// tc_options with the same thread count as the reference.
inline tc_options ticOptions(const Args &a) {
  tc_options o;
  tc_options_init(&o);
  o.arch = TC_ARCH_CPU;
  o.num_threads = a.threads;
  return o;
}

inline double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

// Median wall time in milliseconds of fn() after `warmup` untimed calls.
inline double medianMs(const Args &a, const std::function<void()> &fn) {
  for (int i = 0; i < a.warmup; ++i)
    fn();
  std::vector<double> t;
  t.reserve(a.reps);
  for (int i = 0; i < a.reps; ++i) {
    double t0 = nowMs();
    fn();
    t.push_back(nowMs() - t0);
  }
  std::sort(t.begin(), t.end());
  size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

// Times ours and the reference alternately (warm-up of both first, then
// `reps` rounds of one run each), so that both see the same machine load
// on a shared machine; returns both medians in milliseconds.
struct Pair {
  double ours, ref;
};
inline double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}
inline Pair medianPairMs(const Args &a, const std::function<void()> &ours,
                         const std::function<void()> &ref) {
  for (int i = 0; i < a.warmup; ++i) {
    ours();
    ref();
  }
  std::vector<double> to, tr;
  for (int i = 0; i < a.reps; ++i) {
    double t0 = nowMs();
    ours();
    double t1 = nowMs();
    ref();
    double t2 = nowMs();
    to.push_back(t1 - t0);
    tr.push_back(t2 - t1);
  }
  return {median(to), median(tr)};
}

template <class T>
inline double maxAbsErr(const T *a, const T *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = std::fabs((double)a[i] - (double)b[i]);
    if (!(d <= m)) // also catches NaN
      m = std::isnan(d) ? INFINITY : d;
  }
  return m;
}

// Aborts the benchmark with the module's message when a tic call fails.
#define TC_CHECK(ctx, last_error, call)                                        \
  do {                                                                         \
    tc_status st_ = (call);                                                    \
    if (st_ != TC_OK) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__,  \
                   #call, tc_status_string(st_), last_error(ctx));             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

inline void header(const char *bench, const Args &a) {
  std::printf("# %s: %d threads, median of %d runs after %d warm-up runs\n",
              bench, a.threads, a.reps, a.warmup);
}

// One result line. gbytes: bytes moved per run (0: not a bandwidth kernel).
inline void result(const char *bench, const char *variant, double ours,
                   double ref, double maxerr, double gbytes = 0,
                   const char *extra = "") {
  std::printf("RESULT bench=%s variant=%s ours_ms=%.4f ref_ms=%.4f ratio=%.3f "
              "maxerr=%.3g",
              bench, variant, ours, ref, ours / ref, maxerr);
  if (gbytes > 0)
    std::printf(" gbps_ours=%.2f gbps_ref=%.2f", gbytes / (ours * 1e-3),
                gbytes / (ref * 1e-3));
  if (extra && *extra)
    std::printf(" %s", extra);
  std::printf("\n");
  std::fflush(stdout);
}

// Fails (exit 1) when err > tol, after printing it.
inline void checkErr(const char *what, double err, double tol) {
  std::printf("# %s: max abs error ours vs reference = %.3g (tolerance %.3g)\n",
              what, err, tol);
  if (!(err <= tol)) {
    std::fprintf(stderr, "%s: results differ: max abs error %.3g > %.3g\n",
                 what, err, tol);
    std::exit(1);
  }
}

} // namespace bench

#endif

// bench/bench_reduce.cpp - sum of 2^24 floats: tic (privatized kernel-scope
// reduction) vs C++/OpenMP `reduction(+:s)`.
#include "common.h"
#include "reduce.h"

#include <memory>

using namespace bench;

namespace {
const int64_t kShape[] = REDUCE_X_SHAPE;
const int64_t kN = kShape[0];

// The reference: OpenMP reduction, static schedule, float accumulator (as
// the .tc kernel), -O3 -march=native without -ffast-math (so neither side
// vectorizes the float sum: both keep per-thread sequential order).
float sumRef(const float *__restrict x, int64_t n) {
  float s = 0.0f;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t i = 0; i < n; ++i)
    s += x[i];
  return s;
}

struct Free {
  void operator()(float *p) const { std::free(p); }
};
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("reduce", args);
  const int64_t n = kN;
  std::printf("# n = %lld floats (%.0f MiB)\n", (long long)n, n * 4.0 / (1 << 20));

  tc_options opts = ticOptions(args);
  reduce_ctx *ctx = nullptr;
  if (reduce_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "reduce_create: %s\n", reduce_last_error(nullptr));
    return 1;
  }
  std::unique_ptr<float[], Free> x((float *)std::aligned_alloc(64, sizeof(float) * n));
  // Small values of mixed sign keep the float sums well-conditioned.
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    x[i] = (float)((i * 7) % 1000 - 499) * 1e-3f;
  TC_CHECK(ctx, reduce_last_error, reduce_x_write(ctx, x.get(), n));

  // --- correctness: both sums against a double-precision one -------------
  double exact = 0;
  for (int64_t i = 0; i < n; ++i) exact += x[i];
  float ours = 0;
  TC_CHECK(ctx, reduce_last_error, reduce_sum(ctx, &ours));
  float ref = sumRef(x.get(), n);
  std::printf("# sum: tic %.6f, C++ %.6f, exact (double) %.6f\n", ours, ref, exact);
  // Float partial sums in different orders: compare relative to sum |x|.
  double scale = 0.5 * n;  // ~ sum |x[i]|
  double err = std::fabs((double)ours - (double)ref) / scale;
  checkErr("sum (|tic - C++| / sum|x|)", err, 1e-5);

  char variant[32];
  std::snprintf(variant, sizeof variant, "n=2^%d", __builtin_ctzll(n));
  volatile float sink = 0;
  Pair p = medianPairMs(args, [&] { float s; reduce_sum(ctx, &s); sink = s; },
                        [&] { sink = sumRef(x.get(), n); });
  // 4 bytes read per element.
  result("sum", variant, p.ours, p.ref, err, 4.0 * n * 1e-9);
  (void)sink;
  reduce_destroy(ctx);
  return 0;
}

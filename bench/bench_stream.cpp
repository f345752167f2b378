// bench/bench_stream.cpp - copy (memory bandwidth) and saxpy: tic vs C++/OpenMP.
#include "common.h"
#include "stream.h"

#include <memory>

using namespace bench;

namespace {
const int64_t kShape[] = STREAM_X_SHAPE;
const int64_t kN = kShape[0];

// The references: plain OpenMP loops, static schedule, compiled -O3
// -march=native. copyRef is the bandwidth measure: a vectorized copy loop
// (GCC would otherwise turn it into a glibc memcpy call per thread, which
// was slower here than the plain loop with 2 threads).
__attribute__((optimize("no-tree-loop-distribute-patterns")))
void copyRef(const float *__restrict x, float *__restrict y, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i];
}

void saxpyRef(float a, const float *__restrict x, float *__restrict y,
              int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

struct Free {
  void operator()(float *p) const { std::free(p); }
};
using Buf = std::unique_ptr<float[], Free>;
Buf alloc(int64_t n) {
  return Buf((float *)std::aligned_alloc(64, sizeof(float) * n));
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("stream", args);
  const int64_t n = kN;
  std::printf("# n = %lld floats (%.0f MiB per array)\n", (long long)n,
              n * 4.0 / (1 << 20));

  tc_options opts = ticOptions(args);
  stream_ctx *ctx = nullptr;
  if (stream_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "stream_create: %s\n", stream_last_error(nullptr));
    return 1;
  }

  Buf x = alloc(n), y = alloc(n), y0 = alloc(n), out = alloc(n);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    x[i] = (float)(i % 1000) * 0.001f;
    y0[i] = (float)((i * 7) % 1000) * 0.002f;
    y[i] = y0[i];
  }

  // --- correctness -------------------------------------------------------
  const float a = 1.5f;
  TC_CHECK(ctx, stream_last_error, stream_x_write(ctx, x.get(), n));
  TC_CHECK(ctx, stream_last_error, stream_y_write(ctx, y0.get(), n));
  TC_CHECK(ctx, stream_last_error, stream_copy(ctx));
  TC_CHECK(ctx, stream_last_error, stream_y_read(ctx, out.get(), n));
  copyRef(x.get(), y.get(), n);
  double errCopy = maxAbsErr(out.get(), y.get(), n);
  checkErr("copy", errCopy, 0.0);

  std::memcpy(y.get(), y0.get(), sizeof(float) * n);
  TC_CHECK(ctx, stream_last_error, stream_y_write(ctx, y0.get(), n));
  TC_CHECK(ctx, stream_last_error, stream_saxpy(ctx, a));
  TC_CHECK(ctx, stream_last_error, stream_y_read(ctx, out.get(), n));
  saxpyRef(a, x.get(), y.get(), n);
  double errSaxpy = maxAbsErr(out.get(), y.get(), n);
  checkErr("saxpy", errSaxpy, 1e-5);

  char variant[32];
  std::snprintf(variant, sizeof variant, "n=%lld", (long long)n);
  if ((n & (n - 1)) == 0)
    std::snprintf(variant, sizeof variant, "n=2^%d", __builtin_ctzll(n));

  // --- timing --------------------------------------------------------------
  // Interleave ours and the reference per benchmark so that both see the
  // same machine state. saxpy keeps growing y; a tiny `a` keeps it finite.
  Pair cp = medianPairMs(args, [&] { stream_copy(ctx); },
                         [&] { copyRef(x.get(), y.get(), n); });
  double copyOurs = cp.ours, copyRefMs = cp.ref;
  // Bytes per element as the memory system moves them with ordinary
  // (write-allocate) stores: copy reads x, reads y's line for ownership and
  // writes it back: 12; saxpy reads x and y and writes y: 12 as well.
  result("copy", variant, copyOurs, copyRefMs, errCopy, 12.0 * n * 1e-9);

  const float as = 1e-7f;
  Pair sx = medianPairMs(args, [&] { stream_saxpy(ctx, as); },
                         [&] { saxpyRef(as, x.get(), y.get(), n); });
  double saxOurs = sx.ours, saxRef = sx.ref;
  // Bandwidth fraction of saxpy against the measured copy bandwidth.
  double bw = 12.0 * n * 1e-9 / (copyRefMs * 1e-3);
  double gbSax = 12.0 * n * 1e-9;
  char extra[128];
  std::snprintf(extra, sizeof extra, "bw_copy_ref=%.2f frac_ours=%.2f frac_ref=%.2f",
                bw, gbSax / (saxOurs * 1e-3) / bw, gbSax / (saxRef * 1e-3) / bw);
  result("saxpy", variant, saxOurs, saxRef, errSaxpy, gbSax, extra);
  std::snprintf(extra, sizeof extra, "bw_copy_ref=%.2f frac_ours=%.2f", bw,
                12.0 * n * 1e-9 / (copyOurs * 1e-3) / bw);
  std::printf("RESULT bench=copy_bw variant=%s %s\n", variant, extra);

  stream_destroy(ctx);
  return 0;
}

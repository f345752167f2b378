// bench/bench_stencil.cpp - 2-D 5-point stencil: tic vs C++/OpenMP.
#include "common.h"

#include "stencil.h"
#include <algorithm>
#include <string>

using namespace bench;

namespace {
const int64_t kShape[] = STENCIL_A_SHAPE;

void stencilRef(const float *__restrict a, float *__restrict b, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 1; i < n - 1; ++i) {
    const float *up = a + (i - 1) * n, *mid = a + i * n, *dn = a + (i + 1) * n;
    float *out = b + i * n;
#pragma omp simd
    for (int64_t j = 1; j < n - 1; ++j)
      out[j] = 0.2f * (mid[j] + up[j] + dn[j] + mid[j - 1] + mid[j + 1]);
  }
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("stencil", args);
  const int64_t n = kShape[0];
  const size_t cells = (size_t)n * n;
  std::printf("# %lld x %lld f32 grid (%.0f MiB per array)\n", (long long)n,
              (long long)n, cells * 4.0 / (1 << 20));

  tc_options opts = ticOptions(args);
  stencil_ctx *ctx = nullptr;
  if (stencil_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "stencil_create: %s\n", stencil_last_error(nullptr));
    return 1;
  }
  std::vector<float> a(cells), b(cells, 0.0f), out(cells);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      a[i * n + j] = std::sin(0.01f * i) * std::cos(0.013f * j) + (i == j);

  TC_CHECK(ctx, stencil_last_error, stencil_a_write(ctx, a.data(), cells));
  // Minimum traffic with write-allocate stores: read a once (the neighbours
  // hit in cache), read b's lines for ownership, write b: 12 bytes per cell,
  // like the stream copy that measures the bandwidth.
  double gb = 12.0 * (n - 2) * (n - 2) * 1e-9;
  // One kernel against the reference: results first, then the timing.
  auto measure = [&](const char *suffix, tc_status (*step)(stencil_ctx *)) {
    std::fill(out.begin(), out.end(), 0.0f);
    TC_CHECK(ctx, stencil_last_error, stencil_b_write(ctx, out.data(), cells));
    TC_CHECK(ctx, stencil_last_error, step(ctx));
    TC_CHECK(ctx, stencil_last_error, stencil_b_read(ctx, out.data(), cells));
    stencilRef(a.data(), b.data(), n);
    double err = maxAbsErr(out.data(), b.data(), cells);
    char variant[32];
    std::snprintf(variant, sizeof variant, "%lldx%lld%s", (long long)n,
                  (long long)n, suffix);
    checkErr(("stencil" + std::string(suffix)).c_str(), err, 1e-5);
    Pair t = medianPairMs(
        args, [&] { step(ctx); }, [&] { stencilRef(a.data(), b.data(), n); });
    result("stencil", variant, t.ours, t.ref, err, gb);
  };
  measure("", stencil_step);
  // The `if` form (Taichi's idiom): tic-split-index-set makes it the same
  // loop.
  measure(",if", stencil_step_if);
  stencil_destroy(ctx);
  return 0;
}

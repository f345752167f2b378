// bench/bench_julia.cpp - Julia set: tic vs C++/OpenMP.
#include "common.h"
#include "julia.h"

using namespace bench;

namespace {
const int64_t kShape[] = JULIA_PIXELS_SHAPE;
#ifdef JULIA_CONST_MAX_ITER
const int kMaxIter = JULIA_CONST_MAX_ITER;
#else
const int kMaxIter = 100; // keep in step with julia.tc
#endif

// Same arithmetic as julia.tc, in the same order. dynamic scheduling: rows
// near the set take max_iter iterations, rows far from it a few.
void juliaRef(float *px, int64_t w, int64_t h, float t) {
  const float cr = -0.8f, ci = std::cos(t) * 0.2f;
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t i = 0; i < w; ++i) {
    for (int64_t j = 0; j < h; ++j) {
      float zr = ((float)i / (float)h - 1.0f) * 2.0f;
      float zi = ((float)j / (float)h - 0.5f) * 2.0f;
      int it = 0;
      while (zr * zr + zi * zi < 400.0f && it < kMaxIter) {
        float nr = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = nr;
        ++it;
      }
      px[i * h + j] = 1.0f - (float)it * (1.0f / (float)kMaxIter);
    }
  }
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("julia", args);
  const int64_t w = kShape[0], h = kShape[1];
  const size_t cells = (size_t)w * h;
  std::printf("# %lld x %lld pixels, max %d iterations\n", (long long)w,
              (long long)h, kMaxIter);
  tc_options opts = ticOptions(args);
  julia_ctx *ctx = nullptr;
  if (julia_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "julia_create: %s\n", julia_last_error(nullptr));
    return 1;
  }
  std::vector<float> ref(cells), out(cells);
  const float t = 0.3f;
  TC_CHECK(ctx, julia_last_error, julia_paint(ctx, t));
  TC_CHECK(ctx, julia_last_error, julia_pixels_read(ctx, out.data(), cells));
  juliaRef(ref.data(), w, h, t);
  // The iteration is chaotic near the set's boundary: one rounding
  // difference (e.g. FMA contraction in one compiler and not the other)
  // changes a pixel's iteration count. Report how many pixels differ.
  size_t differ = 0;
  for (size_t k = 0; k < cells; ++k)
    differ += out[k] != ref[k];
  double err = maxAbsErr(out.data(), ref.data(), cells);
  std::printf("# julia: %zu of %zu pixels differ (%.4f%%)\n", differ, cells,
              100.0 * differ / cells);
  if (differ > cells / 1000) {
    std::fprintf(stderr, "julia: too many pixels differ\n");
    return 1;
  }
  Pair tm = medianPairMs(args, [&] { julia_paint(ctx, t); },
                         [&] { juliaRef(ref.data(), w, h, t); });
  double ours = tm.ours, refMs = tm.ref;
  char variant[48], extra[64];
  std::snprintf(variant, sizeof variant, "%lldx%lld", (long long)w, (long long)h);
  std::snprintf(extra, sizeof extra, "pixels_differ=%zu", differ);
  result("julia", variant, ours, refMs, err, 0, extra);
  julia_destroy(ctx);
  return 0;
}

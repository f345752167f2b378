// bench/bench_quant_saxpy.cpp - saxpy on 30-bit custom floats (tic,
// bench/quant_saxpy.tc) against an f32 saxpy in C++/OpenMP: the cost of
// decoding and encoding per element (QuanTaichi section 7.1). The result is
// checked against the C++ saxpy rounded to the 30-bit format after each
// step (quant_ref.h's encoder, the same rounding tic uses).
#include "common.h"
#include "quant_saxpy.h"

#include <memory>

extern "C" {
#include "../integration_test/tests/quant_ref.h"
}

using namespace bench;

namespace {
const int64_t kShape[] = QUANT_SAXPY_X_SHAPE;
const int64_t kN = kShape[0];

void saxpyRef(float a, const float *__restrict x, float *__restrict y,
              int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("quant_saxpy", args);
  const int64_t n = kN;
  std::printf("# n = %lld elements of quant.float(exp: 8, frac: 22) (30 of 32 "
              "bits) against f32\n",
              (long long)n);
  tc_options opts = ticOptions(args);
  quant_saxpy_ctx *ctx = nullptr;
  if (quant_saxpy_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "quant_saxpy_create: %s\n",
                 quant_saxpy_last_error(nullptr));
    return 1;
  }
  std::unique_ptr<float[]> x(new float[n]), y(new float[n]), out(new float[n]);
  for (int64_t i = 0; i < n; ++i) {
    // Values the format holds exactly, so that both sides start equal.
    x[i] = float_rt((float)(i % 1000) * 0.001f, 8, 22, 1);
    y[i] = float_rt((float)((i * 7) % 1000) * 0.002f, 8, 22, 1);
  }
  TC_CHECK(ctx, quant_saxpy_last_error, quant_saxpy_x_write(ctx, x.get(), n));
  TC_CHECK(ctx, quant_saxpy_last_error, quant_saxpy_y_write(ctx, y.get(), n));

  // --- correctness: one step, the f32 result rounded to the format --------
  const float a = 1.5f;
  TC_CHECK(ctx, quant_saxpy_last_error, quant_saxpy_saxpy(ctx, a));
  TC_CHECK(ctx, quant_saxpy_last_error, quant_saxpy_y_read(ctx, out.get(), n));
  saxpyRef(a, x.get(), y.get(), n);
  double err = 0;
  for (int64_t i = 0; i < n; ++i)
    err = std::max(
        err, std::fabs(double(out[i]) - double(float_rt(y[i], 8, 22, 1))));
  checkErr("quant_saxpy", err, 0.0);

  // --- timing: a tiny `a` keeps y finite --------------------------------
  const float as = 1e-7f;
  Pair p = medianPairMs(
      args, [&] { quant_saxpy_saxpy(ctx, as); },
      [&] { saxpyRef(as, x.get(), y.get(), n); });
  result("quant_saxpy", "f30_vs_f32", p.ours, p.ref, err, 12.0 * n * 1e-9);
  quant_saxpy_destroy(ctx);
  return 0;
}

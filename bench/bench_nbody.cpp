// bench/bench_nbody.cpp - all-pairs 2-D force accumulation (n = 4096): tic
// (atomic demotion on, or off in bench_nbody_atomic) vs C++/OpenMP with the
// same per-particle accumulation into force[i].
#include "common.h"
#include "nbody.h"

#include <vector>

using namespace bench;

namespace {
const int64_t kShape[] = NBODY_POS_SHAPE;
const int64_t kN = kShape[0];

void forcesRef(const float *__restrict pos, float *__restrict force,
               int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    force[2 * i] = 0.0f;
    force[2 * i + 1] = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      float dx = pos[2 * j] - pos[2 * i], dy = pos[2 * j + 1] - pos[2 * i + 1];
      float s = dx * dx + dy * dy + NBODY_CONST_EPS;
      force[2 * i] += dx / s;
      force[2 * i + 1] += dy / s;
    }
  }
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header(BENCH_NAME, args);
  const int64_t n = kN;
  tc_options opts = ticOptions(args);
  nbody_ctx *ctx = nullptr;
  if (nbody_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "nbody_create: %s\n", nbody_last_error(nullptr));
    return 1;
  }
  std::vector<float> pos(2 * n), ours(2 * n), ref(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    pos[2 * i] = (float)((i * 37) % n) / n;
    pos[2 * i + 1] = (float)((i * 91) % n) / n;
  }
  TC_CHECK(ctx, nbody_last_error, nbody_pos_write(ctx, pos.data(), 2 * n));
  TC_CHECK(ctx, nbody_last_error, nbody_forces(ctx));
  TC_CHECK(ctx, nbody_last_error, nbody_force_read(ctx, ours.data(), 2 * n));
  forcesRef(pos.data(), ref.data(), n);
  double err = 0;
  for (int64_t i = 0; i < 2 * n; ++i)
    err = std::max(err, (double)std::fabs(ours[i] - ref[i]));
  checkErr("forces (same order of operations)", err, 0);
  char variant[32];
  std::snprintf(variant, sizeof variant, "n=%lld", (long long)n);
  Pair p = medianPairMs(
      args, [&] { nbody_forces(ctx); },
      [&] { forcesRef(pos.data(), ref.data(), n); });
  result(BENCH_NAME, variant, p.ours, p.ref, err, 0);
  nbody_destroy(ctx);
  return 0;
}

// bench/bench_nbody.cpp - all-pairs forces, force[i] += ... over j: tic vs a
// C++/OpenMP reference that sums into a local accumulator (what one writes
// by hand; what tic-demote-atomics lets LLVM produce from the field update).
// Built twice: bench_nbody (default pipeline) and bench_nbody_atomic
// (NBODY_ATOMIC: the module compiled with --no-demote-atomics, one atomic
// add per component and interaction).
#include "common.h"
#include "nbody.h"

#include <cstdint>

using namespace bench;

#ifdef NBODY_ATOMIC
#define NBODY_VARIANT "atomic"
#else
#define NBODY_VARIANT "demoted"
#endif

namespace {
const int kN = NBODY_CONST_N;
const float kEps2 = 1e-2f;

// Same operations in the same order as nbody.tc (s = m / (r2 sqrt(r2)),
// then s * d per component), so both sums round alike.
void forcesRef(const float *__restrict pos, const float *__restrict mass,
               float *__restrict force) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < kN; ++i) {
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    const float px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
    for (int j = 0; j < kN; ++j) {
      float dx = pos[3 * j] - px, dy = pos[3 * j + 1] - py,
            dz = pos[3 * j + 2] - pz;
      float r2 = dx * dx + dy * dy + dz * dz + kEps2;
      float s = mass[j] / (r2 * std::sqrt(r2));
      fx += s * dx;
      fy += s * dy;
      fz += s * dz;
    }
    force[3 * i] = fx;
    force[3 * i + 1] = fy;
    force[3 * i + 2] = fz;
  }
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("nbody", args);
  std::printf("# n = %d bodies, %s force accumulation\n", kN, NBODY_VARIANT);

  tc_options opts = ticOptions(args);
  nbody_ctx *ctx = nullptr;
  if (nbody_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "nbody_create: %s\n", nbody_last_error(nullptr));
    return 1;
  }
  std::vector<float> pos(3 * kN), mass(kN), ours(3 * kN), ref(3 * kN);
  for (int i = 0; i < kN; ++i) {
    pos[3 * i] = (float)((i * 37) % 1009) / 1009.0f;
    pos[3 * i + 1] = (float)((i * 53) % 997) / 997.0f;
    pos[3 * i + 2] = (float)((i * 71) % 991) / 991.0f;
    mass[i] = 0.5f + (float)(i % 7) * 0.25f;
  }
  TC_CHECK(ctx, nbody_last_error, nbody_pos_write(ctx, pos.data(), 3 * kN));
  TC_CHECK(ctx, nbody_last_error, nbody_mass_write(ctx, mass.data(), kN));

  TC_CHECK(ctx, nbody_last_error, nbody_compute_forces(ctx));
  TC_CHECK(ctx, nbody_last_error, nbody_force_read(ctx, ours.data(), 3 * kN));
  forcesRef(pos.data(), mass.data(), ref.data());
  double scale = 0;
  for (float f : ref) scale = std::max(scale, (double)std::fabs(f));
  double err = maxAbsErr(ours.data(), ref.data(), ref.size()) / scale;
  checkErr("forces (max |tic - C++| / max |force|)", err, 1e-5);

  char variant[48];
  std::snprintf(variant, sizeof variant, "n=%d,%s", kN, NBODY_VARIANT);
  Pair p = medianPairMs(
      args, [&] { nbody_compute_forces(ctx); },
      [&] { forcesRef(pos.data(), mass.data(), ref.data()); });
  result("nbody", variant, p.ours, p.ref, err);
  nbody_destroy(ctx);
  return 0;
}

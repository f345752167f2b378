// bench/mpm_harness.h - what bench_mpm88.cpp and bench_mpm_sparse.cpp
// share: the B-spline weights, the initial state, the upload and main().
// A driver defines MPM_NAME (the benchmark's name), MPM_FN(f) (the module's
// C function `f`, e.g. mpm88_f), MPM_GRID_NOTE (printed after the grid's
// size) and its reference `struct Ref` (np, ng, x, v, C, J, substep()),
// then includes this header again with MPM_HARNESS_MAIN defined. The
// first inclusion (before Ref) gives the weights.
#ifndef MPM_HARNESS_WEIGHTS_DONE
#define MPM_HARNESS_WEIGHTS_DONE
namespace {
/// Quadratic B-spline weights of the 3x3 stencil (MLS-MPM, as in mpm88.tc).
inline void bspline(float f, float w[3]) {
  w[0] = 0.5f * (1.5f - f) * (1.5f - f);
  w[1] = 0.75f - (f - 1.0f) * (f - 1.0f);
  w[2] = 0.5f * (f - 0.5f) * (f - 0.5f);
}

} // namespace
#endif

#ifdef MPM_HARNESS_MAIN
namespace {

// Taichi's mpm88 initial state: a block in [0.2, 0.6]^2 falling at 1 m/s.
// Deterministic (splitmix64), so ours and the reference start equal.
void initState(Ref &r) {
  uint64_t s = 12345;
  auto rnd = [&s] {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
  };
  for (int p = 0; p < Ref::np; ++p) {
    r.x[2 * p] = rnd() * 0.4f + 0.2f;
    r.x[2 * p + 1] = rnd() * 0.4f + 0.2f;
    r.v[2 * p] = 0.0f;
    r.v[2 * p + 1] = -1.0f;
    r.J[p] = 1.0f;
  }
  std::fill(r.C.begin(), r.C.end(), 0.0f);
}

void upload(MPM_FN(ctx) * ctx, const Ref &r) {
  TC_CHECK(ctx, MPM_FN(last_error),
           MPM_FN(x_write)(ctx, r.x.data(), r.x.size()));
  TC_CHECK(ctx, MPM_FN(last_error),
           MPM_FN(v_write)(ctx, r.v.data(), r.v.size()));
  TC_CHECK(ctx, MPM_FN(last_error),
           MPM_FN(C_write)(ctx, r.C.data(), r.C.size()));
  TC_CHECK(ctx, MPM_FN(last_error),
           MPM_FN(J_write)(ctx, r.J.data(), r.J.size()));
}

} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header(MPM_NAME, args);
  const int substeps = 20; // per timed run
  std::printf("# %d particles, %dx%d grid%s, dt %g, %d substeps per timed "
              "run\n",
              Ref::np, Ref::ng, Ref::ng, MPM_GRID_NOTE, (double)MPM_DT,
              substeps);

  tc_options opts = ticOptions(args);
  MPM_FN(ctx) *ctx = nullptr;
  if (MPM_FN(create)(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "MPM_FN(create): %s\n", MPM_FN(last_error)(nullptr));
    return 1;
  }
  Ref ref;
  initState(ref);
  upload(ctx, ref);

  // Correctness: 10 substeps each from the same state. Atomic float adds
  // in a different order make the sums differ in the last bits; compare
  // positions and velocities.
  const int checkSteps = 10;
  for (int s = 0; s < checkSteps; ++s) {
    TC_CHECK(ctx, MPM_FN(last_error), MPM_FN(substep)(ctx));
    ref.substep();
  }
  std::vector<float> xo(2 * Ref::np), vo(2 * Ref::np);
  TC_CHECK(ctx, MPM_FN(last_error), MPM_FN(x_read)(ctx, xo.data(), xo.size()));
  TC_CHECK(ctx, MPM_FN(last_error), MPM_FN(v_read)(ctx, vo.data(), vo.size()));
  double errX = maxAbsErr(xo.data(), ref.x.data(), xo.size());
  double errV = maxAbsErr(vo.data(), ref.v.data(), vo.size());
  std::printf("# " MPM_NAME
              ": after %d substeps max abs error x %.3g, v %.3g\n",
              checkSteps, errX, errV);
  checkErr(MPM_NAME " x", errX, 1e-4);
  checkErr(MPM_NAME " v", errV, 1e-2);

  // Timing: both continue from the same state for the same number of
  // substeps, so they see the same particle distribution.
  Pair tm = medianPairMs(
      args,
      [&] {
        for (int s = 0; s < substeps; ++s)
          MPM_FN(substep)(ctx);
      },
      [&] {
        for (int s = 0; s < substeps; ++s)
          ref.substep();
      });
  double ours = tm.ours, refMs = tm.ref;
#ifndef MPM_VARIANT_SUFFIX
#define MPM_VARIANT_SUFFIX "" // ",no-coalescing": an ablation build
#endif
  char variant[48], extra[64];
  std::snprintf(variant, sizeof variant, "np=%d%s", Ref::np, MPM_VARIANT_SUFFIX);
  std::snprintf(extra, sizeof extra, "substeps_per_run=%d", substeps);
  result(MPM_NAME, variant, ours / substeps, refMs / substeps, errX, 0, extra);
  MPM_FN(destroy)(ctx);
  return 0;
}
#endif

//===- Random.cpp - Per-thread random number generators -------------------===//
//
// PCG32 (XSH-RR, 64-bit state) by M. E. O'Neill: small, fast, statistically
// good. Each CPU thread owns one generator in its own cache line; thread t
// uses stream t and a starting state derived from the seed with SplitMix64,
// so streams never overlap in practice and are reproducible.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

using namespace tic::rt;

namespace {

constexpr uint64_t kPcgMultiplier = 6364136223846793005ULL;

uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

inline uint32_t next(RngState &r) {
  uint64_t old = r.state;
  r.state = old * kPcgMultiplier + r.inc;
  uint32_t xorShifted = uint32_t(((old >> 18u) ^ old) >> 27u);
  uint32_t rot = uint32_t(old >> 59u);
  return (xorShifted >> rot) | (xorShifted << ((32u - rot) & 31u));
}

inline RngState &stateFor(tic_rt_context *ctx, int32_t threadId) {
  uint32_t t = uint32_t(threadId);
  uint32_t n = uint32_t(ctx->numThreads);
  if (t >= n)
    t %= n;
  return ctx->rng[t];
}

} // namespace

void tic::rt::seedRng(RngState &rng, uint64_t seed, uint32_t threadIndex) {
  // pcg32_srandom_r(initstate, initseq).
  uint64_t initState =
      splitMix64(seed ^ (uint64_t(threadIndex) * 0xD1B54A32D192ED03ULL));
  uint64_t initSeq = uint64_t(threadIndex);
  rng.state = 0;
  rng.inc = (initSeq << 1u) | 1u;
  (void)next(rng);
  rng.state += initState;
  (void)next(rng);
}

extern "C" {

uint32_t tic_rt_rand_u32(tic_rt_context *ctx, int32_t thread_id) {
  return next(stateFor(ctx, thread_id));
}

float tic_rt_rand_f32(tic_rt_context *ctx, int32_t thread_id) {
  // The top 24 bits fill the float mantissa exactly: k / 2^24 < 1.
  return float(next(stateFor(ctx, thread_id)) >> 8) * (1.0f / 16777216.0f);
}

double tic_rt_rand_f64(tic_rt_context *ctx, int32_t thread_id) {
  RngState &r = stateFor(ctx, thread_id);
  uint64_t hi = next(r) >> 5;                                  // 27 bits
  uint64_t lo = next(r) >> 6;                                  // 26 bits
  return double((hi << 26) | lo) * (1.0 / 9007199254740992.0); // / 2^53
}

} // extern "C"

//===- RandomTest.cpp - Per-thread random generators ----------------------===//

#include "TestUtil.h"

#include <cmath>
#include <set>
#include <vector>

using tic::test::Context;
using tic::test::makeDesc;

namespace {

std::vector<uint32_t> draw(uint64_t seed, int32_t threads, int32_t tid, int n) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(threads, seed);
  Context ctx(desc, &o);
  std::vector<uint32_t> v;
  for (int i = 0; i < n; ++i)
    v.push_back(tic_rt_rand_u32(ctx, tid));
  return v;
}

TEST(Random, DeterministicForSeedAndThread) {
  EXPECT_EQ(draw(1, 4, 0, 100), draw(1, 4, 0, 100));
  EXPECT_EQ(draw(1, 4, 3, 100), draw(1, 4, 3, 100));
  EXPECT_EQ(draw(0, 2, 1, 100), draw(0, 2, 1, 100));
}

TEST(Random, StreamsDiffer) {
  EXPECT_NE(draw(1, 4, 0, 16), draw(2, 4, 0, 16)); // seed
  EXPECT_NE(draw(1, 4, 0, 16), draw(1, 4, 1, 16)); // thread
  std::set<uint32_t> firsts;
  for (int32_t t = 0; t < 16; ++t)
    firsts.insert(draw(7, 16, t, 1)[0]);
  EXPECT_EQ(firsts.size(), 16u);
}

TEST(Random, ThreadIdOutOfRangeWraps) {
  EXPECT_EQ(draw(5, 4, 5, 10), draw(5, 4, 1, 10));
  EXPECT_EQ(draw(5, 4, -1, 10).size(), 10u); // no crash
}

TEST(Random, FloatsInUnitIntervalWithMeanHalf) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(2, 12345);
  Context ctx(desc, &o);
  const int n = 1000000;
  double sumF = 0, sumD = 0, sumSqF = 0;
  float minF = 1, maxF = 0;
  for (int i = 0; i < n; ++i) {
    float f = tic_rt_rand_f32(ctx, 0);
    double d = tic_rt_rand_f64(ctx, 1);
    ASSERT_GE(f, 0.0f);
    ASSERT_LT(f, 1.0f);
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
    sumF += f;
    sumSqF += double(f) * f;
    sumD += d;
    minF = std::min(minF, f);
    maxF = std::max(maxF, f);
  }
  EXPECT_NEAR(sumF / n, 0.5, 0.003);
  EXPECT_NEAR(sumD / n, 0.5, 0.003);
  EXPECT_NEAR(sumSqF / n - (sumF / n) * (sumF / n), 1.0 / 12, 0.002);
  EXPECT_LT(minF, 0.001f);
  EXPECT_GT(maxF, 0.999f);
}

TEST(Random, U32BitsAreBalanced) {
  tic_rt_module_desc desc = makeDesc();
  Context ctx(desc);
  const int n = 200000;
  int ones[32] = {};
  for (int i = 0; i < n; ++i) {
    uint32_t x = tic_rt_rand_u32(ctx, 0);
    for (int b = 0; b < 32; ++b)
      ones[b] += (x >> b) & 1;
  }
  for (int b = 0; b < 32; ++b)
    EXPECT_NEAR(double(ones[b]) / n, 0.5, 0.01) << "bit " << b;
}

/// Fills out[i] with a random number drawn by the task handling index i.
std::vector<double> parallelDraw(uint64_t seed, int32_t threads) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(threads, seed);
  Context ctx(desc, &o);
  struct State {
    tic_rt_context *ctx;
    std::vector<double> out;
  } st{ctx, std::vector<double>(10000)};
  tic_rt_parallel_for(
      ctx, 0, 10000, 0,
      [](void *c, int64_t b, int64_t e, int32_t t) {
        auto *s = static_cast<State *>(c);
        for (int64_t i = b; i < e; ++i)
          s->out[i] = tic_rt_rand_f64(s->ctx, t);
      },
      &st);
  return st.out;
}

TEST(Random, ParallelDrawsAreReproducible) {
  for (int32_t threads : {1, 3, 4})
    EXPECT_EQ(parallelDraw(99, threads), parallelDraw(99, threads))
        << threads << " threads";
  std::vector<double> v = parallelDraw(99, 4);
  double sum = 0;
  for (double x : v)
    sum += x;
  EXPECT_NEAR(sum / v.size(), 0.5, 0.02);
}

} // namespace

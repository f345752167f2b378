//===- ThreadPolicyTest.cpp - Wait policy and thread count parsing --------===//
//
// The runtime's internal helpers that turn environment variables into the
// thread pool's settings (runtime/src/Internal.h). Linked against the
// runtime's objects directly, since these functions are not exported.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <gtest/gtest.h>

using tic::rt::parseThreadCount;
using tic::rt::resolveSpinMicros;

namespace {

TEST(WaitPolicy, DefaultIsAShortSpin) {
  uint32_t d = resolveSpinMicros(nullptr, nullptr, 2, 2);
  EXPECT_GT(d, 0u);
  EXPECT_LE(d, 1000u) << "idle threads must not spin for milliseconds";
  EXPECT_EQ(resolveSpinMicros("", nullptr, 2, 2), d);
  EXPECT_EQ(resolveSpinMicros(nullptr, "", 2, 2), d);
  EXPECT_EQ(resolveSpinMicros(nullptr, "bogus", 4, 8), d);
}

TEST(WaitPolicy, NoSpinWhenThreadsOutnumberCpus) {
  EXPECT_EQ(resolveSpinMicros(nullptr, nullptr, 3, 2), 0u);
  EXPECT_EQ(resolveSpinMicros(nullptr, nullptr, 64, 2), 0u);
  // An explicit setting still wins.
  EXPECT_EQ(resolveSpinMicros("20", nullptr, 64, 2), 20u);
  EXPECT_GT(resolveSpinMicros(nullptr, "active", 64, 2), 0u);
}

TEST(WaitPolicy, OmpWaitPolicyIsHonoured) {
  EXPECT_EQ(resolveSpinMicros(nullptr, "passive", 2, 2), 0u);
  EXPECT_EQ(resolveSpinMicros(nullptr, "PASSIVE", 2, 2), 0u);
  uint32_t active = resolveSpinMicros(nullptr, "active", 2, 2);
  EXPECT_GT(active, resolveSpinMicros(nullptr, nullptr, 2, 2));
  EXPECT_EQ(resolveSpinMicros(nullptr, "Active", 2, 2), active);
}

TEST(WaitPolicy, TicSpinUsWins) {
  EXPECT_EQ(resolveSpinMicros("0", nullptr, 2, 2), 0u);
  EXPECT_EQ(resolveSpinMicros("250", nullptr, 2, 2), 250u);
  EXPECT_EQ(resolveSpinMicros(" 7 ", nullptr, 2, 2), 7u);
  EXPECT_EQ(resolveSpinMicros("0", "active", 2, 2), 0u);
  EXPECT_EQ(resolveSpinMicros("300", "passive", 2, 2), 300u);
  EXPECT_EQ(resolveSpinMicros("1000000", nullptr, 2, 2), 1000000u);
}

TEST(WaitPolicy, InvalidTicSpinUsIsIgnored) {
  uint32_t d = resolveSpinMicros(nullptr, nullptr, 2, 2);
  for (const char *bad : {"-1", "abc", "12x", "1000001", "99999999999999"})
    EXPECT_EQ(resolveSpinMicros(bad, nullptr, 2, 2), d) << bad;
  EXPECT_EQ(resolveSpinMicros("x", "passive", 2, 2), 0u);
}

TEST(ThreadCount, OmpNumThreads) {
  EXPECT_EQ(parseThreadCount(nullptr, 65536), 0);
  EXPECT_EQ(parseThreadCount("", 65536), 0);
  EXPECT_EQ(parseThreadCount("4", 65536), 4);
  EXPECT_EQ(parseThreadCount(" 4 ", 65536), 4);
  EXPECT_EQ(parseThreadCount("4,2", 65536), 4);
  EXPECT_EQ(parseThreadCount("0", 65536), 0);
  EXPECT_EQ(parseThreadCount("-1", 65536), 0);
  EXPECT_EQ(parseThreadCount("two", 65536), 0);
  EXPECT_EQ(parseThreadCount("65536", 65536), 65536);
  EXPECT_EQ(parseThreadCount("65537", 65536), 0);
  EXPECT_EQ(parseThreadCount("123456789012345678901234567890", 65536), 0);
}

} // namespace

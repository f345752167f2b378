//===- PrintTest.cpp - tic_rt_print ---------------------------------------===//

#include "TestUtil.h"

#include <cstdio>
#include <set>
#include <sstream>
#include <string>

using tic::test::Context;
using tic::test::makeDesc;

namespace {

std::string capture(void (*body)(tic_rt_context *), tic_rt_context *ctx) {
  std::fflush(stdout);
  ::testing::internal::CaptureStdout();
  body(ctx);
  std::fflush(stdout);
  return ::testing::internal::GetCapturedStdout();
}

TEST(Print, FormatsAndAppendsNewline) {
  tic_rt_module_desc desc = makeDesc();
  Context ctx(desc);
  std::string out = capture(
      [](tic_rt_context *c) {
        tic_rt_print(c, "x = %d y = %.2f %s", 3, 1.5, "ok");
        tic_rt_print(c, "already\n");
        tic_rt_print(nullptr, "%s", "");
      },
      ctx);
  EXPECT_EQ(out, "x = 3 y = 1.50 ok\nalready\n\n");
}

TEST(Print, LongLines) {
  std::string out = capture(
      [](tic_rt_context *c) {
        std::string s(3000, 'a');
        tic_rt_print(c, "<%s>", s.c_str());
      },
      nullptr);
  EXPECT_EQ(out, "<" + std::string(3000, 'a') + ">\n");
}

TEST(Print, ParallelLinesDoNotInterleave) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  std::string out = capture(
      [](tic_rt_context *c) {
        tic_rt_parallel_for(
            c, 0, 2000, 1,
            [](void *cl, int64_t b, int64_t, int32_t t) {
              tic_rt_print(static_cast<tic_rt_context *>(cl),
                           "line %lld from thread %d padding %s", (long long)b,
                           int(t),
                           "............................................");
            },
            c);
      },
      ctx);
  std::istringstream in(out);
  std::string line;
  std::set<long long> seen;
  while (std::getline(in, line)) {
    long long i;
    int t;
    char pad[64];
    ASSERT_EQ(std::sscanf(line.c_str(), "line %lld from thread %d padding %63s",
                          &i, &t, pad),
              3)
        << line;
    EXPECT_EQ(std::string(pad), std::string(44, '.')) << line;
    seen.insert(i);
  }
  EXPECT_EQ(seen.size(), 2000u);
}

} // namespace

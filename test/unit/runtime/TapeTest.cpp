//===- TapeTest.cpp - Autodiff tape ---------------------------------------===//

#include "TestUtil.h"

#include <string>
#include <vector>

using tic::test::Context;
using tic::test::makeDesc;

namespace {

/// The replayed calls, in order: (kernel id, first argument).
std::vector<std::pair<int, int>> calls;

struct Args {
  int x;
  double y;
};

tc_status gradA(tic_rt_context *, const void *args) {
  calls.push_back({1, static_cast<const Args *>(args)->x});
  return TC_OK;
}
tc_status gradB(tic_rt_context *, const void *args) {
  calls.push_back({2, static_cast<const Args *>(args)->x});
  return TC_OK;
}
tc_status gradNoArgs(tic_rt_context *, const void *args) {
  calls.push_back({3, args == nullptr ? 0 : -1});
  return TC_OK;
}
tc_status gradFails(tic_rt_context *ctx, const void *) {
  calls.push_back({4, 0});
  return tic_rt_fail(ctx, TC_ERR_UNSUPPORTED, "no adjoint");
}

class Tape : public ::testing::Test {
protected:
  void SetUp() override {
    calls.clear();
    ASSERT_EQ(ctx.status(), TC_OK);
  }
  tic_rt_module_desc desc = makeDesc();
  Context ctx{desc};
};

TEST_F(Tape, BeginTwiceFails) {
  EXPECT_EQ(tic_rt_tape_begin(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_recording(ctx), 1);
  EXPECT_EQ(tic_rt_tape_begin(ctx), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tic_rt_last_error(ctx)).find("already"),
            std::string::npos);
  EXPECT_EQ(tic_rt_tape_end(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_recording(ctx), 0);
}

TEST_F(Tape, EndWithoutBeginFails) {
  EXPECT_EQ(tic_rt_tape_end(ctx), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tic_rt_last_error(ctx)).find("tape_begin"),
            std::string::npos);
  EXPECT_EQ(tic_rt_tape_begin(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_end(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_end(ctx), TC_ERR_INVALID_ARGUMENT);
}

TEST_F(Tape, ReplayWhileRecordingFails) {
  EXPECT_EQ(tic_rt_tape_begin(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_replay_reverse(ctx), TC_ERR_INVALID_ARGUMENT);
}

TEST_F(Tape, NullContext) {
  EXPECT_EQ(tic_rt_tape_begin(nullptr), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_tape_end(nullptr), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_tape_record(nullptr, gradA, nullptr, 0),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_tape_replay_reverse(nullptr), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_tape_recording(nullptr), 0);
}

TEST_F(Tape, RecordOutsideTapeIsNoop) {
  Args a{1, 0};
  EXPECT_EQ(tic_rt_tape_record(ctx, gradA, &a, sizeof(a)), TC_OK);
  EXPECT_EQ(tic_rt_tape_size(ctx), 0u);
  EXPECT_EQ(tic_rt_tape_replay_reverse(ctx), TC_OK);
  EXPECT_TRUE(calls.empty());
}

TEST_F(Tape, ReplaysInReverseWithCopiedArgs) {
  ASSERT_EQ(tic_rt_tape_begin(ctx), TC_OK);
  Args a{10, 1.5};
  EXPECT_EQ(tic_rt_tape_record(ctx, gradA, &a, sizeof(a)), TC_OK);
  a.x = 20; // the tape holds a copy
  EXPECT_EQ(tic_rt_tape_record(ctx, gradB, &a, sizeof(a)), TC_OK);
  EXPECT_EQ(tic_rt_tape_record(ctx, gradNoArgs, nullptr, 0), TC_OK);
  a.x = 30;
  EXPECT_EQ(tic_rt_tape_record(ctx, gradA, &a, sizeof(a)), TC_OK);
  a.x = -1;
  ASSERT_EQ(tic_rt_tape_end(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_size(ctx), 4u);

  EXPECT_EQ(tic_rt_tape_replay_reverse(ctx), TC_OK);
  std::vector<std::pair<int, int>> expect = {{1, 30}, {3, 0}, {2, 20}, {1, 10}};
  EXPECT_EQ(calls, expect);

  // The tape survives replay; a new tape_begin clears it.
  calls.clear();
  EXPECT_EQ(tic_rt_tape_replay_reverse(ctx), TC_OK);
  EXPECT_EQ(calls, expect);
  ASSERT_EQ(tic_rt_tape_begin(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_size(ctx), 0u);
  ASSERT_EQ(tic_rt_tape_end(ctx), TC_OK);
}

TEST_F(Tape, ManyEntries) {
  ASSERT_EQ(tic_rt_tape_begin(ctx), TC_OK);
  for (int i = 0; i < 1000; ++i) {
    Args a{i, 0};
    ASSERT_EQ(tic_rt_tape_record(ctx, gradA, &a, sizeof(a)), TC_OK);
  }
  ASSERT_EQ(tic_rt_tape_end(ctx), TC_OK);
  ASSERT_EQ(tic_rt_tape_replay_reverse(ctx), TC_OK);
  ASSERT_EQ(calls.size(), 1000u);
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(calls[i].second, 999 - i);
}

TEST_F(Tape, ReplayStopsAtFirstError) {
  ASSERT_EQ(tic_rt_tape_begin(ctx), TC_OK);
  Args a{1, 0};
  tic_rt_tape_record(ctx, gradA, &a, sizeof(a));
  tic_rt_tape_record(ctx, gradFails, nullptr, 0);
  tic_rt_tape_record(ctx, gradB, &a, sizeof(a));
  ASSERT_EQ(tic_rt_tape_end(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_replay_reverse(ctx), TC_ERR_UNSUPPORTED);
  std::vector<std::pair<int, int>> expect = {{2, 1}, {4, 0}};
  EXPECT_EQ(calls, expect);
  EXPECT_STREQ(tic_rt_last_error(ctx), "no adjoint");
}

TEST_F(Tape, RecordRejectsBadArguments) {
  ASSERT_EQ(tic_rt_tape_begin(ctx), TC_OK);
  EXPECT_EQ(tic_rt_tape_record(ctx, nullptr, nullptr, 0),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_tape_record(ctx, gradA, nullptr, 8),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_tape_size(ctx), 0u);
  ASSERT_EQ(tic_rt_tape_end(ctx), TC_OK);
}

} // namespace

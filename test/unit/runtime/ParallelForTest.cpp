//===- ParallelForTest.cpp - tic_rt_parallel_for --------------------------===//

#include "TestUtil.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using tic::test::Context;
using tic::test::makeDesc;

namespace {

struct Chunk {
  int64_t begin, end;
  int32_t thread;
};

/// Records every chunk; counts hits per index (the range must be small).
struct Recorder {
  int64_t base = 0;
  std::unique_ptr<std::atomic<int>[]> hits;
  std::mutex mu;
  std::vector<Chunk> chunks;

  explicit Recorder(int64_t b, size_t n)
      : base(b), hits(new std::atomic<int>[n == 0 ? 1 : n]) {
    for (size_t i = 0; i < n; ++i)
      hits[i] = 0;
  }

  static void task(void *closure, int64_t b, int64_t e, int32_t t) {
    auto *r = static_cast<Recorder *>(closure);
    for (int64_t i = b; i < e; ++i)
      r->hits[uint64_t(i) - uint64_t(r->base)]++;
    std::lock_guard<std::mutex> lock(r->mu);
    r->chunks.push_back({b, e, t});
  }
};

void checkCoverage(int32_t threads, int64_t begin, int64_t end, int64_t grain) {
  SCOPED_TRACE(::testing::Message()
               << "threads=" << threads << " begin=" << begin << " end=" << end
               << " grain=" << grain);
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(threads);
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK);

  uint64_t n = end > begin ? uint64_t(end) - uint64_t(begin) : 0;
  Recorder rec(begin, n);
  tic_rt_parallel_for(ctx, begin, end, grain, &Recorder::task, &rec);

  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(rec.hits[i].load(), 1) << "index " << int64_t(begin + i);
  if (n == 0) {
    EXPECT_TRUE(rec.chunks.empty());
    return;
  }
  uint64_t expectChunks = 0;
  if (grain > 0)
    expectChunks = n / uint64_t(grain) + (n % uint64_t(grain) != 0);
  for (const Chunk &c : rec.chunks) {
    EXPECT_LT(c.begin, c.end);
    EXPECT_GE(c.begin, begin);
    EXPECT_LE(c.end, end);
    if (grain > 0) {
      EXPECT_LE(uint64_t(c.end) - uint64_t(c.begin), uint64_t(grain));
    }
    EXPECT_GE(c.thread, 0);
    EXPECT_LT(c.thread, threads);
  }
  if (grain > 0) {
    EXPECT_EQ(rec.chunks.size(), expectChunks);
  } else { // the default grain makes at most 8 chunks per thread
    EXPECT_LE(rec.chunks.size(), size_t(threads) * 8);
  }
}

TEST(ParallelFor, CoversEveryIndexExactlyOnce) {
  const std::pair<int64_t, int64_t> ranges[] = {
      {0, 0},  {5, 5},     {10, 3},   {-10, -20}, {0, 1},     {0, 7},
      {-5, 5}, {-100, -3}, {3, 1000}, {0, 4096},  {-7, 10007}};
  const int64_t grains[] = {-5, 0, 1, 2, 3, 7, 64, 1000, 1 << 20};
  for (int32_t threads : {1, 2, 3, 4, 8})
    for (auto r : ranges)
      for (int64_t g : grains)
        checkCoverage(threads, r.first, r.second, g);
}

TEST(ParallelFor, ExtremeRanges) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  for (int32_t threads : {1, 4}) {
    checkCoverage(threads, max - 100, max, 0);
    checkCoverage(threads, max - 100, max, 7);
    checkCoverage(threads, min, min + 100, 3);
    checkCoverage(threads, min, min + 100, std::numeric_limits<int64_t>::max());
  }
}

TEST(ParallelFor, HugeRangeChunkBounds) {
  // The whole int64 range: only chunk bounds are checked (no iteration).
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  struct State {
    std::mutex mu;
    std::vector<std::pair<int64_t, int64_t>> chunks;
  } st;
  const int64_t min = std::numeric_limits<int64_t>::min();
  const int64_t max = std::numeric_limits<int64_t>::max();
  tic_rt_parallel_for(
      ctx, min, max, 0,
      [](void *c, int64_t b, int64_t e, int32_t) {
        auto *s = static_cast<State *>(c);
        std::lock_guard<std::mutex> lock(s->mu);
        s->chunks.push_back({b, e});
      },
      &st);
  std::sort(st.chunks.begin(), st.chunks.end());
  ASSERT_FALSE(st.chunks.empty());
  EXPECT_EQ(st.chunks.front().first, min);
  EXPECT_EQ(st.chunks.back().second, max);
  for (size_t i = 1; i < st.chunks.size(); ++i)
    EXPECT_EQ(st.chunks[i - 1].second, st.chunks[i].first);
}

TEST(ParallelFor, SingleChunkRunsInlineOnCaller) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  struct State {
    std::thread::id id;
    int calls = 0;
    int32_t thread = -1;
  } st;
  tic_rt_parallel_for(
      ctx, 0, 10, 100,
      [](void *c, int64_t, int64_t, int32_t t) {
        auto *s = static_cast<State *>(c);
        s->id = std::this_thread::get_id();
        s->calls++;
        s->thread = t;
      },
      &st);
  EXPECT_EQ(st.calls, 1);
  EXPECT_EQ(st.thread, 0);
  EXPECT_EQ(st.id, std::this_thread::get_id());
}

TEST(ParallelFor, OneThreadRunsInlineInOrder) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(1);
  Context ctx(desc, &o);
  Recorder rec(0, 100);
  tic_rt_parallel_for(ctx, 0, 100, 10, &Recorder::task, &rec);
  ASSERT_EQ(rec.chunks.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(rec.chunks[i].begin, int64_t(i * 10));
    EXPECT_EQ(rec.chunks[i].thread, 0);
  }
}

TEST(ParallelFor, ChunkToThreadMappingIsContiguousBlocks) {
  // 10 chunks of 5 on 2, 3, 4 threads: thread t runs the t-th contiguous
  // block, the first (10 % threads) blocks one chunk longer.
  tic_rt_module_desc desc = makeDesc();
  for (int32_t threads : {2, 3, 4}) {
    tc_options o = Context::threads(threads);
    Context ctx(desc, &o);
    Recorder rec(0, 50);
    tic_rt_parallel_for(ctx, 0, 50, 5, &Recorder::task, &rec);
    ASSERT_EQ(rec.chunks.size(), 10u);
    int32_t base = 10 / threads, extra = 10 % threads;
    for (const Chunk &c : rec.chunks) {
      int32_t chunk = int32_t(c.begin / 5), t = 0, first = 0;
      while (chunk >= first + base + (t < extra)) {
        first += base + (t < extra);
        ++t;
      }
      EXPECT_EQ(c.thread, t)
          << "chunk at " << c.begin << ", " << threads << " threads";
    }
  }
}

TEST(ParallelFor, NullContextRunsSerially) {
  Recorder rec(0, 33);
  tic_rt_parallel_for(nullptr, 0, 33, 4, &Recorder::task, &rec);
  EXPECT_EQ(rec.chunks.size(), 9u);
  for (const Chunk &c : rec.chunks)
    EXPECT_EQ(c.thread, 0);
  for (int i = 0; i < 33; ++i)
    EXPECT_EQ(rec.hits[i].load(), 1);
}

TEST(ParallelFor, NestedLoopsStayOnTheirThread) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  struct State {
    tic_rt_context *ctx;
    std::atomic<int> hits[8][16];
    std::atomic<int> badThread{0};
  } st;
  st.ctx = ctx;
  for (auto &row : st.hits)
    for (auto &h : row)
      h = 0;
  tic_rt_parallel_for(
      ctx, 0, 8, 1,
      [](void *c, int64_t b, int64_t e, int32_t outer) {
        auto *s = static_cast<State *>(c);
        for (int64_t i = b; i < e; ++i) {
          struct Inner {
            State *s;
            int64_t row;
            int32_t outer;
          } in{s, i, outer};
          tic_rt_parallel_for(
              s->ctx, 0, 16, 3,
              [](void *c2, int64_t b2, int64_t e2, int32_t t) {
                auto *in = static_cast<Inner *>(c2);
                if (t != in->outer)
                  in->s->badThread++;
                for (int64_t j = b2; j < e2; ++j)
                  in->s->hits[in->row][j]++;
              },
              &in);
        }
      },
      &st);
  EXPECT_EQ(st.badThread.load(), 0);
  for (auto &row : st.hits)
    for (auto &h : row)
      EXPECT_EQ(h.load(), 1);
}

TEST(ParallelFor, KernelFailureSkipsRemainingChunks) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(1);
  Context ctx(desc, &o);
  struct State {
    tic_rt_context *ctx;
    int64_t maxSeen = -1;
  } st{ctx};
  auto task = [](void *c, int64_t b, int64_t e, int32_t) {
    auto *s = static_cast<State *>(c);
    for (int64_t i = b; i < e; ++i) {
      s->maxSeen = std::max(s->maxSeen, i);
      if (i == 10)
        tic_rt_report_out_of_bounds(s->ctx, "u", 0, i, 10, "t.tc:3:5");
    }
  };
  tic_rt_parallel_for(ctx, 0, 100, 1, task, &st);
  EXPECT_EQ(st.maxSeen, 10);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_ERR_OUT_OF_BOUNDS);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);

  // After the status was taken, the next loop runs fully again.
  st.maxSeen = -1;
  tic_rt_parallel_for(ctx, 11, 100, 1, task, &st);
  EXPECT_EQ(st.maxSeen, 99);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
}

TEST(ParallelFor, StaleFailureDoesNotSkip) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(2);
  Context ctx(desc, &o);
  tic_rt_report_assert(ctx, "stale", nullptr);
  Recorder rec(0, 100);
  tic_rt_parallel_for(ctx, 0, 100, 1, &Recorder::task, &rec);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(rec.hits[i].load(), 1);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_ERR_ASSERTION);
}

TEST(ParallelFor, ConcurrentFailuresKeepTheFirst) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  tic_rt_context *c = ctx;
  tic_rt_parallel_for(
      ctx, 0, 1000, 1,
      [](void *cl, int64_t b, int64_t, int32_t) {
        auto *cx = static_cast<tic_rt_context *>(cl);
        if (b % 2)
          tic_rt_report_assert(cx, "odd", "k.tc:1:1");
        else
          tic_rt_report_out_of_bounds(cx, "x", 1, b, 4, "k.tc:2:2");
      },
      c);
  tc_status s = tic_rt_take_kernel_status(ctx);
  std::string msg = tic_rt_last_error(ctx);
  if (s == TC_ERR_ASSERTION) {
    EXPECT_EQ(msg, "k.tc:1:1: assertion failed: odd");
  } else {
    EXPECT_EQ(s, TC_ERR_OUT_OF_BOUNDS);
    EXPECT_NE(msg.find("k.tc:2:2: index "), std::string::npos) << msg;
  }
}

} // namespace

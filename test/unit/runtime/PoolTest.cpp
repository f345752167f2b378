//===- PoolTest.cpp - Memory pools for sparse SNodes ----------------------===//
//
// tic_rt_pool_*: zeroed, aligned, distinct elements; allocation from many
// threads at once (through tic_rt_parallel_for, as kernels do); deferred
// reuse after collect, zeroed; bounded memory over many
// deactivate/reactivate cycles; running out as a kernel failure naming the
// SNode; reset; page-sized elements.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <vector>

using tic::test::allZero;
using tic::test::Context;
using tic::test::makeDesc;

namespace {

/// Owns a pool.
struct Pool {
  Pool(const char *name, uint64_t size, uint64_t count) {
    status = tic_rt_pool_create(name, size, count, &pool);
  }
  ~Pool() { tic_rt_pool_destroy(pool); }
  operator tic_rt_pool *() const { return pool; }
  tic_rt_pool_stats stats() const {
    tic_rt_pool_stats s;
    tic_rt_pool_get_stats(pool, &s);
    return s;
  }
  tic_rt_pool *pool = nullptr;
  tc_status status = TC_ERR_INTERNAL;
};

TEST(Pool, ElementsAreZeroedAlignedAndDistinct) {
  Pool p("blocks", 40, 1000);
  ASSERT_EQ(p.status, TC_OK);
  EXPECT_EQ(p.stats().element_size, 48u); // rounded up to 16
  EXPECT_EQ(p.stats().committed_bytes, 0u);
  std::set<void *> seen;
  for (int i = 0; i < 1000; ++i) {
    void *e = tic_rt_pool_alloc(nullptr, p);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(e) % 16, 0u);
    EXPECT_TRUE(allZero(e, 40));
    std::memset(e, 0xAB, 40);
    EXPECT_TRUE(seen.insert(e).second);
    EXPECT_EQ(tic_rt_pool_element(p, tic_rt_pool_index(p, e)), e);
  }
  tic_rt_pool_stats s = p.stats();
  EXPECT_EQ(s.live_elements, 1000u);
  EXPECT_EQ(s.high_water, 1000u);
  EXPECT_GE(s.committed_bytes, 1000u * 48u);
  EXPECT_LE(s.committed_bytes, s.reserved_bytes);
}

TEST(Pool, BadArguments) {
  tic_rt_pool *pool = reinterpret_cast<tic_rt_pool *>(1);
  EXPECT_EQ(tic_rt_pool_create("x", 0, 10, &pool), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(pool, nullptr);
  EXPECT_EQ(tic_rt_pool_create("x", 16, 0, &pool), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_pool_create("x", 16, TIC_RT_POOL_MAX_ELEMENTS + 1, &pool),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_pool_create("x", 16, 10, nullptr), TC_ERR_INVALID_ARGUMENT);
  // 2^32 - 2 elements of 2^40 bytes: more than any address space.
  EXPECT_EQ(tic_rt_pool_create("huge", uint64_t(1) << 40,
                               TIC_RT_POOL_MAX_ELEMENTS, &pool),
            TC_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::strstr(tic_rt_last_error(nullptr), "huge"), nullptr)
      << tic_rt_last_error(nullptr);
}

TEST(Pool, ReservesWithoutCommitting) {
  // 2^32 - 2 elements of 64 bytes: 256 GiB of address space, nothing used.
  Pool p("grid", 64, TIC_RT_POOL_MAX_ELEMENTS);
  ASSERT_EQ(p.status, TC_OK) << tic_rt_last_error(nullptr);
  EXPECT_GE(p.stats().reserved_bytes, uint64_t(64) * TIC_RT_POOL_MAX_ELEMENTS);
  void *e = tic_rt_pool_alloc(nullptr, p);
  ASSERT_NE(e, nullptr);
  EXPECT_LE(p.stats().committed_bytes, uint64_t(2) << 20);
}

TEST(Pool, ConcurrentAllocationsAreDistinct) {
  const int64_t n = 200000;
  Pool p("cells", 32, n);
  ASSERT_EQ(p.status, TC_OK);
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(8);
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK);
  std::vector<void *> got(n);
  struct Closure {
    tic_rt_context *ctx;
    tic_rt_pool *pool;
    void **got;
  } c{ctx, p, got.data()};
  tic_rt_parallel_for(
      ctx, 0, n, 64,
      [](void *cl, int64_t b, int64_t e, int32_t) {
        auto *c = static_cast<Closure *>(cl);
        for (int64_t i = b; i < e; ++i) {
          void *el = tic_rt_pool_alloc(c->ctx, c->pool);
          if (el)
            std::memset(el, int(i & 0x7f) | 1, 32);
          c->got[i] = el;
        }
      },
      &c);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got.front() != nullptr, true);
  EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end());
  EXPECT_EQ(p.stats().live_elements, uint64_t(n));
}

TEST(Pool, FreedElementsComeBackZeroedAfterCollect) {
  Pool p("leaves", 64, 100);
  ASSERT_EQ(p.status, TC_OK);
  std::vector<void *> first;
  for (int i = 0; i < 10; ++i) {
    first.push_back(tic_rt_pool_alloc(nullptr, p));
    std::memset(first.back(), 0x5A, 64);
  }
  for (void *e : first)
    tic_rt_pool_free(p, e);
  EXPECT_EQ(p.stats().live_elements, 0u);
  // Not reusable before collect: the next element is fresh.
  void *fresh = tic_rt_pool_alloc(nullptr, p);
  EXPECT_EQ(std::count(first.begin(), first.end(), fresh), 0);
  EXPECT_EQ(p.stats().high_water, 11u);
  tic_rt_pool_collect(p);
  std::set<void *> reused;
  for (int i = 0; i < 10; ++i) {
    void *e = tic_rt_pool_alloc(nullptr, p);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(allZero(e, 64)) << "a recycled element must read 0";
    reused.insert(e);
  }
  EXPECT_EQ(reused, std::set<void *>(first.begin(), first.end()));
  EXPECT_EQ(p.stats().high_water, 11u); // no fresh memory was needed
}

TEST(Pool, ConcurrentReuseHandsOutEachFreedElementOnce) {
  // Threads popping the free list at once (a launch activating cells after
  // a collect) must get distinct elements: exactly the freed ones.
  const int64_t n = 100000;
  Pool p("reuse", 16, n);
  ASSERT_EQ(p.status, TC_OK);
  std::vector<void *> first(n), again(n);
  for (int64_t i = 0; i < n; ++i)
    first[i] = tic_rt_pool_alloc(nullptr, p);
  for (int64_t i = 0; i < n; ++i)
    tic_rt_pool_free(p, first[i]);
  tic_rt_pool_collect(p);
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(8);
  Context ctx(desc, &o);
  struct Closure {
    tic_rt_context *ctx;
    tic_rt_pool *pool;
    void **got;
  } c{ctx, p, again.data()};
  tic_rt_parallel_for(
      ctx, 0, n, 16,
      [](void *cl, int64_t b, int64_t e, int32_t) {
        auto *c = static_cast<Closure *>(cl);
        for (int64_t i = b; i < e; ++i)
          c->got[i] = tic_rt_pool_alloc(c->ctx, c->pool);
      },
      &c);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  std::sort(first.begin(), first.end());
  std::sort(again.begin(), again.end());
  EXPECT_EQ(again, first);
  EXPECT_EQ(p.stats().high_water, uint64_t(n));
}

TEST(Pool, DeactivateReactivateCyclesKeepMemoryBounded) {
  // 1000 cycles of activating 5000 cells from 4 threads and freeing them:
  // the pool reuses the same elements, so its committed memory stays that
  // of the first cycle.
  const int64_t n = 5000;
  Pool p("cycle", 256, 1 << 20);
  ASSERT_EQ(p.status, TC_OK);
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(4);
  Context ctx(desc, &o);
  std::vector<void *> cells(n);
  struct Closure {
    tic_rt_context *ctx;
    tic_rt_pool *pool;
    void **cells;
    std::atomic<int> dirty;
  } c{ctx, p, cells.data(), {0}};
  uint64_t committedAfterFirst = 0;
  for (int cycle = 0; cycle < 1000; ++cycle) {
    tic_rt_parallel_for(
        ctx, 0, n, 0,
        [](void *cl, int64_t b, int64_t e, int32_t) {
          auto *c = static_cast<Closure *>(cl);
          for (int64_t i = b; i < e; ++i) {
            void *el = tic_rt_pool_alloc(c->ctx, c->pool);
            if (!el || !allZero(el, 256))
              c->dirty++;
            else
              std::memset(el, 0xFF, 256);
            c->cells[i] = el;
          }
        },
        &c);
    tic_rt_parallel_for(
        ctx, 0, n, 0,
        [](void *cl, int64_t b, int64_t e, int32_t) {
          auto *c = static_cast<Closure *>(cl);
          for (int64_t i = b; i < e; ++i)
            tic_rt_pool_free(c->pool, c->cells[i]);
        },
        &c);
    tic_rt_pool_collect(p);
    if (cycle == 0)
      committedAfterFirst = p.stats().committed_bytes;
  }
  EXPECT_EQ(c.dirty.load(), 0);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  EXPECT_EQ(p.stats().committed_bytes, committedAfterFirst);
  EXPECT_EQ(p.stats().high_water, uint64_t(n));
  EXPECT_EQ(p.stats().live_elements, 0u);
}

TEST(Pool, RunningOutIsAKernelFailureNamingTheSNode) {
  Pool p("particle_list", 16, 10);
  ASSERT_EQ(p.status, TC_OK);
  tic_rt_module_desc desc = makeDesc();
  tc_options o = Context::threads(1);
  Context ctx(desc, &o);
  for (int i = 0; i < 10; ++i)
    ASSERT_NE(tic_rt_pool_alloc(ctx, p), nullptr);
  EXPECT_EQ(tic_rt_pool_alloc(ctx, p), nullptr);
  EXPECT_EQ(tic_rt_pool_alloc(ctx, p), nullptr);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::strstr(tic_rt_last_error(ctx), "'particle_list'"), nullptr)
      << tic_rt_last_error(ctx);
  EXPECT_EQ(p.stats().high_water, 10u);
  EXPECT_EQ(p.stats().live_elements, 10u);
  // Freeing one makes room again after collect.
  tic_rt_pool_free(p, tic_rt_pool_element(p, 3));
  tic_rt_pool_collect(p);
  EXPECT_EQ(tic_rt_pool_alloc(ctx, p), tic_rt_pool_element(p, 3));
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
}

TEST(Pool, ElementsOverAPageAreRoundedTo16BytesOnly) {
  // Generated code walks hash entries with the compiler's stride (a
  // multiple of 16), so the pool must not round them to pages.
  Pool p("big", 5000, 64);
  ASSERT_EQ(p.status, TC_OK);
  EXPECT_EQ(p.stats().element_size, 5008u);
  void *a = tic_rt_pool_alloc(nullptr, p), *b = tic_rt_pool_alloc(nullptr, p);
  EXPECT_EQ(static_cast<char *>(b) - static_cast<char *>(a), 5008);
}

TEST(Pool, PageSizedElementsAreReturnedToTheSystem) {
  Pool p("pages", 8192, 64); // whole pages: recycled through the system
  ASSERT_EQ(p.status, TC_OK);
  uint64_t size = p.stats().element_size;
  EXPECT_EQ(size, 8192u);
  void *e = tic_rt_pool_alloc(nullptr, p);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(e) % 4096, 0u);
  std::memset(e, 0x77, size);
  tic_rt_pool_free(p, e);
  tic_rt_pool_collect(p);
  void *again = tic_rt_pool_alloc(nullptr, p);
  EXPECT_EQ(again, e);
  EXPECT_TRUE(allZero(again, size));
}

TEST(Pool, ResetFreesEverything) {
  Pool p("all", 32, 1000);
  ASSERT_EQ(p.status, TC_OK);
  for (int i = 0; i < 500; ++i)
    std::memset(tic_rt_pool_alloc(nullptr, p), 0x11, 32);
  tic_rt_pool_reset(p);
  tic_rt_pool_stats s = p.stats();
  EXPECT_EQ(s.live_elements, 0u);
  EXPECT_EQ(s.high_water, 0u);
  EXPECT_EQ(s.committed_bytes, 0u);
  void *e = tic_rt_pool_alloc(nullptr, p);
  EXPECT_EQ(e, tic_rt_pool_element(p, 0));
  EXPECT_TRUE(allZero(e, 32));
}

} // namespace

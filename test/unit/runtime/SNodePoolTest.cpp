//===- SNodePoolTest.cpp - The pools of pointer SNodes in a context -------===//
//
// Runtime ABI 3: a module descriptor lists one pool per pointer SNode; the
// context creates them, generated code allocates and frees cells by pool
// number, and tic_rt_take_kernel_status (the end of a launch) recycles the
// freed cells. MODULE_memory_stats is tic_rt_memory_stats. ABI 5: each
// pool's state is in the root buffer, where generated code allocates and
// frees inline (tic_rt_pool_state); ABI 6 replaces its stacks by lists.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <atomic>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

using tic::test::Context;
using tic::test::makeDesc;

namespace {

// The states at bytes 128 and 256 of the root buffer (128 bytes each).
const tic_rt_pool_desc kPools[] = {{"blocks", 256, 64, 128},
                                   {"leaves", 32, 4, 256}};

tic_rt_module_desc poolDesc() {
  tic_rt_module_desc d = makeDesc();
  d.num_pools = 2;
  d.pools = kPools;
  return d;
}

// ABI 5: states of 64 bytes, at 128 and 192.
const tic_rt_pool_desc kAbi5Pools[] = {{"blocks", 256, 64, 128},
                                       {"leaves", 32, 4, 192}};

tic_rt_module_desc abi5Desc() {
  tic_rt_module_desc d = makeDesc();
  d.abi_version = 5;
  d.num_pools = 2;
  d.pools = kAbi5Pools;
  return d;
}

TEST(SNodePool, CellsAreZeroedDistinctAndCounted) {
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  std::set<void *> cells;
  for (int i = 0; i < 10; ++i) {
    void *c = tic_rt_snode_alloc(ctx, 0);
    ASSERT_NE(c, nullptr);
    const unsigned char *b = static_cast<const unsigned char *>(c);
    for (int k = 0; k < 256; ++k)
      ASSERT_EQ(b[k], 0);
    std::memset(c, 0xab, 256);
    cells.insert(c);
  }
  EXPECT_EQ(cells.size(), 10u);
  tc_memory_stats ms;
  ASSERT_EQ(tic_rt_memory_stats(ctx, "blocks", &ms), TC_OK);
  EXPECT_EQ(ms.live_cells, 10u);
  EXPECT_GE(ms.live_bytes, 10u * 256);
  EXPECT_GE(ms.reserved_bytes, ms.committed_bytes);
  ASSERT_EQ(tic_rt_memory_stats(ctx, "leaves", &ms), TC_OK);
  EXPECT_EQ(ms.live_cells, 0u);
}

TEST(SNodePool, StateInTheRootBufferFollowsTheRuntime) {
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  auto *st = reinterpret_cast<tic_rt_pool_state *>(
      static_cast<char *>(tic_rt_root(ctx)) + 128);
  EXPECT_EQ(st->element_size, 256u);
  EXPECT_EQ(st->next, 0u);
  EXPECT_EQ(st->capacity, 0u); // nothing committed yet
  void *c = tic_rt_snode_alloc(ctx, 0);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(reinterpret_cast<uint64_t>(c), st->base);
  EXPECT_EQ(st->next, 1u);
  EXPECT_EQ(st->live, 1);
  EXPECT_GE(st->capacity, 1u);
  // What generated code does past the capacity: take an index, ask.
  uint64_t i = __atomic_fetch_add(&st->next, 1, __ATOMIC_RELAXED);
  void *d = tic_rt_snode_alloc_at(ctx, 0, i);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(reinterpret_cast<uint64_t>(d), st->base + 256 * i);
  EXPECT_EQ(st->live, 2);
  // Past the reservation (64 cells + the threads' share): out of memory.
  EXPECT_EQ(tic_rt_snode_alloc_at(ctx, 0, st->max_elements), nullptr);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::strstr(tic_rt_last_error(ctx), "blocks"), nullptr);
  // A free appends the index to the pending list; the launch's end (the
  // collect) moves it to the free list, from which the next allocation
  // takes it.
  tic_rt_snode_free(ctx, 0, c);
  EXPECT_EQ(st->pending_count, 1u);
  ASSERT_NE(st->pending_list, 0u);
  EXPECT_EQ(reinterpret_cast<uint32_t *>(st->pending_list)[0], 0u);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  EXPECT_EQ(st->pending_count, 0u);
  EXPECT_EQ(st->free_count, 1u);
  EXPECT_EQ(st->free_taken, 0u);
  EXPECT_EQ(reinterpret_cast<uint32_t *>(st->free_list)[0], 0u);
  EXPECT_EQ(st->free_head, 0u); // the ABI 5 stacks stay unused
  EXPECT_EQ(tic_rt_snode_alloc(ctx, 0), c);
  EXPECT_EQ(st->free_taken, 1u);
}

// The host's bound of a struct-for over a pool's elements
// (snode.pool_bound): on a CPU context, the elements handed out.
TEST(SNodePool, BoundIsTheCountOnTheCPU) {
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  EXPECT_EQ(tic_rt_snode_pool_bound(ctx, 0), 0);
  for (int i = 0; i < 3; ++i)
    ASSERT_NE(tic_rt_snode_alloc(ctx, 0), nullptr);
  EXPECT_EQ(tic_rt_snode_pool_bound(ctx, 0), 3);
  EXPECT_EQ(tic_rt_snode_pool_bound(ctx, 0), tic_rt_snode_pool_used(ctx, 0));
  EXPECT_EQ(tic_rt_snode_pool_bound(ctx, 1), 0);
  // A pool number it does not have.
  EXPECT_EQ(tic_rt_snode_pool_bound(ctx, 2), 0);
  EXPECT_EQ(tic_rt_snode_pool_bound(ctx, -1), 0);
}

TEST(SNodePool, ListsKeepTheUntakenEntriesAcrossCollects) {
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK);
  auto *st = reinterpret_cast<tic_rt_pool_state *>(
      static_cast<char *>(tic_rt_root(ctx)) + 256);
  void *c[4];
  for (void *&x : c)
    ASSERT_NE(x = tic_rt_snode_alloc(ctx, 1), nullptr);
  for (void *x : c)
    tic_rt_snode_free(ctx, 1, x);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  EXPECT_EQ(st->free_count, 4u);
  // A launch takes one (the last entry) and frees another cell.
  void *a = tic_rt_snode_alloc(ctx, 1);
  EXPECT_EQ(a, c[3]);
  tic_rt_snode_free(ctx, 1, a);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  // Three untaken, then the pending one: four, each cell once.
  EXPECT_EQ(st->free_count, 4u);
  std::set<void *> got;
  for (int i = 0; i < 4; ++i)
    got.insert(tic_rt_snode_alloc(ctx, 1));
  EXPECT_EQ(got, std::set<void *>(c, c + 4));
  EXPECT_EQ(st->next, 4u); // no fresh cell was needed
  // Taking more than the list holds falls back to fresh memory.
  void *fresh = tic_rt_snode_alloc(ctx, 1);
  EXPECT_EQ(st->next, 5u);
  EXPECT_EQ(got.count(fresh), 0u);
}

TEST(SNodePool, DescriptorsOfAbi5KeepTheirStacks) {
  // The states of an ABI 5 module are 64 bytes: its code pops and pushes
  // the stacks, and the runtime writes nothing past them.
  tic_rt_module_desc desc = abi5Desc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  auto *st = reinterpret_cast<tic_rt_pool_state *>(
      static_cast<char *>(tic_rt_root(ctx)) + 128);
  void *c = tic_rt_snode_alloc(ctx, 0);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(reinterpret_cast<uint64_t>(c), st->base);
  tic_rt_snode_free(ctx, 0, c);
  EXPECT_NE(st->pending_head, 0u);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  EXPECT_EQ(st->pending_head & 0xffffffffu, 0u);
  EXPECT_EQ(st->free_head & 0xffffffffu, 1u); // element 0, link 1
  EXPECT_EQ(tic_rt_snode_alloc(ctx, 0), c);
  // An unused cell is reusable at once.
  void *d = tic_rt_snode_alloc(ctx, 1);
  ASSERT_NE(d, nullptr);
  tic_rt_snode_release_unused(ctx, 1, d);
  EXPECT_EQ(tic_rt_snode_alloc(ctx, 1), d);
  // The second state starts at byte 192, right after the first's 64.
  auto *st2 = reinterpret_cast<tic_rt_pool_state *>(
      static_cast<char *>(tic_rt_root(ctx)) + 192);
  EXPECT_EQ(st2->element_size, 32u);
  EXPECT_EQ(st2->next, 1u);
}

TEST(SNodePool, StatesThatDoNotFitAreRejected) {
  // An ABI 6 state needs 128 bytes: one at 960 of a 1024-byte root does
  // not fit (an ABI 5 one does).
  const tic_rt_pool_desc late[] = {{"blocks", 256, 64, 960}};
  tic_rt_module_desc desc = makeDesc();
  desc.num_pools = 1;
  desc.pools = late;
  Context ctx(desc);
  EXPECT_EQ(ctx.status(), TC_ERR_INVALID_ARGUMENT);
  desc.abi_version = 5;
  Context ok(desc);
  EXPECT_EQ(ok.status(), TC_OK) << tic_rt_last_error(nullptr);
}

TEST(SNodePool, DescriptorsOfAbi4StillWork) {
  // ABI 3 and 4: three members per pool, the state inside the runtime.
  struct {
    const char *name;
    uint64_t size, max;
  } old[] = {{"blocks", 256, 64}, {"leaves", 32, 4}};
  tic_rt_module_desc desc = makeDesc();
  desc.abi_version = 4;
  desc.num_pools = 2;
  desc.pools = reinterpret_cast<const tic_rt_pool_desc *>(old);
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  void *a = tic_rt_snode_alloc(ctx, 1), *b = tic_rt_snode_alloc(ctx, 1);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(static_cast<char *>(b) - static_cast<char *>(a), 32);
  const unsigned char *root =
      static_cast<const unsigned char *>(tic_rt_root(ctx));
  for (int k = 0; k < 1024; ++k)
    ASSERT_EQ(root[k], 0) << k; // nothing written into the root buffer
}

TEST(SNodePool, FreedCellsComeBackZeroedAfterTheLaunch) {
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK);
  void *c = tic_rt_snode_alloc(ctx, 1);
  ASSERT_NE(c, nullptr);
  std::memset(c, 0x5a, 32);
  tic_rt_snode_free(ctx, 1, c);
  tc_memory_stats ms;
  ASSERT_EQ(tic_rt_memory_stats(ctx, "leaves", &ms), TC_OK);
  EXPECT_EQ(ms.live_cells, 0u);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK); // the launch ends
  void *d = tic_rt_snode_alloc(ctx, 1);
  ASSERT_EQ(d, c); // reused ...
  const unsigned char *b = static_cast<const unsigned char *>(d);
  for (int k = 0; k < 32; ++k)
    EXPECT_EQ(b[k], 0) << k; // ... and zeroed
}

TEST(SNodePool, UnusedCellsAreReusedAfterTheLaunch) {
  // The free list is only taken from during a launch: a cell given back
  // unused waits for the collect, as a freed one does.
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK);
  void *c = tic_rt_snode_alloc(ctx, 1);
  ASSERT_NE(c, nullptr);
  tic_rt_snode_release_unused(ctx, 1, c);
  void *d = tic_rt_snode_alloc(ctx, 1);
  EXPECT_NE(d, c);
  tc_memory_stats ms;
  ASSERT_EQ(tic_rt_memory_stats(ctx, "leaves", &ms), TC_OK);
  EXPECT_EQ(ms.live_cells, 1u);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  EXPECT_EQ(tic_rt_snode_alloc(ctx, 1), c);
}

TEST(SNodePool, ViewCoversEveryElementHandedOut) {
  // What a struct-for over a hash node reads: base + k * size, k < used.
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK);
  EXPECT_EQ(tic_rt_snode_pool_used(ctx, 0), 0);
  void *cells[3];
  for (void *&c : cells) {
    c = tic_rt_snode_alloc(ctx, 0);
    ASSERT_NE(c, nullptr);
  }
  EXPECT_EQ(tic_rt_snode_pool_used(ctx, 0), 3);
  char *base = static_cast<char *>(tic_rt_snode_pool_base(ctx, 0));
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(static_cast<void *>(base + k * 256), cells[k]) << k;
  // A freed element stays in the view (it reads as zero after collect).
  tic_rt_snode_free(ctx, 0, cells[1]);
  EXPECT_EQ(tic_rt_snode_pool_used(ctx, 0), 3);
  EXPECT_EQ(tic_rt_snode_pool_used(ctx, 1), 0);
}

TEST(SNodePool, ExhaustionIsAKernelFailureNamingTheSNode) {
  tic_rt_module_desc desc = poolDesc();
  tc_options o = Context::threads(1);
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK);
  // 4 cells, plus the room for the entries of hash inserts that lose a
  // race (65536; address space only).
  for (int i = 0; i < 4 + 65536; ++i)
    ASSERT_NE(tic_rt_snode_alloc(ctx, 1), nullptr) << i;
  EXPECT_EQ(tic_rt_snode_alloc(ctx, 1), nullptr);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_ERR_OUT_OF_MEMORY);
  std::string msg = tic_rt_last_error(ctx);
  EXPECT_NE(msg.find("leaves"), std::string::npos) << msg;
}

TEST(SNodePool, ConcurrentAllocationsAreDistinct) {
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK);
  std::vector<void *> got(64, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 8; ++i)
        got[t * 8 + i] = tic_rt_snode_alloc(ctx, 0);
    });
  for (std::thread &t : threads)
    t.join();
  std::set<void *> distinct(got.begin(), got.end());
  EXPECT_EQ(distinct.size(), 64u);
  EXPECT_EQ(distinct.count(nullptr), 0u);
}

TEST(SNodePool, MemoryStatsOfTheContextAndErrors) {
  tic_rt_module_desc desc = poolDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK);
  ASSERT_NE(tic_rt_snode_alloc(ctx, 0), nullptr);
  tc_memory_stats all, blocks;
  ASSERT_EQ(tic_rt_memory_stats(ctx, nullptr, &all), TC_OK);
  ASSERT_EQ(tic_rt_memory_stats(ctx, "blocks", &blocks), TC_OK);
  EXPECT_EQ(all.live_cells, 1u);
  EXPECT_EQ(all.live_bytes, desc.root_size + blocks.live_bytes);
  EXPECT_GE(all.reserved_bytes, desc.root_size + blocks.reserved_bytes);
  EXPECT_EQ(tic_rt_memory_stats(ctx, "nope", &all), TC_ERR_INVALID_ARGUMENT);
  std::string msg = tic_rt_last_error(ctx);
  EXPECT_NE(msg.find("nope"), std::string::npos) << msg;
  EXPECT_EQ(tic_rt_memory_stats(ctx, nullptr, nullptr),
            TC_ERR_INVALID_ARGUMENT);
}

TEST(SNodePool, MissingPoolTableIsRejected) {
  tic_rt_module_desc desc = poolDesc();
  desc.pools = nullptr;
  Context ctx(desc);
  EXPECT_EQ(ctx.status(), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx.get(), nullptr);
}

} // namespace

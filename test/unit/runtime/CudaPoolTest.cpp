//===- CudaPoolTest.cpp - SNode pools in device memory that grow ----------===//
//
// Run through the stand-in CUDA driver (integration_test/fake_cuda, loaded
// as libcuda.so.1: LD_LIBRARY_PATH is set by CMake), whose device memory is
// host memory, whose launches do nothing and whose virtual memory API
// aborts on a misuse (an unmapped range touched, a reservation freed while
// mapped). The tests play the device: they move a pool's bump index with a
// field write, "launch", and wait (CudaPools.cpp).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cstddef>
#include <cstdlib>
#include <dlfcn.h>

using tic::test::Context;
using tic::test::makeDesc;

namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kGranularity = 2 * kMiB; // the stand-in driver's

uint64_t roundUp(uint64_t v, uint64_t g) { return (v + g - 1) / g * g; }

// A pool of 2^24 cells of 256 bytes (4 GiB: more than a pool maps at first)
// and a small one; their states at bytes 128 and 256 of the root buffer.
const tic_rt_pool_desc kPools[] = {{"big", 256, uint64_t(1) << 24, 128},
                                   {"small", 64, 1000, 256}};

tic_rt_module_desc poolDesc() {
  tic_rt_module_desc d = makeDesc();
  d.num_pools = 2;
  d.pools = kPools;
  d.ptx = "// no kernels\n";
  return d;
}

tc_options onDevice(uint64_t budget = 0) {
  tc_options o;
  tc_options_init(&o);
  o.arch = TC_ARCH_CUDA;
  o.device_memory_bytes = budget;
  return o;
}

char *stateOf(tic_rt_context *ctx, int32_t pool) {
  return static_cast<char *>(tic_rt_root(ctx)) + kPools[pool].state_offset;
}

tic_rt_pool_state readState(tic_rt_context *ctx, int32_t pool) {
  tic_rt_pool_state st;
  tic_rt_field_read(ctx, &st, stateOf(ctx, pool), sizeof(st));
  return st;
}

/// What device code does when it takes fresh cells: the bump index moves.
void setNext(tic_rt_context *ctx, int32_t pool, uint64_t next) {
  tic_rt_field_write(ctx,
                     stateOf(ctx, pool) + offsetof(tic_rt_pool_state, next),
                     &next, sizeof(next));
}

const tic_rt_cuda_kernel kKernel = {"k__par0", 0, 0};

void launch(tic_rt_context *ctx) {
  uint64_t total = 1;
  void *params[] = {&total};
  tic_rt_cuda_launch(ctx, &kKernel, params, 1, 1, nullptr, 0);
}

// The stand-in driver is built with these tests (CMake sets
// LD_LIBRARY_PATH to it): without it they fail.
class CudaPools : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("TIC_CUDA_FIXED_POOLS");
    tic_rt_module_desc desc = poolDesc();
    tc_options o = onDevice();
    Context probe(desc, &o);
    ASSERT_EQ(probe.status(), TC_OK)
        << "the stand-in CUDA driver: " << tic_rt_last_error(nullptr);
  }
};

TEST_F(CudaPools, ReserveEveryCellAndMapTheFirstShare) {
  tic_rt_module_desc desc = poolDesc();
  tc_options o = onDevice();
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  ASSERT_EQ(tic_rt_on_device(ctx), 1);
  // The big pool: address space for all its cells (and the room for lost
  // hash races), 1 GiB of cells and lists mapped, as a fixed pool had.
  uint64_t want = (uint64_t(1) << 24) + 65536;
  uint64_t first = (uint64_t(1) << 30) / (256 + 8);
  tic_rt_pool_stats ps;
  ASSERT_EQ(tic_rt_snode_pool_stats(ctx, 0, &ps), TC_OK);
  EXPECT_EQ(ps.reserved_bytes, want * 256);
  EXPECT_GE(ps.committed_bytes, first * 256);
  EXPECT_LT(ps.committed_bytes, first * 256 + kGranularity);
  tic_rt_pool_state st = readState(ctx, 0);
  EXPECT_EQ(st.capacity * 256, ps.committed_bytes);
  EXPECT_EQ(st.max_elements, st.capacity); // struct-fors stop there
  EXPECT_EQ(st.next, 0u);
  EXPECT_NE(st.free_list, 0u);
  EXPECT_EQ(st.pending_list - st.free_list, roundUp(want * 4, kGranularity));
  // The small pool: every cell, no more (its mapping's rounding does not
  // raise the capacity past the reservation).
  ASSERT_EQ(tic_rt_snode_pool_stats(ctx, 1, &ps), TC_OK);
  EXPECT_EQ(ps.reserved_bytes, (1000u + 65536u) * 64u);
  EXPECT_EQ(ps.committed_bytes, ps.reserved_bytes);
  EXPECT_EQ(readState(ctx, 1).capacity, 1000u + 65536u);
}

TEST_F(CudaPools, GrowWhereTheHostWaitsPastHalf) {
  tic_rt_module_desc desc = poolDesc();
  tc_options o = onDevice();
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  tic_rt_pool_state before = readState(ctx, 0);
  uint64_t cap = before.capacity;
  // Below half: nothing changes.
  setNext(ctx, 0, cap / 2 - 1);
  launch(ctx);
  ASSERT_EQ(tic_rt_sync(ctx), TC_OK) << tic_rt_last_error(nullptr);
  EXPECT_EQ(readState(ctx, 0).capacity, cap);
  // Past half, but no launch since the last look: nothing either.
  setNext(ctx, 0, cap / 2 + 1);
  ASSERT_EQ(tic_rt_sync(ctx), TC_OK);
  EXPECT_EQ(readState(ctx, 0).capacity, cap);
  // After a launch, the wait doubles the pool; the cells and lists stay
  // where they were (device code keeps its addresses).
  launch(ctx);
  ASSERT_EQ(tic_rt_sync(ctx), TC_OK) << tic_rt_last_error(nullptr);
  tic_rt_pool_state after = readState(ctx, 0);
  EXPECT_GE(after.capacity, 2 * cap);
  EXPECT_LT(after.capacity * 256, 2 * cap * 256 + kGranularity);
  EXPECT_EQ(after.max_elements, after.capacity);
  EXPECT_EQ(after.base, before.base);
  EXPECT_EQ(after.free_list, before.free_list);
  EXPECT_EQ(after.pending_list, before.pending_list);
  EXPECT_EQ(after.next, cap / 2 + 1);
  tic_rt_pool_stats ps;
  ASSERT_EQ(tic_rt_snode_pool_stats(ctx, 0, &ps), TC_OK);
  EXPECT_EQ(ps.committed_bytes, after.capacity * 256);
  // A field read waits too; an index past the capacity (a launch that
  // failed for want of cells) asks for twice the index.
  uint64_t over = after.capacity + 1000;
  setNext(ctx, 0, over);
  launch(ctx);
  float x;
  tic_rt_field_read(ctx, &x, tic_rt_root(ctx), sizeof(x));
  EXPECT_GE(readState(ctx, 0).capacity, 2 * over);
  // Up to the reservation and no further.
  for (int i = 0; i < 8; ++i) {
    setNext(ctx, 0, readState(ctx, 0).capacity);
    launch(ctx);
    ASSERT_EQ(tic_rt_sync(ctx), TC_OK) << tic_rt_last_error(nullptr);
  }
  ASSERT_EQ(tic_rt_snode_pool_stats(ctx, 0, &ps), TC_OK);
  EXPECT_EQ(ps.committed_bytes, ps.reserved_bytes);
  EXPECT_EQ(readState(ctx, 0).capacity, (uint64_t(1) << 24) + 65536);
}

/// The stand-in driver's switch: while on, its events answer "not ready"
/// (the device is busy) and the asynchronous copies wait.
void holdEvents(bool on) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr);
  auto hold =
      reinterpret_cast<void (*)(int)>(dlsym(h, "fake_cuda_hold_events"));
  ASSERT_NE(hold, nullptr);
  hold(on ? 1 : 0);
  dlclose(h);
}

// A program that never waits: each launch is followed by an asynchronous
// read of the pools' states; the first launch after it has arrived grows
// the pools from it, and raises their capacities ahead of itself, in
// stream order. Until then, nothing changes and nothing waits.
TEST_F(CudaPools, GrowBetweenLaunchesWithoutAWait) {
  tic_rt_module_desc desc = poolDesc();
  tc_options o = onDevice();
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  uint64_t cap = readState(ctx, 0).capacity;
  setNext(ctx, 0, cap / 2 + 1);
  holdEvents(true);
  launch(ctx); // the states' read is queued behind it
  launch(ctx); // it has not arrived: no growth
  EXPECT_EQ(uint64_t(tic_rt_snode_pool_bound(ctx, 0)), cap);
  holdEvents(false);
  launch(ctx); // it has: the pool doubles first
  uint64_t grown = uint64_t(tic_rt_snode_pool_bound(ctx, 0));
  EXPECT_GE(grown, 2 * cap);
  EXPECT_LT(grown * 256, 2 * cap * 256 + kGranularity);
  // The small pool, all mapped, did not move.
  EXPECT_EQ(uint64_t(tic_rt_snode_pool_bound(ctx, 1)), 1000u + 65536u);
  // What the device sees once the copies queued are done.
  tic_rt_pool_state st = readState(ctx, 0);
  EXPECT_EQ(st.capacity, grown);
  EXPECT_EQ(st.max_elements, grown);
  EXPECT_EQ(st.next, cap / 2 + 1);
  // Below half of the new size: the next reads change nothing.
  launch(ctx);
  launch(ctx);
  EXPECT_EQ(uint64_t(tic_rt_snode_pool_bound(ctx, 0)), grown);
  // Past it again: the read after a launch is enough.
  setNext(ctx, 0, grown);
  launch(ctx);
  launch(ctx);
  uint64_t again = uint64_t(tic_rt_snode_pool_bound(ctx, 0));
  EXPECT_GE(again, 2 * grown);
  // (A field read waits, then may grow the pool again from what it saw:
  // what it copied is the capacity raised without a wait.)
  uint64_t seen = readState(ctx, 0).capacity;
  EXPECT_EQ(seen, again);
}

// The host's bound of a struct-for over a pool's elements
// (snode.pool_bound): the elements mapped, a record of the runtime's,
// whatever the device's bump index (which only a wait could read).
TEST_F(CudaPools, BoundIsWhatIsMapped) {
  tic_rt_module_desc desc = poolDesc();
  tc_options o = onDevice();
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  uint64_t cap = readState(ctx, 0).capacity;
  EXPECT_EQ(uint64_t(tic_rt_snode_pool_bound(ctx, 0)), cap);
  EXPECT_EQ(uint64_t(tic_rt_snode_pool_bound(ctx, 1)),
            readState(ctx, 1).capacity);
  setNext(ctx, 0, cap / 2 + 1);
  EXPECT_EQ(uint64_t(tic_rt_snode_pool_bound(ctx, 0)), cap);
  // After growth, the new capacity.
  launch(ctx);
  ASSERT_EQ(tic_rt_sync(ctx), TC_OK) << tic_rt_last_error(nullptr);
  uint64_t grown = readState(ctx, 0).capacity;
  EXPECT_GT(grown, cap);
  EXPECT_EQ(uint64_t(tic_rt_snode_pool_bound(ctx, 0)), grown);
}

TEST_F(CudaPools, GrowWithinTheBudget) {
  tic_rt_module_desc desc = poolDesc();
  uint64_t budget = 64 * kMiB;
  tc_options o = onDevice(budget);
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  auto total = [&] {
    tc_memory_stats ms;
    EXPECT_EQ(tic_rt_memory_stats(ctx, nullptr, &ms), TC_OK);
    return ms.committed_bytes;
  };
  tic_rt_pool_stats big, small;
  ASSERT_EQ(tic_rt_snode_pool_stats(ctx, 0, &big), TC_OK);
  // The big pool reserves what the budget could hold of it, and maps the
  // most whole pieces of its share (half of what the fields leave): its
  // cells, and a piece of each list.
  uint64_t share = (budget - 1024) / 2;
  EXPECT_EQ(big.reserved_bytes, (budget - 1024) / (256 + 8) * 256);
  EXPECT_EQ(big.committed_bytes % kGranularity, 0u);
  EXPECT_LE(big.committed_bytes + 2 * kGranularity, share);
  EXPECT_GT(big.committed_bytes + 3 * kGranularity, share);
  // The small pool leaves most of its share: the big one grows into it,
  // up to the budget (lists included) and no further.
  tic_rt_pool_state st = readState(ctx, 0);
  for (int i = 0; i < 4; ++i) {
    setNext(ctx, 0, readState(ctx, 0).capacity);
    launch(ctx);
    ASSERT_EQ(tic_rt_sync(ctx), TC_OK) << tic_rt_last_error(nullptr);
  }
  ASSERT_EQ(tic_rt_snode_pool_stats(ctx, 0, &big), TC_OK);
  ASSERT_EQ(tic_rt_snode_pool_stats(ctx, 1, &small), TC_OK);
  EXPECT_GT(readState(ctx, 0).capacity, st.capacity);
  uint64_t lists = 2 * roundUp(readState(ctx, 0).capacity * 4, kGranularity) +
                   2 * roundUp(small.reserved_bytes / 64 * 4, kGranularity);
  uint64_t smallCells = roundUp(small.reserved_bytes, kGranularity);
  EXPECT_LE(1024 + big.committed_bytes + smallCells + lists, budget);
  // Another piece would not have fit.
  EXPECT_GT(1024 + big.committed_bytes + kGranularity + smallCells + lists,
            budget);
  EXPECT_GT(total(), 0u);
}

TEST_F(CudaPools, FixedOnRequest) {
  setenv("TIC_CUDA_FIXED_POOLS", "1", 1);
  tic_rt_module_desc desc = poolDesc();
  tc_options o = onDevice();
  Context ctx(desc, &o);
  unsetenv("TIC_CUDA_FIXED_POOLS");
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  tic_rt_pool_stats ps;
  ASSERT_EQ(tic_rt_snode_pool_stats(ctx, 0, &ps), TC_OK);
  uint64_t first = (uint64_t(1) << 30) / (256 + 8);
  EXPECT_EQ(ps.reserved_bytes, first * 256);
  EXPECT_EQ(ps.committed_bytes, first * 256);
  setNext(ctx, 0, first);
  launch(ctx);
  ASSERT_EQ(tic_rt_sync(ctx), TC_OK);
  EXPECT_EQ(readState(ctx, 0).capacity, first);
}

} // namespace

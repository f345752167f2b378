//===- HashBlockTest.cpp - tic_rt_hash_block and its sweep ----------------===//
//
// The grown bucket heads of hash tables below other nodes: zeroed blocks the
// context frees between loops once the slot that named them moved on, and
// all of them with the context. Internal: reads the bytes the context holds
// (tic::rt::hashBlockBytes, which MODULE_memory_stats adds to the node's).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "TestUtil.h"

#include <cstdint>
#include <cstring>

using tic::test::allZero;
using tic::test::Context;
using tic::test::makeDesc;

namespace {

TEST(HashBlock, FreedOnceTheirOwnersMoveOn) {
  tic_rt_module_desc desc = makeDesc(256);
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  auto **owner = static_cast<void **>(tic_rt_root(ctx));
  void *a = tic_rt_hash_block(ctx, 0, &owner[0], 4096);
  void *b = tic_rt_hash_block(ctx, 1, &owner[1], 1 << 20);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 16, 0u);
  EXPECT_TRUE(allZero(a, 4096));
  EXPECT_TRUE(allZero(b, 1 << 20));
  owner[0] = a;
  owner[1] = b;
  uint64_t both = tic::rt::hashBlockBytes(ctx, -1);
  EXPECT_GE(both, 4096u + (1u << 20));
  EXPECT_GE(tic::rt::hashBlockBytes(ctx, 0), 4096u);
  EXPECT_LT(tic::rt::hashBlockBytes(ctx, 0), 8192u);
  EXPECT_EQ(tic::rt::hashBlockBytes(ctx, 2), 0u);
  // Named: kept by the sweep between loops (every entry point's end).
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  EXPECT_EQ(tic::rt::hashBlockBytes(ctx, -1), both);
  std::memset(a, 1, 4096);
  // The table moved on (grew again, or its parent cell went): freed.
  owner[0] = nullptr;
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
  EXPECT_EQ(tic::rt::hashBlockBytes(ctx, 0), 0u);
  EXPECT_EQ(tic::rt::hashBlockBytes(ctx, -1), tic::rt::hashBlockBytes(ctx, 1));
  // A null context or owner, an impossible size: null, no crash.
  EXPECT_EQ(tic_rt_hash_block(nullptr, 0, &owner[2], 64), nullptr);
  EXPECT_EQ(tic_rt_hash_block(ctx, 0, nullptr, 64), nullptr);
  EXPECT_EQ(tic_rt_hash_block(ctx, 0, &owner[2], UINT64_MAX), nullptr);
  // b is still named: the context frees it when it goes (LeakSanitizer in
  // scripts/sanitize.sh checks).
}

} // namespace

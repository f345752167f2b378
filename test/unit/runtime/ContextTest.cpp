//===- ContextTest.cpp - Context creation, root buffer, errors ------------===//

#include "TestUtil.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <thread>

using tic::test::allZero;
using tic::test::Context;
using tic::test::makeDesc;

namespace {

TEST(Context, CreateWithNullOptionsUsesDefaults) {
  tic_rt_module_desc desc = makeDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  ASSERT_NE(ctx.get(), nullptr);
  EXPECT_EQ(tic_rt_desc(ctx), &desc);
  const tc_options *o = tic_rt_options(ctx);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->arch, TC_ARCH_CPU);
  EXPECT_GE(o->num_threads, 1);
  EXPECT_EQ(o->num_threads, tic_rt_num_threads(ctx));
  EXPECT_EQ(o->seed, 0u);
  EXPECT_STREQ(tic_rt_last_error(ctx), "");
}

TEST(Context, DestroyNullIsNoop) { tic_rt_context_destroy(nullptr); }

// tc.scratch (tic-privatize-scatter's per-thread copies): zeroed memory
// per slot, kept while it is large enough, zeroed again when it grows.
TEST(Context, ScratchSlots) {
  tic_rt_module_desc desc = makeDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
  auto *a = static_cast<unsigned char *>(tic_rt_scratch(ctx, 3, 4096));
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(allZero(a, 4096));
  // The caller's contract is to leave it zero; what it leaves is kept.
  a[0] = 7;
  EXPECT_EQ(tic_rt_scratch(ctx, 3, 100), a);
  EXPECT_EQ(a[0], 7);
  a[0] = 0;
  // Another slot is other memory; an empty request is not null.
  auto *b = static_cast<unsigned char *>(tic_rt_scratch(ctx, 0, 0));
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b, a);
  // Growing gives zeroed memory.
  auto *c = static_cast<unsigned char *>(tic_rt_scratch(ctx, 3, 1 << 20));
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(allZero(c, 1 << 20));
  // Bad slots, a null context, an impossible size: null, no crash.
  EXPECT_EQ(tic_rt_scratch(ctx, -1, 8), nullptr);
  EXPECT_EQ(tic_rt_scratch(ctx, 1 << 16, 8), nullptr);
  EXPECT_EQ(tic_rt_scratch(nullptr, 0, 8), nullptr);
  EXPECT_EQ(tic_rt_scratch(ctx, 5, UINT64_MAX), nullptr);
  // The slot that failed to grow keeps nothing broken.
  EXPECT_NE(tic_rt_scratch(ctx, 5, 16), nullptr);
}

TEST(Context, ExplicitThreadCount) {
  tic_rt_module_desc desc = makeDesc();
  for (int32_t n : {1, 2, 3, 7, 64}) {
    tc_options o = Context::threads(n);
    Context ctx(desc, &o);
    ASSERT_EQ(ctx.status(), TC_OK);
    EXPECT_EQ(tic_rt_num_threads(ctx), n);
  }
  EXPECT_EQ(tic_rt_num_threads(nullptr), 1);
}

TEST(Context, CudaWithoutGpuIsNoDevice) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o;
  tc_options_init(&o);
  o.arch = TC_ARCH_CUDA;
  tic_rt_context *ctx = reinterpret_cast<tic_rt_context *>(&o); // poison
  EXPECT_EQ(tic_rt_context_create(&o, &desc, &ctx), TC_ERR_NO_DEVICE);
  EXPECT_EQ(ctx, nullptr);
  std::string msg = tic_rt_last_error(nullptr);
  EXPECT_NE(msg.find("CUDA"), std::string::npos) << msg;
}

TEST(Context, AnyFallsBackToCpu) {
  tic_rt_module_desc desc = makeDesc();
  tc_options o;
  tc_options_init(&o);
  o.arch = TC_ARCH_ANY;
  Context ctx(desc, &o);
  ASSERT_EQ(ctx.status(), TC_OK);
  EXPECT_EQ(tic_rt_options(ctx)->arch, TC_ARCH_CPU);
}

// A module with device code (--target=host,cuda) on a machine without a
// GPU: TC_ARCH_CUDA says why, TC_ARCH_ANY runs it on the CPU. (Skipped where
// the CUDA driver is installed.)
TEST(Context, CudaModuleWithoutGpu) {
  if (void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
    GTEST_SKIP() << "a CUDA driver is installed";
  }
  tic_rt_module_desc desc = makeDesc();
  desc.ptx = "// no kernels\n.version 7.0\n.target sm_80\n.address_size 64\n";
  tc_options o;
  tc_options_init(&o);
  o.arch = TC_ARCH_CUDA;
  tic_rt_context *ctx = nullptr;
  EXPECT_EQ(tic_rt_context_create(&o, &desc, &ctx), TC_ERR_NO_DEVICE);
  EXPECT_EQ(ctx, nullptr);
  std::string msg = tic_rt_last_error(nullptr);
  EXPECT_NE(msg.find("libcuda.so.1"), std::string::npos) << msg;
  o.arch = TC_ARCH_ANY;
  Context any(desc, &o);
  ASSERT_EQ(any.status(), TC_OK);
  EXPECT_EQ(tic_rt_options(any)->arch, TC_ARCH_CPU);
  EXPECT_EQ(tic_rt_on_device(any), 0);
}

// What host code of a --target=cuda object calls, on a CPU context: field
// copies are memcpy, sync has nothing to wait for.
TEST(Context, FieldCopiesOnCpu) {
  tic_rt_module_desc desc = makeDesc(64);
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK);
  EXPECT_EQ(tic_rt_on_device(ctx), 0);
  EXPECT_EQ(tic_rt_on_device(nullptr), 0);
  char *root = static_cast<char *>(tic_rt_root(ctx));
  const double v = 2.5;
  tic_rt_field_write(ctx, root + 8, &v, sizeof(v));
  double w = 0;
  std::memcpy(&w, root + 8, sizeof(w));
  EXPECT_EQ(w, 2.5);
  double r = 0;
  tic_rt_field_read(ctx, &r, root + 8, sizeof(r));
  EXPECT_EQ(r, 2.5);
  EXPECT_EQ(tic_rt_sync(ctx), TC_OK);
  EXPECT_EQ(tic_rt_sync(nullptr), TC_OK);
}

// TIC_ARCH chooses tc_options_init's arch.
TEST(Context, OptionsInitReadsTicArch) {
  const char *old = getenv("TIC_ARCH");
  std::string saved = old ? old : "";
  tc_options o;
  setenv("TIC_ARCH", "cuda", 1);
  tc_options_init(&o);
  EXPECT_EQ(o.arch, TC_ARCH_CUDA);
  setenv("TIC_ARCH", "any", 1);
  tc_options_init(&o);
  EXPECT_EQ(o.arch, TC_ARCH_ANY);
  setenv("TIC_ARCH", "bogus", 1);
  tc_options_init(&o);
  EXPECT_EQ(o.arch, TC_ARCH_CPU);
  unsetenv("TIC_ARCH");
  tc_options_init(&o);
  EXPECT_EQ(o.arch, TC_ARCH_CPU);
  if (old)
    setenv("TIC_ARCH", saved.c_str(), 1);
}

TEST(Context, InvalidArguments) {
  tic_rt_module_desc desc = makeDesc();
  tic_rt_context *ctx = nullptr;
  EXPECT_EQ(tic_rt_context_create(nullptr, &desc, nullptr),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tic_rt_context_create(nullptr, nullptr, &ctx),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);

  tc_options o;
  tc_options_init(&o);
  int bogusArch = 42; // what a C caller may store
  std::memcpy(&o.arch, &bogusArch, sizeof(bogusArch));
  EXPECT_EQ(tic_rt_context_create(&o, &desc, &ctx), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tic_rt_last_error(nullptr)).find("arch"),
            std::string::npos);

  tc_options_init(&o);
  o.num_threads = -3;
  EXPECT_EQ(tic_rt_context_create(&o, &desc, &ctx), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tic_rt_last_error(nullptr)).find("num_threads"),
            std::string::npos);

  tic_rt_module_desc bad = makeDesc(64, 48); // not a power of two
  EXPECT_EQ(tic_rt_context_create(nullptr, &bad, &ctx),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);
}

TEST(Context, AbiVersionChecked) {
  tic_rt_module_desc desc = makeDesc();
  tic_rt_context *ctx = nullptr;
  desc.abi_version = TIC_RT_ABI_VERSION + 1;
  EXPECT_EQ(tic_rt_context_create(nullptr, &desc, &ctx), TC_ERR_UNSUPPORTED);
  std::string msg = tic_rt_last_error(nullptr);
  EXPECT_NE(msg.find("testmod"), std::string::npos) << msg;
  desc.abi_version = 0;
  EXPECT_EQ(tic_rt_context_create(nullptr, &desc, &ctx), TC_ERR_UNSUPPORTED);
  EXPECT_EQ(ctx, nullptr);
}

TEST(Context, OutOfMemoryNamesTheLargestField) {
  // 2^62 bytes cannot be mapped in a 47-bit address space.
  const uint64_t bytes[] = {1000, uint64_t(1) << 62};
  tic_rt_module_desc desc = makeDesc(uint64_t(1) << 62);
  desc.field_bytes = bytes;
  tic_rt_context *ctx = nullptr;
  EXPECT_EQ(tic_rt_context_create(nullptr, &desc, &ctx), TC_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(ctx, nullptr);
  std::string msg = tic_rt_last_error(nullptr);
  EXPECT_NE(msg.find("module 'testmod'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the largest is '" + std::string(desc.field_names[1]) +
                     "' with 4611686018427387904 bytes"),
            std::string::npos)
      << msg;
  // Without sizes (or from an ABI 1 module, which has no such member) the
  // message still names the module.
  desc.field_bytes = nullptr;
  EXPECT_EQ(tic_rt_context_create(nullptr, &desc, &ctx), TC_ERR_OUT_OF_MEMORY);
  msg = tic_rt_last_error(nullptr);
  EXPECT_NE(msg.find("bytes"), std::string::npos) << msg;
}

TEST(Context, AbiVersion1ModulesStillLoad) {
  tic_rt_module_desc desc = makeDesc();
  desc.abi_version = 1;
  // An ABI 1 descriptor ends before field_bytes: the runtime never reads it.
  desc.field_bytes = reinterpret_cast<const uint64_t *>(uintptr_t(1));
  tic_rt_context *ctx = nullptr;
  ASSERT_EQ(tic_rt_context_create(nullptr, &desc, &ctx), TC_OK);
  tic_rt_context_destroy(ctx);
}

TEST(Context, RootIsZeroedAndAligned) {
  struct Case {
    uint64_t size, align, expectAlign;
  } cases[] = {
      {0, 0, 64},
      {1, 0, 64},
      {1000, 0, 64},
      {4096, 16, 64},
      {12345, 128, 128},
      {100000, 4096, 4096},
      {3u << 20, 0, 64}, // mmap path
      {5u << 20, 8192, 8192},
  };
  for (const Case &c : cases) {
    tic_rt_module_desc desc = makeDesc(c.size, c.align);
    Context ctx(desc);
    ASSERT_EQ(ctx.status(), TC_OK) << tic_rt_last_error(nullptr);
    void *root = tic_rt_root(ctx);
    ASSERT_NE(root, nullptr) << "size " << c.size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(root) % c.expectAlign, 0u)
        << "size " << c.size << " align " << c.align;
    EXPECT_EQ(tic_rt_root_size(ctx), c.size);
    EXPECT_TRUE(allZero(root, c.size)) << "size " << c.size;
    std::memset(root, 0x5A, c.size); // the whole buffer is writable
  }
}

TEST(Context, RootsAreIndependent) {
  tic_rt_module_desc desc = makeDesc(256);
  Context a(desc), b(desc);
  ASSERT_EQ(a.status(), TC_OK);
  ASSERT_EQ(b.status(), TC_OK);
  EXPECT_NE(tic_rt_root(a), tic_rt_root(b));
  std::memset(tic_rt_root(a), 1, 256);
  EXPECT_TRUE(allZero(tic_rt_root(b), 256));
}

TEST(Context, FailRecordsMessageAndReturnsStatus) {
  tic_rt_module_desc desc = makeDesc();
  Context ctx(desc);
  ASSERT_EQ(ctx.status(), TC_OK);
  EXPECT_EQ(tic_rt_fail(ctx, TC_ERR_OUT_OF_BOUNDS, "index %d of %s", 7, "u"),
            TC_ERR_OUT_OF_BOUNDS);
  EXPECT_STREQ(tic_rt_last_error(ctx), "index 7 of u");
  EXPECT_EQ(tic_rt_fail(ctx, TC_ERR_INTERNAL, "second"), TC_ERR_INTERNAL);
  EXPECT_STREQ(tic_rt_last_error(ctx), "second");
}

TEST(Context, FailTruncatesLongMessages) {
  tic_rt_module_desc desc = makeDesc();
  Context ctx(desc);
  std::string longText(5000, 'x');
  tic_rt_fail(ctx, TC_ERR_INTERNAL, "%s", longText.c_str());
  std::string msg = tic_rt_last_error(ctx);
  EXPECT_GT(msg.size(), 500u);
  EXPECT_LT(msg.size(), longText.size());
}

TEST(Context, FailWithoutContextIsPerThread) {
  tic_rt_fail(nullptr, TC_ERR_INTERNAL, "main thread %d", 1);
  std::string other;
  std::thread t([&] {
    other = tic_rt_last_error(nullptr);
    tic_rt_fail(nullptr, TC_ERR_INTERNAL, "worker");
  });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_STREQ(tic_rt_last_error(nullptr), "main thread 1");
}

} // namespace

//===- StatusTest.cpp - Status strings, options, dtypes, version ----------===//

#include "tic/runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

namespace {

TEST(Status, OkIsZero) { EXPECT_EQ(TC_OK, 0); }

TEST(Status, EveryCodeHasADistinctString) {
  std::set<std::string> seen;
  for (int s = TC_OK; s <= TC_ERR_INTERNAL; ++s) {
    const char *str = tc_status_string(static_cast<tc_status>(s));
    ASSERT_NE(str, nullptr);
    EXPECT_STRNE(str, "");
    EXPECT_STRNE(str, "unknown status") << "status " << s;
    EXPECT_TRUE(seen.insert(str).second) << "duplicate string " << str;
  }
  EXPECT_STREQ(tc_status_string(TC_OK), "ok");
  EXPECT_STREQ(tc_status_string(TC_ERR_NO_DEVICE), "no device");
  EXPECT_STREQ(tc_status_string(TC_ERR_OUT_OF_BOUNDS), "index out of bounds");
}

TEST(Status, UnknownValues) {
  EXPECT_STREQ(tc_status_string(static_cast<tc_status>(-1)), "unknown status");
  EXPECT_STREQ(tc_status_string(static_cast<tc_status>(1000)),
               "unknown status");
}

TEST(Options, Defaults) {
  tc_options o;
  std::memset(&o, 0xAB, sizeof(o));
  tc_options_init(&o);
  EXPECT_EQ(o.arch, TC_ARCH_CPU);
  EXPECT_EQ(o.num_threads, 0);
  EXPECT_EQ(o.seed, 0u);
  EXPECT_EQ(o.debug, 0);
  EXPECT_EQ(o.device_memory_bytes, 0u);
  tc_options_init(nullptr); // no crash
}

TEST(Dtype, Sizes) {
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_I8), 1u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_I16), 2u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_I32), 4u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_I64), 8u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_U8), 1u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_U16), 2u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_U32), 4u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_U64), 8u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_F16), 2u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_F32), 4u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_F64), 8u);
  EXPECT_EQ(tc_dtype_size(TC_DTYPE_BOOL), 1u);
  EXPECT_EQ(tc_dtype_size(static_cast<tc_dtype>(99)), 0u);
}

TEST(Dtype, Names) {
  EXPECT_STREQ(tc_dtype_name(TC_DTYPE_I32), "i32");
  EXPECT_STREQ(tc_dtype_name(TC_DTYPE_F16), "f16");
  EXPECT_STREQ(tc_dtype_name(TC_DTYPE_BOOL), "bool");
  EXPECT_STREQ(tc_dtype_name(static_cast<tc_dtype>(99)), "unknown");
}

TEST(Version, MatchesMacrosAndProject) {
  std::string expected = std::to_string(TIC_RUNTIME_VERSION_MAJOR) + "." +
                         std::to_string(TIC_RUNTIME_VERSION_MINOR) + "." +
                         std::to_string(TIC_RUNTIME_VERSION_PATCH);
  EXPECT_EQ(expected, tc_runtime_version());
  EXPECT_EQ(expected, TIC_PROJECT_VERSION);
}

} // namespace

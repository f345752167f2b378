//===- HeaderTest.cpp - The public headers as strict C++17 ----------------===//
//
// Compiled with -std=c++17 -Wall -Wextra -pedantic -Werror (see
// CMakeLists.txt): the headers must not warn in C++.
//
//===----------------------------------------------------------------------===//

#include "tic/rt.h"
#include "tic/runtime.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace {

static_assert(TC_OK == 0, "TC_OK must be 0");
static_assert(std::is_standard_layout<tc_ndarray>::value, "C layout");
static_assert(std::is_standard_layout<tc_options>::value, "C layout");
static_assert(std::is_standard_layout<tic_rt_module_desc>::value, "C layout");
static_assert(offsetof(tic_rt_module_desc, abi_version) == 0,
              "abi_version must stay first");
static_assert(sizeof(((tc_ndarray *)nullptr)->shape) / sizeof(int64_t) ==
                  TC_NDARRAY_MAX_DIMS,
              "tc_ndarray holds 8 extents");

TEST(Header, EnumValuesAreStable) {
  // These values are ABI: generated code and bindings hard-code them.
  EXPECT_EQ(TC_ERR_INVALID_ARGUMENT, 1);
  EXPECT_EQ(TC_ERR_OUT_OF_MEMORY, 2);
  EXPECT_EQ(TC_ERR_NO_DEVICE, 3);
  EXPECT_EQ(TC_ERR_DEVICE, 4);
  EXPECT_EQ(TC_ERR_OUT_OF_BOUNDS, 5);
  EXPECT_EQ(TC_ERR_ASSERTION, 6);
  EXPECT_EQ(TC_ERR_UNSUPPORTED, 7);
  EXPECT_EQ(TC_ERR_INTERNAL, 8);
  EXPECT_EQ(TC_ARCH_CPU, 0);
  EXPECT_EQ(TC_ARCH_CUDA, 1);
  EXPECT_EQ(TC_ARCH_ANY, 2);
  EXPECT_EQ(TC_DTYPE_I8, 0);
  EXPECT_EQ(TC_DTYPE_F32, 9);
  EXPECT_EQ(TC_DTYPE_BOOL, 11);
  EXPECT_EQ(TIC_RT_ABI_VERSION, 6u);
}

} // namespace

//===- NdarrayTest.cpp - ndarray checks and debug failure reports ---------===//

#include "TestUtil.h"

#include <cstring>
#include <string>

using tic::test::Context;
using tic::test::makeDesc;

namespace {

class Checks : public ::testing::Test {
protected:
  tic_rt_module_desc desc = makeDesc();
  Context ctx{desc};
  float data[12] = {};

  tc_ndarray array(int32_t ndim, tc_dtype dtype) {
    tc_ndarray a = {};
    a.data = data;
    a.ndim = ndim;
    a.shape[0] = 3;
    a.shape[1] = 4;
    a.dtype = dtype;
    return a;
  }
  std::string error() { return tic_rt_last_error(ctx); }
};

TEST_F(Checks, MatchingArrayPasses) {
  tc_ndarray a = array(2, TC_DTYPE_F32);
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 2, TC_DTYPE_F32, "img"), TC_OK);
  EXPECT_EQ(error(), "");
  tc_ndarray s = array(0, TC_DTYPE_F32); // rank 0: one element
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &s, 0, TC_DTYPE_F32, "s"), TC_OK);
}

TEST_F(Checks, NullArrayOrData) {
  EXPECT_EQ(tic_rt_check_ndarray(ctx, nullptr, 2, TC_DTYPE_F32, "img"),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error().find("'img'"), std::string::npos) << error();
  tc_ndarray a = array(2, TC_DTYPE_F32);
  a.data = nullptr;
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 2, TC_DTYPE_F32, "img"),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error().find("NULL"), std::string::npos) << error();
}

TEST_F(Checks, RankMismatch) {
  tc_ndarray a = array(3, TC_DTYPE_F32);
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 2, TC_DTYPE_F32, "img"),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error(), "ndarray parameter 'img': expected 2 dimensions, got 3");
}

TEST_F(Checks, DtypeMismatch) {
  tc_ndarray a = array(2, TC_DTYPE_I32);
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 2, TC_DTYPE_F32, "img"),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error(), "ndarray parameter 'img': expected dtype f32, got i32");
}

TEST_F(Checks, InvalidDtypeValue) {
  tc_ndarray a = array(2, TC_DTYPE_F32);
  int bogus = 99; // what a C caller may store
  std::memcpy(&a.dtype, &bogus, sizeof(bogus));
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 2, TC_DTYPE_F32, "img"),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error(), "ndarray parameter 'img': expected dtype f32, got "
                     "invalid dtype value 99");
}

TEST_F(Checks, BadRankOrExtent) {
  tc_ndarray a = array(9, TC_DTYPE_F32);
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 9, TC_DTYPE_F32, "a"),
            TC_ERR_INVALID_ARGUMENT);
  a = array(2, TC_DTYPE_F32);
  a.shape[1] = -1;
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 2, TC_DTYPE_F32, "a"),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error().find("negative"), std::string::npos) << error();
}

TEST_F(Checks, ExtentBeyondI32IsRejected) {
  // Kernels index ndarrays with i32: 2^32 + 4 must not be read as 4.
  tc_ndarray a = array(2, TC_DTYPE_F32);
  a.shape[1] = (int64_t(1) << 32) + 4;
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 2, TC_DTYPE_F32, "a"),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error().find("extent 4294967300 on axis 1 is more than "
                         "2147483647"),
            std::string::npos)
      << error();
  a.shape[1] = INT32_MAX; // the largest extent passes
  EXPECT_EQ(tic_rt_check_ndarray(ctx, &a, 2, TC_DTYPE_F32, "a"), TC_OK);
}

TEST_F(Checks, OutOfBoundsReport) {
  EXPECT_EQ(
      tic_rt_report_out_of_bounds(ctx, "u", 1, 300, 256, "laplace.tc:12:7"),
      TC_ERR_OUT_OF_BOUNDS);
  EXPECT_EQ(error(), "laplace.tc:12:7: index 300 is out of bounds for axis 1 "
                     "of field 'u' with extent 256");
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_ERR_OUT_OF_BOUNDS);
  EXPECT_EQ(tic_rt_report_out_of_bounds(ctx, "v", 0, -1, 8, nullptr),
            TC_ERR_OUT_OF_BOUNDS);
  EXPECT_EQ(error(),
            "index -1 is out of bounds for axis 0 of field 'v' with extent 8");
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_ERR_OUT_OF_BOUNDS);
}

TEST_F(Checks, AssertReport) {
  EXPECT_EQ(tic_rt_report_assert(ctx, "x must be positive", "a.tc:3:3"),
            TC_ERR_ASSERTION);
  EXPECT_EQ(error(), "a.tc:3:3: assertion failed: x must be positive");
  // A second failure before the status is taken keeps the first message.
  tic_rt_report_assert(ctx, "other", "a.tc:4:4");
  EXPECT_EQ(error(), "a.tc:3:3: assertion failed: x must be positive");
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_ERR_ASSERTION);
  EXPECT_EQ(tic_rt_take_kernel_status(ctx), TC_OK);
}

TEST_F(Checks, NullContextReportsPerThread) {
  EXPECT_EQ(tic_rt_report_assert(nullptr, "m", nullptr), TC_ERR_ASSERTION);
  EXPECT_STREQ(tic_rt_last_error(nullptr), "assertion failed: m");
  EXPECT_EQ(tic_rt_take_kernel_status(nullptr), TC_OK);
}

} // namespace

//===- TypesTest.cpp - Promotion and conversion rules ---------------------===//
//
// Expected results are Taichi v1.6's `promoted_type` rules as documented in
// docs/semantics.md.
//
//===----------------------------------------------------------------------===//

#include "tic/Frontend/Types.h"

#include <gtest/gtest.h>

using namespace tic;

namespace {

class TypesTest : public ::testing::Test {
protected:
  TypeContext ctx;
  const ScalarType *i8 = ctx.getInt(8, true), *i32 = ctx.getInt(32, true),
                   *i64 = ctx.getInt(64, true), *u8 = ctx.getInt(8, false),
                   *u32 = ctx.getInt(32, false), *f16 = ctx.getFloat(16),
                   *f32 = ctx.getFloat(32), *f64 = ctx.getFloat(64),
                   *b = ctx.getBool();
};

TEST_F(TypesTest, Interning) {
  EXPECT_EQ(ctx.getInt(32, true), i32);
  EXPECT_NE(ctx.getInt(32, false), i32);
  EXPECT_EQ(ctx.getVector(f32, 3), ctx.getVector(f32, 3));
  EXPECT_NE(ctx.getVector(f32, 3), ctx.getVector(f32, 2));
  EXPECT_EQ(ctx.getMatrix(f64, 2, 3), ctx.getMatrix(f64, 2, 3));
  EXPECT_EQ(ctx.getScalarByName("u8"), u8);
  EXPECT_EQ(ctx.getScalarByName("vec3"), nullptr);
  // Structs are nominal.
  EXPECT_NE(ctx.createStruct("S", {}), ctx.createStruct("S", {}));
}

TEST_F(TypesTest, Spelling) {
  EXPECT_EQ(i32->str(), "i32");
  EXPECT_EQ(u8->str(), "u8");
  EXPECT_EQ(ctx.getVector(f32, 3)->str(), "vec<f32, 3>");
  EXPECT_EQ(ctx.getMatrix(f64, 2, 3)->str(), "mat<f64, 2, 3>");
  EXPECT_EQ(ctx.getNDArray(f32, 2)->str(), "ndarray<f32, 2>");
}

TEST_F(TypesTest, ScalarPromotion) {
  EXPECT_EQ(promoteScalars(ctx, i32, i64), i64);   // wider int
  EXPECT_EQ(promoteScalars(ctx, i64, i32), i64);
  EXPECT_EQ(promoteScalars(ctx, f32, f64), f64);   // wider float
  EXPECT_EQ(promoteScalars(ctx, i32, f32), f32);   // int op float -> float
  EXPECT_EQ(promoteScalars(ctx, i64, f32), f32);   // even when the int is wider
  EXPECT_EQ(promoteScalars(ctx, f16, i32), f16);
  EXPECT_EQ(promoteScalars(ctx, i32, u32), u32);   // same width: unsigned wins
  EXPECT_EQ(promoteScalars(ctx, u8, i32), i32);
  EXPECT_EQ(promoteScalars(ctx, i8, u8), u8);
  EXPECT_EQ(promoteScalars(ctx, b, i8), i8);       // bool is a 1-bit unsigned
  EXPECT_EQ(promoteScalars(ctx, b, b), b);
  EXPECT_EQ(promoteScalars(ctx, b, f32), f32);
}

TEST_F(TypesTest, TensorPromotionAndBroadcast) {
  auto *v3f = ctx.getVector(f32, 3), *v3i = ctx.getVector(i32, 3);
  auto *v2f = ctx.getVector(f32, 2);
  EXPECT_EQ(promote(ctx, v3i, f32), v3f);       // scalar broadcast
  EXPECT_EQ(promote(ctx, f64, v3f), ctx.getVector(f64, 3));
  EXPECT_EQ(promote(ctx, v3i, v3f), v3f);
  EXPECT_EQ(promote(ctx, v3f, v2f), nullptr);   // shapes differ
  auto *m23 = ctx.getMatrix(i32, 2, 3);
  EXPECT_EQ(promote(ctx, m23, f32), ctx.getMatrix(f32, 2, 3));
  EXPECT_EQ(promote(ctx, m23, ctx.getMatrix(i32, 3, 2)), nullptr);
  EXPECT_EQ(promote(ctx, m23, v3f), nullptr);   // vector vs matrix
}

TEST_F(TypesTest, Narrowing) {
  EXPECT_TRUE(isNarrowing(f32, i32));   // float -> int
  EXPECT_TRUE(isNarrowing(f64, f32));
  EXPECT_TRUE(isNarrowing(i64, i32));
  EXPECT_TRUE(isNarrowing(i32, u32));   // sign change
  EXPECT_TRUE(isNarrowing(i32, f32));   // 31 value bits > 24-bit mantissa
  EXPECT_FALSE(isNarrowing(i32, f64));
  EXPECT_FALSE(isNarrowing(ctx.getInt(16, true), f32));
  EXPECT_FALSE(isNarrowing(i8, i32));
  EXPECT_FALSE(isNarrowing(u8, i32));
  EXPECT_FALSE(isNarrowing(f32, f64));
}

} // namespace

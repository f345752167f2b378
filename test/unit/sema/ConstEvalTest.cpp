//===- ConstEvalTest.cpp - Constant folding and -D parsing ----------------===//
//
// Expected values follow the language's run-time rules (spec section 2 and
// docs/semantics.md): `//` floors, `%` takes the divisor's sign, `/` on
// integers is a float division, integer results wrap to their width.
//
//===----------------------------------------------------------------------===//

#include "tic/Frontend/ConstEval.h"
#include "tic/Frontend/Parser.h"
#include "tic/Frontend/Sema.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace tic;
using namespace tic::sema;

namespace {

class ConstEvalTest : public ::testing::Test {
protected:
  TypeContext ctx;
  const ScalarType *i32 = ctx.getInt(32, true), *u8 = ctx.getInt(8, false),
                   *i8 = ctx.getInt(8, true), *f32 = ctx.getFloat(32),
                   *f64 = ctx.getFloat(64);

  ConstValue fold(ast::BinaryOp op, ConstValue a, ConstValue b, const Type *rt) {
    std::string err;
    auto r = foldBinary(op, a, b, rt, ctx, err);
    EXPECT_TRUE(r.has_value()) << err;
    return r ? *r : ConstValue();
  }
  ConstValue I(int64_t v) { return ConstValue::makeInt(v, i32); }
};

TEST_F(ConstEvalTest, IntegerDivisionAndModulo) {
  EXPECT_EQ(fold(ast::BinaryOp::FloorDiv, I(7), I(2), i32).i, 3);
  EXPECT_EQ(fold(ast::BinaryOp::FloorDiv, I(-7), I(2), i32).i, -4);
  EXPECT_EQ(fold(ast::BinaryOp::FloorDiv, I(7), I(-2), i32).i, -4);
  EXPECT_EQ(fold(ast::BinaryOp::Mod, I(-7), I(3), i32).i, 2);
  EXPECT_EQ(fold(ast::BinaryOp::Mod, I(7), I(-3), i32).i, -2);
  std::string err;
  EXPECT_FALSE(foldBinary(ast::BinaryOp::FloorDiv, I(1), I(0), i32, ctx, err));
  EXPECT_FALSE(err.empty());
}

TEST_F(ConstEvalTest, WrapAround) {
  EXPECT_EQ(fold(ast::BinaryOp::Add, I(INT32_MAX), I(1), i32).i, INT32_MIN);
  EXPECT_EQ(wrapInt(256, u8), 0);
  EXPECT_EQ(wrapInt(255, i8), -1);
  EXPECT_EQ(fold(ast::BinaryOp::Shl, I(1), I(10), i32).i, 1024);
  EXPECT_EQ(fold(ast::BinaryOp::Pow, I(3), I(4), i32).i, 81);
  std::string err;
  EXPECT_FALSE(foldBinary(ast::BinaryOp::Pow, I(2), I(-1), i32, ctx, err));
}

TEST_F(ConstEvalTest, FloatRounding) {
  // f32 results are rounded to single precision.
  ConstValue third = fold(ast::BinaryOp::Div, ConstValue::makeFloat(1, f32),
                          ConstValue::makeFloat(3, f32), f32);
  EXPECT_EQ(third.f, double(1.0f / 3.0f));
  ConstValue third64 = fold(ast::BinaryOp::Div, ConstValue::makeFloat(1, f64),
                            ConstValue::makeFloat(3, f64), f64);
  EXPECT_EQ(third64.f, 1.0 / 3.0);
  EXPECT_EQ(fold(ast::BinaryOp::FloorDiv, ConstValue::makeFloat(-7, f32),
                 ConstValue::makeFloat(2, f32), f32).f, -4.0);
}

TEST_F(ConstEvalTest, Conversions) {
  EXPECT_EQ(convertConst(ConstValue::makeFloat(-2.7, f32), i32, ctx).i, -2); // truncates
  EXPECT_EQ(convertConst(I(300), u8, ctx).i, 44);
  EXPECT_TRUE(convertConst(I(2), ctx.getBool(), ctx).b);
  auto v = convertConst(I(2), ctx.getVector(f32, 3), ctx); // broadcast
  ASSERT_EQ(v.elems.size(), 3u);
  EXPECT_EQ(v.elems[2].f, 2.0);
}

TEST_F(ConstEvalTest, Compare) {
  EXPECT_TRUE(foldCompare(ast::CmpOp::Lt, I(-1), I(0)));
  auto u64 = ctx.getInt(64, false);
  // As u64, -1 is the largest value.
  EXPECT_FALSE(foldCompare(ast::CmpOp::Lt, ConstValue::makeInt(-1, u64),
                           ConstValue::makeInt(0, u64)));
}

TEST_F(ConstEvalTest, DefineValues) {
  auto v = parseDefineValue("512", ctx, f32);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, 512);
  EXPECT_EQ(v->type, i32);
  v = parseDefineValue("0x10", ctx, f32);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, 16);
  v = parseDefineValue("-3", ctx, f32);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, -3);
  v = parseDefineValue("1e-3", ctx, f64);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->f, 1e-3);
  EXPECT_EQ(v->type, f64);
  v = parseDefineValue("true", ctx, f32);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->b);
  EXPECT_FALSE(parseDefineValue("abc", ctx, f32));
  EXPECT_FALSE(parseDefineValue("", ctx, f32));
  EXPECT_FALSE(parseDefineValue("1.2.3", ctx, f32));
}

/// End to end: constants of a program, with and without -D.
std::unique_ptr<CheckedModule> analyzeText(const std::string &text,
                                           SemaOptions opts, std::string &diag) {
  SourceFile file("t.tc", text);
  std::ostringstream os;
  DiagnosticEngine diags(file, os);
  auto prog = parseProgram(file, diags);
  if (!prog)
    return nullptr;
  auto m = analyze(*prog, diags, opts);
  diag = os.str();
  return m;
}

TEST(SemaConstants, FoldingAndOverrides) {
  std::string src = "const n = 256;\nconst dx = 1.0 / n;\nconst h = n // 3;\n"
                    "const s = n * n;\n";
  std::string diag;
  auto m = analyzeText(src, {}, diag);
  ASSERT_TRUE(m) << diag;
  EXPECT_EQ(m->findConstant("n")->value.i, 256);
  EXPECT_EQ(m->findConstant("dx")->value.f, 1.0 / 256);
  EXPECT_EQ(m->findConstant("h")->value.i, 85);
  EXPECT_EQ(m->findConstant("s")->value.i, 65536);
  EXPECT_EQ(m->findConstant("dx")->type->str(), "f32");

  SemaOptions o;
  o.defines = {{"n", "512"}};
  m = analyzeText(src, o, diag);
  ASSERT_TRUE(m) << diag;
  EXPECT_TRUE(m->findConstant("n")->overridden);
  EXPECT_EQ(m->findConstant("dx")->value.f, 1.0 / 512); // later constants see -D

  o.defines = {{"m", "1"}};
  EXPECT_FALSE(analyzeText(src, o, diag));
  EXPECT_NE(diag.find("no constant named 'm'"), std::string::npos);
}

} // namespace

//===- CUDATargetInfo.cpp - CUDA's runtime services -----------------------===//
//
// On the device: random() is a PCG32 stream per GPU thread, seeded as the
// CPU seeds its worker threads (runtime/src/Random.cpp) from the launch's
// seed and the global thread index; print is gpu.printf (vprintf); assert and
// bounds checks are cf.assert (__assertfail: the launch fails); the root
// buffer is a kernel parameter.
//
//===----------------------------------------------------------------------===//
#include "tic/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tic;

namespace {

Value constI64(OpBuilder &b, Location loc, uint64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), int64_t(v));
}

/// SplitMix64 (as runtime/src/Random.cpp).
Value splitMix64(OpBuilder &b, Location loc, Value x) {
  auto xorShift = [&](Value v, uint64_t k) {
    return arith::XOrIOp::create(
        b, loc, v, arith::ShRUIOp::create(b, loc, v, constI64(b, loc, k)));
  };
  x = arith::AddIOp::create(b, loc, x, constI64(b, loc, 0x9E3779B97F4A7C15ULL));
  x = arith::MulIOp::create(b, loc, xorShift(x, 30),
                            constI64(b, loc, 0xBF58476D1CE4E5B9ULL));
  x = arith::MulIOp::create(b, loc, xorShift(x, 27),
                            constI64(b, loc, 0x94D049BB133111EBULL));
  return xorShift(x, 31);
}

/// One PCG32 (XSH-RR) step on the state in `state` (memref<i64>).
Value pcgNext(OpBuilder &b, Location loc, Value state, Value inc) {
  Type i32 = b.getI32Type();
  Value old = memref::LoadOp::create(b, loc, state);
  Value mult = constI64(b, loc, 6364136223846793005ULL);
  memref::StoreOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, old, mult),
                            inc),
      state);
  Value x = arith::XOrIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, old, constI64(b, loc, 18)), old);
  Value xs = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, x, constI64(b, loc, 27)));
  Value rot = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, old, constI64(b, loc, 59)));
  Value c32 = arith::ConstantIntOp::create(b, loc, i32, 32);
  Value c31 = arith::ConstantIntOp::create(b, loc, i32, 31);
  Value left = arith::AndIOp::create(
      b, loc, arith::SubIOp::create(b, loc, c32, rot), c31);
  return arith::OrIOp::create(b, loc, arith::ShRUIOp::create(b, loc, xs, rot),
                              arith::ShLIOp::create(b, loc, xs, left));
}

} // namespace

/// The generator of global thread `t`: pcg32_srandom_r with SplitMix64 of
/// the seed and the thread, as the CPU seeds thread t. Returns (state slot,
/// increment).

std::pair<Value, Value> tic::seedCUDARandom(OpBuilder &b, Location loc,
                                            Value seed, Value t) {
  Value initState =
      splitMix64(b, loc,
                 arith::XOrIOp::create(
                     b, loc, seed,
                     arith::MulIOp::create(
                         b, loc, t, constI64(b, loc, 0xD1B54A32D192ED03ULL))));
  Value inc = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, t, constI64(b, loc, 1)),
      constI64(b, loc, 1));
  Value state =
      memref::AllocaOp::create(b, loc, MemRefType::get({}, b.getI64Type()));
  memref::StoreOp::create(b, loc, constI64(b, loc, 0), state);
  (void)pcgNext(b, loc, state, inc);
  Value s = memref::LoadOp::create(b, loc, state);
  memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, s, initState),
                          state);
  (void)pcgNext(b, loc, state, inc);
  return {state, inc};
}

namespace {

class CUDATargetInfo final : public TargetInfo {
public:
  StringRef getName() const override { return "cuda"; }

  FailureOr<Value> allocateCell(OpBuilder &, Location loc, int32_t,
                                const FunctionEnv &) const override {
    return emitError(loc, "'snode.alloc_cell' op is not supported with "
                          "--target=cuda yet (the cells of pointer and dynamic "
                          "SNodes need a device memory pool)");
  }
  FailureOr<std::pair<Value, Value>>
  poolView(OpBuilder &, Location loc, int32_t,
           const FunctionEnv &) const override {
    return emitError(loc, "'snode.pool_view' op is not supported with "
                          "--target=cuda yet (the entries of hash SNodes "
                          "need a device memory pool)");
  }
  LogicalResult freeCell(OpBuilder &, Location loc, int32_t, Value, bool,
                         const FunctionEnv &) const override {
    return emitError(loc, "'snode.free_cell' op is not supported with "
                          "--target=cuda yet (the cells of pointer and dynamic "
                          "SNodes need a device memory pool)");
  }

  Value getRootBuffer(OpBuilder &, Location,
                      const FunctionEnv &env) const override {
    return env.rootBuffer;
  }

  Value random(OpBuilder &b, Location loc, Type t,
               const FunctionEnv &env) const override {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto next = [&] { return pcgNext(b, loc, env.rngState, env.rngInc); };
    if (t.isF32()) {
      // The top 24 bits fill the mantissa exactly: k / 2^24 < 1.
      Value k = arith::ShRUIOp::create(
          b, loc, next(), arith::ConstantIntOp::create(b, loc, i32, 8));
      return arith::MulFOp::create(
          b, loc, arith::UIToFPOp::create(b, loc, t, k),
          arith::ConstantOp::create(b, loc,
                                    b.getF32FloatAttr(1.0f / 16777216.0f)));
    }
    if (t.isF64()) {
      Value hi = arith::ShRUIOp::create(
          b, loc, arith::ExtUIOp::create(b, loc, i64, next()),
          constI64(b, loc, 5));
      Value lo = arith::ShRUIOp::create(
          b, loc, arith::ExtUIOp::create(b, loc, i64, next()),
          constI64(b, loc, 6));
      Value k = arith::OrIOp::create(
          b, loc, arith::ShLIOp::create(b, loc, hi, constI64(b, loc, 26)), lo);
      return arith::MulFOp::create(
          b, loc, arith::UIToFPOp::create(b, loc, t, k),
          arith::ConstantOp::create(
              b, loc, b.getF64FloatAttr(1.0 / 9007199254740992.0)));
    }
    return next();
  }

  void print(OpBuilder &b, Location loc, StringRef format, ValueRange args,
             const FunctionEnv &) const override {
    // The CPU's tic_rt_print ends every line.
    std::string f = format.str();
    if (f.empty() || f.back() != '\n')
      f += '\n';
    gpu::PrintfOp::create(b, loc, b.getStringAttr(f), args);
  }

  void assertTrue(OpBuilder &b, Location loc, Value cond, StringRef message,
                  const FunctionEnv &) const override {
    cf::AssertOp::create(b, loc, cond, message);
  }

  void checkIndex(OpBuilder &b, Location loc, Value index, Value extent,
                  StringRef field, unsigned axis,
                  const FunctionEnv &) const override {
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, extent);
    cf::AssertOp::create(
        b, loc, ok,
        ("index out of range for field '" + field + "' on axis " + Twine(axis))
            .str());
  }
};

} // namespace

std::unique_ptr<TargetInfo> tic::createCUDATargetInfo() {
  return std::make_unique<CUDATargetInfo>();
}

//===- CUDATargetInfo.cpp - CUDA's runtime services -----------------------===//
//
// On the device: random() is a PCG32 stream per GPU thread, seeded as the
// CPU seeds its worker threads (runtime/src/Random.cpp) from the launch's
// seed and the global thread index; print is gpu.printf (vprintf); a failing
// assert or bounds check claims the module's failure record (__tic_failure,
// tic_rt_cuda_failure in rt.h), which the runtime reads after the launch and
// reports as the CPU would; the root buffer is a kernel parameter.
//
//===----------------------------------------------------------------------===//
#include "tic/Target/TargetInfo.h"
#include "tic/rt.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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
  x = xorShift(x, 30);
  x = arith::MulIOp::create(b, loc, x, constI64(b, loc, 0xBF58476D1CE4E5B9ULL));
  x = xorShift(x, 27);
  x = arith::MulIOp::create(b, loc, x, constI64(b, loc, 0x94D049BB133111EBULL));
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
  Value right = arith::ShRUIOp::create(b, loc, xs, rot);
  return arith::OrIOp::create(b, loc, right,
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
  Value inc = arith::ShLIOp::create(b, loc, t, constI64(b, loc, 1));
  inc = arith::OrIOp::create(b, loc, inc, constI64(b, loc, 1));
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

  Value allocateBeyondCapacity(OpBuilder &b, Location loc, int32_t,
                               StringRef node, Value index, Value capacity,
                               const FunctionEnv &) const override {
    // The device cannot map more memory itself: the pool is used up for
    // this launch. The record's index is the cell asked for, its extent
    // the capacity.
    claimFailure(b, loc, TC_ERR_OUT_OF_MEMORY, node, 0, index, capacity);
    return LLVM::ZeroOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()));
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
      Value k = next();
      k = arith::ShRUIOp::create(b, loc, k,
                                 arith::ConstantIntOp::create(b, loc, i32, 8));
      Value kf = arith::UIToFPOp::create(b, loc, t, k);
      return arith::MulFOp::create(
          b, loc, kf,
          arith::ConstantOp::create(b, loc,
                                    b.getF32FloatAttr(1.0f / 16777216.0f)));
    }
    if (t.isF64()) {
      Value hi = arith::ExtUIOp::create(b, loc, i64, next());
      hi = arith::ShRUIOp::create(b, loc, hi, constI64(b, loc, 5));
      Value lo = arith::ExtUIOp::create(b, loc, i64, next());
      lo = arith::ShRUIOp::create(b, loc, lo, constI64(b, loc, 6));
      Value k = arith::OrIOp::create(
          b, loc, arith::ShLIOp::create(b, loc, hi, constI64(b, loc, 26)), lo);
      Value kf = arith::UIToFPOp::create(b, loc, t, k);
      return arith::MulFOp::create(
          b, loc, kf,
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
    Value t = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    auto ifOp = scf::IfOp::create(
        b, loc, arith::XOrIOp::create(b, loc, cond, t), /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value zero = arith::ConstantIntOp::create(tb, loc, tb.getI64Type(), 0);
    claimFailure(tb, loc, TC_ERR_ASSERTION, message, 0, zero, zero);
  }

  void checkIndex(OpBuilder &b, Location loc, Value index, Value extent,
                  StringRef field, unsigned axis,
                  const FunctionEnv &) const override {
    Value bad =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, index, extent);
    auto ifOp = scf::IfOp::create(b, loc, bad, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Type i64 = tb.getI64Type();
    Value index64 = arith::ExtSIOp::create(tb, loc, i64, index);
    Value extent64 = arith::ExtSIOp::create(tb, loc, i64, extent);
    claimFailure(tb, loc, TC_ERR_OUT_OF_BOUNDS, field, axis, index64, extent64);
  }

  Value accessRuleState(OpBuilder &b, Location loc, StringRef field,
                        int64_t count, const FunctionEnv &) const override {
    // Globals of the module, which the runtime finds by name: the flag
    // (set while a tape records) and each field's words (cleared at
    // tape_begin), __tic_ad_state_<k> in the order fields come up.
    auto gm = b.getInsertionBlock()
                  ->getParentOp()
                  ->getParentOfType<gpu::GPUModuleOp>();
    Type i32 = b.getI32Type();
    Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
    zeroedGlobal(gm, loc, kRecording, i32, 4);
    std::string &name = adStates[field];
    if (name.empty())
      name = "__tic_ad_state_" + std::to_string(adStates.size() - 1);
    zeroedGlobal(gm, loc, name,
                 LLVM::LLVMArrayType::get(i32, uint64_t(count + 3) / 4), 4);
    Value flag = LLVM::LoadOp::create(
        b, loc, i32, LLVM::AddressOfOp::create(b, loc, ptrTy, kRecording), 4);
    Value on =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, flag,
                              arith::ConstantIntOp::create(b, loc, i32, 0));
    // (One op per statement: the IR's order does not depend on the C++
    // compiler's order of evaluating arguments.)
    Value words = LLVM::AddressOfOp::create(b, loc, ptrTy, name);
    Value null = LLVM::ZeroOp::create(b, loc, ptrTy);
    return LLVM::SelectOp::create(b, loc, on, words, null);
  }

  void reportAccessRule(OpBuilder &b, Location loc, StringRef kernel,
                        StringRef field, Value index, Value what,
                        const FunctionEnv &) const override {
    // The runtime formats the CPU's message from "kernel\0field", the
    // element and what.
    std::string names = (kernel + Twine('\0') + field).str();
    claimFailure(b, loc, TC_ERR_ASSERTION, names,
                 static_cast<unsigned>(TIC_RT_CUDA_ACCESS_RULE), index,
                 arith::ExtUIOp::create(b, loc, b.getI64Type(), what));
  }

private:
  static constexpr llvm::StringLiteral kRecording = "__tic_ad_recording";

  /// A zero-initialized global `name` of `type` in `gm`, visible to the
  /// runtime (cuModuleGetGlobal), unless it exists.
  static void zeroedGlobal(gpu::GPUModuleOp gm, Location loc, StringRef name,
                           Type type, int64_t align) {
    if (gm.lookupSymbol(name))
      return;
    OpBuilder mb = OpBuilder::atBlockBegin(gm.getBody());
    auto g = LLVM::GlobalOp::create(mb, loc, type, /*isConstant=*/false,
                                    LLVM::Linkage::External, name, Attribute(),
                                    align);
    Block *init = new Block();
    g.getInitializerRegion().push_back(init);
    OpBuilder ib = OpBuilder::atBlockEnd(init);
    LLVM::ReturnOp::create(ib, loc,
                           LLVM::ZeroOp::create(ib, loc, type).getResult());
  }

  /// The first failure of a launch claims the module's record: status
  /// 0 -> `status` (one compare-and-swap), then the rest of
  /// tic_rt_cuda_failure: axis, index, extent, the text (the assertion's
  /// message or the field's name) and "file:line:col", as device addresses
  /// and lengths.
  void claimFailure(OpBuilder &b, Location loc, int32_t status, StringRef text,
                    unsigned axis, Value index, Value extent) const {
    MLIRContext *ctx = b.getContext();
    auto gm = b.getInsertionBlock()
                  ->getParentOp()
                  ->getParentOfType<gpu::GPUModuleOp>();
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Type ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto recTy = LLVM::LLVMStructType::getLiteral(
        ctx, {i32, i32, i64, i64, i64, i64, i32, i32});
    constexpr llvm::StringLiteral kRecord = "__tic_failure";
    zeroedGlobal(gm, loc, kRecord, recTy, 8);
    std::string where;
    if (auto fl = dyn_cast<FileLineColLoc>(loc))
      where = (fl.getFilename().getValue() + ":" + Twine(fl.getLine()) + ":" +
               Twine(fl.getColumn()))
                  .str();
    Value rec = LLVM::AddressOfOp::create(b, loc, ptrTy, kRecord);
    auto field = [&](int32_t i) {
      return LLVM::GEPOp::create(b, loc, ptrTy, recTy, rec,
                                 ArrayRef<LLVM::GEPArg>{0, i});
    };
    auto c32 = [&](int64_t v) {
      return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
    };
    Value statusPtr = field(0);
    Value expected = c32(0), desired = c32(status);
    auto pair = LLVM::AtomicCmpXchgOp::create(
        b, loc, statusPtr, expected, desired, LLVM::AtomicOrdering::monotonic,
        LLVM::AtomicOrdering::monotonic);
    Value old = LLVM::ExtractValueOp::create(b, loc, pair, 0);
    Value won =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old, c32(0));
    auto ifOp = scf::IfOp::create(b, loc, won, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    auto str = [&](StringRef s) -> Value {
      if (s.empty())
        return arith::ConstantIntOp::create(tb, loc, i64, 0);
      std::string &name = strings[s];
      if (name.empty()) {
        name = "__tic_failure_text_" + std::to_string(strings.size() - 1);
        OpBuilder mb = OpBuilder::atBlockBegin(gm.getBody());
        auto ty = LLVM::LLVMArrayType::get(mb.getI8Type(), s.size());
        LLVM::GlobalOp::create(mb, loc, ty, /*isConstant=*/true,
                               LLVM::Linkage::Internal, name,
                               mb.getStringAttr(s), /*alignment=*/1);
      }
      Value p = LLVM::AddressOfOp::create(tb, loc, ptrTy, name);
      return LLVM::PtrToIntOp::create(tb, loc, i64, p);
    };
    auto store = [&](Value v, int32_t i) {
      LLVM::StoreOp::create(tb, loc, v,
                            LLVM::GEPOp::create(tb, loc, ptrTy, recTy, rec,
                                                ArrayRef<LLVM::GEPArg>{0, i}));
    };
    auto t32 = [&](int64_t v) {
      return LLVM::ConstantOp::create(tb, loc, i32, tb.getI32IntegerAttr(v));
    };
    store(t32(axis), 1);
    store(index, 2);
    store(extent, 3);
    store(str(text), 4);
    store(str(where), 5);
    store(t32(text.size()), 6);
    store(t32(where.size()), 7);
  }

  // The failure texts already in the gpu.module, by text.
  mutable llvm::StringMap<std::string> strings;
  /// The access-rule state global of each field, by field name.
  mutable llvm::StringMap<std::string> adStates;
};

} // namespace

std::unique_ptr<TargetInfo> tic::createCUDATargetInfo() {
  return std::make_unique<CUDATargetInfo>();
}

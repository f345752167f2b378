//===- CPUTargetInfo.cpp - the CPU's runtime services ---------------------===//
//
// Every service is a call into libtic_runtime (runtime/include/tic/rt.h):
// the context and the worker's thread index come from the function
// (FunctionEnv), failures are reported as statuses, never aborts.
//
//===----------------------------------------------------------------------===//
#include "tic/Conversion/LLVMUtils.h"
#include "tic/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tic;

namespace {

class CPUTargetInfo final : public TargetInfo {
public:
  explicit CPUTargetInfo(ModuleOp module)
      : ctx(module.getContext()), ptrTy(LLVM::LLVMPointerType::get(ctx)),
        strings(module, "__tic_str_"), runtimeFuncs(module) {}

  StringRef getName() const override { return "cpu"; }

  Value getRootBuffer(OpBuilder &b, Location loc,
                      const FunctionEnv &env) const override {
    auto f = runtimeFuncs.get("tic_rt_root", ptrTy, {ptrTy});
    return LLVM::CallOp::create(b, loc, f, ValueRange{env.context}).getResult();
  }

  Value random(OpBuilder &b, Location loc, Type t,
               const FunctionEnv &env) const override {
    StringRef name = t.isF32()   ? "tic_rt_rand_f32"
                     : t.isF64() ? "tic_rt_rand_f64"
                                 : "tic_rt_rand_u32";
    auto f = runtimeFuncs.get(name, t, {ptrTy, b.getI32Type()});
    return LLVM::CallOp::create(b, loc, f,
                                ValueRange{env.context, env.threadId})
        .getResult();
  }

  Value numThreads(OpBuilder &b, Location loc,
                   const FunctionEnv &env) const override {
    auto f = runtimeFuncs.get("tic_rt_num_threads", b.getI32Type(), {ptrTy});
    return LLVM::CallOp::create(b, loc, f, ValueRange{env.context}).getResult();
  }

  Value onDevice(OpBuilder &b, Location loc,
                 const FunctionEnv &env) const override {
    // (The host code of a CPU-only object too: its contexts are never on
    // a GPU, and the runtime says so.)
    Type i32 = b.getI32Type();
    auto f = runtimeFuncs.get("tic_rt_on_device", i32, {ptrTy});
    Value on =
        LLVM::CallOp::create(b, loc, f, ValueRange{env.context}).getResult();
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, on, zero);
  }

  Value scratch(OpBuilder &b, Location loc, int32_t slot, Value bytes,
                const FunctionEnv &env) const override {
    auto f = runtimeFuncs.get("tic_rt_scratch", ptrTy,
                              {ptrTy, b.getI32Type(), b.getI64Type()});
    Value s = arith::ConstantIntOp::create(b, loc, b.getI32Type(), slot);
    return LLVM::CallOp::create(b, loc, f, ValueRange{env.context, s, bytes})
        .getResult();
  }

  Value hashBlock(OpBuilder &b, Location loc, int32_t pool, Value owner,
                  Value bytes, const FunctionEnv &env) const override {
    auto f = runtimeFuncs.get("tic_rt_hash_block", ptrTy,
                              {ptrTy, b.getI32Type(), ptrTy, b.getI64Type()});
    Value p = arith::ConstantIntOp::create(b, loc, b.getI32Type(), pool);
    return LLVM::CallOp::create(b, loc, f,
                                ValueRange{env.context, p, owner, bytes})
        .getResult();
  }

  Value poolBound(OpBuilder &b, Location loc, int32_t pool,
                  const FunctionEnv &env) const override {
    Type i32 = b.getI32Type();
    auto f = runtimeFuncs.get("tic_rt_snode_pool_bound", i32, {ptrTy, i32});
    Value p = arith::ConstantIntOp::create(b, loc, i32, pool);
    return LLVM::CallOp::create(b, loc, f, ValueRange{env.context, p})
        .getResult();
  }

  void print(OpBuilder &b, Location loc, StringRef format, ValueRange args,
             const FunctionEnv &env) const override {
    SmallVector<Value> all{env.context, strings.get(b, loc, format)};
    all.append(args.begin(), args.end());
    auto f = runtimeFuncs.get("tic_rt_print", LLVM::LLVMVoidType::get(ctx),
                              {ptrTy, ptrTy}, /*vararg=*/true);
    LLVM::CallOp::create(b, loc, f, all);
  }

  void assertTrue(OpBuilder &b, Location loc, Value cond, StringRef message,
                  const FunctionEnv &env) const override {
    Value t = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value notCond = arith::XOrIOp::create(b, loc, cond, t);
    auto ifOp = scf::IfOp::create(b, loc, notCond, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value msg = strings.get(tb, loc, message);
    Value where = sourceLocation(tb, loc);
    auto f = runtimeFuncs.get("tic_rt_report_assert", tb.getI32Type(),
                              {ptrTy, ptrTy, ptrTy});
    LLVM::CallOp::create(tb, loc, f, ValueRange{env.context, msg, where});
  }

  void checkIndex(OpBuilder &b, Location loc, Value index, Value extent,
                  StringRef field, unsigned axis,
                  const FunctionEnv &env) const override {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value bad =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, index, extent);
    auto ifOp = scf::IfOp::create(b, loc, bad, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value name = strings.get(tb, loc, field);
    Value where = sourceLocation(tb, loc);
    Value ax = arith::ConstantIntOp::create(tb, loc, i32, axis);
    Value idx = arith::ExtSIOp::create(tb, loc, i64, index);
    Value ext = arith::ExtSIOp::create(tb, loc, i64, extent);
    auto f = runtimeFuncs.get("tic_rt_report_out_of_bounds", i32,
                              {ptrTy, ptrTy, i32, i64, i64, ptrTy});
    LLVM::CallOp::create(tb, loc, f,
                         ValueRange{env.context, name, ax, idx, ext, where});
  }

  Value accessRuleState(OpBuilder &b, Location loc, StringRef field,
                        int64_t count, const FunctionEnv &env) const override {
    // The context's words for the field, null unless a tape records.
    auto f = runtimeFuncs.get("tic_rt_ad_access_state", ptrTy,
                              {ptrTy, ptrTy, b.getI64Type()});
    Value n = strings.get(b, loc, field);
    Value cnt = arith::ConstantIntOp::create(b, loc, b.getI64Type(), count);
    return LLVM::CallOp::create(b, loc, f, ValueRange{env.context, n, cnt})
        .getResult();
  }

  void reportAccessRule(OpBuilder &b, Location loc, StringRef kernel,
                        StringRef field, Value index, Value what,
                        const FunctionEnv &env) const override {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto f = runtimeFuncs.get("tic_rt_ad_access_violation", i32,
                              {ptrTy, ptrTy, ptrTy, i64, i32});
    Value k = strings.get(b, loc, kernel), n = strings.get(b, loc, field);
    LLVM::CallOp::create(b, loc, f, ValueRange{env.context, k, n, index, what});
  }

  Value allocateBeyondCapacity(OpBuilder &b, Location loc, int32_t pool,
                               StringRef, Value index, Value,
                               const FunctionEnv &env) const override {
    // The runtime commits more of the pool's reservation.
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto f =
        runtimeFuncs.get("tic_rt_snode_alloc_at", ptrTy, {ptrTy, i32, i64});
    Value p = arith::ConstantIntOp::create(b, loc, i32, pool);
    return LLVM::CallOp::create(b, loc, f, ValueRange{env.context, p, index})
        .getResult();
  }

private:
  /// "file:line:col" of `loc` as a string constant (null without a file).
  Value sourceLocation(OpBuilder &b, Location loc) const {
    if (auto fl = dyn_cast<FileLineColLoc>(loc))
      return strings.get(b, loc,
                         (fl.getFilename().getValue() + ":" +
                          Twine(fl.getLine()) + ":" + Twine(fl.getColumn()))
                             .str());
    return LLVM::ZeroOp::create(b, loc, ptrTy);
  }

  MLIRContext *ctx;
  Type ptrTy;
  // Caches of what was declared in the module (mutable: hooks are const).
  mutable GlobalStrings strings;
  mutable RuntimeFunctions runtimeFuncs;
};

} // namespace

std::unique_ptr<TargetInfo> tic::createCPUTargetInfo(ModuleOp module) {
  return std::make_unique<CPUTargetInfo>(module);
}

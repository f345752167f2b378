//===- CEntryPoints.cpp - tic-generate-c-entry-points ---------------------===//
//
// LLVM-dialect half of the C interface (see include/tic/Target/Interface.h):
// defines every function of MODULE.h as an llvm.func with C linkage that
// checks its arguments and calls the lowered kernels / accessor kernels
// (`llvm.func @k(%ctx: !llvm.ptr, scalars..., ndarray pointers...)`).
//===----------------------------------------------------------------------===//

#include "InterfaceUtil.h"

#include "tic/Conversion/LLVMUtils.h"
#include "tic/Target/Interface.h"
#include "tic/Target/RuntimeABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

#include <functional>

using namespace mlir;
using namespace tic;
using iface::FieldDesc;
using iface::KernelDesc;
using iface::ModuleInterface;
using iface::ValueDesc;

namespace {

// tc_status values, the tc_ndarray and descriptor layouts: from the
// runtime's own headers (tic/Target/RuntimeABI.h).
using abi::kInvalidArgument;
using abi::kOk;
using abi::kOutOfBounds;
using abi::kUnsupported;

class Generator {
public:
  Generator(ModuleOp module, const ModuleInterface &m)
      : module(module), m(m), ctx(module.getContext()), loc(module.getLoc()),
        ptrTy(LLVM::LLVMPointerType::get(ctx)), i8(IntegerType::get(ctx, 8)),
        i32(IntegerType::get(ctx, 32)), i64(IntegerType::get(ctx, 64)),
        strings(module, "__tic_iface_str_"), runtimeFuncs(module),
        symbols(module) {}

  LogicalResult run();

private:
  // --- helpers ------------------------------------------------------------
  LLVM::LLVMFuncOp runtimeFunc(StringRef name, Type result, ArrayRef<Type> args,
                               bool vararg = false) {
    return runtimeFuncs.get(name, result, args, vararg);
  }
  Value str(OpBuilder &b, StringRef s) { return strings.get(b, loc, s); }
  Value cst(OpBuilder &b, Type t, int64_t v) {
    return LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
  }
  Value null(OpBuilder &b) { return LLVM::ZeroOp::create(b, loc, ptrTy); }

  /// A new exported function with an entry block; `b` is set to its end.
  LLVM::LLVMFuncOp newFunction(const std::string &name, Type result,
                               ArrayRef<Type> args, OpBuilder &b) {
    if (Operation *old = symbols.lookup(name)) {
      old->emitError("symbol '") << name << "' clashes with a generated C function";
      failed_ = true;
    }
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto fn = LLVM::LLVMFuncOp::create(mb, loc, name,
                                       LLVM::LLVMFunctionType::get(result, args));
    if (!failed_)
      symbols.insert(fn);
    Block *entry = fn.addEntryBlock(mb);
    b.setInsertionPointToEnd(entry);
    return fn;
  }

  /// tic_rt_fail(ctx, status, fmt, args...) returning its status.
  Value fail(OpBuilder &b, Value c, int32_t status, StringRef fmt,
             ArrayRef<Value> args = {}) {
    auto f = runtimeFunc("tic_rt_fail", i32, {ptrTy, i32, ptrTy}, /*vararg=*/true);
    SmallVector<Value> all{c, cst(b, i32, status), str(b, fmt)};
    all.append(args.begin(), args.end());
    return LLVM::CallOp::create(b, loc, f, all).getResult();
  }

  /// if (cond) return onTrue(b); continues in a new block.
  void returnIf(OpBuilder &b, Value cond, const std::function<Value(OpBuilder &)> &onTrue) {
    Region *r = b.getBlock()->getParent();
    Block *then = new Block(), *cont = new Block();
    r->push_back(then);
    r->push_back(cont);
    LLVM::CondBrOp::create(b, loc, cond, then, cont);
    OpBuilder tb = OpBuilder::atBlockEnd(then);
    LLVM::ReturnOp::create(tb, loc, onTrue(tb));
    b.setInsertionPointToEnd(cont);
  }
  Value isNull(OpBuilder &b, Value p) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, p, null(b));
  }
  void checkCtx(OpBuilder &b, Value c, const std::string &fn) {
    returnIf(b, isNull(b, c), [&](OpBuilder &tb) {
      return fail(tb, null(tb), kInvalidArgument, fn + ": the context is NULL");
    });
  }
  void checkPtr(OpBuilder &b, Value c, Value p, const std::string &fn,
                const std::string &what) {
    returnIf(b, isNull(b, p), [&](OpBuilder &tb) {
      return fail(tb, c, kInvalidArgument, fn + ": '" + what + "' is NULL");
    });
  }
  Value takeStatus(OpBuilder &b, Value c) {
    auto f = runtimeFunc("tic_rt_take_kernel_status", i32, {ptrTy});
    return LLVM::CallOp::create(b, loc, f, ValueRange{c}).getResult();
  }

  /// C value -> kernel value.
  Value fromC(OpBuilder &b, Value v, const std::string &dtype) {
    if (dtype == "bool")
      return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v, cst(b, i8, 0));
    if (dtype == "f16")
      return LLVM::BitcastOp::create(b, loc, Float16Type::get(ctx), v);
    return v;
  }
  /// kernel value -> C value.
  Value toC(OpBuilder &b, Value v, const std::string &dtype) {
    if (dtype == "bool") return LLVM::ZExtOp::create(b, loc, i8, v);
    if (dtype == "f16") return LLVM::BitcastOp::create(b, loc, IntegerType::get(ctx, 16), v);
    return v;
  }
  Value loadComponent(OpBuilder &b, Value p, unsigned c, const std::string &dtype) {
    Type ct = ifaceutil::cTypeOf(dtype, ctx);
    Value addr = LLVM::GEPOp::create(b, loc, ptrTy, ct, p, ArrayRef<LLVM::GEPArg>{int32_t(c)});
    return fromC(b, LLVM::LoadOp::create(b, loc, ct, addr), dtype);
  }
  void storeComponent(OpBuilder &b, Value v, Value p, unsigned c,
                      const std::string &dtype) {
    Type ct = ifaceutil::cTypeOf(dtype, ctx);
    Value addr = LLVM::GEPOp::create(b, loc, ptrTy, ct, p, ArrayRef<LLVM::GEPArg>{int32_t(c)});
    LLVM::StoreOp::create(b, loc, toC(b, v, dtype), addr);
  }
  /// Components of a call result (a scalar or an LLVM struct).
  SmallVector<Value> results(OpBuilder &b, LLVM::CallOp call, unsigned n) {
    SmallVector<Value> out;
    if (n == 0) return out;
    Value r = call.getResult();
    if (n == 1 && !isa<LLVM::LLVMStructType>(r.getType())) return {r};
    for (unsigned c = 0; c < n; ++c)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, r, ArrayRef<int64_t>{c}));
    return out;
  }
  Type ndarrayType() { return abi::ndarrayType(ctx); }
  /// The lowered kernel `name`, made internal; null (with an error when
  /// `required`) when absent.
  LLVM::LLVMFuncOp kernelFunc(StringRef name, bool required) {
    auto f = symbols.lookup<LLVM::LLVMFuncOp>(name);
    if (!f) {
      if (required) {
        module.emitError("tic-generate-c-entry-points: no llvm.func @")
            << name << " (run after the CPU lowering pipeline)";
        failed_ = true;
      }
      return {};
    }
    if (!f.isExternal()) f.setLinkage(LLVM::Linkage::Internal);
    return f;
  }

  // --- generators -----------------------------------------------------------
  void genContext();
  void genKernel(const KernelDesc &k);
  /// MODULE_<name>: checks the C arguments, calls `kfn`; with `replay`,
  /// records the launch on the tape while one is recorded.
  void genEntry(const KernelDesc &k, LLVM::LLVMFuncOp kfn,
                const std::string &fnName, bool withResult,
                LLVM::LLVMFuncOp replay);
  LLVM::LLVMFuncOp genReplay(const KernelDesc &k, LLVM::LLVMFuncOp gfn);
  Type tapeArgsType(LLVM::LLVMFuncOp kfn, const KernelDesc &k);
  void genField(const FieldDesc &f);
  void genMisc();
  /// With the module attribute tic.denormals ("flush" | "preserve"): saves
  /// the caller's MXCSR and sets its FTZ/DAZ bits for the kernel; returns
  /// the save slot (null without the attribute).
  Value enterDenormalMode(OpBuilder &b, LLVM::LLVMFuncOp fn);

  ModuleOp module;
  const ModuleInterface &m;
  MLIRContext *ctx;
  Location loc;
  Type ptrTy, i8, i32, i64;
  GlobalStrings strings;
  RuntimeFunctions runtimeFuncs;
  SymbolTable symbols; // built once: lookups are O(1)
  bool failed_ = false;
};

void Generator::genContext() {
  const std::string &M = m.name;
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  int64_t rootSize = 0, rootAlign = 0;
  if (auto a = module->getAttrOfType<IntegerAttr>("tic.root_size")) rootSize = a.getInt();
  if (auto a = module->getAttrOfType<IntegerAttr>("tic.root_align")) rootAlign = a.getInt();

  // static const char *const field_names[] = {...};
  std::string namesSym;
  if (!m.fields.empty()) {
    namesSym = "__tic_field_names";
    auto arrTy = LLVM::LLVMArrayType::get(ptrTy, m.fields.size());
    auto g = LLVM::GlobalOp::create(mb, loc, arrTy, true, LLVM::Linkage::Internal,
                                    namesSym, Attribute(), 8);
    Block *init = new Block();
    g.getInitializerRegion().push_back(init);
    OpBuilder ib = OpBuilder::atBlockEnd(init);
    Value arr = LLVM::UndefOp::create(ib, loc, arrTy);
    for (auto [i, f] : llvm::enumerate(m.fields))
      arr = LLVM::InsertValueOp::create(ib, loc, arr, str(ib, f.name),
                                        ArrayRef<int64_t>{int64_t(i)});
    LLVM::ReturnOp::create(ib, loc, arr);
  }
  // static const uint64_t field_bytes[] = {...};
  std::string bytesSym;
  if (auto a = module->getAttrOfType<DenseI64ArrayAttr>("tic.field_bytes");
      a && !m.fields.empty() && a.size() == int64_t(m.fields.size())) {
    bytesSym = "__tic_field_bytes";
    auto arrTy = LLVM::LLVMArrayType::get(i64, m.fields.size());
    LLVM::GlobalOp::create(mb, loc, arrTy, true, LLVM::Linkage::Internal,
                           bytesSym, mb.getI64TensorAttr(a.asArrayRef()), 8);
  }
  // static const tic_rt_pool_desc pools[] = {...}; from tic.pools, an
  // array of [name, element size, max elements, state offset] (one per
  // pointer, dynamic and hash SNode, in
  // pool order; tic-generate-field-accessors records it).
  std::string poolsSym;
  int64_t numPools = 0;
  if (auto pools = module->getAttrOfType<ArrayAttr>(kPoolsAttrName);
      pools && !pools.empty()) {
    poolsSym = "__tic_pools";
    numPools = pools.size();
    auto poolTy = abi::poolDescType(ctx);
    auto arrTy = LLVM::LLVMArrayType::get(poolTy, numPools);
    auto g =
        LLVM::GlobalOp::create(mb, loc, arrTy, true, LLVM::Linkage::Internal,
                               poolsSym, Attribute(), 8);
    Block *init = new Block();
    g.getInitializerRegion().push_back(init);
    OpBuilder ib = OpBuilder::atBlockEnd(init);
    Value arr = LLVM::UndefOp::create(ib, loc, arrTy);
    for (auto [i, a] : llvm::enumerate(pools)) {
      auto entry = cast<ArrayAttr>(a);
      Value pd = LLVM::UndefOp::create(ib, loc, poolTy);
      pd = LLVM::InsertValueOp::create(
          ib, loc, pd, str(ib, cast<StringAttr>(entry[0]).getValue()),
          ArrayRef<int64_t>{0});
      for (int64_t k : {1, 2, 3})
        pd = LLVM::InsertValueOp::create(
            ib, loc, pd, cst(ib, i64, cast<IntegerAttr>(entry[k]).getInt()),
            ArrayRef<int64_t>{k});
      arr = LLVM::InsertValueOp::create(ib, loc, arr, pd,
                                        ArrayRef<int64_t>{int64_t(i)});
    }
    LLVM::ReturnOp::create(ib, loc, arr);
  }
  // static const tic_rt_module_desc desc = {...};
  auto descTy = abi::moduleDescType(ctx);
  auto desc = LLVM::GlobalOp::create(mb, loc, descTy, true, LLVM::Linkage::Internal,
                                     "__tic_module_desc", Attribute(), 8);
  {
    Block *init = new Block();
    desc.getInitializerRegion().push_back(init);
    OpBuilder ib = OpBuilder::atBlockEnd(init);
    Value d = LLVM::UndefOp::create(ib, loc, descTy);
    auto put = [&](Value v, int64_t i) {
      d = LLVM::InsertValueOp::create(ib, loc, d, v, ArrayRef<int64_t>{i});
    };
    put(cst(ib, i32, abi::kAbiVersion), 0);
    put(str(ib, M), 1);
    put(cst(ib, i64, rootSize), 2);
    put(cst(ib, i64, rootAlign), 3);
    put(cst(ib, i32, int64_t(m.fields.size())), 4);
    put(namesSym.empty() ? null(ib)
                         : Value(LLVM::AddressOfOp::create(ib, loc, ptrTy, namesSym)),
        5);
    put(bytesSym.empty()
            ? null(ib)
            : Value(LLVM::AddressOfOp::create(ib, loc, ptrTy, bytesSym)),
        6);
    put(cst(ib, i32, numPools), 7);
    put(poolsSym.empty()
            ? null(ib)
            : Value(LLVM::AddressOfOp::create(ib, loc, ptrTy, poolsSym)),
        8);
    // The device code of --target=cuda (the driver adds it before this).
    bool hasPTX =
        module.lookupSymbol<LLVM::GlobalOp>(kCudaPTXSymbol) != nullptr;
    put(hasPTX
            ? Value(LLVM::AddressOfOp::create(ib, loc, ptrTy, kCudaPTXSymbol))
            : null(ib),
        9);
    LLVM::ReturnOp::create(ib, loc, d);
  }

  OpBuilder b(ctx);
  // tc_status M_create(const tc_options *opts, M_ctx **out)
  {
    auto fn = newFunction(M + "_create", i32, {ptrTy, ptrTy}, b);
    auto create = runtimeFunc("tic_rt_context_create", i32, {ptrTy, ptrTy, ptrTy});
    Value d = LLVM::AddressOfOp::create(b, loc, ptrTy, "__tic_module_desc");
    Value r = LLVM::CallOp::create(b, loc, create,
                                   ValueRange{fn.getArgument(0), d, fn.getArgument(1)})
                  .getResult();
    LLVM::ReturnOp::create(b, loc, r);
  }
  // void M_destroy(M_ctx *)
  {
    auto fn = newFunction(M + "_destroy", LLVM::LLVMVoidType::get(ctx), {ptrTy}, b);
    auto destroy = runtimeFunc("tic_rt_context_destroy", LLVM::LLVMVoidType::get(ctx), {ptrTy});
    LLVM::CallOp::create(b, loc, destroy, ValueRange{fn.getArgument(0)});
    LLVM::ReturnOp::create(b, loc, ValueRange{});
  }
  // const char *M_last_error(const M_ctx *)
  {
    auto fn = newFunction(M + "_last_error", ptrTy, {ptrTy}, b);
    auto last = runtimeFunc("tic_rt_last_error", ptrTy, {ptrTy});
    Value r = LLVM::CallOp::create(b, loc, last, ValueRange{fn.getArgument(0)}).getResult();
    LLVM::ReturnOp::create(b, loc, r);
  }
  // const char *M_metadata(void)
  {
    newFunction(M + "_metadata", ptrTy, {}, b);
    LLVM::ReturnOp::create(b, loc, str(b, iface::moduleJSON(m)));
  }
}

void Generator::genKernel(const KernelDesc &k) {
  LLVM::LLVMFuncOp kfn = kernelFunc(k.symbol, /*required=*/true);
  if (!kfn) return;
  if (k.hasFwd) // tic-forward-mode's @k_fwd: primal results and tangents
    if (LLVM::LLVMFuncOp ffn = kernelFunc(k.symbol + "_fwd", /*required=*/true))
      genEntry(k, ffn, k.cFunction + "_fwd", k.hasResult, nullptr);
  if (!k.hasGrad) {
    genEntry(k, kfn, k.cFunction, k.hasResult, nullptr);
    return;
  }
  // The adjoint (tic-reverse-mode's @k_grad), its C entry, and the thunk
  // the tape replays it through.
  LLVM::LLVMFuncOp gfn = kernelFunc(k.symbol + "_grad", /*required=*/true);
  if (!gfn)
    return;
  LLVM::LLVMFuncOp replay = genReplay(k, gfn);
  genEntry(k, kfn, k.cFunction, k.hasResult, replay);
  genEntry(k, gfn, k.cFunction + "_grad", /*withResult=*/false, nullptr);
}

/// The argument block a tape entry keeps: the kernel's arguments after the
/// context, an ndarray by value (its descriptor, not the caller's copy).
Type Generator::tapeArgsType(LLVM::LLVMFuncOp kfn, const KernelDesc &k) {
  SmallVector<Type> fields;
  auto params = kfn.getFunctionType().getParams();
  unsigned a = 1;
  for (const iface::ParamDesc &p : k.params) {
    if (p.value.kind == ValueDesc::Kind::NDArray) {
      fields.push_back(ndarrayType());
      ++a;
      continue;
    }
    unsigned n =
        p.value.kind == ValueDesc::Kind::Scalar ? 1 : p.value.components();
    for (unsigned c = 0; c < n; ++c)
      fields.push_back(params[a++]);
  }
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

LLVM::LLVMFuncOp Generator::genReplay(const KernelDesc &k,
                                      LLVM::LLVMFuncOp gfn) {
  OpBuilder b(ctx);
  std::string name = "__tic_tape_replay_" + k.symbol;
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  auto fn = LLVM::LLVMFuncOp::create(
      mb, loc, name, LLVM::LLVMFunctionType::get(i32, {ptrTy, ptrTy}));
  fn.setLinkage(LLVM::Linkage::Internal);
  b.setInsertionPointToEnd(fn.addEntryBlock(mb));
  Value c = fn.getArgument(0), block = fn.getArgument(1);
  Type st = tapeArgsType(gfn, k);
  SmallVector<Value> kargs{c};
  for (auto [i, ft] :
       llvm::enumerate(cast<LLVM::LLVMStructType>(st).getBody())) {
    Value addr = LLVM::GEPOp::create(b, loc, ptrTy, st, block,
                                     ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
    if (ft == ndarrayType()) {
      kargs.push_back(addr); // the kernel reads the descriptor in place
      continue;
    }
    kargs.push_back(LLVM::LoadOp::create(b, loc, ft, addr));
  }
  Value savedCsr = enterDenormalMode(b, fn);
  LLVM::CallOp::create(b, loc, gfn, kargs);
  Value status = takeStatus(b, c);
  if (savedCsr)
    LLVM::CallIntrinsicOp::create(
        b, loc, b.getStringAttr("llvm.x86.sse.ldmxcsr"), ValueRange{savedCsr});
  LLVM::ReturnOp::create(b, loc, status);
  return fn;
}

void Generator::genEntry(const KernelDesc &k, LLVM::LLVMFuncOp kfn,
                         const std::string &fnName, bool withResult,
                         LLVM::LLVMFuncOp replay) {
  SmallVector<Type> args{ptrTy};
  for (const iface::ParamDesc &p : k.params)
    args.push_back(p.value.kind == ValueDesc::Kind::Scalar
                       ? ifaceutil::cTypeOf(p.value.dtype, ctx)
                       : ptrTy);
  if (withResult)
    args.push_back(ptrTy);
  OpBuilder b(ctx);
  auto fn = newFunction(fnName, i32, args, b);
  // tc_ndarray is passed by value: in memory (byval) under the SysV ABI.
  for (auto [i, p] : llvm::enumerate(k.params))
    if (p.value.kind == ValueDesc::Kind::NDArray) {
      fn.setArgAttr(i + 1, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(ndarrayType()));
      fn.setArgAttr(i + 1, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(8));
    }
  Value c = fn.getArgument(0);
  checkCtx(b, c, fnName);
  for (auto [i, p] : llvm::enumerate(k.params))
    if (p.value.kind == ValueDesc::Kind::Vector || p.value.kind == ValueDesc::Kind::Matrix)
      checkPtr(b, c, fn.getArgument(i + 1), fnName, p.cName);
  Value ret = withResult ? fn.getArgument(args.size() - 1) : Value();
  if (ret) checkPtr(b, c, ret, fnName, "ret");
  for (auto [i, p] : llvm::enumerate(k.params)) {
    if (p.value.kind != ValueDesc::Kind::NDArray) continue;
    auto check = runtimeFunc("tic_rt_check_ndarray", i32, {ptrTy, ptrTy, i32, i32, ptrTy});
    Value st = LLVM::CallOp::create(
                   b, loc, check,
                   ValueRange{c, fn.getArgument(i + 1),
                              cst(b, i32, p.value.ndim + p.value.elementAxes()),
                              cst(b, i32, iface::tcDTypeValue(p.value.dtype)),
                              str(b, p.name)})
                   .getResult();
    Value bad = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, st, cst(b, i32, 0));
    returnIf(b, bad, [&](OpBuilder &) { return st; });
  }
  SmallVector<Value> kargs{c};
  for (auto [i, p] : llvm::enumerate(k.params)) {
    Value a = fn.getArgument(i + 1);
    switch (p.value.kind) {
    case ValueDesc::Kind::Scalar: kargs.push_back(fromC(b, a, p.value.dtype)); break;
    case ValueDesc::Kind::NDArray: kargs.push_back(a); break;
    default:
      for (unsigned comp = 0; comp < p.value.components(); ++comp)
        kargs.push_back(loadComponent(b, a, comp, p.value.dtype));
    }
  }
  auto fty = kfn.getFunctionType();
  if (fty.getNumParams() != kargs.size()) {
    kfn.emitError("lowered kernel takes ") << fty.getNumParams()
        << " arguments; its C signature gives " << kargs.size();
    failed_ = true;
    return;
  }
  for (auto [i, a] : llvm::enumerate(kargs))
    if (a.getType() != fty.getParamType(i)) {
      kfn.emitError("argument ") << i << " has type " << fty.getParamType(i)
                                 << "; the C interface passes " << a.getType();
      failed_ = true;
      return;
    }
  Value savedCsr = enterDenormalMode(b, fn);
  auto call = LLVM::CallOp::create(b, loc, kfn, kargs);
  if (withResult) {
    SmallVector<Value> rs = results(b, call, k.result.components());
    for (auto [comp, v] : llvm::enumerate(rs))
      storeComponent(b, v, ret, comp, k.result.dtype);
  }
  Value status = takeStatus(b, c);
  if (savedCsr)
    LLVM::CallIntrinsicOp::create(
        b, loc, b.getStringAttr("llvm.x86.sse.ldmxcsr"), ValueRange{savedCsr});
  if (replay) {
    // Inside tape_begin / tape_end, a launch that succeeded is recorded:
    // the replay thunk and a copy of the arguments.
    Value bad = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, status,
                                     cst(b, i32, kOk));
    returnIf(b, bad, [&](OpBuilder &) { return status; });
    auto recording = runtimeFunc("tic_rt_tape_recording", i32, {ptrTy});
    Value on =
        LLVM::CallOp::create(b, loc, recording, ValueRange{c}).getResult();
    Value off = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, on,
                                     cst(b, i32, 0));
    returnIf(b, off, [&](OpBuilder &tb) { return cst(tb, i32, kOk); });
    Type st = tapeArgsType(kfn, k);
    OpBuilder eb = OpBuilder::atBlockBegin(&fn.getBody().front());
    Value block =
        LLVM::AllocaOp::create(eb, loc, ptrTy, st, cst(eb, i64, 1), 8);
    for (auto [i, ft] :
         llvm::enumerate(cast<LLVM::LLVMStructType>(st).getBody())) {
      Value addr = LLVM::GEPOp::create(b, loc, ptrTy, st, block,
                                       ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
      Value v = kargs[i + 1];
      if (ft == ndarrayType())
        v = LLVM::LoadOp::create(b, loc, ft, v);
      LLVM::StoreOp::create(b, loc, v, addr);
    }
    // sizeof(block): the address of element 1 of a null array of blocks
    Value end = LLVM::GEPOp::create(b, loc, ptrTy, st, null(b),
                                    ArrayRef<LLVM::GEPArg>{1});
    Value size = LLVM::PtrToIntOp::create(b, loc, i64, end);
    auto record =
        runtimeFunc("tic_rt_tape_record", i32, {ptrTy, ptrTy, ptrTy, i64});
    Value thunk = LLVM::AddressOfOp::create(b, loc, replay);
    status =
        LLVM::CallOp::create(b, loc, record, ValueRange{c, thunk, block, size})
            .getResult();
  }
  LLVM::ReturnOp::create(b, loc, status);
}

Value Generator::enterDenormalMode(OpBuilder &b, LLVM::LLVMFuncOp fn) {
  auto mode = module->getAttrOfType<StringAttr>("tic.denormals");
  if (!mode)
    return {};
  // MXCSR bit 15 is flush-to-zero, bit 6 denormals-are-zero. The caller's
  // MXCSR is saved in a stack slot and reloaded after the kernel, so the
  // caller's own code never sees the kernel's mode; the runtime gives the
  // worker threads the mode of the launching thread.
  constexpr int64_t kFtzDaz = 0x8040;
  OpBuilder eb = OpBuilder::atBlockBegin(&fn.getBody().front());
  Value one = cst(eb, i32, 1);
  Value saved = LLVM::AllocaOp::create(eb, loc, ptrTy, i32, one, 4);
  Value changed = LLVM::AllocaOp::create(eb, loc, ptrTy, i32, one, 4);
  LLVM::CallIntrinsicOp::create(b, loc, b.getStringAttr("llvm.x86.sse.stmxcsr"),
                                ValueRange{saved});
  Value csr = LLVM::LoadOp::create(b, loc, i32, saved);
  Value next =
      mode.getValue() == "flush"
          ? Value(LLVM::OrOp::create(b, loc, csr, cst(b, i32, kFtzDaz)))
          : Value(LLVM::AndOp::create(b, loc, csr, cst(b, i32, ~kFtzDaz)));
  LLVM::StoreOp::create(b, loc, next, changed);
  LLVM::CallIntrinsicOp::create(b, loc, b.getStringAttr("llvm.x86.sse.ldmxcsr"),
                                ValueRange{changed});
  return saved;
}

void Generator::genField(const FieldDesc &f) {
  if (!f.hasAccessors()) return;
  const std::string P = m.name + "_" + f.cName;
  const std::string &T = f.value.dtype;
  unsigned ncomp = f.value.components(), rank = f.ndim();
  bool scalar = f.value.kind == ValueDesc::Kind::Scalar;
  OpBuilder b(ctx);
  auto unsupported = [&](OpBuilder &bb, Value c) {
    return fail(bb, c, kUnsupported,
                "field '" + f.name + "': its layout is not supported by this "
                "version of tic yet");
  };
  auto checkIndices = [&](OpBuilder &bb, LLVM::LLVMFuncOp fn, Value c,
                          const std::string &fnName) {
    if (f.unbounded) return;
    for (unsigned a = 0; a < rank; ++a) {
      Value idx = fn.getArgument(1 + a);
      Value ext = cst(bb, i32, f.shape[a]);
      Value bad = LLVM::ICmpOp::create(bb, loc, LLVM::ICmpPredicate::uge, idx, ext);
      returnIf(bb, bad, [&](OpBuilder &tb) {
        return fail(tb, c, kOutOfBounds,
                    fnName + ": index %d is out of bounds for axis %d of field '" +
                        f.name + "' with extent %lld",
                    {idx, cst(tb, i32, a), cst(tb, i64, f.shape[a])});
      });
    }
  };

  // get
  {
    SmallVector<Type> args{ptrTy};
    args.append(rank, i32);
    args.push_back(ptrTy);
    auto fn = newFunction(P + "_get", i32, args, b);
    Value c = fn.getArgument(0), out = fn.getArgument(rank + 1);
    checkCtx(b, c, P + "_get");
    checkPtr(b, c, out, P + "_get", "value");
    checkIndices(b, fn, c, P + "_get");
    if (auto g = kernelFunc(ifaceutil::accessorName("get", f), false)) {
      SmallVector<Value> kargs{c};
      for (unsigned a = 0; a < rank; ++a) kargs.push_back(fn.getArgument(1 + a));
      auto call = LLVM::CallOp::create(b, loc, g, kargs);
      for (auto [comp, v] : llvm::enumerate(results(b, call, ncomp)))
        storeComponent(b, v, out, comp, T);
      LLVM::ReturnOp::create(b, loc, takeStatus(b, c));
    } else {
      LLVM::ReturnOp::create(b, loc, unsupported(b, c));
    }
  }
  // set
  {
    SmallVector<Type> args{ptrTy};
    args.append(rank, i32);
    args.push_back(scalar ? ifaceutil::cTypeOf(T, ctx) : ptrTy);
    auto fn = newFunction(P + "_set", i32, args, b);
    Value c = fn.getArgument(0), in = fn.getArgument(rank + 1);
    checkCtx(b, c, P + "_set");
    if (!scalar) checkPtr(b, c, in, P + "_set", "value");
    checkIndices(b, fn, c, P + "_set");
    if (auto s = kernelFunc(ifaceutil::accessorName("set", f), false)) {
      SmallVector<Value> kargs{c};
      for (unsigned a = 0; a < rank; ++a) kargs.push_back(fn.getArgument(1 + a));
      if (scalar)
        kargs.push_back(fromC(b, in, T));
      else
        for (unsigned comp = 0; comp < ncomp; ++comp)
          kargs.push_back(loadComponent(b, in, comp, T));
      LLVM::CallOp::create(b, loc, s, kargs);
      LLVM::ReturnOp::create(b, loc, takeStatus(b, c));
    } else {
      LLVM::ReturnOp::create(b, loc, unsupported(b, c));
    }
  }
  // read / write
  if (f.hasBulk()) {
    for (const char *what : {"read", "write"}) {
      std::string fnName = P + "_" + what;
      auto fn = newFunction(fnName, i32, {ptrTy, ptrTy, i64}, b);
      Value c = fn.getArgument(0), data = fn.getArgument(1), count = fn.getArgument(2);
      checkCtx(b, c, fnName);
      Value total = cst(b, i64, f.numScalars());
      Value bad = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, count, total);
      returnIf(b, bad, [&](OpBuilder &tb) {
        return fail(tb, c, kInvalidArgument,
                    fnName + ": count is %llu, but field '" + f.name +
                        "' has %lld scalars",
                    {count, cst(tb, i64, f.numScalars())});
      });
      checkPtr(b, c, data, fnName, std::string(what) == "read" ? "dst" : "src");
      if (auto bulk = module->getAttrOfType<DictionaryAttr>(kBulkCopyAttrName))
        if (auto span = bulk.getAs<DenseI64ArrayAttr>(f.place);
            span && span.size() == 2) {
          // Stored exactly like the C array: one memcpy.
          auto rootFn = runtimeFunc("tic_rt_root", ptrTy, {ptrTy});
          Value root =
              LLVM::CallOp::create(b, loc, rootFn, ValueRange{c}).getResult();
          // An i64 offset: the field may start past 2 GiB in the root.
          Value field =
              LLVM::GEPOp::create(b, loc, ptrTy, i8, root,
                                  ArrayRef<LLVM::GEPArg>{cst(b, i64, span[0])},
                                  LLVM::GEPNoWrapFlags::inbounds);
          Value bytes = cst(b, i64, span[1]);
          bool read = std::string(what) == "read";
          bool device = module.lookupSymbol<LLVM::GlobalOp>(kCudaPTXSymbol);
          if (device) {
            // The root buffer may be device memory.
            auto copy = runtimeFunc(
                read ? "tic_rt_field_read" : "tic_rt_field_write",
                LLVM::LLVMVoidType::get(ctx), {ptrTy, ptrTy, ptrTy, i64});
            LLVM::CallOp::create(
                b, loc, copy,
                ValueRange{c, read ? data : field, read ? field : data, bytes});
          } else {
            LLVM::MemcpyOp::create(b, loc, read ? data : field,
                                   read ? field : data, bytes,
                                   /*isVolatile=*/false);
          }
          LLVM::ReturnOp::create(b, loc,
                                 device ? takeStatus(b, c) : cst(b, i32, kOk));
          continue;
        }
      auto k = kernelFunc(ifaceutil::accessorName(what, f), false);
      if (!k) {
        LLVM::ReturnOp::create(b, loc, unsupported(b, c));
        continue;
      }
      Type ndTy = ndarrayType();
      Value arr = LLVM::AllocaOp::create(b, loc, ptrTy, ndTy, cst(b, i64, 1), 8);
      auto fieldPtr = [&](ArrayRef<LLVM::GEPArg> idx) {
        return LLVM::GEPOp::create(b, loc, ptrTy, ndTy, arr, idx);
      };
      LLVM::StoreOp::create(b, loc, data, fieldPtr({0, abi::kNDData}));
      Value rankC = cst(b, i32, rank + 1);
      LLVM::StoreOp::create(b, loc, rankC, fieldPtr({0, abi::kNDRank}));
      for (unsigned d = 0; d < TC_NDARRAY_MAX_DIMS; ++d) {
        int64_t e = d < rank ? f.shape[d] : d == rank ? int64_t(ncomp) : 0;
        Value extent = cst(b, i64, e);
        LLVM::StoreOp::create(b, loc, extent,
                              fieldPtr({0, abi::kNDShape, int32_t(d)}));
      }
      Value dtype = cst(b, i32, iface::tcDTypeValue(T));
      LLVM::StoreOp::create(b, loc, dtype, fieldPtr({0, abi::kNDDType}));
      LLVM::CallOp::create(b, loc, k, ValueRange{c, arr});
      LLVM::ReturnOp::create(b, loc, takeStatus(b, c));
    }
  }
  if (f.hasWords()) {
    // The raw container words of a quantized field (__tic_words_read_f /
    // __tic_words_write_f over the words' index space).
    unsigned wrank = std::max<size_t>(1, f.wordShape.size());
    for (const char *what : {"words_read", "words_write"}) {
      std::string fnName = P + "_" + what;
      auto fn = newFunction(fnName, i32, {ptrTy, ptrTy, i64}, b);
      Value c = fn.getArgument(0), data = fn.getArgument(1),
            count = fn.getArgument(2);
      checkCtx(b, c, fnName);
      Value bad = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, count,
                                       cst(b, i64, f.numWords()));
      returnIf(b, bad, [&](OpBuilder &tb) {
        return fail(tb, c, kInvalidArgument,
                    fnName + ": count is %llu, but field '" + f.name +
                        "' has %lld words",
                    {count, cst(tb, i64, f.numWords())});
      });
      bool read = std::string(what) == "words_read";
      checkPtr(b, c, data, fnName, read ? "dst" : "src");
      auto k = kernelFunc(ifaceutil::accessorName(what, f), false);
      if (!k) {
        LLVM::ReturnOp::create(b, loc, unsupported(b, c));
        continue;
      }
      Type ndTy = ndarrayType();
      Value arr =
          LLVM::AllocaOp::create(b, loc, ptrTy, ndTy, cst(b, i64, 1), 8);
      auto fieldPtr = [&](ArrayRef<LLVM::GEPArg> idx) {
        return LLVM::GEPOp::create(b, loc, ptrTy, ndTy, arr, idx);
      };
      LLVM::StoreOp::create(b, loc, data, fieldPtr({0, abi::kNDData}));
      Value rankC = cst(b, i32, wrank);
      LLVM::StoreOp::create(b, loc, rankC, fieldPtr({0, abi::kNDRank}));
      for (unsigned d = 0; d < TC_NDARRAY_MAX_DIMS; ++d) {
        int64_t e = d < f.wordShape.size() ? f.wordShape[d] : d == 0 ? 1 : 0;
        Value extent = cst(b, i64, e);
        LLVM::StoreOp::create(b, loc, extent,
                              fieldPtr({0, abi::kNDShape, int32_t(d)}));
      }
      Value dtype =
          cst(b, i32, iface::tcDTypeValue("u" + std::to_string(f.wordBits)));
      LLVM::StoreOp::create(b, loc, dtype, fieldPtr({0, abi::kNDDType}));
      LLVM::CallOp::create(b, loc, k, ValueRange{c, arr});
      LLVM::ReturnOp::create(b, loc, takeStatus(b, c));
    }
  }
}

void Generator::genMisc() {
  const std::string &M = m.name;
  OpBuilder b(ctx);
  // sync: waits for a device's launches (the CPU runs them synchronously).
  {
    auto fn = newFunction(M + "_sync", i32, {ptrTy}, b);
    checkCtx(b, fn.getArgument(0), M + "_sync");
    auto rt = runtimeFunc("tic_rt_sync", i32, {ptrTy});
    LLVM::ReturnOp::create(
        b, loc,
        LLVM::CallOp::create(b, loc, rt, ValueRange{fn.getArgument(0)})
            .getResult());
  }
  // deactivate_all
  {
    auto fn = newFunction(M + "_deactivate_all", i32, {ptrTy}, b);
    Value c = fn.getArgument(0);
    checkCtx(b, c, M + "_deactivate_all");
    if (auto k = kernelFunc(kDeactivateAllKernel, false)) {
      LLVM::CallOp::create(b, loc, k, ValueRange{c});
      LLVM::ReturnOp::create(b, loc, takeStatus(b, c));
    } else if (m.hasSparse)
      LLVM::ReturnOp::create(b, loc,
                             fail(b, c, kUnsupported,
                                  M + "_deactivate_all: sparse SNodes of "
                                      "this module are not supported by "
                                      "this version of tic yet"));
    else
      LLVM::ReturnOp::create(b, loc, cst(b, i32, kOk)); // dense only: nothing to do
  }
  // <snode>_deactivate_all, per let-named sparse SNode
  for (const iface::SparseNodeDesc &n : m.sparseNodes) {
    std::string name = M + "_" + n.name + "_deactivate_all";
    auto fn = newFunction(name, i32, {ptrTy}, b);
    Value c = fn.getArgument(0);
    checkCtx(b, c, name);
    if (auto k = kernelFunc(deactivateKernelName(n.symbol), false)) {
      LLVM::CallOp::create(b, loc, k, ValueRange{c});
      LLVM::ReturnOp::create(b, loc, takeStatus(b, c));
    } else {
      LLVM::ReturnOp::create(
          b, loc,
          fail(b, c, kUnsupported,
               name + ": the sparse SNodes of this module are not supported "
                      "by this version of tic yet"));
    }
  }
  // memory_stats(ctx, snode, out)
  {
    auto fn = newFunction(M + "_memory_stats", i32, {ptrTy, ptrTy, ptrTy}, b);
    Value c = fn.getArgument(0);
    checkCtx(b, c, M + "_memory_stats");
    auto rt = runtimeFunc("tic_rt_memory_stats", i32, {ptrTy, ptrTy, ptrTy});
    LLVM::ReturnOp::create(
        b, loc,
        LLVM::CallOp::create(
            b, loc, rt, ValueRange{c, fn.getArgument(1), fn.getArgument(2)})
            .getResult());
  }
  LLVM::LLVMFuncOp clearGrads;
  // clear_grads / clear_duals: zero every adjoint / tangent field.
  for (StringRef kind : {"grad", "dual"}) {
    std::string fnName = M + "_clear_" + kind.str() + "s";
    auto fn = newFunction(fnName, i32, {ptrTy}, b);
    if (kind == "grad")
      clearGrads = fn;
    Value c = fn.getArgument(0);
    checkCtx(b, c, fnName);
    SmallVector<LLVM::LLVMFuncOp> clears;
    std::string missing;
    for (const FieldDesc &f : m.fields) {
      if (f.primal.empty() || !StringRef(f.name).ends_with("." + kind.str()))
        continue;
      if (auto k = kernelFunc(ifaceutil::accessorName("clear", f), false))
        clears.push_back(k);
      else if (missing.empty())
        missing = f.name;
    }
    if (!missing.empty()) {
      LLVM::ReturnOp::create(
          b, loc,
          fail(b, c, kUnsupported,
               fnName + ": field '" + missing +
                   "' has a layout this version of tic cannot clear yet"));
    } else {
      for (LLVM::LLVMFuncOp k : clears)
        LLVM::CallOp::create(b, loc, k, ValueRange{c});
      LLVM::ReturnOp::create(b, loc, takeStatus(b, c));
    }
  }
  // tape_begin: clears every gradient (as ti.ad.Tape does) and the tape,
  // then records. tape_end stops recording.
  {
    auto fn = newFunction(M + "_tape_begin", i32, {ptrTy}, b);
    Value c = fn.getArgument(0);
    checkCtx(b, c, M + "_tape_begin");
    Value st =
        LLVM::CallOp::create(b, loc, clearGrads, ValueRange{c}).getResult();
    Value bad = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, st,
                                     cst(b, i32, kOk));
    returnIf(b, bad, [&](OpBuilder &) { return st; });
    auto rt = runtimeFunc("tic_rt_tape_begin", i32, {ptrTy});
    LLVM::ReturnOp::create(
        b, loc, LLVM::CallOp::create(b, loc, rt, ValueRange{c}).getResult());
  }
  {
    auto fn = newFunction(M + "_tape_end", i32, {ptrTy}, b);
    Value c = fn.getArgument(0);
    checkCtx(b, c, M + "_tape_end");
    auto rt = runtimeFunc("tic_rt_tape_end", i32, {ptrTy});
    LLVM::ReturnOp::create(b, loc, LLVM::CallOp::create(b, loc, rt, ValueRange{c}).getResult());
  }
  // tape_backward(ctx, loss): loss.grad = 1, replay the adjoints.
  {
    auto fn = newFunction(M + "_tape_backward", i32, {ptrTy, i32}, b);
    Value c = fn.getArgument(0), loss = fn.getArgument(1);
    checkCtx(b, c, M + "_tape_backward");
    auto replay = runtimeFunc("tic_rt_tape_replay_reverse", i32, {ptrTy});
    for (const FieldDesc &f : m.fields) {
      if (f.grad.empty() || f.ndim() != 0) continue;
      const FieldDesc *g = m.findField(f.grad);
      if (!g || g->value.kind != ValueDesc::Kind::Scalar || g->value.dtype[0] != 'f')
        continue;
      auto set = kernelFunc(ifaceutil::accessorName("set", *g), false);
      if (!set) continue;
      Value is = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, loss,
                                      cst(b, i32, f.id));
      returnIf(b, is, [&](OpBuilder &tb) {
        Type ft = ifaceutil::mlirTypeOf(g->value.dtype, ctx);
        Value one = LLVM::ConstantOp::create(tb, loc, ft, tb.getFloatAttr(ft, 1.0));
        LLVM::CallOp::create(tb, loc, set, ValueRange{c, one});
        return LLVM::CallOp::create(tb, loc, replay, ValueRange{c}).getResult();
      });
    }
    LLVM::ReturnOp::create(
        b, loc,
        fail(b, c, kInvalidArgument,
             M + "_tape_backward: field %d is not a 0-D needs_grad field of a "
                 "float type",
             {loss}));
  }
}

LogicalResult Generator::run() {
  genContext();
  for (const KernelDesc &k : m.kernels) genKernel(k);
  for (const FieldDesc &f : m.fields) genField(f);
  genMisc();
  // Accessor kernels nobody calls (e.g. of struct fields) stay internal.
  for (auto f : module.getOps<LLVM::LLVMFuncOp>())
    if (f.getName().starts_with("__tic_") && !f.isExternal())
      f.setLinkage(LLVM::Linkage::Internal);
  return failure(failed_);
}

struct GenerateCEntryPointsPass
    : PassWrapper<GenerateCEntryPointsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GenerateCEntryPointsPass)
  StringRef getArgument() const override { return "tic-generate-c-entry-points"; }
  StringRef getDescription() const override {
    return "Define the C interface (MODULE.h) as llvm.funcs calling the lowered kernels";
  }
  void getDependentDialects(DialectRegistry &r) const override {
    r.insert<LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ModuleInterface m;
    if (failed(readInterface(module, m))) return signalPassFailure();
    Generator g(module, m);
    if (failed(g.run())) return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> tic::createGenerateCEntryPointsPass() {
  return std::make_unique<GenerateCEntryPointsPass>();
}

namespace tic::detail {
void registerGenerateCEntryPointsPass() {
  PassRegistration<GenerateCEntryPointsPass>();
}
} // namespace tic::detail

//===- FieldAccessors.cpp - tic-generate-field-accessors ------------------===//
//
// tc-level half of the C interface (see include/tic/Target/Interface.h):
// per field, tc.kernels that get/set one element and copy the whole field
// to/from an ndarray, all through tc.load / tc.store so that every access
// uses the one SNode access path.
//===----------------------------------------------------------------------===//

#include "InterfaceUtil.h"

#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/Interface.h"
#include "tic/rt.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace tic;
using iface::FieldDesc;
using iface::KernelDesc;
using iface::ModuleInterface;
using iface::ValueDesc;

namespace {

/// A description of hand-written IR that has no `tic.interface` attribute.
LogicalResult synthesizeInterface(ModuleOp module, const snode::SNodeLayout &layout,
                                  const std::string &nameOption,
                                  ModuleInterface &m) {
  m.name = !nameOption.empty() ? nameOption
           : module.getSymName() ? module.getSymName()->str()
                                 : std::string("module");
  m.ticVersion = "0.0.0";
  for (const snode::NodeLayout &n : layout.getNodes())
    if (n.kind == snode::SNodeKind::Pointer || n.kind == snode::SNodeKind::Bitmasked ||
        n.kind == snode::SNodeKind::Hash || n.kind == snode::SNodeKind::Dynamic)
      m.hasSparse = true;
  for (const snode::PlaceLayout &p : layout.getPlaces()) {
    FieldDesc f;
    f.name = f.place = p.name;
    f.id = m.fields.size();
    bool same = true;
    for (Type t : p.components) same &= t == p.components.front();
    if (!same || p.components.empty()) {
      f.value.kind = ValueDesc::Kind::Struct;
    } else {
      f.value.dtype = ifaceutil::dtypeOf(p.components.front());
      if (p.components.size() > 1) {
        f.value.kind = ValueDesc::Kind::Vector;
        f.value.rows = p.components.size();
      }
    }
    f.value.typeText = f.value.dtype;
    for (unsigned a = 0; a < p.shape.size(); ++a)
      f.axes.push_back(std::string(1, "ijkl"[a % 4]));
    f.shape.assign(p.shape.begin(), p.shape.end());
    if (p.isQuant()) {
      f.wordBits = p.wordBits;
      f.wordShape = f.shape;
      if (p.inBitArray)
        f.wordShape[p.parent->axes[0]] /= p.parent->shape[0];
    }
    m.fields.push_back(std::move(f));
  }
  // Companions: "x.grad" / "x.dual" next to a field "x".
  for (FieldDesc &f : m.fields)
    for (const char *suffix : {".grad", ".dual"}) {
      llvm::StringRef n(f.name);
      if (!n.ends_with(suffix)) continue;
      std::string primal = n.drop_back(5).str();
      for (FieldDesc &p : m.fields)
        if (p.name == primal) {
          f.primal = primal;
          if (std::string(suffix) == ".grad") {
            p.grad = f.name;
            p.needsGrad = true;
          } else {
            p.needsDual = true;
          }
        }
    }
  for (auto k : module.getOps<tc::KernelOp>()) {
    if (k.getSymName().starts_with("__tic_")) continue;
    KernelDesc d;
    d.name = d.symbol = k.getSymName().str();
    for (auto [i, t] : llvm::enumerate(k.getArgumentTypes())) {
      iface::ParamDesc p;
      p.name = "arg" + std::to_string(i);
      if (auto nd = dyn_cast<tc::NDArrayType>(t)) {
        p.value.kind = ValueDesc::Kind::NDArray;
        p.value.dtype = ifaceutil::dtypeOf(nd.getElementType());
        p.value.ndim = nd.getRank();
      } else {
        p.value.dtype = ifaceutil::dtypeOf(t);
      }
      d.params.push_back(std::move(p));
    }
    ArrayRef<Type> res = k.getResultTypes();
    if (!res.empty()) {
      for (Type t : res)
        if (t != res.front())
          return k.emitOpError("results of different types need a tic.interface "
                               "attribute describing the C signature");
      d.hasResult = true;
      d.result.dtype = ifaceutil::dtypeOf(res.front());
      if (res.size() > 1) {
        d.result.kind = ValueDesc::Kind::Vector;
        d.result.rows = res.size();
      }
    }
    m.kernels.push_back(std::move(d));
  }
  iface::finalizeNames(m);
  if (!m.errors.empty())
    return module.emitError(m.errors.front());
  return success();
}

struct GenerateFieldAccessorsPass
    : PassWrapper<GenerateFieldAccessorsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GenerateFieldAccessorsPass)

  GenerateFieldAccessorsPass() = default;
  GenerateFieldAccessorsPass(const GenerateFieldAccessorsPass &other)
      : PassWrapper(other) {}
  explicit GenerateFieldAccessorsPass(const FieldAccessorsOptions &o) {
    moduleName = o.moduleName;
  }

  StringRef getArgument() const override { return "tic-generate-field-accessors"; }
  StringRef getDescription() const override {
    return "Add the tc.kernels behind the C interface's field accessors";
  }
  void getDependentDialects(DialectRegistry &r) const override {
    r.insert<tc::TCDialect, arith::ArithDialect>();
  }

  Option<std::string> moduleName{
      *this, "module-name",
      llvm::cl::desc("Module name when there is no tic.interface attribute")};

  void runOnOperation() override;

private:
  LogicalResult checkKernels(ModuleOp module, const ModuleInterface &m);
  void generate(ModuleOp module, const FieldDesc &f, const snode::PlaceLayout &p);
  /// Fields copied with memcpy: place name -> byte offset in the root buffer
  /// (the module attribute kBulkCopyAttrName).
  SmallVector<NamedAttribute> bulkCopies;
};

LogicalResult GenerateFieldAccessorsPass::checkKernels(ModuleOp module,
                                                       const ModuleInterface &m) {
  SymbolTable symbols(module);
  for (const KernelDesc &k : m.kernels) {
    auto op = symbols.lookup<tc::KernelOp>(k.symbol);
    if (!op)
      return module.emitError("tic.interface names kernel '")
             << k.symbol << "' but the module has no tc.kernel @" << k.symbol;
    unsigned args = 0;
    for (const iface::ParamDesc &p : k.params) args += p.value.components();
    if (args != op.getArgumentTypes().size())
      return op.emitOpError("has ") << op.getArgumentTypes().size()
             << " arguments but its C signature has " << args
             << " scalar components";
    unsigned results = k.hasResult ? k.result.components() : 0;
    if (results != op.getResultTypes().size())
      return op.emitOpError("has ") << op.getResultTypes().size()
             << " results but its C signature returns " << results
             << " components";
  }
  return success();
}

/// Whether field `p`'s elements lie in the root buffer exactly as in its C
/// array: row-major, components innermost, no padding.
static bool isContiguous(const snode::PlaceLayout &p) {
  if (!p.supported || !p.strides || p.components.empty())
    return false;
  int64_t comp = snode::getComponentSize(p.components.front());
  for (auto [c, off] : llvm::enumerate(p.componentOffsets))
    if (off != int64_t(c) * comp || p.components[c] != p.components.front())
      return false;
  if (p.elementSize != comp * int64_t(p.components.size()))
    return false;
  int64_t expect = p.elementSize;
  for (size_t d = p.shape.size(); d-- > 0;) {
    if ((*p.strides)[d] != expect)
      return false;
    expect *= p.shape[d];
  }
  return true;
}

void GenerateFieldAccessorsPass::generate(ModuleOp module, const FieldDesc &f,
                                          const snode::PlaceLayout &p) {
  MLIRContext *ctx = module.getContext();
  snode::PlaceOp pop = p.op;
  Location loc = pop ? pop.getLoc() : module.getLoc();
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  Type i32 = IntegerType::get(ctx, 32);
  unsigned rank = p.shape.size();
  ArrayRef<Type> comps = p.components;
  auto sym = FlatSymbolRefAttr::get(ctx, p.name);
  auto newKernel = [&](const std::string &name, ArrayRef<Type> in,
                       ArrayRef<Type> out) {
    auto k = tc::KernelOp::create(mb, loc, name, FunctionType::get(ctx, in, out));
    return k;
  };
  auto cI32 = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };

  // get: (idx...) -> (components...)
  {
    SmallVector<Type> in(rank, i32);
    auto k = newKernel(ifaceutil::accessorName("get", f), in, comps);
    OpBuilder b = OpBuilder::atBlockEnd(&k.getBody().front());
    SmallVector<Value> idx(k.getBody().front().getArguments());
    SmallVector<Value> vals;
    for (auto [c, t] : llvm::enumerate(comps))
      vals.push_back(tc::LoadOp::create(b, loc, t, sym, idx, b.getI64IntegerAttr(c)));
    tc::ReturnOp::create(b, loc, vals);
  }
  // set: (idx..., components...)
  {
    SmallVector<Type> in(rank, i32);
    in.append(comps.begin(), comps.end());
    auto k = newKernel(ifaceutil::accessorName("set", f), in, {});
    OpBuilder b = OpBuilder::atBlockEnd(&k.getBody().front());
    auto args = k.getBody().front().getArguments();
    SmallVector<Value> idx(args.take_front(rank));
    for (unsigned c = 0; c < comps.size(); ++c)
      tc::StoreOp::create(b, loc, args[rank + c], sym, idx, b.getI64IntegerAttr(c));
    tc::ReturnOp::create(b, loc, ValueRange{});
  }

  bool uniform = llvm::all_of(comps, [&](Type t) { return t == comps.front(); });
  bool bulk = f.hasBulk() && uniform && !comps.empty();
  bool clear = !f.primal.empty();
  // A small field stored exactly like the C array (row-major, components
  // innermost, no gaps) is read and written with one memcpy by its C entry
  // point (CEntryPoints.cpp): no copy kernels, so thousands of small fields
  // compile in a fraction of the time, and a small copy skips the parallel
  // dispatch. Larger fields keep the parallel copy kernels.
  if (bulk && isContiguous(p) &&
      p.numElements() * p.elementSize <= kMemcpyBulkMaxBytes) {
    bulkCopies.push_back(NamedAttribute(
        StringAttr::get(ctx, f.place),
        DenseI64ArrayAttr::get(
            ctx, {p.baseOffset, p.numElements() * p.elementSize})));
    bulk = false;
  }
  // Builds a kernel whose body visits every index of `shape`: `visit(b,
  // idx)` inside a tc.parallel_for over it (or once for a 0-D field).
  auto overIndexSpace =
      [&](tc::KernelOp k, ArrayRef<int64_t> shape,
          llvm::function_ref<void(OpBuilder &, ValueRange)> visit) {
        OpBuilder b = OpBuilder::atBlockEnd(&k.getBody().front());
        if (rank == 0) {
          visit(b, {});
        } else {
          SmallVector<Value> lbs, ubs;
          for (int64_t s : shape) {
            lbs.push_back(cI32(b, 0));
            ubs.push_back(cI32(b, s));
          }
          auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
          OpBuilder bb = OpBuilder::atBlockEnd(&pf.getBody().front());
          visit(bb, SmallVector<Value>(pf.getBody().front().getArguments()));
          tc::YieldOp::create(bb, loc);
        }
        tc::ReturnOp::create(b, loc, ValueRange{});
      };
  auto overElements =
      [&](tc::KernelOp k,
          llvm::function_ref<void(OpBuilder &, ValueRange)> visit) {
        overIndexSpace(k, p.shape, visit);
      };

  // Raw container words (quantized fields): words_read / words_write over
  // the words' index space, each word at the element of its lane 0.
  if (f.hasWords() && p.isQuant()) {
    Type wordTy = IntegerType::get(ctx, f.wordBits);
    unsigned wrank = std::max<unsigned>(1, rank);
    auto arrTy = tc::NDArrayType::get(ctx, wordTy, wrank);
    int64_t lanes = 1, axis = -1;
    if (p.inBitArray) {
      axis = p.parent->axes[0];
      lanes = p.parent->shape[0];
    }
    for (bool read : {true, false}) {
      auto k = newKernel(
          ifaceutil::accessorName(read ? "words_read" : "words_write", f),
          {arrTy}, {});
      Value arr = k.getBody().front().getArgument(0);
      overIndexSpace(k, f.wordShape, [&](OpBuilder &bb, ValueRange w) {
        SmallVector<Value> idx(w), aidx(w);
        if (rank == 0)
          aidx.push_back(cI32(bb, 0));
        if (axis >= 0)
          idx[axis] =
              arith::MulIOp::create(bb, loc, idx[axis], cI32(bb, lanes));
        if (read) {
          auto l = tc::LoadOp::create(bb, loc, wordTy, sym, idx,
                                      bb.getI64IntegerAttr(0));
          l->setAttr(tc::kWholeWordAttrName, bb.getUnitAttr());
          tc::NDArrayStoreOp::create(bb, loc, l, arr, aidx);
        } else {
          Value v = tc::NDArrayLoadOp::create(bb, loc, wordTy, arr, aidx);
          auto st = tc::StoreOp::create(bb, loc, v, sym, idx,
                                        bb.getI64IntegerAttr(0));
          st->setAttr(tc::kWholeWordAttrName, bb.getUnitAttr());
        }
      });
    }
  }
  if (!bulk && !clear) return;

  if (bulk) {
    auto arrTy = tc::NDArrayType::get(ctx, comps.front(), rank + 1);
    auto read = newKernel(ifaceutil::accessorName("read", f), {arrTy}, {});
    Value rarr = read.getBody().front().getArgument(0);
    overElements(read, [&](OpBuilder &b, ValueRange idx) {
      for (unsigned c = 0; c < comps.size(); ++c) {
        Value v = tc::LoadOp::create(b, loc, comps[c], sym, idx, b.getI64IntegerAttr(c));
        SmallVector<Value> aidx(idx);
        aidx.push_back(cI32(b, c));
        tc::NDArrayStoreOp::create(b, loc, v, rarr, aidx);
      }
    });
    auto write = newKernel(ifaceutil::accessorName("write", f), {arrTy}, {});
    Value warr = write.getBody().front().getArgument(0);
    overElements(write, [&](OpBuilder &b, ValueRange idx) {
      for (unsigned c = 0; c < comps.size(); ++c) {
        SmallVector<Value> aidx(idx);
        aidx.push_back(cI32(b, c));
        Value v = tc::NDArrayLoadOp::create(b, loc, comps[c], warr, aidx);
        tc::StoreOp::create(b, loc, v, sym, idx, b.getI64IntegerAttr(c));
      }
    });
  }
  if (clear) {
    auto k = newKernel(ifaceutil::accessorName("clear", f), {}, {});
    overElements(k, [&](OpBuilder &b, ValueRange idx) {
      for (auto [c, t] : llvm::enumerate(comps)) {
        Value zero = isa<FloatType>(t)
                         ? Value(arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 0.0)))
                         : Value(arith::ConstantIntOp::create(b, loc, t, 0));
        tc::StoreOp::create(b, loc, zero, sym, idx, b.getI64IntegerAttr(c));
      }
    });
  }
}

/// Appends to `b` a struct-for deactivating every active cell of `n`
/// (which clears its subtree). A dynamic node's deactivation empties a
/// whole list: once per list, over the cells of its parent (with 0 for the
/// axes the parent does not split), or once when the list is the root's.
static void addDeactivateLoop(OpBuilder &b, Location loc,
                              const snode::NodeLayout &n) {
  MLIRContext *ctx = b.getContext();
  Type i32 = IntegerType::get(ctx, 32);
  auto sym = FlatSymbolRefAttr::get(ctx, n.name);
  unsigned rank = n.cellIndexShape.size();
  const snode::NodeLayout *over = &n;
  if (n.kind == snode::SNodeKind::Dynamic) {
    over = n.parent;
    if (!over) {
      Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
      tc::DeactivateOp::create(b, loc, sym, SmallVector<Value>(rank, zero));
      return;
    }
  }
  auto sf = tc::StructForOp::create(
      b, loc, FlatSymbolRefAttr::get(ctx, over->name), UnitAttr(),
      IntegerAttr(), IntegerAttr(), IntegerAttr(), ArrayAttr());
  unsigned loopRank = over->cellIndexShape.size();
  OpBuilder bb(ctx);
  Block *body =
      bb.createBlock(&sf.getBody(), {}, SmallVector<Type>(loopRank, i32),
                     SmallVector<Location>(loopRank, loc));
  SmallVector<Value> idx(body->getArguments());
  if (loopRank < rank) {
    Value zero = arith::ConstantIntOp::create(bb, loc, i32, 0);
    idx.resize(rank, zero);
  }
  tc::DeactivateOp::create(bb, loc, sym, idx);
  tc::YieldOp::create(bb, loc);
}

/// A kernel `name` of one struct-for deactivating the cells of each node.
static void
generateDeactivateKernel(ModuleOp module, StringRef name,
                         ArrayRef<const snode::NodeLayout *> nodes) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  auto k = tc::KernelOp::create(mb, loc, name, FunctionType::get(ctx, {}, {}));
  OpBuilder b = OpBuilder::atBlockEnd(&k.getBody().front());
  for (const snode::NodeLayout *n : nodes)
    addDeactivateLoop(b, loc, *n);
  tc::ReturnOp::create(b, loc, ValueRange{});
}

/// __tic_deactivate_all(): the active cells of every sparse node with no
/// sparse ancestor (deactivating them clears the rest), and
/// __tic_deactivate_<node>() for each let-named sparse node of the
/// interface. None where a sparse node cannot be lowered yet (the C
/// functions then report TC_ERR_UNSUPPORTED), and no __tic_deactivate_all
/// without sparse nodes (it has nothing to do).
static void generateDeactivateKernels(ModuleOp module,
                                      const snode::SNodeLayout &layout,
                                      const ModuleInterface &m) {
  SmallVector<const snode::NodeLayout *> tops;
  for (const snode::NodeLayout &n : layout.getNodes()) {
    if (snode::isAlwaysActive(n.kind))
      continue;
    if (!n.supported)
      return;
    bool nested = false;
    for (const snode::NodeLayout *p = n.parent; p; p = p->parent)
      nested |= !snode::isAlwaysActive(p->kind);
    if (!nested)
      tops.push_back(&n);
  }
  if (tops.empty())
    return;
  generateDeactivateKernel(module, kDeactivateAllKernel, tops);
  for (const iface::SparseNodeDesc &d : m.sparseNodes)
    if (const snode::NodeLayout *n = layout.lookupNode(d.symbol))
      generateDeactivateKernel(module, deactivateKernelName(d.symbol), {n});
}

void GenerateFieldAccessorsPass::runOnOperation() {
  ModuleOp module = getOperation();
  snode::SNodeLayout layout(module);
  if (failed(layout.checkAllocated()))
    return signalPassFailure();
  ModuleInterface m;
  if (module->hasAttr(kInterfaceAttrName)) {
    if (failed(readInterface(module, m))) return signalPassFailure();
  } else {
    if (failed(synthesizeInterface(module, layout, moduleName, m)))
      return signalPassFailure();
    attachInterface(module, m);
  }
  if (failed(checkKernels(module, m))) return signalPassFailure();

  Builder b(module.getContext());
  module->setAttr("tic.root_size", b.getI64IntegerAttr(layout.getRootSize()));
  module->setAttr("tic.root_align", b.getI64IntegerAttr(layout.getRootAlign()));
  // Bytes of each field's elements (in tic_rt_module_desc: an allocation
  // failure names the largest field).
  SmallVector<int64_t> fieldBytes;
  for (const FieldDesc &f : m.fields) {
    const snode::PlaceLayout *p = layout.lookupPlace(f.place);
    int64_t n = 0;
    if (p && !__builtin_mul_overflow(p->numElements(), p->elementSize, &n)) {
    } else {
      n = 0;
    }
    fieldBytes.push_back(n);
  }
  module->setAttr("tic.field_bytes", b.getDenseI64ArrayAttr(fieldBytes));

  for (const FieldDesc &f : m.fields) {
    if (!f.hasAccessors()) continue;
    const snode::PlaceLayout *p = layout.lookupPlace(f.place);
    if (!p) {
      module.emitError("tic.interface names field '")
          << f.name << "' but the module has no snode.place @" << f.place;
      return signalPassFailure();
    }
    if (p->components.size() != f.value.components() || p->shape.size() != f.ndim()) {
      snode::PlaceOp(p->op).emitOpError("does not match the C interface of field '")
          << f.name << "' (" << f.value.components() << " components, "
          << f.ndim() << " indices)";
      return signalPassFailure();
    }
    // Layouts the lowering cannot handle yet get no accessor kernels; the
    // C functions then report TC_ERR_UNSUPPORTED.
    if (!p->supported) continue;
    bool lowerable = true;
    for (const snode::LevelAccess &l : p->levels)
      lowerable &= l.node && l.node->supported;
    if (!lowerable) continue;
    generate(module, f, *p);
  }
  generateDeactivateKernels(module, layout, m);
  // The pools of the pointer and dynamic nodes, for the module descriptor.
  SmallVector<Attribute> pools(layout.getNumPools());
  for (const snode::NodeLayout &n : layout.getNodes())
    if (n.poolIndex >= 0)
      pools[n.poolIndex] = b.getArrayAttr(
          {b.getStringAttr(n.name), b.getI64IntegerAttr(n.poolCellSize),
           b.getI64IntegerAttr(std::min<int64_t>(
               n.maxCells, int64_t(TIC_RT_POOL_MAX_ELEMENTS))),
           b.getI64IntegerAttr(n.poolStateOffset)});
  if (!pools.empty())
    module->setAttr(kPoolsAttrName, b.getArrayAttr(pools));
  if (!bulkCopies.empty())
    module->setAttr(kBulkCopyAttrName,
                    DictionaryAttr::get(module.getContext(), bulkCopies));
}

} // namespace

std::unique_ptr<Pass>
tic::createGenerateFieldAccessorsPass(const FieldAccessorsOptions &options) {
  return std::make_unique<GenerateFieldAccessorsPass>(options);
}

namespace tic::detail {
void registerGenerateFieldAccessorsPass() {
  PassRegistration<GenerateFieldAccessorsPass>();
}
} // namespace tic::detail

//===- tic-header-tool.cpp - test driver of the header generator ----------===//
//
//   tic-header-tool sample [--json]     header (or JSON) of a built-in module
//                                       that uses every feature of section 9
//   tic-header-tool roundtrip           JSON -> parse -> JSON is the identity
//   tic-header-tool mlir FILE [--json] [--name N]
//                                       runs tic-generate-field-accessors on
//                                       FILE (tc + snode IR) and prints the
//                                       header of the resulting interface
//
// Until `tic --emit=header` works end to end, this is how the lit tests in
// test/Target/Header reach the generator.
//===----------------------------------------------------------------------===//

#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"
#include "tic/Target/Header.h"
#include "tic/Target/Interface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstring>
#include <iostream>
#include <sstream>

using namespace tic::iface;

static ValueDesc scalar(const std::string &dt) {
  ValueDesc v;
  v.dtype = v.typeText = dt;
  return v;
}
static ValueDesc vec(const std::string &dt, unsigned n) {
  ValueDesc v;
  v.kind = ValueDesc::Kind::Vector;
  v.dtype = dt;
  v.rows = n;
  v.typeText = "vec<" + dt + ", " + std::to_string(n) + ">";
  return v;
}
static ValueDesc mat(const std::string &dt, unsigned r, unsigned c) {
  ValueDesc v;
  v.kind = ValueDesc::Kind::Matrix;
  v.dtype = dt;
  v.rows = r;
  v.cols = c;
  v.typeText = "mat<" + dt + ", " + std::to_string(r) + ", " + std::to_string(c) + ">";
  return v;
}
static ValueDesc ndarray(ValueDesc elem, unsigned ndim) {
  ValueDesc v = elem;
  v.kind = ValueDesc::Kind::NDArray;
  v.ndim = ndim;
  v.typeText = "ndarray<" + elem.typeText + ", " + std::to_string(ndim) + ">";
  return v;
}

static ModuleInterface sample() {
  ModuleInterface m;
  m.name = "sim";
  m.source = "sim.tc";
  m.ticVersion = "0.1.0";
  auto constant = [&](std::string n, std::string t, std::string v, std::string c,
                      bool ov = false) {
    ConstantDesc d;
    d.name = n;
    d.typeText = d.dtype = t;
    d.valueText = v;
    d.cValue = c;
    d.overridden = ov;
    if (ov) d.overrideText = n + "=" + v;
    m.constants.push_back(d);
  };
  constant("n", "i32", "256", "256", true);
  constant("dx", "f32", "0.00390625", "0.00390625f");
  constant("big", "i64", "-5000000000", "INT64_C(-5000000000)");
  constant("on", "bool", "true", "1");
  constant("tricky", "f64", "inf", "");
  ConstantDesc v2;
  v2.name = "g";
  v2.typeText = "vec<f32, 2>";
  v2.dtype = "f32";
  v2.valueText = "[0.0, -9.8]";
  v2.cValue = "{0.0f, (-9.80000019f)}";
  m.constants.push_back(v2);

  auto field = [&](std::string n, ValueDesc v, std::vector<int64_t> shape) {
    FieldDesc f;
    f.name = f.place = n;
    f.id = m.fields.size();
    f.value = v;
    f.storageText = v.typeText;
    for (size_t i = 0; i < shape.size(); ++i) f.axes.push_back(std::string(1, "ijkl"[i]));
    f.shape = shape;
    f.snodePath = "root.dense(" + std::string("ijkl").substr(0, shape.size()) + ", ...)";
    m.fields.push_back(f);
    return &m.fields.back();
  };
  field("u", scalar("f32"), {256, 256});
  field("x", vec("f32", 3), {100});
  field("F", mat("f64", 2, 2), {10});
  field("loss", scalar("f32"), {})->grad = "loss.grad";
  m.fields.back().needsGrad = true;
  field("loss.grad", scalar("f32"), {})->primal = "loss";
  field("flags", scalar("bool"), {8});
  field("half", scalar("f16"), {4});
  FieldDesc *h = field("h", scalar("i32"), {});
  h->axes = {"i", "j"};
  h->unbounded = true;
  field("p", ValueDesc(), {16})->value.kind = ValueDesc::Kind::Struct;
  m.fields.back().storageText = "Particle";
  m.layoutLines = {"root", "  dense(ij, [256, 256]).place(u)",
                   "  blk = pointer(i, 4)", "    hash(ij, 16).place(h)"};
  m.hasSparse = true;

  auto kernel = [&](std::string n) {
    KernelDesc k;
    k.name = k.symbol = n;
    m.kernels.push_back(k);
    return &m.kernels.back();
  };
  auto param = [](KernelDesc *k, std::string n, ValueDesc v) {
    ParamDesc p;
    p.name = n;
    p.value = v;
    k->params.push_back(p);
  };
  param(kernel("apply"), "scale", scalar("f32"));
  KernelDesc *norm = kernel("norm");
  norm->hasResult = true;
  norm->result = scalar("f32");
  param(kernel("blur"), "img", ndarray(scalar("f32"), 2));
  KernelDesc *mv = kernel("move");
  param(mv, "v", vec("f32", 3));
  param(mv, "A", mat("f32", 2, 2));
  param(mv, "pts", ndarray(vec("f32", 3), 1));
  mv->hasResult = true;
  mv->result = vec("f32", 3);
  KernelDesc *kw = kernel("keywords");
  param(kw, "int", scalar("i64"));
  param(kw, "ctx", scalar("u8"));
  param(kw, "flag", scalar("bool"));
  param(kw, "h", scalar("f16"));
  KernelDesc *inst = kernel("fill_u");
  inst->isInstance = true;
  inst->templateText = "fill(u, 2)";
  param(inst, "value", scalar("f64"));
  finalizeNames(m);
  return m;
}

static int fromMLIR(const char *path, bool json, const std::string &name) {
  mlir::DialectRegistry registry;
  registry.insert<tic::tc::TCDialect, tic::snode::SNodeDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::scf::SCFDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::LLVM::LLVMDialect>();
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(path, &context);
  if (!module) return 1;
  mlir::PassManager pm(&context);
  tic::FieldAccessorsOptions o;
  o.moduleName = name;
  pm.addPass(tic::createAllocateLayout());
  pm.addPass(tic::createGenerateFieldAccessorsPass(o));
  if (mlir::failed(pm.run(*module))) return 1;
  ModuleInterface m;
  if (mlir::failed(tic::readInterface(*module, m))) return 1;
  if (json)
    emitModuleJSON(m, std::cout);
  else
    emitHeader(m, std::cout);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: tic-header-tool sample|roundtrip|mlir FILE [--json] [--name N]\n";
    return 2;
  }
  bool json = false;
  std::string name;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json")) json = true;
    if (!std::strcmp(argv[i], "--name") && i + 1 < argc) name = argv[++i];
  }
  std::string mode = argv[1];
  if (mode == "sample") {
    ModuleInterface m = sample();
    for (const std::string &e : m.errors) std::cerr << "error: " << e << "\n";
    if (json)
      emitModuleJSON(m, std::cout);
    else
      emitHeader(m, std::cout);
    return m.errors.empty() ? 0 : 1;
  }
  if (mode == "roundtrip") {
    std::string a = moduleJSON(sample()), error;
    ModuleInterface back;
    if (!parseModuleJSON(a, back, error)) {
      std::cerr << "parse error: " << error << "\n";
      return 1;
    }
    std::string b = moduleJSON(back);
    std::ostringstream h1, h2;
    emitHeader(sample(), h1);
    emitHeader(back, h2);
    if (a != b || h1.str() != h2.str()) {
      std::cerr << "round trip changed the description\n" << a << "\n---\n" << b;
      return 1;
    }
    std::cout << "roundtrip ok\n";
    return 0;
  }
  if (mode == "clash") {
    ModuleInterface m = sample();
    m.kernels[0].symbol = "create"; // sim_create clashes
    m.fields[0].name = "U";         // SIM_FIELD_U twice? no: "u" is gone
    m.kernels[0].cFunction.clear();
    m.errors.clear();
    finalizeNames(m);
    for (const std::string &e : m.errors) std::cout << "error: " << e << "\n";
    return 0;
  }
  if (mode == "mlir" && argc >= 3) return fromMLIR(argv[2], json, name);
  std::cerr << "tic-header-tool: unknown mode '" << mode << "'\n";
  return 2;
}

//===- HeaderJSON.cpp - MODULE.json and the tic.interface attribute ------===//
//
// The module description as JSON: written beside the header (MODULE.json,
// docs/c-api.md) and carried through the MLIR pipeline in the tic.interface
// attribute, from which it is read back.
//
//===----------------------------------------------------------------------===//

#include "tic/Target/Header.h"

#include "tic/Frontend/CNames.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <sstream>

namespace tic {
namespace iface {

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {

const char *kindName(ValueDesc::Kind k) {
  switch (k) {
  case ValueDesc::Kind::Scalar:
    return "scalar";
  case ValueDesc::Kind::Vector:
    return "vector";
  case ValueDesc::Kind::Matrix:
    return "matrix";
  case ValueDesc::Kind::NDArray:
    return "ndarray";
  case ValueDesc::Kind::Struct:
    return "struct";
  }
  return "scalar";
}

void writeValue(llvm::json::OStream &j, const ValueDesc &v) {
  j.attribute("kind", kindName(v.kind));
  j.attribute("type", v.typeText);
  j.attribute("dtype", v.dtype);
  j.attribute("c_type", cTypeOf(v.dtype));
  if (v.kind == ValueDesc::Kind::Vector || v.kind == ValueDesc::Kind::Matrix ||
      v.kind == ValueDesc::Kind::NDArray) {
    j.attribute("rows", int64_t(v.rows));
    j.attribute("cols", int64_t(v.cols));
  }
  j.attribute("components", int64_t(v.components()));
  if (v.kind == ValueDesc::Kind::NDArray) {
    j.attribute("ndim", int64_t(v.ndim));
    j.attribute("array_ndim", int64_t(v.ndim + v.elementAxes()));
  }
}

} // namespace

void emitModuleJSON(const ModuleInterface &m, std::ostream &os) {
  std::string buf;
  llvm::raw_string_ostream rs(buf);
  {
    llvm::json::OStream j(rs, 2);
    j.object([&] {
      j.attribute("module", m.name);
      j.attribute("source", m.source);
      j.attribute("tic_version", m.ticVersion);
      j.attribute("abi_version", 1);
      j.attribute("default_fp", m.defaultFloat);
      j.attribute("has_sparse", m.hasSparse);
      j.attributeArray("sparse_snodes", [&] {
        for (const SparseNodeDesc &n : m.sparseNodes)
          j.object([&] {
            j.attribute("name", n.name);
            j.attribute("symbol", n.symbol);
          });
      });
      j.attributeArray("constants", [&] {
        for (const ConstantDesc &c : m.constants)
          j.object([&] {
            j.attribute("name", c.name);
            j.attribute("type", c.typeText);
            j.attribute("dtype", c.dtype);
            j.attribute("value", c.valueText);
            j.attribute("c_value", c.cValue);
            j.attribute("overridden", c.overridden);
            if (c.overridden)
              j.attribute("override", c.overrideText);
          });
      });
      j.attributeArray("layout", [&] {
        for (const std::string &l : m.layoutLines)
          j.value(l);
      });
      j.attributeArray("fields", [&] {
        for (const FieldDesc &f : m.fields)
          j.object([&] {
            j.attribute("name", f.name);
            j.attribute("c_name", f.cName);
            j.attribute("id", int64_t(f.id));
            j.attribute("enum", f.enumName);
            j.attribute("place", f.place);
            j.attributeObject("element", [&] { writeValue(j, f.value); });
            j.attribute("storage", f.storageText);
            j.attributeArray("axes", [&] {
              for (const std::string &a : f.axes)
                j.value(a);
            });
            j.attributeArray("shape", [&] {
              for (int64_t s : f.shape)
                j.value(s);
            });
            j.attribute("unbounded", f.unbounded);
            j.attribute("needs_grad", f.needsGrad);
            j.attribute("needs_dual", f.needsDual);
            j.attribute("primal", f.primal);
            j.attribute("grad", f.grad);
            j.attribute("snode", f.snodePath);
            j.attribute("accessors", f.hasAccessors());
            j.attribute("bulk", f.hasBulk());
            if (f.wordBits) {
              // Quantized: the container words (MODULE_f_words_read).
              j.attribute("word_bits", int64_t(f.wordBits));
              j.attributeArray("word_shape", [&] {
                for (int64_t s : f.wordShape)
                  j.value(s);
              });
            }
          });
      });
      j.attributeArray("kernels", [&] {
        for (const KernelDesc &k : m.kernels)
          j.object([&] {
            j.attribute("name", k.name);
            j.attribute("symbol", k.symbol);
            j.attribute("c_function", k.cFunction);
            j.attribute("instance", k.isInstance);
            if (k.isInstance)
              j.attribute("template", k.templateText);
            j.attributeArray("params", [&] {
              for (const ParamDesc &p : k.params)
                j.object([&] {
                  j.attribute("name", p.name);
                  j.attribute("c_name", p.cName);
                  writeValue(j, p.value);
                });
            });
            if (k.hasResult)
              j.attributeObject("result", [&] { writeValue(j, k.result); });
            else
              j.attribute("result", nullptr);
            j.attribute("grad", k.hasGrad);
            j.attribute("fwd", k.hasFwd);
          });
      });
    });
  }
  os << buf << "\n";
}

std::string moduleJSON(const ModuleInterface &m) {
  std::ostringstream os;
  emitModuleJSON(m, os);
  return os.str();
}

namespace {

bool readValue(const llvm::json::Object &o, ValueDesc &v) {
  auto str = [&](llvm::StringRef k) {
    auto s = o.getString(k);
    return s ? s->str() : std::string();
  };
  std::string kind = str("kind");
  if (kind == "scalar")
    v.kind = ValueDesc::Kind::Scalar;
  else if (kind == "vector")
    v.kind = ValueDesc::Kind::Vector;
  else if (kind == "matrix")
    v.kind = ValueDesc::Kind::Matrix;
  else if (kind == "ndarray")
    v.kind = ValueDesc::Kind::NDArray;
  else if (kind == "struct")
    v.kind = ValueDesc::Kind::Struct;
  else
    return false;
  v.typeText = str("type");
  v.dtype = str("dtype");
  v.rows = unsigned(o.getInteger("rows").value_or(1));
  v.cols = unsigned(o.getInteger("cols").value_or(1));
  v.ndim = unsigned(o.getInteger("ndim").value_or(0));
  return true;
}

} // namespace

bool parseModuleJSON(const std::string &text, ModuleInterface &m,
                     std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error = llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root) {
    error = "not a JSON object";
    return false;
  }
  auto str = [](const llvm::json::Object &o, llvm::StringRef k) {
    auto s = o.getString(k);
    return s ? s->str() : std::string();
  };
  m = ModuleInterface();
  m.name = str(*root, "module");
  m.source = str(*root, "source");
  m.ticVersion = str(*root, "tic_version");
  m.defaultFloat = str(*root, "default_fp");
  m.hasSparse = root->getBoolean("has_sparse").value_or(false);
  if (const auto *ns = root->getArray("sparse_snodes"))
    for (const llvm::json::Value &nv : *ns)
      if (const auto *o = nv.getAsObject())
        m.sparseNodes.push_back({str(*o, "name"), str(*o, "symbol")});
  if (const auto *cs = root->getArray("constants"))
    for (const llvm::json::Value &cv : *cs) {
      const auto *o = cv.getAsObject();
      if (!o)
        continue;
      ConstantDesc c;
      c.name = str(*o, "name");
      c.typeText = str(*o, "type");
      c.dtype = str(*o, "dtype");
      c.valueText = str(*o, "value");
      c.cValue = str(*o, "c_value");
      c.overridden = o->getBoolean("overridden").value_or(false);
      c.overrideText = str(*o, "override");
      m.constants.push_back(std::move(c));
    }
  if (const auto *ls = root->getArray("layout"))
    for (const llvm::json::Value &l : *ls)
      if (auto s = l.getAsString())
        m.layoutLines.push_back(s->str());
  if (const auto *fs = root->getArray("fields"))
    for (const llvm::json::Value &fv : *fs) {
      const auto *o = fv.getAsObject();
      if (!o) {
        error = "field is not an object";
        return false;
      }
      FieldDesc f;
      f.name = str(*o, "name");
      f.cName = str(*o, "c_name");
      f.id = unsigned(o->getInteger("id").value_or(m.fields.size()));
      f.enumName = str(*o, "enum");
      f.place = str(*o, "place");
      const auto *e = o->getObject("element");
      if (!e || !readValue(*e, f.value)) {
        error = "field '" + f.name + "': bad element";
        return false;
      }
      f.storageText = str(*o, "storage");
      if (const auto *a = o->getArray("axes"))
        for (const auto &x : *a)
          if (auto s = x.getAsString())
            f.axes.push_back(s->str());
      if (const auto *a = o->getArray("shape"))
        for (const auto &x : *a)
          if (auto i = x.getAsInteger())
            f.shape.push_back(*i);
      f.unbounded = o->getBoolean("unbounded").value_or(false);
      f.needsGrad = o->getBoolean("needs_grad").value_or(false);
      f.needsDual = o->getBoolean("needs_dual").value_or(false);
      f.primal = str(*o, "primal");
      f.grad = str(*o, "grad");
      f.snodePath = str(*o, "snode");
      f.wordBits = unsigned(o->getInteger("word_bits").value_or(0));
      if (const auto *a = o->getArray("word_shape"))
        for (const auto &x : *a)
          if (auto i = x.getAsInteger())
            f.wordShape.push_back(*i);
      m.fields.push_back(std::move(f));
    }
  if (const auto *ks = root->getArray("kernels"))
    for (const llvm::json::Value &kv : *ks) {
      const auto *o = kv.getAsObject();
      if (!o) {
        error = "kernel is not an object";
        return false;
      }
      KernelDesc k;
      k.name = str(*o, "name");
      k.symbol = str(*o, "symbol");
      k.cFunction = str(*o, "c_function");
      k.isInstance = o->getBoolean("instance").value_or(false);
      k.templateText = str(*o, "template");
      if (const auto *ps = o->getArray("params"))
        for (const auto &pv : *ps) {
          const auto *po = pv.getAsObject();
          ParamDesc p;
          if (!po || !readValue(*po, p.value)) {
            error = "kernel '" + k.name + "': bad parameter";
            return false;
          }
          p.name = str(*po, "name");
          p.cName = str(*po, "c_name");
          k.params.push_back(std::move(p));
        }
      if (const auto *r = o->getObject("result")) {
        k.hasResult = true;
        if (!readValue(*r, k.result)) {
          error = "kernel '" + k.name + "': bad result";
          return false;
        }
      }
      k.hasGrad = o->getBoolean("grad").value_or(false);
      k.hasFwd = o->getBoolean("fwd").value_or(false);
      m.kernels.push_back(std::move(k));
    }
  m.upperName = macroCase(m.name);
  return true;
}

} // namespace iface
} // namespace tic

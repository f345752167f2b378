//===- Interface.cpp - tic.interface attribute, registration, driver API --===//

#include "tic/Target/Interface.h"

#include "tic/Dialect/SNode/SNodeDialect.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace tic {
namespace detail {
void registerGenerateFieldAccessorsPass();
void registerGenerateCEntryPointsPass();
} // namespace detail

void attachInterface(ModuleOp module, const iface::ModuleInterface &m) {
  module->setAttr(kInterfaceAttrName,
                  StringAttr::get(module.getContext(), iface::moduleJSON(m)));
}

LogicalResult readInterface(ModuleOp module, iface::ModuleInterface &m) {
  auto attr = module->getAttrOfType<StringAttr>(kInterfaceAttrName);
  if (!attr)
    return module.emitError("missing the '")
           << kInterfaceAttrName
           << "' attribute (run tic-generate-field-accessors first)";
  std::string error;
  if (!iface::parseModuleJSON(attr.getValue().str(), m, error))
    return module.emitError("malformed '") << kInterfaceAttrName << "': " << error;
  return success();
}

void registerInterfacePasses() {
  detail::registerGenerateFieldAccessorsPass();
  detail::registerGenerateCEntryPointsPass();
}

LogicalResult prepareCInterface(ModuleOp module, const iface::ModuleInterface &m) {
  if (!m.errors.empty()) {
    for (const std::string &e : m.errors) module.emitError(e);
    return failure();
  }
  attachInterface(module, m);
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  FieldAccessorsOptions o;
  o.moduleName = m.name;
  pm.addPass(createGenerateFieldAccessorsPass(o));
  return pm.run(module);
}

LogicalResult finalizeCInterface(ModuleOp module) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  pm.addPass(createGenerateCEntryPointsPass());
  return pm.run(module);
}

} // namespace tic

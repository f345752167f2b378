//===- ADDialect.cpp - the ad dialect -------------------------------------===//
#include "tic/Dialect/AD/ADDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace tic;
using namespace tic::ad;

#include "tic/Dialect/AD/ADDialect.cpp.inc"

void ADDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tic/Dialect/AD/ADOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "tic/Dialect/AD/ADOps.cpp.inc"

LogicalResult RecordAccessOp::verify() {
  StringRef k = getKind();
  if (k != "read" && k != "write" && k != "accumulate")
    return emitOpError("kind must be \"read\", \"write\" or \"accumulate\", "
                       "got \"")
           << k << "\"";
  if (getCount() <= 0)
    return emitOpError("count must be positive, got ") << getCount();
  return success();
}

LogicalResult ADDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  StringRef opName = op->getName().getStringRef();
  if (name == kGradAttrName || name == kDualAttrName) {
    auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
    if (!ref)
      return op->emitError("'") << name << "' must be a flat symbol reference";
    if (opName != "snode.place")
      return op->emitError("'") << name << "' belongs on snode.place";
    // The adjoint place: another place of the same tree, same components.
    Operation *tree = op->getParentOp();
    while (tree && tree->getName().getStringRef() != "snode.tree")
      tree = tree->getParentOp();
    if (!tree)
      return success();        // the place's own verifier reports the nesting
    Operation *grad = nullptr; // places nest in the tree's containers
    tree->walk([&](Operation *p) {
      if (p->getName().getStringRef() == "snode.place" &&
          p->getAttr(SymbolTable::getSymbolAttrName()) == ref.getAttr())
        grad = p;
    });
    if (!grad || grad->getName().getStringRef() != "snode.place")
      return op->emitError("'") << name << "' names " << ref
                                << ", which is not a place of this tree";
    if (grad == op)
      return op->emitError("'") << name << "' names the place itself";
    if (grad->getAttr("components") != op->getAttr("components"))
      return op->emitError("the companion place ")
             << ref << " has other components than " << op->getAttr("sym_name");
    return success();
  }
  if (name == kDifferentiableAttrName || name == kForwardAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError("'") << name << "' is a unit attribute";
    if (opName != "tc.kernel")
      return op->emitError("'") << name << "' belongs on tc.kernel";
    if (op->hasAttr(kGradOfAttrName))
      return op->emitError("a custom gradient (ad.grad_of) is not itself "
                           "differentiated");
    return success();
  }
  if (name == kGradOfAttrName || name == kAdjointOfAttrName ||
      name == kTangentOfAttrName) {
    if (!isa<FlatSymbolRefAttr>(attr.getValue()))
      return op->emitError("'") << name << "' must be a flat symbol reference";
    if (opName != "tc.kernel")
      return op->emitError("'") << name << "' belongs on tc.kernel";
    return success();
  }
  return op->emitError("unknown ad attribute '") << name << "'";
}

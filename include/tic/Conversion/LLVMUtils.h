//===- LLVMUtils.h - Helpers for passes that emit the LLVM dialect -*- C++ -*-===//
//
// Shared by the tc lowering (tic-lower-field-access, convert-tc-to-llvm) and
// the C interface generator (tic-generate-c-entry-points): runtime function
// declarations, module-level string constants, and the atomic operation
// that implements each `tc` atomic kind. Header-only, so the libraries that
// use it keep their link dependencies.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_CONVERSION_LLVMUTILS_H
#define TIC_CONVERSION_LLVMUTILS_H

#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ErrorHandling.h"

#include <string>

namespace tic {

/// The declaration of the runtime function `name` (libtic_runtime, rt.h) in
/// `module`, created at the end of the module on first use.
inline mlir::LLVM::LLVMFuncOp
declareRuntimeFunc(mlir::ModuleOp module, llvm::StringRef name,
                   mlir::Type result, llvm::ArrayRef<mlir::Type> args,
                   bool vararg = false) {
  if (auto f = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(name))
    return f;
  auto b = mlir::OpBuilder::atBlockEnd(module.getBody());
  return mlir::LLVM::LLVMFuncOp::create(
      b, module.getLoc(), name,
      mlir::LLVM::LLVMFunctionType::get(result, args, vararg));
}

/// The runtime functions one pass declares, looked up in the module once per
/// name (ModuleOp::lookupSymbol scans the module: looking up per use made
/// modules with thousands of functions compile in quadratic time).
class RuntimeFunctions {
public:
  explicit RuntimeFunctions(mlir::ModuleOp module) : module(module) {}
  mlir::LLVM::LLVMFuncOp get(llvm::StringRef name, mlir::Type result,
                             llvm::ArrayRef<mlir::Type> args,
                             bool vararg = false) {
    mlir::LLVM::LLVMFuncOp &f = cache[name];
    if (!f)
      f = declareRuntimeFunc(module, name, result, args, vararg);
    return f;
  }

private:
  mlir::ModuleOp module;
  llvm::StringMap<mlir::LLVM::LLVMFuncOp> cache;
};

/// NUL-terminated string constants of one module, one internal global per
/// distinct text, named `<prefix><n>` (each pass uses its own prefix).
class GlobalStrings {
public:
  GlobalStrings(mlir::ModuleOp module, std::string prefix)
      : module(module), prefix(std::move(prefix)) {}

  /// The address of the global holding `text`.
  mlir::Value get(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef text) {
    std::string &name = names[text];
    if (name.empty()) {
      name = prefix + std::to_string(names.size() - 1);
      auto gb = mlir::OpBuilder::atBlockBegin(module.getBody());
      std::string data = text.str();
      data.push_back('\0');
      auto ty = mlir::LLVM::LLVMArrayType::get(gb.getI8Type(), data.size());
      mlir::LLVM::GlobalOp::create(gb, loc, ty, /*isConstant=*/true,
                                   mlir::LLVM::Linkage::Internal, name,
                                   gb.getStringAttr(data), /*alignment=*/1);
    }
    return mlir::LLVM::AddressOfOp::create(
        b, loc, mlir::LLVM::LLVMPointerType::get(b.getContext()), name);
  }

private:
  mlir::ModuleOp module;
  std::string prefix;
  llvm::StringMap<std::string> names;
};

template <typename Kind>
inline mlir::LLVM::AtomicBinOp toLLVMAtomicBinOpImpl(Kind kind, mlir::Type t) {
  using mlir::LLVM::AtomicBinOp;
  bool f = mlir::isa<mlir::FloatType>(t);
  switch (kind) {
  case Kind::add:
    return f ? AtomicBinOp::fadd : AtomicBinOp::add;
  case Kind::sub:
    return f ? AtomicBinOp::fsub : AtomicBinOp::sub;
  case Kind::min:
    return f ? AtomicBinOp::fmin : AtomicBinOp::min;
  case Kind::max:
    return f ? AtomicBinOp::fmax : AtomicBinOp::max;
  case Kind::and_:
    return AtomicBinOp::_and;
  case Kind::or_:
    return AtomicBinOp::_or;
  case Kind::xor_:
    return AtomicBinOp::_xor;
  }
  llvm_unreachable("unknown atomic kind");
}

/// The LLVM atomicrmw operation of a tc (ndarray) or snode (field) atomic
/// kind on values of type `t` (the two enums have the same cases).
inline mlir::LLVM::AtomicBinOp toLLVMAtomicBinOp(tc::AtomicKind kind,
                                                 mlir::Type t) {
  return toLLVMAtomicBinOpImpl(kind, t);
}
inline mlir::LLVM::AtomicBinOp toLLVMAtomicBinOp(snode::AtomicKind kind,
                                                 mlir::Type t) {
  return toLLVMAtomicBinOpImpl(kind, t);
}

} // namespace tic

#endif // TIC_CONVERSION_LLVMUTILS_H

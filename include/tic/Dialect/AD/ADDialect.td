//===- ADDialect.td - the ad dialect -----------------------*- tablegen -*-===//
//
// Automatic differentiation of tc kernels (DiffTaichi): the attributes that
// tie a field to its adjoint and a kernel to its adjoint kernel, and the ops
// the reverse-mode transformation leaves behind. docs/autodiff.md gives the
// rules, docs/dialects.md the ops.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_AD_DIALECT_TD
#define TIC_DIALECT_AD_DIALECT_TD

include "mlir/IR/OpBase.td"

def AD_Dialect : Dialect {
  let name = "ad";
  let cppNamespace = "::tic::ad";
  let summary = "Reverse-mode differentiation of tc kernels";
  let description = [{
    Discardable attributes (verified by the dialect):

    - `ad.grad = @x.grad` on an `snode.place`: the place of that field's
      adjoint (a field declared `needs_grad`). It must name another place of
      the same snode.tree with the same components.
    - `ad.differentiable` on a `tc.kernel`: tic-reverse-mode generates its
      adjoint kernel `@<kernel>_grad` (the C entry MODULE_<kernel>_grad), with the same parameters.
    - `ad.grad_of = @k` on a `tc.kernel`: a custom gradient; it becomes the
      adjoint kernel of `@k` instead of a generated one.
    - `ad.adjoint_of = @k` on the kernels tic-reverse-mode generates.
    - `ad.dual = @x.dual` on an `snode.place`: the place of that field's
      tangent (a field declared `needs_dual`), like `ad.grad`.
    - `ad.forward` on a `tc.kernel`: tic-forward-mode generates
      `@<kernel>_fwd`, computing the primal and the tangents (C entry
      MODULE_<kernel>_fwd); the generated kernel carries `ad.tangent_of`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kGradAttrName = "ad.grad";
    static constexpr ::llvm::StringLiteral kDifferentiableAttrName =
        "ad.differentiable";
    static constexpr ::llvm::StringLiteral kGradOfAttrName = "ad.grad_of";
    static constexpr ::llvm::StringLiteral kAdjointOfAttrName =
        "ad.adjoint_of";
    static constexpr ::llvm::StringLiteral kDualAttrName = "ad.dual";
    static constexpr ::llvm::StringLiteral kForwardAttrName = "ad.forward";
    static constexpr ::llvm::StringLiteral kTangentOfAttrName =
        "ad.tangent_of";
    /// The symbol of the forward-mode version of kernel `name`.
    static std::string tangentKernelName(::llvm::StringRef name) {
      return (name + "_fwd").str();
    }
    /// The symbol of the adjoint kernel of kernel `name`.
    static std::string adjointKernelName(::llvm::StringRef name) {
      return (name + "_grad").str();
    }
  }];
}

class AD_Op<string mnemonic, list<Trait> traits = []>
    : Op<AD_Dialect, mnemonic, traits>;

#endif

//===- Passes.td - ad dialect transforms -------------------*- tablegen -*-===//
#ifndef TIC_DIALECT_AD_PASSES_TD
#define TIC_DIALECT_AD_PASSES_TD

include "mlir/Pass/PassBase.td"

def PromoteLocals : Pass<"tic-promote-locals", "::mlir::ModuleOp"> {
  let summary = "Promote the scalar locals of kernels to SSA values";
  let description = [{
    Local store forwarding (DiffTaichi's second preprocessing step): every
    rank-0 `memref.alloca` of a kernel whose loads and stores sit in the
    kernel's blocks or in scf.if / scf.for / scf.while regions becomes SSA
    values. A local assigned in a branch becomes a result of the scf.if;
    one assigned in a loop becomes a loop-carried value of the scf.for or
    scf.while. Locals used inside a parallel loop they are declared outside
    of, or through any other region, stay in memory.

    tic-reverse-mode runs this on its copy of each kernel; the pass exists
    to test it (`only-differentiable` restricts it to kernels marked
    `ad.differentiable`).
  }];
  let options = [Option<"onlyDifferentiable", "only-differentiable", "bool",
                        "false", "only kernels marked ad.differentiable">];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def ReverseMode : Pass<"tic-reverse-mode", "::mlir::ModuleOp"> {
  let summary = "Generate the reverse-mode adjoint of every differentiable kernel";
  let description = [{
    For each `tc.kernel @k` marked `ad.differentiable`, builds
    `tc.kernel @k_grad` with the same parameters (DiffTaichi, thesis 3.1):

    1. a copy of `@k` has its locals promoted to SSA (tic-promote-locals),
       and the differentiable kernel-level values a parallel loop uses are
       recomputed inside it;
    2. every block is re-emitted without its global stores (recomputation
       of the primal values instead of storing them), then walked in
       reverse, accumulating adjoints by the derivative table of
       docs/autodiff.md. A load of a `needs_grad` field becomes an atomic
       add into its adjoint field; a store `y[I] = e` passes `y.grad[I]` to
       `e` and zeroes `y.grad[I]`; `y[I] += e` passes `y.grad[I]` to `e`.
    3. parallel loops keep their ranges and struct-for targets; serial
       scf.for loops run backwards; an scf.if is differentiated per branch
       under the same condition (only the taken branch is evaluated, so an
       untaken branch's inf or NaN never reaches a gradient); select gets
       `select(c, g, 0)` / `select(c, 0, g)`.

    A kernel marked `ad.grad_of = @k` becomes `@k_grad` instead (a custom
    gradient). A serial loop that carries values (a local assigned in
    it) keeps them in an adjoint stack: one slot per iteration and carried
    value, a memref.alloca in the entry block of the parallel loop body (or
    kernel), filled by the recomputed loop and read back by the reversed
    one. A constant trip count sizes it exactly; otherwise it has
    `stack-size` slots and a longer loop fails the launch (tc.assert).

    A while loop (or a for loop with a break) is counted and its condition
    region's arguments stacked the same way; its adjoint runs over the
    counted iterations backwards.

    What cannot be differentiated (a return inside differentiable code,
    atomic min/max on a differentiable field, a used atomic result, an
    operation without a derivative) is an error at the operation.
  }];
  let options = [Option<"stackSize", "stack-size", "int64_t", "256",
                        "slots of an adjoint stack whose loop has no "
                        "constant trip count">];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ForwardMode : Pass<"tic-forward-mode", "::mlir::ModuleOp"> {
  let summary = "Generate the forward-mode version of every kernel marked ad.forward";
  let description = [{
    For each `tc.kernel @k` marked `ad.forward`, builds `tc.kernel @k_fwd`:
    the primal kernel, with the tangent (directional derivative) of every
    float value computed beside it by the same derivative table as reverse
    mode (Jacobian-vector products). A load of a `needs_dual` field gives the
    tangent `x.dual[I]`; a store `y[I] = e` also stores the tangent of `e`
    into `y.dual[I]`; `y[I] += e` adds it. A local variable gets a tangent
    local beside it, so branches and loops need no special handling. The
    host seeds the inputs' duals (Taichi's FwdMode); scalar parameters have
    no tangent.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ValidateAccessRules : Pass<"tic-validate-access-rules", "::mlir::ModuleOp"> {
  let summary = "Instrument differentiable kernels to check the global data access rules at run time";
  let description = [{
    With `tic -g`: before every read, write and accumulation of a
    `needs_grad` field in a kernel marked `ad.differentiable`, an
    `ad.record_access` with the element's linear index. While a tape
    records, the runtime then catches the violations no static check sees
    (across kernels, or through indices that alias). Fields below a hash
    node are not checked (their index space is unbounded).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::tic::ad::ADDialect"];
}

#endif

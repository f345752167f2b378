//===- ADOps.td - ad operations ----------------------------*- tablegen -*-===//
#ifndef TIC_DIALECT_AD_OPS_TD
#define TIC_DIALECT_AD_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tic/Dialect/AD/ADDialect.td"

def AD_RecordAccessOp : AD_Op<"record_access"> {
  let summary = "records an access to a differentiable field element (-g)";
  let description = [{
    The run-time validation of the global data access rules
    (tic-validate-access-rules, with `tic -g`): before each read, write or
    accumulation of a `needs_grad` field in a kernel that has an adjoint,

    ```mlir
    ad.record_access "write" @y[%linear] {count = 64 : i64, kernel = "k"}
    ```

    tells the runtime (`tic_rt_ad_record_access`) that kernel `kernel` makes
    a `kind` access ("read", "write" or "accumulate") to element `%linear`
    (row-major over the field's index space, components innermost) of the
    `count` scalars of `@y`. While a tape records, the runtime reports a
    write after a write, an accumulation or a read, and an accumulation
    after a read, as a kernel failure naming the kernel, the field and the
    element. Targets without the runtime service drop it (CUDA).
  }];
  let arguments = (ins StrAttr:$kind, FlatSymbolRefAttr:$field, I64:$index,
                       I64Attr:$count, StrAttr:$kernel);
  let assemblyFormat = "$kind $field `[` $index `]` attr-dict";
  let hasVerifier = 1;
}

#endif

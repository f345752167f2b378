//===- TCOps.td - tc operations: kernels, loops, field access ---*- tablegen -*-===//
//===----------------------------------------------------------------------===//

#ifndef TIC_DIALECT_TC_TCOPS_TD
#define TIC_DIALECT_TC_TCOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "tic/Dialect/TC/TCDialect.td"
include "tic/Dialect/TC/TCTypes.td"
include "tic/Dialect/TC/TCAttrs.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"

def TC_Scalar : AnyTypeOf<[AnySignlessInteger, AnyFloat]>;
def TC_Index : I<32>;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def TC_KernelOp : TC_Op<"kernel", [FunctionOpInterface, IsolatedFromAbove,
                                   AutomaticAllocationScope]> {
  let summary = "an entry point callable from C";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
}

def TC_ReturnOp : TC_Op<"return", [Pure, ParentOneOf<["KernelOp", "TaskOp"]>,
                                   ReturnLike, Terminator]> {
  let summary = "returns from a kernel or a task";
  let arguments = (ins Variadic<TC_Scalar>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

def TC_ParallelForOp : TC_Op<"parallel_for", [AttrSizedOperandSegments,
    RecursiveMemoryEffects]> {
  let summary = "parallel loop over a rectangular index range";
  let description = [{
    ```mlir
    tc.parallel_for (%i, %j) = (%c0, %c0) to (%n, %c4) { ... tc.yield }
    tc.parallel_for (%e, %j) = (%c0, %c0) to (%cap, %c4) limit {
      %k = tc.hash_entries @h : i32
      tc.yield %k : i32
    } { ... tc.yield }
    ```

    Runs its body once for every index in the rectangle, in parallel.

    With a `limit` region, iterations whose first induction variable is at
    or past the value it yields do nothing. The region is evaluated where
    the iterations run (once per task instance: on a GPU, by each device
    thread), so the host's upper bound may be an estimate it knows without
    reading device memory (tic-lower-struct-for's hash loops on a GPU:
    snode.pool_bound). It may read memory but not write it, and must yield
    the same value wherever the loop's iterations evaluate it.

    `host_only`: the loop runs only where its kernel's context is on the
    CPU (host code guards it with `tc.on_device`). An object that also
    runs on a GPU gets no device code for it: tic-privatize-scatter's loops
    in the host module of a --target=host,cuda object.
  }];
  let arguments = (ins Variadic<AnySignlessInteger>:$lowerBounds,
                       Variadic<AnySignlessInteger>:$upperBounds,
                       UnitAttr:$serialize,
                       OptionalAttr<I32Attr>:$parallelize,
                       OptionalAttr<I32Attr>:$block_dim,
                       OptionalAttr<I64Attr>:$grain,
                       UnitAttr:$host_only);
  let regions = (region AnyRegion:$body, AnyRegion:$limit);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::ValueRange":$lowerBounds,
                                 "::mlir::ValueRange":$upperBounds)>];
  let extraClassDeclaration = [{
    /// A serialized loop of one iteration, (0) to (1) in i32, its body
    /// just a tc.yield: code that must run in a task (on a GPU context,
    /// one device thread) rather than on the host.
    static ParallelForOp createSerialUnit(::mlir::OpBuilder &b,
                                         ::mlir::Location loc);
    unsigned getRank() { return getLowerBounds().size(); }
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().front().getArguments();
    }
    /// The value the `limit` region yields; null without one.
    ::mlir::Value getLimitValue();
    /// Gives the loop an empty `limit` block (no arguments, no
    /// terminator yet: end it with a tc.yield of the limit).
    ::mlir::Block *createLimitBlock();
  }];
}

def TC_StructForOp : TC_Op<"struct_for", [RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "parallel loop over the active cells of a field or SNode";
  let description = [{
    `block_local = [@a, @b]` records the loop's `block_local(a, b)` hint
    (tic-block-local): the fields to read through a buffer per block of
    the loop's cells.
  }];
  let arguments = (ins FlatSymbolRefAttr:$target,
                       UnitAttr:$serialize,
                       OptionalAttr<I32Attr>:$parallelize,
                       OptionalAttr<I32Attr>:$block_dim,
                       OptionalAttr<I64Attr>:$grain,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$block_local);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().front().getArguments();
    }
  }];
}

def TC_BlockForOp : TC_Op<"block_for", [RecursiveMemoryEffects]> {
  let summary = "a loop the threads running one parallel iteration share";
  let description = [{
    ```mlir
    tc.block_for (%t0, %t1) to (10, 10) { ... }
    tc.block_for (%k) to (%n) { ... }
    ```

    Runs its body for every index in `[0, 10) x [0, 10)` (i32 induction
    variables), the indices divided among the threads that run the
    enclosing parallel loop's current iteration together, and ends when
    every one of them has finished: what the body wrote to a
    `tc.block_buffer` is then visible to all of them. On a GPU those
    threads are a block (a grid-stride loop over the block's threads, then
    a barrier); on a CPU a single thread, which runs the indices in order.
    An extent may be an i32 value (the same for all of the iteration's
    threads; none run when it is not positive): the elements of a dynamic
    list. Made by tic-block-local; every thread of a block reaches each
    `tc.block_for` of the iteration (the ops around it are the same for all
    of them), and block_for loops do not nest.
  }];
  let arguments = (ins Variadic<I32>:$dynamicExtents,
                       DenseI64ArrayAttr:$extents);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$extents), [{
    build($_builder, $_state, ::mlir::ValueRange{}, extents);
  }]>];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().front().getArguments();
    }
    /// The extents as values (constants where static), at `b`'s point.
    ::llvm::SmallVector<::mlir::Value> getExtentValues(::mlir::OpBuilder &b);
  }];
}

def TC_BlockBufferOp : TC_Op<"block_buffer", [
    MemoryEffects<[MemAlloc<AutomaticAllocationScopeResource>]>]> {
  let summary = "memory shared by the threads of one parallel iteration";
  let description = [{
    `%b = tc.block_buffer : memref<10x10xf32>`: a buffer private to the
    threads that run the enclosing parallel loop's current iteration
    together (GPU: shared memory of the block; CPU: the thread's stack),
    its contents undefined at the start of each iteration. `tc.block_for`
    loops fill and read it. Made by tic-block-local.
  }];
  let results = (outs MemRefRankOf<[AnySignlessInteger, AnyFloat], [1, 2, 3, 4, 5, 6, 7, 8]>:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def TC_AssumeInRangeOp : TC_Op<"assume_in_range", [Pure,
    AllTypesMatch<["value", "base", "result"]>]> {
  let summary = "a value, promised to lie in [base + lo, base + hi)";
  let description = [{
    `%r = tc.assume_in_range %x, %base, -2, 3 : i32` is `%x`, which the
    program promises lies in `[%base - 2, %base + 3)`
    (`assume_in_range(x, base, lo, hi)`): tic-block-local bounds the
    footprint of an access indexed by it when `%base` is the loop's index
    plus a constant, and then drops every such op (its value is `%x`). The
    promise is not checked.
  }];
  let arguments = (ins AnySignlessInteger:$value, AnySignlessInteger:$base,
                       I64Attr:$lo, I64Attr:$hi);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$value `,` $base `,` $lo `,` $hi attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TC_TaskOp : TC_Op<"task", [Symbol, IsolatedFromAbove,
    AutomaticAllocationScope]> {
  let summary = "the body of a parallel loop, outlined: a chunk of its iterations";
  let description = [{
    Made by `tic-outline-tasks` from a `tc.parallel_for`:

    ```mlir
    tc.task @k__par0 {
    ^bb0(%begin: i64, %end: i64, %a: f32, %n: i32):
      ... runs iterations [%begin, %end) of the loop, numbered row-major
          over its index range, with the loop's captured values %a, %n ...
      tc.return
    }
    ```

    The entry block's first two arguments are the range of linear iteration
    numbers; the others are the values the loop used from its kernel, in the
    order of the `tc.launch` operands. A target decides how a launch splits
    the range (CPU: chunks of a thread pool; GPU: threads of a grid) and
    where the context and the thread index come from (they stay implicit, as
    in a kernel). The body has one block; it returns with `tc.return`.

    The loop over the range is marked `tc.iterations` (by tic-outline-tasks):
    the ops before it run once per task instance (private accumulators, loop
    invariants), the ops after it once at the end (the accumulators' single
    atomic). A target may run the marked loop on several ranges per instance
    (a GPU thread on each of its grid-stride iterations) between one
    prologue and one epilogue.

    A loop with a `limit` computes it in the prologue and runs its range up
    to `%stop = arith.minsi %end, %limit {tc.range_end}` (the iterations
    before the limit's, numbered as the launch numbers them): a target that
    runs the marked loop on several ranges stops them all at `%limit`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getBegin() { return getBody().getArgument(0); }
    ::mlir::Value getEnd() { return getBody().getArgument(1); }
    ::mlir::Block::BlockArgListType getCaptures() {
      return getBody().front().getArguments().drop_front(2);
    }
    /// The discardable attribute that marks the loop over the range.
    static ::llvm::StringRef getIterationsAttrName() { return "tc.iterations"; }
    /// The discardable attribute of the arith.minsi that stops the range at
    /// the loop's limit (its second operand).
    static ::llvm::StringRef getRangeEndAttrName() { return "tc.range_end"; }
  }];
}

def TC_LaunchOp : TC_Op<"launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs a task over iterations [0, %total) of its loop";
  let description = [{
    `tc.launch @k__par0(%a, %n) total %t : f32, i32` runs the task on every
    linear iteration number in `[0, %t)` and returns when all are done. With
    `serialize` the iterations run in order on the calling thread; `grain`
    and `block_dim` are the loop's `loop_config` hints.

    ```mlir
    tc.launch @k__par1(%n) total %t : i32 limit {
      %k = tc.hash_entries @h : i32
      ...
      tc.yield %stop : i64
    }
    ```

    The loop of a task with a `limit` (tic-outline-tasks, from the
    tc.parallel_for's) stops itself; the launch carries the same stop, as a
    linear iteration number, for a target that can evaluate it where the
    launch starts: a CPU, whose memory the host reads. It then launches
    `[0, min(%t, %stop))` only, and its threads share the iterations that
    run, where they would share every iteration up to `%t` and leave the
    work to the first threads. A target whose memory the host cannot read
    (a GPU context) ignores it: the task stops itself. The region reads
    memory but does not write it (the tc.parallel_for's limit, moved).

    `host_only` (a `host_only` loop's): the launch runs on the CPU only;
    a target that also launches on a GPU has no kernel for its task.
  }];
  let arguments = (ins FlatSymbolRefAttr:$task, I64:$total,
                       Variadic<AnyType>:$captures, UnitAttr:$serialize,
                       OptionalAttr<I64Attr>:$grain,
                       OptionalAttr<I32Attr>:$block_dim,
                       UnitAttr:$host_only);
  let regions = (region AnyRegion:$limit);
  let assemblyFormat = [{
    $task `(` $captures `)` `total` $total attr-dict (`:` type($captures)^)?
    (`limit` $limit^)?
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The stop the `limit` region yields (i64); null without one.
    ::mlir::Value getLimitValue();
  }];
}

def TC_YieldOp : TC_Op<"yield", [Pure, Terminator,
    ParentOneOf<["ParallelForOp", "StructForOp", "BlockForOp", "LaunchOp"]>]> {
  let summary = "ends one iteration of a parallel loop, or yields its limit";
  let description = [{
    Ends a loop's body (no values), a tc.parallel_for's `limit` region
    (one integer of the loop's index type) or a tc.launch's (one i64).
  }];
  let arguments = (ins Variadic<AnySignlessInteger>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Field access
//===----------------------------------------------------------------------===//

def TC_LoadOp : TC_Op<"load", [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    MemoryEffects<[MemRead]>]> {
  let summary = "reads one component of a field element";
  let arguments = (ins FlatSymbolRefAttr:$field, Variadic<TC_Index>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$comp);
  let results = (outs TC_Scalar:$result);
  let assemblyFormat = "$field `[` $indices `]` attr-dict `:` type($result)";
}

def TC_StoreOp : TC_Op<"store", [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    MemoryEffects<[MemWrite]>]> {
  let summary = "writes one component of a field element";
  let arguments = (ins TC_Scalar:$value, FlatSymbolRefAttr:$field,
                       Variadic<TC_Index>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$comp);
  let assemblyFormat =
      "$value `,` $field `[` $indices `]` attr-dict `:` type($value)";
}

def TC_AtomicRMWOp : TC_Op<"atomic_rmw", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    MemoryEffects<[MemRead, MemWrite]>,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "atomic read-modify-write of a field component; yields the old value";
  let arguments = (ins TC_AtomicKind:$kind, TC_Scalar:$value,
                       FlatSymbolRefAttr:$field, Variadic<TC_Index>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$comp);
  let results = (outs TC_Scalar:$result);
  let assemblyFormat =
      "$kind $value `,` $field `[` $indices `]` attr-dict `:` type($value)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Sparse structure: the cells of a container SNode, by its own cell indices
//===----------------------------------------------------------------------===//

class TC_CellOp<string mnemonic, list<Trait> traits = []>
    : TC_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<SymbolUserOpInterface>])> {
  let arguments = (ins FlatSymbolRefAttr:$node, Variadic<TC_Index>:$indices);
}

def TC_IsActiveOp : TC_CellOp<"is_active", [MemoryEffects<[MemRead]>]> {
  let summary = "whether a cell of a container SNode is active";
  let description = [{
    `tc.is_active @b[%i, %j] : i1` takes the node's own cell indices (the
    indices a struct-for over the node binds). Cells of always-active nodes
    (dense) are active; a cell under an inactive ancestor is not.
    tic-lower-field-access lowers it to lookups and `snode.is_active`.
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "$node `[` $indices `]` attr-dict `:` type($result)";
}

def TC_ActivateOp : TC_CellOp<"activate", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "activates a cell of a sparse SNode and its ancestors";
  let description = [{
    `tc.activate @b[%i, %j]`: as a write to a field under the cell would
    (activating lookups down to the node), without writing a value. Only on
    nodes that can be inactive (pointer, bitmasked, hash, dynamic).
  }];
  let assemblyFormat = "$node `[` $indices `]` attr-dict";
}

def TC_DeactivateOp : TC_CellOp<"deactivate", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "deactivates a cell of a sparse SNode (and its subtree)";
  let description = [{
    `tc.deactivate @b[%i, %j]`: later reads of fields under the cell see 0,
    and a later write activates it again with every value 0. Only on nodes
    that can be inactive.
  }];
  let assemblyFormat = "$node `[` $indices `]` attr-dict";
}

def TC_AppendOp : TC_CellOp<"append", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "reserves the next element of a dynamic list";
  let description = [{
    `%k = tc.append @d[%i] : i32` takes the indices of the list: the dynamic
    node's cell indices without its own (last) axis. It activates the list's
    ancestors, reserves element `%k` (the old length) and allocates its
    storage; the caller stores into `@x[%i, %k]` with `tc.active = @d`. A
    full list yields a value no smaller than the node's length (nothing is
    reserved). Code generation emits it for `x[i].append(v)`.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "$node `[` $indices `]` attr-dict `:` type($result)";
}

def TC_LengthOp : TC_CellOp<"length", [MemoryEffects<[MemRead]>]> {
  let summary = "the length of a dynamic list";
  let description = [{
    `%n = tc.length @d[%i] : i32` takes the indices of the list (the dynamic
    node's cell indices without its own axis); 0 when an ancestor is
    inactive. `x[i].length()`.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "$node `[` $indices `]` attr-dict `:` type($result)";
}

def TC_HashEntriesOp : TC_Op<"hash_entries", [MemoryEffects<[MemRead]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the number of entries a hash node has allocated";
  let description = [{
    `%n = tc.hash_entries @h : i32`: entries `0 .. %n - 1` of hash node `@h`
    (`tc.hash_entry`) are every cell it ever held, active or not. A
    struct-for over a path with a hash node runs over them
    (tic-lower-struct-for).
  }];
  let arguments = (ins FlatSymbolRefAttr:$node);
  let results = (outs I32:$result);
  let assemblyFormat = "$node attr-dict `:` type($result)";
}

def TC_HashEntryOp : TC_Op<"hash_entry", [MemoryEffects<[MemRead]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "whether a hash node's entry is active, and its cell indices";
  let description = [{
    `%a, %i, %j = tc.hash_entry @h[%e] : i1, i32, i32`: entry `%e` (below
    `tc.hash_entries`) of hash node `@h` holds an active cell (`%a`) with
    cell indices `%i, %j` (one per axis of `@h`); for a hash below dense
    nodes, one more result: the number of its parent's cell over the path
    (row-major), from which the ancestors' indices follow.
  }];
  let arguments = (ins FlatSymbolRefAttr:$node, I32:$entry);
  let results = (outs I1:$active, Variadic<I32>:$indices);
  let assemblyFormat = "$node `[` $entry `]` attr-dict `:` type(results)";
}

def TC_NDArrayDataResource : Resource<"::tic::tc::NDArrayDataResource">;

def TC_NDArrayLoadOp : TC_Op<"ndarray_load", [
    MemoryEffects<[MemRead<TC_NDArrayDataResource>]>,
    TypesMatchWith<"result is the element type", "array", "result",
                   "::llvm::cast<::tic::tc::NDArrayType>($_self).getElementType()">]> {
  let summary = "reads one element of an ndarray";
  let arguments = (ins TC_NDArrayType:$array, Variadic<TC_Index>:$indices);
  let results = (outs TC_Scalar:$result);
  let assemblyFormat = "$array `[` $indices `]` attr-dict `:` qualified(type($array))";
  let hasVerifier = 1;
}

def TC_NDArrayStoreOp : TC_Op<"ndarray_store", [
    MemoryEffects<[MemWrite<TC_NDArrayDataResource>]>,
    TypesMatchWith<"value is the element type", "array", "value",
                   "::llvm::cast<::tic::tc::NDArrayType>($_self).getElementType()">]> {
  let summary = "writes one element of an ndarray";
  let arguments = (ins TC_Scalar:$value, TC_NDArrayType:$array,
                       Variadic<TC_Index>:$indices);
  let assemblyFormat =
      "$value `,` $array `[` $indices `]` attr-dict `:` qualified(type($array))";
  let hasVerifier = 1;
}

def TC_NDArrayAtomicRMWOp : TC_Op<"ndarray_atomic_rmw", [
    MemoryEffects<[MemRead<TC_NDArrayDataResource>,
                   MemWrite<TC_NDArrayDataResource>]>,
    TypesMatchWith<"value is the element type", "array", "value",
                   "::llvm::cast<::tic::tc::NDArrayType>($_self).getElementType()">,
    TypesMatchWith<"result is the element type", "array", "result",
                   "::llvm::cast<::tic::tc::NDArrayType>($_self).getElementType()">]> {
  let summary = "atomic read-modify-write of an ndarray element; yields the old value";
  let arguments = (ins TC_AtomicKind:$kind, TC_Scalar:$value,
                       TC_NDArrayType:$array, Variadic<TC_Index>:$indices);
  let results = (outs TC_Scalar:$result);
  let assemblyFormat =
      "$kind $value `,` $array `[` $indices `]` attr-dict `:` qualified(type($array))";
  let hasVerifier = 1;
}

def TC_NDArrayDimOp : TC_Op<"ndarray_dim", [Pure]> {
  let summary = "extent of an ndarray along one axis (i32)";
  let arguments = (ins TC_NDArrayType:$array, I64Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$array `,` $axis attr-dict `:` qualified(type($array))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Runtime services
//===----------------------------------------------------------------------===//

def TC_PrintOp : TC_Op<"print"> {
  let summary = "printf-style print from a kernel";
  let arguments = (ins StrAttr:$format, Variadic<TC_Scalar>:$args);
  let assemblyFormat = "$format (`,` $args^ `:` type($args))? attr-dict";
  let hasVerifier = 1;
}

def TC_RandomOp : TC_Op<"random"> {
  let summary = "uniform random number: float in [0, 1) or 32 random bits";
  let results = (outs AnyTypeOf<[F32, F64, I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TC_NumThreadsOp : TC_Op<"num_threads", [Pure]> {
  let summary = "the number of threads parallel loops run on (>= 1)";
  let description = [{
    CPU: `tic_rt_num_threads(ctx)`, the context's thread count. A
    `tc.thread_index` inside a `tc.parallel_for` is below it. Made by
    `tic-privatize-scatter`, which the CPU pipeline alone runs.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TC_OnDeviceOp : TC_Op<"on_device", [Pure]> {
  let summary = "whether the kernel's context runs its launches on a GPU";
  let description = [{
    Host code of a kernel (a `tc.kernel`'s body outside its parallel
    loops): true when its context is on a GPU (`tic_rt_on_device`), false
    on a CPU context, and always in a CPU-only object. Made by
    `tic-privatize-scatter{device}` to guard its `host_only` loops.
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TC_ThreadIndexOp : TC_Op<"thread_index", [MemoryEffects<[MemRead]>]> {
  let summary = "the index of the thread running this iteration";
  let description = [{
    Inside a `tc.parallel_for` (a `tc.task` once outlined): the index, in
    `[0, tc.num_threads)`, of the thread that runs the iteration; 0 in host
    code. Two iterations on one thread may run one after the other, never at
    the same time, so state indexed by it is private to the iteration. It
    reads (declared as a memory read) so that no transformation moves it out
    of its loop.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TC_ScratchOp : TC_Op<"scratch", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "per-context scratch memory, kept between launches";
  let description = [{
    `%buf = tc.scratch 3, %n : memref<?xf32>`: at least `%n` (i64) elements
    of the context's scratch slot 3 (CPU: `tic_rt_scratch`), all zero the
    first time; the memory and its contents stay the slot's until the
    context is destroyed, or until a larger request replaces them with
    zeros. A null buffer (aligned pointer 0) when it cannot be allocated:
    the user falls back to code without it. `%n = 0` gives a non-null
    empty buffer. Made by `tic-privatize-scatter` (per-thread partial sums
    and touched flags, which it leaves zero after each use) and
    `tic-lower-struct-for` (the cached list of a hash path's active cells,
    with its stamp: zeros read as a list that needs building).
  }];
  let arguments = (ins I32Attr:$slot, I64:$size);
  let results = (outs MemRefRankOf<[AnySignlessInteger, AnyFloat], [1]>:$buffer);
  let assemblyFormat = "$slot `,` $size attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def TC_AssertOp : TC_Op<"assert"> {
  let summary = "reports a kernel failure with `message` when %cond is false";
  let arguments = (ins I1:$cond, StrAttr:$message);
  let assemblyFormat = "$cond `,` $message attr-dict";
}

def TC_BoundsCheckOp : TC_Op<"bounds_check"> {
  let summary = "reports an out-of-bounds field index when !(%index <u %extent)";
  let description = [{
    Emitted for field accesses with `--check-bounds` / `-g`: when `%index` is
    not below `%extent` (unsigned, so negative indices fail too) the kernel
    reports TC_ERR_OUT_OF_BOUNDS with the field's name, the axis, the index,
    the extent and the op's source location (`tic_rt_report_out_of_bounds`).
  }];
  let arguments = (ins I32:$index, I32:$extent, StrAttr:$field, I32Attr:$axis);
  let assemblyFormat = "$index `,` $extent `,` $field `,` $axis attr-dict";
}

def TC_FieldCopyOp : TC_Op<"field_copy", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "copies bytes between host memory and field memory in host code";
  let description = [{
    `tc.field_copy %dst, %src, 4 : !llvm.ptr, !llvm.ptr` copies 4 bytes from field memory (an
    address derived from `snode.root_ptr`) at `%src` to host memory at
    `%dst`; with `to_field`, from host memory at `%src` to field memory at
    `%dst`. Made by `tic-host-field-access` for the code of a kernel that
    runs on the host (outside its parallel loops) when the root buffer may
    be device memory (`--target=cuda`); lowered to `tic_rt_field_read` /
    `tic_rt_field_write`, which copy from or to the device after the
    launches in flight, or memcpy on the CPU.
  }];
  let arguments = (ins LLVM_AnyPointer:$dst, LLVM_AnyPointer:$src,
                       I64Attr:$bytes, UnitAttr:$to_field);
  let assemblyFormat = [{
    $dst `,` $src `,` $bytes (`to_field` $to_field^)? attr-dict `:`
    qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def TC_FieldFillOp : TC_Op<"field_fill", [MemoryEffects<[MemWrite]>]> {
  let summary = "sets bytes of field memory in host code";
  let description = [{
    `tc.field_fill %dst, %byte, %len : !llvm.ptr` sets `%len` bytes of field
    memory at `%dst` to `%byte`: the `memset` of host code (a bitmasked
    cell's deactivation zeroes its data) when the root buffer may be device
    memory. Made by `tic-host-field-access`; lowered to `tic_rt_field_fill`.
  }];
  let arguments = (ins LLVM_AnyPointer:$dst, I8:$value, I64:$len);
  let assemblyFormat = [{
    $dst `,` $value `,` $len attr-dict `:` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

#endif // TIC_DIALECT_TC_TCOPS_TD

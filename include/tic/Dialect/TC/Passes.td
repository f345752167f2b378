//===- Passes.td - tc dialect transforms -------------------*- tablegen -*-===//
#ifndef TIC_DIALECT_TC_PASSES_TD
#define TIC_DIALECT_TC_PASSES_TD

include "mlir/Pass/PassBase.td"

def LiftControlFlow : Pass<"tic-lift-control-flow", "::mlir::ModuleOp"> {
  let summary = "Lift the cf blocks left in kernels to scf";
  let description = [{
    Code generation emits scf wherever no `break`, `continue` or `return`
    leaves a statement; those statements are cf blocks in a kernel, a
    parallel loop or an scf.execute_region. This pass lifts every such region
    to structured control flow with MLIR's transformCFGToSCF (the
    transformation of `lift-cf-to-scf`: scf.if / scf.index_switch for
    branches, a do-while scf.while for loops, a selector value for several
    exits), so that the passes after it see scf only. Inlinable
    scf.execute_region ops are then inlined.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::ub::UBDialect",
                           "::mlir::arith::ArithDialect"];
}

def BlockLocal : Pass<"tic-block-local", "::mlir::ModuleOp"> {
  let summary = "Read block_local fields of struct-fors through a buffer per block";
  let description = [{
    A struct-for over a field whose elements sit in a dense, bitmasked or
    pointer node (a block: the cells of that node inside one cell of its
    parent; the body runs on the active ones) with a
    `block_local = [@x, ...]` hint becomes a loop over the blocks: each
    block first copies the part of x its elements read at constant offsets
    from their own indices (the loop's footprint, bounds inferred from the
    offsets) into a `tc.block_buffer`, in one `tc.block_for`, then runs
    the body on its elements in a second `tc.block_for`, those reads now
    from the buffer. A field the body only adds to is accumulated in a
    buffer and added to the field after the elements. On a GPU a block of
    threads runs each block, the buffer is its shared memory (Taichi's
    block local storage, BLS).

    A hint it cannot follow (x read and written in the loop, no access at
    constant offsets, buffers over 48 KiB, elements in a dynamic or hash
    node) is a warning, and the loop stays as it was. Reads and adds may
    also be at `tc.assume_in_range %x, %i + d, lo, hi` (plus a constant),
    which bounds them in [i + d + lo, i + d + hi); the pass then replaces
    every tc.assume_in_range by its value. With `known-active` (the
    default) the body's accesses at the element's own indices are marked
    `tc.active`, as tic-lower-struct-for marks those of the original loop.
  }];
  let options = [
    Option<"knownActive", "known-active", "bool", /*default=*/"true",
           "Mark accesses to the loop's own (active) cells">,
    Option<"cache", "cache", "bool", /*default=*/"true",
           "Follow the hints (off: drop them and the assume_in_range ops, "
           "as CPU-only objects do)">,
    Option<"warn", "warn", "bool", /*default=*/"true",
           "Warn where a hint cannot be followed (off for the second "
           "module of a compilation that lowers the same kernels twice)">,
    Option<"checked", "checked", "bool", /*default=*/"false",
           "tic -g: an access at an assume_in_range whose slot falls outside "
           "the buffer (a broken promise) goes to the field instead">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def LowerStructFor : Pass<"tic-lower-struct-for", "::mlir::ModuleOp"> {
  let summary = "Lower tc.struct_for to tc.parallel_for over the active cells";
  let description = [{
    A struct-for over a field (or container SNode) becomes a tc.parallel_for
    from 0 to the extents of its index space (a container's own cell
    indices, as in Taichi). When the path has nodes that can be inactive
    (bitmasked, pointer), the loop runs in parallel over the cells of the
    deepest of them, skips the inactive ones (`tc.is_active`) and runs
    serial loops over the elements of each active cell. Over a hash node,
    the loop runs over the entries of its pool (`tc.hash_entries`,
    `tc.hash_entry`); over `dynamic` lists, over (lists, groups of 1024
    elements). docs/sparse.md has every form.

    With `device`, a loop over a hash node's entries whose body inserts no
    entry into it (no write below it outside the loop's own known-active
    cells, no activation or append below it) gets the host bound
    `snode.pool_bound` (no copy from the device) and a `limit` region that
    reads the exact count where the iterations run. A pointer node's
    cached list is then checked and rebuilt in launches too, whose limits
    (the staleness flag, the list's count) stop them, so host code reads
    nothing.

    With `known-active` (the default), field accesses in the body at the
    loop's own indices, on fields whose path goes through that node with
    the same cells, are marked `tc.active = @node`: tic-lower-field-access
    then looks their cells up down to that node without activating and
    without the inactive-cell fallback (they are active: the loop checked).
  }];
  let options = [
    Option<"knownActive", "known-active", "bool", /*default=*/"true",
           "Mark accesses to the loop's own (active) cells">,
    Option<"lists", "lists", "bool", /*default=*/"true",
           "Run over a pointer node's cached list of active cells, rebuilt "
           "only when an activation or deactivation changed its path">,
    Option<"device", "device", "bool", /*default=*/"false",
           "--target=cuda: decide whether a cached list is stale, and bound "
           "the loop over it, in launches (host code reads no field memory)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def SplitIndexSet : Pass<"tic-split-index-set", "::mlir::ModuleOp"> {
  let summary = "Turn boundary tests on parallel loop indices into loop bounds";
  let description = [{
    Index-set splitting for the way Taichi programs write stencils:

      for i, j in u { if i > 0 and i < n - 1 and j > 0 and j < n - 1 { ... } }

    When the body of a tc.parallel_for is pure ops plus one `scf.if` without
    else and results, each conjunct of its condition that compares an
    induction variable with a loop-invariant value (`i > c`, `i >= c`,
    `i < c`, `i <= c`, either operand order, signed) narrows that dimension's
    bounds instead (lb = max(lb, c + 1), ub = min(ub, c), ...), and leaves
    the condition; with no conjunct left the `scf.if` is inlined. Iterations
    cut off are exactly those where the condition is false and the body does
    nothing. `c + 1` is only formed for constants (no overflow); `i > v` and
    `i <= v` for a run-time `v` stay tests. The loop then vectorizes without
    masked loads and stores (slow on AMD CPUs).

    Then, in every tc.parallel_for with constant bounds, a clamp of an index
    (`arith.maxsi` / `arith.minsi` of induction variables plus or minus
    constants, against constants) that the bounds decide becomes the index
    itself: `max(j - 1, 0)` where j >= 1, `min(j + 1, n - 1)` where
    j < n - 1 (a clamped stencil read inside its boundary test, or the
    neighbour words of tic-bit-vectorize), so that neighbouring iterations
    read neighbouring memory (vector loads, not gathers).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def DemoteAtomics : Pass<"tic-demote-atomics", "::mlir::ModuleOp"> {
  let summary = "Turn atomics that cannot race into plain load / op / store";
  let description = [{
    As Taichi's demote_atomics: a `tc.atomic_rmw`, `tc.ndarray_atomic_rmw`
    or `memref.atomic_rmw` becomes a load, the operation and a store (the
    loaded value replaces the old value the atomic returned) when no other
    thread can touch the same memory while it runs:

    * outside parallel loops (the kernel's top level runs on one thread), and
      anywhere in a `serialize`d loop, except a captured reduction variable
      that tic-privatize-reductions privatizes anyway;
    * in a parallel loop, on a field whose path is dense when the element
      is owned by the iteration: for every induction variable, one index
      position is `a * iv + c` (`c` loop-invariant, `a` odd, or nonzero with
      `nsw` arithmetic) and every access of the field in the loop (loads,
      stores, atomics, any component) has the same expression at those
      positions. Other positions are free (`x[i, k]` in a serial inner loop
      over `k`);
    * the same for ndarrays, where every access in the loop to an ndarray of
      the same element type (which might alias) must be to the same
      ndarray with the same key expressions;
    * `memref.atomic_rmw` on a local allocated inside the parallel loop
      (private to the iteration).

    Reductions into a kernel-scope variable captured by a parallel loop are
    left to tic-privatize-reductions. With `block-local` (--target=cuda
    objects, where tic-block-local runs next), atomics into a field that
    their struct-for hints `block_local` are left for it to accumulate.
  }];
  let options = [
    Option<"blockLocal", "block-local", "bool", /*default=*/"false",
           "Leave atomics into block_local fields of their struct-for">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def BitVectorize : Pass<"tic-bit-vectorize", "::mlir::ModuleOp"> {
  let summary = "One iteration per 32-lane word in bit_vectorize(32) kernels";
  let description = [{
    QuanTaichi's bit-array vectorization: in a kernel marked
    `tc.bit_vectorize = 32`, each `tc.struct_for` over a 1-bit field in a
    32-lane bit_array becomes a `tc.parallel_for` over its words, the body
    computing the 32 lanes at once: 1-bit loads at constant lane offsets as
    (two shifted) whole-word loads, integers bit-sliced (one word per bit:
    ripple-carry `+`, bitwise comparisons), lane-independent values and
    control flow kept scalar, stores at the loop's own element as whole-word
    stores. Anything else in such a loop is an error naming it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def DemoteBitStores : Pass<"tic-demote-bit-stores", "::mlir::ModuleOp"> {
  let summary = "Mark stores to quantized words no other thread writes (no CAS loop)";
  let description = [{
    QuanTaichi's thread-safety inference: a `tc.store` to a field placed in
    a bit_struct normally becomes a compare-and-swap loop on the container
    word, since other threads may write the word's other fields. It gets
    `tc.exclusive` (a plain load / insert / store, and a plain store once
    tic-fuse-bit-stores has merged the stores covering a whole word) when no
    other thread can write the word while the kernel runs:

    * outside parallel loops (the kernel's top level runs on one thread) and
      in `serialize`d loops;
    * in a parallel loop, when the word is owned by the iteration: the
      store's indices give every induction variable an injective key
      position (as tic-demote-atomics decides ownership), and every write
      in the loop (stores and atomics) to any field of the same bit_struct
      has the same key expressions. A bit_array's word holds several
      elements, so its stores keep their loops.
  }];
}

def LowerFieldAccess : Pass<"tic-lower-field-access", "::mlir::ModuleOp"> {
  let summary = "Decompose tc.load/store/atomic_rmw into snode micro-access chains";
  let description = [{
    Every access `@f[%i, %j] comp c` becomes root_ptr, then per level
    get_child / index_extract / linearize / lookup, then place_ptr and an
    llvm.load / llvm.store / llvm.atomicrmw on the component address.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::tic::snode::SNodeDialect"];
}

def OutlineTasks : Pass<"tic-outline-tasks", "::mlir::ModuleOp"> {
  let summary = "Outline every tc.parallel_for into a tc.task and a tc.launch";
  let description = [{
    Target-neutral: the loop's body becomes `tc.task @k__parN`, placed after
    its kernel, which runs a range `[%begin, %end)` of the loop's linear
    iteration numbers (row-major over its index range) with the values the
    body used from the kernel as arguments (constants are cloned instead);
    the loop becomes `tc.launch @k__parN(captures) total %n` with
    `n = prod(max(hi - lo, 0))` and the loop's `serialize`, `grain` and
    `block_dim`.

    The iterations are generated with structured loops: one `scf.for` for a
    1-D loop; for more dimensions an `scf.while` over rows of the innermost
    dimension around an `scf.for` over it (so any range splits, and the
    innermost loop stays a simple counted loop for the vectorizer). An i32
    innermost index is carried as an induction variable of its own,
    incremented with `nsw`, so that field accesses stay affine for LLVM.

    A loop's `limit` region is cloned into the task's prologue; the range
    stops at `arith.minsi %end, (limit - lo0) * (the other extents)
    {tc.range_end}`. The region moves to the launch's `limit`, yielding the
    same stop from the kernel's values, for a target that evaluates it
    before launching (the CPU's).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def OffloadHostLoops : Pass<"tic-offload-host-loops", "::mlir::ModuleOp"> {
  let summary = "Run host code's loops over fields as one-thread loops";
  let description = [{
    For --target=cuda: kernel code outside parallel loops runs on the host,
    where each field access is a copy to or from the device, and a copy
    waits for the launches in flight: a serial loop over a field there
    (`if c { for k in range(n) { a[k] = ... } }`) waits once per element.
    Such a loop (`scf.for` or `scf.while` outside parallel loops, not
    inside another such loop, touching a field or a cell of an SNode) is
    wrapped whole in a serialized one-iteration `tc.parallel_for`, one GPU
    thread (as Taichi runs a kernel's serial code on the device); its
    results come out through kernel-scope variables (`memref.alloca`),
    which launches stage. A loop that prints, draws random numbers or asks
    for the thread count stays host code (its output order, its random
    stream and its answer would change).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def OffloadSparseAccess : Pass<"tic-offload-sparse-access", "::mlir::ModuleOp"> {
  let summary = "Run host code's accesses to pointer, dynamic and hash fields as one-thread loops";
  let description = [{
    For --target=cuda: a field access (`tc.load`, `tc.store`,
    `tc.atomic_rmw`) or cell operation (`tc.is_active`, `tc.activate`,
    `tc.deactivate`, `tc.append`, `tc.length`) outside parallel loops whose
    path has a pointer, dynamic or hash node follows pointers stored in
    field memory and may allocate from a pool: on a GPU context both are
    device memory. Each such op is wrapped in a serialized one-iteration
    `tc.parallel_for` (one GPU thread), its result passed out through a
    kernel-scope variable (`memref.alloca`), which launches stage.
    Accesses through dense and bitmasked nodes stay host code
    (tic-host-field-access routes them).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def HashMaintenance : Pass<"tic-hash-maintenance", "::mlir::ModuleOp"> {
  let summary = "Grow and purge hash tables between launches";
  let description = [{
    Every tc.kernel that may insert into a hash node (an activating
    `snode.lookup` of it in the kernel or in a task it launches) gets,
    before each `tc.return`, after its launches, with no task running:
    for a child of its tree's root, `snode.hash_maintain` of that node (its
    table purged and doubled in place while the entries exceed twice the
    buckets); for a hash node below another node,
    `snode.hash_maintain_tables` of it (the tables that insertions noted
    purged and, with `grow`, moved to blocks of the buckets their live
    entries need; docs/sparse.md).
  }];
  let options = [
    Option<"offload", "offload", "bool", /*default=*/"false",
           "Wrap each table's maintenance in a serialized one-iteration "
           "tc.parallel_for (--target=cuda: the table is in device memory; "
           "tables below other nodes are purged but do not grow); run "
           "before tic-outline-tasks then">,
  ];
  let dependentDialects = ["::tic::snode::SNodeDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect"];
}

def PrivatizeScatter : Pass<"tic-privatize-scatter", "::mlir::ModuleOp"> {
  let summary = "Per-thread copies of fields a parallel loop only adds into";
  let description = [{
    A top-level `tc.parallel_for` whose only accesses to a field are
    `tc.atomic_rmw add` with unused results (a scatter: MPM's particle to
    grid transfer) gets a second version, chosen at run time when the
    context has several threads and its copies cost less than the atomics
    (threads x cells <= costFactor x iterations x adds, at most 512 MiB):
    each thread adds into its own copy of the field (`tc.scratch` partial
    sums and touched flags, `tc.thread_index`) with plain loads and stores,
    and a `tc.parallel_for` over the field's cells then adds the copies of
    the threads that touched a cell into it (`F = F + sum`, which activates
    a sparse cell as the atomics would have) and clears them. The sums are
    reassociated, as in an OpenMP array reduction. Fields on dense, pointer
    and bitmasked paths qualify, unless a sparse-structure op of the loop
    names a node of the path; loops with snode ops (but
    snode.structure_ptr) do not. CPU pipelines only: a CPU-only object's,
    and the host module of a --target=host,cuda object with `device`
    (`tic --fno-scatter-privatization` turns it off).

    With `device` the new loops (the private copy, the merges, the plain
    one-thread version) are `host_only` and run only when `tc.on_device`
    is false: a GPU context keeps the loop with its atomics, whose kernel
    the device module has, and a CPU context of the same object runs the
    versions a CPU-only object would.
  }];
  let options = [
    Option<"costFactor", "cost-factor", "int64_t", "8",
           "Privatize when threads x cells <= cost-factor x iterations x "
           "atomic adds">,
    Option<"device", "device", "bool", /*default=*/"false",
           "The host module of an object that also runs on a GPU: the new "
           "loops run on CPU contexts only (tc.on_device), marked host_only">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def PrivatizeReductions : Pass<"tic-privatize-reductions", "::mlir::ModuleOp"> {
  let summary = "Per-task private accumulators for kernel-scope reductions";
  let description = [{
    CodeGen lowers a kernel-scope `var` updated with `+= -= min= max= &= |=`
    in a parallel loop to `memref.atomic_rmw` on the variable's rank-0 slot,
    which the loop captures. In a `tc.task` where every use of such a
    captured slot is a `memref.atomic_rmw` of one kind (addf/addi,
    minimumf/mins/minu, maximumf/maxs/maxu, andi/ori) whose result is
    unused, the task gets a private slot initialized with the kind's
    identity (-0.0 for addf, +-inf for minimum/maximum), the updates become
    load / op / store on it, and ONE atomic of the same kind combines it into
    the shared slot when the task returns: one atomic per chunk (CPU) or per
    thread (GPU; convert-tc-to-gpu then combines a warp's values first)
    instead of one per iteration.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def SNodeAccessCSE : Pass<"tic-snode-access-cse", "::mlir::ModuleOp"> {
  let summary = "Share common prefixes of snode micro-access chains";
  let description = [{
    Simplification II of the Taichi thesis: micro-access operations whose
    operands are defined outside a parallel loop are hoisted out of it, and
    identical micro-access operations are merged into the dominating one, so
    that neighbouring accesses (e.g. the five loads of a 5-point stencil)
    share one root lookup chain and differ only from the first level whose
    index differs.
  }];
  let options = [
    Option<"device", "device", "bool", /*default=*/"false",
           "Keep lookups that read the SNode structure inside their parallel "
           "loops (--target=cuda: host code cannot follow the cell pointers "
           "of device memory)">,
  ];
}

#endif

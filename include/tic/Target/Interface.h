//===- Interface.h - Entry points of the C interface in the object -*- C++
//-*-===//
//
// Two passes define, in the object file, every function the generated header
// (Header.h) declares:
//
//  tic-generate-field-accessors   (tc level, before the CPU lowering)
//    Per field (snode.place) with a lowerable layout, adds small tc.kernels
//    that go through the normal field-access path (tc.load / tc.store):
//      @__tic_get_<f>(i32 idx...) -> (components...)
//      @__tic_set_<f>(i32 idx..., components...)
//      @__tic_read_<f>(!tc.ndarray<T, ndim + 1>)   bulk, tc.parallel_for
//      @__tic_write_<f>(!tc.ndarray<T, ndim + 1>)  (last axis: components)
//      @__tic_clear_<f>()                           grad/dual fields only
//    plus @__tic_deactivate_all() (a struct-for deactivating the active
//    cells of each outermost sparse node) when the module has sparse nodes,
//    and records the root buffer's size/alignment (SNodeLayout) in the
//    module attributes `tic.root_size` / `tic.root_align`.
//
//  tic-generate-c-entry-points    (LLVM dialect, after the CPU lowering)
//    Emits the C functions: MODULE_create (static tic_rt_module_desc),
//    _destroy, _last_error, _metadata, one wrapper per kernel (argument
//    checks, tic_rt_check_ndarray, call, results through `ret`,
//    tic_rt_take_kernel_status), field _get/_set (bounds checks) and
//    _read/_write (count check), _sync, _tape_*, _clear_grads,
//    _deactivate_all. Kernels and accessors become internal functions, so
//    the object exports only MODULE_* symbols.
//
// Both passes read the module attribute `tic.interface`: the JSON text of
// iface::ModuleInterface (attachInterface). Without it (hand-written IR in
// tic-opt tests) the first pass derives a description from the IR: module
// name from the pass option or the module's sym_name, fields from the
// places (scalars, or vectors for several components of one type), one C
// parameter per kernel argument, one scalar or a vector result.
//===----------------------------------------------------------------------===//

#ifndef TIC_TARGET_INTERFACE_H
#define TIC_TARGET_INTERFACE_H

#include "tic/Target/Header.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace tic {

/// The pools of the pointer SNodes (tic-generate-field-accessors records,
/// tic-generate-c-entry-points emits them in the module descriptor): an
/// array of [name, element size, max elements, state offset in the root
/// buffer], in pool order.
constexpr const char *kPoolsAttrName = "tic.pools";
/// The tc.kernel behind MODULE_deactivate_all (tic-generate-field-accessors).
constexpr const char *kDeactivateAllKernel = "__tic_deactivate_all";
/// The tc.kernel behind MODULE_<snode>_deactivate_all, by the node's symbol.
inline std::string deactivateKernelName(llvm::StringRef symbol) {
  return ("__tic_deactivate_" + symbol).str();
}

/// The global holding the module's PTX (NUL-terminated) in an object built
/// with --target=cuda; tic_rt_module_desc::ptx points to it.
constexpr const char *kCudaPTXSymbol = "__tic_cuda_ptx";

/// Name of the module attribute holding the interface JSON.
constexpr const char *kInterfaceAttrName = "tic.interface";
/// Fields whose C read/write is one memcpy (tic-generate-field-accessors
/// decides, tic-generate-c-entry-points emits): a dictionary from place name
/// to [byte offset in the root buffer, bytes].
constexpr const char *kBulkCopyAttrName = "tic.bulk_copy";
/// The largest field copied with memcpy (larger ones keep parallel copy
/// kernels, which use every thread's memory bandwidth).
constexpr int64_t kMemcpyBulkMaxBytes = int64_t(1) << 20;

/// Stores `m` (as JSON) in `module`'s `tic.interface` attribute.
void attachInterface(mlir::ModuleOp module, const iface::ModuleInterface &m);
/// Reads it back; failure (with a diagnostic on the module) when absent or
/// malformed.
mlir::LogicalResult readInterface(mlir::ModuleOp module,
                                  iface::ModuleInterface &m);

struct FieldAccessorsOptions {
  /// Module name when the IR has no `tic.interface` attribute.
  std::string moduleName;
};
std::unique_ptr<mlir::Pass>
createGenerateFieldAccessorsPass(const FieldAccessorsOptions &options = {});
std::unique_ptr<mlir::Pass> createGenerateCEntryPointsPass();

/// Registers both passes (for tic-opt).
void registerInterfacePasses();

/// Driver, step 1 (after MLIRGen, before tic::buildCPULoweringPipeline):
/// attachInterface(m) + tic-generate-field-accessors.
mlir::LogicalResult prepareCInterface(mlir::ModuleOp module,
                                      const iface::ModuleInterface &m);
/// Driver, step 2 (after the CPU lowering pipeline, before translation to
/// LLVM IR): tic-generate-c-entry-points.
mlir::LogicalResult finalizeCInterface(mlir::ModuleOp module);

} // namespace tic

#endif // TIC_TARGET_INTERFACE_H

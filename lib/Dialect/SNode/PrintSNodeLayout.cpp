//===- PrintSNodeLayout.cpp - tic-print-snode-layout ----------------------===//
#include "tic/Dialect/SNode/Passes.h"
#include "tic/Dialect/SNode/SNodeLayout.h"

#include "llvm/Support/raw_ostream.h"

namespace tic {
#define GEN_PASS_DEF_PRINTSNODELAYOUT
#include "tic/Dialect/SNode/Passes.h.inc"
} // namespace tic

namespace {
struct PrintSNodeLayoutPass
    : tic::impl::PrintSNodeLayoutBase<PrintSNodeLayoutPass> {
  void runOnOperation() override {
    tic::snode::SNodeLayout layout(getOperation());
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    layout.print(llvm::outs());
    markAllAnalysesPreserved();
  }
};
} // namespace

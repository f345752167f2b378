//===- FPOptions.h - floating-point relaxations -----------------*- C++ -*-===//
//
// What the fast-math family of driver options allows the optimiser to do
// with floating point (docs/cli.md). Everything off is IEEE semantics, the
// default. Each field maps to one LLVM fast-math flag, set on every
// floating-point instruction before optimisation.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_TARGET_FPOPTIONS_H
#define TIC_TARGET_FPOPTIONS_H

namespace tic {

struct FPOptions {
  bool reassociate = false;   ///< -fassociative-math (reassoc)
  bool contract = false;      ///< -ffp-contract=fast: fuse a*b+c into FMA
  bool approxFunc = false;    ///< -fapprox-func (afn): approximate math calls
  bool reciprocal = false;    ///< -freciprocal-math (arcp): x/y as x*(1/y)
  bool noNaNs = false;        ///< -ffinite-math-only (nnan)
  bool noInfs = false;        ///< -ffinite-math-only (ninf)
  bool noSignedZeros = false; ///< -fno-signed-zeros (nsz)

  bool any() const {
    return reassociate || contract || approxFunc || reciprocal || noNaNs ||
           noInfs || noSignedZeros;
  }
  /// -ffast-math: every relaxation.
  static FPOptions fast() { return {true, true, true, true, true, true, true}; }
};

} // namespace tic

#endif // TIC_TARGET_FPOPTIONS_H

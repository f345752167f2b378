#!/usr/bin/env bash
# Builds tic, its runtime and every test program with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-sanitize/ and runs the whole test suite
# there; then, unless --no-compare, checks that this clang-built tic emits
# the same MLIR and LLVM IR as the GCC-built one of build/ (scripts/test.sh's
# build directory, or TIC_BUILD_DIR; rebuilt first) for every program of the
# repository (scripts/compare-ir.sh); then, unless --no-fuzz, fuzzes the
# front end and the code generator for a short campaign (scripts/fuzz.sh,
# seeded with every .tc file of the repository, the regression inputs
# included).
#
#   scripts/sanitize.sh [--no-fuzz] [--no-compare] [--fuzz-seconds N]
#                       [ctest arguments...]
#
# A sanitizer report fails the run even where a test would have passed over
# it (a test that expects tic to fail, a harness that hides tic's stderr):
# every instrumented process writes its reports under
# build-sanitize/sanitizer-reports/, and the script fails when any is there.
#
# Environment: TIC_SANITIZE_BUILD_DIR (default build-sanitize), TIC_JOBS
# (build and test parallelism, default: all cores), TIC_SANITIZERS (default
# address,undefined).
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ=1
COMPARE=1
FUZZ_SECONDS=60
CTEST_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-fuzz) FUZZ=0 ;;
    --no-compare) COMPARE=0 ;;
    --fuzz-seconds) FUZZ_SECONDS=$2; shift ;;
    *) CTEST_ARGS+=("$1") ;;
  esac
  shift
done

if ! bash scripts/install-deps.sh --check; then
  bash scripts/install-deps.sh
fi

BUILD_DIR=${TIC_SANITIZE_BUILD_DIR:-build-sanitize}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$PWD/$BUILD_DIR ;; esac
JOBS=${TIC_JOBS:-$(nproc)}
SANITIZERS=${TIC_SANITIZERS:-address,undefined}
LLVM_BIN=/usr/lib/llvm-22/bin

# clang 22, as for the fuzzers (scripts/fuzz.sh): its UBSan knows more
# checks than GCC 12's. -O1 keeps the instrumented suite fast enough.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$LLVM_BIN/clang" -DCMAKE_CXX_COMPILER="$LLVM_BIN/clang++" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DTIC_SANITIZE="$SANITIZERS" -DTIC_BUILD_BENCH=OFF
cmake --build "$BUILD_DIR" -j "$JOBS"

REPORTS=$BUILD_DIR/sanitizer-reports
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
# Reports go to files as well as failing the process (no recovery).
# allow_user_poisoning=0: LLVM's BumpPtrAllocator, inlined from its headers
# into our instrumented code, poisons the rest of each new slab, while the
# uninstrumented libMLIR allocates from the same slab without unpoisoning:
# MLIR attribute storage (a quant attribute, then a location) gave false
# use-after-poison reports. Our own code does not poison memory by hand.
export ASAN_OPTIONS="log_path=$REPORTS/asan:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="log_path=$REPORTS/ubsan:print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "${CTEST_ARGS[@]}" ||
  status=1

# tic's output must not depend on the compiler that built it (two arguments
# of one call that both create ops come out in an order of the compiler's
# choosing; docs/architecture.md, "Conventions").
if [ $COMPARE -eq 1 ]; then
  OTHER_DIR=${TIC_BUILD_DIR:-build}
  if [ -f "$OTHER_DIR/CMakeCache.txt" ]; then
    cmake --build "$OTHER_DIR" --target tic -j "$JOBS"
    echo "sanitize.sh: comparing the IR of $(grep -m1 '^CMAKE_CXX_COMPILER:' \
      "$OTHER_DIR/CMakeCache.txt" | cut -d= -f2)'s tic ($OTHER_DIR) with" \
      "clang's ($BUILD_DIR)"
    TIC_JOBS=$JOBS bash scripts/compare-ir.sh "$OTHER_DIR/bin/tic" \
      "$BUILD_DIR/bin/tic" || status=1
  else
    echo "sanitize.sh: no $OTHER_DIR/ (scripts/test.sh builds it): tic's" \
      "output not compared with another compiler's build"
  fi
fi

if [ -n "$(ls -A "$REPORTS")" ]; then
  echo "sanitize.sh: sanitizer reports in $REPORTS:" >&2
  for f in "$REPORTS"/*; do
    echo "==== $f" >&2
    head -n 60 "$f" >&2
  done
  status=1
fi
if [ $status -ne 0 ]; then
  echo "sanitize.sh: FAILED" >&2
  exit $status
fi
echo "sanitize.sh: the test suite ran clean under $SANITIZERS"

if [ $FUZZ -eq 1 ]; then
  # Short campaigns; fuzz.sh builds its own instrumented fuzzing targets.
  bash scripts/fuzz.sh "$FUZZ_SECONDS" frontend
  bash scripts/fuzz.sh "$FUZZ_SECONDS" codegen
fi

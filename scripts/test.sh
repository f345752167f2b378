#!/usr/bin/env bash
# Builds tic from scratch or incrementally in ./build and runs the whole test
# suite (lit + FileCheck, GoogleTest, integration tests) through ctest.
# Installs the system packages first when any is missing (Debian 12).
#
#   scripts/test.sh              the suite (what CI runs)
#   scripts/test.sh --sanitize   then the suite again under ASan + UBSan, the
#                                comparison of that clang build's IR with this
#                                build's, and a short fuzzing campaign
#                                (scripts/sanitize.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

SANITIZE=0
case "${1:-}" in
  --sanitize) SANITIZE=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
esac

if ! bash scripts/install-deps.sh --check; then
  bash scripts/install-deps.sh
fi

BUILD_DIR=${TIC_BUILD_DIR:-build}
JOBS=${TIC_JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j "$JOBS"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
if [ $SANITIZE -eq 1 ]; then
  bash scripts/sanitize.sh
fi

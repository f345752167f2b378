#!/usr/bin/env bash
# Sets everything up and runs the main demo: installs the system packages
# (Debian 12), builds tic, compiles examples/mpm88 and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! bash scripts/install-deps.sh --check; then
  bash scripts/install-deps.sh
fi

BUILD_DIR=${TIC_BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j "$(nproc)" --target tic

if [ -x "$BUILD_DIR/bin/tic" ] && [ -f examples/mpm88/mpm88.tc ]; then
  echo "== tic examples/mpm88/mpm88.tc --emit=ast (code generation is being built; see docs/status.md)"
  "$BUILD_DIR/bin/tic" examples/mpm88/mpm88.tc --emit=ast | head -n 60
fi

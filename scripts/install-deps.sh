#!/usr/bin/env bash
# Installs every system package that building and testing tic needs (Debian 12, as root).
# LLVM/MLIR are pinned to major version 22 (Debian bookworm-security ships 22.1.x).
#
#   scripts/install-deps.sh           the packages of the build and the tests
#   scripts/install-deps.sh --bench   those and the optional benchmark ones
#   scripts/install-deps.sh --check   exit 0 when the first set is installed
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache git pkg-config python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
  libclang-rt-22-dev
  antlr4 libantlr4-runtime-dev
  libcli11-dev libgtest-dev libgmock-dev
  libpng-dev zlib1g-dev libzstd-dev libxml2-dev libedit-dev libffi-dev
  libcurl4-openssl-dev
)

# Optional, only for bench/ (never for the build or the tests): OpenVDB for
# the OpenVDB variant of bench_sparse_diffusion (docs/performance.md). Its
# headers include Boost, which Debian's libopenvdb-dev does not depend on.
BENCH_PACKAGES=(libopenvdb-dev libboost-dev)

# --check: exit 0 when every package is installed already (used by the
# scripts so that a prepared machine does not call apt at all).
if [ "${1:-}" = "--check" ]; then
  dpkg-query -W -f='${Status}\n' "${PACKAGES[@]}" 2>/dev/null |
    grep -c "install ok installed" | grep -qx "${#PACKAGES[@]}"
  exit $?
fi

if [ "${1:-}" = "--bench" ]; then
  PACKAGES+=("${BENCH_PACKAGES[@]}")
elif [ $# -gt 0 ]; then
  echo "install-deps.sh: unknown argument '$1' (--bench, --check)" >&2
  exit 2
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"

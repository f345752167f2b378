#!/usr/bin/env bash
# Short kernels on shared cores (docs/performance.md, "Idle threads"):
# examples/laplace (256x256 Jacobi, two launches of about 15 us of work per
# double sweep) on 1 and 2 threads, first on an idle machine, then while busy
# processes (`yes > /dev/null`) occupy cores. Prints the median time per
# double sweep, "with host work" (a plain C sweep on the calling thread
# between launches, laplace's normal loop) and "back-to-back" (launches only).
#
#   scripts/bench-wait.sh [--runs N] [--iters N] [--busy N] [--no-build]
#
# --busy N: how many busy processes the loaded runs start (default 1).
# Environment: TIC_BUILD_DIR (default build); TIC_SPIN_US, OMP_WAIT_POLICY
# and LD_LIBRARY_PATH pass through (LD_LIBRARY_PATH=DIR measures the
# libtic_runtime.so in DIR instead of the build's, e.g. an older runtime).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=7 ITERS=2000 BUSY=1 BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --busy) BUSY=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n "2,14p" "$0"; exit 0 ;;
    *) echo "bench-wait.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

BUILD_DIR=${TIC_BUILD_DIR:-build}
if [ "$BUILD" = 1 ]; then
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  cmake --build "$BUILD_DIR" --target laplace
fi
LAPLACE="$BUILD_DIR/examples/laplace"

echo "== machine"
lscpu | grep -E '^(Model name|CPU\(s\))' | sed 's/  */ /g'
echo "runtime: $(ldd "$LAPLACE" | awk '/libtic_runtime/ {print $3}')"
echo "TIC_SPIN_US=${TIC_SPIN_US:-(unset)} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)}"
echo "median of $RUNS runs of laplace --iters $ITERS; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# Medians of the two timings over $RUNS runs of laplace with "$@":
# "WITH_HOST BACK_TO_BACK".
medians() {
  local i out
  out=$(for ((i = 0; i < RUNS; ++i)); do
    "$LAPLACE" --iters "$ITERS" --every "$ITERS" --back-to-back "$ITERS" "$@" |
      awk '/^time per double sweep: tic/ {h = $6} /^back-to-back:/ {print h, $2}'
  done)
  printf "%s %s" \
    "$(echo "$out" | awk '{print $1}' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')" \
    "$(echo "$out" | awk '{print $2}' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')"
}

PIDS=()
stop_busy() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}
trap stop_busy EXIT

echo
echo "| threads | idle: with host work (us) | idle: back-to-back (us) | $BUSY busy: with host work (us) | $BUSY busy: back-to-back (us) |"
echo "| ---: | ---: | ---: | ---: | ---: |"
for threads in 1 2; do
  read -r idle_h idle_b <<< "$(medians --threads "$threads")"
  for ((b = 0; b < BUSY; ++b)); do
    yes > /dev/null &
    PIDS+=($!)
  done
  sleep 0.2
  read -r busy_h busy_b <<< "$(medians --threads "$threads")"
  stop_busy
  echo "| $threads | $idle_h | $idle_b | $busy_h | $busy_b |"
done

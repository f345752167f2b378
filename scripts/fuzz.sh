#!/usr/bin/env bash
# Fuzzes the .tc front end with libFuzzer for SECONDS (default 300):
# configures build-fuzz/ with clang 22 (ASan + UBSan), builds
# tic-fuzz-frontend, seeds a corpus from examples/ and the test inputs, runs.
# Findings (crash-*, timeout-*, oom-*) land in build-fuzz/findings/.
#
#   scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]
#
# Environment: TIC_FUZZ_BUILD_DIR (default build-fuzz), TIC_FUZZ_JOBS
# (parallel fuzzing processes, default 1), TIC_JOBS (build parallelism).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_TO_RUN=${1:-300}
shift || true
BUILD_DIR=${TIC_FUZZ_BUILD_DIR:-build-fuzz}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$PWD/$BUILD_DIR ;; esac
LLVM_BIN=/usr/lib/llvm-22/bin
JOBS=${TIC_JOBS:-2}
FUZZ_JOBS=${TIC_FUZZ_JOBS:-1}

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$LLVM_BIN/clang" -DCMAKE_CXX_COMPILER="$LLVM_BIN/clang++" \
  -DTIC_ENABLE_FUZZER=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target tic-fuzz-frontend

SEEDS="$BUILD_DIR/fuzz-seeds"
CORPUS="$BUILD_DIR/fuzz-corpus"
FINDINGS="$BUILD_DIR/findings"
mkdir -p "$SEEDS" "$CORPUS" "$FINDINGS"
# Every .tc file in the repository's examples and front-end tests is a seed.
find examples test/Frontend -name '*.tc' -type f -print0 |
  while IFS= read -r -d '' f; do
    cp "$f" "$SEEDS/$(echo "$f" | tr '/' '_')"
  done

# Several processes write their logs to fuzz-N.log in the build directory.
PARALLEL=()
if [ "$FUZZ_JOBS" -gt 1 ]; then
  PARALLEL=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
fi
# -timeout: one input taking over a second is a finding (the parser must stay
# linear); -max_len lets inputs reach the statement-length limit.
DICT=$PWD/fuzz/tc.dict
cd "$BUILD_DIR"
exec "$BUILD_DIR/bin/tic-fuzz-frontend" \
  -dict="$DICT" -max_total_time="$SECONDS_TO_RUN" -timeout=1 \
  -rss_limit_mb=4096 -max_len=16384 "${PARALLEL[@]}" \
  -artifact_prefix="$FINDINGS/" -print_final_stats=1 \
  "$@" "$CORPUS" "$SEEDS"

#!/usr/bin/env bash
# Fuzzes tic with libFuzzer for SECONDS (default 300): configures
# build-fuzz/ with clang 22 (ASan + UBSan), builds the chosen target, seeds a
# corpus from the repository's .tc files, runs.
#
#   scripts/fuzz.sh [SECONDS] [frontend|codegen] [extra libFuzzer flags...]
#
# TARGET (default frontend):
#   frontend  tic-fuzz-frontend: parser + Sema. Seeds: examples/, test/Frontend/.
#             Corpus build-fuzz/fuzz-corpus/, findings build-fuzz/findings/.
#   codegen   tic-fuzz-codegen: parse -> Sema -> generateMLIR -> lowering to
#             the LLVM dialect -> LLVM IR. Seeds: every .tc under examples/,
#             bench/, integration_test/, test/. Corpus
#             build-fuzz/fuzz-corpus-codegen/, findings
#             build-fuzz/findings-codegen/.
# Findings are crash-*, timeout-*, oom-* files.
#
# Environment: TIC_FUZZ_BUILD_DIR (default build-fuzz), TIC_FUZZ_JOBS
# (parallel fuzzing processes, default 1), TIC_JOBS (build parallelism).
set -euo pipefail
cd "$(dirname "$0")/.."
# As scripts/sanitize.sh (docs/testing.md): LLVM's BumpPtrAllocator, inlined
# into tic's instrumented code, poisons the rest of a slab that the
# uninstrumented libMLIR then allocates from (a false use-after-poison).
export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

SECONDS_TO_RUN=${1:-300}
shift || true
TARGET=frontend
case "${1:-}" in
  frontend | codegen) TARGET=$1; shift ;;
esac
BUILD_DIR=${TIC_FUZZ_BUILD_DIR:-build-fuzz}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$PWD/$BUILD_DIR ;; esac
LLVM_BIN=/usr/lib/llvm-22/bin
JOBS=${TIC_JOBS:-2}
FUZZ_JOBS=${TIC_FUZZ_JOBS:-1}

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$LLVM_BIN/clang" -DCMAKE_CXX_COMPILER="$LLVM_BIN/clang++" \
  -DTIC_ENABLE_FUZZER=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target "tic-fuzz-$TARGET"

if [ "$TARGET" = frontend ]; then
  SEEDS="$BUILD_DIR/fuzz-seeds"
  CORPUS="$BUILD_DIR/fuzz-corpus"
  FINDINGS="$BUILD_DIR/findings"
  SEED_DIRS=(examples test integration_test)
  TIMEOUT=1
else
  SEEDS="$BUILD_DIR/fuzz-seeds-codegen"
  CORPUS="$BUILD_DIR/fuzz-corpus-codegen"
  FINDINGS="$BUILD_DIR/findings-codegen"
  SEED_DIRS=(examples bench integration_test test)
  # Lowering and LLVM IR translation of the largest seeds (mgpcg, euler) take
  # 0.4 s in a release build and several seconds under ASan.
  TIMEOUT=8
fi
mkdir -p "$SEEDS" "$CORPUS" "$FINDINGS"
# Every .tc file in the seed directories is a seed.
find "${SEED_DIRS[@]}" -name '*.tc' -type f -print0 |
  while IFS= read -r -d '' f; do
    cp "$f" "$SEEDS/$(echo "$f" | tr '/' '_')"
  done

# Several processes write their logs to fuzz-N.log in the build directory.
PARALLEL=()
if [ "$FUZZ_JOBS" -gt 1 ]; then
  PARALLEL=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
fi
# -timeout: one input taking over a second (eight for codegen) is a finding (the
# parser must stay linear); -max_len lets inputs reach the statement-length
# limit.
DICT=$PWD/fuzz/tc.dict
cd "$BUILD_DIR"
exec "$BUILD_DIR/bin/tic-fuzz-$TARGET" \
  -dict="$DICT" -max_total_time="$SECONDS_TO_RUN" -timeout="$TIMEOUT" \
  -rss_limit_mb=4096 -max_len=16384 "${PARALLEL[@]}" \
  -artifact_prefix="$FINDINGS/" -print_final_stats=1 \
  "$@" "$CORPUS" "$SEEDS"

#!/usr/bin/env bash
# scripts/gpu-check.sh - the integration suite and the GPU benchmarks on an
# NVIDIA GPU (issue 13, docs/cuda.md). Two steps, because the machine with
# the GPU need not have the compiler's toolchain:
#
#   scripts/gpu-check.sh prepare [DIR]   # here: build, run on the CPU, bundle
#   scripts/gpu-check.sh run [DIR]       # on the GPU machine: run the bundle
#                                        # (TIC_GPU_TESTS="a b": those only)
#   scripts/gpu-check.sh bench [DIR]     # there: the benchmarks alone
#   scripts/gpu-check.sh profile [DIR]   # there: ncu's time per kernel of
#                                        # the sparse MPM (TIC_GPU_PROFILE)
#
# prepare configures build-cuda/ with every integration test's module
# compiled by `tic --target=host,cuda` (TIC_IT_TIC_ARGS), runs the suite on
# the CPU (the same objects: their CPU launches), and copies each test's
# executable (static, libc only) and the GPU benchmarks (bench/gpu/) into
# DIR (default .gpu-bundle, git-ignored). A test whose module uses what
# --target=cuda does not support yet is listed as skipped with tic's reason.
#
# run executes every bundled test with TIC_ARCH=cuda (their contexts on the
# GPU: a test passes as on the CPU, by its own comparison with a C
# reference), then the benchmarks, and prints a summary; it exits 1 when a
# test failed. Without a GPU each test fails at context creation
# (TC_ERR_NO_DEVICE), so run says so first and stops. Where Taichi is
# importable, the benchmarks include bench/taichi/mpm88.py on the same GPU.
set -euo pipefail

mode=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-$root/.gpu-bundle}

case "$mode" in
prepare)
  build=${TIC_CUDA_BUILD_DIR:-$root/build-cuda}
  jobs=$(nproc 2>/dev/null || echo 2)
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "-DTIC_IT_TIC_ARGS=--target=host,cuda" >/dev/null
  ninja -C "$build" >/dev/null
  ninja -C "$build" bench_gpu >/dev/null
  ctest --test-dir "$build" -L integration -j "$jobs" \
    --output-on-failure >"$build/gpu-prepare.log" 2>&1 || true
  rm -rf "$dir"
  mkdir -p "$dir/tests" "$dir/bench"
  : >"$dir/skipped.txt"
  ok=0
  for d in "$build"/integration_test/*/; do
    name=$(basename "$d")
    [ "$name" = package ] && continue
    if [ -x "$d/$name" ]; then
      cp "$d/$name" "$dir/tests/"
      ok=$((ok + 1))
    fi
  done
  # Tests whose module tic rejected for CUDA: the reason, from the log.
  grep -o "error: .*not supported with --target=cuda yet[^\"]*" \
    "$build/gpu-prepare.log" | sort | uniq -c >"$dir/skipped.txt" || true
  cp "$build"/bench/gpu/gpu_* "$dir/bench/"
  cp "$0" "$dir/gpu-check.sh"
  cp -r "$root/bench/taichi" "$dir/taichi"
  echo "gpu-check prepare: $ok test executables and $(ls "$dir/bench" | wc -l)" \
    "benchmarks in $dir"
  echo "CPU run of the same objects:"
  grep -E "tests passed|The following tests FAILED" -A20 "$build/gpu-prepare.log" |
    grep -E "tests passed|integration\." || true
  echo "modules --target=cuda rejects (their tests are not bundled):"
  cat "$dir/skipped.txt"
  ;;
run)
  dir=$(cd "$dir" 2>/dev/null && pwd || echo "$dir") # tests run elsewhere
  if [ ! -d "$dir/tests" ]; then
    echo "gpu-check run: no bundle in $dir (run 'gpu-check.sh prepare' first)"
    exit 2
  fi
  if ! nvidia-smi --query-gpu=name,driver_version,memory.total \
    --format=csv,noheader 2>/dev/null; then
    echo "gpu-check run: no NVIDIA GPU here (nvidia-smi failed); nothing run"
    exit 2
  fi
  work=$(mktemp -d)
  pass=0
  fail=0
  skip=0
  failed=""
  for t in "$dir"/tests/*; do
    name=$(basename "$t")
    # TIC_GPU_TESTS="a b": those tests only (and no benchmarks).
    if [ -n "${TIC_GPU_TESTS:-}" ] && [[ " $TIC_GPU_TESTS " != *" $name "* ]]; then
      continue
    fi
    mkdir -p "$work/$name"
    start=$(date +%s%N)
    rc=0
    (cd "$work/$name" && TIC_ARCH=cuda timeout 300 "$t") \
      >"$work/$name.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ]; then
      pass=$((pass + 1))
      ms=$((($(date +%s%N) - start) / 1000000))
      printf '%-36s PASS %6d ms\n' "$name" "$ms"
    elif [ "$rc" -eq 77 ]; then
      # The test says it does not apply on a GPU (and why).
      skip=$((skip + 1))
      printf '%-36s SKIP %s\n' "$name" "$(grep -m1 SKIP "$work/$name.log")"
    else
      fail=$((fail + 1))
      failed="$failed $name"
      printf '%-36s FAIL\n' "$name"
      tail -n 15 "$work/$name.log" | sed 's/^/    /'
    fi
  done
  # The pools' growth (docs/cuda.md, "Sparse SNodes"): sparse_pool_growth
  # needs more cells than its pools map at first; with fixed pools it must
  # run out of memory.
  growth="$dir/tests/sparse_pool_growth"
  if [ -x "$growth" ] && { [ -z "${TIC_GPU_TESTS:-}" ] ||
    [[ " $TIC_GPU_TESTS " == *" sparse_pool_growth "* ]]; }; then
    if (cd "$work" && TIC_ARCH=cuda TIC_CUDA_FIXED_POOLS=1 timeout 300 \
      "$growth") >"$work/fixed_pools.log" 2>&1; then
      echo "sparse_pool_growth with TIC_CUDA_FIXED_POOLS=1 passed: the" \
        "pools did not need to grow (unexpected)"
    else
      echo "sparse_pool_growth with TIC_CUDA_FIXED_POOLS=1 fails, as it" \
        "must: $(grep -m1 -o 'out of device memory[^(]*' \
        "$work/fixed_pools.log" || tail -n 1 "$work/fixed_pools.log")"
    fi
  fi
  echo
  [ -n "${TIC_GPU_TESTS:-}" ] || bash "$0" bench "$dir"
  echo
  echo "== gpu-check: $pass passed, $fail failed, $skip skipped on the GPU${failed:+ (}${failed# }${failed:+)}"
  if [ -s "$dir/skipped.txt" ]; then
    echo "   not bundled (not supported with --target=cuda yet):"
    sed 's/^/   /' "$dir/skipped.txt"
  fi
  [ "$fail" -eq 0 ]
  ;;
bench)
  echo "== GPU benchmarks"
  for b in "$dir"/bench/*; do
    [ -x "$b" ] || continue
    "$b" || echo "$(basename "$b") FAILED"
  done
  # Taichi 1.7.4 on the same GPU, when it is installed.
  taichi=$root/bench/taichi
  [ -d "$taichi" ] || taichi=$dir/taichi
  if python3 -c "import taichi" >/dev/null 2>&1 && [ -d "$taichi" ]; then
    (cd "$taichi" && python3 sparse_diffusion.py --arch cuda --reps 10 2>&1) |
      grep -E '^TAICHI|Error' || true
    for sparse in "" --sparse; do
      for cfg in "8192 128 2e-4" "65536 256 1e-4" "1048576 1024 2.5e-5"; do
        set -- $cfg
        (cd "$taichi" && python3 mpm88.py --arch cuda --np "$1" --ng "$2" \
          --dt "$3" --reps 10 $sparse 2>&1) | grep -E '^TAICHI|Error' || true
      done
    done
  else
    echo "(Taichi not importable here: no Taichi comparison)"
  fi
  ;;
profile)
  # Nsight Compute's time per kernel of the sparse MPM (the launches of a
  # few substeps after the warm-up): where its GPU substep goes.
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -z "$ncu" ]; then
    echo "gpu-check profile: no ncu here"
    exit 2
  fi
  for b in ${TIC_GPU_PROFILE:-gpu_mpm_sparse_8k gpu_mpm_sparse_1m}; do
    echo "== $b"
    "$ncu" --launch-skip 400 --launch-count 45 --print-summary per-kernel \
      --metrics gpu__time_duration.sum "$dir/bench/$b" 2>&1 |
      grep -E "^  [a-zA-Z_]|gpu__time_duration|^mpm" || true
  done
  ;;
*)
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac

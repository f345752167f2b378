#!/usr/bin/env bash
# Builds the benchmarks (target `bench`) and prints the table of
# docs/performance.md: tic-compiled kernels vs hand-written C++/OpenMP
# references (same process, same thread count), the Taichi 1.7.4 column when
# `import taichi` works, the OpenVDB rows of the sparse diffusion when
# bench_sparse_diffusion was built with OpenVDB (scripts/install-deps.sh
# --bench), and tic's own compile time per module.
#
#   scripts/bench.sh [--reps N] [--warmup N] [--threads N] [--compile-reps N]
#                    [--no-taichi] [--no-build] [--scaling-max N] [--no-scaling]
# The compile-time scaling table compiles generated modules of 100, 1000,
# ... up to --scaling-max (default 10000) fields and kernels, and of 10x as
# many statements in one kernel (bench/gen_module.py); a few minutes.
# Environment: TIC_BUILD_DIR (default build), CMAKE_BUILD_PARALLEL_LEVEL,
# OMP_WAIT_POLICY (default here: passive, which keeps the references' idle
# OpenMP threads from spinning while tic's kernels run; it also makes tic's
# idle threads sleep at once unless TIC_SPIN_US is set; pass another value
# to override).
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=15 WARMUP=3 THREADS=$(nproc) COMPILE_REPS=5 TAICHI=1 BUILD=1
SCALING_MAX=10000
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --compile-reps) COMPILE_REPS=$2; shift 2 ;;
    --no-taichi) TAICHI=0; shift ;;
    --no-build) BUILD=0; shift ;;
    --scaling-max) SCALING_MAX=$2; shift 2 ;;
    --no-scaling) SCALING_MAX=0; shift ;;
    -h|--help) sed -n "2,18p" "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# tic's runtime has its own thread pool; the C++ references use OpenMP in the
# same process. libgomp's default spin-waiting makes the reference's idle
# threads take the CPU time tic's workers need on a small machine (ratios up
# to 1.4 that are not tic's), so the references run with the passive policy
# unless the caller sets one (docs/performance.md).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# tic's pool also reads OMP_WAIT_POLICY (passive: no spinning at all); keep
# its own default spin (50 us, runtime/src/ThreadPool.cpp) for tic's kernels
# unless the caller chose one.
export TIC_SPIN_US=${TIC_SPIN_US:-50}

BUILD_DIR=${TIC_BUILD_DIR:-build}
if [ "$BUILD" = 1 ]; then
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  cmake --build "$BUILD_DIR" --target bench
fi
TIC="$BUILD_DIR/bin/tic"
BENCH_BIN="$BUILD_DIR/bench"

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
LOG="$OUT/results.txt"
: > "$LOG"

echo "== machine"
lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|L3)' | sed 's/  */ /g'
free -g | awk '/^Mem:/ {print "Memory: " $2 " GiB"}'
echo "threads: $THREADS, median of $REPS runs after $WARMUP warm-up runs, OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)}"
echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"

ARGS=(--reps "$REPS" --warmup "$WARMUP" --threads "$THREADS")
for b in bench_stream bench_reduce bench_stencil bench_julia bench_mpm88_8k bench_mpm88_64k \
         bench_mpm88_64k_noprivate bench_mpm88_64k_nocoalesce \
         bench_mpm88_64k_hostcuda \
         bench_nbody bench_nbody_atomic bench_sparse_diffusion \
         bench_sparse_diffusion_noopt bench_mpm_sparse_8k bench_mpm_sparse_64k \
         bench_mpm_sparse_64k_noprivate bench_mpm_sparse_64k_hostcuda \
         bench_quant bench_quant_nofusion bench_quant_nodemotion bench_quant_noopt \
         bench_quant_saxpy bench_life bench_diffmpm; do
  echo "== $b"
  if [ ! -x "$BENCH_BIN/$b" ]; then
    echo "   (not built)"; echo "MISSING $b" >> "$LOG"; continue
  fi
  if ! OMP_NUM_THREADS=$THREADS "$BENCH_BIN/$b" "${ARGS[@]}" | tee -a "$LOG" | grep '^#'; then
    echo "   FAILED"; echo "FAILED $b" >> "$LOG"
  fi
done

TAICHI_NOTE=""
if [ "$TAICHI" = 1 ] && python3 -c "import taichi" >/dev/null 2>&1; then
  echo "== taichi $(python3 -c 'import taichi; print(taichi.__version__)' 2>/dev/null | tail -n1)"
  TARGS=(--reps "$REPS" --warmup "$WARMUP" --threads "$THREADS")
  for s in stream stencil julia nbody sparse_diffusion life diffmpm; do
    (cd bench/taichi && python3 "$s.py" "${TARGS[@]}" 2>&1) | grep '^TAICHI' | tee -a "$LOG" || true
  done
  (cd bench/taichi && python3 mpm88.py "${TARGS[@]}" --np 8192 --ng 128 --dt 2e-4 2>&1) | grep '^TAICHI' | tee -a "$LOG" || true
  (cd bench/taichi && python3 mpm88.py "${TARGS[@]}" --np 65536 --ng 256 --dt 1e-4 2>&1) | grep '^TAICHI' | tee -a "$LOG" || true
  (cd bench/taichi && python3 mpm88.py --sparse "${TARGS[@]}" --np 8192 --ng 128 --dt 2e-4 2>&1) | grep '^TAICHI' | tee -a "$LOG" || true
  (cd bench/taichi && python3 mpm88.py --sparse "${TARGS[@]}" --np 65536 --ng 256 --dt 1e-4 2>&1) | grep '^TAICHI' | tee -a "$LOG" || true
elif [ "$TAICHI" = 1 ]; then
  TAICHI_NOTE="skipped (taichi not installed)"
  echo "== taichi: $TAICHI_NOTE"
else
  TAICHI_NOTE="skipped (--no-taichi)"
fi

echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== tic compile time ($COMPILE_REPS runs each, median)"
if [ -x "$TIC" ]; then
  for m in stream stencil julia mpm88 nbody; do
    times=()
    ok=1
    for _ in $(seq "$COMPILE_REPS"); do
      t0=$(date +%s%N)
      if ! "$TIC" "bench/$m.tc" --cpu=native -O3 -o "$OUT/$m.o" --header "$OUT/$m.h" >/dev/null 2>&1; then
        ok=0; break
      fi
      t1=$(date +%s%N)
      times+=($(( (t1 - t0) / 1000 )))
    done
    if [ "$ok" = 1 ]; then
      med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2) / 1000}')
      echo "COMPILE module=$m ms=$med" | tee -a "$LOG"
    else
      echo "COMPILE module=$m failed" | tee -a "$LOG"
    fi
  done
else
  echo "   ($TIC not built)"
fi

if [ -x "$TIC" ] && [ "$SCALING_MAX" -ge 100 ]; then
  echo "== tic compile time scaling (generated modules, one run each)"
  for kind in fields kernels statements; do
    n=100
    while [ "$n" -le "$SCALING_MAX" ]; do
      size=$n
      [ "$kind" = statements ] && size=$((n * 10))
      python3 bench/gen_module.py "$kind" "$size" > "$OUT/scale.tc"
      t0=$(date +%s%N)
      if "$TIC" "$OUT/scale.tc" -O3 -o "$OUT/scale.o" --header "$OUT/scale.h" >/dev/null 2>&1; then
        t1=$(date +%s%N)
        echo "SCALING kind=$kind n=$size ms=$(( (t1 - t0) / 1000000 ))" | tee -a "$LOG"
      else
        echo "SCALING kind=$kind n=$size failed" | tee -a "$LOG"
      fi
      n=$((n * 10))
    done
  done
fi

echo
python3 - "$LOG" "$TAICHI_NOTE" <<'PY'
import sys
log, note = sys.argv[1], sys.argv[2]
res, tai, comp, bw, bad, scaling = {}, {}, [], {}, [], []
vdb, vdb_note = {}, None
for line in open(log):
    w = line.split()
    if not w:
        continue
    if line.startswith("# OpenVDB: skipped"):
        vdb_note = line[2:].strip()
        continue
    kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
    if w[0] == "RESULT" and kv.get("ref") == "openvdb":
        vdb[(kv["bench"], kv["variant"])] = kv
    elif w[0] == "RESULT" and "ours_ms" in kv:
        res[(kv["bench"], kv["variant"])] = kv
    elif w[0] == "RESULT":
        bw[(kv["bench"], kv["variant"])] = kv
    elif w[0] == "TAICHI":
        tai[(kv["bench"], kv["variant"])] = kv
    elif w[0] == "COMPILE":
        comp.append((w[1].split("=")[1], kv.get("ms", "failed")))
    elif w[0] == "SCALING":
        scaling.append((kv["kind"], int(kv["n"]), kv.get("ms")))
    elif w[0] in ("MISSING", "FAILED"):
        bad.append(" ".join(w))

print("| benchmark | size | tic (ms) | C++/OpenMP (ms) | tic / C++ | Taichi 1.7.4 (ms) | Taichi / C++ | max abs err |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for (b, v), r in res.items():
    t = tai.get((b, v))
    tms = t["taichi_ms"] if t else (note or "n/a")
    tratio = f"{float(t['taichi_ms']) / float(r['ref_ms']):.2f}" if t else "-"
    print(f"| {b} | {v} | {float(r['ours_ms']):.3f} | {float(r['ref_ms']):.3f} | "
          f"**{float(r['ratio']):.2f}** | {tms if not t else f'{float(tms):.3f}'} | {tratio} | {r['maxerr']} |")
for x in bad:
    print(f"| {x} | | | | | | | |")
print()
if vdb:
    print("OpenVDB (bench_sparse_diffusion built with libopenvdb-dev; same algorithm, "
          "TBB over the leaves, same thread count; error against the C++ reference):")
    print()
    print("| benchmark | size | tic (ms) | OpenVDB (ms) | tic / OpenVDB | OpenVDB bytes per active cell | max abs err |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (b, v), r in vdb.items():
        print(f"| {b} | {v} | {float(r['ours_ms']):.3f} | {float(r['ref_ms']):.3f} | "
              f"**{float(r['ratio']):.2f}** | {r.get('vdb_bytes_per_cell', '-')} | {r['maxerr']} |")
    print()
elif vdb_note:
    print(vdb_note)
    print()
ad = [(v, r) for (b, v), r in res.items() if "backward_over_forward_ours" in r]
if ad:
    print("Autodiff: backward time / forward time (the backward pass recomputes "
          "each step's grid; DiffTaichi reports about the cost of the forward pass):")
    print()
    print("| benchmark | tic | hand-written C++ adjoint |")
    print("| --- | ---: | ---: |")
    for v, r in ad:
        print(f"| diffmpm {v} | {r['backward_over_forward_ours']} | "
              f"{r['backward_over_forward_ref']} |")
    print()
print("Bandwidth (GB/s of memory traffic with write-allocate stores: 12 bytes per element for copy, saxpy and stencil, 4 for sum):")
print()
print("| kernel | tic GB/s | C++ GB/s | tic / copy bandwidth | C++ / copy bandwidth |")
print("| --- | ---: | ---: | ---: | ---: |")
copyref = None
for (b, v), r in res.items():
    if b == "copy":
        copyref = float(r["gbps_ref"])
for (b, v), r in res.items():
    if "gbps_ours" in r and copyref:
        print(f"| {b} {v} | {float(r['gbps_ours']):.2f} | {float(r['gbps_ref']):.2f} | "
              f"{float(r['gbps_ours']) / copyref:.2f} | {float(r['gbps_ref']) / copyref:.2f} |")
if copyref:
    print(f"\nMeasured bandwidth (C++/OpenMP stream copy): {copyref:.2f} GB/s")
print()
print("| module | tic compile time (ms, median) |")
print("| --- | ---: |")
for m, ms in comp:
    print(f"| bench/{m}.tc | {ms} |")
if scaling:
    print()
    print("Compile time of generated modules (bench/gen_module.py, -O3): ms per "
          "field / kernel / statement, and growth = (time per unit) / (time per "
          "unit at the previous size); 1.0 is linear.")
    print()
    print("| module | size | compile (ms) | ms per unit | growth |")
    print("| --- | ---: | ---: | ---: | ---: |")
    prev = {}
    for kind, n, ms in scaling:
        if ms is None:
            print(f"| {kind} | {n} | failed | | |")
            continue
        per = int(ms) / n
        growth = f"{per / prev[kind]:.2f}" if kind in prev and prev[kind] > 0 else "-"
        prev[kind] = per
        print(f"| {kind} | {n} | {ms} | {per:.3f} | {growth} |")
PY

#!/usr/bin/env bash
# Compares what two builds of tic generate for every .tc program of the
# repository (examples/, integration_test/, bench/): the lowered MLIR and the
# LLVM IR, for the host and for --target=host,cuda. tic's output must not
# depend on the C++ compiler that built it: C++ leaves the order in which a
# call's arguments are evaluated unspecified (GCC and clang differ), so code
# that creates ops in two arguments of one call emits them in an order of
# the compiler's choosing. scripts/sanitize.sh runs this against build/
# when that exists, its own clang build being the other compiler.
#
#   scripts/compare-ir.sh TIC_A TIC_B [--keep DIR]
#
# --keep DIR keeps the outputs (NAME.TARGET.EMIT.a and .b, and their
# diagnostics) in a new directory inside DIR, for diff.
#
# Environment: TIC_JOBS (parallelism, default: all cores).
# Exit status 1, with the differing outputs named, when any differs.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  echo "usage: scripts/compare-ir.sh TIC_A TIC_B [--keep DIR]" >&2
  exit 2
fi
TIC_A=$1
TIC_B=$2
shift 2
KEEP=
if [ $# -eq 2 ] && [ "$1" = --keep ] && [ -n "$2" ]; then
  KEEP=$2
elif [ $# -ne 0 ]; then
  echo "usage: scripts/compare-ir.sh TIC_A TIC_B [--keep DIR]" >&2
  exit 2
fi
for t in "$TIC_A" "$TIC_B"; do
  if [ ! -x "$t" ]; then
    echo "compare-ir.sh: no tic at $t" >&2
    exit 2
  fi
done

# The outputs go to a new directory (inside DIR with --keep: nothing there
# is overwritten or removed).
if [ -n "$KEEP" ]; then
  mkdir -p "$KEEP"
  WORK=$(mktemp -d "$KEEP/compare-ir.XXXXXX")
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi

# One program: both builds, both targets, both outputs; prints a line per
# output that differs. Programs meant to fail (or that need a toolkit this
# machine lacks) fail alike in both builds: then their diagnostics compare.
compare_one() {
  local src=$1 name target emit a b same
  name=$(echo "$src" | tr '/' '_')
  for target in host host,cuda; do
    for emit in mlir-lowered llvm; do
      a=$WORK/$name.$target.$emit.a
      b=$WORK/$name.$target.$emit.b
      "$TIC_A" "$src" --target="$target" --emit="$emit" -o "$a" >"$a.log" 2>&1 || true
      "$TIC_B" "$src" --target="$target" --emit="$emit" -o "$b" >"$b.log" 2>&1 || true
      same=1
      cmp -s "$a.log" "$b.log" || same=0
      if [ -e "$a" ] || [ -e "$b" ]; then
        cmp -s "$a" "$b" || same=0
      fi
      [ $same = 1 ] || echo "$src ($target, $emit)"
    done
  done
}
export -f compare_one
export TIC_A TIC_B WORK

find examples integration_test bench -name '*.tc' | sort >"$WORK/programs"
modules=$(wc -l <"$WORK/programs")
xargs -a "$WORK/programs" -P "${TIC_JOBS:-$(nproc)}" -I{} \
  bash -c 'compare_one "$1"' _ {} >"$WORK/differ"

if [ -s "$WORK/differ" ]; then
  echo "compare-ir.sh: $(wc -l <"$WORK/differ") outputs of $modules programs" \
    "differ between $TIC_A and $TIC_B:" >&2
  sort "$WORK/differ" | sed 's/^/  /' >&2
  [ -z "$KEEP" ] || echo "outputs kept in $WORK" >&2
  exit 1
fi
echo "compare-ir.sh: $modules programs, host and host,cuda, MLIR and LLVM" \
  "IR: identical"

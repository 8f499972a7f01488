#!/usr/bin/env bash
# The bundled suite run with -j 2 against the same suite with -j 1, in the
# same session: REPS interleaved runs of each (-j 1, -j 2, -j 1, …), wall
# time per run, the medians and their ratio (-j 1 median / -j 2 median, so
# 2.0 means twice as fast).
#
#   bench/llmconform_parallel-load.sh [BUILD_DIR]   (default build/release; built if missing)
#
# Environment: REPS (default 5), JOBS (the parallel side's -j, default 2),
# TARGET_RATIO (default 1.0). Exit 0 when the ratio reaches TARGET_RATIO and
# every run conformed, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
reps=${REPS:-5}
jobs=${JOBS:-2}
target=${TARGET_RATIO:-1.0}
bin=$build/harness/llmconform
if [ ! -x "$bin" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target llmconform
  bin=$root/build/release/harness/llmconform
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/llmconform-bench-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Wall time of one run in ms; fails the script when the run does not conform.
run_ms() {
  local start end
  start=$(date +%s%N)
  "$bin" run --specs "$root/specs" -j "$1" --out "$scratch/out" --report json >/dev/null 2>"$scratch/err" || {
    cat "$scratch/err" >&2
    exit 1
  }
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

serial=() parallel=()
for ((i = 1; i <= reps; i++)); do
  serial+=("$(run_ms 1)")
  parallel+=("$(run_ms "$jobs")")
done
m1=$(printf '%s\n' "${serial[@]}" | median)
mj=$(printf '%s\n' "${parallel[@]}" | median)
ratio=$(awk -v a="$m1" -v b="$mj" 'BEGIN {printf "%.2f", a / b}')
scenarios=$("$bin" list --specs "$root/specs" | grep -c '^[^ ]' || true)
echo "bundled suite ($scenarios scenarios), $reps interleaved runs each, $(nproc) cores"
echo "  -j 1:  median ${m1} ms  (runs: ${serial[*]})"
echo "  -j $jobs:  median ${mj} ms  (runs: ${parallel[*]})"
echo "  ratio -j 1 / -j $jobs: $ratio (target $target)"
awk -v r="$ratio" -v t="$target" 'BEGIN {exit !(r >= t)}'

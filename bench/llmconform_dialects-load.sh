#!/usr/bin/env bash
# The bundled suite under every dialect (`run --dialects all`) against the
# same suite run plainly, in the same session: REPS interleaved runs of each
# (plain, all dialects, plain, …), wall time per run, the medians, and the
# all-dialects median as a share of (number of dialects × the plain median).
# Issue 12's figure: at most 1.2 — servers and fixtures cost nothing extra
# per dialect beyond the scenarios themselves.
#
#   bench/llmconform_dialects-load.sh [BUILD_DIR]   (default build/release; built if missing)
#
# Environment: REPS (default 3), JOBS (-j of both sides, default the number
# of cores), TARGET_SHARE (default 1.2). Exit 0 when the share is at most
# TARGET_SHARE and every run conformed, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
reps=${REPS:-3}
jobs=${JOBS:-$(nproc)}
target=${TARGET_SHARE:-1.2}
bin=$build/harness/llmconform
mockllm=$build/mockllm/mockllm
if [ ! -x "$bin" ] || [ ! -x "$mockllm" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target llmconform mockllm
  bin=$root/build/release/harness/llmconform
  mockllm=$root/build/release/mockllm/mockllm
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/llmconform-bench-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Wall time of one run in ms (extra options in "$@"); fails the script when
# the run does not conform.
run_ms() {
  local start end
  start=$(date +%s%N)
  "$bin" run --specs "$root/specs" -j "$jobs" --out "$scratch/out" --report json "$@" \
    >/dev/null 2>"$scratch/err" || {
    cat "$scratch/err" >&2
    exit 1
  }
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

dialects=$("$mockllm" dialects --json | node -e \
  'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(Object.keys(JSON.parse(s)).length))')
plain=() all=()
for ((i = 1; i <= reps; i++)); do
  plain+=("$(run_ms)")
  all+=("$(run_ms --dialects all)")
done
mp=$(printf '%s\n' "${plain[@]}" | median)
ma=$(printf '%s\n' "${all[@]}" | median)
share=$(awk -v a="$ma" -v p="$mp" -v n="$dialects" 'BEGIN {printf "%.2f", a / (n * p)}')
echo "bundled suite, $dialects dialects, -j $jobs, $reps interleaved runs each, $(nproc) cores"
echo "  plain:         median ${mp} ms  (runs: ${plain[*]})"
echo "  --dialects all: median ${ma} ms  (runs: ${all[*]})"
echo "  all / ($dialects × plain): $share (target ≤ $target)"
awk -v s="$share" -v t="$target" 'BEGIN {exit !(s <= t)}'

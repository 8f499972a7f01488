#!/bin/sh
# Runs the conformance suite as N shards side by side, as a CI job matrix
# would on N machines, then merges their reports into one run's reports.
#
#   docs/ci/shard-and-merge.sh [N] [OUT]
#
#   N    number of shards (default 4)
#   OUT  output folder (default out/ci): OUT/shard-K/ holds shard K's reports,
#        OUT/merged/ the merged ones (report.json, junit.xml, report.md,
#        report.html, matrix.md, matrix.json)
#
# Environment: LLMCONFORM  the llmconform binary (default: llmconform on PATH)
#              SPECS       the specs folder (default: specs)
#              JOBS        scenarios each shard runs at once (default: 1)
#              TIMINGS     a previous report.json to balance shards by duration
#
# Exit code: that of `llmconform merge` — 0 conformant, 1 conformance
# failures, 3 harness errors — or 2 when a shard could not run (its output
# is in OUT/shard-K/log).
set -eu

n=${1:-4}
out=${2:-out/ci}
bin=${LLMCONFORM:-llmconform}
specs=${SPECS:-specs}
jobs=${JOBS:-1}

mkdir -p "$out"
pids=""
k=1
while [ "$k" -le "$n" ]; do
  mkdir -p "$out/shard-$k"
  set -- run --specs "$specs" --shard "$k/$n" -j "$jobs" --out "$out/shard-$k" --report json
  if [ -n "${TIMINGS:-}" ]; then set -- "$@" --timings "$TIMINGS"; fi
  "$bin" "$@" >"$out/shard-$k/log" 2>&1 &
  pids="$pids $!"
  k=$((k + 1))
done

# 0 and 1 are verdicts the merge carries; anything else means no usable report.
k=1
status=0
for pid in $pids; do
  code=0
  wait "$pid" || code=$?
  if [ "$code" -ne 0 ] && [ "$code" -ne 1 ]; then
    echo "shard $k/$n exited $code:" >&2
    cat "$out/shard-$k/log" >&2
    status=2
  fi
  k=$((k + 1))
done
[ "$status" -eq 0 ] || exit "$status"

reports=""
k=1
while [ "$k" -le "$n" ]; do
  reports="$reports $out/shard-$k/report.json"
  k=$((k + 1))
done
# shellcheck disable=SC2086  # the paths hold no spaces unless OUT does
exec "$bin" merge $reports --out "$out/merged"

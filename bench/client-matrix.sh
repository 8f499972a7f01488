#!/usr/bin/env bash
# How long the client profile's Chat Completions matrix takes (issue 32):
# every bundled adapter that speaks Chat Completions (examples/clients/) x every
# Chat dialect x every Chat client scenario, in one `llmconform run --client …`,
# beside one plain `llmconform run` of the bundled specs in the same session.
# Each line: what ran, how many client runs, wall seconds, exit code
# (1: some cell failed, as the SDKs' findings make it). docs/benchmarks.md records the figures with their commit.
#
#   bench/client-matrix.sh [BUILD_DIR] [-j N]    BUILD_DIR defaults to build/release;
#                                                 -j the scenarios at once (default 2)
#
# The adapters' npm packages come from examples/clients/node_modules
# (`npm ci --prefix examples/clients`), else tests/e2e/node_modules.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=build/release
jobs=2
while (($#)); do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) build=$1; shift ;;
  esac
done
bin=$(realpath "$root/$build/harness/llmconform" 2>/dev/null || realpath "$build/harness/llmconform")
mockllm=$(dirname "$(dirname "$bin")")/mockllm/mockllm
[ -x "$bin" ] && [ -x "$mockllm" ] || { echo "client-matrix: no llmconform/mockllm in $build" >&2; exit 2; }
for m in "$root/examples/clients/node_modules" "$root/tests/e2e/node_modules"; do
  [ -d "$m/@openai/agents" ] && modules=$m && break
done
[ -n "${modules:-}" ] || { echo "client-matrix: no npm packages for the adapters (npm ci --prefix examples/clients)" >&2; exit 2; }
. "$root/bench/lib.sh"
bench_workdir

mkdir -p "$work/examples/clients"
cp "$root"/examples/clients/*.mjs "$root"/examples/clients/*.py "$work/examples/clients/"
ln -s "$modules" "$work/examples/clients/node_modules"
clients=(openai-create openai-stream ai-sdk langchain openai-agents fetch-eventsource)
args=()
for c in "${clients[@]}"; do args+=(--client "$c=node examples/clients/$c.mjs"); done
args+=(--client "httpx=/usr/bin/python3 examples/clients/httpx_client.py")
dialects=$("$mockllm" dialects | sed -n 's/^\([a-z0-9-]*\) \[chat\].*/\1/p' | paste -sd,)
scenarios=$("$bin" list --profile client --specs "$root/specs" --json |
  python3 -c 'import json, sys; print(",".join("client/" + s["name"] for s in json.load(sys.stdin) if s.get("surface") == "chat"))')
n_dialects=$(tr , '\n' <<<"$dialects" | wc -l)
n_scenarios=$(tr , '\n' <<<"$scenarios" | wc -l)
runs=$((${#clients[@]} + 1))
runs=$((runs * n_dialects * n_scenarios))

timed() {  # timed LABEL RUNS COMMAND...: one line with the wall time and exit code
  local label=$1 count=$2 start code
  shift 2
  start=$(date +%s.%N)
  (cd "$work" && NO_COLOR=1 "$@") >"$work/$label.log" 2>&1
  code=$?
  printf '%-14s %6s client runs  %7.1f s  exit %d\n' "$label" "$count" "$(echo "$(date +%s.%N) - $start" | bc)" "$code"
  [ "$code" -le 1 ] || tail -n 20 "$work/$label.log" | sed 's/^/    /'
}

echo "commit $(git -C "$root" rev-parse --short HEAD), $(nproc) cores, -j $jobs, $(date -u +%Y-%m-%d)"
echo "$((${#clients[@]} + 1)) clients x $n_dialects Chat dialects x $n_scenarios Chat scenarios"
timed client-matrix "$runs" "$bin" run --profile client --specs "$root/specs" --filter "$scenarios" \
  --dialects "$dialects" -j "$jobs" --out "$work/matrix" --report json "${args[@]}"
timed plain-run - "$bin" run --specs "$root/specs" -j "$jobs" --out "$work/plain" --report json

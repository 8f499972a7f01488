#!/usr/bin/env bash
# Feedback time: how long a contributor and CI wait, measured as they wait.
# Clones the repository at REV into a scratch folder and times, one after the
# other (docs/benchmarks.md records the figures with their commit):
#
#   make-test-cold   `make test` in a fresh clone, with an empty ccache
#   ci-cold          `.ci/run` (make test + fuzz smoke) in a fresh clone, empty cache
#   ci-warm          `.ci/run` in a fresh clone of REV, with the cache another
#                    clone's builds of both presets .ci/run builds left (what CI
#                    sees after the previous run, or a developer's build)
#   make-run         `make run` in a fresh clone (setup included; packages
#                    already installed take install-deps a few seconds)
#
# The cache is a scratch CCACHE_DIR, so the machine's own cache is neither
# used nor disturbed. Each line: step, wall seconds, exit code; a step that
# fails is reported, and the script exits 1.
#
#   bench/build-times.sh [REV] [STEPS]    REV defaults to HEAD; STEPS a comma list
#                                         (default: make-test-cold,ci-warm,make-run)
#
# ci-cold repeats make-test-cold and adds the fuzz smoke; it is left out of the
# default list because it takes as long as the two together.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git -C "$here" rev-parse "${1:-HEAD}") || exit 2
steps=${2:-make-test-cold,ci-warm,make-run}
work=$(mktemp -d /tmp/llmconform-build-times.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CCACHE_DIR=$work/ccache
status=0

clone() {  # clone NAME: a fresh checkout of REV, with the e2e npm packages reused when present
  git clone -q --no-hardlinks "$here" "$work/$1" && git -C "$work/$1" checkout -q "$rev" || return 1
  if [ -d "$here/tests/e2e/node_modules" ]; then
    cp -a "$here/tests/e2e/node_modules" "$work/$1/tests/e2e/node_modules"
  fi
}

timed() {  # timed STEP DIR COMMAND...: runs COMMAND in DIR, prints the step's line
  local step=$1 dir=$2
  shift 2
  local start end code
  start=$(date +%s.%N)
  (cd "$dir" && "$@") >"$work/$step.log" 2>&1
  code=$?
  end=$(date +%s.%N)
  printf '%-16s %8.0f s  exit %d\n' "$step" "$(echo "$end - $start" | bc)" "$code"
  if [ "$code" -ne 0 ]; then
    status=1
    tail -n 20 "$work/$step.log" | sed 's/^/    /'
  fi
}

echo "commit $(git -C "$here" rev-parse --short "$rev"), $(nproc) cores, $(date -u +%Y-%m-%d)"
IFS=, read -ra wanted <<<"$steps"
for step in "${wanted[@]}"; do
  case "$step" in
    make-test-cold)
      rm -rf "$CCACHE_DIR" && clone test-cold && timed "$step" "$work/test-cold" make test ;;
    ci-cold)
      rm -rf "$CCACHE_DIR" && clone ci-cold && timed "$step" "$work/ci-cold" env CI=true bash .ci/run ;;
    ci-warm)
      # The cache of another clone's builds of REV: the ASan build (served from
      # the cache when make-test-cold ran before) and the fuzz targets.
      clone warm-up && (cd "$work/warm-up" && make build-asan && cmake --preset fuzz &&
        cmake --build --preset fuzz --target fuzzers) >"$work/warm-up.log" 2>&1 ||
        { echo "build-times: the warm-up build failed:" >&2; tail -n 20 "$work/warm-up.log" >&2; exit 1; }
      clone ci-warm && timed "$step" "$work/ci-warm" env CI=true bash .ci/run ;;
    make-run)
      clone run && timed "$step" "$work/run" make run ;;
    *) echo "build-times: unknown step '$step'" >&2; exit 2 ;;
  esac
  rm -rf "${work:?}"/{test-cold,ci-cold,warm-up,ci-warm,run}/build 2>/dev/null
done
exit $status

#!/usr/bin/env bash
# End to end: `llmconform run --client-cmd` with the example openai-SDK client
# (conformant) and broken variants (each failed on the rule naming its bug).
#   gate_client.sh LLMCONFORM SOURCE_ROOT
set -euo pipefail
bin=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
fail() { echo "FAIL: $*" >&2; exit 1; }
# The example imports the SDK installed for the e2e tests.
cp examples/openai_client.mjs tests/check/broken_client.mjs "$work/"
ln -s "$root/tests/e2e/node_modules" "$work/node_modules"

run() {  # run NAME EXPECTED_EXIT ARGS…
  local name=$1 want=$2
  shift 2
  local got=0
  NO_COLOR=1 "$bin" run --out "$work/$name" --report console --report json:out=report.json "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || got=$?
  if [ "$got" != "$want" ]; then
    cat "$work/$name.out" "$work/$name.err" >&2
    fail "$name: exit $got, expected $want"
  fi
}
failed_rules() {  # the rule ids that failed, one a line
  python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
print("\n".join(sorted({c["rule"] for s in r["scenarios"] for c in s["checks"] if c["outcome"]=="fail"})))' "$1"
}

run mt_ok 0 --client-cmd "node $work/openai_client.mjs" --filter 'multiturn/*'
run act_ok 0 --client-cmd "node $work/openai_client.mjs" --filter 'action/*'

# Your client in every dialect: the example reads content as the answer, so
# Hugging Face's inline <think> block breaks it there and nowhere else, and
# the matrix names the deviation.
run act_dialects 1 --client-cmd "node $work/openai_client.mjs" --filter 'action/*' \
  --dialects openai,azure,huggingface -j 2 --report "matrix:out=matrix.md"
python3 - "$work/act_dialects/report.json" <<'PY' || fail "act_dialects: failures outside huggingface"
import json, sys
r = json.load(open(sys.argv[1]))
bad = {s["dialect"] for s in r["scenarios"] if s["outcome"] in ("fail", "error")}
assert bad == {"huggingface"}, bad
assert {s["dialect"] for s in r["scenarios"]} == {"openai", "azure", "huggingface"}
PY
grep -q "| huggingface | .*DIA-THINK-TAGS-IN-CONTENT" "$work/act_dialects/matrix.md" ||
  fail "act_dialects: the matrix does not name DIA-THINK-TAGS-IN-CONTENT"

run mt_trim 1 --client-cmd "node $work/broken_client.mjs trim" --filter 'multiturn/*'
rules=$(failed_rules "$work/mt_trim/report.json")
grep -qx "REQ-AIS-MULTITURN-4" <<<"$rules" || fail "trim: REQ-AIS-MULTITURN-4 not failed: $rules"
grep -qx "GATE-REQUEST-MISMATCH" <<<"$rules" || fail "trim: GATE-REQUEST-MISMATCH not failed: $rules"

run act_time 1 --client-cmd "node $work/broken_client.mjs time" --filter 'action/*'
rules=$(failed_rules "$work/act_time/report.json")
grep -qx "ACT-11" <<<"$rules" || fail "time: ACT-11 not failed: $rules"

run exit1 1 --client-cmd 'echo boom >&2; exit 4' --filter 'multiturn/s1-standard-assembly'
rules=$(failed_rules "$work/exit1/report.json")
for r in GATE-CLIENT-EXIT GATE-TOO-FEW-REQUESTS GATE-CLIENT-OUTPUT; do
  grep -qx "$r" <<<"$rules" || fail "exit1: $r not failed: $rules"
done
grep -qF "boom" "$work/exit1.out" || fail "exit1: the client's stderr is not quoted"

run slow 1 --client-cmd 'sleep 20' --client-timeout 1 --filter 'multiturn/s1-standard-assembly'
grep -qx "GATE-CLIENT-TIMEOUT" <<<"$(failed_rules "$work/slow/report.json")" || fail "slow: no timeout"

run skipped 0 --client-cmd 'exit 1' --filter 'skill/git-quick-commit'
grep -qF "no client side" "$work/skipped/report.json" || fail "skipped: no reason given"
echo "gate_client: ok"

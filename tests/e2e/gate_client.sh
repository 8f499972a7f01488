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
cp examples/openai_client.mjs examples/skill_client.mjs examples/gymbro_client.mjs \
  tests/check/broken_client.mjs "$work/"
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

expect_failed() {  # expect_failed NAME RULE…: each RULE failed in NAME's report
  local name=$1 rules
  shift
  rules=$(failed_rules "$work/$name/report.json")
  for r in "$@"; do grep -qx "$r" <<<"$rules" || fail "$name: $r not failed: $rules"; done
}

run mt_ok 0 --client-cmd "node $work/openai_client.mjs" --filter 'multiturn/*'
run act_ok 0 --client-cmd "node $work/openai_client.mjs" --filter 'action/*'
for p in skill thinkingml gymbro; do
  run "${p}_ok" 0 --client-cmd "node $work/openai_client.mjs" --filter "$p/*"
done
# Each judged on its own outputs, not the journal alone: the rules compared them.
grep -qF "the states are as expected" "$work/skill_ok/report.json" || fail "skill_ok: states not compared"
grep -qF "the client's output" "$work/gymbro_ok/report.json" && fail "gymbro_ok: an output problem"
grep -qF "sse-check" "$work/gymbro_ok/report.json" || fail "gymbro_ok: GYMBRO-6.16 not skipped with its reason"

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
expect_failed mt_trim REQ-AIS-MULTITURN-4 GATE-REQUEST-MISMATCH

run act_time 1 --client-cmd "node $work/broken_client.mjs time" --filter 'action/*'
expect_failed act_time ACT-11

run sk_fence 1 --client-cmd "node $work/broken_client.mjs fence" --filter 'skill/*'
expect_failed sk_fence SKILL-PARSE-8
run gb_partial 1 --client-cmd "node $work/broken_client.mjs partial" --filter 'gymbro/*'
expect_failed gb_partial GYMBRO-7.4
run tml_sanitize 1 --client-cmd "node $work/broken_client.mjs sanitize" --filter 'thinkingml/*'
expect_failed tml_sanitize TML-2.1

# An output of the wrong shape: the field is named, and the rules reading it fail.
run badout 1 --client-cmd \
  'echo "{\"stream\":{\"events\":[{\"event\":\"status\",\"data\":7}]}}" >"$LLMCONFORM_OUTPUT"' \
  --filter 'gymbro/seed-event-sequence'
expect_failed badout GATE-CLIENT-OUTPUT GYMBRO-6.1 GYMBRO-7.2
grep -qF "/stream/events/0/data: expected string" "$work/badout/report.json" ||
  fail "badout: the bad field is not named"

# A client past the journal's 10000 entries: its oldest requests were dropped,
# so the scenario is not judged on the rest (exit 3: could not judge).
run flood 3 --client-cmd 'curl -s -o /dev/null -H "content-type: application/json" -d "{}" \
  "$OPENAI_BASE_URL/chat/completions?n=[1-10001]"' --filter 'multiturn/s1-standard-assembly'
grep -qF "mockllm's journal dropped 1 request(s) before seq 2 for its limit of 10000 entries" \
  "$work/flood.out" || fail "flood: the dropped requests are not told"

# A client cannot rewrite its verdict: a wrong request, a reset of the
# journal, then the conformant client fails (it passed when the reset was
# honoured), the attempt on its own rule, with the request as evidence.
run admin_reset 1 --client-cmd 'curl -s -o /dev/null -H "content-type: application/json" \
  -d "{\"model\":\"wrong\",\"messages\":[]}" "$OPENAI_BASE_URL/chat/completions";
  curl -s -o /dev/null -X POST -H "content-type: application/json" -d "{}" \
  "${OPENAI_BASE_URL%%/t/*}/__admin/reset" && node '"$work"'/openai_client.mjs' \
  --filter 'multiturn/s1-standard-assembly'
expect_failed admin_reset GATE-ADMIN-REQUEST GATE-REQUEST-MISMATCH
grep -qF "POST /__admin/reset: mockllm's admin API is closed" "$work/admin_reset/report.json" ||
  fail "admin_reset: the attempt is not the evidence"

run exit1 1 --client-cmd 'echo boom >&2; exit 4' --filter 'multiturn/s1-standard-assembly'
expect_failed exit1 GATE-CLIENT-EXIT GATE-TOO-FEW-REQUESTS GATE-CLIENT-OUTPUT
grep -qF "boom" "$work/exit1.out" || fail "exit1: the client's stderr is not quoted"

run slow 1 --client-cmd 'sleep 20' --client-timeout 1 --filter 'multiturn/s1-standard-assembly'
expect_failed slow GATE-CLIENT-TIMEOUT

# toolcalls: the tests' client runs its own agent loop in LLMCONFORM_WORKSPACE
# (the oracle, $LLMCONFORM, composes the shells and runs the tools).
export LLMCONFORM=$bin
tc="node $root/tests/check/toolcalls_client.mjs"
run tc_ok 0 --client-cmd "$tc" --filter 'toolcalls/*'
python3 - "$work/tc_ok/report.json" <<'PY' || fail "tc_ok: not every toolcalls scenario judged"
import json, sys
r = json.load(open(sys.argv[1]))
names = {s["name"] for s in r["scenarios"]}
assert len(names) == 9, names
for s in r["scenarios"]:
    ran = [c for c in s["checks"] if c["outcome"] == "pass"]
    assert ran, s["name"]  # judged, not skipped
    assert not any("no client side" in c.get("message", "") for c in s["checks"]), s["name"]
PY
btc="node $root/tests/check/broken_toolcalls_client.mjs"
run tc_pkgwrite 1 --client-cmd "$btc pkgwrite" --filter 'toolcalls/pkg-write-refused'
expect_failed tc_pkgwrite TC-2.1-2
run tc_noaudit 1 --client-cmd "$btc noaudit" --filter 'toolcalls/parallel-tool-calls'
expect_failed tc_noaudit TC-1-2
run tc_phase 1 --client-cmd "$btc phase" --filter 'toolcalls/*'
expect_failed tc_phase TC-4.2-2
run tc_reasoning 1 --client-cmd "$btc reasoning" --filter 'toolcalls/deepseek-reasoning'
expect_failed tc_reasoning TC-8-1 GATE-REQUEST-MISMATCH
# An output of the wrong shape: the field is named, and the rule reading it fails.
run tc_badout 1 --client-cmd 'echo "{\"phase\":1,\"turns\":[]}" >"$LLMCONFORM_OUTPUT"' \
  --filter 'toolcalls/illegal-transition'
expect_failed tc_badout GATE-CLIENT-OUTPUT TC-4.2-2 GATE-TOO-FEW-REQUESTS
grep -qF "/phase: expected string, got number" "$work/tc_badout/report.json" ||
  fail "tc_badout: the bad field is not named"

# A scenario without a trace has no LLM for a client to talk to: skipped, saying why.
mkdir "$work/copy"  # trace paths are relative to the specs' parent
cp -r specs "$work/copy/specs"
ln -s "$root/fixtures" "$work/copy/fixtures"
python3 - "$work/copy/specs/multiturn/s1-standard-assembly.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["trace"]
json.dump(d, open(sys.argv[1], "w"))
PY
run skipped 0 --client-cmd 'exit 1' --specs "$work/copy/specs" --filter 'multiturn/s1-standard-assembly'
grep -qF "no client side" "$work/skipped/report.json" || fail "skipped: no reason given"
echo "gate_client: ok"

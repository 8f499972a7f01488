#!/usr/bin/env bash
# End to end: `llmconform check` with the example adapters (they agree) and
# with deliberately broken SUTs (each bug found, shrunk, saved and replayed).
#   gate_check.sh LLMCONFORM SOURCE_ROOT
set -euo pipefail
bin=$1
root=$2
export LLMCONFORM=$bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
fail() { echo "FAIL: $*" >&2; exit 1; }

check() {  # check NAME EXPECTED_EXIT ARGS… ; output in $work/NAME.{out,err}
  local name=$1 want=$2
  shift 2
  local got=0
  "$bin" check --out "$work/$name" --report console --report json:out=report.json "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || got=$?
  if [ "$got" != "$want" ]; then
    cat "$work/$name.out" "$work/$name.err" >&2
    fail "$name: exit $got, expected $want"
  fi
}
contains() {  # contains FILE TEXT
  grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "$1 does not contain: $2"; }
}

# The examples agree with the reference.
check py_ok 0 --sut "python3 examples/check_adapter.py" --op multiturn.buildLLMMessages \
  --op multiturn.estimateMessageTokens --cases 2000 --seed 1
check node_ok 0 --sut "node examples/check_adapter.mjs" --op multiturn.buildLLMMessages --cases 2000 --seed 2
# The reference as a SUT agrees with itself on every generated op.
ops=()
for op in action.parse multiturn.buildLLMMessages multiturn.estimateMessageTokens skill.parseSkillResponse \
          skill.checkReply skill.cleanOutputForAI thinkingml.validate thinkingml.escapeThinkingFinalLiterals sse.parse; do
  ops+=(--op "$op")
done
check ref_ok 0 --sut "$bin ref --serve" "${ops[@]}" --cases 500 --seed 3 --coverage
contains "$work/ref_ok.out" "coverage action.parse"

# Trimming the wrong end of the history: found, shrunk to a small history, saved, replayed.
check trim 1 --sut "python3 tests/check/broken_trim.py" --op multiturn.buildLLMMessages --cases 2000 \
  --seed 4 --corpus "$work/corpus"
contains "$work/trim.out" "REQ-AIS-MULTITURN-4"
contains "$work/trim.out" "/messages"
python3 - "$work/trim/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
checks = [c for s in report["scenarios"] for c in s["checks"] if c["outcome"] == "fail"]
assert checks, "no failure in the JSON report"
msg = checks[0]["message"]
start = msg.index("minimal input")
case = json.loads(msg[msg.index("{", start):msg.index("; found by")])
assert len(case["history"]) <= 3, f"not shrunk: {case}"
PY
ls "$work/corpus"/multiturn.buildLLMMessages-*.json >/dev/null || fail "no corpus file"
check trim_replay 1 --sut "python3 tests/check/broken_trim.py" --op multiturn.buildLLMMessages \
  --replay "$work/corpus"
contains "$work/trim_replay.out" "replay $work/corpus"
# The corpus is replayed first on the next run, even with no generated cases.
check trim_corpus 1 --sut "python3 tests/check/broken_trim.py" --op multiturn.buildLLMMessages \
  --cases 0 --corpus "$work/corpus"
check fixed_corpus 0 --sut "python3 examples/check_adapter.py" --op multiturn.buildLLMMessages \
  --cases 0 --corpus "$work/corpus"

# Rewriting a time inside the text (action.parse): ACT-11, "/text".
check time 1 --sut "python3 tests/check/broken_wrap.py time" --op action.parse --cases 3000 --seed 5
contains "$work/time.out" "/text"
contains "$work/time.out" ":"

# Accepting a disallowed tag (thinkingml.validate): /valid.
check tag 1 --sut "python3 tests/check/broken_wrap.py tag" --op thinkingml.validate --cases 3000 --seed 6
contains "$work/tag.out" "/valid"
contains "$work/tag.out" "TML-2.1"

# Two independent bugs in one field (skill.cleanOutputForAI's /text): CR bytes dropped where a
# terminal overwrites, and "ls" cut off "lsblk". Each is its own group, decided by its own step.
check clean 1 --sut "python3 tests/check/broken_wrap.py clean" --op skill.cleanOutputForAI \
  --cases 3000 --seed 8
python3 - "$work/clean/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
fails = [c for s in report["scenarios"] for c in s["checks"] if c["outcome"] == "fail"]
steps = sorted((c["rule"], c["message"].split("step ")[1].split(" ")[0]) for c in fails)
assert steps == [("SKILL-CLEAN-5", "carriage-return"), ("SKILL-CLEAN-6", "echo")], steps
PY

# A SUT that crashes and prints garbage: reported with the causing case, the run goes on.
check crash 1 --sut "python3 tests/check/broken_wrap.py crash" --op multiturn.estimateMessageTokens \
  --cases 300 --seed 7
contains "$work/crash.out" "crash"
contains "$work/crash.out" "garbage"
contains "$work/crash.err" "300 case(s)"

# A hanging SUT: each case times out, the SUT is restarted.
check hang 1 --sut "sleep 30" --op multiturn.estimateMessageTokens --cases 2 --case-timeout-ms 200
contains "$work/hang.out" "timeout"

# Usage errors: exit 2.
check no_op 2 --sut cat --op nope.op
check no_gen 2 --sut cat --op toolcalls.toolhost  # no generator: it runs tools on the folders its input names
check bad_ptr 2 --sut cat --op action.parse --compare text
check dead 2 --sut "exit 3" --op action.parse --cases 5
contains "$work/dead.err" "without answering"
echo "gate_check: ok"

#!/usr/bin/env bash
# End to end: `llmconform run --profile client` — the reference client passes
# every rule in every dialect tried; the bundled adapters (examples/clients/)
# run against mockllm, and the openai SDK stream helper's known breaks show
# as failed cells with their cause:
#   gemini      tool-call deltas without `index`: the helper loses the calls
#   vllm        tool-call deltas without `type`: "tool call snapshot missing `type`"
#   openrouter  a rate limit answered as 200 + error body: no error raised
#   mistral     content as an array of blocks: the helper's text reads "[object Object]"
# and several clients in one run (--client NAME=CMD) write one page,
# compatibility.md, with each failure's evidence: the Vercel AI SDK, LangChain.js
# and the OpenAI Agents SDK beside the stream helper (the Agents SDK breaks
# under gemini and mistral as the helper does; the AI SDK refuses the empty
# message list of http-error before sending it: unsupported, with its reason).
# The SDKs of the other surfaces run their surface's scenarios: the openai
# SDK on the Responses API, @anthropic-ai/sdk, @google/genai, and the Vercel
# AI SDK's @ai-sdk/anthropic and @ai-sdk/google providers.
#   client_profile.sh LLMCONFORM SOURCE_ROOT
set -euo pipefail
bin=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
fail() { echo "FAIL: $*" >&2; exit 1; }
# The adapters import the SDKs installed for the e2e tests.
cp examples/clients/*.mjs examples/clients/*.py "$work/"
ln -s "$root/tests/e2e/node_modules" "$work/node_modules"

run() {  # run NAME EXPECTED_EXIT ARGS…
  local name=$1 want=$2
  shift 2
  local got=0
  NO_COLOR=1 timeout 200 "$bin" run --profile client --out "$work/$name" -j 2 \
    --report json:out=report.json --report matrix:out=matrix.md "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || got=$?
  if [ "$got" != "$want" ]; then
    cat "$work/$name.out" "$work/$name.err" >&2
    fail "$name: exit $got, expected $want"
  fi
}
# cell NAME SCENARIO@DIALECT OUTCOME [TEXT]: the scenario has OUTCOME, and TEXT
# is in one of its failed checks' messages.
cell() {
  python3 - "$work/$1/report.json" "$2" "$3" "${4:-}" <<'PY' || fail "$1: $2 is not $3 ${4:-}"
import json, sys
r, want, outcome, text = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
for s in r["scenarios"]:
    if f'{s["protocol"]}/{s["name"]}@{s.get("dialect", "")}' != want:
        continue
    messages = [c["rule"] + ": " + c.get("message", "") for c in s["checks"] if c["outcome"] == "fail"]
    print(want, s["outcome"], messages, file=sys.stderr)
    sys.exit(0 if s["outcome"] == outcome and (not text or any(text in m for m in messages)) else 1)
sys.exit(1)
PY
}

# The reference client: every rule passes (or does not apply) in every dialect.
run reference 0 --dialects openai,gemini,vllm,openrouter,cerebras,mistral
grep -q "^| dialect | plain-text | streamed-text | tool-call | streamed-tool-calls" \
  "$work/reference/matrix.md" || fail "reference: the matrix has not the client feature columns"

# Plain fetch + eventsource-parser, and httpx, in the canonical dialect: all pass.
run fetch 0 --client-cmd "node $work/fetch-eventsource.mjs" --dialects openai
run httpx 0 --client-cmd "/usr/bin/python3 $work/httpx_client.py" --dialects openai  # Debian's python3-httpx

# The openai SDK's stream helper: its known breaks, each a failed cell with its cause
# (the two scenarios that show them; fetch and httpx above run every chat scenario).
run stream 1 --client-cmd "node $work/openai-stream.mjs" --dialects openai,gemini,vllm,openrouter \
  --filter 'client/streamed-tool-calls,client/rate-limited'
cell stream client/streamed-tool-calls@openai pass
cell stream client/streamed-tool-calls@gemini fail "CLIENT-TOOL-CALLS"
cell stream client/streamed-tool-calls@vllm fail 'tool call snapshot missing `type`'
cell stream client/rate-limited@openrouter fail "CLIENT-ERROR-SURFACED: the reply is an error (in_body"
cell stream client/rate-limited@openai pass
grep -q "^| gemini | .*fail" "$work/stream/matrix.md" || fail "stream: no failed gemini cell"
grep -qF "DIA-TOOLCALL-NO-INDEX" "$work/stream/matrix.md" || fail "stream: the gemini cause is not named"
grep -qF "DIA-TOOLCALL-NO-TYPE" "$work/stream/matrix.md" || fail "stream: the vllm cause is not named"
grep -qF "DIA-ERROR-WITH-200" "$work/stream/matrix.md" || fail "stream: the openrouter cause is not named"

# Several clients, one page: a summary client x dialect, a grid per client,
# and every failure with its rule, cause and evidence.
run page 1 --client stream="node $work/openai-stream.mjs" --client ai-sdk="node $work/ai-sdk.mjs" \
  --client langchain="node $work/langchain.mjs" --client agents="node $work/openai-agents.mjs" \
  --dialects openai,gemini,mistral --filter 'client/streamed-*'
page=$work/page/compatibility.md
[ -f "$work/page/compatibility.html" ] || fail "page: no compatibility.html"
grep -q "^| client | gemini | mistral | openai |$" "$page" || fail "page: no summary client x dialect"
grep -q "^| stream | ❌ fail .* | ❌ fail .* | ✅ pass 2/2 |$" "$page" || fail "page: the stream helper's summary row"
grep -qF "| gemini | streamed-tool-calls | \`CLIENT-TOOL-CALLS\` | the reply carries 2 tool call(s); the client read 0 | \`[]\` | \`DIA-TOOLCALL-NO-INDEX\`" "$page" ||
  fail "page: the gemini failure with what the client read and its cause"
grep -qF "[sent](stream/evidence/streamed-tool-calls@gemini/sent.txt)" "$page" || fail "page: no link to the bytes sent"
grep -q '"tool_calls":\[{"index":0,"id"' "$work/page/stream/evidence/streamed-tool-calls@gemini/sent.txt" &&
  fail "page: gemini's tool-call deltas carry an index"
grep -qF '"tool_calls":[]' "$work/page/stream/evidence/streamed-tool-calls@gemini/read.json" ||
  fail "page: read.json is not what the stream helper read"
cell page/stream client/streamed-text@mistral fail "CLIENT-TEXT"
grep -qF '[object Object]' "$work/page/stream/evidence/streamed-text@mistral/read.json" ||
  fail "page: the stream helper's text under mistral"
grep -qF "DIA-CONTENT-ARRAY" "$page" || fail "page: the mistral cause is not named"
# The AI SDK and LangChain.js join Gemini's whole tool calls and Mistral's blocks.
for c in ai-sdk langchain; do
  cell page/$c client/streamed-tool-calls@gemini pass
  cell page/$c client/streamed-text@mistral pass
done
# The Agents SDK merges Gemini's index-less calls into one and joins Mistral's
# blocks as "[object Object]".
cell page/agents client/streamed-tool-calls@gemini fail "Tool get_weatherget_weather not found"
cell page/agents client/streamed-text@mistral fail "CLIENT-TEXT"
grep -qF '[object Object]' "$work/page/agents/evidence/streamed-text@mistral/read.json" ||
  fail "page: the Agents SDK's text under mistral"

# The AI SDK refuses an empty message list before sending it: the provider's
# 400 never reaches it (the http-error scenario sends one to provoke it), and
# the scenario is unsupported for it, with the SDK's reason.
run aisdk 0 --client-cmd "node $work/ai-sdk.mjs" --dialects openai --filter client/http-error
python3 - "$work/aisdk/report.json" <<'PY' || fail "aisdk: http-error is not unsupported with the SDK's reason"
import json, sys
checks = json.load(open(sys.argv[1]))["scenarios"][0]["checks"]
sys.exit(0 if any(c["rule"] == "CLIENT-ERROR-SURFACED" and c["outcome"] == "skip" and
                  "refused the call before sending it (InvalidPromptError" in c["message"] for c in checks) else 1)
PY
grep -qF '"kind":"InvalidPromptError"' "$work/aisdk/evidence/http-error@openai/read.json" ||
  fail "aisdk: the AI SDK's own error is not in read.json"
# LangChain's ChatOpenAI exposes no reasoning: unsupported, not failed.
run langchain 0 --client-cmd "node $work/langchain.mjs" --dialects deepseek --filter client/reasoning
python3 - "$work/langchain/report.json" <<'PY' || fail "langchain: reasoning is not unsupported"
import json, sys
checks = json.load(open(sys.argv[1]))["scenarios"][0]["checks"]
sys.exit(0 if any(c["rule"] == "CLIENT-REASONING" and c["outcome"] == "skip" and "unsupported" in c["message"] for c in checks) else 1)
PY
# The SDKs of the other surfaces, each on its surface's scenarios (a matrix
# row named by the surface's canonical dialect): every rule passes, with the evidence
# kept under that name.
surface() {  # surface NAME ADAPTER SURFACE ROW
  run "$1" 0 --client-cmd "node $work/$2.mjs" --dialects openai --filter "client/$3-*"
  grep -q "^| $4 | ✅ pass" "$work/$1/matrix.md" || fail "$1: no passing $4 row"
  cell "$1" "client/$3-streamed-text@$4" pass
  cell "$1" "client/$3-cut-stream@$4" pass
  [ -f "$work/$1/evidence/$3-plain-text@$4/read.json" ] || fail "$1: no evidence under @$4"
}
surface responses openai-responses responses openai-responses
surface anthropic anthropic messages anthropic
surface genai genai gemini gemini-api
# The Vercel AI SDK's Anthropic and Google providers, on the same scenarios.
surface ai-sdk-anthropic ai-sdk-anthropic messages anthropic
surface ai-sdk-google ai-sdk-google gemini gemini-api
grep -qF '"tool_calls":[{"id":"toolu_0167cfEnoQaPviGdVXA95zcu"' \
  "$work/anthropic/evidence/messages-parallel-tool-calls@anthropic/read.json" ||
  fail "anthropic: read.json is not what the SDK read"
# An adapter of one surface takes another surface's scenario as unsupported.
run other 0 --client-cmd "node $work/anthropic.mjs" --dialects openai --filter client/plain-text
python3 - "$work/other/report.json" <<'PY' || fail "other: a chat scenario is not unsupported for anthropic.mjs"
import json, sys
checks = json.load(open(sys.argv[1]))["scenarios"][0]["checks"]
sys.exit(0 if all(c["outcome"] == "skip" and "unsupported: this adapter speaks messages, not chat" in c["message"]
                  for c in checks if c["rule"].startswith("CLIENT-")) else 1)
PY
echo "client profile: ok"

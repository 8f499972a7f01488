#!/usr/bin/env bash
# mockllm replay throughput under wrk beside aimock (the npm package
# `@copilotkit/aimock`, another mock LLM server), in the same run on loopback.
#
#   bench/mockllm_aimock-load.sh [BUILD_DIR]   (default build/release; built if missing)
#
# Both servers answer the same two Chat Completions requests with the same
# text: a non-streamed reply, and a stream of about 175 chunks (aimock cuts
# its fixture's text into chunks of CHUNK characters, `--latency 0`; mockllm
# replays a trace of the same chunks at `--speed 0`). aimock writes its own
# chunk JSON, so the streams' bytes differ by a few percent; the script prints
# both sizes. ROUNDS rounds of DURATION s at CONNECTIONS connections (wrk -t2),
# the servers' order alternating; each figure is the median of its rounds.
# Prints req/s and the ratio; exit 0 when mockllm reaches TARGET_RATIO x
# aimock on both with no errors, 1 otherwise, 2 when a tool is missing.
#
# Environment: DURATION (s, default 4), ROUNDS (3), CONNECTIONS (32),
# TARGET_RATIO (5), CHUNK (8).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
duration=${DURATION:-4}
rounds=${ROUNDS:-3}
connections=${CONNECTIONS:-32}
target_ratio=${TARGET_RATIO:-5}
chunk=${CHUNK:-8}
mockllm=$build/mockllm/mockllm
aimock=$root/tests/e2e/node_modules/@copilotkit/aimock/dist/cli.js
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
need_tools mockllm_aimock-load wrk node curl
[ -f "$aimock" ] || { echo "mockllm_aimock-load: no aimock in tests/e2e/node_modules (run scripts/install-deps)" >&2; exit 2; }
built_mockllm mockllm_aimock-load "$root" "$mockllm"
bench_workdir

# The texts, aimock's fixture, mockllm's trace of the same chunks, the requests.
node - "$work" "$chunk" <<'EOF'
const fs = require('fs');
const path = require('path');
const [work, size] = [process.argv[2], +process.argv[3]];
const texts = { json: 'A benchmark answer of a realistic length. '.repeat(8), stream: '' };
for (let i = 1; i < 198; i++) texts.stream += `tok${String(i).padStart(3, '0')} `;
const request = (kind) => ({ model: 'gpt-4o-mini', stream: kind === 'stream',
  messages: [{ role: 'system', content: 'You are a benchmark.' }, { role: 'user', content: kind }] });
fs.writeFileSync(path.join(work, 'aimock.json'), JSON.stringify({ fixtures: ['json', 'stream'].map((k) => (
  { match: { userMessage: k }, response: { content: texts[k] } })) }));
const chunk = (delta, finish) => ({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1767225600,
  model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] });
const events = [chunk({ role: 'assistant', content: '' }, null)];
for (let i = 0; i < texts.stream.length; i += size) events.push(chunk({ content: texts.stream.slice(i, i + size) }, null));
events.push(chunk({}, 'stop'));
const raws = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).concat(['data: [DONE]\n\n']);
const answer = { id: 'chatcmpl-bench', object: 'chat.completion', created: 1767225600, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: texts.json }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 80, total_tokens: 100 } };
const header = { format: 'llmconform-trace/1', id: 'bench/aimock', origin: 'synthesized', model: 'gpt-4o-mini' };
const x = (seq, kind, response) => ({ seq, request: { method: 'POST', path: '/v1/chat/completions', headers: {}, body: request(kind) }, response });
fs.writeFileSync(path.join(work, 'bench.trace.jsonl'), [header,
  x(1, 'json', { status: 200, headers: { 'content-type': 'application/json' }, body: answer }),
  x(2, 'stream', { status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: raws.map((raw) => ({ t_ms: 0, raw })) }),
].map((o) => JSON.stringify(o)).join('\n') + '\n');
for (const k of ['json', 'stream']) {
  fs.writeFileSync(path.join(work, `${k}.body`), JSON.stringify(request(k)));
  fs.writeFileSync(path.join(work, `${k}.lua`), `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n` +
    `local f = io.open("${path.join(work, k + '.body')}", "rb")\nwrk.body = f:read("*a")\nf:close()\n`);
}
EOF

wait_200() {  # URL BODY LOG
  for _ in $(seq 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' --data-binary @"$2" "$1" || true)" = 200 ] && return 0
    sleep 0.1
  done
  echo "mockllm_aimock-load: $1 did not answer; its log:" >&2
  cat "$3" >&2
  exit 1
}

port_m=$(free_port)
"$mockllm" serve --traces "$work/bench.trace.jsonl" --port "$port_m" --speed 0 --threads 64 >"$work/mockllm.log" 2>&1 &
pids+=("$!")
port_a=$(free_port)
node "$aimock" --port "$port_a" --host 127.0.0.1 --fixtures "$work/aimock.json" --chunk-size "$chunk" \
  --log-level silent --journal-max 1000 >"$work/aimock.log" 2>&1 &
pids+=("$!")
declare -A url=([mockllm]="http://127.0.0.1:$port_m/v1/chat/completions" [aimock]="http://127.0.0.1:$port_a/v1/chat/completions")
for s in mockllm aimock; do
  wait_200 "${url[$s]}" "$work/json.body" "$work/$s.log"
  for k in json stream; do
    curl -s -H 'content-type: application/json' --data-binary @"$work/$k.body" "${url[$s]}" >"$work/$s.$k.reply"
  done
  printf '%-8s reply bytes: json %6d, stream %6d (%d data: lines)\n' "$s" "$(wc -c <"$work/$s.json.reply")" \
    "$(wc -c <"$work/$s.stream.reply")" "$(grep -c '^data:' "$work/$s.stream.reply")"
done

run_wrk() {  # SERVER KIND: prints "req/s errors"
  local out
  out=$(wrk -t2 -c"$connections" -d"${duration}s" -s "$work/$2.lua" "${url[$1]}")
  local rps errors
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  errors=$(awk '/Socket errors:/ {s = $4 + $6 + $8 + $10} /Non-2xx/ {n = $5} END {print s + n + 0}' <<<"$out")
  echo "$rps $errors"
}

status=0
echo "$connections connections, wrk -t2, $rounds interleaved rounds of $duration s; medians"
printf '%-30s %10s %10s %9s %8s\n' "response (req/s)" mockllm aimock ratio errors
for k in json stream; do
  : >"$work/$k.mockllm" >"$work/$k.aimock"
  errors=0
  for r in $(seq "$rounds"); do
    order=(mockllm aimock)
    ((r % 2)) || order=(aimock mockllm)
    for s in "${order[@]}"; do
      read -r rps e < <(run_wrk "$s" "$k")
      echo "$rps" >>"$work/$k.$s"
      errors=$((errors + e))
    done
  done
  m=$(median <"$work/$k.mockllm")
  a=$(median <"$work/$k.aimock")
  ratio=$(echo "scale=2; $m / $a" | bc)
  printf '%-30s %10.0f %10.0f %8.2fx %8d\n' "$([ "$k" = json ] && echo 'chat completion (JSON)' || echo 'stream, --speed 0')" "$m" "$a" "$ratio" "$errors"
  if (($(echo "$ratio < $target_ratio" | bc))) || ((errors > 0)); then status=1; fi
done
if ((status)); then echo "mockllm_aimock-load: FAIL (target >= ${target_ratio}x aimock, no errors)"; else echo "mockllm_aimock-load: PASS (>= ${target_ratio}x aimock on both, no errors)"; fi
exit $status

#!/usr/bin/env bash
# Replay speed of each API surface beside Chat Completions: one mockllm
# replays a recorded 200-event stream of each surface (Chat Completions, the
# Responses API, Anthropic Messages, Gemini), every stream of about the same
# size in bytes, at --speed 0; wrk asks each in turn, ROUNDS rounds, the
# surfaces' order alternating, each figure the median of its rounds.
#
#   bench/mockllm_surface-replay.sh [BUILD_DIR]   (default build/release; built if missing)
#
# Prints req/s and MB/s per surface and its ratio to Chat's in the same run.
# Exit 0 when every surface replays at least at TARGET_RATIO x Chat's req/s
# and no request failed; 1 otherwise; 2 when a tool is missing.
#
# Environment: DURATION (s per run, default 3), ROUNDS (default 5),
# CONNECTIONS (default 32), THREADS (wrk threads, default 2), TARGET_RATIO (0.9),
# KEEP_WORK (set: the work folder with the trace and the answers is kept).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
duration=${DURATION:-3}
rounds=${ROUNDS:-5}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
target_ratio=${TARGET_RATIO:-0.9}
mockllm=$build/mockllm/mockllm
surfaces="chat responses messages gemini"

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
need_tools mockllm_surface-replay wrk node curl
built_mockllm mockllm_surface-replay "$root" "$mockllm"

bench_workdir
[ -n "${KEEP_WORK:-}" ] && trap - EXIT

# One trace of four exchanges, a 200-event stream each, shaped as the
# surface's real streams are (fixtures/recorded/); each stream's text
# deltas are sized so all four come within 1% of one size. Per
# surface: the request body, the path, and the bytes mockllm must answer.
node - "$work" <<'NODE'
const fs = require('fs');
const path = require('path');
const work = process.argv[2];
const N = 200;
const sse = (data, name) => (name ? `event: ${name}\n` : '') + `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const streams = {
  chat: (text) => {
    const chunk = (delta, finish) => ({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1767225600,
      model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] });
    const ev = [sse(chunk({ role: 'assistant', content: '' }, null))];
    while (ev.length < N - 2) ev.push(sse(chunk({ content: text(ev.length) }, null)));
    ev.push(sse(chunk({}, 'stop')), sse('[DONE]'));
    return ev;
  },
  responses: (text) => {
    const resp = (status, output) => ({ id: 'resp_bench', object: 'response', created_at: 1767225600, status,
      model: 'gpt-4o-mini', output, usage: status === 'completed' ? { input_tokens: 20, output_tokens: 190, total_tokens: 210 } : null });
    let seq = 0;
    const e = (type, body) => sse({ type, sequence_number: seq++, ...body }, type);
    const item = { id: 'msg_bench', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    const ev = [e('response.created', { response: resp('in_progress', []) }),
      e('response.in_progress', { response: resp('in_progress', []) }),
      e('response.output_item.added', { output_index: 0, item }),
      e('response.content_part.added', { item_id: 'msg_bench', output_index: 0, content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] } })];
    let all = '';
    while (ev.length < N - 4) {
      const d = text(ev.length);
      all += d;
      ev.push(e('response.output_text.delta', { item_id: 'msg_bench', output_index: 0, content_index: 0, delta: d }));
    }
    const part = { type: 'output_text', text: all, annotations: [] };
    const done = { ...item, status: 'completed', content: [part] };
    ev.push(e('response.output_text.done', { item_id: 'msg_bench', output_index: 0, content_index: 0, text: all }),
      e('response.content_part.done', { item_id: 'msg_bench', output_index: 0, content_index: 0, part }),
      e('response.output_item.done', { output_index: 0, item: done }),
      e('response.completed', { response: resp('completed', [done]) }));
    return ev;
  },
  messages: (text) => {
    const ev = [sse({ type: 'message_start', message: { id: 'msg_bench', type: 'message', role: 'assistant', content: [],
        model: 'claude-sonnet-4-5', stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 1 } } }, 'message_start'),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
      sse({ type: 'ping' }, 'ping')];
    while (ev.length < N - 3) {
      ev.push(sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text(ev.length) } }, 'content_block_delta'));
    }
    ev.push(sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
      sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 190 } }, 'message_delta'),
      sse({ type: 'message_stop' }, 'message_stop'));
    return ev;
  },
  gemini: (text) => {
    const ev = [];
    while (ev.length < N) {
      const last = ev.length === N - 1;
      ev.push(sse({ candidates: [{ content: { parts: [{ text: text(ev.length) }], role: 'model' }, index: 0,
          ...(last ? { finishReason: 'STOP' } : {}) }],
        ...(last ? { usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 190, totalTokenCount: 210 } } : {}),
        modelVersion: 'gemini-2.5-flash', responseId: 'bench' }));
    }
    return ev;
  },
};
const requests = {
  chat: { path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Answer.' }] } },
  responses: { path: '/v1/responses', body: { model: 'gpt-4o-mini', stream: true, input: 'Answer.' } },
  messages: { path: '/v1/messages', body: { model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'Answer.' }] } },
  gemini: { path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', body: { contents: [{ role: 'user', parts: [{ text: 'Answer.' }] }] } },
};
const bytes = (ev) => ev.reduce((n, s) => n + Buffer.byteLength(s), 0);
const make = (name, len) => streams[name]((k) => `token${k} `.padEnd(len, 'x'));
// The size every stream is brought to: the largest of their sizes at
// 16-character deltas (the Responses API's events carry the most framing).
const target = Math.max(...Object.keys(streams).map((name) => bytes(make(name, 16))));
const header = { format: 'llmconform-trace/1', id: 'bench/surfaces', origin: 'synthesized' };
const lines = [header];
let seq = 1;
for (const name of Object.keys(streams)) {
  let len = 1;  // the shortest delta text at which the stream reaches Chat's size
  while (bytes(make(name, len)) < target && len < 4096) ++len;
  const ev = make(name, len);
  if (ev.length !== N) throw new Error(`${name}: ${ev.length} events, not ${N}`);
  if (Math.abs(bytes(ev) - target) > target / 100) throw new Error(`${name}: ${bytes(ev)} bytes, Chat's ${target}`);
  const r = requests[name];
  // A trace's path has no query (mockllm matches paths without one; import writes them so).
  lines.push({ seq: seq++, request: { method: 'POST', path: r.path.split('?')[0], headers: {}, body: r.body },
    response: { status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: ev.map((raw, i) => ({ t_ms: i * 20, raw })) } });
  fs.writeFileSync(path.join(work, `${name}.body`), JSON.stringify(r.body));
  fs.writeFileSync(path.join(work, `${name}.path`), r.path);
  fs.writeFileSync(path.join(work, `${name}.expected`), ev.join(''));
  fs.writeFileSync(path.join(work, `${name}.lua`), [
    'wrk.method = "POST"', 'wrk.headers["Content-Type"] = "application/json"',
    `wrk.path = ${JSON.stringify(r.path)}`,
    `local f = io.open(${JSON.stringify(path.join(work, name + '.body'))}, "rb")`, 'wrk.body = f:read("*a")', 'f:close()', ''].join('\n'));
}
fs.writeFileSync(path.join(work, 'bench.trace.jsonl'), lines.map((o) => JSON.stringify(o)).join('\n') + '\n');
NODE

"$mockllm" serve --traces "$work/bench.trace.jsonl" --speed 0 --threads 64 >"$work/mockllm.out" 2>"$work/mockllm.err" &
pids+=("$!")
url=
for _ in $(seq 600); do
  url=$(sed -n 's/^listening on //p' "$work/mockllm.out")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "mockllm_surface-replay: FAIL: mockllm did not start:" >&2; cat "$work/mockllm.err" >&2; exit 1; }

# Each surface must answer its recorded bytes before its speed means anything.
for s in $surfaces; do
  curl -s -o "$work/$s.got" -H 'content-type: application/json' --data-binary @"$work/$s.body" "$url$(cat "$work/$s.path")"
  cmp -s "$work/$s.expected" "$work/$s.got" || { echo "mockllm_surface-replay: FAIL: $s is not replayed byte for byte" >&2; exit 1; }
done

# run_wrk SURFACE SECONDS → "REQ_PER_SEC ERRORS"
run_wrk() {
  local out rps errors non2xx
  out=$(wrk -t "$threads" -c "$connections" -d "${2}s" -s "$work/$1.lua" "$url")
  echo "$out" >>"$work/wrk.log"
  rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
  errors=$(echo "$out" | awk '/Socket errors:/ {gsub(",", ""); print $4 + $6 + $8 + $10}')
  non2xx=$(echo "$out" | awk '/Non-2xx or 3xx responses:/ {print $5}')
  echo "${rps:-0} $(( ${errors:-0} + ${non2xx:-0} ))"
}

for s in $surfaces; do run_wrk "$s" 1 >/dev/null; done  # warm up
order=$surfaces
reversed=$(echo "$surfaces" | tr ' ' '\n' | tac | tr '\n' ' ')
for ((r = 0; r < rounds; r++)); do
  if ((r % 2)); then order=$reversed; else order=$surfaces; fi
  for s in $order; do run_wrk "$s" "$duration" >>"$work/res-$s"; done
done

size=$(wc -c <"$work/chat.expected")
chat=$(awk '{ print $1 }' "$work/res-chat" | median)
printf '200-event streams of %s bytes (±1%%), --speed 0, wrk -t%s -c%s, %s interleaved rounds of %s s; medians\n' \
  "$size" "$threads" "$connections" "$rounds" "$duration"
printf '%-10s %10s %8s %9s %7s\n' surface "req/s" "MB/s" "/chat" errors
status=0
for s in $surfaces; do
  rps=$(awk '{ print $1 }' "$work/res-$s" | median)
  errors=$(awk '{ e += $2 } END { print e + 0 }' "$work/res-$s")
  bytes=$(wc -c <"$work/$s.expected")
  ratio=$(awk -v a="$rps" -v b="$chat" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  printf '%-10s %10.0f %8.1f %8sx %7s\n' "$s" "$rps" "$(awk -v r="$rps" -v b="$bytes" 'BEGIN { print r * b / 1e6 }')" "$ratio" "$errors"
  [ "$errors" = 0 ] || status=1
  awk -v r="$ratio" -v t="$target_ratio" 'BEGIN { exit !(r >= t) }' || status=1
done
[ "$status" = 0 ] || echo "mockllm_surface-replay: below ${target_ratio}x Chat's req/s, or errors (above)" >&2
exit "$status"

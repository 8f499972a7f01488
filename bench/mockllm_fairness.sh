#!/usr/bin/env bash
# mockllm's fairness under many connections and a slowloris attack: time to
# the first response byte of every well-behaved connection, and the server's
# memory, while slow clients hold connections open.
#
#   bench/mockllm_fairness.sh [BUILD_DIR]      (default build/release; built if missing)
#
# Starts mockllm on a one-exchange trace, opens SLOWLORIS connections that
# send a request's header one byte every DRIP_MS, then CONNECTIONS keep-alive
# connections at once, each sending the same small JSON request twice (the
# second on the kept connection). Prints p50/p99/max of the time from connect
# to the first response byte (first request) and from send to first byte
# (second request), how many got no answer within 10 s, and mockllm's peak
# RSS (VmRSS, sampled every 50 ms). Bounded: about 20 s in all.
#
# Exit 0 when every connection was answered, p99 of both ≤ P99_MS and peak RSS
# ≤ RSS_MB; 1 otherwise; 2 when something needed is missing.
#
# Environment: CONNECTIONS (512), SLOWLORIS (32), DRIP_MS (1000), P99_MS (100),
# RSS_MB (200), MOCKLLM_ARGS (extra serve options). Needs node.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
mockllm=$build/mockllm/mockllm
command -v node >/dev/null || { echo "mockllm_fairness: node is missing (scripts/install-deps)" >&2; exit 2; }
if [ ! -x "$mockllm" ]; then
  echo "mockllm_fairness: building $mockllm" >&2
  (cd "$root" && cmake --preset release >/dev/null && cmake --build --preset release --target mockllm >&2)
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/bench.trace.jsonl" <<'EOF'
{"format":"llmconform-trace/1","id":"bench","origin":"synthesized"}
{"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"hi"}]}},"response":{"status":200,"headers":{"content-type":"application/json"},"body":{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}}}
EOF

ulimit -n 8192 2>/dev/null || true
# shellcheck disable=SC2086
"$mockllm" serve --traces "$work/bench.trace.jsonl" ${MOCKLLM_ARGS:-} >"$work/out" 2>"$work/err" &
server_pid=$!
for _ in $(seq 100); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^listening on //p' "$work/out")
[ -n "$url" ] || { echo "mockllm_fairness: mockllm did not start: $(cat "$work/err")" >&2; exit 2; }
port=${url##*:}

CONNECTIONS=${CONNECTIONS:-512} SLOWLORIS=${SLOWLORIS:-32} DRIP_MS=${DRIP_MS:-1000} \
P99_MS=${P99_MS:-100} RSS_MB=${RSS_MB:-200} node - "$port" "$server_pid" <<'EOF'
const net = require('net');
const fs = require('fs');
const [port, pid] = process.argv.slice(2).map(Number);
const N = +process.env.CONNECTIONS, S = +process.env.SLOWLORIS, drip = +process.env.DRIP_MS;
const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${body.length}\r\n\r\n${body}`;
let peakKb = 0;
const sampler = setInterval(() => {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) peakKb = Math.max(peakKb, +m[1]);
  } catch {}
}, 50);
const slow = [];
for (let i = 0; i < S; i++) {
  const s = net.connect(port, '127.0.0.1');
  s.on('error', () => {});
  const text = 'POST /v1/chat/completions HTTP/1.1\r\nHost: b\r\nX-Slow: ' + 'a'.repeat(4096);
  let at = 0;
  const t = setInterval(() => { if (at < text.length) s.write(text[at++]); }, drip);
  slow.push({ s, t });
}
const now = () => Number(process.hrtime.bigint()) / 1e6;
const first = [], second = [];
let unanswered = 0;
function one() {
  return new Promise((resolve) => {
    const t0 = now();
    const s = net.connect(port, '127.0.0.1');
    let phase = 0, t1 = 0, buf = '';
    const done = (ok) => { clearTimeout(timer); if (!ok) unanswered++; s.destroy(); resolve(); };
    const timer = setTimeout(() => done(false), 10000);
    s.on('error', () => done(false));
    s.on('connect', () => s.write(request));
    s.on('data', (d) => {
      buf += d;
      if (phase === 0) { first.push(now() - t0); phase = 1; }
      if (phase === 1 && buf.includes('"finish_reason"')) {
        phase = 2; buf = ''; t1 = now(); s.write(request);
      } else if (phase === 2) {
        second.push(now() - t1); phase = 3; done(true);
      }
    });
  });
}
const pct = (a, p) => { const b = [...a].sort((x, y) => x - y); return b.length ? b[Math.min(b.length - 1, Math.ceil(p * b.length) - 1)] : NaN; };
setTimeout(async () => {
  await Promise.all(Array.from({ length: N }, one));
  clearInterval(sampler);
  for (const { s, t } of slow) { clearInterval(t); s.destroy(); }
  const f = (x) => x.toFixed(1);
  const rssMb = peakKb / 1024;
  console.log(`connections ${N}, slowloris ${S} (a byte every ${drip} ms)`);
  console.log(`first response: p50 ${f(pct(first, .5))} ms, p99 ${f(pct(first, .99))} ms, max ${f(Math.max(...first))} ms (${first.length} answered)`);
  console.log(`kept connection: p50 ${f(pct(second, .5))} ms, p99 ${f(pct(second, .99))} ms, max ${f(Math.max(...second))} ms (${second.length} answered)`);
  console.log(`unanswered within 10 s: ${unanswered}; mockllm peak RSS ${f(rssMb)} MB`);
  const ok = unanswered === 0 && pct(first, .99) <= +process.env.P99_MS &&
    pct(second, .99) <= +process.env.P99_MS && rssMb <= +process.env.RSS_MB;
  console.log(ok ? 'target met' : 'target NOT met');
  process.exit(ok ? 0 : 1);
}, 500);
EOF

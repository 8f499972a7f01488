#!/usr/bin/env bash
# mockllm's fairness under many connections and a slowloris attack, beside
# nginx answering the same bytes under the same client in the same run: time
# to the first response byte of every well-behaved connection, and memory,
# while slow clients hold connections open.
#
#   bench/mockllm_fairness.sh [BUILD_DIR]      (default build/release; built if missing)
#
# Starts mockllm on a one-exchange trace and nginx (`return 200` with the
# same JSON body, its default two workers). Then, ROUNDS times, alternating
# the servers: opens SLOWLORIS connections that send a request's head one
# byte every DRIP_MS, then CONNECTIONS keep-alive connections at once, each
# sending the same small JSON request twice (the second on the kept
# connection). Per server it prints the medians over the rounds of p50/p99 of
# the time from connect() to the first response byte (first request; this
# includes the client's own work opening 512 sockets at once), from the
# socket being connected to the first byte, and from the second request's
# send to its first byte; how many got no answer within 10 s; and the peak
# RSS (VmRSS, sampled every 50 ms; nginx: its workers and master summed).
# Bounded: about 30 s in all.
#
# Exit 0 when every mockllm connection was answered, its median p99 of the
# first request (from connected) and of the second are ≤ P99_MS, and peak
# RSS ≤ RSS_MB; 1 otherwise; 2 when something needed is missing.
#
# Environment: CONNECTIONS (512), SLOWLORIS (32), DRIP_MS (1000), P99_MS
# (100), RSS_MB (200), ROUNDS (5), MOCKLLM_ARGS (extra serve options). Needs
# node and nginx (scripts/install-deps --bench).
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
nginx_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

reply='{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}'
cat >"$work/bench.trace.jsonl" <<EOF
{"format":"llmconform-trace/1","id":"bench","origin":"synthesized"}
{"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"hi"}]}},"response":{"status":200,"headers":{"content-type":"application/json"},"body":$reply}}
EOF

ulimit -n 8192 2>/dev/null || true
# shellcheck disable=SC2086
"$mockllm" serve --traces "$work/bench.trace.jsonl" ${MOCKLLM_ARGS:-} >"$work/out" 2>"$work/err" &
server_pid=$!
for _ in $(seq 100); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^listening on //p' "$work/out")
[ -n "$url" ] || { echo "mockllm_fairness: mockllm did not start: $(cat "$work/err")" >&2; exit 2; }
port=${url##*:}

# nginx on a free port, answering the same body to any request.
# shellcheck source=bench/nginx-peer.sh
. "$root/bench/nginx-peer.sh"
nginx_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
start_nginx "$work/nginx" "$nginx_port" "location / { default_type application/json; return 200 '$reply'; }"

CONNECTIONS=${CONNECTIONS:-512} SLOWLORIS=${SLOWLORIS:-32} DRIP_MS=${DRIP_MS:-1000} \
P99_MS=${P99_MS:-100} RSS_MB=${RSS_MB:-200} ROUNDS=${ROUNDS:-5} \
node - "$port" "$server_pid" "$nginx_port" "$nginx_pid" <<'EOF'
const net = require('net');
const fs = require('fs');
const [port, pid, nginxPort, nginxPid] = process.argv.slice(2).map(Number);
const N = +process.env.CONNECTIONS, S = +process.env.SLOWLORIS, drip = +process.env.DRIP_MS;
const rounds = +process.env.ROUNDS;
const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${body.length}\r\n\r\n${body}`;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (a, p) => { const b = [...a].sort((x, y) => x - y); return b.length ? b[Math.min(b.length - 1, Math.ceil(p * b.length) - 1)] : NaN; };
const median = (a) => pct(a, 0.5);
// A process's RSS in kB with its children (nginx's workers).
function rssKb(p) {
  let kb = 0;
  try { kb += +/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))[1]; } catch {}
  try {
    for (const c of fs.readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/))
      if (c) kb += rssKb(+c);
  } catch {}
  return kb;
}

async function round(port, pid) {
  let peakKb = 0;
  const sampler = setInterval(() => { peakKb = Math.max(peakKb, rssKb(pid)); }, 50);
  const slow = [];
  for (let i = 0; i < S; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    const text = 'POST /v1/chat/completions HTTP/1.1\r\nHost: b\r\nX-Slow: ' + 'a'.repeat(4096);
    let at = 0;
    const t = setInterval(() => { if (at < text.length) s.write(text[at++]); }, drip);
    slow.push({ s, t });
  }
  await new Promise((r) => setTimeout(r, 500));
  const first = [], connected = [], second = [];
  let unanswered = 0;
  const one = () => new Promise((resolve) => {
    const t0 = now();
    const s = net.connect(port, '127.0.0.1');
    let phase = 0, t1 = 0, tc = 0, buf = '';
    const done = (ok) => { clearTimeout(timer); if (!ok) unanswered++; s.destroy(); resolve(); };
    const timer = setTimeout(() => done(false), 10000);
    s.on('error', () => done(false));
    s.on('connect', () => { tc = now(); s.write(request); });
    s.on('data', (d) => {
      buf += d;
      if (phase === 0) { const t = now(); first.push(t - t0); connected.push(t - tc); phase = 1; }
      if (phase === 1 && buf.includes('"finish_reason"')) {
        phase = 2; buf = ''; t1 = now(); s.write(request);
      } else if (phase === 2) {
        second.push(now() - t1); phase = 3; done(true);
      }
    });
  });
  await Promise.all(Array.from({ length: N }, one));
  clearInterval(sampler);
  for (const { s, t } of slow) { clearInterval(t); s.destroy(); }
  await new Promise((r) => setTimeout(r, 200));
  return { first: [pct(first, .5), pct(first, .99)], connected: [pct(connected, .5), pct(connected, .99)],
    second: [pct(second, .5), pct(second, .99)], unanswered, rssMb: peakKb / 1024 };
}

(async () => {
  const servers = { mockllm: [port, pid], nginx: [nginxPort, nginxPid] };
  const results = { mockllm: [], nginx: [] };
  for (let i = 0; i < rounds; i++) {
    for (const name of i % 2 ? ['nginx', 'mockllm'] : ['mockllm', 'nginx'])
      results[name].push(await round(...servers[name]));
  }
  const f = (x) => x.toFixed(1);
  const sum = {};
  console.log(`connections ${N}, slowloris ${S} (a byte every ${drip} ms), ${rounds} rounds interleaved; medians over rounds`);
  console.log('server    first response p50/p99 (ms)   from connected p50/p99   kept connection p50/p99   unanswered   peak RSS');
  for (const name of ['mockllm', 'nginx']) {
    const r = results[name];
    const m = (k, i) => median(r.map((x) => x[k][i]));
    sum[name] = { c99: m('connected', 1), s99: m('second', 1), unanswered: r.reduce((a, x) => a + x.unanswered, 0),
      rss: Math.max(...r.map((x) => x.rssMb)) };
    console.log(`${name.padEnd(9)} ${f(m('first', 0)).padStart(8)} / ${f(m('first', 1)).padEnd(18)}` +
      `${f(m('connected', 0)).padStart(8)} / ${f(m('connected', 1)).padEnd(12)}` +
      `${f(m('second', 0)).padStart(8)} / ${f(m('second', 1)).padEnd(13)}` +
      `${String(sum[name].unanswered).padStart(6)}   ${f(sum[name].rss)} MB`);
  }
  const a = sum.mockllm, b = sum.nginx;
  console.log(`p99 ratio mockllm/nginx: from connected ${(a.c99 / b.c99).toFixed(2)}x, kept connection ${(a.s99 / b.s99).toFixed(2)}x`);
  const P99 = +process.env.P99_MS, RSS = +process.env.RSS_MB;
  const ok = a.unanswered === 0 && a.c99 <= P99 && a.s99 <= P99 && a.rss <= RSS;
  console.log(ok ? `target met (p99 ≤ ${P99} ms, RSS ≤ ${RSS} MB, all answered)` : 'target NOT met');
  process.exit(ok ? 0 : 1);
})();
EOF

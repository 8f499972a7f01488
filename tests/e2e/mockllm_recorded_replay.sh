#!/usr/bin/env bash
# End to end: every exchange of the recorded corpus (fixtures/recorded)
# replays through a real `mockllm serve`, read with curl: a stream
# byte-identical to the recorded chunks joined, a JSON body equal to the
# recorded one (same bytes as its compact form), and the recorded status.
#   tests/e2e/mockllm_recorded_replay.sh MOCKLLM_BINARY RECORDED_DIR
set -euo pipefail

bin=$1
recorded=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL $*" >&2
  [ -e "$work/serve.err" ] && cat "$work/serve.err" >&2
  exit 1
}

"$bin" serve --traces "$recorded" --speed 0 >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
url=
for _ in $(seq 600); do
  url=$(sed -n 's/^listening on //p' "$work/serve.out")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || fail "mockllm exited before listening"
  sleep 0.1
done
[ -n "$url" ] || fail "no 'listening on' line"

# One line per exchange, in trace order: N TRACE-ID PATH STATUS STREAMED; files
# N.req, N.want. Each trace is one session, so its exchanges replay in order.
node --input-type=module -e "
import { readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
const walk = (d) => readdirSync(d).flatMap((n) => statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]);
let n = 0;
for (const f of walk(process.argv[1]).filter((p) => p.endsWith('.trace.jsonl')).sort()) {
  const lines = readFileSync(f, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const id = JSON.parse(lines[0]).id;
  for (const line of lines.slice(1)) {
    const x = JSON.parse(line);
    n++;
    writeFileSync(join(process.argv[2], n + '.req'), JSON.stringify(x.request.body));
    const r = x.response;
    const want = r.chunks
      ? Buffer.concat(r.chunks.map((c) => (c.raw !== undefined ? Buffer.from(c.raw, 'utf8') : Buffer.from(c.raw_b64, 'base64'))))
      : r.raw !== undefined ? Buffer.from(r.raw, 'utf8') : r.raw_b64 !== undefined ? Buffer.from(r.raw_b64, 'base64')
      : Buffer.from(JSON.stringify(r.body ?? null));
    writeFileSync(join(process.argv[2], n + '.want'), want);
    console.log([n, encodeURIComponent(id), x.request.path, r.status, r.chunks ? 1 : 0].join(' '));
  }
}" "$recorded" "$work" >"$work/list"

count=0
while read -r n id path status streamed; do
  got=$(curl -sS -N -o "$work/$n.got" -w '%{http_code}' -H 'content-type: application/json' \
    -H "x-mockllm-session: replay-$id" --data-binary @"$work/$n.req" "$url/t/$id$path") ||
    fail "exchange $n ($id): curl failed"
  [ "$got" = "$status" ] || fail "exchange $n ($id): status $got, recorded $status"
  if [ "$streamed" = 1 ]; then
    cmp -s "$work/$n.want" "$work/$n.got" || fail "exchange $n ($id): streamed bytes differ from the recording"
  else
    node -e "
      const a = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));
      const b = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
      require('assert').deepStrictEqual(b, a);" "$work/$n.want" "$work/$n.got" ||
      fail "exchange $n ($id): body differs from the recording"
  fi
  count=$((count + 1))
done <"$work/list"
[ "$count" -gt 0 ] || fail "no recorded exchanges found in $recorded"
echo "ok   $count recorded exchanges replayed (streams byte-identical)"

#!/usr/bin/env bash
# Import speed: `mockllm import` of a HAR with 10 000 Chat Completions entries
# (about 240 MB as generated here; issue 11 states its targets for 100 MB, and
# both figures are per byte) against `python3 -c 'json.load(open(F))'` on the
# same file, medians of 5 interleaved runs each, and mockllm's peak RSS against
# the file size (/usr/bin/time -v). Targets: time ratio <= 3, memory <= 3x.
#   bench/import-speed.sh [MOCKLLM_BINARY]   (default: build/release/mockllm/mockllm)
# Measured 2026-12-06, bench build, 2 cores, the machine otherwise idle:
#   the trace written and linted a line at a time (AtomicFile, TraceLinter),
#   strings written in runs (DumpJson), the HAR's text freed once parsed:
#   mockllm 2.22 s, python 0.80 s, ratio 2.77 (met); peak RSS 2.09x (met).
#   Before (685c126): 3.68 s against 0.80 s, ratio 4.59; peak RSS 3.09x, when
#   the text, the parser's strings and the entries copied out of them lived
#   at once. docs/benchmarks.md has the history.
# Where the time goes now (perf): RE2's scan for secrets 30% (once to redact
# the bodies, once more when each line is linted), parsing and copying the
# rest; nlohmann's serializer, once 20%, is gone.
set -euo pipefail
bin=${1:-build/release/mockllm/mockllm}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
har=$work/big.har

python3 - "$har" <<'PY'
import json, sys
pad = "lorem ipsum dolor sit amet " * 280
entries = []
for i in range(10000):
    chunks = "".join('data: {"id":"c%d","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":null}]}\n\n' % (i, w) for w in ["Hello", " world", pad[:200]])
    body = chunks + 'data: [DONE]\n\n'
    entries.append({"startedDateTime": "2025-01-01T00:00:00Z", "time": 10,
        "request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "content-type", "value": "application/json"}], "queryString": [], "cookies": [],
                    "postData": {"mimeType": "application/json", "text": json.dumps({"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": pad + str(i)}]})},
                    "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "redirectURL": "",
                     "headers": [{"name": "content-type", "value": "text/event-stream"}],
                     "content": {"size": len(body), "mimeType": "text/event-stream", "text": body + pad * 2},
                     "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 5}})
json.dump({"log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "entries": entries}}, open(sys.argv[1], "w"))
PY
size=$(stat -c %s "$har")
echo "HAR: $size bytes, 10000 entries"

secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$work/ours"; : >"$work/peer"
for _ in 1 2 3 4 5; do
  rm -rf "$work/out"
  secs "$bin" import "$har" --out "$work/out" >>"$work/ours"
  secs python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$har" >>"$work/peer"
done
ours=$(median <"$work/ours"); peer=$(median <"$work/peer")
rm -rf "$work/out"
rss_kb=$( { /usr/bin/time -v "$bin" import "$har" --out "$work/out" >/dev/null; } 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): //p')
printf 'mockllm import %.2fs, python json.load %.2fs: ratio %.2f (target <= 3)\n' "$ours" "$peer" "$(echo "$ours / $peer" | bc -l)"
printf 'peak RSS %d MB for a %d MB file: %.2fx (target <= 3)\n' $((rss_kb / 1024)) $((size / 1048576)) "$(echo "$rss_kb * 1024 / $size" | bc -l)"

#!/usr/bin/env bash
# End to end: `curl -N` reads a stream from a real `mockllm serve` and gets
# the recorded bytes exactly; CLI faults change the framing as documented;
# SIGTERM stops the server cleanly and writes the journal.
#   tests/e2e/mockllm_curl_stream.sh MOCKLLM_BINARY FIXTURES_DIR
set -euo pipefail

bin=$1
fixtures=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL $*" >&2
  for f in "$work"/*.err; do [ -e "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
  exit 1
}

# start NAME ARGS…: starts `mockllm serve ARGS…` and sets $url once it listens.
start() {
  local name=$1
  shift
  # The output file exists before the server's shell opens it, so the poll
  # below never reads a file not yet there.
  : >"$work/$name.out"
  "$bin" serve "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pids+=($!)
  pid=$!
  url=
  for _ in $(seq 600); do
    url=$(sed -n 's/^listening on //p' "$work/$name.out")
    [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "$name: mockllm exited before listening"
    sleep 0.1
  done
  fail "$name: no 'listening on' line"
}

chat="$fixtures/mockllm_chat.trace.jsonl"
node_eval() { node --input-type=module -e "import {recordedRequest, recordedStream} from '$here/mockllm_process.mjs'; $1" "$chat"; }
node_eval 'process.stdout.write(JSON.stringify(recordedRequest(process.argv[1], 0)))' >"$work/req0.json"
node_eval 'process.stdout.write(JSON.stringify(recordedRequest(process.argv[1], 1)))' >"$work/req1.json"
node_eval 'process.stdout.write(recordedStream(process.argv[1], 1))' >"$work/expected"

# post SESSION BODY_FILE OUT_FILE: POSTs to the pinned chat trace with curl -N.
post() {
  curl -sS -N -o "$3" -w '%{http_code}' -H 'content-type: application/json' -H "x-mockllm-session: $1" \
    --data-binary @"$2" "$url/t/test%2Fmockllm-chat/v1/chat/completions"
}

# 1. Recorded timing (--speed 1): the stream arrives byte for byte.
start timed --traces "$fixtures" --speed 1 --journal "$work/journal.json"
timed_pid=$pid
[ "$(post s "$work/req0.json" "$work/got0")" = 200 ] || fail "exchange 0 status"
[ "$(post s "$work/req1.json" "$work/got1")" = 200 ] || fail "exchange 1 status"
cmp "$work/expected" "$work/got1" || fail "streamed bytes differ from the recording"
echo "ok   curl -N stream is byte-identical at --speed 1"

# curl has the last byte before the server has noted the answer complete:
# stop it only once its journal says so (a busy machine widens that gap).
for _ in $(seq 100); do
  curl -sS "$url/__admin/journal" | grep -q '"sending"' || break
  sleep 0.1
done
kill -TERM "$timed_pid"
wait "$timed_pid" || fail "mockllm exited with $? on SIGTERM"
node -e '
  const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  if (j.length !== 2 || j[1].response.exchange !== 1 || j[1].response.outcome !== "complete") {
    console.error(JSON.stringify(j, null, 1)); process.exit(1);
  }' "$work/journal.json" || fail "journal written on SIGTERM"
grep -q 'stopped by SIGTERM after 2 journaled request' "$work/timed.err" || fail "stop summary"
echo "ok   SIGTERM stops cleanly and writes the journal"

# 1b. A journal past its limit says so on stop, and the file holds the newest.
start limited --traces "$fixtures" --speed 0 --journal-limit 1 --journal "$work/limited.json"
limited_pid=$pid
post l "$work/req0.json" /dev/null >/dev/null
post l "$work/req1.json" /dev/null >/dev/null
for view in "journal" "journal?session=l" "journal?after=0&limit=5"; do
  curl -sS "$url/__admin/$view" -o "$work/limited-view.json"
  node -e '
    const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (j.length !== 1 || j[0].seq !== 2 || j[0].dropped_before !== 1) {
      console.error(JSON.stringify(j)); process.exit(1);
    }' "$work/limited-view.json" || fail "GET /__admin/$view does not tell the dropped entry"
done
kill -TERM "$limited_pid"
wait "$limited_pid" || fail "mockllm exited with $? on SIGTERM"
node -e '
  const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  if (j.length !== 1 || j[0].seq !== 2 || j[0].dropped_before !== 1) {
    console.error(JSON.stringify(j)); process.exit(1);
  }' "$work/limited.json" || fail "a limited journal keeps the newest entry, marked"
grep -q 'the journal dropped its 1 oldest request(s)' "$work/limited.err" || fail "no word of the dropped entry"
ls "$work" | grep -q '^limited.json.' && fail "a temporary journal file was left behind"
echo "ok   a journal past --journal-limit says so on stop"

# 2. Re-split into seeded random pieces: the same bytes, twice.
start resplit --traces "$fixtures" --speed 0 --fault resplit --seed 42
for run in a b; do
  post "$run" "$work/req0.json" /dev/null >/dev/null
  post "$run" "$work/req1.json" "$work/resplit-$run" >/dev/null
  cmp "$work/expected" "$work/resplit-$run" || fail "resplit changed the bytes"
done
echo "ok   --fault resplit keeps the bytes"

# 3. Cut after two events: curl sees the connection end mid-body.
start cut --traces "$fixtures" --speed 0 --fault cut_after_events=2
post c "$work/req0.json" /dev/null >/dev/null
set +e
post c "$work/req1.json" "$work/cut" >/dev/null 2>"$work/curl-cut.err"
status=$?
set -e
[ "$status" -eq 18 ] || fail "curl exit $status after a cut, expected 18 (partial transfer)"
[ "$(grep -c '^data: ' "$work/cut")" -eq 2 ] || fail "expected 2 events before the cut"
echo "ok   --fault cut_after_events=2 ends the stream after two events"

# 4. CRLF line ends and a BOM.
start crlf --traces "$fixtures" --speed 0 --fault crlf --fault bom
post r "$work/req0.json" /dev/null >/dev/null
post r "$work/req1.json" "$work/crlf" >/dev/null
[ "$(head -c 3 "$work/crlf" | od -An -tx1 | tr -d ' ')" = efbbbf ] || fail "no BOM"
tail -c +4 "$work/crlf" | tr -d '\r' | cmp - "$work/expected" || fail "CRLF stream differs beyond its line ends"
echo "ok   --fault crlf --fault bom"

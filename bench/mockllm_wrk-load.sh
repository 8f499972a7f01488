#!/usr/bin/env bash
# mockllm replay throughput under wrk, beside WireMock standalone serving the
# same responses and nginx serving the same bytes as static files, in the
# same run on loopback.
#
#   bench/mockllm_wrk-load.sh [BUILD_DIR]      (default build/release; built if missing)
#
# Measures, for each server: a non-streamed chat completion, and a streamed
# one of 200 chunks (mockllm at --speed 0), both matched on the request body
# (mockllm: unpinned canonical JSON; WireMock: equalToJson; nginx: no
# matching, a static file), and for information the stream again with
# --piecewise (each of the 200 recorded pieces in its own write), and what
# mockllm's Prometheus metrics cost: the same replies from a mockllm that
# counts none (--no-metrics), its req/s and CPU per request beside the
# default's (docs/benchmarks.md "Metrics"). ROUNDS
# rounds, the servers' order alternating; each figure is the median of its
# rounds. Then the same at WIDE connections (wrk's p99 latency beside req/s),
# then mockllm's RSS sampled across a longer non-streamed run. Prints req/s,
# errors (socket errors and non-2xx answers) and the ratios, and each
# server's CPU time per answered request (its processes' user + system time
# over the run, from /proc, divided by the requests wrk counted: wrk shares
# the cores, so a req/s ratio is narrowed by the load generator's share; the
# CPU ratio is what each server costs apart from it), wrk's own CPU time per
# request, and what CPU per reply the machine leaves a server at TARGET_RATIO
# x WireMock's JSON figure once wrk has had its share. Exit 0 when
# mockllm reaches TARGET_RATIO x WireMock's req/s on both at CONNECTIONS,
# with no errors and RSS growth under RSS_LIMIT_PERCENT; 1 otherwise.
#
# Environment: DURATION (s per run, default 5), ROUNDS (5), RSS_DURATION (s,
# default 30), CONNECTIONS (default 32), THREADS (wrk threads, default 2),
# WIDE (connections of the second pass, default 512; 0 skips it),
# TARGET_RATIO (5), RSS_LIMIT_PERCENT (10), WIREMOCK_JOURNAL (`off`, the
# default: WireMock keeps no request journal, its fastest setting; `on`:
# WireMock's own default, a journal without bound; `bounded`: a journal of
# 10000 entries, what mockllm keeps by default, --journal-limit).
# For scale, the JSON table also shows the loopback ceiling: nginx answering
# one byte from its configuration (`return 200`), the least work an HTTP
# server can do per request, under the same wrk. Needs wrk, node, java 17, nginx
# and the `wiremock` npm package (scripts/install-deps --bench puts them in
# place).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
duration=${DURATION:-5}
rounds=${ROUNDS:-5}
wide=${WIDE:-512}
rss_duration=${RSS_DURATION:-30}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
target_ratio=${TARGET_RATIO:-5}
rss_limit=${RSS_LIMIT_PERCENT:-10}
wiremock_journal=${WIREMOCK_JOURNAL:-off}
case $wiremock_journal in
  off) wiremock_journal_flag=--no-request-journal ;;
  on) wiremock_journal_flag= ;;
  bounded) wiremock_journal_flag="--max-request-journal-entries 10000" ;;
  *) echo "mockllm_wrk-load: WIREMOCK_JOURNAL must be off, on or bounded, not '$wiremock_journal'" >&2; exit 2 ;;
esac
mockllm=$build/mockllm/mockllm
jar=$(ls "$root"/tests/e2e/node_modules/wiremock/build/wiremock-standalone-*.jar 2>/dev/null | head -n1 || true)

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
need_tools mockllm_wrk-load wrk node java pgrep
[ -n "$jar" ] || { echo "mockllm_wrk-load: no WireMock jar in tests/e2e/node_modules (run scripts/install-deps)" >&2; exit 2; }
built_mockllm mockllm_wrk-load "$root" "$mockllm"

bench_workdir

# The trace mockllm replays, the WireMock mappings for the same exchanges, and
# the request bodies wrk sends.
node - "$work" <<'EOF'
const fs = require('fs');
const path = require('path');
const work = process.argv[2];
const base = { model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'You are a benchmark.' }, { role: 'user', content: 'Answer.' }] };
const jsonRequest = base;
const streamRequest = { ...base, stream: true };
const answer = {
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1767225600, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'A benchmark answer of a realistic length. '.repeat(8) }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 80, total_tokens: 100 },
};
const chunk = (delta, finish) => ({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-4o-mini',
  choices: [{ index: 0, delta, finish_reason: finish }] });
const events = [chunk({ role: 'assistant', content: '' }, null)];
for (let i = 1; i < 198; i++) events.push(chunk({ content: `token${i} ` }, null));
events.push(chunk({}, 'stop'));
const raws = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).concat(['data: [DONE]\n\n']);
if (raws.length !== 200) throw new Error(`expected 200 chunks, made ${raws.length}`);
const header = { format: 'llmconform-trace/1', id: 'bench/replay', origin: 'synthesized', model: 'gpt-4o-mini' };
const x1 = { seq: 1, request: { method: 'POST', path: '/v1/chat/completions', headers: {}, body: jsonRequest },
  response: { status: 200, headers: { 'content-type': 'application/json' }, body: answer } };
const x2 = { seq: 2, request: { method: 'POST', path: '/v1/chat/completions', headers: {}, body: streamRequest },
  response: { status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: raws.map((raw, i) => ({ t_ms: i * 20, raw })) } };
fs.writeFileSync(path.join(work, 'bench.trace.jsonl'), [header, x1, x2].map((o) => JSON.stringify(o)).join('\n') + '\n');
fs.mkdirSync(path.join(work, 'wiremock', 'mappings'), { recursive: true });
const mapping = (request, contentType, body) => ({
  request: { method: 'POST', url: '/v1/chat/completions', bodyPatterns: [{ equalToJson: JSON.stringify(request) }] },
  response: { status: 200, headers: { 'Content-Type': contentType }, body },
});
fs.writeFileSync(path.join(work, 'wiremock', 'mappings', 'json.json'), JSON.stringify(mapping(jsonRequest, 'application/json', JSON.stringify(answer))));
fs.writeFileSync(path.join(work, 'wiremock', 'mappings', 'stream.json'), JSON.stringify(mapping(streamRequest, 'text/event-stream', raws.join(''))));
fs.writeFileSync(path.join(work, 'json.body'), JSON.stringify(jsonRequest));
fs.writeFileSync(path.join(work, 'stream.body'), JSON.stringify(streamRequest));
fs.writeFileSync(path.join(work, 'expected-stream'), raws.join(''));
fs.writeFileSync(path.join(work, 'expected-json'), JSON.stringify(answer));
fs.mkdirSync(path.join(work, 'nginx', 'www', 'json'), { recursive: true });
fs.mkdirSync(path.join(work, 'nginx', 'www', 'stream'), { recursive: true });
fs.writeFileSync(path.join(work, 'nginx', 'www', 'json', 'v1-chat-completions'), JSON.stringify(answer));
fs.writeFileSync(path.join(work, 'nginx', 'www', 'stream', 'v1-chat-completions'), raws.join(''));
EOF

for kind in json stream; do
  cat >"$work/$kind.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/$kind.body", "rb")
wrk.body = f:read("*a")
f:close()
EOF
done

wait_for() {  # URL BODY_FILE LOG: until the server answers 200 (a JVM on a busy machine takes a while)
  for _ in $(seq 1200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' --data-binary @"$2" "$1" || true)" = 200 ] && return 0
    sleep 0.1
  done
  echo "mockllm_wrk-load: FAIL: $1 did not answer within 120 s; its log:" >&2
  cat "$3" >&2
  exit 1
}

# start_mockllm NAME ARGS…: starts `mockllm serve`, sets $url and $pid.
start_mockllm() {
  local name=$1
  shift
  "$mockllm" serve --traces "$work/bench.trace.jsonl" --speed 0 --threads 64 "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pid=$!
  pids+=("$pid")
  url=
  for _ in $(seq 600); do
    url=$(sed -n 's/^listening on //p' "$work/$name.out")
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  cat "$work/$name.err" >&2
  exit 1
}
start_mockllm mockllm
mockllm_url=$url
mockllm_pid=$pid
start_mockllm piecewise --piecewise
piecewise_url=$url
piecewise_pid=$pid
start_mockllm nometrics --no-metrics
nometrics_url=$url
nometrics_pid=$pid

# Start WireMock. By default without a request journal: its fastest setting
# (its own default journal grows without bound; a bounded one,
# --max-request-journal-entries, is slower still).
wiremock_port=$(free_port)
java -jar "$jar" --port "$wiremock_port" --bind-address 127.0.0.1 --root-dir "$work/wiremock" \
  $wiremock_journal_flag --disable-banner --container-threads 64 >"$work/wiremock.log" 2>&1 &
wiremock_pid=$!
pids+=("$wiremock_pid")
wiremock_url=http://127.0.0.1:$wiremock_port

# nginx: the same bytes as static files (a POST to a static file is answered
# through error_page 405 =200), its default two workers, no access log.
# shellcheck source=bench/nginx-peer.sh
. "$root/bench/nginx-peer.sh"
nginx_port=$(free_port)
start_nginx "$work/nginx" "$nginx_port" "
    location /json/ { root $work/nginx/www; default_type application/json; error_page 405 =200 \$uri; }
    location /stream/ { root $work/nginx/www; default_type text/event-stream; error_page 405 =200 \$uri; }
    location = /ceiling { return 200 x; }"
pids+=("$nginx_pid")
nginx_url=http://127.0.0.1:$nginx_port
ceiling_url=$nginx_url
ceiling_pid=$nginx_pid
wait_for "$wiremock_url/v1/chat/completions" "$work/json.body" "$work/wiremock.log"
wait_for "$mockllm_url/v1/chat/completions" "$work/json.body" "$work/mockllm.err"
wait_for "$nginx_url/json/v1-chat-completions" "$work/json.body" "$work/nginx/error.log"

# path_of SERVER KIND: the path a server answers KIND on.
path_of() {
  case $1 in
    nginx) echo "/$2/v1-chat-completions" ;;
    ceiling) echo /ceiling ;;
    *) echo /v1/chat/completions ;;
  esac
}

# All must answer the same bytes before their speed means anything.
for kind in json stream; do
  for server in mockllm piecewise nometrics wiremock nginx; do
    url_var=${server}_url
    curl -s -o "$work/got-$server-$kind" -H 'content-type: application/json' --data-binary @"$work/$kind.body" \
      "${!url_var}$(path_of "$server" "$kind")"
    cmp -s "$work/expected-$kind" "$work/got-$server-$kind" || { echo "mockllm_wrk-load: FAIL: $server answers $kind differently" >&2; exit 1; }
  done
done

# cpu_ticks PID: the CPU time (user + system, clock ticks) of PID and its
# children (nginx's workers) so far.
cpu_ticks() {
  local p t=0
  for p in "$1" $(pgrep -P "$1" || true); do
    t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
tick_us=$(awk -v h="$(getconf CLK_TCK)" 'BEGIN { print 1000000 / h }')

# run_wrk URL KIND SECONDS [CONNECTIONS [PID]] → "REQ_PER_SEC ERRORS P99_MS CPU_US WRK_CPU_US"
# CPU_US: the CPU time the server (PID) spent per answered request, in µs
# (0 without a PID: a warm-up); WRK_CPU_US: the same for wrk itself (its
# user + system time, read as the waited-for children's time of the subshell
# that ran it).
run_wrk() {
  local out t0=0 t1=0
  [ -n "${5:-}" ] && t0=$(cpu_ticks "$5")
  out=$(
    self=$BASHPID
    wrk -t "$threads" -c "${4:-$connections}" -d "${3}s" --latency -s "$work/$2.lua" "$1"
    echo "wrk-cpu-ticks $(awk '{ print $16 + $17 }' "/proc/$self/stat")"
  )
  [ -n "${5:-}" ] && t1=$(cpu_ticks "$5")
  echo "$out" >>"$work/wrk.log"
  local rps errors non2xx p99 n cpu wrk_cpu
  rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
  n=$(echo "$out" | awk '/requests in/ { print $1 }')
  cpu=$(awk -v d="$((t1 - t0))" -v n="${n:-0}" -v u="$tick_us" 'BEGIN { printf "%.2f", (n > 0 ? d * u / n : 0) }')
  wrk_cpu=$(echo "$out" | awk -v n="${n:-0}" -v u="$tick_us" '$1 == "wrk-cpu-ticks" { printf "%.2f", (n > 0 ? $2 * u / n : 0) }')
  errors=$(echo "$out" | awk '/Socket errors:/ {gsub(",", ""); print $4 + $6 + $8 + $10}')
  non2xx=$(echo "$out" | awk '/Non-2xx or 3xx responses:/ {print $5}')
  p99=$(echo "$out" | awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } print v }')
  echo "${rps:-0} $(( ${errors:-0} + ${non2xx:-0} )) ${p99:-0} $cpu ${wrk_cpu:-0}"
}

# Warm all up (the JVM needs it most) before measuring.
run_wrk "$wiremock_url/v1/chat/completions" json 5 >/dev/null
run_wrk "$wiremock_url/v1/chat/completions" stream 5 >/dev/null
run_wrk "$mockllm_url/v1/chat/completions" json 2 >/dev/null
run_wrk "$nginx_url/json/v1-chat-completions" json 2 >/dev/null

# measure CONNECTIONS: ROUNDS rounds of every server and kind, the servers'
# order alternating; results in $work/res-CONNECTIONS-SERVER-KIND, one
# "rps errors p99 cpu_us wrk_cpu_us" line per round.
measure() {
  local c=$1 order r kind server url_var pid_var
  for ((r = 0; r < rounds; r++)); do
    if ((r % 2)); then order="ceiling nginx wiremock piecewise nometrics mockllm"; else order="mockllm nometrics piecewise wiremock nginx ceiling"; fi
    for kind in json stream; do
      for server in $order; do
        [ "$server" = piecewise ] && [ "$kind" = json ] && continue
        [ "$server" = ceiling ] && [ "$kind" = stream ] && continue
        url_var=${server}_url pid_var=${server}_pid
        run_wrk "${!url_var}$(path_of "$server" "$kind")" "$kind" "$duration" "$c" "${!pid_var}" \
          >>"$work/res-$c-$server-$kind"
      done
    done
  done
}
# col CONNECTIONS SERVER KIND FIELD (1 req/s, 2 errors, 3 p99 ms, 4 server
# CPU µs per request, 5 wrk's CPU µs per request): the median
# over the rounds (errors: their sum).
col() {
  if [ "$4" = 2 ]; then awk '{ s += $2 } END { print s + 0 }' "$work/res-$1-$2-$3"
  else awk -v f="$4" '{ print $f }' "$work/res-$1-$2-$3" | median; fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
report() {
  local c=$1 kind server k label m w n
  printf '%s connections, wrk -t%s, %s interleaved rounds of %s s; medians; WireMock request journal %s\n' \
    "$c" "$threads" "$rounds" "$duration" "$wiremock_journal"
  printf '%-32s %9s %9s %9s %10s %8s %9s %18s\n' "response (req/s)" "mockllm" "WireMock" "nginx" \
    "/WireMock" "/nginx" "errors" "p99 ms m/W/n"
  for kind in json stream piecewise; do
    server=mockllm k=$kind
    [ "$kind" = piecewise ] && server=piecewise k=stream
    case $kind in
      json) label="chat completion (JSON)" ;;
      stream) label="stream, 200 chunks, --speed 0" ;;
      piecewise) label="  same, --piecewise (200 writes)" ;;
    esac
    m=$(col "$c" "$server" "$k" 1); w=$(col "$c" wiremock "$k" 1); n=$(col "$c" nginx "$k" 1)
    printf '%-32s %9.0f %9.0f %9.0f %9sx %7sx %9s %18s\n' "$label" "$m" "$w" "$n" "$(ratio "$m" "$w")" \
      "$(ratio "$m" "$n")" "$(col "$c" "$server" "$k" 2)/$(col "$c" wiremock "$k" 2)/$(col "$c" nginx "$k" 2)" \
      "$(col "$c" "$server" "$k" 3)/$(col "$c" wiremock "$k" 3)/$(col "$c" nginx "$k" 3)"
  done
  local ceiling w5
  ceiling=$(col "$c" ceiling json 1)
  w5=$(awk -v w="$(col "$c" wiremock json 1)" -v t="$target_ratio" 'BEGIN { printf "%.0f", w * t }')
  printf 'loopback ceiling (nginx: return 200 of one byte, same wrk): %.0f req/s; %s× WireMock (JSON) would be %s req/s\n' \
    "$ceiling" "$target_ratio" "$w5"
  # wrk shares the machine's cores with the server: what a server spends per
  # request, apart from the load generator's share, is its CPU time.
  printf '%-32s %9s %9s %9s %10s %8s\n' "server CPU per request (µs)" "mockllm" "WireMock" "nginx" \
    "WireMock/" "nginx/"
  for kind in json stream; do
    m=$(col "$c" mockllm "$kind" 4); w=$(col "$c" wiremock "$kind" 4); n=$(col "$c" nginx "$kind" 4)
    printf '%-32s %9.2f %9.2f %9.2f %9sx %7sx\n' "  $kind" "$m" "$w" "$n" "$(ratio "$w" "$m")" "$(ratio "$n" "$m")"
  done
  printf '%-32s %9s %9s %9.2f\n' "  ceiling (return 200)" "" "" "$(col "$c" ceiling json 4)"
  # What counting the metrics costs: the default against --no-metrics.
  printf '%-32s %9s %9s %9s %10s %10s\n' "metrics cost" "req/s" "no-metr." "ratio" "CPU µs" "no-metr."
  for kind in json stream; do
    m=$(col "$c" mockllm "$kind" 1); n=$(col "$c" nometrics "$kind" 1)
    printf '%-32s %9.0f %9.0f %9sx %10.2f %10.2f\n' "  $kind" "$m" "$n" "$(ratio "$m" "$n")" \
      "$(col "$c" mockllm "$kind" 4)" "$(col "$c" nometrics "$kind" 4)"
  done
  printf '%-32s %9s %9s %9s\n' "wrk's own CPU per request (µs)" "mockllm" "WireMock" "nginx"
  for kind in json stream; do
    printf '%-32s %9.2f %9.2f %9.2f\n' "  $kind" "$(col "$c" mockllm "$kind" 5)" "$(col "$c" wiremock "$kind" 5)" \
      "$(col "$c" nginx "$kind" 5)"
  done
  # The CPU a server may spend per JSON reply at TARGET_RATIO x WireMock: the
  # machine's CPU time per second over that rate, less what wrk spends per
  # reply (as measured against mockllm).
  awk -v cores="$(nproc)" -v w5="$w5" -v wrk="$(col "$c" mockllm json 5)" -v t="$target_ratio" \
    -v ceil="$(col "$c" ceiling json 4)" 'BEGIN {
      if (w5 > 0) printf "at %s× WireMock (JSON), %d cores leave a server %.2f µs per reply beside the %.2f wrk spends (nginx returning one byte from its configuration spends %.2f)\n",
        t, cores, cores * 1000000 / w5 - wrk, wrk, ceil }'
}

verdict=0
measure "$connections"
report "$connections"
for kind in json stream; do
  r=$(ratio "$(col "$connections" mockllm "$kind" 1)" "$(col "$connections" wiremock "$kind" 1)")
  awk -v r="$r" -v t="$target_ratio" 'BEGIN { exit !(r >= t) }' || verdict=1
  [ "$(col "$connections" mockllm "$kind" 2)" -eq 0 ] || verdict=1
done
if [ "$wide" -gt 0 ]; then
  echo
  measure "$wide"
  report "$wide"
fi
echo

# RSS across a longer run: sampled every second, first sample after warm-up.
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$mockllm_pid/status"; }
wrk -t "$threads" -c "$connections" -d "${rss_duration}s" -s "$work/json.lua" "$mockllm_url/v1/chat/completions" \
  >"$work/rss-wrk.log" &
wrk_pid=$!
samples=()
for _ in $(seq "$rss_duration"); do
  sleep 1
  samples+=("$(rss)")
done
wait "$wrk_pid" || true
first=${samples[2]:-${samples[0]}}
max=$(printf '%s\n' "${samples[@]:2}" | sort -n | tail -n1)
last=${samples[-1]}
growth=$(awk -v a="$first" -v b="$max" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
rss_rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/rss-wrk.log")
printf 'mockllm RSS over %ss at %.0f req/s: %s kB after 3 s, %s kB at the end, peak %s kB (%s%%)\n' \
  "$rss_duration" "$rss_rps" "$first" "$last" "$max" "$growth"
awk -v g="$growth" -v l="$rss_limit" 'BEGIN { exit !(g < l) }' || verdict=1

if [ "$verdict" -eq 0 ]; then
  echo "mockllm_wrk-load: PASS (≥${target_ratio}× WireMock, no errors, RSS growth under ${rss_limit}%)"
else
  echo "mockllm_wrk-load: FAIL (target ≥${target_ratio}× WireMock at $connections connections, no errors, RSS growth under ${rss_limit}%)" >&2
fi
exit "$verdict"

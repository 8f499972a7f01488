# Shared by the load scripts of bench/ (source it; bash only): a work folder
# removed on exit with every server the script started, a free loopback port,
# and the median of numbers on stdin.
#
#   . "$root/bench/lib.sh"
#   bench_workdir            # sets $work (a new temporary folder) and $pids (empty);
#                            # on exit kills every PID appended to pids, waits, removes $work
#   port=$(free_port)        # a loopback port free a moment ago (node)
#   printf '3\n1\n2\n' | median   # 2 (the mean of the middle two for an even count)
#   need_tools NAME wrk node      # exits 2, naming NAME (the script), at the first tool missing
#   built_mockllm NAME ROOT BIN   # builds the release mockllm when BIN is not there yet

bench_workdir() {
  work=$(mktemp -d)
  pids=()
  trap bench_cleanup EXIT
}

bench_cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

need_tools() {
  local who=$1 tool
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$who: $tool is missing (scripts/install-deps)" >&2; exit 2; }
  done
}

built_mockllm() {
  [ -x "$3" ] && return 0
  echo "$1: building $3" >&2
  (cd "$2" && cmake --preset release >/dev/null && cmake --build --preset release --target mockllm -j "$(nproc)" >&2)
}

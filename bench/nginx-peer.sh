# Sourced by the load benchmarks: starts nginx as their same-run peer.
#
#   start_nginx DIR PORT 'LOCATION BLOCKS'
#
# Writes DIR/nginx.conf (foreground, workers as the calling user, `worker_processes auto`, no access log,
# temporary files and logs in DIR, keep-alive without a request limit), starts
# nginx on 127.0.0.1:PORT with the given `location` blocks, sets $nginx_pid
# and waits until it listens. Exits 2 when nginx is missing or does not start.
start_nginx() {
  local dir=$1 port=$2 locations=$3 nginx
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
  [ -x "$nginx" ] || { echo "nginx is missing (scripts/install-deps --bench)" >&2; exit 2; }
  mkdir -p "$dir"
  # Started as root, nginx's workers would run as www-data and could not read
  # a private temporary folder: keep them as the user who runs the benchmark.
  local user=
  [ "$(id -u)" -eq 0 ] && user="user root;"
  cat >"$dir/nginx.conf" <<EOF
$user
daemon off;
worker_processes auto;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  keepalive_timeout 5s;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$port;
    $locations
  }
}
EOF
  "$nginx" -c "$dir/nginx.conf" -p "$dir" >"$dir/start.log" 2>&1 &
  nginx_pid=$!
  for _ in $(seq 100); do [ -s "$dir/nginx.pid" ] && return 0; sleep 0.05; done
  echo "nginx did not start: $(cat "$dir/start.log" "$dir/error.log" 2>/dev/null)" >&2
  exit 2
}

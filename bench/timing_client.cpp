// The measuring client of bench/mockllm_timing-fidelity.sh: opens N
// connections to a streaming server on loopback, sends each the same request
// (read from a file) at once, and reads every stream from one thread with
// epoll, stamping each SSE event with CLOCK_MONOTONIC when the read that
// completes it returns. One thread and no allocation per event, so at 1 000
// streams of 100 events it costs a fraction of a core and its own delay stays
// far below the millisecond it measures.
//
//   timing_client HOST PORT N REQUEST_FILE EVENTS GAP_MS
//   timing_client --floor EVENTS GAP_MS
//
// Prints one JSON object: p50/p99/max of the error of event k,
// |(t_k - t_1) - GAP_MS (k - 1)| ms over k = 2..EVENTS of every stream; p50/
// p99/max of the first byte's delay after the request left; and the streams
// that failed (refused, not 200, ended before EVENTS events). Exit 0, or 2 on
// a usage error. With --floor, no server: the error of this one thread
// sleeping until each of EVENTS times GAP_MS apart (absolute deadlines), the
// least error any server can show on the machine as loaded at the moment.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

double NowMs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// One stream: the bytes of its head, then its body dechunked as it comes,
// scanned for the blank lines that end SSE events.
struct Stream {
  int fd = -1;
  double sent_at = 0, first_byte_at = 0;
  std::string head;  // until "\r\n\r\n"
  bool in_body = false, chunked = false, failed = false, done = false;
  int status = 0;
  // Chunked decoding: the size line being read, the bytes left in the chunk,
  // the CRLF after it still to skip.
  std::string size_line;
  std::size_t chunk_left = 0;
  int crlf_left = 0;
  bool last_chunk = false;
  char prev = 0;  // the last body byte, to see "\n\n" across reads
  std::vector<double> events;
};

// Takes body bytes: each "\n\n" ends an event at `now`.
void TakeBody(Stream& s, const char* p, std::size_t n, double now) {
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] == '\n' && s.prev == '\n') {
      s.events.push_back(now);
      s.prev = 0;
      continue;
    }
    if (p[i] != '\r') s.prev = p[i];
  }
}

void TakeChunked(Stream& s, const char* p, std::size_t n, double now) {
  std::size_t i = 0;
  while (i < n && !s.last_chunk) {
    if (s.crlf_left > 0) {
      --s.crlf_left;
      ++i;
      continue;
    }
    if (s.chunk_left > 0) {
      const std::size_t take = std::min(s.chunk_left, n - i);
      TakeBody(s, p + i, take, now);
      s.chunk_left -= take;
      i += take;
      if (s.chunk_left == 0) s.crlf_left = 2;
      continue;
    }
    if (p[i] != '\n') {
      s.size_line.push_back(p[i++]);
      continue;
    }
    ++i;
    s.chunk_left = std::strtoul(s.size_line.c_str(), nullptr, 16);
    s.size_line.clear();
    if (s.chunk_left == 0) s.last_chunk = true;
  }
}

void Take(Stream& s, const char* p, std::size_t n, double now) {
  if (s.first_byte_at == 0) s.first_byte_at = now;
  std::size_t i = 0;
  if (!s.in_body) {
    for (; i < n && !s.in_body; ++i) {
      s.head.push_back(p[i]);
      if (s.head.ends_with("\r\n\r\n")) s.in_body = true;
    }
    if (!s.in_body) return;
    s.status = std::atoi(s.head.c_str() + std::min<std::size_t>(9, s.head.size()));
    std::string lower = s.head;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    s.chunked = lower.find("transfer-encoding: chunked") != std::string::npos;
  }
  if (s.chunked) {
    TakeChunked(s, p + i, n - i, now);
  } else {
    TakeBody(s, p + i, n - i, now);
  }
}

double Percentile(std::vector<double>& v, double q) {
  if (v.empty()) return NAN;
  const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(q * (v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

std::string Summary(std::vector<double> v) {
  char out[160];
  if (v.empty()) return "null";
  const double max = *std::max_element(v.begin(), v.end());
  const double p50 = Percentile(v, 0.50), p99 = Percentile(v, 0.99);
  std::snprintf(out, sizeof out, "{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}", p50, p99, max);
  return out;
}

}  // namespace

// --floor: wakes at t_0 + GAP_MS k for k < EVENTS and reports how late.
int Floor(std::size_t events, double gap) {
  std::vector<double> errors;
  const double t0 = NowMs();
  for (std::size_t k = 1; k < events; ++k) {
    const double due = t0 + gap * static_cast<double>(k);
    timespec at{};
    at.tv_sec = static_cast<time_t>(due / 1e3);
    at.tv_nsec = static_cast<long>((due - static_cast<double>(at.tv_sec) * 1e3) * 1e6);
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
    }
    errors.push_back(std::fabs(NowMs() - due));
  }
  std::printf("{\"streams\":1,\"failed\":0,\"error_ms\":%s,\"first_byte_ms\":null}\n",
              Summary(errors).c_str());
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--floor") {
    return Floor(static_cast<std::size_t>(std::atoi(argv[2])), std::atof(argv[3]));
  }
  if (argc != 7) {
    std::fprintf(stderr, "usage: timing_client HOST PORT N REQUEST_FILE EVENTS GAP_MS\n");
    return 2;
  }
  const std::string host = argv[1];
  const int port = std::atoi(argv[2]);
  const int n = std::atoi(argv[3]);
  std::ifstream in(argv[4], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string request = text.str();
  const std::size_t want = static_cast<std::size_t>(std::atoi(argv[5]));
  const double gap = std::atof(argv[6]);
  if (n <= 0 || port <= 0 || request.empty() || want < 2) {
    std::fprintf(stderr, "timing_client: bad arguments\n");
    return 2;
  }
  // A descriptor per stream: the soft limit (1024 on Debian) raised to the hard one.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  std::vector<Stream> streams(static_cast<std::size_t>(n));
  const int ep = ::epoll_create1(0);
  // Connects them all first (blocking connects on loopback), then sends.
  for (Stream& s : streams) {
    s.fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(s.fd);
      s.fd = -1;
      s.failed = true;
    }
  }
  std::size_t open = 0;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    Stream& s = streams[i];
    if (s.fd < 0) continue;
    s.sent_at = NowMs();
    if (::send(s.fd, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      s.failed = true;
      ::close(s.fd);
      s.fd = -1;
      continue;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, s.fd, &ev);
    ++open;
  }
  std::vector<epoll_event> ready(1024);
  char buf[65536];
  while (open > 0) {
    const int k = ::epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 60000);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;  // a minute without a byte: what is left failed
    const double now = NowMs();
    for (int j = 0; j < k; ++j) {
      Stream& s = streams[ready[static_cast<std::size_t>(j)].data.u64];
      const ssize_t r = ::recv(s.fd, buf, sizeof buf, MSG_DONTWAIT);
      if (r > 0) {
        Take(s, buf, static_cast<std::size_t>(r), now);
        if (!s.last_chunk && s.events.size() < want) continue;
      } else if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
        continue;
      }
      s.done = true;
      ::epoll_ctl(ep, EPOLL_CTL_DEL, s.fd, nullptr);
      ::close(s.fd);
      s.fd = -1;
      --open;
    }
  }
  std::vector<double> errors, first_bytes;
  int failed = 0;
  for (Stream& s : streams) {
    if (s.fd >= 0) ::close(s.fd);
    if (s.failed || s.status != 200 || s.events.size() < want) {
      ++failed;
      continue;
    }
    first_bytes.push_back(s.first_byte_at - s.sent_at);
    for (std::size_t e = 1; e < want; ++e) {
      errors.push_back(std::fabs((s.events[e] - s.events[0]) - gap * static_cast<double>(e)));
    }
  }
  std::printf("{\"streams\":%d,\"failed\":%d,\"error_ms\":%s,\"first_byte_ms\":%s}\n", n, failed,
              Summary(errors).c_str(), Summary(first_bytes).c_str());
  return 0;
}

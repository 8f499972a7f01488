// Support of the probe's end-to-end tests (tests/probe_cli_test.cpp,
// tests/probe_surfaces_cli_test.cpp): a real `mockllm serve` as a stand-in
// endpoint, small hostile HTTP servers on loopback, the catalogue's dialects
// by surface, and reading the printed row. Test-only.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/test_paths.h"
#include "tests/subprocess.h"

namespace llmconform::probe_test {

using nlohmann::json;

const std::string kMockllm = ::llmconform::test_paths::MockllmBinary();

// A background `mockllm serve` on an ephemeral port, stopped (SIGTERM, then
// SIGKILL) when destroyed.
class MockllmServer {
 public:
  explicit MockllmServer(std::vector<std::string> args) {
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, 2);
      close(out[0]);
      close(out[1]);
      std::vector<std::string> argv = {kMockllm, "serve", "--port", "0", "--speed", "0"};
      argv.insert(argv.end(), args.begin(), args.end());
      std::vector<char*> raw;
      for (auto& a : argv) raw.push_back(a.data());
      raw.push_back(nullptr);
      execv(raw[0], raw.data());
      _exit(127);
    }
    close(out[1]);
    std::string text;
    char buf[4096];
    // The first line is "listening on http://127.0.0.1:PORT"; bounded by 60 s.
    for (int waited = 0; text.find('\n') == std::string::npos && waited < 600; ++waited) {
      pollfd p{out[0], POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<std::size_t>(n));
    }
    close(out[0]);
    const auto at = text.find("http://");
    if (at != std::string::npos) url_ = text.substr(at, text.find('\n', at) - at);
  }
  ~MockllmServer() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      usleep(50000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  MockllmServer(const MockllmServer&) = delete;
  MockllmServer& operator=(const MockllmServer&) = delete;
  const std::string& url() const { return url_; }  // "" when it did not start

 private:
  pid_t pid_ = -1;
  std::string url_;
};

// A misbehaving HTTP server on 127.0.0.1, one connection at a time.
// The JSON a probe printed; a test failure when it is none.
inline json ParseOrFail(const testing::ProcessResult& r) {
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
  return j;
}

// The strings of a JSON array (none when it is not one).
inline std::set<std::string> Ids(const json& array) {
  std::set<std::string> out;
  if (array.is_array())
    for (const auto& v : array) out.insert(v.get<std::string>());
  return out;
}

// The replay dialects of specs/wire/dialects.json ("providers") whose
// `surface` is `surface` (absent: "chat"), each with its deviations' ids.
inline std::map<std::string, std::set<std::string>> CatalogueDialects(
    const std::filesystem::path& root, std::string_view surface) {
  std::ifstream in(root / "specs/wire/dialects.json");
  const json catalogue = json::parse(in);
  std::map<std::string, std::set<std::string>> out;
  for (const json& p : catalogue.at("providers")) {
    if (p.value("surface", "chat") != surface) continue;
    std::set<std::string>& ids = out[p.at("name").get<std::string>()];
    for (const json& d : p.at("deviations")) ids.insert(d.at("id").get<std::string>());
  }
  return out;
}

// kPings: a 200 event stream of 10^5 Anthropic `ping` events and nothing else.
enum class Misbehaviour { kClose, kNotJson, kGarbageSse, kStall, kTrickle, kEchoKey, kPings };

class HostileServer {
 public:
  explicit HostileServer(Misbehaviour how) : how_(how) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd_, 16) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 || pipe(stop_) != 0) {
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~HostileServer() {
    if (thread_.joinable()) {
      const char c = 'x';
      (void)!write(stop_[1], &c, 1);
      thread_.join();
    }
    close(fd_);
    close(stop_[0]);
    close(stop_[1]);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int connections() const { return connections_; }

 private:
  // Waits for `fd` to be readable; false when asked to stop.
  bool Wait(int fd) {
    pollfd p[2] = {{fd, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    while (poll(p, 2, -1) < 0) {
    }
    return !(p[1].revents & POLLIN);
  }
  void Serve() {
    while (Wait(fd_)) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++connections_;
      Handle(c);
      close(c);
    }
  }
  void Handle(int c) {
    std::string req;
    char buf[8192];
    // The request head and its body (Content-Length).
    for (;;) {
      const auto head = req.find("\r\n\r\n");
      if (head != std::string::npos) {
        std::size_t length = 0;
        const auto cl = req.find("ontent-Length: ");
        if (cl != std::string::npos && cl < head) length = std::stoul(req.substr(cl + 15));
        if (req.size() >= head + 4 + length) break;
      }
      if (!Wait(c)) return;
      const ssize_t n = read(c, buf, sizeof buf);
      if (n <= 0) return;
      req.append(buf, static_cast<std::size_t>(n));
    }
    auto send_all = [c](const std::string& s) {
      for (std::size_t at = 0; at < s.size();) {
        const ssize_t n = send(c, s.data() + at, s.size() - at, MSG_NOSIGNAL);
        if (n <= 0) return;
        at += static_cast<std::size_t>(n);
      }
    };
    auto answer = [&](std::string status, std::string type, std::string body) {
      send_all("HTTP/1.1 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    };
    switch (how_) {
      case Misbehaviour::kClose:
        return;
      case Misbehaviour::kNotJson:
        return answer("200 OK", "application/json", "<html><body>Bad gateway</body></html>");
      case Misbehaviour::kGarbageSse:
        send_all(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
            "data: {\"choices\":[{\"delta\":{\"content\"\n\n\xff\xfe\x01"
            "data: [\n\n");
        return;
      case Misbehaviour::kStall:
        // Say nothing until the client gives up (or the test ends).
        while (Wait(c) && read(c, buf, sizeof buf) > 0) {
        }
        return;
      case Misbehaviour::kTrickle: {
        // A status line, then a header one byte at a time, never ending: each
        // read gets something, so only a deadline on the whole exchange stops it.
        send_all("HTTP/1.1 200 OK\r\nX-Slow: ");
        for (;;) {
          pollfd p[2] = {{c, POLLIN, 0}, {stop_[0], POLLIN, 0}};
          if (poll(p, 2, 200) != 0) return;  // stop, or the client went away
          if (send(c, "x", 1, MSG_NOSIGNAL) != 1) return;
        }
      }
      case Misbehaviour::kPings: {
        std::string pings;
        for (int i = 0; i < 100000; ++i) pings += "event: ping\ndata: {\"type\":\"ping\"}\n\n";
        return answer("200 OK", "text/event-stream", pings);
      }
      case Misbehaviour::kEchoKey: {
        // Some providers quote the key they refuse; this one quotes the whole request.
        // The key as `Authorization: Bearer`, `x-api-key` or `x-goog-api-key`.
        std::string key;
        for (const std::string marker : {"uthorization: Bearer ", "-api-key: "}) {
          std::string lower = req;
          for (char& ch : lower)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          std::string m = marker;
          for (char& ch : m) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          const auto at = lower.find(m);
          if (at == std::string::npos) continue;
          const auto from = at + m.size();
          key = req.substr(from, req.find("\r\n", from) - from);
          break;
        }
        json err = {{"error",
                     {{"message", "Incorrect API key provided: " + key + ". You sent: " + req},
                      {"type", "invalid_request_error"},
                      {"header_echo", req.substr(0, req.find("\r\n\r\n"))}}}};
        return answer(
            req.find("\"stream\":true") != std::string::npos ? "200 OK" : "401 Unauthorized",
            req.find("\"stream\":true") != std::string::npos ? "text/event-stream"
                                                             : "application/json",
            req.find("\"stream\":true") != std::string::npos
                ? "data: " + err.dump() + "\n\ndata: [DONE]\n\n"
                : err.dump());
      }
    }
  }

  Misbehaviour how_;
  int fd_ = -1;
  int stop_[2] = {-1, -1};
  int port_ = 0;
  std::atomic<int> connections_ = 0;
  std::thread thread_;
};

}  // namespace llmconform::probe_test

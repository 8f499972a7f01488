// `mockllm record` and `serve --proxy` against hostile upstreams on loopback
// (raw sockets): one that streams its response head without end, one that
// never answers, one cancelled while it is silent. Each ends in a located
// error, promptly, with nothing recorded.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "mockllm/proxy.h"
#include "mockllm/recorder.h"
#include "mockllm/server.h"
#include "net/fake_http_client.h"
#include "nlohmann/json.hpp"

namespace llmconform::mockllm {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A loopback server that reads each request's head and then does what the
// test says with the connection, until it is destroyed.
class RawUpstream {
 public:
  using Serve = std::function<void(int fd, const std::atomic<bool>& done)>;
  explicit RawUpstream(Serve serve) {
    listen_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listen_, 8) != 0 ||
        ::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this, serve = std::move(serve)] {
      while (!done_) {
        pollfd p{listen_, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) continue;
        const int fd = ::accept(listen_, nullptr, nullptr);
        if (fd < 0) continue;
        ReadHead(fd);
        serve(fd, done_);
        ::close(fd);
        ++served_;
      }
    });
  }
  ~RawUpstream() {
    done_ = true;
    thread_.join();
    ::close(listen_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int served() const { return served_; }

 private:
  // Reads up to the end of the request head, and whatever body follows it at once.
  static void ReadHead(int fd) {
    std::string got;
    char buf[4096];
    while (got.find("\r\n\r\n") == std::string::npos) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) return;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      got.append(buf, static_cast<std::size_t>(n));
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) (void)::recv(fd, buf, sizeof buf, 0);
  }

  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> done_ = false;
  std::atomic<int> served_ = 0;
  std::thread thread_;
};

// A status line, then header lines for as long as the peer reads them.
void EndlessHead(int fd, const std::atomic<bool>& done) {
  const std::string status = "HTTP/1.1 200 OK\r\n";
  (void)::send(fd, status.data(), status.size(), MSG_NOSIGNAL);
  const std::string line = "X-Filler: " + std::string(1000, 'a') + "\r\n";
  while (!done) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    if (p.revents & (POLLERR | POLLHUP)) return;
    if (::send(fd, line.data(), line.size(), MSG_NOSIGNAL) < 0) return;
  }
}

// Reads the request and then says nothing, until the peer goes.
void Silent(int fd, const std::atomic<bool>& done) {
  char buf[256];
  while (!done) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    if (::recv(fd, buf, sizeof buf, 0) <= 0) return;
  }
}

// A fresh trace file path, removed afterwards.
class TempTrace {
 public:
  TempTrace() {
    static int n = 0;
    path_ = fs::temp_directory_path() / ("mockllm_hostile_" + std::to_string(::getpid()) + "_" +
                                         std::to_string(n++) + ".trace.jsonl");
    fs::remove(path_);
  }
  ~TempTrace() { fs::remove(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct UpstreamHostileReply {
  int status = 0;
  nlohmann::json body;
};

UpstreamHostileReply UpstreamHostilePost(int port) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(60, 0);
  auto r = c.Post("/v1/chat/completions", R"({"model":"m"})", "application/json");
  if (!r) return {};
  return {r->status, nlohmann::json::parse(r->body, nullptr, false)};
}

const std::string kHeadCap =
    "the response head (status line and headers) is longer than 65536 bytes";

TEST(RecorderHostileUpstream, AnEndlessResponseHeadIsA502NamingTheCap) {
  RawUpstream upstream(EndlessHead);
  TempTrace out;
  auto recorder = Recorder::Start({.recording = {.upstream = upstream.url(), .out = out.path()}});
  ASSERT_TRUE(recorder) << recorder.error().message;
  const auto t0 = Clock::now();
  const UpstreamHostileReply r = UpstreamHostilePost((*recorder)->port());
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(20));
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(r.body["error"]["type"], "mockllm_upstream_error");
  EXPECT_NE(r.body["error"]["message"].get<std::string>().find(kHeadCap), std::string::npos)
      << r.body.dump();
  (*recorder)->Stop();
  EXPECT_EQ((*recorder)->exchanges_written(), 0u);
  EXPECT_TRUE(LoadTraceFile(out.path()));
}

TEST(RecorderHostileUpstream, ASilentUpstreamTimesOutAfterUpstreamTimeout) {
  RawUpstream upstream(Silent);
  TempTrace out;
  auto recorder = Recorder::Start(
      {.recording = {
           .upstream = upstream.url(), .out = out.path(), .upstream_timeout_seconds = 1}});
  ASSERT_TRUE(recorder) << recorder.error().message;
  const auto t0 = Clock::now();
  const UpstreamHostileReply r = UpstreamHostilePost((*recorder)->port());
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(20));
  EXPECT_EQ(r.status, 502);
  EXPECT_NE(r.body["error"]["message"].get<std::string>().find("timed out after 1000 ms"),
            std::string::npos)
      << r.body.dump();
  (*recorder)->Stop();
  EXPECT_EQ((*recorder)->exchanges_written(), 0u);
}

TEST(ProxyHostileUpstream, AnEndlessResponseHeadIsA502ProxyFailedJournaled) {
  RawUpstream upstream(EndlessHead);
  TempTrace out;
  auto server = Server::Start({}, {.proxy = upstream.url(), .record_to = out.path().string()});
  ASSERT_TRUE(server) << server.error().message;
  const UpstreamHostileReply r = UpstreamHostilePost((*server)->port());
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(r.body["error"]["type"], "mockllm_proxy_failed");
  EXPECT_NE(r.body["error"]["message"].get<std::string>().find(kHeadCap), std::string::npos)
      << r.body.dump();
  const auto journal = (*server)->Journal();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal[0]["response"]["status"], 502);
  EXPECT_NE(journal[0].dump().find("proxy_failed"), std::string::npos) << journal[0].dump();
  EXPECT_NE(journal[0].dump().find("65536 bytes"), std::string::npos) << journal[0].dump();
  (*server)->Stop();
  auto trace = LoadTraceFile(out.path());
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_TRUE(trace->exchanges.empty());
}

TEST(ProxyHostileUpstream, ASilentUpstreamTimesOutAfterUpstreamTimeout) {
  RawUpstream upstream(Silent);
  TempTrace out;
  auto proxy =
      Proxy::Start({.upstream = upstream.url(), .out = out.path(), .upstream_timeout_seconds = 1});
  ASSERT_TRUE(proxy) << proxy.error().message;
  const auto t0 = Clock::now();
  auto answer = (*proxy)->Forward({.method = "POST",
                                   .target = "/v1/chat/completions",
                                   .path = "/v1/chat/completions",
                                   .headers = {{"content-type", "application/json"}},
                                   .body = "{}"});
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(20));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().message, "--proxy " + upstream.url() +
                                        ": POST /v1/chat/completions could not be forwarded "
                                        "(timed out after 1000 ms)");
}

TEST(ProxyHostileUpstream, StopCancelsAForwardWaitingOnASilentUpstream) {
  RawUpstream upstream(Silent);
  TempTrace out;
  auto proxy = Proxy::Start({.upstream = upstream.url(), .out = out.path()});  // 600 s
  ASSERT_TRUE(proxy) << proxy.error().message;
  std::expected<ProxiedAnswer, Error> answer = std::unexpected(Error{"not run"});
  std::thread forward([&] {
    answer = (*proxy)->Forward({.method = "GET", .target = "/v1/models", .path = "/v1/models"});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto t0 = Clock::now();
  (*proxy)->Stop();
  forward.join();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  ASSERT_FALSE(answer);
  EXPECT_NE(answer.error().message.find("cancelled"), std::string::npos) << answer.error().message;
}

// In process, with a scripted upstream: a stream that breaks off is an error
// for the client and is recorded with its cut, as `mockllm record` keeps it.
TEST(Proxy, AStreamThatBreaksOffFailsAndIsRecordedWithItsCut) {
  auto fake = std::make_shared<net::FakeHttpClient>();
  net::FakeHttpClient::Reply reply = net::FakeHttpClient::Respond(
      200, "text/event-stream", {"data: {\"a\":1}\n\n", "data: {\"a\":2}\n\n"});
  reply.fail_after_chunks = net::HttpFailure::kBroken;
  fake->Push(std::move(reply));
  TempTrace out;
  auto proxy = Proxy::Start({.upstream = "http://upstream.test/base", .out = out.path()}, fake);
  ASSERT_TRUE(proxy) << proxy.error().message;
  auto answer =
      (*proxy)->Forward({.method = "POST",
                         .target = "/v1/chat/completions?x=1",
                         .path = "/v1/chat/completions",
                         .headers = {{"authorization", "Bearer sk-abcdefghijklmnopqrstuvwxyz"},
                                     {"host", "127.0.0.1:1"}},
                         .body = "{}"});
  ASSERT_FALSE(answer);
  EXPECT_NE(answer.error().message.find("could not be forwarded"), std::string::npos);
  ASSERT_EQ(fake->requests().size(), 1u);
  const net::HttpRequest sent = fake->requests()[0];
  EXPECT_EQ(sent.url, "http://upstream.test/base/v1/chat/completions?x=1");
  EXPECT_EQ(sent.headers, (std::vector<std::pair<std::string, std::string>>{
                              {"authorization", "Bearer sk-abcdefghijklmnopqrstuvwxyz"},
                              {"Accept-Encoding", "identity"}}));  // host is the connection's
  EXPECT_EQ(fake->timeouts()[0].read, std::chrono::seconds(600));
  auto trace = LoadTraceFile(out.path());
  ASSERT_TRUE(trace) << trace.error().message;
  ASSERT_EQ(trace->exchanges.size(), 1u);
  const Exchange& x = trace->exchanges[0];
  ASSERT_EQ(x.response.chunks.size(), 2u);
  EXPECT_EQ(x.response.chunks[1].raw, "data: {\"a\":2}\n\n");
  ASSERT_TRUE(x.fault);
  EXPECT_EQ((*x.fault)["cut_after_bytes"], 30);
  EXPECT_EQ(x.request.headers.dump().find("sk-abcdefghijklmnopqrstuvwxyz"), std::string::npos);
}

}  // namespace
}  // namespace llmconform::mockllm

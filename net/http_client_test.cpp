// The real HttpClient against loopback servers: what it sends, how it
// streams, and which HttpFailure each way of going wrong gives.
#include "net/http_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "net/loopback_server_test_support.h"

namespace llmconform::net {
namespace {

using std::chrono::milliseconds;

TEST(HttpClient, SendsTheRequestAndReturnsTheResponse) {
  LoopbackServer server([](httplib::Server& s) {
    s.Post("/a/b", [](const httplib::Request& req, httplib::Response& res) {
      res.status = 201;
      res.set_header("X-Seen", req.get_header_value("X-Thing"));
      res.set_content(req.get_header_value("Content-Type") + "|" + req.body, "text/plain");
    });
  });
  const HttpRequest request{"POST",
                            server.url() + "/a/b",
                            {{"X-Thing", "t1"}, {"Content-Type", "application/json"}},
                            "{}"};
  auto r = RealHttpClient()->Send(request, HttpTimeouts::All(milliseconds(5000)));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(r->headers.at("x-seen"), "t1");
  EXPECT_EQ(r->headers.at("content-type"), "text/plain");
  EXPECT_EQ(r->body, "application/json|{}");
}

TEST(HttpClient, StreamsTheHeadThenTheBodyAndKeepsNoCopy) {
  LoopbackServer server([](httplib::Server& s) {
    s.Get("/events", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_chunked_content_provider("text/event-stream",
                                       [n = 0](std::size_t, httplib::DataSink& sink) mutable {
                                         if (n++ == 3) {
                                           sink.done();
                                           return true;
                                         }
                                         return sink.write("data: x\n\n", 9);
                                       });
    });
  });
  std::string order;
  std::string body;
  auto r = RealHttpClient()->Send({"GET", server.url() + "/events", {}, ""},
                                  HttpTimeouts::All(milliseconds(5000)),
                                  {.on_head =
                                       [&](const HttpResponse& head) {
                                         order += "head " + std::to_string(head.status) + ";";
                                         return true;
                                       },
                                   .on_body =
                                       [&](std::string_view bytes) {
                                         if (body.empty()) order += "body;";
                                         body.append(bytes);
                                         return true;
                                       }});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(order, "head 404;body;");
  EXPECT_EQ(body, "data: x\n\ndata: x\n\ndata: x\n\n");
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, "");
}

TEST(HttpClient, AHandlerReturningFalseCancels) {
  LoopbackServer server([](httplib::Server& s) {
    s.Get("/",
          [](const httplib::Request&, httplib::Response& res) { res.set_content("x", "a/b"); });
  });
  auto r =
      RealHttpClient()->Send({"GET", server.url(), {}, ""}, HttpTimeouts::All(milliseconds(5000)),
                             {.on_head = [](const HttpResponse&) { return false; }});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().failure, HttpFailure::kCancelled);
  EXPECT_EQ(r.error().message, "GET " + server.url() + ": cancelled by the client");
}

TEST(HttpClient, ANonHttpUrlAndAClosedPortFailAtOnce) {
  auto bad = RealHttpClient()->Send({"GET", "ftp://x", {}, ""}, {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().failure, HttpFailure::kBadUrl);
  EXPECT_EQ(bad.error().message, "GET ftp://x: not an http(s) URL");
  auto closed = RealHttpClient()->Send({"POST", "http://127.0.0.1:1/v1", {}, "{}"},
                                       HttpTimeouts::All(milliseconds(2000)));
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().failure, HttpFailure::kUnreachable);
  EXPECT_EQ(closed.error().message, "POST http://127.0.0.1:1/v1: " + closed.error().what);
}

// Serves /trickle as an endless chunked stream, one event every 50 ms, and
// /silent as headers and then nothing; both end when the server stops.
class SlowServer {
 public:
  SlowServer()
      : server_([this](httplib::Server& s) {
          s.Get("/trickle", [this](const httplib::Request&, httplib::Response& res) {
            res.set_chunked_content_provider("text/event-stream",
                                             [this](std::size_t, httplib::DataSink& sink) {
                                               if (stop_) return false;
                                               std::this_thread::sleep_for(milliseconds(50));
                                               return sink.write("data: x\n\n", 9);
                                             });
          });
          // No length, not chunked: the body ends when the connection does.
          s.Get("/trickle-until-close", [this](const httplib::Request&, httplib::Response& res) {
            res.set_content_provider("text/event-stream",
                                     [this](std::size_t, httplib::DataSink& sink) {
                                       if (stop_) return false;
                                       std::this_thread::sleep_for(milliseconds(50));
                                       return sink.write(": x\n", 4);
                                     });
          });
          s.Get("/silent", [this](const httplib::Request&, httplib::Response& res) {
            res.set_chunked_content_provider("text/event-stream",
                                             [this](std::size_t, httplib::DataSink& sink) {
                                               if (stop_) return false;
                                               std::this_thread::sleep_for(milliseconds(20));
                                               return sink.is_writable();
                                             });
          });
        }) {}
  ~SlowServer() { stop_ = true; }
  std::string url() const { return server_.url(); }

 private:
  std::atomic<bool> stop_ = false;
  LoopbackServer server_;
};

TEST(HttpClient, ATricklingStreamStopsAtTheTotalDeadline) {
  SlowServer server;
  std::size_t bytes = 0;
  auto r = RealHttpClient()->Send(
      {"GET", server.url() + "/trickle", {}, ""},
      {.connect = milliseconds(5000), .read = milliseconds(5000), .total = milliseconds(400)},
      {.on_head = {}, .on_body = [&](std::string_view b) {
         bytes += b.size();
         return true;
       }});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().failure, HttpFailure::kTimeout);
  EXPECT_EQ(r.error().what, "timed out after 400 ms");  // the total, not the read timeout
  EXPECT_GT(bytes, 0u);
}

TEST(HttpClient, ABodyEndedByTheDeadlineIsATimeoutNotAWholeBody) {
  // The watchdog's stop closes the connection, which is how such a body
  // would end of itself: the call must still say the deadline ended it.
  SlowServer server;
  auto r = RealHttpClient()->Send(
      {"GET", server.url() + "/trickle-until-close", {}, ""},
      {.connect = milliseconds(5000), .read = milliseconds(5000), .total = milliseconds(400)});
  ASSERT_FALSE(r) << "a body of " << r->body.size() << " bytes taken for whole";
  EXPECT_EQ(r.error().failure, HttpFailure::kTimeout);
  EXPECT_EQ(r.error().what, "timed out after 400 ms");
}

TEST(HttpClient, ASilentStreamStopsAtTheReadTimeout) {
  SlowServer server;
  auto r = RealHttpClient()->Send(
      {"GET", server.url() + "/silent", {}, ""},
      {.connect = milliseconds(5000), .read = milliseconds(300), .total = milliseconds(60000)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().failure, HttpFailure::kTimeout);
  EXPECT_EQ(r.error().what, "timed out after 300 ms");
}

TEST(HttpClient, AStopRequestedFromAnotherThreadCancelsASilentCall) {
  SlowServer server;
  std::stop_source stop;
  std::expected<HttpResponse, HttpError> r = std::unexpected(HttpError{});
  const auto t0 = std::chrono::steady_clock::now();
  std::thread call([&] {
    r = RealHttpClient()->Send({"GET", server.url() + "/silent", {}, ""},
                               HttpTimeouts::All(milliseconds(60000)), {.stop = stop.get_token()});
  });
  std::this_thread::sleep_for(milliseconds(300));
  stop.request_stop();
  call.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().failure, HttpFailure::kCancelled);
  EXPECT_EQ(r.error().what, "cancelled by the client");
}

TEST(HttpClient, KeepsEveryHeaderLineInOrderAndTheTargetAsSpelled) {
  LoopbackServer server([](httplib::Server& s) {
    s.Get(R"(/a/.*)", [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Set-Cookie", "one=1");
      res.set_header("Set-Cookie", "two=2");
      res.set_content(req.target, "text/plain");
    });
  });
  auto r = RealHttpClient()->Send({"GET", server.url() + "/a/b/?q=x/", {}, ""},
                                  HttpTimeouts::All(milliseconds(5000)));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "/a/b/?q=x/");  // trailing slashes kept
  std::vector<std::string> cookies;
  for (const auto& [name, value] : r->fields) {
    if (name == "Set-Cookie") cookies.push_back(value);
  }
  EXPECT_EQ(cookies, (std::vector<std::string>{"one=1", "two=2"}));
  EXPECT_EQ(r->headers.at("set-cookie"), "two=2");
}

TEST(HttpClient, AnUnreadableCaFileIsAnErrorNamingIt) {
  auto client = RealHttpClient("/nonexistent/ca.pem");
  ASSERT_FALSE(client);
  EXPECT_NE(client.error().message.find("/nonexistent/ca.pem: no CA certificates read"),
            std::string::npos)
      << client.error().message;
  EXPECT_TRUE(RealHttpClient(""));
}

// A server on 127.0.0.1 that answers its first connection with a status line
// and then header lines, `lines` of them, and closes.
class EndlessHeadServer {
 public:
  explicit EndlessHeadServer(std::size_t lines) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(::listen(fd_, 1), 0);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this, lines] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char req[4096];
      (void)!::read(c, req, sizeof req);
      std::string head = "HTTP/1.1 200 OK\r\n";
      const std::string line = "X-Filler: " + std::string(90, 'a') + "\r\n";
      bool ok = ::send(c, head.data(), head.size(), MSG_NOSIGNAL) > 0;
      for (std::size_t i = 0; ok && i < lines; ++i)
        ok = ::send(c, line.data(), line.size(), MSG_NOSIGNAL) > 0;
      ::close(c);
    });
  }
  ~EndlessHeadServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpClient, AHeadWithoutEndIsRefusedPastItsBound) {
  // 100 000 lines of 100 bytes: 10 MB of head, read whole before the bound.
  EndlessHeadServer server(100000);
  auto r = RealHttpClient()->Send({"GET", server.url() + "/", {}, ""},
                                  HttpTimeouts::All(milliseconds(20000)));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().failure, HttpFailure::kBroken);
  EXPECT_EQ(r.error().what,
            "the response head (status line and headers) is longer than 65536 bytes");
}

}  // namespace
}  // namespace llmconform::net

#include "harness/http_transport.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

namespace llmconform::harness {
namespace {

// A loopback server on an ephemeral port, stopped at the end of the test.
class LoopbackServer {
 public:
  explicit LoopbackServer(std::function<void(httplib::Server&)> routes) {
    routes(server_);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpTransport, PostsJsonUnderTheBasePathAndStreamsTheBody) {
  LoopbackServer server([](httplib::Server& s) {
    s.Post("/v1/chat/completions", [](const httplib::Request& req, httplib::Response& res) {
      res.status = req.get_header_value("Content-Type") == "application/json" ? 200 : 415;
      res.set_content("data: " + req.body + "\n\ndata: [DONE]\n\n", "text/event-stream");
    });
  });
  auto transport = MakeHttpTransport(server.url() + "/v1");
  std::string seen;
  auto r = transport->PostJson("/chat/completions", "{\"a\":1}", std::chrono::seconds(5),
                               [&](std::string_view b) {
                                 seen.append(b);
                                 return true;
                               });
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->headers["content-type"], "text/event-stream");
  EXPECT_EQ(r->body, "data: {\"a\":1}\n\ndata: [DONE]\n\n");
  EXPECT_EQ(seen, r->body);
}

TEST(HttpTransport, ErrorStatusIsAResponseNotAnError) {
  LoopbackServer server([](httplib::Server& s) {
    s.Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
      res.status = 500;
      res.set_content(
          R"({"error":{"message":"boom","type":"server_error","param":null,"code":null}})",
          "application/json");
    });
  });
  auto r = MakeHttpTransport(server.url() + "/v1")
               ->PostJson("/chat/completions", "{}", std::chrono::seconds(5));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
}

TEST(HttpTransport, StallLongerThanTheTimeoutIsATimeout) {
  LoopbackServer server([](httplib::Server& s) {
    s.Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      res.set_content("{}", "application/json");
    });
  });
  auto r = MakeHttpTransport(server.url() + "/v1")
               ->PostJson("/chat/completions", "{}", std::chrono::milliseconds(300));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "POST " + server.url() + "/v1/chat/completions: timed out after 300 ms");
}

TEST(HttpTransport, UnreachableEndpointIsAnError) {
  auto r = MakeHttpTransport("http://127.0.0.1:1/v1")
               ->PostJson("/chat/completions", "{}", std::chrono::seconds(2));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("POST http://127.0.0.1:1/v1/chat/completions: "),
            std::string::npos);
}

}  // namespace
}  // namespace llmconform::harness

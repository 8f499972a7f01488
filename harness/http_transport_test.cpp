#include "harness/http_transport.h"

#include <gtest/gtest.h>

#include "net/fake_http_client.h"
#include "net/loopback_server_test_support.h"

namespace llmconform::harness {
namespace {

using std::chrono::milliseconds;

// POSTs "{}" to "/chat/completions" under `base_url` through `client`,
// appending what on_bytes is handed to `seen`.
std::expected<wire::HttpResponse, Error> PostSeeing(std::shared_ptr<net::HttpClient> client,
                                                    const std::string& base_url,
                                                    milliseconds timeout, std::string& seen) {
  return MakeHttpTransport(base_url, std::move(client))
      ->PostJson("/chat/completions", "{}", timeout, [&](std::string_view b) {
        seen.append(b);
        return true;
      });
}

// End to end, over a real socket.
TEST(HttpTransport, PostsJsonUnderTheBasePathAndStreamsTheBody) {
  net::LoopbackServer server([](httplib::Server& s) {
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

TEST(HttpTransport, SendsOneRequestWithItsTimeoutAsAllThree) {
  auto fake = std::make_shared<net::FakeHttpClient>();
  fake->Push(
      net::FakeHttpClient::Respond(200, "text/event-stream", {"data: 1\n\n", "data: 2\n\n"}));
  std::string seen;
  auto r = PostSeeing(fake, "http://h:1/t/x%2Fy/v1", milliseconds(1234), seen);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "data: 1\n\ndata: 2\n\n");
  EXPECT_EQ(seen, r->body);
  ASSERT_EQ(fake->requests().size(), 1u);
  EXPECT_EQ(fake->requests()[0],
            (net::HttpRequest{"POST",
                              "http://h:1/t/x%2Fy/v1/chat/completions",
                              {{"Content-Type", "application/json"},
                               {"Accept", "application/json, text/event-stream"}},
                              "{}"}));
  EXPECT_EQ(fake->timeouts()[0], net::HttpTimeouts::All(milliseconds(1234)));
}

net::FakeHttpClient::Reply TooManyRequests(std::string header, std::string value) {
  net::FakeHttpClient::Reply r = net::FakeHttpClient::Respond(
      429, "application/json", {R"({"error":{"message":"slow down"}})"});
  r.headers[header] = value;
  return r;
}

TEST(HttpTransport, A429ThatSaysWhenIsRetriedAndItsBodyIsNotPassedOn) {
  auto fake = std::make_shared<net::FakeHttpClient>();
  fake->Push(TooManyRequests("retry-after-ms", "5"));
  fake->Push(TooManyRequests("retry-after", "0.01"));
  fake->Push(net::FakeHttpClient::Respond(200, "text/event-stream", {"data: ok\n\n"}));
  std::string seen;
  auto r = PostSeeing(fake, "http://h:1/v1", milliseconds(5000), seen);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(seen, "data: ok\n\n");
  ASSERT_EQ(fake->requests().size(), 3u);
  EXPECT_EQ(fake->requests()[2].body, "{}");
}

// OpenRouter's shape of a rate limit (DIA-ERROR-WITH-200): HTTP 200, an error
// body with code 429, and the wait in the headers.
TEST(HttpTransport, A200WithARateLimitErrorBodyIsRetriedLikeA429) {
  auto fake = std::make_shared<net::FakeHttpClient>();
  net::FakeHttpClient::Reply limited = net::FakeHttpClient::Respond(
      200, "application/json", {R"({"error":{"message":"slow down","code":429}})"});
  limited.headers["retry-after-ms"] = "5";
  fake->Push(limited);
  fake->Push(net::FakeHttpClient::Respond(200, "application/json", {R"({"choices":[]})"}));
  auto r = MakeHttpTransport("http://h:1/v1", fake)
               ->PostJson("/chat/completions", "{}", milliseconds(5000));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, R"({"choices":[]})");
  EXPECT_EQ(fake->requests().size(), 2u);
  // A 200 that names a wait but is no rate limit is the answer, passed on whole.
  auto answer = std::make_shared<net::FakeHttpClient>();
  net::FakeHttpClient::Reply ok =
      net::FakeHttpClient::Respond(200, "application/json", {R"({"choices")", R"(:[]})"});
  ok.headers["retry-after"] = "1";
  answer->Push(ok);
  std::string seen;
  r = PostSeeing(answer, "http://h:1/v1", milliseconds(5000), seen);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(seen, R"({"choices":[]})");
  EXPECT_EQ(answer->requests().size(), 1u);
}

TEST(HttpTransport, A429IsReturnedWhenItSaysNothingAsksTooMuchOrRetriesRunOut) {
  for (const auto& [header, value] : std::vector<std::pair<std::string, std::string>>{
           {"x-other", "1"},
           {"retry-after", "3"},
           {"retry-after", "Wed, 21 Oct 2026 07:28:00 GMT"},
           {"retry-after-ms", "-1"}}) {
    auto fake = std::make_shared<net::FakeHttpClient>();
    fake->Push(TooManyRequests(header, value));
    std::string seen;
    auto r = PostSeeing(fake, "http://h:1/v1", milliseconds(5000), seen);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->status, 429) << header << ": " << value;
    EXPECT_EQ(seen, r->body) << "the error body reaches the client";
    EXPECT_EQ(fake->requests().size(), 1u) << header << ": " << value;
  }
  auto fake = std::make_shared<net::FakeHttpClient>();
  for (int i = 0; i < 3; ++i) fake->Push(TooManyRequests("retry-after-ms", "1"));
  auto r = MakeHttpTransport("http://h:1/v1", fake)
               ->PostJson("/chat/completions", "{}", milliseconds(5000));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(fake->requests().size(), 3u) << "the first try and two retries";
}

TEST(HttpTransport, ErrorStatusIsAResponseNotAnError) {
  auto fake = std::make_shared<net::FakeHttpClient>();
  fake->Push(
      net::FakeHttpClient::Respond(500, "application/json", {R"({"error":{"message":"boom"}})"}));
  auto r =
      MakeHttpTransport("http://h/v1", fake)->PostJson("/chat/completions", "{}", milliseconds(5));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->body, R"({"error":{"message":"boom"}})");
}

TEST(HttpTransport, FailuresAreErrorsNamingTheRequest) {
  auto fake = std::make_shared<net::FakeHttpClient>();
  net::FakeHttpClient::Reply stall = net::FakeHttpClient::Respond(200, "text/event-stream", {});
  stall.fail_after_chunks = net::HttpFailure::kTimeout;
  fake->Push(std::move(stall));
  fake->Push(net::FakeHttpClient::Fail(net::HttpFailure::kUnreachable));
  fake->Push(net::FakeHttpClient::Respond(200, "text/event-stream", {"data: 1\n\n"}));
  auto transport = MakeHttpTransport("http://h/v1", fake);
  auto slow = transport->PostJson("/chat/completions", "{}", milliseconds(300));
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error().message, "POST http://h/v1/chat/completions: timed out after 300 ms");
  auto down = transport->PostJson("/chat/completions", "{}", milliseconds(300));
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().message, "POST http://h/v1/chat/completions: Connection");
  auto cancelled = transport->PostJson("/chat/completions", "{}", milliseconds(300),
                                       [](std::string_view) { return false; });
  ASSERT_FALSE(cancelled);
  EXPECT_EQ(cancelled.error().message,
            "POST http://h/v1/chat/completions: cancelled by the client");
  auto bad = MakeHttpTransport("nope", fake)->PostJson("/chat/completions", "{}", milliseconds(5));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "POST nope/chat/completions: not an http(s) URL");
}

}  // namespace
}  // namespace llmconform::harness

#include "mockllm/server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <thread>

namespace llmconform::mockllm {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kTrace =
    R"({"format":"llmconform-trace/1","id":"demo/chat","origin":"synthesized","model":"gpt-4o-mini"}
{"seq":1,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}},"response":{"status":200,"headers":{"content-type":"application/json","x-request-id":"req_1"},"body":{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}}}
{"seq":2,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"more"}]}},"response":{"status":200,"headers":{"content-type":"text/event-stream"},"chunks":[{"t_ms":0,"raw":"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"},{"t_ms":3,"raw":"data: {\"choices\":[{\"delta\":"},{"t_ms":5,"raw":"{\"content\":\"b\"}}]}\n\ndata: [DONE]\n\n"}]}}
)";

constexpr std::string_view kStream =
    "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: "
    "{\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n"
    "data: [DONE]\n\n";

const std::string kFirst = R"({"messages":[{"content":"hi","role":"user"}],"model":"gpt-4o-mini"})";
const std::string kSecond =
    R"({"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"more"}]})";

Trace DemoTrace() {
  auto t = ParseTrace(kTrace, "demo.jsonl");
  EXPECT_TRUE(t) << t.error().message;
  return *t;
}

std::unique_ptr<Server> StartDemo(ServerOptions options = {}) {
  auto s = Server::Start({DemoTrace()}, std::move(options));
  EXPECT_TRUE(s) << s.error().message;
  return std::move(*s);
}

struct Reply {
  int status = 0;
  std::string body;
  httplib::Headers headers;
  bool ok = false;
};

Reply Post(const Server& s, const std::string& path, const std::string& body,
           const httplib::Headers& headers = {},
           const std::string& content_type = "application/json") {
  httplib::Client c("127.0.0.1", s.port());
  c.set_read_timeout(10, 0);
  auto r = c.Post(path.c_str(), headers, body, content_type.c_str());
  if (!r) return {};
  return {r->status, r->body, r->headers, true};
}

Reply Get(const Server& s, const std::string& path) {
  httplib::Client c("127.0.0.1", s.port());
  auto r = c.Get(path.c_str());
  if (!r) return {};
  return {r->status, r->body, r->headers, true};
}

const std::string kPinned = "/t/demo%2Fchat/v1/chat/completions";

TEST(ReplayServer, ReportsPortAndUrls) {
  auto s = StartDemo();
  EXPECT_GT(s->port(), 0);
  EXPECT_EQ(s->base_url(), "http://127.0.0.1:" + std::to_string(s->port()));
  EXPECT_EQ(s->TraceBaseUrl("demo/chat"), s->base_url() + "/t/demo%2Fchat/v1");
}

TEST(ReplayServer, PinnedReplayAnswersInOrderThenIsExhausted) {
  auto s = StartDemo();
  Reply one = Post(*s, kPinned, kFirst);
  ASSERT_TRUE(one.ok);
  EXPECT_EQ(one.status, 200);
  EXPECT_EQ(
      one.body,
      R"({"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]})");
  EXPECT_EQ(httplib::detail::get_header_value(one.headers, "x-request-id", 0, ""),
            std::string("req_1"));

  Reply two = Post(*s, kPinned, kSecond);
  EXPECT_EQ(two.status, 200);
  EXPECT_EQ(two.body, kStream);
  EXPECT_EQ(httplib::detail::get_header_value(two.headers, "Content-Type", 0, ""),
            std::string("text/event-stream"));

  Reply three = Post(*s, kPinned, kFirst);
  EXPECT_EQ(three.status, 400);
  auto err = nlohmann::json::parse(three.body);
  EXPECT_EQ(err["error"]["type"], "mockllm_trace_exhausted");
  EXPECT_EQ(err["error"]["message"],
            "trace \"demo/chat\" is exhausted: request 3 of session \"default\", but the trace has "
            "2 exchange(s)");
}

TEST(ReplayServer, UnencodedSlashInTraceIdStillPins) {
  auto s = StartDemo();
  EXPECT_EQ(Post(*s, "/t/demo/chat/v1/chat/completions", kFirst).status, 200);
}

// Route and admin paths decode as HttpRequest::path does, up to a %XX that
// ends the segment or the path.
TEST(ReplayServer, TraceIdEndingInAnEncodedCharacterPinsAndIsDeleted) {
  auto t = DemoTrace();
  t.id = "demo/chat (1)";
  auto s = Server::Start({t}, {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(Post(**s, "/t/" + UrlEncode(t.id) + "/v1/chat/completions", kFirst).status, 200);
  httplib::Client c("127.0.0.1", (*s)->port());
  auto deleted = c.Delete(("/__admin/traces/" + UrlEncode(t.id)).c_str());
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 200) << deleted->body;
}

TEST(ReplayServer, StrictMismatchNamesPointerExpectedAndActual) {
  auto s = StartDemo();
  Reply r =
      Post(*s, kPinned, R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hey"}]})");
  EXPECT_EQ(r.status, 400);
  auto err = nlohmann::json::parse(r.body)["error"];
  EXPECT_EQ(err["type"], "mockllm_request_mismatch");
  EXPECT_EQ(err["pointer"], "/messages/0/content");
  EXPECT_EQ(err["param"], "/messages/0/content");
  EXPECT_EQ(err["expected"], "hi");
  EXPECT_EQ(err["actual"], "hey");
  EXPECT_EQ(
      err["message"],
      "request 1 of session \"default\" does not match exchange 0 of trace \"demo/chat\" (line 2): "
      "/messages/0/content: expected \"hi\", got \"hey\"");
  // The mismatched request used up its position: the next one is compared with exchange 1.
  EXPECT_EQ(Post(*s, kPinned, kSecond).status, 200);
  auto sessions = s->Sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0]["unused"], nlohmann::json::array({0}));
}

TEST(ReplayServer, LenientMismatchReplaysAndJournalsAFinding) {
  auto s = StartDemo({.strict = false});
  Reply r =
      Post(*s, kPinned, R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hey"}]})");
  EXPECT_EQ(r.status, 200);
  auto journal = s->Journal();
  ASSERT_EQ(journal.size(), 1u);
  ASSERT_EQ(journal[0]["findings"].size(), 1u);
  EXPECT_EQ(journal[0]["findings"][0]["rule"], "request_mismatch");
}

TEST(ReplayServer, IgnoredPathsDoNotCount) {
  auto s = StartDemo({.ignore_paths = {"/messages/*/content"}});
  EXPECT_EQ(
      Post(*s, kPinned, R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"other"}]})")
          .status,
      200);
}

TEST(ReplayServer, SessionsAreIndependent) {
  auto s = StartDemo();
  EXPECT_EQ(Post(*s, kPinned, kFirst, {{"X-Mockllm-Session", "a"}}).status, 200);
  EXPECT_EQ(Post(*s, kPinned, kFirst, {{"X-Mockllm-Session", "b"}}).status, 200);
  EXPECT_EQ(Post(*s, kPinned, kSecond, {{"X-Mockllm-Session", "a"}}).status, 200);
  auto sessions = s->Sessions();
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0]["session"], "a");
  EXPECT_EQ(sessions[0]["cursor"], 2);
  EXPECT_EQ(sessions[0]["unused"], nlohmann::json::array());
  EXPECT_EQ(sessions[1]["session"], "b");
  EXPECT_EQ(sessions[1]["unused"], nlohmann::json::array({1}));
  auto journal = s->Journal();
  ASSERT_EQ(journal.size(), 3u);
  EXPECT_EQ(journal[2]["session"], "a");
  EXPECT_EQ(journal[2]["response"]["exchange"], 1);
}

TEST(ReplayServer, JournalEntryShape) {
  auto s = StartDemo();
  Post(*s, kPinned, kFirst, {{"Authorization", "Bearer sk-abcdefghijklmnopqrstuvwxyz0123"}});
  auto journal = s->Journal();
  ASSERT_EQ(journal.size(), 1u);
  const auto& e = journal[0];
  EXPECT_EQ(e["seq"], 1);
  EXPECT_EQ(e["session"], "default");
  EXPECT_EQ(e["trace"], "demo/chat");
  EXPECT_EQ(e["method"], "POST");
  EXPECT_EQ(e["path"], kPinned);
  EXPECT_EQ(e["request"]["body"], nlohmann::json::parse(kFirst));
  EXPECT_EQ(e["request"]["headers"]["authorization"], "[redacted]");
  EXPECT_EQ(e["response"]["status"], 200);
  EXPECT_EQ(e["response"]["exchange"], 0);
  EXPECT_EQ(e["findings"], nlohmann::json::array());
  EXPECT_GE(e["at_ms"].get<std::int64_t>(), 0);
}

// The difference of two entries' at_ms is at least the time the client let
// pass between the requests (a lower bound the steady clock guarantees).
TEST(ReplayServer, JournalTimesRequests) {
  auto s = StartDemo();
  Post(*s, kPinned, kFirst);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  Post(*s, kPinned, kFirst);
  auto journal = s->Journal();
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_GE(journal[1]["at_ms"].get<std::int64_t>() - journal[0]["at_ms"].get<std::int64_t>(), 30);
}

// A journal (GET /__admin/journal, `serve --journal FILE`) ends up in CI
// artifacts: the bodies it keeps have their secrets redacted, whatever the
// request's fate (matched, unmatched, not JSON, not even JSON's content type).
TEST(ReplayServer, JournalKeepsNoSecretOfABody) {
  auto s = StartDemo();
  const std::string key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
  Post(*s, "/v1/chat/completions",
       R"({"model":"x","api_key":")" + key + R"(","messages":[{"role":"user","content":"my key )" +
           key + R"("}]})");
  Post(*s, "/v1/chat/completions", R"({"model":"x","content":")" + key + R"(")");
  auto journal = s->Journal();
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[0]["request"]["body"]["api_key"], "[redacted]");
  EXPECT_EQ(journal[0]["request"]["body"]["messages"][0]["content"], "my key sk-[redacted]");
  EXPECT_EQ(journal[0]["response"]["status"], 404);
  EXPECT_EQ(journal[1]["response"]["status"], 400);
  EXPECT_EQ(journal.dump().find(key), std::string::npos) << journal.dump();
}

TEST(ReplayServer, UnpinnedRequestsMatchAnyTraceAndRepeat) {
  auto s = StartDemo();
  EXPECT_EQ(Post(*s, "/v1/chat/completions", kSecond).body, kStream);
  EXPECT_EQ(Post(*s, "/v1/chat/completions", kSecond).body, kStream);
  Reply miss = Post(*s, "/v1/chat/completions", R"({"model":"x","messages":[]})");
  EXPECT_EQ(miss.status, 404);
  EXPECT_EQ(nlohmann::json::parse(miss.body)["error"]["type"], "mockllm_no_match");
  EXPECT_EQ(s->Journal()[0]["trace"], "demo/chat");
}

TEST(ReplayServer, ModelsComeFromTheTraces) {
  auto s = StartDemo();
  Reply r = Get(*s, "/v1/models");
  EXPECT_EQ(r.status, 200);
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["object"], "list");
  ASSERT_EQ(j["data"].size(), 1u);
  EXPECT_EQ(j["data"][0]["id"], "gpt-4o-mini");
}

TEST(ReplayServer, BadInputGetsOpenAiErrorsAndTheServerGoesOn) {
  auto s = StartDemo({.listen = {.max_body_bytes = 2048}});
  Reply malformed = Post(*s, kPinned, "{\"model\":");
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(nlohmann::json::parse(malformed.body)["error"]["code"], "invalid_json");
  Reply wrong_type = Post(*s, kPinned, "hello", {}, "text/plain");
  EXPECT_EQ(wrong_type.status, 415);
  EXPECT_EQ(nlohmann::json::parse(wrong_type.body)["error"]["type"], "invalid_request_error");
  Reply big = Post(*s, kPinned, std::string(4096, ' '));
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(nlohmann::json::parse(big.body)["error"]["message"],
            "the request body is larger than the limit of 2048 bytes");
  Reply unknown = Get(*s, "/nowhere");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(nlohmann::json::parse(unknown.body)["error"]["message"], "Invalid URL (GET /nowhere)");
  Reply deep = Post(*s, kPinned, std::string(600, '[') + std::string(600, ']'));
  EXPECT_EQ(deep.status, 400);
  EXPECT_EQ(
      nlohmann::json::parse(deep.body)["error"]["message"],
      "the request body is not valid JSON: line 1, column 513: arrays and objects nest deeper "
      "than 512 levels");
  Reply huge = Post(*s, kPinned, R"({"model":1e999})");
  EXPECT_EQ(huge.status, 400);
  EXPECT_EQ(nlohmann::json::parse(huge.body)["error"]["message"],
            "the request body is not valid JSON: line 1, column 10: number 1e999 is out of range "
            "(beyond ±1.8e308)");
  Reply bad_utf8 = Post(*s, kPinned, "{\"model\":\"a\xff\"}");
  EXPECT_EQ(bad_utf8.status, 400);
  EXPECT_EQ(nlohmann::json::parse(bad_utf8.body)["error"]["code"], "invalid_json");
  Reply no_trace = Post(*s, "/t/nope/v1/chat/completions", kFirst);
  EXPECT_EQ(no_trace.status, 404);
  EXPECT_EQ(nlohmann::json::parse(no_trace.body)["error"]["type"], "mockllm_unknown_trace");
  // None of it used up the session.
  EXPECT_EQ(Post(*s, kPinned, kFirst).status, 200);
}

TEST(ReplayServer, AdminApi) {
  auto s = StartDemo();
  Post(*s, kPinned, kFirst);
  auto health = nlohmann::json::parse(Get(*s, "/__admin/health").body);
  EXPECT_EQ(health["status"], "ok");
  EXPECT_EQ(health["traces"], nlohmann::json::array({"demo/chat"}));
  EXPECT_EQ(health["requests"], 1);
  EXPECT_EQ(nlohmann::json::parse(Get(*s, "/__admin/journal").body).size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(Get(*s, "/__admin/sessions").body)[0]["cursor"], 1);
  EXPECT_EQ(Post(*s, "/__admin/reset", "").status, 200);
  EXPECT_EQ(s->Journal().size(), 0u);
  EXPECT_EQ(Post(*s, kPinned, kFirst).status, 200);  // the session starts over
}

TEST(ReplayServer, MetricsCountUnlessTurnedOff) {
  auto on = StartDemo();
  Post(*on, kPinned, kFirst);
  const Reply counted = Get(*on, "/__admin/metrics");
  EXPECT_EQ(counted.status, 200);
  EXPECT_NE(counted.body.find("outcome=\"replayed\"} 1\n"), std::string::npos) << counted.body;
  auto off = StartDemo(ServerOptions{.metrics = true, .collect_metrics = false});
  EXPECT_EQ(Post(*off, kPinned, kFirst).status, 200);
  for (const char* path : {"/__admin/metrics", "/metrics"}) {
    const Reply r = Get(*off, path);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], "mockllm_metrics_off") << path;
  }
}

TEST(ReplayServer, StatusFaultFromTheTrace) {
  auto t = DemoTrace();
  t.exchanges[0].fault = OJson{{"status", 429}, {"retry_after", 2}};
  auto s = Server::Start({t}, {});
  ASSERT_TRUE(s);
  Reply r = Post(**s, kPinned, kFirst);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(httplib::detail::get_header_value(r.headers, "retry-after", 0, ""), std::string("2"));
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], "rate_limit_exceeded");
  EXPECT_EQ((*s)->Journal()[0]["fault"]["status"], 429);
}

TEST(ReplayServer, CutAfterEventsEndsTheConnectionEarly) {
  auto t = DemoTrace();
  t.exchanges[1].fault = OJson{{"cut_after_events", 1}};
  auto s = Server::Start({t}, {});
  ASSERT_TRUE(s);
  httplib::Client c("127.0.0.1", (*s)->port());
  std::string got;
  Post(**s, kPinned, kFirst);
  httplib::Request req;
  req.method = "POST";
  req.path = kPinned;
  req.body = kSecond;
  req.set_header("Content-Type", "application/json");
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    got.append(data, n);
    return true;
  };
  auto r = c.send(req);
  EXPECT_FALSE(r);  // the chunked body never ended
  EXPECT_EQ(got, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n");
}

TEST(ReplayServer, ADelayHoldsTheStatusLine) {
  // A client whose timeout covers only the wait for the response head must
  // time out during a delay (a provider that answers slowly), not get the
  // head at once and the body late.
  auto t = DemoTrace();
  t.exchanges[0].fault = OJson{{"delay_ms", 400}};
  auto s = Server::Start({t}, {});
  ASSERT_TRUE(s);
  httplib::Client c("127.0.0.1", (*s)->port());
  c.set_read_timeout(0, 150000);
  bool head_seen = false;
  httplib::Request req;
  req.method = "POST";
  req.path = kPinned;
  req.body = kFirst;
  req.set_header("Content-Type", "application/json");
  req.response_handler = [&](const httplib::Response&) { return head_seen = true; };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  EXPECT_FALSE(c.send(req, res, err));
  EXPECT_FALSE(head_seen);
  // Without the timeout the answer comes whole after the delay.
  EXPECT_EQ(Post(**s, kPinned, kFirst, {{"X-Mockllm-Session", "other"}}).status, 200);
}

TEST(ReplayServer, AStreamAtSpeedZeroKeepsItsBodyAndFraming) {
  auto t = DemoTrace();
  ServerOptions options;
  options.speed = 0;
  auto s = Server::Start({t}, options);
  ASSERT_TRUE(s);
  Post(**s, kPinned, kFirst);
  Reply r = Post(**s, kPinned, kSecond);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: "
            "{\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\ndata: [DONE]\n\n");
  EXPECT_EQ(httplib::detail::get_header_value(r.headers, "Transfer-Encoding", 0, ""),
            std::string("chunked"));
  EXPECT_EQ((*s)->Journal()[1]["response"]["outcome"], "complete");
}

TEST(ReplayServer, StallOutlastsTheClientTimeoutAndStopCutsItShort) {
  auto t = DemoTrace();
  t.exchanges[0].fault = OJson{{"stall_ms", 60000}};
  auto s = Server::Start({t}, {});
  ASSERT_TRUE(s);
  httplib::Client c("127.0.0.1", (*s)->port());
  c.set_read_timeout(0, 200000);
  auto r = c.Post(kPinned.c_str(), kFirst, "application/json");
  EXPECT_FALSE(r);
  EXPECT_EQ(r.error(), httplib::Error::Read);
  (*s)->Stop();  // returns although the stall has most of a minute to go
  (*s)->Stop();
}

TEST(ReplayServer, ClientLeavingMidStreamIsJournaledAndTheNextRequestServed) {
  auto t = DemoTrace();
  t.exchanges[1].fault = OJson{{"stall_ms", 300}, {"stall_after_events", 1}};
  auto s = Server::Start({t}, {});
  ASSERT_TRUE(s);
  Post(**s, kPinned, kFirst);
  {
    httplib::Client c("127.0.0.1", (*s)->port());
    c.set_read_timeout(0, 50000);  // gives up during the stall
    EXPECT_FALSE(c.Post(kPinned.c_str(), kSecond, "application/json"));
  }
  // The stall ends, the writes fail, the entry says so; meanwhile others are served.
  EXPECT_EQ(Post(**s, kPinned, kFirst, {{"X-Mockllm-Session", "other"}}).status, 200);
  std::string outcome;
  for (int i = 0; i < 200 && outcome != "client_disconnected"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    outcome = (*s)->Journal()[1]["response"]["outcome"].get<std::string>();
  }
  EXPECT_EQ(outcome, "client_disconnected");
  EXPECT_EQ((*s)->Journal()[1]["findings"][0]["rule"], "client_disconnected");
}

}  // namespace
}  // namespace llmconform::mockllm

// mockllm as a daily tool: retries after injected faults, sessions, SDK-shaped
// matching, the admin API, the proxy and CORS (docs/mockllm.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mockllm/admin_api.h"
#include "mockllm/sdk_match.h"
#include "mockllm/server.h"

namespace llmconform::mockllm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Two exchanges; the second is a recorded 429 and the third its recorded retry.
constexpr std::string_view kDailyTrace =
    R"({"format":"llmconform-trace/1","id":"retry/chat","origin":"synthesized"}
{"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"one"}]}},"response":{"status":200,"body":{"id":"r1"}}}
{"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"two"}]}},"response":{"status":429,"body":{"error":{"message":"slow down","type":"requests"}}}}
{"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"two"}]}},"response":{"status":200,"body":{"id":"r2"}}}
)";

const std::string kOne = R"({"model":"m","messages":[{"role":"user","content":"one"}]})";
const std::string kTwo = R"({"model":"m","messages":[{"role":"user","content":"two"}]})";
const std::string kDailyPinned = "/t/retry%2Fchat/v1/chat/completions";

Trace RetryTrace() {
  auto t = ParseTrace(kDailyTrace, "retry.jsonl");
  EXPECT_TRUE(t) << t.error().message;
  return *t;
}

std::unique_ptr<Server> Start(std::vector<Trace> traces, ServerOptions options = {}) {
  auto s = Server::Start(std::move(traces), std::move(options));
  EXPECT_TRUE(s) << s.error().message;
  return s ? std::move(*s) : nullptr;
}

OJson Faults(std::initializer_list<std::string_view> flags) {
  OJson fault = OJson::object();
  for (auto f : flags) EXPECT_TRUE(AddFaultFlag(fault, f));
  return fault;
}

struct DailyReply {
  int status = 0;
  nlohmann::json body;
  httplib::Headers headers;
};

DailyReply Send(const Server& s, const std::string& method, const std::string& path,
                const std::string& body = "", const httplib::Headers& headers = {}) {
  httplib::Client c("127.0.0.1", s.port());
  c.set_read_timeout(10, 0);
  httplib::Request req;
  req.method = method;
  req.path = path;
  req.headers = headers;
  if (!body.empty()) {
    req.body = body;
    req.headers.emplace("Content-Type", "application/json");
  }
  auto r = c.send(req);
  if (!r) return {};
  return {r->status, nlohmann::json::parse(r->body, nullptr, false), r->headers};
}

DailyReply DailyPost(const Server& s, const std::string& path, const std::string& body,
                     const httplib::Headers& headers = {}) {
  return Send(s, "POST", path, body, headers);
}

// ---- retries ----

TEST(Retries, RetryAfterAnInjectedFaultGetsTheSameExchange) {
  auto s = Start({RetryTrace()}, {.fault = Faults({"status=500"})});
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).status, 500);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).status, 500);  // still exchange 0, not a mismatch
  const auto journal = s->Journal();
  EXPECT_EQ(journal[1]["response"]["exchange"], 0);
  EXPECT_TRUE(journal[1]["findings"].empty()) << journal[1].dump();
}

TEST(Retries, TimesLimitsTheFaultToTheFirstAttempts) {
  auto s = Start({RetryTrace()}, {.fault = Faults({"status=429", "times=1"})});
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).status, 429);
  DailyReply retry = DailyPost(*s, kDailyPinned, kOne);
  EXPECT_EQ(retry.status, 200);
  EXPECT_EQ(retry.body["id"], "r1");
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kTwo).status, 429);  // the next exchange: its first attempt
  const auto journal = s->Journal();
  EXPECT_TRUE(journal[0].contains("fault"));
  EXPECT_FALSE(journal[1].contains("fault"));
}

TEST(Retries, TraceFaultObjectWithTimes) {
  Trace t = RetryTrace();
  t.exchanges[0].fault = OJson{{"status", 503}, {"times", 2}};
  auto s = Start({t});
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).status, 503);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).status, 503);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).body["id"], "r1");
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kTwo).status, 429);  // recorded, not injected
}

TEST(Retries, RecordedErrorThenRecordedRetryReplayInOrder) {
  auto s = Start({RetryTrace()});
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).status, 200);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kTwo).status, 429);
  DailyReply retry = DailyPost(*s, kDailyPinned, kTwo);
  EXPECT_EQ(retry.status, 200);
  EXPECT_EQ(retry.body["id"], "r2");
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kTwo).body["error"]["type"], "mockllm_trace_exhausted");
}

TEST(Retries, InjectedFaultOnARecordedErrorStillReplaysTheRecordedRetryNext) {
  Trace t = RetryTrace();
  t.exchanges[1].fault = OJson{{"delay_ms", 1}};
  auto s = Start({t});
  DailyPost(*s, kDailyPinned, kOne);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kTwo).status, 429);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kTwo).body["id"], "r2");  // the next recorded one matches
}

TEST(Retries, UnpinnedAttemptsAreCountedPerSession) {
  auto s = Start({RetryTrace()}, {.fault = Faults({"status=429", "times=1"})});
  EXPECT_EQ(DailyPost(*s, "/v1/chat/completions", kOne).status, 429);
  EXPECT_EQ(DailyPost(*s, "/v1/chat/completions", kOne).status, 200);
  EXPECT_EQ(DailyPost(*s, "/v1/chat/completions", kOne, {{"X-Mockllm-Session", "b"}}).status, 429);
}

TEST(Retries, TimesMustBePositive) {
  OJson fault = OJson::object();
  EXPECT_FALSE(AddFaultFlag(fault, "times=0"));
  EXPECT_FALSE(AddFaultFlag(fault, "times=-1"));
}

// ---- sessions ----

TEST(Sessions, WithoutTheHeaderEveryClientSharesDefault) {
  auto s = Start({RetryTrace()});
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).status, 200);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne).body["error"]["type"], "mockllm_request_mismatch");
  EXPECT_EQ(s->Journal()[1]["session"], "default");
}

TEST(Sessions, NoneIgnoresTheHeader) {
  auto s = Start({RetryTrace()}, {.session_by = SessionBy::kNone});
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne, {{"X-Mockllm-Session", "a"}}).status, 200);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kTwo, {{"X-Mockllm-Session", "b"}}).status, 429);
  EXPECT_EQ(s->Journal()[1]["session"], "default");
}

TEST(Sessions, ClientAddressNamesTheSession) {
  auto s = Start({RetryTrace()}, {.session_by = SessionBy::kClientAddress});
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kOne, {{"X-Mockllm-Session", "a"}}).status, 200);
  EXPECT_EQ(DailyPost(*s, kDailyPinned, kTwo, {{"X-Mockllm-Session", "b"}}).status, 429);
  EXPECT_EQ(s->Journal()[1]["session"], "127.0.0.1");
}

// ---- matching ----

TEST(SdkMatch, DefaultsAreRemoved) {
  const auto body = nlohmann::json::parse(
      R"({"model":"m","stream":false,"n":1,"temperature":1.0,"top_p":1,"tools":[{"type":"function"}],
          "tool_choice":"auto","parallel_tool_calls":true,"stream_options":{"include_usage":true},
          "max_tokens":null,"seed":3})");
  EXPECT_EQ(SdkNormalize(body),
            nlohmann::json::parse(R"({"model":"m","tools":[{"type":"function"}],"seed":3})"));
  // Non-defaults stay; tool_choice "auto" without tools is not the default.
  const auto kept =
      nlohmann::json::parse(R"({"stream":true,"temperature":0.5,"tool_choice":"auto","n":2})");
  EXPECT_EQ(SdkNormalize(kept), kept);
  EXPECT_EQ(
      SdkNormalize(nlohmann::json::parse(R"({"stream_options":{"include_usage":true,"x":1}})")),
      nlohmann::json::parse(R"({"stream_options":{"include_usage":true,"x":1}})"));
}

// The Responses API's defaults differ (store is true there): the request
// path's surface decides which are removed.
TEST(SdkMatch, ResponsesDefaultsAreThoseOfItsPath) {
  const auto body = nlohmann::json::parse(
      R"({"model":"m","input":"hi","stream":false,"store":true,"tool_choice":"auto",
          "parallel_tool_calls":true,"truncation":"disabled","text":{"format":{"type":"text"}},
          "include":[],"background":false,"instructions":null})");
  EXPECT_EQ(SdkNormalize(body, "/v1/responses"),
            nlohmann::json::parse(R"({"model":"m","input":"hi"})"));
  // On the Chat path store:true is no default, and Chat's stay Chat's.
  EXPECT_TRUE(SdkNormalize(body, "/v1/chat/completions").contains("store"));
  const auto chat_only = nlohmann::json::parse(R"({"n":1,"store":false})");
  EXPECT_EQ(SdkNormalize(chat_only, "/t/x/v1/responses"), chat_only);
}

// POST /v1/responses and /t/<id>/v1/responses replay a Responses trace; an
// SDK that leaves out (or adds) the defaults matches unpinned.
TEST(SdkMatch, ResponsesRoutesReplayAndMatchTheSurfaceDefaults) {
  auto t = ParseTrace(
      R"({"format":"llmconform-trace/1","id":"resp","surface":"responses"}
{"request":{"method":"POST","path":"/v1/responses","body":{"model":"m","input":"hi","store":true,"tool_choice":"auto","stream":false}},"response":{"status":200,"body":{"id":"resp_1","object":"response","status":"completed","model":"m","output":[]}}}
)",
      "resp.jsonl");
  ASSERT_TRUE(t) << t.error().message;
  auto s = Start({*t});
  EXPECT_EQ(DailyPost(*s, "/v1/responses", R"({"model":"m","input":"hi"})").body["id"], "resp_1");
  EXPECT_EQ(DailyPost(*s, "/v1/responses", R"({"model":"m","input":"hi","store":false})").status,
            404);
  EXPECT_EQ(
      DailyPost(*s, "/t/resp/v1/responses",
                R"({"model":"m","input":"hi","store":true,"tool_choice":"auto","stream":false})")
          .body["id"],
      "resp_1");
}

TEST(SdkMatch, DefaultForUnpinnedStrictStaysExactWhenAsked) {
  const std::string shaped =
      R"({"model":"m","stream":false,"n":1,"messages":[{"role":"user","content":"one"}]})";
  auto sdk = Start({RetryTrace()});
  EXPECT_EQ(DailyPost(*sdk, "/v1/chat/completions", shaped).body["id"], "r1");
  EXPECT_EQ(DailyPost(*sdk, kDailyPinned, shaped).status, 400);  // pinned stays strict by default
  auto strict = Start({RetryTrace()}, {.unpinned_match = MatchMode::kStrict});
  EXPECT_EQ(DailyPost(*strict, "/v1/chat/completions", shaped).status, 404);
  auto pinned_sdk = Start({RetryTrace()}, {.pinned_match = MatchMode::kSdk});
  EXPECT_EQ(DailyPost(*pinned_sdk, kDailyPinned, shaped).body["id"], "r1");
}

TEST(Mismatch, EveryDifferingPointerIsReported) {
  auto s = Start({RetryTrace()});
  DailyReply r =
      DailyPost(*s, kDailyPinned,
                R"({"model":"x","messages":[{"role":"system","content":"one"}],"user":"u"})");
  ASSERT_EQ(r.status, 400);
  const auto& diffs = r.body["error"]["differences"];
  ASSERT_EQ(diffs.size(), 3u) << r.body.dump();
  EXPECT_EQ(diffs[0]["pointer"], "/messages/0/role");
  EXPECT_EQ(diffs[1]["pointer"], "/model");
  EXPECT_EQ(diffs[2]["pointer"], "/user");
  EXPECT_FALSE(diffs[2].contains("expected"));
  const std::string finding = s->Journal()[0]["findings"][0]["message"];
  EXPECT_THAT(finding, HasSubstr("/messages/0/role"));
  EXPECT_THAT(finding, HasSubstr("/model"));
  EXPECT_THAT(finding, HasSubstr("/user"));
}

TEST(Mismatch, UnpinnedNamesTheNearestRecordedRequest) {
  auto s = Start({RetryTrace()});
  DailyReply r = DailyPost(*s, "/v1/chat/completions",
                           R"({"model":"other","messages":[{"role":"user","content":"two"}]})");
  ASSERT_EQ(r.status, 404);
  EXPECT_EQ(r.body["error"]["nearest"]["exchange"], 1);  // one difference, not two
  EXPECT_EQ(r.body["error"]["nearest"]["differences"].size(), 1u);
  EXPECT_THAT(r.body["error"]["message"].get<std::string>(), HasSubstr("exchange 1"));
}

TEST(Mismatch, IdenticalRequestsInTwoTracesAreALoadWarning) {
  Trace a = RetryTrace();
  Trace b = RetryTrace();
  b.id = "retry/copy";
  auto s = Start({a, b});
  ASSERT_EQ(s->Warnings().size(), 1u);
  EXPECT_THAT(s->Warnings()[0], HasSubstr("\"retry/chat\""));
  EXPECT_THAT(s->Warnings()[0], HasSubstr("\"retry/copy\""));
  EXPECT_TRUE(Start({RetryTrace()})->Warnings().empty());  // repeats inside one trace are retries
}

TEST(Mismatch, IncomingRequestsAreRedactedLikeRecordings) {
  Trace t = RetryTrace();
  t.exchanges[0].request.body = OJson::parse(
      R"({"model":"m","api_key":"[redacted]","messages":[{"role":"user","content":"key sk-[redacted]"}]})");
  auto s = Start({t});
  EXPECT_EQ(
      DailyPost(
          *s, kDailyPinned,
          R"({"model":"m","api_key":"hunter2-secret","messages":[{"role":"user","content":"key sk-abcdefghijklmnopqrstuvwx"}]})")
          .status,
      200);
}

// ---- admin API ----

TEST(Admin, LoadsFiltersAndRemovesTracesAtRuntime) {
  auto s = Start({RetryTrace()});
  DailyReply added = DailyPost(
      *s, "/__admin/traces",
      R"({"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"stub"}},
                         "response":{"status":200,"body":{"id":"stubbed"}}})");
  ASSERT_EQ(added.status, 201) << added.body.dump();
  const std::string id = added.body["loaded"][0];
  EXPECT_EQ(DailyPost(*s, "/v1/chat/completions", R"({"model":"stub"})").body["id"], "stubbed");
  // JSON Lines: a trace file.
  std::string jsonl(kDailyTrace);
  jsonl.replace(jsonl.find("retry/chat"), 10, "retry/two");
  DailyReply lines =
      Send(*s, "POST", "/__admin/traces", "", {{"Content-Type", "application/json"}});
  EXPECT_EQ(lines.status, 400);
  httplib::Client c("127.0.0.1", s->port());
  auto r = c.Post("/__admin/traces", jsonl, "application/x-ndjson");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 201) << r->body;
  EXPECT_THAT(r->body, HasSubstr("identical requests"));
  EXPECT_EQ(c.Post("/__admin/traces", jsonl, "application/x-ndjson")->status, 409);
  EXPECT_EQ(DailyPost(*s, "/t/retry%2Ftwo/v1/chat/completions", kOne).status, 200);
  DailyPost(*s, kDailyPinned, kOne, {{"X-Mockllm-Session", "x"}});
  auto filtered = Send(*s, "GET", "/__admin/journal?session=x&trace=retry/chat").body;
  ASSERT_EQ(filtered.size(), 1u);
  EXPECT_EQ(filtered[0]["session"], "x");
  EXPECT_EQ(Send(*s, "DELETE", "/__admin/traces/" + UrlEncode(id)).status, 200);
  EXPECT_EQ(Send(*s, "DELETE", "/__admin/traces/" + UrlEncode(id)).status, 404);
  EXPECT_EQ(DailyPost(*s, "/v1/chat/completions", R"({"model":"stub"})").status, 404);
  auto unmatched = Send(*s, "GET", "/__admin/unmatched").body;
  ASSERT_EQ(unmatched.size(), 1u);
  EXPECT_EQ(unmatched[0]["request"]["body"]["model"], "stub");
  EXPECT_TRUE(unmatched[0].contains("nearest"));
}

TEST(Admin, JsonBodiesBecomeTracesDirectly) {
  // A stub without an id is named stub-N.
  auto stub = TracesFromAdminBody(
      R"({"request":{"path":"/v1/x","body":{"b":1,"a":2}},"response":{"status":200},"note":1})",
      "POST");
  ASSERT_TRUE(stub) << stub.error().message;
  ASSERT_EQ(stub->size(), 1u);
  const Trace& s = (*stub)[0];
  EXPECT_TRUE(s.id.starts_with("stub-")) << s.id;
  EXPECT_EQ(s.header, (OJson{{"format", "llmconform-trace/1"}, {"id", s.id}, {"origin", "admin"}}));
  ASSERT_EQ(s.exchanges.size(), 1u);
  EXPECT_EQ(Json(*s.exchanges[0].request.body).dump(), R"({"a":2,"b":1})");
  EXPECT_EQ(s.exchanges[0].extra, (OJson{{"note", 1}}));
  EXPECT_EQ(s.source, "POST");
  // A trace object without format, and a stub with an id, in one array.
  auto both = TracesFromAdminBody(
      R"([{"id":"obj","origin":"test","exchanges":[{"request":{"path":"/v1/a"},"response":{"status":201}}]},
          {"id":"named","request":{"path":"/v1/b"},"response":{"status":202}}])",
      "POST");
  ASSERT_TRUE(both) << both.error().message;
  ASSERT_EQ(both->size(), 2u);
  EXPECT_EQ((*both)[0].header,
            (OJson{{"id", "obj"}, {"origin", "test"}, {"format", "llmconform-trace/1"}}));
  EXPECT_EQ((*both)[0].exchanges[0].response.status, 201);
  EXPECT_EQ((*both)[0].source, "POST (trace 0)");
  EXPECT_EQ((*both)[1].id, "named");
  EXPECT_TRUE((*both)[1].exchanges[0].extra.empty());
  EXPECT_EQ((*both)[1].source, "POST (trace 1)");
  // A trace file's JSON Lines still go through ParseTrace.
  auto lines = TracesFromAdminBody(
      "{\"format\":\"llmconform-trace/1\",\"id\":\"l\"}\n"
      "{\"request\":{\"path\":\"/v1/c\"},\"response\":{\"status\":200}}\n",
      "POST");
  ASSERT_TRUE(lines) << lines.error().message;
  EXPECT_EQ((*lines)[0].exchanges[0].line, 2u);
}

TEST(Admin, BadTraceBodiesAreLocatedErrors) {
  auto message = [](std::string_view body) {
    auto r = TracesFromAdminBody(body, "POST");
    return r ? std::string("(loaded)") : r.error().message;
  };
  EXPECT_EQ(message("[1]"), "POST:1:2: /0: expected a trace object or a stub, got number");
  EXPECT_EQ(message(R"({"id":"x","exchanges":[{"request":{}}]})"),
            "POST:1:35: /exchanges/0/request: missing field \"path\"");
  // Pointers and lines are the body's own, also in an array over several lines.
  EXPECT_EQ(message("[\n  {\"request\":{\"path\":\"/v1/x\"},\"response\":{\"status\":200}},\n"
                    "  {\"id\":\"t\",\"exchanges\":\"none\"}\n]"),
            "POST:3:25: /1/exchanges: expected array, got string");
  EXPECT_EQ(message(R"({"request":{"path":"v1"},"response":{"status":200}})"),
            "POST:1:20: /request/path: expected a path starting with '/', got \"v1\"");
  EXPECT_EQ(message(R"([{"request":{"path":"/v1"},"response":{}}])"),
            "POST:1:39: /0/response: missing field \"status\"");
  EXPECT_EQ(message(R"({"id":"","request":{"path":"/v1"},"response":{"status":200}})"),
            "POST:1:7: /id: expected a non-empty trace id");
  EXPECT_FALSE(TracesFromAdminBody(std::string(2000, '['), "POST"));
  EXPECT_FALSE(TracesFromAdminBody("\xff\xfe garbage", "POST"));
}

// ---- CORS ----

TEST(Cors, PreflightAndHeaders) {
  auto s = Start({RetryTrace()}, {.cors = "http://localhost:3000"});
  DailyReply pre = Send(*s, "OPTIONS", "/v1/chat/completions", "",
                        {{"Origin", "http://localhost:3000"},
                         {"Access-Control-Request-Method", "POST"},
                         {"Access-Control-Request-Headers", "content-type,authorization"}});
  EXPECT_EQ(pre.status, 204);
  EXPECT_EQ(httplib::detail::get_header_value(pre.headers, "Access-Control-Allow-Origin", 0, ""),
            std::string("http://localhost:3000"));
  EXPECT_EQ(httplib::detail::get_header_value(pre.headers, "Access-Control-Allow-Headers", 0, ""),
            std::string("content-type,authorization"));
  DailyReply r = DailyPost(*s, "/v1/chat/completions", kOne, {{"Origin", "http://localhost:3000"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.headers.contains("Access-Control-Allow-Origin"));
  DailyReply other = DailyPost(*s, "/v1/chat/completions", kOne, {{"Origin", "http://evil.test"}});
  EXPECT_FALSE(other.headers.contains("Access-Control-Allow-Origin"));
  EXPECT_TRUE(s->Journal().size() == 2u);  // preflights are not journaled
  EXPECT_FALSE(Server::Start({RetryTrace()}, {.cors = "localhost"}));
}

// ---- proxy ----

TEST(Proxy, UnmatchedRequestsAreForwardedAndRecordedRedacted) {
  httplib::Server upstream;
  std::string seen_auth;
  upstream.Post("/v1/chat/completions", [&](const httplib::Request& req, httplib::Response& res) {
    seen_auth = req.get_header_value("Authorization");
    res.set_content(R"({"id":"from-upstream"})", "application/json");
  });
  const int port = upstream.bind_to_any_port("127.0.0.1");
  std::thread th([&] { upstream.listen_after_bind(); });
  const auto file = std::filesystem::temp_directory_path() /
                    ("mockllm-proxy-" + std::to_string(::getpid()) + ".trace.jsonl");
  std::filesystem::remove(file);
  {
    auto s = Start({RetryTrace()}, {.proxy = "http://127.0.0.1:" + std::to_string(port),
                                    .record_to = file.string()});
    ASSERT_TRUE(s);
    EXPECT_EQ(DailyPost(*s, "/v1/chat/completions", kOne).body["id"], "r1");  // matched: replayed
    DailyReply r = DailyPost(*s, "/v1/chat/completions", R"({"model":"new"})",
                             {{"Authorization", "Bearer sk-abcdefghijklmnopqrstuvwxyz"}});
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body["id"], "from-upstream");
    EXPECT_EQ(seen_auth, "Bearer sk-abcdefghijklmnopqrstuvwxyz");
    EXPECT_EQ(s->Journal()[1]["proxied"], "http://127.0.0.1:" + std::to_string(port));
    EXPECT_EQ(s->mismatches(), 0u);
    s->Stop();
  }
  upstream.stop();
  th.join();
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("from-upstream"));
  EXPECT_THAT(text.str(), Not(HasSubstr("sk-abcdefghijklmnopqrstuvwxyz")));
  auto trace = ParseTrace(text.str(), file.string());
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_EQ(trace->exchanges.size(), 1u);
  std::filesystem::remove(file);
  EXPECT_FALSE(Server::Start({RetryTrace()}, {.proxy = "http://127.0.0.1:1"}));  // no --record-to
}

// ---- unused and mismatches ----

TEST(Shutdown, OnlyTouchedTracesCountAndMismatchesAreCounted) {
  Trace other = RetryTrace();
  other.id = "untouched";
  other.exchanges.resize(1);
  other.exchanges[0].request.body = OJson::parse(R"({"model":"untouched"})");
  auto s = Start({RetryTrace(), other});
  DailyPost(*s, kDailyPinned, kOne);
  DailyPost(*s, kDailyPinned, kOne);  // a mismatch
  int touched = 0;
  for (const auto& e : s->Sessions()) {
    if (e["touched"]) {
      ++touched;
      EXPECT_EQ(e["trace"], "retry/chat");
      EXPECT_EQ(e["unused"], nlohmann::json::parse("[1,2]"));
    }
  }
  EXPECT_EQ(touched, 1);
  EXPECT_EQ(s->mismatches(), 1u);
}

}  // namespace
}  // namespace llmconform::mockllm

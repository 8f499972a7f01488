#include "harness/probe.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/test_paths.h"
#include "base/utf8.h"
#include "harness/probe_support.h"
#include "harness/probe_test_support.h"
#include "mockllm/trace_files.h"
#include "net/fake_http_client.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using ::llmconform::test_paths::kRoot;
using probe_test::Item;
using probe_test::Reply;

// The battery sends exactly the requests fixtures/probe recorded (one trace
// per item, the same body), so mockllm answers each with its canonical reply.
// The other surfaces' answers (fixtures/probe/SURFACE/, probe_surfaces_test)
// are Chat's neighbours, told apart by their header's `surface`.
TEST(Probe, TheBatteryIsTheRecordedRequestsOfFixturesProbe) {
  auto files = mockllm::TraceFiles({(kRoot / "fixtures/probe").string()});
  ASSERT_TRUE(files.has_value());
  std::map<std::string, OJson> recorded;
  for (const auto& f : *files) {
    auto t = mockllm::LoadTraceFile(f);
    ASSERT_TRUE(t.has_value()) << f;
    ASSERT_EQ(t->exchanges.size(), 1u) << f;
    ASSERT_TRUE(t->exchanges[0].request.body.has_value());
    if (t->header.value("surface", "chat") != "chat") continue;
    EXPECT_EQ(t->exchanges[0].request.path, "/v1/chat/completions") << f;
    recorded[t->id] = *t->exchanges[0].request.body;
  }
  const auto battery = ProbeBattery("gpt-4o-mini");
  ASSERT_EQ(battery.size(), recorded.size());
  std::set<std::string> features;
  for (const ProbeItem& item : battery) {
    auto it = recorded.find("probe/" + item.name);
    ASSERT_NE(it, recorded.end()) << item.name << " has no fixtures/probe trace";
    EXPECT_EQ(item.body, it->second) << item.name;
    features.insert(item.feature);
  }
  EXPECT_EQ(features, std::set<std::string>(ProbeFeatures().begin(), ProbeFeatures().end()));
  EXPECT_EQ(ProbeBattery("m")[0].body["model"], "m");
}

TEST(Probe, CombiningOutcomes) {
  using O = ProbeOutcome;
  EXPECT_EQ(CombineOutcomes({O::kPass, O::kNotProvoked}), O::kPass);
  EXPECT_EQ(CombineOutcomes({O::kPass, O::kFail}), O::kFail);
  EXPECT_EQ(CombineOutcomes({O::kNotProvoked, O::kUnsupported}), O::kUnsupported);
  EXPECT_EQ(CombineOutcomes({O::kNotProvoked}), O::kUnsupported);
}

TEST(Probe, JudgesWhatACarefulClientReads) {
  const auto b = ProbeBattery("m");
  const std::string plain =
      R"({"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,)"
      R"("message":{"role":"assistant","content":"Hi."},"finish_reason":"stop"}]})";
  auto r = JudgeProbeReply(Item(b, "plain"), Reply(200, "application/json", plain), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kPass) << r.detail;
  EXPECT_NE(r.detail.find("\"Hi.\""), std::string::npos) << r.detail;

  // A text answer where a tool call was asked for fails, naming the field.
  r = JudgeProbeReply(Item(b, "tool"), Reply(200, "application/json", plain), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kFail);
  EXPECT_NE(r.detail.find("/choices/0/message/tool_calls: no tool call"), std::string::npos)
      << r.detail;

  // One call where two were asked for: the model does not make parallel calls.
  const std::string one =
      R"({"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[)"
      R"({"id":"c","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},)"
      R"("finish_reason":"tool_calls"}]})";
  r = JudgeProbeReply(Item(b, "parallel-tools"), Reply(200, "application/json", one), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kUnsupported) << r.detail;
  r = JudgeProbeReply(Item(b, "tool"), Reply(200, "application/json", one), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kPass) << r.detail;

  // Arguments that are not a JSON object fail.
  std::string bad = one;
  bad.replace(bad.find(R"({\"city\":\"Paris\"})"), 18, "{city");
  r = JudgeProbeReply(Item(b, "tool"), Reply(200, "application/json", bad), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kFail) << r.detail;

  // A refused optional parameter is "unsupported"; a refused plain request fails.
  const std::string refused = R"({"error":{"message":"tools are not supported","type":"x"}})";
  EXPECT_EQ(JudgeProbeReply(Item(b, "tool"), Reply(400, "application/json", refused), {}).outcome,
            ProbeOutcome::kUnsupported);
  EXPECT_EQ(JudgeProbeReply(Item(b, "plain"), Reply(400, "application/json", refused), {}).outcome,
            ProbeOutcome::kFail);
  EXPECT_EQ(JudgeProbeReply(Item(b, "tool"), Reply(401, "application/json", refused), {}).outcome,
            ProbeOutcome::kFail);

  // The error shape: OpenAI's, Gemini's array and a flat body are read; a
  // body that is no error object fails; a completion is "unsupported".
  for (const std::string& e :
       {refused, std::string(R"([{"error":{"code":400,"message":"m","status":"X"}}])"),
        std::string(R"({"object":"error","message":"m","type":"BadRequestError"})")}) {
    EXPECT_EQ(
        JudgeProbeReply(Item(b, "invalid-request"), Reply(400, "application/json", e), {}).outcome,
        ProbeOutcome::kPass)
        << e;
  }
  EXPECT_EQ(JudgeProbeReply(Item(b, "invalid-request"), Reply(400, "text/html", "<h1>no</h1>"), {})
                .outcome,
            ProbeOutcome::kFail);
  EXPECT_EQ(JudgeProbeReply(Item(b, "invalid-request"), Reply(200, "application/json", plain), {})
                .outcome,
            ProbeOutcome::kUnsupported);
  EXPECT_EQ(
      JudgeProbeReply(Item(b, "rate-limited"), Reply(200, "application/json", plain), {}).outcome,
      ProbeOutcome::kNotProvoked);

  // Streams.
  const std::string stream =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"},"
      "\"finish_reason\":null}]}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}"
      "\n\ndata: [DONE]\n\n";
  r = JudgeProbeReply(Item(b, "stream"), Reply(200, "text/event-stream", stream), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kPass) << r.detail;
  EXPECT_NE(r.detail.find("\"Hello\""), std::string::npos) << r.detail;
  r = JudgeProbeReply(Item(b, "stream-usage"), Reply(200, "text/event-stream", stream), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kFail) << r.detail;
  EXPECT_NE(r.detail.find("include_usage"), std::string::npos) << r.detail;
  r = JudgeProbeReply(Item(b, "reasoning"), Reply(200, "text/event-stream", stream), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kUnsupported) << r.detail;
  // A JSON body where a stream was asked for, and a stream where none was.
  EXPECT_EQ(JudgeProbeReply(Item(b, "stream"), Reply(200, "application/json", plain), {}).outcome,
            ProbeOutcome::kFail);
  EXPECT_EQ(JudgeProbeReply(Item(b, "plain"), Reply(200, "text/event-stream", stream), {}).outcome,
            ProbeOutcome::kFail);
}

TEST(Probe, BrokenRepliesFailWithTheirReason) {
  const auto b = ProbeBattery("m");
  ProbeReply none;
  none.error = "Could not establish connection";
  auto r = JudgeProbeReply(Item(b, "plain"), none, {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kFail);
  EXPECT_NE(r.detail.find("no answer: Could not establish connection"), std::string::npos);

  ProbeReply cut = Reply(200, "text/event-stream", "data: {\"choices\":[");
  cut.error = "timed out after 1000 ms";
  r = JudgeProbeReply(Item(b, "stream"), cut, {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kFail);
  EXPECT_NE(r.detail.find("broke off after 18 bytes: timed out"), std::string::npos) << r.detail;

  r = JudgeProbeReply(Item(b, "plain"), Reply(200, "application/json", "<html>hi</html>"), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kFail);
  EXPECT_NE(r.detail.find("not JSON: \"<html>hi</html>\""), std::string::npos) << r.detail;

  r = JudgeProbeReply(Item(b, "stream"),
                      Reply(200, "text/event-stream", "data: {nope\n\ndata: [DONE]\n\n"), {});
  EXPECT_EQ(r.outcome, ProbeOutcome::kFail) << r.detail;
}

// Whatever bytes come back, with whatever status and content type, every
// battery item is judged without throwing, and the evidence is valid UTF-8.
RC_GTEST_PROP(Probe, AnyReplyIsJudged, ()) {
  static const auto battery = ProbeBattery("m");
  const auto& item = battery[*rc::gen::inRange<std::size_t>(0, battery.size())];
  const std::string body = *rc::gen::oneOf(
      rc::gen::arbitrary<std::string>(),
      rc::gen::map(rc::gen::inRange(1, 3000), [](int n) { return std::string(n, '['); }),
      rc::gen::map(rc::gen::arbitrary<std::string>(),
                   [](const std::string& s) { return "data: {\"choices\":[" + s + "\n\n"; }));
  const int status = *rc::gen::element(200, 400, 429, 500);
  const std::string type =
      *rc::gen::element<std::string>("application/json", "text/event-stream", "");
  const auto r = JudgeProbeReply(item, Reply(status, type, body), {});
  RC_ASSERT(IsValidUtf8(r.detail));
  RC_ASSERT(!r.detail.empty());
}

// ---- ProbePost and RunProbe over net::FakeHttpClient: no sockets ----

// A key long enough to be a credential is scrubbed wherever it occurs; a short
// placeholder key only where it stands alone, so `x` leaves "text" whole.
TEST(ProbeSupport, ScrubKeyReplacesAShortKeyOnlyWhereItStandsAlone) {
  using probe_support::ScrubKey;
  EXPECT_EQ(ScrubKey("content-type: text/event-stream", "x"), "content-type: text/event-stream");
  EXPECT_EQ(ScrubKey("x", "x"), "[redacted]");
  EXPECT_EQ(ScrubKey(R"({"key":"x","y":"x-1","z":"ax","w":" x."})", "x"),
            R"({"key":"[redacted]","y":"x-1","z":"ax","w":" [redacted]."})");
  EXPECT_EQ(ScrubKey("Bearer ollama; ollama_x ollamas", "ollama"),
            "Bearer [redacted]; ollama_x ollamas");
  const std::string key = "sk-0123456789abcdef";  // kWholeKeyBytes or more
  ASSERT_GE(key.size(), probe_support::kWholeKeyBytes);
  EXPECT_EQ(ScrubKey("a" + key + "b " + key + key, key), "a[redacted]b [redacted][redacted]");
  EXPECT_EQ(ScrubKey("text", ""), "text");
}

using std::chrono::milliseconds;

TEST(ProbePost, KeepsTheAnswerAsItArrived) {
  net::FakeHttpClient http;
  http.Push(net::FakeHttpClient::Respond(200, "text/event-stream",
                                         {"data: {\"a\":1}\n\n", "data: [DONE]\n\n"}));
  const std::vector<std::pair<std::string, std::string>> headers = {
      {"content-type", "application/json"}, {"authorization", "Bearer k"}};
  const ProbeReply r =
      ProbePost(http, "http://h:1/v1/chat/completions", headers, "{}", milliseconds(1500));
  ASSERT_EQ(http.requests().size(), 1u);
  EXPECT_EQ(http.requests()[0], (net::HttpRequest{.method = "POST",
                                                  .url = "http://h:1/v1/chat/completions",
                                                  .headers = headers,
                                                  .body = "{}"}));
  // One timeout bounds the connection, each silence and the whole exchange.
  EXPECT_EQ(http.timeouts()[0], net::HttpTimeouts::All(milliseconds(1500)));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-type"), "text/event-stream");
  ASSERT_EQ(r.pieces.size(), 2u);
  EXPECT_EQ(r.pieces[0].raw, "data: {\"a\":1}\n\n");
  EXPECT_LE(r.pieces[0].t_ms, r.pieces[1].t_ms);
  EXPECT_EQ(r.Body(), "data: {\"a\":1}\n\ndata: [DONE]\n\n");
  EXPECT_FALSE(r.error.has_value());
  EXPECT_FALSE(r.timed_out);
}

TEST(ProbePost, AnEndlessBodyIsCutAtTheLimit) {
  net::FakeHttpClient http;
  auto endless = net::FakeHttpClient::Respond(200, "text/event-stream", {"abcd"});
  endless.endless = true;
  http.Push(endless);
  const ProbeReply r = ProbePost(http, "http://h:1/x", {}, "{}", milliseconds(1000), 10);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Body(), "abcdabcd");
  EXPECT_EQ(r.error, "the body is larger than 10 bytes");
  EXPECT_FALSE(r.timed_out);
}

TEST(ProbePost, FailuresKeepWhatArrivedAndSayWhy) {
  net::FakeHttpClient http;
  // A stream that trickles past the deadline: the head and pieces stay.
  auto trickle = net::FakeHttpClient::Respond(200, "text/event-stream", {"d", "a"});
  trickle.fail_after_chunks = net::HttpFailure::kTimeout;
  http.Push(trickle);
  // A server that closes mid-body.
  auto cut = net::FakeHttpClient::Respond(200, "application/json", {"{\"id\":"});
  cut.fail_after_chunks = net::HttpFailure::kBroken;
  http.Push(cut);
  http.Push(net::FakeHttpClient::Fail(net::HttpFailure::kUnreachable));
  http.Push(net::FakeHttpClient::Fail(net::HttpFailure::kTimeout));

  ProbeReply r = ProbePost(http, "http://h:1/x", {}, "{}", milliseconds(700));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Body(), "da");
  EXPECT_EQ(r.error, "timed out after 700 ms");
  EXPECT_TRUE(r.timed_out);

  r = ProbePost(http, "http://h:1/x", {}, "{}", milliseconds(700));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-type"), "application/json");
  EXPECT_EQ(r.Body(), "{\"id\":");
  EXPECT_EQ(r.error, "Read");
  EXPECT_FALSE(r.timed_out);

  r = ProbePost(http, "http://h:1/x", {}, "{}", milliseconds(700));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.error, "Connection");
  EXPECT_FALSE(r.timed_out);

  r = ProbePost(http, "http://h:1/x", {}, "{}", milliseconds(700));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.error, "timed out after 700 ms");
  EXPECT_TRUE(r.timed_out);
}

// The canonical answer of fixtures/probe/plain.trace.jsonl passes plain-text;
// a key the endpoint echoes back reaches neither the output nor the recording.
TEST(RunProbe, SendsTheBatteryThroughTheClientAndNeverShowsTheKey) {
  const std::string key = "sk-probe-test-0123456789abcdef";
  ASSERT_EQ(::setenv("LLMCONFORM_PROBE_TEST_KEY", key.c_str(), 1), 0);
  std::ifstream in(kRoot / "fixtures/probe/plain.trace.jsonl");
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  std::string answer = OJson::parse(line)["response"]["body"].dump();
  answer.replace(answer.find("Hello there"), 11, key);
  net::FakeHttpClient http;
  auto reply = net::FakeHttpClient::Respond(200, "application/json",
                                            {answer.substr(0, 40), answer.substr(40)});
  reply.headers["x-echo"] = "Bearer " + key;
  http.Push(reply);

  const fs::path dir = fs::path(testing::TempDir()) / "probe_fake_record";
  fs::remove_all(dir);
  fs::create_directories(dir);
  ProbeArgs a{.base_url = "http://h:1/v1/",
              .model = "m",
              .api_key_env = "LLMCONFORM_PROBE_TEST_KEY",
              .features = {"plain-text"},
              .record_dir = dir.string(),
              .provider = "fake"};
  testing::internal::CaptureStdout();
  const int code = RunProbe(a, http);
  const std::string out = testing::internal::GetCapturedStdout();
  ::unsetenv("LLMCONFORM_PROBE_TEST_KEY");

  EXPECT_EQ(code, 0) << out;
  ASSERT_EQ(http.requests().size(), 1u);
  const net::HttpRequest sent = http.requests()[0];
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url, "http://h:1/v1/chat/completions");
  EXPECT_EQ(OJson::parse(sent.body), ProbeBattery("m")[0].body);
  EXPECT_NE(std::find(sent.headers.begin(), sent.headers.end(),
                      std::pair<std::string, std::string>{"authorization", "Bearer " + key}),
            sent.headers.end());
  EXPECT_EQ(http.timeouts()[0], net::HttpTimeouts::All(milliseconds(60000)));
  EXPECT_NE(out.find("plain-text" + std::string(11, ' ') + "pass"), std::string::npos) << out;
  EXPECT_EQ(out.find(key), std::string::npos) << out;
  std::ifstream rec(dir / "plain.trace.jsonl");
  std::stringstream recorded;
  recorded << rec.rdbuf();
  EXPECT_NE(recorded.str().find("[redacted]"), std::string::npos) << recorded.str();
  EXPECT_EQ(recorded.str().find(key), std::string::npos) << recorded.str();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace llmconform::harness

#include "harness/sse_check.h"

#include <gtest/gtest.h>

#include "base/format.h"
#include "base/json.h"
#include "harness/gymbro_service.h"
#include "harness/gymbro_test_support.h"
#include "harness/suites/suite_test_support.h"
#include "mockllm/server.h"
#include "mockllm/trace.h"
#include "net/fake_http_client.h"
#include "protocols/thinkingml/serp_queries.h"
#include "protocols/thinkingml/thinkingml.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;
using reports::Outcome;
using std::chrono::milliseconds;

const std::string kValidReply =
    "<thinking><phase id=\"1\"><title>理解需求</title>用户要三分化。</phase></thinking>\n"
    "<final>推拉腿。\n" +
    thinkingml::FormatSerpQueriesBlock({"三分化训练"}) + "\n</final>";

std::string Ids() { return R"("message_id":"m1","request_id":"r1")"; }

gymbro::StreamEvent Event(std::string name, std::string rest) {
  return {std::move(name), "{" + Ids() + (rest.empty() ? "" : "," + rest) + "}"};
}

gymbro::StreamEvent Delta(int seq, const std::string& text) {
  return Event("content_delta", Format("\"seq\":{},\"delta\":{}", seq, Json(text).dump()));
}

CapturedStream Stream(std::vector<gymbro::StreamEvent> events) {
  return {"http://x/events", 200, "text/event-stream", std::move(events), ""};
}

std::vector<std::string> AllRules() {
  std::vector<std::string> rules;
  for (auto id : StreamRuleIds()) rules.emplace_back(id);
  for (auto id : thinkingml::kReplyRuleIds) rules.emplace_back(id);
  return rules;
}

// "RULE outcome" for every result that is not a Pass.
std::vector<std::string> NotPassing(const std::vector<CheckResult>& results) {
  std::vector<std::string> out;
  for (const auto& r : results) {
    if (r.outcome != Outcome::kPass)
      out.push_back(r.rule + " " + std::string(reports::OutcomeName(r.outcome)));
  }
  return out;
}

const CheckResult* Find(const std::vector<CheckResult>& results, std::string_view rule) {
  for (const auto& r : results) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

using V = std::vector<std::string>;

TEST(JudgeStream, AConformingStreamPassesEveryRule) {
  const auto results = JudgeStream(
      Stream({Event("status", R"("state":"queued")"), Delta(1, kValidReply.substr(0, 20)),
              Delta(2, kValidReply.substr(20)),
              Event("completed", Format("\"reply_len\":{}", CountCodePoints(kValidReply)))}),
      {"r1", std::nullopt, {}}, AllRules());
  EXPECT_EQ(results.size(), AllRules().size());
  EXPECT_EQ(NotPassing(results), V{});
  EXPECT_EQ(Find(results, "TML-1.1")->message, "the joined reply (140 characters) keeps it");
}

TEST(JudgeStream, AnErrorEndFailsTheReplyAndSkipsThinkingml) {
  const auto results = JudgeStream(
      Stream({Delta(1, "<thinking>"),
              Event("error", R"("code":"provider_error","message":"boom","error":"boom")")}),
      {}, AllRules());
  V not_passing = NotPassing(results);
  EXPECT_EQ(not_passing.front(), "GYMBRO-7.4 fail");
  EXPECT_EQ(not_passing.size(),
            1 + std::size(thinkingml::kReplyRuleIds));  // every TML rule skipped
  EXPECT_EQ(Find(results, "GYMBRO-7.4")->message,
            "the stream ended with error provider_error: boom after 1 content deltas; the reply is "
            "a failure");
  EXPECT_EQ(Find(results, "TML-1.1")->outcome, Outcome::kSkip);
}

TEST(JudgeStream, ReportsEachBreachWithWhereItIs) {
  CapturedStream s =
      Stream({Delta(1, "a"), Delta(3, "b"), Event("completed", R"("reply_len":2,"reply":"ab")")});
  s.content_type = "application/json";
  const auto results = JudgeStream(s, {}, AllRules());
  EXPECT_EQ(NotPassing(results), (V{"GYMBRO-6.5 fail", "GYMBRO-6.10 fail", "GYMBRO-6.16 fail",
                                    "TML-1.5 fail", "TML-1.6 fail", "TML-1.8 fail"}));
  const CheckResult* seq = Find(results, "GYMBRO-6.5");
  ASSERT_TRUE(seq->evidence);
  EXPECT_EQ(seq->evidence->where, "/stream/events/1");
  EXPECT_EQ(
      seq->message,
      "event 2 (content_delta) has seq 3 where 2 was expected; seq starts at 1 and rises by 1");
  EXPECT_EQ(Find(results, "GYMBRO-6.16")->message,
            "the event stream has content-type \"application/json\", expected text/event-stream");
  EXPECT_EQ(Find(results, "TML-1.8")->evidence->where, "/reply:1:1");
}

TEST(JudgeStream, ShouldRulesWarnWithoutFailing) {
  const auto results = JudgeStream(Stream({
                                       Delta(1, kValidReply),
                                       Event("completed", R"("reply_len":5)"),
                                   }),
                                   {}, std::vector<std::string>{"GYMBRO-7.3"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::kPass);
  EXPECT_EQ(results[0].message,
            "warning: event 2 (completed) has reply_len 5, the joined deltas hold 140 characters");
}

TEST(JudgeStream, IntendedViolationsPassWhenReportedAndFailWhenNot) {
  const std::string broken = kValidReply + "尾巴";
  StreamJudgeOptions options;
  options.violations = {"TML-1.9", "TML-3.2"};
  const auto results =
      JudgeStream(Stream({Delta(1, broken),
                          Event("completed", Format("\"reply_len\":{}", CountCodePoints(broken)))}),
                  options, std::vector<std::string>{"TML-1.9", "TML-3.2"});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, Outcome::kPass) << DescribeCheck(results[0]);
  EXPECT_EQ(results[0].message,
            "reported as the scenario intends: reply 6:9: text after </final>: \"尾巴\"; nothing "
            "may follow the "
            "<final> block");
  EXPECT_EQ(results[1].outcome, Outcome::kFail);
  EXPECT_EQ(results[1].message, "the scenario breaks TML-3.2 on purpose, but it was not reported");
}

TEST(JudgeStream, ExpectedTerminationDecidesRule74) {
  StreamJudgeOptions options;
  options.expected_termination = gymbro::Termination::kError;
  const auto results = JudgeStream(
      Stream({Event("error", R"("code":"upstream_incomplete","message":"cut","error":"cut")")}),
      options, std::vector<std::string>{"GYMBRO-7.4"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::kPass);
  EXPECT_EQ(results[0].message,
            "the stream ended with error as the scenario expects (upstream_incomplete: cut)");
}

TEST(CapturedStream, RoundTripsThroughJson) {
  CapturedStream s = Stream({Delta(1, "a")});
  s.transport_error = "reading stopped";
  auto back = CapturedStreamFromJson(ToJson(s));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, s);
  auto bad =
      CapturedStreamFromJson(Json{{"status", 200}, {"events", {{{"event", "x"}, {"data", 1}}}}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "/stream/events/0/data: expected string, got number");
}

TEST(SseCheck, JudgesABrokenServiceByEveryRule) {
  net::FakeHttpClient broken;
  broken.Push(net::FakeHttpClient::Respond(200, "text/event-stream",
                                           {"event: status\ndata: {\"state\":\"routed\"," + Ids() +
                                            "}\n\n"
                                            "event: status\ndata: {\"state\":\"queued\"," +
                                            Ids() +
                                            "}\n\n"
                                            "event: content_delta\ndata: {" +
                                            Ids() +
                                            ",\"seq\":0,\"delta\":\"<<ParsingError>>\"}\n\n"
                                            "event: completed\ndata: {" +
                                            Ids() +
                                            ",\"reply_len\":16,\"text\":\"<<ParsingError>>\"}\n\n"
                                            "event: heartbeat\ndata: {" +
                                            Ids() + ",\"ts\":1736253242}\n\n"}));
  const reports::ScenarioResult result =
      SseCheck("http://service/events", {"r2", milliseconds(10000)}, broken);
  ASSERT_EQ(broken.requests().size(), 1u);
  EXPECT_EQ(broken.requests()[0],
            (net::HttpRequest{"GET",
                              "http://service/events",
                              {{"Accept", "text/event-stream"}, {"X-Request-Id", "r2"}},
                              ""}));
  EXPECT_EQ(result.info.protocol, "gymbro");
  EXPECT_EQ(result.info.name, "sse-check");
  EXPECT_EQ(NotPassing(result.checks), (V{"GYMBRO-6.4 fail", "GYMBRO-6.5 fail", "GYMBRO-6.7 fail",
                                          "GYMBRO-6.9 fail", "GYMBRO-6.10 fail", "TML-5.1 fail"}));
  EXPECT_EQ(result.Overall(), Outcome::kFail);
}

TEST(SseCheck, PassesTheReferenceService) {
  auto trace = mockllm::ParseTrace(GymbroUpstreamTrace({kValidReply}), "<test>");
  ASSERT_TRUE(trace) << trace.error().message;
  std::vector<mockllm::Trace> traces{*trace};
  auto upstream = mockllm::Server::Start(std::move(traces), {});
  ASSERT_TRUE(upstream) << upstream.error().message;
  GymbroServiceOptions options;
  options.upstream_base_url = (*upstream)->TraceBaseUrl("gymbro/test");
  auto service = GymbroService::Start(options);
  ASSERT_TRUE(service) << service.error().message;
  auto posted = PostGymbroMessage((*service)->base_url(), R"({"text":"hi"})", "req-ci-7",
                                  milliseconds(10000));
  ASSERT_TRUE(posted) << posted.error().message;
  const std::string id = Json::parse(posted->body)["message_id"];
  const auto result = SseCheck(Format("{}/api/v1/messages/{}/events", (*service)->base_url(), id),
                               {"req-ci-7", milliseconds(10000)});
  EXPECT_EQ(NotPassing(result.checks), V{});
  EXPECT_EQ(result.checks.size(), AllRules().size());
  EXPECT_EQ(result.Overall(), Outcome::kPass);
}

TEST(SseCheck, AnUnreachableStreamIsAnErrorNotAVerdict) {
  net::FakeHttpClient down;
  down.Push(net::FakeHttpClient::Fail(net::HttpFailure::kUnreachable));
  down.Push(net::FakeHttpClient::Fail(net::HttpFailure::kTimeout));
  const auto result =
      SseCheck("http://127.0.0.1:1/events", {std::nullopt, milliseconds(2000)}, down);
  ASSERT_FALSE(result.checks.empty());
  for (const auto& r : result.checks) EXPECT_EQ(r.outcome, Outcome::kError) << DescribeCheck(r);
  EXPECT_EQ(result.checks[0].message,
            "the stream could not be read: GET http://127.0.0.1:1/events: Connection");
  const auto silent = SseCheck("http://h/events", {std::nullopt, milliseconds(2000)}, down);
  EXPECT_EQ(silent.checks[0].message,
            "the stream could not be read: GET http://h/events: no response within 2000 ms");
  const auto bad_url = SseCheck("ftp://x", {});
  EXPECT_EQ(bad_url.checks[0].message,
            "the stream could not be read: GET ftp://x: not an http(s) URL");
}

}  // namespace
}  // namespace llmconform::harness

#include "harness/gate_checks.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <string>

#include "harness/runner.h"
#include "mockllm/server.h"

namespace llmconform::harness {
namespace {

using reports::Outcome;

// Two exchanges: a plain request, then a streamed one.
constexpr std::string_view kGateTrace =
    R"({"format":"llmconform-trace/1","id":"demo/chat","origin":"synthesized","model":"m"}
{"seq":1,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"hi"}]}},"response":{"status":200,"headers":{"content-type":"application/json"},"body":{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}}}
{"seq":2,"request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"more"}]}},"response":{"status":500,"headers":{"content-type":"application/json"},"body":{"error":{"message":"upstream"}}}}
)";
const std::string kFirst = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";
const std::string kSecond = R"({"model":"m","messages":[{"role":"user","content":"more"}]})";

class GateChecksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto trace = mockllm::ParseTrace(kGateTrace, "demo.jsonl");
    ASSERT_TRUE(trace) << trace.error().message;
    auto server = mockllm::Server::Start({*trace}, {});
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
  }
  void TearDown() override { server_->Stop(); }

  int Post(const std::string& path, const std::string& body) {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    auto r = c.Post(path.c_str(), body, "application/json");
    return r ? r->status : -1;
  }
  const std::string pinned_ = "/t/demo%2Fchat/v1/chat/completions";

  // The outcome of `rule` among the checks of the journal so far.
  Outcome OutcomeOf(const std::string& rule, std::string* message = nullptr) {
    for (const auto& c : RequestGateChecks(server_->Journal(), 2)) {
      if (c.rule != rule) continue;
      if (message) *message = c.message;
      return c.outcome;
    }
    ADD_FAILURE() << "no result for " << rule;
    return Outcome::kError;
  }

  std::unique_ptr<mockllm::Server> server_;
};

TEST_F(GateChecksTest, AClientThatFollowsTheTracePassesEveryGateRule) {
  EXPECT_EQ(Post(pinned_, kFirst), 200);
  EXPECT_EQ(Post(pinned_, kSecond), 500);  // recorded: not a refusal
  for (const auto& c : RequestGateChecks(server_->Journal(), 2))
    EXPECT_EQ(c.outcome, Outcome::kPass) << c.rule << ": " << c.message;
}

TEST_F(GateChecksTest, AMismatchedRequestFailsOnItsOwnRule) {
  EXPECT_EQ(Post(pinned_, kFirst), 200);
  EXPECT_EQ(
      Post(pinned_, R"({"model":"m","stream":true,"messages":[{"role":"user","content":"more"}]})"),
      400);
  std::string message;
  EXPECT_EQ(OutcomeOf("GATE-REQUEST-MISMATCH", &message), Outcome::kFail);
  EXPECT_NE(message.find("/stream"), std::string::npos) << message;
  EXPECT_EQ(OutcomeOf("GATE-TRACE-EXHAUSTED"), Outcome::kPass);
  EXPECT_EQ(OutcomeOf("GATE-TOO-FEW-REQUESTS"), Outcome::kPass);
}

TEST_F(GateChecksTest, ARequestPastTheTraceFailsAsExhaustedAndTooMany) {
  EXPECT_EQ(Post(pinned_, kFirst), 200);
  EXPECT_EQ(Post(pinned_, kSecond), 500);
  EXPECT_EQ(Post(pinned_, kSecond), 400);
  std::string message;
  EXPECT_EQ(OutcomeOf("GATE-TRACE-EXHAUSTED", &message), Outcome::kFail);
  EXPECT_NE(message.find("request 3"), std::string::npos) << message;
  EXPECT_EQ(OutcomeOf("GATE-TOO-MANY-REQUESTS"), Outcome::kFail);
  EXPECT_EQ(OutcomeOf("GATE-REQUEST-MISMATCH"), Outcome::kPass);
}

TEST_F(GateChecksTest, StoppingEarlyFailsTooFewRequests) {
  EXPECT_EQ(Post(pinned_, kFirst), 200);
  std::string message;
  EXPECT_EQ(OutcomeOf("GATE-TOO-FEW-REQUESTS", &message), Outcome::kFail);
  EXPECT_EQ(message, "the client sent 1 request(s); the trace has 2: it stopped early");
}

TEST_F(GateChecksTest, AnUnknownTraceAndAnUnknownRouteAreRefusals) {
  EXPECT_EQ(Post("/t/nope/v1/chat/completions", kFirst), 404);
  EXPECT_EQ(OutcomeOf("GATE-UNKNOWN-TRACE"), Outcome::kFail);
  EXPECT_EQ(Post("/v2/whatever", kFirst), 404);
  EXPECT_EQ(OutcomeOf("GATE-REQUEST-REFUSED"), Outcome::kFail);
}

TEST(GateChecks, HostileJournalsAreReadWithoutThrowing) {
  const Json journal = Json::parse(
      R"([1, null, {"method": 3, "path": []}, {"findings": "x"}, {"findings": [1, {"rule": 2}]},
          {"response": {"status": "500"}}, {"response": {"status": 503}, "method": "POST"}])");
  auto checks = RequestGateChecks(journal, std::nullopt);
  ASSERT_EQ(checks.size(), 7u);
  EXPECT_EQ(checks[3].rule, "GATE-REQUEST-REFUSED");
  EXPECT_EQ(checks[3].outcome, Outcome::kFail);
  EXPECT_EQ(checks[4].rule, "GATE-ADMIN-REQUEST");
  EXPECT_EQ(checks[4].outcome, Outcome::kPass);
  EXPECT_EQ(checks[5].outcome, Outcome::kSkip);
  EXPECT_EQ(RequestGateChecks(Json("not a journal"), 0)[5].outcome, Outcome::kPass);
}

// The harness's server (run --client-cmd) closes the admin API: a client
// that sends a wrong request, resets, unloads or replaces the trace, then
// sends the right ones, still fails, and the attempt fails on its own rule.
TEST(GateChecks, AGatedClientCannotRewriteItsVerdictThroughTheAdminApi) {
  auto trace = mockllm::ParseTrace(kGateTrace, "demo.jsonl");
  ASSERT_TRUE(trace) << trace.error().message;
  mockllm::ServerOptions options;
  options.admin_api = false;
  auto server = mockllm::Server::Start({*trace}, options);
  ASSERT_TRUE(server) << server.error().message;
  httplib::Client c("127.0.0.1", (*server)->port());
  c.set_read_timeout(10, 0);
  const std::string pinned = "/t/demo%2Fchat/v1/chat/completions";
  auto status = [](const httplib::Result& r) { return r ? r->status : -1; };
  EXPECT_EQ(status(c.Post(pinned, kSecond, "application/json")), 400);  // the wrong request
  EXPECT_EQ(status(c.Post("/__admin/reset", "{}", "application/json")), 403);
  EXPECT_EQ(status(c.Delete("/__admin/traces/demo%2Fchat")), 403);
  EXPECT_EQ(status(c.Post("/__admin/traces", std::string(kGateTrace), "application/json")), 403);
  EXPECT_EQ(status(c.Get("/__admin/journal")), 403);
  // Nothing changed: the trace is still loaded (the right requests, in a
  // session of their own, are answered) and the journal kept the wrong one.
  const httplib::Headers right = {{"X-Mockllm-Session", "right"}};
  EXPECT_EQ(status(c.Post(pinned, right, kFirst, "application/json")), 200);
  EXPECT_EQ(status(c.Post(pinned, right, kSecond, "application/json")), 500);
  const Json journal = (*server)->Journal();
  ASSERT_EQ(journal.size(), 7u) << journal.dump();
  EXPECT_EQ(journal[1]["path"], "/__admin/reset");
  EXPECT_EQ(journal[1]["findings"][0]["rule"], "admin_request");
  std::map<std::string, reports::CheckResult> by_rule;
  for (auto& check : RequestGateChecks(journal, 2)) by_rule.emplace(check.rule, check);
  EXPECT_EQ(by_rule.at("GATE-REQUEST-MISMATCH").outcome, Outcome::kFail);
  const auto& admin = by_rule.at("GATE-ADMIN-REQUEST");
  EXPECT_EQ(admin.outcome, Outcome::kFail);
  EXPECT_NE(admin.message.find("4 request(s)"), std::string::npos) << admin.message;
  EXPECT_NE(admin.message.find("POST /__admin/reset"), std::string::npos) << admin.message;
  ASSERT_TRUE(admin.evidence);
  EXPECT_EQ(admin.evidence->where, "journal[1]");
  // Admin requests are not requests to the LLM.
  EXPECT_EQ(by_rule.at("GATE-TOO-MANY-REQUESTS").message,
            "the client sent 3 request(s); the trace has 2: it sent more than recorded");
  // Nor turns the protocol rules read.
  EXPECT_EQ(JournalTurns(journal).size(), 3u);
  (*server)->Stop();
}

}  // namespace
}  // namespace llmconform::harness

#include "harness/suites/action_suite.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "base/test_paths.h"
#include "harness/scenario.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using reports::CheckResult;
using reports::Outcome;

using ::llmconform::test_paths::kRoot;

// Replays the one exchange of a trace as mockllm does in strict mode: the
// request body must equal the recorded one as a JSON value, or the answer is
// HTTP 400.
class TraceTransport final : public wire::ChatTransport {
 public:
  explicit TraceTransport(const fs::path& trace) {
    auto text = ReadFile(trace);
    if (!text) {
      problem_ = text.error().message;
      return;
    }
    std::istringstream lines(*text);
    std::string header, exchange;
    std::getline(lines, header);
    std::getline(lines, exchange);
    const Json e = Json::parse(exchange, nullptr, false);
    if (e.is_discarded() || !e.contains("request") || !e.contains("response")) {
      problem_ = trace.string() + ": no exchange on line 2";
      return;
    }
    request_body_ = e["request"]["body"];
    response_ = {e["response"]["status"].get<int>(), {}, e["response"]["body"].dump()};
  }

  std::expected<wire::HttpResponse, Error> PostJson(
      std::string_view path, const std::string& json_body, std::chrono::milliseconds,
      const std::function<bool(std::string_view)>&) override {
    if (!problem_.empty()) return std::unexpected(Error{problem_});
    if (path != "/chat/completions")
      return wire::HttpResponse{404, {}, "unknown path " + std::string(path)};
    if (Json::parse(json_body, nullptr, false) != request_body_) {
      return wire::HttpResponse{
          400, {}, "request mismatch: sent " + json_body + " recorded " + request_body_.dump()};
    }
    return response_;
  }

 private:
  std::string problem_;
  Json request_body_;
  wire::HttpResponse response_;
};

std::vector<Scenario> LoadActionScenarios() {
  const fs::path dir = kRoot / "specs" / "action";
  auto catalog_text = ReadFile(dir / "rules.json");
  EXPECT_TRUE(catalog_text);
  auto catalog = ParseRuleCatalog("specs/action/rules.json", *catalog_text, "action");
  EXPECT_TRUE(catalog) << catalog.error().message;
  std::vector<Scenario> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename() == "rules.json" || entry.path().extension() != ".json") continue;
    auto text = ReadFile(entry.path());
    EXPECT_TRUE(text);
    auto scenario = ParseScenario(entry.path().string(), *text, "action", *catalog);
    EXPECT_TRUE(scenario) << scenario.error().message;
    if (scenario) out.push_back(std::move(*scenario));
  }
  std::sort(out.begin(), out.end(),
            [](const Scenario& a, const Scenario& b) { return a.name < b.name; });
  return out;
}

std::unique_ptr<ProtocolSuite> ReplaySuite(const Scenario& s) {
  const fs::path trace = kRoot / s.trace;
  return MakeActionSuite(
      [trace](const std::string&) { return std::make_unique<TraceTransport>(trace); });
}

DriveContext Context() {
  return {.llm_base_url = "http://replay.invalid/v1", .source_root = kRoot, .work_dir = {}};
}

Observation Drive(const Scenario& s) {
  auto obs = ReplaySuite(s)->Drive(s, Context());
  EXPECT_TRUE(obs) << s.name << ": " << obs.error().message;
  return obs ? *obs : Observation{};
}

const Scenario& Find(const std::vector<Scenario>& all, std::string_view name) {
  for (const auto& s : all) {
    if (s.name == name) return s;
  }
  ADD_FAILURE() << "no scenario " << name;
  static const Scenario kNone;
  return kNone;
}

CheckResult ResultFor(const std::vector<CheckResult>& results, std::string_view rule) {
  for (const auto& r : results) {
    if (r.rule == rule) return r;
  }
  ADD_FAILURE() << "no result for " << rule;
  return {};
}

TEST(ActionSuite, EveryScenarioPassesAgainstItsTrace) {
  const auto scenarios = LoadActionScenarios();
  EXPECT_GE(scenarios.size(), 24u);
  for (const auto& s : scenarios) {
    const Observation obs = Drive(s);
    const auto results = ReplaySuite(s)->Check(s, obs);
    ASSERT_EQ(results.size(), s.rules.size()) << s.name;
    for (const auto& r : results) {
      EXPECT_EQ(r.outcome, Outcome::kPass)
          << s.name << " " << r.rule << ": " << r.message
          << (r.evidence ? " expected " + r.evidence->expected + " actual " + r.evidence->actual +
                               " at " + r.evidence->where
                         : "");
    }
  }
}

TEST(ActionSuite, OutputsAreWhatTheClientReceives) {
  const auto scenarios = LoadActionScenarios();
  const Observation obs = Drive(Find(scenarios, "seed-open-safari"));
  EXPECT_EQ(obs.outputs["text"], "Открываю Safari.");
  EXPECT_EQ(
      obs.outputs["mcpPayload"],
      R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"session_1764210832.530743","command":"open_app","args":{"app_name":"Safari"}}})");
  EXPECT_EQ(obs.outputs["findings"], Json::array());
  EXPECT_TRUE(obs.outputs["reply"].get<std::string>().starts_with("{\n  \"session_id\""));
  EXPECT_EQ(obs.outputs["request"]["messages"][1]["content"], "Открой Safari");
}

TEST(ActionSuite, ARequestThatDiffersFromTheTraceIsADriveError) {
  const auto scenarios = LoadActionScenarios();
  Scenario s = Find(scenarios, "seed-open-safari");
  s.input["utterance"] = "Открой Safari, пожалуйста";
  auto obs = ReplaySuite(s)->Drive(s, Context());
  ASSERT_FALSE(obs);
  EXPECT_TRUE(obs.error().message.starts_with("the LLM answered HTTP 400: request mismatch"))
      << obs.error().message;
}

TEST(ActionSuite, BadInputAndNoTraceAreDriveErrors) {
  const auto scenarios = LoadActionScenarios();
  Scenario s = Find(scenarios, "seed-open-safari");
  auto no_trace = ReplaySuite(s)->Drive(s, DriveContext{});
  ASSERT_FALSE(no_trace);
  EXPECT_EQ(no_trace.error().message,
            "seed-open-safari: the scenario has no trace; the action suite asks the LLM");
  s.input.erase("utterance");
  auto no_utterance = ReplaySuite(s)->Drive(s, Context());
  ASSERT_FALSE(no_utterance);
  EXPECT_EQ(no_utterance.error().message,
            "seed-open-safari: /input/utterance: expected string, got nothing (the field is "
            "required)");
}

// The checks fail on a client that gets it wrong.

TEST(ActionSuiteChecks, ACommandSentDespiteADropFails) {
  const auto scenarios = LoadActionScenarios();
  const Scenario& s = Find(scenarios, "drop-no-session-id");
  Observation obs = Drive(s);
  obs.outputs["command"] = {
      {"session_id", ""}, {"command", "open_app"}, {"args", {{"app_name", "Safari"}}}};
  obs.outputs["mcpPayload"] =
      R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"","command":"open_app","args":{"app_name":"Safari"}}})";
  const auto results = ReplaySuite(s)->Check(s, obs);
  const CheckResult dropped = ResultFor(results, "ACT-12");
  EXPECT_EQ(dropped.outcome, Outcome::kFail);
  EXPECT_EQ(dropped.message, "a command was kept though none should be");
  ASSERT_TRUE(dropped.evidence);
  EXPECT_EQ(dropped.evidence->where, "outputs/command");
  const CheckResult payload = ResultFor(results, "ACT-14");
  EXPECT_EQ(payload.outcome, Outcome::kFail);
  EXPECT_EQ(payload.message, "an __MCP__ payload was sent though no command should be kept");
}

TEST(ActionSuiteChecks, ASilentDropFails) {
  const auto scenarios = LoadActionScenarios();
  const Scenario& s = Find(scenarios, "drop-empty-app-name");
  Observation obs = Drive(s);
  obs.outputs["findings"] = Json::array();
  const auto results = ReplaySuite(s)->Check(s, obs);
  EXPECT_EQ(ResultFor(results, "ACT-12").message,
            "the command was ignored, but no finding says why");
  const CheckResult rule = ResultFor(results, "ACT-8");
  EXPECT_EQ(rule.outcome, Outcome::kFail);
  EXPECT_EQ(rule.message, "the reply breaks ACT-8 but no finding reports it");
  EXPECT_EQ(rule.evidence,
            (reports::Evidence{"a finding with rule ACT-8", "[]", "outputs/findings"}));
}

TEST(ActionSuiteChecks, AFalseFindingFails) {
  const auto scenarios = LoadActionScenarios();
  const Scenario& s = Find(scenarios, "seed-open-safari");
  Observation obs = Drive(s);
  obs.outputs["findings"] = Json::array({{{"rule", "ACT-6"}, {"message", "made up"}}});
  const CheckResult rule = ResultFor(ReplaySuite(s)->Check(s, obs), "ACT-6");
  EXPECT_EQ(rule.outcome, Outcome::kFail);
  EXPECT_EQ(rule.message, "a finding reports ACT-6 though the reply meets it");
  EXPECT_EQ(rule.evidence->where, "outputs/findings/0");
}

TEST(ActionSuiteChecks, ARewrittenTimeFails) {
  const auto scenarios = LoadActionScenarios();
  const Scenario& s = Find(scenarios, "time-and-url-in-text");
  Observation obs = Drive(s);
  obs.outputs["text"] =
      "Встреча в 10: 30, ссылка: https: //meet.example.com/room?t=10: 30&lang=ru#start";
  const CheckResult rule = ResultFor(ReplaySuite(s)->Check(s, obs), "ACT-11");
  EXPECT_EQ(rule.outcome, Outcome::kFail);
  EXPECT_EQ(rule.message, "the text for speech differs from the reply's text as written");
  EXPECT_EQ(rule.evidence->expected,
            "\"Встреча в 10:30, ссылка: https://meet.example.com/room?t=10:30&lang=ru#start\"");
}

TEST(ActionSuiteChecks, TheReplysSessionIdInsteadOfTheRequestsFails) {
  const auto scenarios = LoadActionScenarios();
  const Scenario& s = Find(scenarios, "session-id-overridden");
  Observation obs = Drive(s);
  obs.outputs["command"]["session_id"] = "session_other";
  obs.outputs["mcpPayload"] =
      R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"session_other","command":"open_app","args":{"app_name":"Safari"}}})";
  const auto results = ReplaySuite(s)->Check(s, obs);
  const CheckResult session = ResultFor(results, "ACT-13");
  EXPECT_EQ(session.outcome, Outcome::kFail);
  EXPECT_EQ(session.evidence,
            (reports::Evidence{"\"session_1764210832.530743\"", "\"session_other\"",
                               "outputs/command/session_id"}));
  EXPECT_EQ(ResultFor(results, "ACT-14").message,
            "the __MCP__ payload differs from the expected one");
}

TEST(ActionSuiteChecks, PayloadLayoutIsFreeItsContentIsNot) {
  const auto scenarios = LoadActionScenarios();
  const Scenario& s = Find(scenarios, "seed-open-safari");
  Observation obs = Drive(s);
  // Python's json.dumps layout: spaces after separators, other key order.
  obs.outputs["mcpPayload"] =
      R"(__MCP__{"payload": {"args": {"app_name": "Safari"}, "command": "open_app", "session_id": "session_1764210832.530743"}, "event": "mcp.command_request"})";
  EXPECT_EQ(ResultFor(ReplaySuite(s)->Check(s, obs), "ACT-14").outcome, Outcome::kPass);
  obs.outputs["mcpPayload"] =
      R"(MCP:{"event":"mcp.command_request","payload":{"session_id":"session_1764210832.530743","command":"open_app","args":{"app_name":"Safari"}}})";
  const CheckResult bad = ResultFor(ReplaySuite(s)->Check(s, obs), "ACT-14");
  EXPECT_EQ(bad.outcome, Outcome::kFail);
  EXPECT_EQ(bad.message, "__MCP__ payload: expected the prefix \"__MCP__\"");
}

TEST(ActionSuiteChecks, TheJournalShowsWhetherTheRequestCarriedTheSessionId) {
  const auto scenarios = LoadActionScenarios();
  const Scenario& s = Find(scenarios, "seed-open-safari");
  Observation obs = Drive(s);
  obs.journal = Json::array(
      {{{"seq", 1},
        {"request",
         {{"body",
           {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "Открой Safari"}}}}}}}}}});
  const CheckResult without = ResultFor(ReplaySuite(s)->Check(s, obs), "ACT-15");
  EXPECT_EQ(without.outcome, Outcome::kFail);
  EXPECT_EQ(without.message, "no message of the request carries the session id");
  EXPECT_EQ(without.evidence->where, "journal[0]/request/body/messages");
  obs.journal[0]["request"]["body"] = obs.outputs["request"];
  const CheckResult with = ResultFor(ReplaySuite(s)->Check(s, obs), "ACT-15");
  EXPECT_EQ(with.outcome, Outcome::kPass);
  EXPECT_EQ(
      with.message,
      "journal[0]/request/body/messages/0 carries the session id \"session_1764210832.530743\"");
}

TEST(ActionSuiteChecks, NoOutputsMeansSkipNotPass) {
  const auto scenarios = LoadActionScenarios();
  const Scenario& s = Find(scenarios, "drop-no-args");
  const auto results = ReplaySuite(s)->Check(s, Observation{});
  for (const auto& r : results) {
    if (r.rule == "ACT-15") continue;  // judged on the (empty) request: a failure
    EXPECT_EQ(r.outcome, Outcome::kSkip) << r.rule << ": " << r.message;
  }
  EXPECT_EQ(ResultFor(results, "ACT-15").outcome, Outcome::kFail);
}

TEST(ActionSuiteChecks, AnUnknownRuleIsAnError) {
  const auto scenarios = LoadActionScenarios();
  Scenario s = Find(scenarios, "seed-plain-string");
  s.rules = {"ACT-99"};
  const auto results = ReplaySuite(s)->Check(s, Drive(s));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0], CheckResult::Error("ACT-99", "no check is implemented for rule ACT-99"));
}

}  // namespace
}  // namespace llmconform::harness

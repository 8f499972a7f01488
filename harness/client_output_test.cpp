#include "harness/client_output.h"

#include <gtest/gtest.h>

#include "harness/suites/gymbro_suite.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;
using reports::Outcome;

Scenario GymbroScenario() {
  Scenario s;
  s.protocol = "gymbro";
  s.name = "demo";
  s.input = {{"text", "hi"}, {"requestId", "req-1"}};
  s.expect = {{"outcome", "completed"}, {"reply", "hello"}};
  s.rules = {"GYMBRO-6.5", "GYMBRO-6.16", "GYMBRO-7.2", "GYMBRO-7.4"};
  return s;
}

Json Event(const std::string& name, Json data) {
  data["message_id"] = "m1";
  data["request_id"] = "req-1";
  return {{"event", name}, {"data", data.dump()}};
}

// What a conformant one-shot GymBro service writes for the reply "hello".
Json GoodOutput() {
  return {{"stream",
           {{"events",
             {Event("status", {{"state", "queued"}}), Event("status", {{"state", "working"}}),
              Event("status", {{"state", "routed"}}),
              Event("content_delta", {{"seq", 1}, {"delta", "hel"}}),
              Event("content_delta", {{"seq", 2}, {"delta", "lo"}}),
              Event("completed", {{"reply_len", 5}})}}}},
          {"client", {{"reply", "hello"}, {"succeeded", true}}}};
}

const CheckResult* Find(const std::vector<CheckResult>& checks, const std::string& rule) {
  for (const auto& c : checks) {
    if (c.rule == rule) return &c;
  }
  return nullptr;
}

TEST(ClientOutputTest, MultiturnAndActionOutputsAreTheObservationAsWritten) {
  Scenario s;
  s.protocol = "action";
  const Json doc = {{"text", "hi"}, {"command", nullptr}, {"extra", 1}};
  const ClientOutput out = MapClientOutput(s, doc);
  EXPECT_EQ(out.outputs, doc);
  EXPECT_TRUE(out.problems.empty());
  EXPECT_TRUE(out.overrides.empty());
}

TEST(ClientOutputTest, AGymbroStreamIsTheSuitesObservationAndItsRulesJudgeIt) {
  const Scenario s = GymbroScenario();
  const ClientOutput out = MapClientOutput(s, GoodOutput());
  EXPECT_TRUE(out.problems.empty());
  EXPECT_EQ(out.outputs["requestId"], "req-1");  // the scenario's X-Request-Id, not the client's
  EXPECT_EQ(out.outputs["stream"]["events"].size(), 6u);
  EXPECT_EQ(out.outputs["client"]["reply"], "hello");
  // No HTTP answers reported: GYMBRO-6.16 is skipped, saying why.
  ASSERT_EQ(out.overrides.size(), 1u);
  EXPECT_EQ(out.overrides[0].rule, "GYMBRO-6.16");
  EXPECT_EQ(out.overrides[0].outcome, Outcome::kSkip);
  EXPECT_NE(out.overrides[0].message.find("sse-check"), std::string::npos);

  Observation obs;
  obs.outputs = out.outputs;
  const auto checks = ApplyOverrides(MakeGymbroSuite()->Check(s, obs), out.overrides);
  for (const char* rule : {"GYMBRO-6.5", "GYMBRO-7.2", "GYMBRO-7.4"}) {
    const CheckResult* c = Find(checks, rule);
    ASSERT_NE(c, nullptr) << rule;
    EXPECT_EQ(c->outcome, Outcome::kPass) << rule << ": " << c->message;
  }
  EXPECT_EQ(Find(checks, "GYMBRO-6.16")->outcome, Outcome::kSkip);
}

TEST(ClientOutputTest, ReportedHttpAnswersAreJudged) {
  Json doc = GoodOutput();
  doc["post"] = {{"status", 201}, {"body", {{"message_id", "m1"}}}};
  doc["stream"]["status"] = 200;
  doc["stream"]["contentType"] = "text/event-stream";
  const Scenario s = GymbroScenario();
  const ClientOutput out = MapClientOutput(s, doc);
  EXPECT_TRUE(out.overrides.empty());
  Observation obs;
  obs.outputs = out.outputs;
  const auto checks = MakeGymbroSuite()->Check(s, obs);
  bool failed = false;
  for (const auto& c : checks) failed |= c.rule == "GYMBRO-6.16" && c.outcome == Outcome::kFail;
  EXPECT_TRUE(failed) << "POST answered 201, not 200";
}

TEST(ClientOutputTest, AnIllTypedEventFailsEveryRuleNamingTheField) {
  Json doc = GoodOutput();
  doc["stream"]["events"][4]["data"] = 7;
  const Scenario s = GymbroScenario();
  const ClientOutput out = MapClientOutput(s, doc);
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_NE(out.problems[0].find("/stream/events/4/data"), std::string::npos) << out.problems[0];
  ASSERT_EQ(out.overrides.size(), s.rules.size());
  for (const auto& o : out.overrides) {
    EXPECT_EQ(o.outcome, Outcome::kFail);
    EXPECT_NE(o.message.find("/stream/events/4/data"), std::string::npos) << o.message;
  }
}

TEST(ClientOutputTest, NoStreamAtAllSaysTheFieldIsRequired) {
  const ClientOutput out = MapClientOutput(GymbroScenario(), Json::object());
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_NE(out.problems[0].find("/stream: expected object, got nothing"), std::string::npos)
      << out.problems[0];
}

TEST(ClientOutputTest, AMissingClientVerdictFailsTheClientRulesOnly) {
  Json doc = GoodOutput();
  doc["client"].erase("succeeded");
  Scenario s = GymbroScenario();
  s.rules = {"GYMBRO-6.5", "GYMBRO-7.4"};
  const ClientOutput out = MapClientOutput(s, doc);
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_NE(out.problems[0].find("/client/succeeded"), std::string::npos) << out.problems[0];
  std::vector<std::string> failed;
  for (const auto& o : out.overrides) {
    if (o.outcome == Outcome::kFail) failed.push_back(o.rule);
  }
  EXPECT_EQ(failed, std::vector<std::string>{"GYMBRO-7.4"});  // 7.2 is not listed
  EXPECT_FALSE(out.outputs.contains("client"));
}

TEST(ClientOutputTest, ThinkingmlReadsTheSameStream) {
  Scenario s = GymbroScenario();
  s.protocol = "thinkingml";
  s.rules = {"TML-2.1"};
  const ClientOutput out = MapClientOutput(s, GoodOutput());
  EXPECT_TRUE(out.problems.empty());
  EXPECT_TRUE(out.overrides.empty());  // no GYMBRO-6.16 to skip
  EXPECT_EQ(out.outputs["stream"]["events"].size(), 6u);
}

Scenario SkillScenario() {
  Scenario s;
  s.protocol = "skill";
  s.name = "demo";
  s.rules = {"SKILL-REQ-1", "SKILL-USER-6", "SKILL-STATE-1", "SKILL-STATE-2", "SKILL-PARSE-1"};
  return s;
}

// A session of one [DONE] reply, as the reference driver records it.
Json SkillOutput() {
  const Json parsed = {{"type", "DONE"}, {"content", "[DONE] ok"}, {"message", "ok"}};
  return {{"transcript",
           {{{"event", "start"}, {"step", 1}, {"state", "idle"}, {"text", "Execute skill: x"}},
            {{"event", "reply"},
             {"step", 1},
             {"state", "done"},
             {"text", "[DONE] ok"},
             {"reply", parsed}},
            {{"event", "end"},
             {"step", 1},
             {"state", "done"},
             {"end", {{"reason", "completed"}, {"message", "ok"}}}}}},
          {"states", {"idle", "done", "done"}},
          {"steps", {1}},
          {"parsed", {parsed}},
          {"end", {{"reason", "completed"}, {"message", "ok"}}},
          {"notes", "ignored"}};
}

TEST(ClientOutputTest, ASkillSessionRecordIsTheObservation) {
  const ClientOutput out = MapClientOutput(SkillScenario(), SkillOutput());
  EXPECT_TRUE(out.problems.empty());
  EXPECT_TRUE(out.overrides.empty());
  Json want = SkillOutput();
  want.erase("notes");
  EXPECT_EQ(out.outputs, want);
}

TEST(ClientOutputTest, ASessionRecordWithABadFieldIsJudgedOnTheWireAndItsRulesFail) {
  Json doc = SkillOutput();
  doc.erase("steps");
  doc["transcript"][1]["state"] = 3;
  const ClientOutput out = MapClientOutput(SkillScenario(), doc);
  ASSERT_EQ(out.problems.size(), 2u);
  EXPECT_NE(out.problems[0].find("/transcript/1/state: expected string, got number"),
            std::string::npos)
      << out.problems[0];
  EXPECT_NE(out.problems[1].find("/steps: expected a value, got nothing"), std::string::npos)
      << out.problems[1];
  EXPECT_EQ(out.outputs, Json::object());  // none of the five: the checks read the wire alone
  std::vector<std::string> failed;
  for (const auto& o : out.overrides) {
    EXPECT_EQ(o.outcome, Outcome::kFail);
    failed.push_back(o.rule);
  }
  // transcript → SKILL-STATE-2 (3 and 4 not listed); steps → SKILL-USER-6.
  EXPECT_EQ(failed, (std::vector<std::string>{"SKILL-STATE-2", "SKILL-USER-6"}));
}

TEST(ClientOutputTest, ASkillEndMayBeNullButNotAString) {
  Json doc = SkillOutput();
  doc["end"] = nullptr;
  EXPECT_TRUE(MapClientOutput(SkillScenario(), doc).problems.empty());
  doc["end"] = "completed";
  const ClientOutput out = MapClientOutput(SkillScenario(), doc);
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_NE(out.problems[0].find("/end: expected object, got string"), std::string::npos)
      << out.problems[0];
}

Scenario ToolcallsScenario() {
  Scenario s;
  s.protocol = "toolcalls";
  s.name = "demo";
  s.rules = {"TC-1-2", "TC-4.2-1", "TC-4.2-2", "TC-7-1"};
  return s;
}

// A run of one LLM call that waited for the user.
Json ToolcallsOutput() {
  const Json assistant = {{"role", "assistant"}, {"content", "Which story?"}};
  return {{"phase", "WaitingUser"},
          {"stopReason", "assistant_no_toolCalls_and_not_complete"},
          {"message", "Which story?"},
          {"error", ""},
          {"turns",
           {{{"id", "C01"},
             {"phaseBefore", "Running"},
             {"request", {{"messages", Json::array({{{"role", "user"}, {"content", "x"}}})}}},
             {"response", {{"assistant", assistant}}},
             {"toolRuns", Json::array()},
             {"uiAfter", {{"phase", "WaitingUser"}}}}}},
          // What the run left on disk is the harness's to read, not the client's to say.
          {"audit", Json::array()},
          {"pkgChanged", false}};
}

TEST(ClientOutputTest, AToolcallsRunKeepsWhatTheClientReportsOnly) {
  const ClientOutput out = MapClientOutput(ToolcallsScenario(), ToolcallsOutput());
  EXPECT_TRUE(out.problems.empty());
  EXPECT_TRUE(out.overrides.empty());
  Json want = ToolcallsOutput();
  want.erase("audit");
  want.erase("pkgChanged");
  EXPECT_EQ(out.outputs, want);
}

TEST(ClientOutputTest, AToolcallsOptionalFieldMayBeLeftOutOrNull) {
  Json doc = ToolcallsOutput();
  doc.erase("message");
  doc["stopReason"] = nullptr;
  const ClientOutput out = MapClientOutput(ToolcallsScenario(), doc);
  EXPECT_TRUE(out.problems.empty());
  EXPECT_FALSE(out.outputs.contains("stopReason"));
  EXPECT_EQ(out.outputs["phase"], "WaitingUser");
}

TEST(ClientOutputTest, AToolcallsFieldOfTheWrongShapeFailsTheRulesReadingIt) {
  Json doc = ToolcallsOutput();
  doc["phase"] = 3;
  doc["turns"][0]["response"]["assistant"] = "Which story?";
  const ClientOutput out = MapClientOutput(ToolcallsScenario(), doc);
  ASSERT_EQ(out.problems.size(), 2u);
  EXPECT_EQ(out.problems[0], "/phase: expected string, got number");
  EXPECT_EQ(out.problems[1], "/turns/0/response/assistant: expected object or null, got string");
  std::vector<std::string> failed;
  for (const auto& o : out.overrides) {
    EXPECT_EQ(o.outcome, Outcome::kFail);
    failed.push_back(o.rule);
  }
  // TC-8-1 reads turns too but is not listed; TC-1-2 reads the disk and the wire.
  EXPECT_EQ(failed, (std::vector<std::string>{"TC-4.2-2", "TC-4.2-1", "TC-7-1"}));
  EXPECT_FALSE(out.outputs.contains("phase"));
  EXPECT_FALSE(out.outputs.contains("turns"));
  EXPECT_EQ(out.outputs["stopReason"], "assistant_no_toolCalls_and_not_complete");
}

TEST(ClientOutputTest, ToolcallsTurnsNeedTheirRequestAndResponse) {
  auto problem = [](Json turns) {
    Json doc = ToolcallsOutput();
    doc["turns"] = std::move(turns);
    const ClientOutput out = MapClientOutput(ToolcallsScenario(), doc);
    return out.problems.empty() ? std::string() : out.problems[0];
  };
  EXPECT_EQ(problem("C01"), "/turns: expected array, got string");
  EXPECT_EQ(problem({7}), "/turns/0: expected object, got number");
  EXPECT_EQ(problem(Json::array({Json::object()})),
            "/turns/0/request: expected object, got nothing (the field is required)");
  EXPECT_EQ(problem({{{"request", {{"messages", 1}}}, {"response", Json::object()}}}),
            "/turns/0/request/messages: expected array, got number");
  EXPECT_EQ(problem({{{"request", {{"messages", Json::array()}}}, {"response", Json::object()}}}),
            "/turns/0/response/assistant: expected object or null, got nothing (the field is "
            "required)");
  EXPECT_EQ(problem({{{"request", {{"messages", Json::array()}}},
                      {"response", {{"assistant", nullptr}}}}}),
            "");
  Json doc = ToolcallsOutput();
  doc.erase("turns");
  EXPECT_EQ(
      MapClientOutput(ToolcallsScenario(), doc).problems,
      std::vector<std::string>{"/turns: expected a value, got nothing (the field is required)"});
}

TEST(ClientOutputTest, AnOverrideReplacesEveryResultOfItsRuleInPlace) {
  std::vector<CheckResult> checks = {CheckResult::Pass("A", "a"), CheckResult::Fail("B", "b1", {}),
                                     CheckResult::Pass("C", "c"), CheckResult::Fail("B", "b2", {})};
  const auto out =
      ApplyOverrides(checks, {CheckResult::Skip("B", "why"), CheckResult::Skip("D", "not judged")});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].rule, "A");
  EXPECT_EQ(out[1], CheckResult::Skip("B", "why"));
  EXPECT_EQ(out[2].rule, "C");
  EXPECT_EQ(out[3], CheckResult::Skip("D", "not judged"));
}

}  // namespace
}  // namespace llmconform::harness

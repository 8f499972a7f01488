#include "harness/suites/skill_suite.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include "harness/scenario.h"
#include "harness/suites/suite_test_support.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;
using reports::Outcome;

TEST(SkillSuite, HasTheScenariosOfTheIssue) {
  std::set<std::string> names;
  for (const Scenario* s : ScenariosOf("skill")) names.insert(s->name);
  for (const char* want : {"git-quick-commit", "optional-question-skipped", "message-continues",
                           "untagged-command", "skipped-command", "step-limit", "llm-error-500",
                           "llm-timeout", "lowercase-tags", "fenced-command"}) {
    EXPECT_TRUE(names.contains(want)) << want;
  }
}

// Every scenario, end to end over HTTP: no rule fails, and every rule of the
// catalogue passes somewhere.
TEST(SkillSuite, EveryScenarioConformsAndEveryRuleIsExercised) {
  auto suite = MakeSkillSuite();
  ASSERT_EQ(suite->protocol(), "skill");
  std::map<std::string, int> passes;
  for (const Scenario* s : ScenariosOf("skill")) {
    const Observation obs = DriveAgainstMockllm(*suite, *s);
    const auto results = suite->Check(*s, obs);
    EXPECT_EQ(results.size(), s->rules.size()) << s->name;
    for (const auto& r : results) {
      EXPECT_TRUE(r.outcome == Outcome::kPass || r.outcome == Outcome::kSkip)
          << s->name << ": " << DescribeCheck(r);
      if (r.outcome == Outcome::kPass) ++passes[r.rule];
    }
  }
  ASSERT_TRUE(BundledSpecs().rules.contains("skill"));
  for (const auto& rule : BundledSpecs().rules.at("skill"))
    EXPECT_GT(passes[rule.id], 0) << rule.id << " never passes";
}

TEST(SkillSuite, SeedConversationPassesEveryRuleItNames) {
  auto suite = MakeSkillSuite();
  const Scenario& s = NamedScenario("skill", "git-quick-commit");
  const Observation obs = DriveAgainstMockllm(*suite, s);
  ASSERT_EQ(obs.journal.size(), 4u);
  EXPECT_EQ(obs.outputs["steps"], (Json{1, 2, 3, 4}));
  EXPECT_EQ(obs.outputs["end"],
            (Json{{"reason", "completed"},
                  {"message", "Коммит успешно создан: abc1234. Изменён 1 файл."}}));
  for (const auto& r : suite->Check(s, obs))
    EXPECT_EQ(r.outcome, Outcome::kPass) << DescribeCheck(r);
  EXPECT_EQ(FindResult(suite->Check(s, obs), "SKILL-USER-6")->message,
            "steps 1 to 4 of 100, one per user message");
}

TEST(SkillSuite, FaultsEndTheSession) {
  auto suite = MakeSkillSuite();
  const Observation error = DriveAgainstMockllm(*suite, NamedScenario("skill", "llm-error-500"));
  EXPECT_EQ(error.outputs["end"]["reason"], "model_error");
  EXPECT_EQ(error.journal.size(), 2u);
  const Observation timeout = DriveAgainstMockllm(*suite, NamedScenario("skill", "llm-timeout"));
  EXPECT_EQ(timeout.outputs["end"]["reason"], "model_error");
  EXPECT_NE(timeout.outputs["end"]["message"].get<std::string>().find("timed out after 500 ms"),
            std::string::npos);
  EXPECT_EQ(timeout.journal.size(), 2u);
}

// Another implementation is judged from its traffic alone.
TEST(SkillSuite, JournalAloneJudgesAnExternalClient) {
  auto suite = MakeSkillSuite();
  const Scenario& s = NamedScenario("skill", "lowercase-tags");
  Observation obs = DriveAgainstMockllm(*suite, s);
  obs.outputs = Json::object();
  for (const auto& r : suite->Check(s, obs)) {
    if (r.rule.starts_with("SKILL-PARSE-")) {
      EXPECT_EQ(r.outcome, Outcome::kSkip) << DescribeCheck(r);
    } else {
      EXPECT_EQ(r.outcome, Outcome::kPass) << DescribeCheck(r);
    }
  }
}

class BrokenClient : public ::testing::Test {
 protected:
  void SetUp() override {
    suite_ = MakeSkillSuite();
    obs_ = DriveAgainstMockllm(*suite_, NamedScenario("skill", "git-quick-commit"));
    ASSERT_EQ(obs_.journal.size(), 4u);
  }
  Json& Body(std::size_t entry) { return obs_.journal[entry]["request"]["body"]; }
  // The check of `rule` on the altered observation, judged as an external client's.
  CheckResult Judge(std::string_view rule) {
    Scenario s = NamedScenario("skill", "git-quick-commit");
    s.rules = {std::string(rule)};
    obs_.outputs = Json::object();
    return suite_->Check(s, obs_).at(0);
  }

  std::unique_ptr<ProtocolSuite> suite_;
  Observation obs_;
};

TEST_F(BrokenClient, WrongTemperature) {
  Body(2)["temperature"] = 0.7;
  const CheckResult r = Judge("SKILL-REQ-3");
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_EQ(r.evidence->where, "journal[2]/request/body/temperature");
  EXPECT_EQ(r.evidence->actual, "0.7");
}

TEST_F(BrokenClient, StepNotCounted) {
  Body(2)["messages"][5]["content"] = "User response: fix: update skills API\n\n[Step 2 of 100]";
  const CheckResult r = Judge("SKILL-USER-6");
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_EQ(r.evidence->expected, "\"\\n\\n[Step 3 of 100]\"");
  EXPECT_EQ(r.evidence->where, "journal[2]/request/body/messages/5/content");
}

TEST_F(BrokenClient, SystemMessageChanges) {
  Body(3)["messages"][0]["content"] = "You are a helpful assistant.";
  EXPECT_EQ(Judge("SKILL-MSG-2").outcome, Outcome::kFail);
  EXPECT_EQ(Judge("SKILL-MSG-1").outcome, Outcome::kPass);
}

TEST_F(BrokenClient, RawReplySentBack) {
  for (std::size_t e = 1; e < 4; ++e)
    Body(e)["messages"][2]["content"] = "[CMD] git status --porcelain\n";
  const CheckResult r = Judge("SKILL-MSG-4");
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_EQ(r.evidence->expected, "\"[CMD] git status --porcelain\"");
  EXPECT_EQ(r.evidence->where, "journal[1]/request/body/messages/2/content");
}

TEST_F(BrokenClient, UncleanedOutput) {
  for (std::size_t e = 1; e < 4; ++e) {
    Body(e)["messages"][3]["content"] =
        "Command output:\n M server/skills.js\n?? new-file.txt\n\n[Step 2 of 100]";
  }
  EXPECT_EQ(Judge("SKILL-CLEAN-1").outcome, Outcome::kFail);
  const CheckResult r = Judge("SKILL-CLEAN-5");
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_EQ(r.message,
            "the output of \"git status --porcelain\" was sent with an untrimmed line \" M "
            "server/skills.js\"");
}

TEST_F(BrokenClient, AskedAgainAfterDone) {
  Json extra = obs_.journal[3];
  extra["request"]["body"]["messages"].push_back(
      {{"role", "assistant"},
       {"content", "[DONE] Коммит успешно создан: abc1234. Изменён 1 файл."}});
  obs_.journal.push_back(extra);
  EXPECT_EQ(Judge("SKILL-STATE-5").outcome, Outcome::kFail);
}

TEST_F(BrokenClient, HistoryRewritten) {
  Body(3)["messages"].erase(1);
  const CheckResult r = Judge("SKILL-MSG-3");
  EXPECT_EQ(r.outcome, Outcome::kFail);
}

TEST(SkillSuiteDrive, BadInputIsAnError) {
  auto suite = MakeSkillSuite();
  Scenario s;
  s.name = "broken";
  s.input = {{"skillMarkdown", "x"}};
  EXPECT_EQ(suite->Drive(s, {}).error().message,
            "broken: /input/skillName: expected string, got nothing (the field is required)");
  s.input = {{"skillName", "a"}, {"skillMarkdown", "x"}, {"commands", {{{"skip", "yes"}}}}};
  EXPECT_EQ(suite->Drive(s, {}).error().message,
            "broken: /input/commands/0/skip: expected boolean, got string");
  s.input = {{"skillName", "a"}, {"skillMarkdown", "x"}};
  EXPECT_EQ(suite->Drive(s, {}).error().message,
            "broken: a skill scenario needs a trace to talk to");
}

}  // namespace
}  // namespace llmconform::harness

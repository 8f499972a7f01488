#include "harness/suites/gymbro_suite.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "base/test_paths.h"
#include "harness/scenario.h"
#include "harness/suites/suite_test_support.h"
#include "harness/suites/thinkingml_suite.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using reports::CheckResult;
using reports::Outcome;

using ::llmconform::test_paths::kRoot;

TEST(GymbroSuites, HaveTheScenariosOfTheIssue) {
  std::set<std::string> names;
  for (const auto* protocol : {"thinkingml", "gymbro"}) {
    for (const Scenario* s : ScenariosOf(protocol)) names.insert(s->protocol + "/" + s->name);
  }
  for (const char* want :
       {"thinkingml/valid-two-phases-many-chunks", "thinkingml/think-and-serp",
        "thinkingml/extra-tag", "thinkingml/phase-ids-1-3", "thinkingml/missing-title",
        "thinkingml/thinking-not-followed-by-final", "thinkingml/one-line-queries-comment",
        "thinkingml/six-queries", "thinkingml/query-with-email", "thinkingml/text-after-final",
        "thinkingml/parsing-error", "gymbro/upstream-cut-mid-stream", "gymbro/upstream-error-event",
        "gymbro/upstream-stall-heartbeats", "gymbro/long-single-delta"}) {
    EXPECT_TRUE(names.contains(want)) << want;
  }
}

// Every scenario of both protocols end to end over HTTP: nothing fails, and
// every rule of both catalogues passes somewhere.
TEST(GymbroSuites, EveryScenarioConformsAndEveryRuleIsExercised) {
  for (const auto& [protocol, suite] : {std::pair{std::string("thinkingml"), MakeThinkingmlSuite()},
                                        std::pair{std::string("gymbro"), MakeGymbroSuite()}}) {
    ASSERT_EQ(suite->protocol(), protocol);
    std::map<std::string, int> passes;
    for (const Scenario* s : ScenariosOf(protocol)) {
      const Observation obs = DriveAgainstMockllm(*suite, *s);
      const auto results = suite->Check(*s, obs);
      std::set<std::string> covered;
      for (const auto& r : results) {
        EXPECT_TRUE(r.outcome == Outcome::kPass || r.outcome == Outcome::kSkip)
            << s->name << ": " << DescribeCheck(r);
        if (r.outcome == Outcome::kPass) ++passes[r.rule];
        covered.insert(r.rule);
      }
      for (const auto& rule : s->rules)
        EXPECT_TRUE(covered.contains(rule)) << s->name << ": no result for " << rule;
    }
    ASSERT_TRUE(BundledSpecs().rules.contains(protocol));
    for (const auto& rule : BundledSpecs().rules.at(protocol))
      EXPECT_GT(passes[rule.id], 0) << rule.id << " never passes";
  }
}

TEST(GymbroSuites, TheStalledUpstreamCausesHeartbeats) {
  auto suite = MakeGymbroSuite();
  const Scenario& s = NamedScenario("gymbro", "upstream-stall-heartbeats");
  const Observation obs = DriveAgainstMockllm(*suite, s);
  const auto results = suite->Check(s, obs);
  const CheckResult* hb = FindResult(results, "GYMBRO-6.13");
  ASSERT_TRUE(hb);
  EXPECT_EQ(hb->outcome, Outcome::kPass) << DescribeCheck(*hb);
  EXPECT_EQ(obs.outputs["client"]["outcome"], "completed");
}

TEST(GymbroSuites, ChecksCatchABrokenStream) {
  auto suite = MakeGymbroSuite();
  const Scenario& s = NamedScenario("gymbro", "seed-event-sequence");
  Observation obs = DriveAgainstMockllm(*suite, s);
  Json& events = obs.outputs["stream"]["events"];
  ASSERT_GT(events.size(), 5u);
  events.erase(events.size() - 1);  // no terminal event
  events.erase(4);                  // a seq gap
  obs.outputs["client"]["succeeded"] = true;
  const auto results = suite->Check(s, obs);
  std::set<std::string> failed;
  for (const auto& r : results) {
    if (r.outcome == Outcome::kFail) failed.insert(r.rule);
  }
  EXPECT_EQ(failed,
            (std::set<std::string>{"GYMBRO-6.5", "GYMBRO-6.8", "GYMBRO-7.2", "GYMBRO-7.4"}));
}

TEST(GymbroSuites, ExpectationsOfAThinkingmlScenarioAreHeldToTheReply) {
  auto suite = MakeThinkingmlSuite();
  const Scenario& s = NamedScenario("thinkingml", "phase-ids-1-3");
  const Observation obs = DriveAgainstMockllm(*suite, s);
  const auto results = suite->Check(s, obs);
  const CheckResult* ids = FindResult(results, "TML-3.2");
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->outcome, Outcome::kPass);
  EXPECT_EQ(ids->message,
            "reported as the scenario intends: reply 6:3: phase id 3 where 2 was expected; ids go "
            "1, 2, 3, … in order");
  // The same reply judged without the intent fails the rule.
  Scenario unaware = s;
  unaware.expect["violations"] = Json::array();
  const auto unaware_results = suite->Check(unaware, obs);
  const CheckResult* strict = FindResult(unaware_results, "TML-3.2");
  ASSERT_TRUE(strict);
  EXPECT_EQ(strict->outcome, Outcome::kFail);
}

TEST(GymbroSuites, BadScenarioInputIsAnError) {
  auto suite = MakeGymbroSuite();
  Scenario s = NamedScenario("gymbro", "seed-event-sequence");
  s.input["heartbeatMs"] = 0;
  auto obs =
      suite->Drive(s, DriveContext{"http://127.0.0.1:1/v1", kRoot, fs::temp_directory_path()});
  ASSERT_FALSE(obs);
  EXPECT_EQ(obs.error().message, "/input/heartbeatMs: expected at least 1, got 0");
  s.input.erase("text");
  obs = suite->Drive(s, DriveContext{"http://127.0.0.1:1/v1", kRoot, fs::temp_directory_path()});
  ASSERT_FALSE(obs);
  EXPECT_EQ(obs.error().message,
            "/input/text: expected string, got nothing (the field is required)");
  Scenario bad_expect = NamedScenario("gymbro", "seed-event-sequence");
  bad_expect.expect["outcome"] = "done";
  for (const auto& r : suite->Check(bad_expect, Observation{})) {
    EXPECT_EQ(r.outcome, Outcome::kError);
    EXPECT_EQ(r.message, "/expect/outcome: expected \"completed\" or \"error\", got \"done\"");
  }
}

}  // namespace
}  // namespace llmconform::harness

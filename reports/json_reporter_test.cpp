#include "reports/json_reporter.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "base/json.h"
#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

TEST(JsonReporter, MatchesGolden) {
  testing::ExpectMatchesGolden("report.json",
                               testing::RenderWith<JsonReporter>(testing::SampleRun()));
}

TEST(JsonReporter, RoundTripsThroughParse) {
  const RunResult run = testing::SampleRun();
  const std::string text = testing::RenderWith<JsonReporter>(run);
  const Json parsed = Json::parse(text);   // throws, failing the test, on invalid JSON
  EXPECT_EQ(parsed.dump(2) + "\n", text);  // sorted keys: re-dumping changes nothing
  EXPECT_EQ(parsed["format"], "llmconform-report/1");
  EXPECT_EQ(parsed["totals"]["scenarios"],
            (Json{{"pass", 3}, {"fail", 1}, {"skip", 1}, {"error", 1}, {"total", 6}}));
  EXPECT_EQ(parsed["totals"]["checks"],
            (Json{{"pass", 6}, {"fail", 1}, {"skip", 2}, {"error", 1}, {"total", 10}}));
  const auto back = ReportFromJson(parsed);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, run);
}

TEST(JsonReporter, OmitsEvidenceAndTagsWhenAbsent) {
  const Json j = ReportToJson(testing::SampleRun());
  const Json& s1 = j["scenarios"][0];
  EXPECT_FALSE(s1.contains("tags"));
  EXPECT_FALSE(s1["checks"][0].contains("evidence"));
  EXPECT_EQ(j["scenarios"][1]["tags"], Json::array({"streaming"}));
  EXPECT_EQ(j["scenarios"][3]["checks"][1]["evidence"]["where"], "/outputs/steps/0/reply");
  EXPECT_EQ(j["scenarios"][3]["outcome"], "fail");
}

TEST(JsonReporter, WritesInvalidUtf8AsReplacementCharacter) {
  RunResult run;
  run.scenarios = {
      {{"p", "s", "", "", "", "", {}}, {CheckResult::Fail("r", "bad \xFF byte", {"", "", ""})}, 0}};
  const Json parsed = Json::parse(RenderJsonReport(run));
  EXPECT_EQ(parsed["scenarios"][0]["checks"][0]["message"], "bad \xEF\xBF\xBD byte");
}

TEST(ReportFromJson, SaysWhereTheReportIsWrong) {
  Json report = ReportToJson(testing::SampleRun());
  const auto error_of = [](const Json& j) {
    auto r = ReportFromJson(j);
    return r ? std::string("no error") : r.error().message;
  };
  EXPECT_EQ(error_of(Json::array()), "/: expected object, got array");

  Json wrong_format = report;
  wrong_format["format"] = "llmconform-report/2";
  EXPECT_EQ(error_of(wrong_format),
            "/format: expected \"llmconform-report/1\", got \"llmconform-report/2\"");

  Json no_duration = report;
  no_duration.erase("duration_ms");
  EXPECT_EQ(error_of(no_duration),
            "/duration_ms: expected number, got nothing (the field is required)");

  Json bad_rule = report;
  bad_rule["scenarios"][3]["checks"][1]["rule"] = 7;
  EXPECT_EQ(error_of(bad_rule), "/scenarios/3/checks/1/rule: expected string, got number");

  Json bad_outcome = report;
  bad_outcome["scenarios"][0]["checks"][0]["outcome"] = "ok";
  EXPECT_EQ(error_of(bad_outcome),
            "/scenarios/0/checks/0/outcome: expected one of pass, fail, skip, error, "
            "got \"ok\"");

  Json bad_evidence = report;
  bad_evidence["scenarios"][3]["checks"][1]["evidence"].erase("actual");
  EXPECT_EQ(error_of(bad_evidence),
            "/scenarios/3/checks/1/evidence/actual: expected string, got nothing (the "
            "field is "
            "required)");

  Json bad_tag = report;
  bad_tag["scenarios"][1]["tags"] = Json::array({"ok", true});
  EXPECT_EQ(error_of(bad_tag), "/scenarios/1/tags/1: expected string, got boolean");

  Json bad_scenario = report;
  bad_scenario["scenarios"][2] = "s";
  EXPECT_EQ(error_of(bad_scenario), "/scenarios/2: expected object, got string");

  Json bad_rules = report;
  bad_rules["rules"] = Json::object();
  EXPECT_EQ(error_of(bad_rules), "/rules: expected array, got object");
}

// Text that survives JSON unchanged: valid UTF-8, with quotes, backslashes,
// control characters and characters outside the BMP. Sizes are kept small
// throughout: the run nests four levels of containers.
rc::Gen<std::string> Text() {
  return rc::gen::map(rc::gen::resize(12, rc::gen::container<std::vector<std::string>>(
                                              rc::gen::element<std::string>(
                                                  "a", "Z", " ", "\n", "\"", "\\", "<", "/", "é",
                                                  "介", "\xF0\x9F\x98\x80", "\x01", "\x7f"))),
                      [](const std::vector<std::string>& pieces) {
                        std::string s;
                        for (const auto& p : pieces) s += p;
                        return s;
                      });
}

rc::Gen<double> Millis() {
  return rc::gen::map(rc::gen::inRange(0, 100'000'000), [](int n) { return n / 1000.0; });
}

rc::Gen<CheckResult> Check() {
  return rc::gen::exec([] {
    CheckResult c;
    c.rule = *Text();
    c.outcome = *rc::gen::element(Outcome::kPass, Outcome::kFail, Outcome::kSkip, Outcome::kError);
    c.message = *Text();
    if (*rc::gen::arbitrary<bool>()) c.evidence = Evidence{*Text(), *Text(), *Text()};
    return c;
  });
}

rc::Gen<RunResult> Run() {
  return rc::gen::exec([] {
    RunResult run;
    run.tool_version = *Text();
    run.started_at = *Text();
    run.duration_ms = *Millis();
    run.rules = *rc::gen::resize(5, rc::gen::container<std::vector<RuleInfo>>(rc::gen::exec([] {
                                   return RuleInfo{*Text(), *Text(), *Text(), *Text(), *Text()};
                                 })));
    run.scenarios = *rc::gen::resize(
        6, rc::gen::container<std::vector<ScenarioResult>>(rc::gen::exec([] {
          ScenarioResult s;
          s.info = {*Text(),
                    *Text(),
                    *Text(),
                    *Text(),
                    *Text(),
                    *Text(),
                    *rc::gen::resize(3, rc::gen::container<std::vector<std::string>>(Text()))};
          s.checks = *rc::gen::resize(5, rc::gen::container<std::vector<CheckResult>>(Check()));
          s.duration_ms = *Millis();
          return s;
        })));
    return run;
  });
}

RC_GTEST_PROP(JsonReportProperties, ReportFromJsonInvertsRender, ()) {
  const RunResult run = *Run();
  const auto back = ReportFromJson(Json::parse(RenderJsonReport(run)));
  RC_ASSERT(back.has_value());
  RC_ASSERT(*back == run);
}

}  // namespace
}  // namespace llmconform::reports

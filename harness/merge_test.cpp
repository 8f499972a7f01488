#include "harness/merge.h"

#include <gtest/gtest.h>

#include <fstream>

#include "harness/scratch_dir.h"
#include "reports/json_reporter.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;
using reports::RunResult;
using reports::ScenarioResult;

ScenarioResult ScenarioOf(std::string protocol, std::string name, CheckResult check) {
  ScenarioResult s;
  s.info.protocol = protocol;
  s.info.name = name;
  s.info.file = "specs/" + protocol + "/" + name + ".json";
  s.checks = {std::move(check)};
  s.duration_ms = 5;
  return s;
}

RunResult ShardReport(std::string shard, std::vector<ScenarioResult> scenarios,
                      std::string started_at = "2026-11-23T10:00:00Z", double ms = 100) {
  RunResult run;
  run.tool_version = "0.1.0";
  run.started_at = std::move(started_at);
  run.duration_ms = ms;
  run.spec_hash = "sha256:" + std::string(64, 'a');
  run.shard = std::move(shard);
  run.rules = {{"R1", "p", "doc §1", "text", "must"}};
  run.scenarios = std::move(scenarios);
  return run;
}

TEST(MergeReports, PutsScenariosInRunOrderAndKeepsOneRunsFields) {
  auto merged = MergeReports({
      {"b.json", ShardReport("2/2",
                             {ScenarioOf("wire", "b", CheckResult::Pass("R1", "ok")),
                              ScenarioOf("multiturn", "z", CheckResult::Pass("R1", "ok"))},
                             "2026-11-23T10:00:05Z", 300)},
      {"a.json",
       ShardReport("1/2", {ScenarioOf("multiturn", "a", CheckResult::Fail("R1", "bad", {})),
                           ScenarioOf("wire", "a", CheckResult::Pass("R1", "ok"))})},
  });
  ASSERT_TRUE(merged) << merged.error().message;
  std::vector<std::string> ids;
  for (const auto& s : merged->scenarios) ids.push_back(s.info.Id());
  EXPECT_EQ(ids, (std::vector<std::string>{"multiturn/a", "multiturn/z", "wire/a", "wire/b"}));
  EXPECT_EQ(merged->shard, "");
  EXPECT_EQ(merged->spec_hash, "sha256:" + std::string(64, 'a'));
  EXPECT_EQ(merged->started_at, "2026-11-23T10:00:00Z");
  EXPECT_EQ(merged->duration_ms, 300);
  EXPECT_EQ(merged->ExitCode(), 1);  // as if one run had failed
}

TEST(MergeReports, RefusesDifferentSpecSets) {
  RunResult other = ShardReport("2/2", {ScenarioOf("wire", "b", CheckResult::Pass("R1", "ok"))});
  other.spec_hash = "sha256:" + std::string(64, 'b');
  auto merged = MergeReports(
      {{"a.json", ShardReport("1/2", {ScenarioOf("wire", "a", CheckResult::Pass("R1", "ok"))})},
       {"b.json", other}});
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().message.find("b.json: spec_hash"), std::string::npos)
      << merged.error().message;
  EXPECT_NE(merged.error().message.find("different specs or fixtures"), std::string::npos);
}

TEST(MergeReports, RefusesReportsWithoutAHashDuplicatesAndOtherCatalogues) {
  RunResult unhashed = ShardReport("1/1", {});
  unhashed.spec_hash.clear();
  EXPECT_FALSE(MergeReports({{"x.json", unhashed}}));
  const RunResult a = ShardReport("1/2", {ScenarioOf("wire", "a", CheckResult::Pass("R1", "ok"))});
  auto dup = MergeReports({{"a.json", a}, {"b.json", a}});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().message, "b.json: scenario wire/a is also in a.json");
  RunResult other_rules = a;
  other_rules.scenarios.clear();
  other_rules.rules[0].text = "changed";
  EXPECT_FALSE(MergeReports({{"a.json", a}, {"c.json", other_rules}}));
  RunResult other_version = other_rules;
  other_version.rules = a.rules;
  other_version.tool_version = "9.9.9";
  EXPECT_FALSE(MergeReports({{"a.json", a}, {"d.json", other_version}}));
  EXPECT_FALSE(MergeReports({}));
}

TEST(LoadReport, ReadsWhatTheJsonReporterWritesAndLocatesErrors) {
  ScratchDir dir;
  const RunResult run =
      ShardReport("1/2", {ScenarioOf("wire", "a", CheckResult::Pass("R1", "ok"))});
  std::ofstream(dir.path() / "r.json") << reports::RenderJsonReport(run);
  auto loaded = LoadReport(dir.path() / "r.json");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->run, run);

  std::ofstream(dir.path() / "bad.json") << "{\"format\":\"llmconform-report/1\"";
  auto bad = LoadReport(dir.path() / "bad.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad.json: not JSON"), std::string::npos);
  auto missing = LoadReport(dir.path() / "none.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("none.json"), std::string::npos);
}

}  // namespace
}  // namespace llmconform::harness

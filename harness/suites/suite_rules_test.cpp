// Every suite's rule table against its catalogue, specs/<protocol>/rules.json:
// each rule the catalogue holds has exactly one entry in the table of the
// suite of that protocol, and each entry names a catalogued rule. (The
// catalogue has no field saying which code checks a rule: a protocol's suite
// checks every rule of its catalogue, and the runner reports a rule without a
// table entry as an Error.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "base/file.h"
#include "base/test_paths.h"
#include "harness/scenario.h"
#include "harness/sse_check.h"
#include "harness/suites/gymbro_checks.h"
#include "harness/suites/registry.h"
#include "harness/suites/rule_table.h"
#include "protocols/thinkingml/thinkingml.h"

namespace llmconform::harness {
namespace {

const std::filesystem::path kSpecs =
    std::filesystem::path(::llmconform::test_paths::SourceRoot()) / "specs";

std::set<std::string> CatalogueIds(std::string_view protocol) {
  const std::filesystem::path path = kSpecs / protocol / "rules.json";
  auto text = ReadFile(path);
  EXPECT_TRUE(text) << path;
  if (!text) return {};
  auto catalog = ParseRuleCatalog(path.string(), *text, protocol);
  EXPECT_TRUE(catalog) << catalog.error().message;
  std::set<std::string> ids;
  if (catalog) {
    for (const auto& rule : *catalog) ids.insert(rule.id);
  }
  return ids;
}

TEST(SuiteRules, EveryCatalogueRuleHasExactlyOneTableEntryAndNoMore) {
  ASSERT_EQ(Suites().size(), 7u);
  for (const SuiteKind& suite : Suites()) {
    SCOPED_TRACE(suite.protocol);
    const std::set<std::string> catalogue = CatalogueIds(suite.protocol);
    ASSERT_FALSE(catalogue.empty());
    std::map<std::string, int> entries;
    for (std::string_view id : suite.rule_ids()) ++entries[std::string(id)];
    for (const auto& [id, count] : entries) {
      EXPECT_EQ(count, 1) << id << " has " << count << " entries in the table";
      EXPECT_TRUE(catalogue.contains(id)) << id << " is in the table but not in rules.json";
    }
    for (const auto& id : catalogue) {
      EXPECT_TRUE(entries.contains(id)) << id << " is in rules.json but has no table entry";
    }
  }
}

TEST(SuiteRules, StreamRulesWithoutASuiteCheckAreJudgedByTheStreamJudge) {
  std::set<std::string_view> judged(StreamRuleIds().begin(), StreamRuleIds().end());
  judged.insert(std::begin(thinkingml::kReplyRuleIds), std::end(thinkingml::kReplyRuleIds));
  for (auto table : {gymbro_suite::GymbroRules(), gymbro_suite::ThinkingmlRules()}) {
    for (const auto& entry : table) {
      if (!entry.check) {
        EXPECT_TRUE(judged.contains(entry.rule)) << entry.rule << " is judged by no one";
      }
    }
  }
}

struct Nothing {};

TEST(SuiteRules, ARuleWithoutAnEntryIsAnError) {
  constexpr RuleCheck<Nothing> kTable[] = {{"R-1", [](const std::string& rule, const Nothing&) {
                                              return reports::CheckResult::Pass(rule, "checked");
                                            }}};
  const auto checked = RunRuleCheck<Nothing>(kTable, "R-1", {});
  EXPECT_EQ(checked.outcome, reports::Outcome::kPass);
  EXPECT_EQ(checked.message, "checked");
  const auto unknown = RunRuleCheck<Nothing>(kTable, "R-2", {});
  EXPECT_EQ(unknown.outcome, reports::Outcome::kError);
  EXPECT_EQ(unknown.message, "no check is implemented for rule R-2");
  EXPECT_EQ(RuleIdsOf<RuleCheck<Nothing>>(kTable), std::vector<std::string_view>{"R-1"});
}

}  // namespace
}  // namespace llmconform::harness

#include "harness/scenario.h"

#include <gtest/gtest.h>

#include "base/test_paths.h"

namespace llmconform::harness {
namespace {

const RuleCatalog kRules = {{"R-1", "p", "seed §1", "text", "must"},
                            {"R-2", "p", "seed §2", "text", "should"}};

TEST(ParseScenario, AcceptsAWellFormedScenario) {
  auto s = ParseScenario("x.json",
                         R"({"protocol":"p","name":"n","description":"d","trace":"fixtures/t.jsonl",
    "input":{"a":1},"expect":{"b":2},"rules":["R-1","R-2"],"provider":"deepseek"})",
                         "p", kRules);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->name, "n");
  EXPECT_EQ(s->trace, "fixtures/t.jsonl");
  EXPECT_EQ(s->rules, (std::vector<std::string>{"R-1", "R-2"}));
  EXPECT_EQ(s->input["a"], 1);
}

TEST(ParseScenario, ErrorsSayWhereWhatWasExpectedAndWhatWasFound) {
  const std::string text =
      "{\n  \"protocol\": \"p\",\n  \"name\": 5,\n  \"rules\": [\"R-1\", \"R-9\"],\n  \"inptu\": "
      "{}\n}";
  auto s = ParseScenario("specs/p/bad.json", text, "p", kRules);
  ASSERT_FALSE(s);
  EXPECT_EQ(
      s.error().message,
      "specs/p/bad.json:5:12: /inptu: unknown field \"inptu\"; expected one of protocol, name, "
      "description, trace, "
      "provider, tags, input, expect, rules, notes, features\n"
      "specs/p/bad.json:3:11: /name: expected string, got number\n"
      "specs/p/bad.json:4:20: /rules/1: unknown rule id \"R-9\" (not in specs/p/rules.json)");
}

TEST(ParseScenario, ProtocolMustMatchItsFolder) {
  auto s = ParseScenario("x.json", R"({"protocol":"q","name":"n","rules":["R-1"]})", "p", kRules);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("/protocol: expected \"p\" (the folder it is in), got \"q\""),
            std::string::npos)
      << s.error().message;
}

TEST(ParseRuleCatalog, ValidatesEveryRule) {
  auto ok = ParseRuleCatalog("rules.json",
                             R"([{"id":"A","source":"s §1","text":"t","severity":"must"}])", "p");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->at(0).protocol, "p");
  auto bad =
      ParseRuleCatalog("rules.json",
                       "[{\"id\":\"A\",\"source\":\"s\",\"text\":\"t\",\"severity\":\"may\"},\n"
                       " {\"id\":\"A\",\"source\":\"s\",\"text\":\"t\",\"severity\":\"must\"}]",
                       "p");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "rules.json:1:47: /0/severity: expected \"must\" or \"should\", got \"may\"\n"
            "rules.json:2:8: /1/id: rule \"A\" is defined twice");
}

TEST(LoadSpecs, LoadsTheBundledSpecs) {
  auto set = LoadSpecs(std::filesystem::path(::llmconform::test_paths::SourceRoot()) / "specs");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->rules.contains("multiturn"));
  EXPECT_GE(set->scenarios.size(), 4u);
}

}  // namespace
}  // namespace llmconform::harness

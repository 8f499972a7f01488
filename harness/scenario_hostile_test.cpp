// Bad specs are input errors that name their file and line (issue 17): a
// trace that is missing, broken, outside fixtures/ or reached through a
// symlink out of it, a scenario name defined twice, and an input its
// protocol's suite cannot read (issue 34).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "harness/scenario.h"
#include "harness/scratch_dir.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

void Write(const fs::path& p, std::string_view text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A trace with a header and no exchange.
constexpr std::string_view kTrace = "{\"format\": \"llmconform-trace/1\", \"id\": \"t\"}\n";

class BadSpecs : public ::testing::Test {
 protected:
  BadSpecs() {
    Write(root() / "specs" / "p" / "rules.json",
          R"([{"id":"R-1","source":"s","severity":"must","text":"t"}])");
    Write(root() / "fixtures" / "t.trace.jsonl", kTrace);
    Write(root() / "outside.trace.jsonl", "{}\n");
  }
  const fs::path& root() const { return dir_.path(); }
  // Adds specs/p/NAME.json for scenario `scenario` with `trace`.
  void Scenario(std::string_view file, std::string_view scenario, std::string_view trace) {
    Write(root() / "specs" / "p" / (std::string(file) + ".json"),
          "{\"protocol\":\"p\",\"name\":\"" + std::string(scenario) + "\",\n \"trace\":\"" +
              std::string(trace) + "\",\n \"rules\":[\"R-1\"]}");
  }
  std::string Errors() {
    auto set = LoadSpecs(root() / "specs");
    return set ? "" : set.error().message;
  }
  ScratchDir dir_;
};

TEST_F(BadSpecs, AGoodOneLoads) {
  Scenario("a", "a", "fixtures/t.trace.jsonl");
  EXPECT_EQ(Errors(), "");
}

TEST_F(BadSpecs, AMissingTraceIsLocated) {
  Scenario("a", "a", "fixtures/nope.trace.jsonl");
  EXPECT_THAT(Errors(), HasSubstr("specs/p/a.json:2:10: /trace: no trace file "
                                  "fixtures/nope.trace.jsonl"));
}

TEST_F(BadSpecs, ATraceOutsideFixturesIsRefused) {
  Scenario("a", "a", "../../../../etc/passwd");
  Scenario("b", "b", "fixtures/../outside.trace.jsonl");
  Scenario("c", "c", "/etc/passwd");
  const std::string errors = Errors();
  EXPECT_THAT(errors, HasSubstr("specs/p/a.json:2:10: /trace: expected a path under fixtures/"));
  EXPECT_THAT(errors, HasSubstr("specs/p/b.json:2:10: /trace: expected a path under fixtures/"));
  EXPECT_THAT(errors, HasSubstr("specs/p/c.json:2:10: /trace: expected a path under fixtures/"));
}

TEST_F(BadSpecs, ASymlinkOutOfFixturesIsRefused) {
  fs::create_symlink(root() / "outside.trace.jsonl", root() / "fixtures" / "link.trace.jsonl");
  Scenario("a", "a", "fixtures/link.trace.jsonl");
  EXPECT_THAT(Errors(), HasSubstr("specs/p/a.json:2:10: /trace: fixtures/link.trace.jsonl "
                                  "leads outside fixtures/"));
}

TEST_F(BadSpecs, AScenarioNameDefinedTwiceIsAnError) {
  Scenario("a", "same", "fixtures/t.trace.jsonl");
  Scenario("b", "same", "fixtures/t.trace.jsonl");
  EXPECT_THAT(Errors(), HasSubstr("specs/p/b.json:1:24: /name: the scenario p/same is also "
                                  "defined in specs/p/a.json"));
}

TEST_F(BadSpecs, ABrokenTraceIsAnErrorWhenSpecsLoad) {
  Write(root() / "fixtures" / "broken.trace.jsonl", std::string(kTrace) + "{\"seq\": \"one\"}\n");
  Scenario("a", "a", "fixtures/broken.trace.jsonl");
  EXPECT_THAT(Errors(), HasSubstr("specs/p/a.json:2:10: /trace: "));
  EXPECT_THAT(Errors(), HasSubstr("broken.trace.jsonl"));
}

// A scenario of a protocol with a suite, whose input is `input`.
void MultiturnScenario(const fs::path& root, std::string_view input) {
  Write(root / "specs" / "multiturn" / "rules.json",
        R"([{"id":"R-1","source":"s","severity":"must","text":"t"}])");
  Write(root / "specs" / "multiturn" / "a.json",
        "{\"protocol\":\"multiturn\",\"name\":\"a\",\"rules\":[\"R-1\"],\n \"input\": " +
            std::string(input) + "}");
}

TEST_F(BadSpecs, AMistypedInputIsLocatedWhenSpecsLoad) {
  MultiturnScenario(root(), R"({"systemPrompt": "s", "history": [], "currentUserMessage": "c",
   "maxTokenBudget": "10"})");
  EXPECT_THAT(Errors(), HasSubstr("specs/multiturn/a.json:3:22: /input/maxTokenBudget: expected "
                                  "integer, got string"));
  // A field that is missing is located at the object that lacks it.
  MultiturnScenario(root(), R"({"systemPrompt": "s", "history": [], "currentUserMessage": "c"})");
  EXPECT_THAT(Errors(), HasSubstr("specs/multiturn/a.json:2:11: /input/maxTokenBudget: expected"));
}

TEST_F(BadSpecs, ANegativeTokenBudgetIsRefused) {
  MultiturnScenario(root(), R"({"systemPrompt": "s", "history": [], "currentUserMessage": "c",
   "maxTokenBudget": -1})");
  EXPECT_THAT(Errors(), HasSubstr("specs/multiturn/a.json:3:22: /input/maxTokenBudget: expected a "
                                  "non-negative integer (tokens), got -1"));
  MultiturnScenario(root(), R"({"systemPrompt": "s", "history": [], "currentUserMessage": "c",
   "maxTokenBudget": 0})");
  EXPECT_EQ(Errors(), "");
}

}  // namespace
}  // namespace llmconform::harness

#include "reports/sample_run_test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/test_paths.h"

namespace llmconform::reports::testing {
namespace {

std::string GoldenPath(std::string_view name) {
  return std::string(::llmconform::test_paths::SourceRoot()) + "/reports/testdata/" +
         std::string(name);
}

}  // namespace

RunResult SampleRun() {
  RunResult run;
  run.tool_version = "0.1.0";
  run.started_at = "2026-11-21T09:30:00Z";
  run.duration_ms = 1534.5;
  run.rules = {
      {"multiturn.system-first", "multiturn", "003_ef316c6225847a57.txt §2",
       "The system prompt is the first message.", "must"},
      {"multiturn.budget-trim", "multiturn", "003_ef316c6225847a57.txt §3",
       "History is trimmed from the oldest end until the total fits the budget.", "must"},
      {"skill.reply-starts-with-tag", "skill", "000_c404cacd66846586.txt §4.1",
       "A reply starts with exactly one tag at position 0.", "must"},
      {"skill.parameters-listed", "skill", "000_c404cacd66846586.txt §3.2",
       "Parameters are listed one a line after the prompt.", "should"},
      {"skill.step-counter", "skill", "000_c404cacd66846586.txt §3.4",
       "Every user message ends with [Step N of M].", "must"},
  };
  run.scenarios = {
      {{"multiturn",
        "s1-standard-assembly",
        "System, history and the current message in order.",
        "specs/multiturn/s1-standard-assembly.json",
        "fixtures/synthesized/multiturn-s1.trace.jsonl",
        "openai",
        {}},
       {CheckResult::Pass("multiturn.system-first", "messages[0] is the system prompt."),
        CheckResult::Pass("multiturn.budget-trim",
                          "All 2 history messages fit the budget of 10000.")},
       12.25},
      {{"multiturn",
        "s2-trim-oldest",
        "The oldest history goes first when over budget.",
        "specs/multiturn/s2-trim-oldest.json",
        "fixtures/synthesized/multiturn-s2.trace.jsonl",
        "deepseek",
        {"streaming"}},
       {CheckResult::Pass("multiturn.system-first", "messages[0] is the system prompt."),
        CheckResult::Pass("multiturn.budget-trim", "Kept the newest 2 of 4 history messages.")},
       8},
      {{"multiturn",
        "tool-role-rejected",
        "A tool message in the history is an input error.",
        "specs/multiturn/tool-role-rejected.json",
        "",
        "openai",
        {}},
       {CheckResult::Skip("multiturn.system-first",
                          "The client refused the input; no request was sent.")},
       0.75},
      {{"skill",
        "git-quick-commit",
        "Commit with a generated message in one step.",
        "specs/skill/git-quick-commit.json",
        "fixtures/synthesized/skill-git-quick-commit.trace.jsonl",
        "openai",
        {"streaming"}},
       {CheckResult::Pass("skill.parameters-listed", "Both parameters are listed in order."),
        CheckResult::Fail(
            "skill.reply-starts-with-tag",
            "The reply starts with prose, not a tag: `Sure!` | *not* <think>.",
            {"a reply that starts with one of <COMMAND>, <ASK>, <INFO>, <DONE>",
             "Sure! <script>alert(\"x\")</script>\n<COMMAND>git commit -m \"wip\"</COMMAND>",
             "/outputs/steps/0/reply"})},
       41},
      {{"skill",
        "ask-user",
        "The model asks before acting.",
        "specs/skill/ask-user.json",
        "fixtures/synthesized/skill-ask-user.trace.jsonl",
        "deepseek",
        {}},
       {CheckResult::Pass("skill.reply-starts-with-tag", "The reply starts with <ASK>."),
        CheckResult::Skip("skill.step-counter", "The scenario ends before a second user message.")},
       20},
      {{"skill",
        "ollama-keepalive",
        "A recorded Ollama stream with keep-alive comments.",
        "specs/skill/ollama-keepalive.json",
        "fixtures/recorded/ollama-skill.trace.jsonl",
        "ollama",
        {}},
       {CheckResult::Error(
           "skill.step-counter",
           "Could not load the trace: fixtures/recorded/ollama-skill.trace.jsonl:3:14: "
           "expected ',' or '}', got 'x'")},
       0.5},
  };
  return run;
}

std::string ReadGolden(std::string_view name) {
  std::ifstream in(GoldenPath(name), std::ios::binary);
  EXPECT_TRUE(in) << "missing golden file " << GoldenPath(name)
                  << " (run the test with LLMCONFORM_UPDATE_GOLDEN=1 to create it)";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void ExpectMatchesGolden(std::string_view name, const std::string& actual) {
  const char* update = std::getenv("LLMCONFORM_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream out(GoldenPath(name), std::ios::binary | std::ios::trunc);
    out << actual;
    ASSERT_TRUE(out) << "could not write " << GoldenPath(name);
    return;
  }
  EXPECT_EQ(ReadGolden(name), actual)
      << "golden file " << GoldenPath(name)
      << " differs; rerun with LLMCONFORM_UPDATE_GOLDEN=1 and review";
}

}  // namespace llmconform::reports::testing

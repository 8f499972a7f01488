#include "harness/check/generators.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "base/json.h"
#include "base/test_paths.h"
#include "harness/check/check_run.h"
#include "harness/check/op_schema.h"
#include "harness/oracle.h"
#include "harness/scratch_dir.h"

namespace llmconform::harness::check {
namespace {

std::vector<Json> Inputs(std::string_view op, std::size_t n, std::uint64_t seed = 7) {
  const rc::Gen<Json>* gen = InputGenerator(op);
  EXPECT_NE(gen, nullptr) << op;
  std::vector<Json> out;
  if (!gen) return out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(GenerateCase(*gen, seed, i).value());
  return out;
}

// Every generator is deterministic, and the reference takes what it makes
// (an input the reference refuses outright tests nothing but the refusal).
TEST(Generators, AreDeterministicAndFeedTheReference) {
  for (const auto& op : GeneratedOps()) {
    const OracleOp* ref = FindOracleOperation(op);
    ASSERT_NE(ref, nullptr) << op;
    const auto a = Inputs(op, 300), b = Inputs(op, 300);
    EXPECT_EQ(a, b) << op;
    std::size_t answered = 0;
    for (const auto& in : a) {
      auto out = ref->run(in);
      if (out) ++answered;
    }
    EXPECT_GE(answered, a.size() * 9 / 10) << op << ": the reference refuses most inputs";
  }
}

// The reference-fidelity cases of seed review (Unicode white space and the
// BOM, unclosed fences, C1 controls, phone-number look-alikes, addresses,
// card numbers, repeated serp_queries blocks, big integers in args) are
// generated, where they matter.
TEST(Generators, ReachTheReferenceFidelityCases) {
  auto any = [](std::string_view op, std::size_t n, auto pred) {
    for (const auto& in : Inputs(op, n))
      if (pred(in)) return true;
    return false;
  };
  auto text_has = [&](std::string_view op, std::string needle, std::size_t n = 3000) {
    return any(op, n, [&](const Json& in) {
      return in.value("text", "").find(needle) != std::string::npos;
    });
  };
  for (const char* op : {"skill.parseSkillResponse", "skill.checkReply"}) {
    EXPECT_TRUE(text_has(op, "\xEF\xBB\xBF[DONE]")) << op << ": BOM before a tag";
    EXPECT_TRUE(text_has(op, "[CMD]\xC2\xA0")) << op << ": NBSP after a tag";
    EXPECT_TRUE(any(op, 3000, [](const Json& in) { return in["text"] == "\xE3\x80\x80"; }))
        << op << ": a reply of U+3000 alone";
    EXPECT_TRUE(text_has(op, "```bash\nnpm test\n\n[DONE]")) << op << ": unclosed fence, tag line";
    EXPECT_TRUE(text_has(op, "[CMD] ```bash ls -la```")) << op << ": one-line fence";
  }
  EXPECT_TRUE(text_has("skill.cleanOutputForAI",
                       "\xC2\x9B"
                       "31m"))
      << "8-bit CSI";
  EXPECT_TRUE(text_has("skill.cleanOutputForAI", "\xC2\x9D")) << "8-bit OSC";
  EXPECT_TRUE(text_has("skill.cleanOutputForAI", "\n\xC2\xA0\n")) << "a line of NBSP";
  // Inside a serp_queries array, as queries.
  for (const char* q :
       {"\"每天 10000-12000 步 减肥\"", "\"1700000000123\"", "\"ISBN 9787115428028\"",
        "\"2023-2024-2025\"", "\"13812345678\"", "\"+86 138 1234 5678\"",
        "\"北京市朝阳区建国路 88 号 健身房\"", "\"卡号 4111111111111111\""}) {
    EXPECT_TRUE(any("thinkingml.validate", 5000, [&](const Json& in) {
      const std::string t = in.value("text", "");
      const auto block = t.find("<serp_queries>");
      return block != std::string::npos && t.find(q, block) != std::string::npos;
    })) << q;
  }
  EXPECT_TRUE(any("thinkingml.validate", 3000, [](const Json& in) {
    const std::string t = in.value("text", "");
    const auto first = t.find("<!-- <serp_queries>");
    return first != std::string::npos &&
           t.find("<!-- <serp_queries>", first + 1) != std::string::npos;
  })) << "two serp_queries blocks";
  EXPECT_TRUE(any("action.parse", 3000, [](const Json& in) {
    const std::string t = in.value("text", "");
    const auto args = t.find("\"args\":{");
    return args != std::string::npos &&
           t.find("12345678901234567890123", args) != std::string::npos;
  })) << "a big integer in args";
}

// The rules each generator reaches in the reference (what `check --coverage`
// prints): every rule the op can decide.
TEST(Generators, ReachEveryRuleTheirOpDecides) {
  const std::map<std::string, std::size_t> cases = {{"gymbro.checkEvents", 3000},
                                                    {"wire.accumulate", 2000},
                                                    {"wire.dialect", 3000},
                                                    {"responses.accumulate", 2000},
                                                    {"gemini.accumulate", 2000},
                                                    {"messages.accumulate", 2000},
                                                    {"toolcalls.checkConversation", 2000},
                                                    {"skill.buildSkillSystemPrompt", 300},
                                                    {"skill.buildInitialUserPrompt", 300},
                                                    {"toolcalls.composeRunDirective", 100},
                                                    {"toolcalls.composeNodeBrief", 100},
                                                    {"toolcalls.composeUserInput", 100},
                                                    {"toolcalls.functionTools", 100},
                                                    {"toolcalls.composeSystemMessages", 100}};
  for (const auto& [op, n] : cases) {
    const OracleOp* ref = FindOracleOperation(op);
    ASSERT_NE(ref, nullptr);
    std::set<std::string> reached;
    for (const auto& in : Inputs(op, n)) {
      auto out = ref->run(in);
      if (!out) continue;
      for (const auto& r : TriggeredRules(op, in, *out)) reached.insert(r);
    }
    for (const auto& rule : RulePrefixes(op)) {
      if (rule.ends_with('-')) continue;  // prefixes: checked by the e2e coverage run
      EXPECT_TRUE(reached.contains(rule)) << op << " never reaches " << rule;
    }
  }
}

// A SUT whose action.parse answers the reply text unchanged: wrong for every
// JSON reply. check finds it, and the shrunk case still disagrees the same
// way and is no bigger than the one found.
TEST(Shrinking, KeepsTheDisagreement) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  CheckOptions options;
  options.sut_command =
      "python3 -c 'import json,sys\n"
      "for l in sys.stdin:\n"
      "    r = json.loads(l)\n"
      "    print(json.dumps({\"id\": r[\"id\"], \"output\": {\"text\": r[\"input\"][\"text\"]}}), "
      "flush=True)'";
  options.ops = {"action.parse"};
  options.cases = 200;
  options.seed = 3;
  options.compare = {"/text"};
  options.specs_dir = std::filesystem::path(::llmconform::test_paths::SourceRoot()) / "specs";
  options.failures_dir = dir.path();
  std::ostringstream progress;
  auto report = RunCheck(options, progress);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_TRUE(report->AnyDisagreement());
  const OracleOp* ref = FindOracleOperation("action.parse");
  for (const auto& g : report->ops[0].groups) {
    ASSERT_TRUE(g.sut_failure.empty()) << g.key;
    auto out = ref->run(g.input);
    ASSERT_TRUE(out);
    EXPECT_NE((*out)["text"], g.input["text"])
        << "the shrunk input no longer disagrees: " << g.input.dump();
    EXPECT_EQ(g.expected, (Json{{"output", *out}}));
    EXPECT_LE(g.input.dump().size(), g.original.dump().size());
    EXPECT_TRUE(std::filesystem::exists(g.replay_file)) << g.replay_file;
  }
}

TEST(RulePrefixes, KnowsEveryGeneratedOp) {
  for (const auto& op : GeneratedOps()) EXPECT_FALSE(RulePrefixes(op).empty()) << op;
}

}  // namespace
}  // namespace llmconform::harness::check

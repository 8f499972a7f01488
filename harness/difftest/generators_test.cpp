#include "harness/difftest/generators.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/json.h"
#include "base/test_paths.h"
#include "harness/difftest/check_run.h"
#include "harness/difftest/op_schema.h"
#include "harness/oracle.h"
#include "harness/scratch_dir.h"
#include "protocols/wire/dialect.h"

namespace llmconform::harness::difftest {
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

const std::map<std::string, RuleCatalog>& Catalogues() {
  static const auto* catalogues = [] {
    auto specs = LoadSpecs(std::filesystem::path(::llmconform::test_paths::SourceRoot()) / "specs");
    EXPECT_TRUE(specs) << specs.error().message;
    return new std::map<std::string, RuleCatalog>(specs ? specs->rules
                                                        : std::map<std::string, RuleCatalog>{});
  }();
  return *catalogues;
}

// The coverage `check --coverage` reports, held to every rule each op is
// measured against (its rule prefixes expanded over the catalogues): a rule
// of a catalogue that no generated case makes the reference report fails
// here, as does a rule the reference reports that the op is not measured
// against.
TEST(Generators, ReachEveryRuleTheirOpDecides) {
  std::map<std::string, std::size_t> cases = {{"gymbro.checkEvents", 3000},
                                              {"wire.accumulate", 2000},
                                              {"wire.dialect", 3000},
                                              {"responses.accumulate", 2000},
                                              {"gemini.accumulate", 2000},
                                              {"messages.accumulate", 2000},
                                              {"toolcalls.checkConversation", 2000},
                                              {"thinkingml.validate", 3000},
                                              {"action.parse", 3000},
                                              {"skill.parseSkillResponse", 2000},
                                              {"skill.checkReply", 2000},
                                              {"skill.cleanOutputForAI", 2000}};
  for (const auto& op : GeneratedOps()) {
    const OracleOp* ref = FindOracleOperation(op);
    ASSERT_NE(ref, nullptr);
    const std::vector<std::string> measured = RulesToCover(op, Catalogues());
    EXPECT_FALSE(measured.empty()) << op;
    std::set<std::string> reached;
    for (const auto& in : Inputs(op, cases.contains(op) ? cases[op] : 300)) {
      auto out = ref->run(in);
      if (!out) continue;
      for (const auto& r : TriggeredRules(op, in, *out)) reached.insert(r);
    }
    for (const auto& rule : measured)
      EXPECT_TRUE(reached.contains(rule)) << op << " never reaches " << rule;
  }
}

// wire.dialect is measured against the deviations of every surface it
// generates inputs for (Chat's, the Responses API's, Anthropic Messages' and
// Gemini's), and its inputs name the surface they are of (none: Chat).
TEST(Generators, WireDialectCoversEverySurface) {
  const std::vector<std::string> measured = RulesToCover("wire.dialect", Catalogues());
  const std::set<std::string> ids(measured.begin(), measured.end());
  for (wire::Surface surface : {wire::Surface::kChat, wire::Surface::kResponses,
                                wire::Surface::kMessages, wire::Surface::kGemini})
    for (std::string_view id : wire::DialectIds(surface))
      EXPECT_TRUE(ids.contains(std::string(id))) << id;
  std::set<std::string> surfaces;
  for (const auto& in : Inputs("wire.dialect", 300)) surfaces.insert(in.value("surface", "chat"));
  EXPECT_EQ(surfaces, (std::set<std::string>{"chat", "responses", "messages", "gemini"}));
}

// Every rule id an op is measured against by name is a rule of a catalogue
// (or a dialect of specs/wire/dialects.json, for wire.dialect).
TEST(Generators, MeasureOnlyCataloguedRules) {
  std::set<std::string> known;
  for (const auto& [protocol, rules] : Catalogues())
    for (const auto& r : rules) known.insert(r.id);
  for (const auto& op : GeneratedOps()) {
    if (op == "wire.dialect") continue;
    for (const auto& rule : RulePrefixes(op)) {
      if (rule.ends_with('-')) continue;
      EXPECT_TRUE(known.contains(rule) || rule.starts_with("DIA-")) << op << ": " << rule;
    }
  }
}

// #35: two independent bugs that break the same field are told apart by the
// step of the reference that decided the differing line, so each gets a group.
TEST(DecidingRule, TellsTwoBugsOfTheCleaningApart) {
  const OracleOp* ref = FindOracleOperation("skill.cleanOutputForAI");
  ASSERT_NE(ref, nullptr);
  const Json input{{"text", "lsblk\nsda 8:0\n50%\r100%\n"}, {"lastCommand", "ls"}};
  auto out = ref->run(input);
  ASSERT_TRUE(out);
  ASSERT_EQ((*out)["text"], "lsblk\nsda 8:0\n100%");
  const Json echo_bug{{"text", "blk\nsda 8:0\n100%"}};     // "ls" cut off "lsblk"
  const Json cr_bug{{"text", "lsblk\nsda 8:0\n50%100%"}};  // CR dropped, not overwritten
  EXPECT_EQ(DecidingRule("skill.cleanOutputForAI", input, *out, echo_bug),
            (Decision{"SKILL-CLEAN-6", "echo"}));
  EXPECT_EQ(DecidingRule("skill.cleanOutputForAI", input, *out, cr_bug),
            (Decision{"SKILL-CLEAN-5", "carriage-return"}));
  // A line kept that the reference drops: the step that dropped it decides.
  const Json banner{{"text", "a\nMicrosoft Windows [Version 1]\nb"}};
  auto dropped = ref->run(banner);
  ASSERT_TRUE(dropped);
  EXPECT_EQ(DecidingRule("skill.cleanOutputForAI", banner, *dropped, banner),
            (Decision{"SKILL-CLEAN-4", "banner"}));
  // Ops without a decision of their own: the reference's first finding.
  const Json reply{{"text", "hello [CMD] ls"}};
  auto findings = FindOracleOperation("skill.checkReply")->run(reply);
  ASSERT_TRUE(findings);
  ASSERT_FALSE((*findings)["findings"].empty());
  EXPECT_EQ(DecidingRule("skill.checkReply", reply, *findings, Json::object()).rule,
            (*findings)["findings"][0]["rule"].get<std::string>());
}

// The whole run: a SUT with both bugs gives two groups, one per step.
TEST(Grouping, GivesEachBugItsOwnGroup) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  CheckOptions options;
  // A SUT with the public implementation's two bugs (CR bytes dropped, the
  // command cut off a first line that only begins with it), right for the
  // plain inputs replayed below.
  options.sut_command =
      "python3 -c 'import json,sys\n"
      "for l in sys.stdin:\n"
      "    r = json.loads(l); i = r[\"input\"]; t = i[\"text\"].replace(\"\\r\", \"\")\n"
      "    c = i.get(\"lastCommand\") or \"\"\n"
      "    lines = [x for x in t.split(\"\\n\") if x]\n"
      "    if c and lines and lines[0] == c: lines.pop(0)\n"
      "    elif c and lines and lines[0].startswith(c): lines[0] = lines[0][len(c):]\n"
      "    print(json.dumps({\"id\": r[\"id\"], \"output\": {\"text\": \"\\n\".join(lines)}}), "
      "flush=True)'";
  options.replay = {dir.path()};
  for (const auto& [name, text] :
       std::vector<std::pair<std::string, std::string>>{{"a", "lsblk\nsda"},
                                                        {"b", "lsof\nx"},
                                                        {"c", "10%\r100%\nok"},
                                                        {"d", "ab\rc\nok"},
                                                        {"e", "ls\nfile"}}) {
    std::ofstream(dir.path() / (name + ".json")) << Json{
        {"op", "skill.cleanOutputForAI"},
        {"input",
         {{"text", text}, {"lastCommand", "ls"}}}}.dump();
  }
  options.ops = {"skill.cleanOutputForAI"};
  options.specs_dir = std::filesystem::path(::llmconform::test_paths::SourceRoot()) / "specs";
  std::ostringstream progress;
  auto report = RunCheck(options, progress);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->ops.size(), 1u);
  const auto& groups = report->ops[0].groups;
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].key, "SKILL-CLEAN-6 echo /text");
  EXPECT_EQ(groups[0].count, 2u);
  EXPECT_EQ(groups[1].key, "SKILL-CLEAN-5 carriage-return /text");
  EXPECT_EQ(groups[1].count, 2u);
  EXPECT_EQ(report->ops[0].disagreements, 4u);
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
}  // namespace llmconform::harness::difftest

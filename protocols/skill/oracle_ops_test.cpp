#include "protocols/skill/oracle_ops.h"

#include <gtest/gtest.h>

#include "base/json.h"
#include "protocols/skill/system_prompt.h"

namespace llmconform::skill {
namespace {

std::expected<Json, Error> Call(std::string_view name, const Json& in) {
  for (const auto& op : OracleOps()) {
    if (op.name == name) return op.run(in);
  }
  return std::unexpected(Error{"no such operation"});
}

TEST(SkillOracle, ListsTheFiveOperations) {
  std::vector<std::string> names;
  for (const auto& op : OracleOps()) names.emplace_back(op.name);
  EXPECT_EQ(names, (std::vector<std::string>{"skill.parseSkillResponse", "skill.cleanOutputForAI",
                                             "skill.buildSkillSystemPrompt",
                                             "skill.buildInitialUserPrompt", "skill.checkReply"}));
}

TEST(SkillOracle, ParseSkillResponse) {
  EXPECT_EQ(*Call("skill.parseSkillResponse", {{"text", "[ASK] Введи сообщение коммита:"}}),
            (Json{{"type", "ASK"},
                  {"content", "[ASK] Введи сообщение коммита:"},
                  {"question", "Введи сообщение коммита:"},
                  {"required", true}}));
  EXPECT_EQ(Call("skill.parseSkillResponse", {{"text", 5}}).error().message,
            "/text: expected string, got number");
}

TEST(SkillOracle, CleanOutputForAI) {
  EXPECT_EQ(
      *Call("skill.cleanOutputForAI", {{"text", "ls\n\x1b[1mfile\x1b[0m"}, {"lastCommand", "ls"}}),
      (Json{{"text", "file"}}));
  EXPECT_EQ(*Call("skill.cleanOutputForAI", {{"text", ""}}), (Json{{"text", "(no output)"}}));
  EXPECT_EQ(*Call("skill.cleanOutputForAI", {{"text", "a"}, {"lastCommand", nullptr}}),
            (Json{{"text", "a"}}));
  EXPECT_EQ(Call("skill.cleanOutputForAI", {{"text", "a"}, {"lastCommand", 1}}).error().message,
            "/lastCommand: expected string, got number");
}

TEST(SkillOracle, BuildSkillSystemPrompt) {
  EXPECT_EQ(*Call("skill.buildSkillSystemPrompt", {{"basePrompt", "B"},
                                                   {"serverContext", " ctx "},
                                                   {"skillName", "s"},
                                                   {"skillMarkdown", "---\na: 1\n---\nbody"}}),
            (Json{{"text", "B\n\n--- System Context ---\nctx\n\n--- Active Skill: s ---\nbody"}}));
  EXPECT_EQ(
      (*Call("skill.buildSkillSystemPrompt", {{"skillName", "s"}, {"skillMarkdown", "b"}}))["text"],
      std::string(kSkillSystemPromptWithAsk) + "\n\n--- Active Skill: s ---\nb");
  EXPECT_EQ(Call("skill.buildSkillSystemPrompt", {{"skillName", "s"}}).error().message,
            "/skillMarkdown: expected string, got nothing (the field is required)");
}

TEST(SkillOracle, BuildInitialUserPrompt) {
  EXPECT_EQ(*Call("skill.buildInitialUserPrompt", {{"skillName", "git-quick-commit"}}),
            (Json{{"text", "Execute skill: git-quick-commit\n\n[Step 1 of 100]"}}));
  EXPECT_EQ(
      *Call("skill.buildInitialUserPrompt",
            {{"skillName", "s"},
             {"parameters", Json::array({Json::array({"n", 5}), Json::array({"flag", true}),
                                         Json::array({"x", "y"})})},
             {"customPrompt", "Do it"},
             {"step", 2},
             {"maxSteps", 10}}),
      (Json{{"text", "Do it\n\nParameters:\n- n: 5\n- flag: true\n- x: y\n\n[Step 2 of 10]"}}));
  EXPECT_EQ(Call("skill.buildInitialUserPrompt", {{"skillName", "s"}, {"parameters", {{"k", "v"}}}})
                .error()
                .message,
            "/parameters: expected array, got object");
  EXPECT_EQ(Call("skill.buildInitialUserPrompt",
                 {{"skillName", "s"}, {"parameters", Json::array({Json::array({"k"})})}})
                .error()
                .message,
            "/parameters/0: expected [key, value], got an array of 1");
  EXPECT_EQ(
      Call("skill.buildInitialUserPrompt",
           {{"skillName", "s"}, {"parameters", Json::array({Json::array({"k", Json::array()})})}})
          .error()
          .message,
      "/parameters/0/1: expected string, number, boolean or null, got array");
  EXPECT_EQ(Call("skill.buildInitialUserPrompt", Json::array()).error().message,
            "/: expected object, got array");
}

TEST(SkillOracle, CheckReply) {
  EXPECT_EQ(*Call("skill.checkReply", {{"text", "[CMD] ls"}}), (Json{{"findings", Json::array()}}));
  EXPECT_EQ(*Call("skill.checkReply", {{"text", "[cmd] ls"}}),
            (Json{{"findings",
                   Json::array({{{"rule", "SKILL-REPLY-2"},
                                 {"message", "tag spelled \"[cmd]\": expected \"[CMD]\""}}})}}));
}

}  // namespace
}  // namespace llmconform::skill

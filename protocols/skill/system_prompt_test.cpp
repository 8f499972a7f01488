#include "protocols/skill/system_prompt.h"

#include <gtest/gtest.h>

namespace llmconform::skill {
namespace {

TEST(SkillSystemPromptWithAsk, IsTheSeedText) {
  const std::string_view p = kSkillSystemPromptWithAsk;
  EXPECT_TRUE(
      p.starts_with("You are a terminal AI assistant executing a multi-step skill.\n\n"
                    "RESPONSE FORMAT - Use EXACTLY ONE of these formats per response:\n\n"
                    "1. [CMD] command_here\n"
                    "   Execute this shell command. You will receive the command output.\n"));
  EXPECT_NE(p.find("   Examples: \"Введи сообщение коммита:\", \"Продолжить? (yes/no):\"\n"),
            std::string_view::npos);
  EXPECT_NE(p.find("   Example: \"Хочешь добавить тег? (оставь пустым для пропуска):\"\n"),
            std::string_view::npos);
  EXPECT_TRUE(
      p.ends_with("- [MESSAGE]: does NOT block - execution continues automatically (info only)\n"
                  "- [DONE]: summarize what was accomplished"));
  EXPECT_EQ(p.size(), 1490u);  // 32 lines as in §3.1, no trailing newline
}

TEST(BuildSkillSystemPrompt, ThreePartsInOrder) {
  EXPECT_EQ(BuildSkillSystemPrompt("BASE", "  host: prod-1\nrole: db  \n", "git-quick-commit",
                                   "## What I do\n"),
            "BASE\n\n--- System Context ---\nhost: prod-1\nrole: db"
            "\n\n--- Active Skill: git-quick-commit ---\n## What I do");
}

TEST(BuildSkillSystemPrompt, BlankContextIsLeftOut) {
  EXPECT_EQ(BuildSkillSystemPrompt("BASE", " \n\t", "s", "body"),
            "BASE\n\n--- Active Skill: s ---\nbody");
  EXPECT_EQ(BuildSkillSystemPrompt("BASE", "", "s", "body"),
            "BASE\n\n--- Active Skill: s ---\nbody");
}

TEST(BuildSkillSystemPrompt, FrontMatterIsRemoved) {
  EXPECT_EQ(
      BuildSkillSystemPrompt(kSkillSystemPromptWithAsk, "", "git-quick-commit",
                             "---\nname: git-quick-commit\ndescription: Quick commit\n---\n\n"
                             "## What I do\n\nЯ выполняю следующие шаги:\n"),
      std::string(kSkillSystemPromptWithAsk) +
          "\n\n--- Active Skill: git-quick-commit ---\n## What I do\n\nЯ выполняю следующие шаги:");
}

TEST(BasePromptFromPromptsFile, OverridesOrDefaults) {
  EXPECT_EQ(*BasePromptFromPromptsFile(R"({"SKILL_SYSTEM_PROMPT_WITH_ASK":"Custom base","X":1})"),
            "Custom base");
  EXPECT_EQ(*BasePromptFromPromptsFile(R"({"OTHER":"x"})"), kSkillSystemPromptWithAsk);
}

TEST(BasePromptFromPromptsFile, Errors) {
  EXPECT_EQ(BasePromptFromPromptsFile("[1]").error().message,
            "prompts file: expected an object, got array");
  EXPECT_EQ(BasePromptFromPromptsFile(R"({"SKILL_SYSTEM_PROMPT_WITH_ASK":3})").error().message,
            "prompts file: /SKILL_SYSTEM_PROMPT_WITH_ASK: expected string, got number");
  EXPECT_EQ(BasePromptFromPromptsFile("{x").error().message,
            "prompts file: line 1, column 2: "
            "syntax error while parsing object key - invalid literal; last read: '{x'; expected "
            "string literal");
  EXPECT_EQ(BasePromptFromPromptsFile("{\"a\":\"\xff\"}").error().message,
            "prompts file: line 1, column 7: invalid UTF-8 in a string (byte 0xFF)");
}

}  // namespace
}  // namespace llmconform::skill

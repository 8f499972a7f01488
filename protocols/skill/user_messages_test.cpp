#include "protocols/skill/user_messages.h"

#include <gtest/gtest.h>

namespace llmconform::skill {
namespace {

// Seed 000 §4.1 and §6.
TEST(BuildInitialUserPrompt, SeedExamples) {
  EXPECT_EQ(BuildInitialUserPrompt("git-quick-commit", {}, ""),
            "Execute skill: git-quick-commit\n\n[Step 1 of 100]");
  EXPECT_EQ(BuildInitialUserPrompt("deploy", {{"param1", "value1"}, {"param2", "value2"}}, ""),
            "Execute skill: deploy\n\nParameters:\n- param1: value1\n- param2: value2\n\n[Step 1 "
            "of 100]");
  EXPECT_EQ(BuildInitialUserPrompt("deploy", {{"param1", "value1"}}, "Задеплой на staging"),
            "Задеплой на staging\n\nParameters:\n- param1: value1\n\n[Step 1 of 100]");
}

TEST(BuildInitialUserPrompt, KeepsParameterOrderAndStepNumbers) {
  EXPECT_EQ(BuildInitialUserPrompt("s", {{"z", "1"}, {"a", ""}}, "", 3, 7),
            "Execute skill: s\n\nParameters:\n- z: 1\n- a: \n\n[Step 3 of 7]");
}

// Seed 000 §4.2–4.5.
TEST(FollowUpMessages, Templates) {
  EXPECT_EQ(CommandOutputMessage("M server/skills.js", 2, 100),
            "Command output:\nM server/skills.js\n\n[Step 2 of 100]");
  EXPECT_EQ(CommandSkippedMessage(4, 100), "User skipped the command.\n\n[Step 4 of 100]");
  EXPECT_EQ(UserResponseMessage("fix: update skills API", 3, 100),
            "User response: fix: update skills API\n\n[Step 3 of 100]");
  EXPECT_EQ(UserResponseMessage("", 5, 100), "User response: \n\n[Step 5 of 100]");
  EXPECT_EQ(ContinueMessage(6, 100), "[Continue after informational message]\n\n[Step 6 of 100]");
}

TEST(SplitUserMessage, RecognisesEachTemplate) {
  auto out = SplitUserMessage(CommandOutputMessage("a\nb", 12, 100));
  EXPECT_EQ(out.kind, UserMessageKind::kCommandOutput);
  EXPECT_EQ(out.payload, "a\nb");
  EXPECT_EQ(out.step, 12);
  EXPECT_EQ(out.max_steps, 100);
  EXPECT_EQ(SplitUserMessage(CommandSkippedMessage(2, 9)).kind, UserMessageKind::kCommandSkipped);
  auto answer = SplitUserMessage(UserResponseMessage("", 3, 9));
  EXPECT_EQ(answer.kind, UserMessageKind::kUserResponse);
  EXPECT_EQ(answer.payload, "");
  EXPECT_EQ(SplitUserMessage(ContinueMessage(4, 9)).kind, UserMessageKind::kContinue);
  auto first = SplitUserMessage(BuildInitialUserPrompt("s", {}, ""));
  EXPECT_EQ(first.kind, UserMessageKind::kOther);
  EXPECT_EQ(first.payload, "Execute skill: s");
  EXPECT_EQ(first.step, 1);
}

TEST(SplitUserMessage, MalformedMarkers) {
  for (const char* text :
       {"User skipped the command.", "User skipped the command.\n[Step 2 of 100]",
        "User skipped the command.\n\n[Step two of 100]",
        "User skipped the command.\n\n[Step 2 of 100] ", "\n\n[Step  of 1]"}) {
    auto parts = SplitUserMessage(text);
    EXPECT_FALSE(parts.step.has_value()) << text;
    EXPECT_FALSE(parts.max_steps.has_value()) << text;
  }
  EXPECT_EQ(SplitUserMessage("User skipped the command.\n\n[Step 2 of 100] ").kind,
            UserMessageKind::kOther);
}

}  // namespace
}  // namespace llmconform::skill

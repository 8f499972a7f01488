#include "protocols/skill/reply_rules.h"

#include <gtest/gtest.h>

namespace llmconform::skill {
namespace {

TEST(CheckReply, SeedRepliesConform) {
  for (const char* reply :
       {"[CMD] git status --porcelain", "[ASK] Введи сообщение коммита:",
        "[ASK:optional] Хочешь добавить тег? (оставь пустым для пропуска):",
        "[MESSAGE] Обрабатываю папку 1 из 3...", "[DONE] Коммит успешно создан: abc1234", "[DONE]",
        "[CMD] git add . && git commit -m \"fix: update skills API\"\n",
        "[ASK] First line\nsecond line of the question"}) {
    EXPECT_EQ(CheckReply(reply), Findings{}) << reply;
  }
}

TEST(CheckReply, TagAtPositionZero) {
  EXPECT_EQ(CheckReply("git status"),
            (Findings{{"SKILL-REPLY-1",
                       "reply starts with \"git status\": expected one of [CMD], [ASK], "
                       "[ASK:optional], [MESSAGE], [DONE] at position 0"}}));
  EXPECT_EQ(CheckReply(" [CMD] ls"),
            (Findings{{"SKILL-REPLY-1",
                       "reply starts with \" [CMD] ls\": expected one of [CMD], [ASK], "
                       "[ASK:optional], [MESSAGE], [DONE] at position 0"}}));
  EXPECT_EQ(CheckReply("").at(0).rule, "SKILL-REPLY-1");
  EXPECT_EQ(
      CheckReply("Sure!\n[CMD] ls\nlong explanation follows here, very long indeed").at(0).message,
      "reply starts with \"Sure!\\n[CMD] ls\\nlong explanation follows …\": expected one of "
      "[CMD], [ASK], [ASK:optional], [MESSAGE], [DONE] at position 0");
}

TEST(CheckReply, TagSpelling) {
  EXPECT_EQ(CheckReply("[cmd] ls"),
            (Findings{{"SKILL-REPLY-2", "tag spelled \"[cmd]\": expected \"[CMD]\""}}));
  EXPECT_EQ(
      CheckReply("[Ask:Optional] tag?"),
      (Findings{{"SKILL-REPLY-2", "tag spelled \"[Ask:Optional]\": expected \"[ASK:optional]\""}}));
}

TEST(CheckReply, OneFormatOnly) {
  EXPECT_EQ(CheckReply("[MESSAGE] Checking...\n[CMD] git status"),
            (Findings{{"SKILL-REPLY-3",
                       "reply holds 2 tags ([MESSAGE] on line 1, [CMD] on line 2): expected one "
                       "format per reply"}}));
  EXPECT_EQ(
      CheckReply("[ASK] q\r\n\r\n[done] x"),
      (Findings{{"SKILL-REPLY-3",
                 "reply holds 2 tags ([ASK] on line 1, [done] on line 3): expected one format "
                 "per reply"}}));
}

TEST(CheckReply, CommandAlone) {
  EXPECT_EQ(
      CheckReply("[CMD]\n```bash\ngit status\n```"),
      (Findings{{"SKILL-REPLY-4", "[CMD] reply holds a code fence: expected the bare command"}}));
  EXPECT_EQ(CheckReply("[CMD] ls -la\nThis lists the files."),
            (Findings{{"SKILL-REPLY-4",
                       "[CMD] reply runs over several lines (\"ls -la\\nThis lists the files.\"): "
                       "expected the command alone"}}));
}

TEST(CheckReply, TextAfterTheTag) {
  EXPECT_EQ(CheckReply("[ASK]"), (Findings{{"SKILL-REPLY-5", "[ASK] has no text after it"}}));
  EXPECT_EQ(CheckReply("[CMD]  \n"), (Findings{{"SKILL-REPLY-5", "[CMD] has no text after it"}}));
}

TEST(CheckReply, SeveralRulesAtOnce) {
  const Findings f = CheckReply("[cmd] ls\n[DONE]");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].rule, "SKILL-REPLY-2");
  EXPECT_EQ(f[1].rule, "SKILL-REPLY-3");
  EXPECT_EQ(f[2].rule, "SKILL-REPLY-4");
}

}  // namespace
}  // namespace llmconform::skill

#include "protocols/skill/response.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "protocols/skill/text.h"

namespace llmconform::skill {
namespace {

ParsedReply Cmd(std::string content, std::string command) {
  ParsedReply r;
  r.type = ReplyType::kCmd;
  r.content = std::move(content);
  r.command = std::move(command);
  return r;
}

ParsedReply Ask(std::string content, std::string question, bool required) {
  ParsedReply r;
  r.type = ReplyType::kAsk;
  r.content = std::move(content);
  r.question = std::move(question);
  r.required = required;
  return r;
}

ParsedReply Said(ReplyType type, std::string content, std::string message) {
  ParsedReply r;
  r.type = type;
  r.content = std::move(content);
  r.message = std::move(message);
  return r;
}

ParsedReply Unknown(std::string content) {
  ParsedReply r;
  r.type = ReplyType::kUnknown;
  r.content = std::move(content);
  r.error = "Empty or invalid AI response";
  return r;
}

// Seed 000 §5.1–5.6, example by example.
TEST(ParseSkillResponse, SeedExamples) {
  EXPECT_EQ(ParseSkillResponse("[CMD] git status --porcelain"),
            Cmd("[CMD] git status --porcelain", "git status --porcelain"));
  EXPECT_EQ(ParseSkillResponse("[ASK] Введи сообщение коммита:"),
            Ask("[ASK] Введи сообщение коммита:", "Введи сообщение коммита:", true));
  EXPECT_EQ(ParseSkillResponse("[ASK:optional] Хочешь добавить тег? (оставь пустым для пропуска):"),
            Ask("[ASK:optional] Хочешь добавить тег? (оставь пустым для пропуска):",
                "Хочешь добавить тег? (оставь пустым для пропуска):", false));
  EXPECT_EQ(ParseSkillResponse("[MESSAGE] Обрабатываю папку 1 из 3..."),
            Said(ReplyType::kMessage, "[MESSAGE] Обрабатываю папку 1 из 3...",
                 "Обрабатываю папку 1 из 3..."));
  EXPECT_EQ(ParseSkillResponse("[DONE] Коммит успешно создан: abc1234"),
            Said(ReplyType::kDone, "[DONE] Коммит успешно создан: abc1234",
                 "Коммит успешно создан: abc1234"));
  EXPECT_EQ(ParseSkillResponse("git log --oneline -5\nThis shows the last commits."),
            Cmd("[CMD] git log --oneline -5", "git log --oneline -5"));
}

TEST(ParseSkillResponse, TrimsTheReplyAndTheCapture) {
  EXPECT_EQ(ParseSkillResponse("\n  [CMD]   ls -la   \n"), Cmd("[CMD]   ls -la", "ls -la"));
  EXPECT_EQ(ParseSkillResponse("[ASK]  Which branch?  \n\n"),
            Ask("[ASK]  Which branch?", "Which branch?", true));
}

TEST(ParseSkillResponse, DoneWithoutTextIsSkillCompleted) {
  EXPECT_EQ(ParseSkillResponse("[DONE]"), Said(ReplyType::kDone, "[DONE]", "Skill completed"));
  EXPECT_EQ(ParseSkillResponse("[DONE]   \n"), Said(ReplyType::kDone, "[DONE]", "Skill completed"));
}

TEST(ParseSkillResponse, TagsAreCaseInsensitive) {
  EXPECT_EQ(ParseSkillResponse("[cmd] pwd"), Cmd("[cmd] pwd", "pwd"));
  EXPECT_EQ(ParseSkillResponse("[ask:OPTIONAL] Tag?"), Ask("[ask:OPTIONAL] Tag?", "Tag?", false));
  EXPECT_EQ(ParseSkillResponse("[Message] hi"), Said(ReplyType::kMessage, "[Message] hi", "hi"));
  EXPECT_EQ(ParseSkillResponse("[done] ok"), Said(ReplyType::kDone, "[done] ok", "ok"));
}

TEST(ParseSkillResponse, TagsAtTheStartOfAnyLine) {
  EXPECT_EQ(ParseSkillResponse("Sure, here it is:\n[CMD] ls"),
            Cmd("Sure, here it is:\n[CMD] ls", "ls"));
  EXPECT_EQ(ParseSkillResponse("note\r[CMD] pwd"), Cmd("note\r[CMD] pwd", "pwd"));
  // Not at a line start: no tag, so the first line is the command.
  EXPECT_EQ(ParseSkillResponse("run [CMD] ls"), Cmd("[CMD] run [CMD] ls", "run [CMD] ls"));
}

TEST(ParseSkillResponse, CmdTakesTheRestOfItsLineAfterBlankLines) {
  EXPECT_EQ(ParseSkillResponse("[CMD]\n\n  git log -1  \nexplanation"),
            Cmd("[CMD]\n\n  git log -1  \nexplanation", "git log -1"));
  EXPECT_EQ(ParseSkillResponse("[CMD] ls -la\r\nmore"), Cmd("[CMD] ls -la\r\nmore", "ls -la"));
}

TEST(ParseSkillResponse, OthersTakeEverythingToTheEnd) {
  EXPECT_EQ(ParseSkillResponse("[ASK] Line one\nLine two"),
            Ask("[ASK] Line one\nLine two", "Line one\nLine two", true));
  EXPECT_EQ(ParseSkillResponse("[MESSAGE] m\n[DONE] d"),
            Said(ReplyType::kMessage, "[MESSAGE] m\n[DONE] d", "m\n[DONE] d"));
}

TEST(ParseSkillResponse, PriorityOrder) {
  EXPECT_EQ(ParseSkillResponse("[ASK] q1\n[ASK:optional] q2"),
            Ask("[ASK] q1\n[ASK:optional] q2", "q2", false));
  EXPECT_EQ(ParseSkillResponse("[DONE] finished\n[CMD] rm -rf build"),
            Cmd("[DONE] finished\n[CMD] rm -rf build", "rm -rf build"));
  EXPECT_EQ(ParseSkillResponse("[CMD] a\n[CMD] b"), Cmd("[CMD] a\n[CMD] b", "a"));
}

// docs/protocols.md: the public implementation yields an empty command here.
TEST(ParseSkillResponse, FencedCommandYieldsTheFenceContent) {
  EXPECT_EQ(ParseSkillResponse("[CMD]\n```bash\ngit status\n```"),
            Cmd("[CMD]\n```bash\ngit status\n```", "git status"));
  EXPECT_EQ(ParseSkillResponse("[CMD] ```sh\ncd repo && \\\n  git pull\n```\nDone."),
            Cmd("[CMD] ```sh\ncd repo && \\\n  git pull\n```\nDone.", "cd repo && \\\n  git pull"));
  EXPECT_EQ(ParseSkillResponse("[CMD] ```ls -la```"), Cmd("[CMD] ```ls -la```", "ls -la"));
  EXPECT_EQ(ParseSkillResponse("[CMD] ls```"), Cmd("[CMD] ls```", "ls"));
  EXPECT_EQ(ParseSkillResponse("[CMD]\n```\nuname -a"), Cmd("[CMD]\n```\nuname -a", "uname -a"));
  EXPECT_EQ(ParseSkillResponse("```bash\ndf -h\n```"), Cmd("[CMD] df -h", "df -h"));
}

// Issue 18: a line starting with a tag ends a fence never closed.
TEST(ParseSkillResponse, TagLineEndsAnUnclosedFence) {
  EXPECT_EQ(ParseSkillResponse("[CMD]\n```bash\nnpm test\n\n[DONE] ok"),
            Cmd("[CMD]\n```bash\nnpm test\n\n[DONE] ok", "npm test"));
  EXPECT_EQ(ParseSkillResponse("[CMD] ```\nmake\n[message] building"),
            Cmd("[CMD] ```\nmake\n[message] building", "make"));
  // Inside a closed fence nothing is a tag: the fence holds what it holds.
  EXPECT_EQ(ParseSkillResponse("[CMD]\n```\necho \"[DONE]\"\n```"),
            Cmd("[CMD]\n```\necho \"[DONE]\"\n```", "echo \"[DONE]\""));
}

// Judgement call (docs/decisions.md): a one-line fence has no info string.
TEST(ParseSkillResponse, OneLineFenceKeepsItsFirstWord) {
  EXPECT_EQ(ParseSkillResponse("[CMD] ```bash ls -la```"),
            Cmd("[CMD] ```bash ls -la```", "bash ls -la"));
  EXPECT_EQ(ParseSkillResponse("[CMD] ```bash deploy.sh```"),
            Cmd("[CMD] ```bash deploy.sh```", "bash deploy.sh"));
}

// Issue 18: Unicode white space (and the BOM) is trimmed wherever text is.
TEST(ParseSkillResponse, TrimsUnicodeWhiteSpace) {
  EXPECT_EQ(ParseSkillResponse("\ufeff[DONE] Готово!"),
            Said(ReplyType::kDone, "[DONE] Готово!", "Готово!"));
  EXPECT_EQ(ParseSkillResponse("[CMD]\u00a0ls -la"), Cmd("[CMD]\u00a0ls -la", "ls -la"));
  EXPECT_EQ(ParseSkillResponse("\u3000"), Unknown(""));
  EXPECT_EQ(ParseSkillResponse("\u00a0\u2003[ASK]\u3000Имя?\u00a0\r\n"),
            Ask("[ASK]\u3000Имя?", "Имя?", true));
  EXPECT_EQ(ParseSkillResponse("[CMD]\u3000\n\u00a0\ngit status\u00a0"),
            Cmd("[CMD]\u3000\n\u00a0\ngit status", "git status"));
  EXPECT_EQ(ParseSkillResponse("[DONE]\u00a0"),
            Said(ReplyType::kDone, "[DONE]", "Skill completed"));
  EXPECT_EQ(ParseSkillResponse("[CMD]\u2028"), Unknown("[CMD]"));
  // A look-alike that is not white space stays: U+200B ZERO WIDTH SPACE.
  EXPECT_EQ(ParseSkillResponse("\u200b[DONE] x"), Cmd("[CMD] \u200b[DONE] x", "\u200b[DONE] x"));
}

TEST(ParseSkillResponse, UnknownForEmptyRepliesAndCommands) {
  EXPECT_EQ(ParseSkillResponse(""), Unknown(""));
  EXPECT_EQ(ParseSkillResponse(" \n\t "), Unknown(""));
  EXPECT_EQ(ParseSkillResponse("[CMD]\n```\n```"), Unknown("[CMD]\n```\n```"));
  EXPECT_EQ(ParseSkillResponse("```"), Unknown("```"));
}

TEST(ParseSkillResponse, BareTagIsNotACommand) {
  EXPECT_EQ(ParseSkillResponse("[ASK]"), Unknown("[ASK]"));
  EXPECT_EQ(ParseSkillResponse("[cmd]  "), Unknown("[cmd]"));
  EXPECT_EQ(ParseSkillResponse("[ASK:optional]"), Unknown("[ASK:optional]"));
  // A bare [CMD] on a later line leaves the first line as the command.
  EXPECT_EQ(ParseSkillResponse("ls\n[CMD]"), Cmd("[CMD] ls", "ls"));
}

TEST(ParseSkillResponse, ReportsTheStepsThatDecided) {
  ParseTrace trace;
  auto has = [&](std::string_view reply, std::initializer_list<ParseStep> steps) {
    ParseSkillResponse(reply, trace);
    std::uint16_t want = 0;
    for (ParseStep s : steps) want |= static_cast<std::uint16_t>(1U << static_cast<unsigned>(s));
    return trace.steps == want;
  };
  EXPECT_TRUE(has("[CMD] ls", {ParseStep::kCmdTag}));
  EXPECT_TRUE(has("Checking.\n[cmd] ls",
                  {ParseStep::kCmdTag, ParseStep::kTagCase, ParseStep::kTagLaterLine}));
  EXPECT_TRUE(has("[CMD]\n```bash\nnpm test\n```", {ParseStep::kCmdTag, ParseStep::kFence}));
  EXPECT_TRUE(has("[ASK] Which?", {ParseStep::kAskTag}));
  EXPECT_TRUE(has("[ASK:optional] Which?", {ParseStep::kAskOptionalTag}));
  EXPECT_TRUE(has("[MESSAGE] hi", {ParseStep::kMessageTag}));
  EXPECT_TRUE(has("[DONE]", {ParseStep::kDoneTag}));
  EXPECT_TRUE(has("git status", {ParseStep::kNoTag}));
  EXPECT_TRUE(has("", {ParseStep::kUnknown}));
  EXPECT_TRUE(has("[ASK]", {ParseStep::kUnknown}));
  EXPECT_EQ(ParseStepName(ParseStep::kTagCase), "tag-case");
  EXPECT_EQ(ParseStepRule(ParseStep::kFence), "SKILL-PARSE-8");
  // The trace changes nothing of the result.
  EXPECT_EQ(ParseSkillResponse("Checking.\n[cmd] ls", trace),
            ParseSkillResponse("Checking.\n[cmd] ls"));
}

TEST(ParseSkillResponse, ResultObjects) {
  EXPECT_EQ(ToJson(ParseSkillResponse("[CMD] ls")).dump(),
            R"({"command":"ls","content":"[CMD] ls","type":"CMD"})");
  EXPECT_EQ(ToJson(ParseSkillResponse("[ASK:optional] q")).dump(),
            R"({"content":"[ASK:optional] q","question":"q","required":false,"type":"ASK"})");
  EXPECT_EQ(ToJson(ParseSkillResponse("[MESSAGE] m")).dump(),
            R"({"content":"[MESSAGE] m","message":"m","type":"MESSAGE"})");
  EXPECT_EQ(ToJson(ParseSkillResponse("[DONE]")).dump(),
            R"({"content":"[DONE]","message":"Skill completed","type":"DONE"})");
  EXPECT_EQ(ToJson(ParseSkillResponse("")).dump(),
            R"({"content":"","error":"Empty or invalid AI response","type":"UNKNOWN"})");
}

RC_GTEST_PROP(ParseSkillResponseProperties, AnyInputGivesAWellFormedResult,
              (const std::string& reply)) {
  const ParsedReply r = ParseSkillResponse(reply);
  switch (r.type) {
    case ReplyType::kCmd:
      RC_ASSERT(!r.command.empty());
      RC_ASSERT(r.command == std::string(Trim(r.command)));
      break;
    case ReplyType::kAsk:
      RC_ASSERT(!r.question.empty());
      RC_ASSERT(r.content == std::string(Trim(reply)));
      break;
    case ReplyType::kMessage:
    case ReplyType::kDone:
      RC_ASSERT(!r.message.empty());
      RC_ASSERT(r.content == std::string(Trim(reply)));
      break;
    case ReplyType::kUnknown:
      RC_ASSERT(r.error == std::string(kEmptyReplyError));
      RC_ASSERT(r.content == std::string(Trim(reply)));
      break;
  }
  // Parsing is a function of the trimmed reply.
  RC_ASSERT(ParseSkillResponse(Trim(reply)) == r);
}

// Text that cannot hold a tag or a fence: no '[' and no '`'.
rc::Gen<std::string> PlainText(bool one_line) {
  return rc::gen::suchThat(
      rc::gen::container<std::string>(rc::gen::oneOf(
          rc::gen::elementOf(std::string("abcxyzABC019 -_./:;?!\"'$&|>~")),
          one_line ? rc::gen::just(' ') : rc::gen::elementOf(std::string(" \n\t\r")),
          rc::gen::elementOf(std::string("\xd0\xb0\xd0\xb1")),  // bytes of Cyrillic letters
          rc::gen::elementOf(std::string("\xc2\xa0")))),        // NBSP's bytes, alone or whole
      [](const std::string& s) { return !Trim(s).empty(); });
}

std::string RandomCase(std::string tag, const std::vector<bool>& upper) {
  for (std::size_t i = 0; i < tag.size() && i < upper.size(); ++i) {
    tag[i] = upper[i] ? static_cast<char>(std::toupper(static_cast<unsigned char>(tag[i])))
                      : static_cast<char>(std::tolower(static_cast<unsigned char>(tag[i])));
  }
  return tag;
}

RC_GTEST_PROP(ParseSkillResponseProperties, TagAndTextParseBackToTheText, ()) {
  const auto tag =
      *rc::gen::element<std::string>("[CMD]", "[ASK:optional]", "[ASK]", "[MESSAGE]", "[DONE]");
  const auto cased =
      RandomCase(tag, *rc::gen::container<std::vector<bool>>(rc::gen::arbitrary<bool>()));
  const auto gap = *rc::gen::element<std::string>("", " ", "  ", "\n", " \n\n ", "\t", "\u00a0",
                                                  "\u3000\n", "\ufeff");
  const auto text = *PlainText(tag == "[CMD]");
  const auto lead = *rc::gen::element<std::string>("", "\n", "  ", "\ufeff", "\u00a0\u3000");
  const ParsedReply r = ParseSkillResponse(lead + cased + gap + text);
  const std::string want(Trim(text));
  if (tag == "[CMD]") {
    RC_ASSERT(r.type == ReplyType::kCmd);
    RC_ASSERT(r.command == want);
  } else if (tag == "[ASK:optional]" || tag == "[ASK]") {
    RC_ASSERT(r.type == ReplyType::kAsk);
    RC_ASSERT(r.question == want);
    RC_ASSERT(r.required == (tag == "[ASK]"));
  } else {
    RC_ASSERT(r.type == (tag == "[DONE]" ? ReplyType::kDone : ReplyType::kMessage));
    RC_ASSERT(r.message == want);
  }
  RC_ASSERT(r.content == std::string(Trim(cased + gap + text)));
}

// A fence never closed holds the lines up to the next line that starts with a tag.
RC_GTEST_PROP(ParseSkillResponseProperties, UnclosedFenceStopsAtATagLine, ()) {
  const auto command = *PlainText(true);
  const auto info = *rc::gen::element<std::string>("", "bash", "sh ");
  const auto tag = *rc::gen::element<std::string>("[CMD] x", "[ASK] q", "[message] m", "[DONE]");
  const auto blank = *rc::gen::element<std::string>("", "\n", "\u00a0\n");
  const ParsedReply r =
      ParseSkillResponse("[CMD]\n```" + info + "\n" + command + "\n" + blank + tag + "\nmore");
  RC_ASSERT(r.type == ReplyType::kCmd);
  RC_ASSERT(r.command == std::string(Trim(command)));
}

}  // namespace
}  // namespace llmconform::skill

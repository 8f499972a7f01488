#include "protocols/thinkingml/thinkingml.h"

#include <gtest/gtest.h>

#include "base/format.h"

namespace llmconform::thinkingml {
namespace {

using V = std::vector<std::string>;

// "RULE@line:column" for each finding, in order.
V Where(const Validation& v) {
  V out;
  for (const auto& f : v.findings)
    out.push_back(Format("{}@{}:{}", f.rule, f.position.line, f.position.column));
  return out;
}

constexpr std::string_view kQueries =
    "<!-- <serp_queries>\n[\"三分化训练计划怎么安排\",\"三分化训练动作选择\"]\n</serp_queries> -->";

std::string Doc(std::string_view thinking_body, std::string_view final_body = "# 方案\n- 推拉腿") {
  return Format("<thinking>\n{}\n</thinking>\n<final>\n{}\n{}\n</final>", thinking_body, final_body,
                kQueries);
}

constexpr std::string_view kTwoPhases =
    "  <phase id=\"1\">\n    <title>理解需求</title>\n    用户要三分化。\n  </phase>\n"
    "  <phase id=\"2\">\n    <title>规划输出</title>\n    给出方案。\n  </phase>";

TEST(Validate, AcceptsTheSeedExampleAndReturnsItsParts) {
  const Validation v = Validate(Doc(kTwoPhases));
  EXPECT_TRUE(v.valid) << (v.findings.empty() ? "" : v.findings[0].message);
  EXPECT_TRUE(v.findings.empty());
  EXPECT_FALSE(v.parts.think);
  EXPECT_FALSE(v.parts.serp);
  EXPECT_EQ(v.parts.phases,
            (std::vector<Phase>{{1, "理解需求", "用户要三分化。"}, {2, "规划输出", "给出方案。"}}));
  EXPECT_EQ(v.parts.final_content, "# 方案\n- 推拉腿");
  EXPECT_EQ(v.parts.queries, (V{"三分化训练计划怎么安排", "三分化训练动作选择"}));
}

// The parts are views: into the caller's text when it is passed as a view,
// into the Validation's own copy when the text is handed over, and they stay
// valid in copies of the Validation after the original is gone.
TEST(Validate, PartsViewTheCallersTextWithoutCopying) {
  const std::string reply = Doc(kTwoPhases);
  const Validation v = Validate(std::string_view(reply));
  ASSERT_TRUE(v.parts.final_content);
  const char* begin = reply.data();
  const char* end = begin + reply.size();
  EXPECT_GE(v.parts.final_content->data(), begin);
  EXPECT_LE(v.parts.final_content->data() + v.parts.final_content->size(), end);
  EXPECT_GE(v.parts.phases.at(1).title.data(), begin);
  EXPECT_FALSE(v.owned_reply);
}

TEST(Validate, PartsOfAHandedOverTextOutliveItsSourceAndTheOriginal) {
  std::optional<Validation> copy;
  {
    std::string reply = Doc(kTwoPhases);
    const Validation v = Validate(std::move(reply));
    reply.assign(reply.capacity(), 'x');  // scribble over whatever is left
    copy = v;
  }
  EXPECT_TRUE(copy->owned_reply);
  EXPECT_EQ(copy->parts.phases.at(0).title, "理解需求");
  EXPECT_EQ(copy->parts.final_content, "# 方案\n- 推拉腿");
}

TEST(Validate, ANullCStringIsAnEmptyReply) {
  const char* none = nullptr;
  EXPECT_EQ(Where(Validate(none)), (V{"TML-1.5@1:1", "TML-1.6@1:1"}));
}

TEST(Validate, JoinedFinalContentIsOwnedByTheValidation) {
  // Text after the serp_queries block (TML-4.1): the final content is the
  // text around the block, joined.
  const std::string misplaced =
      Format("<thinking>\n{}\n</thinking>\n<final>\n答案\n{}\n补充</final>", kTwoPhases, kQueries);
  std::optional<Validation> copy;
  {
    const Validation v = Validate(std::string_view(misplaced));
    copy = v;
  }
  EXPECT_EQ(Where(*copy), (V{"TML-4.1@13:1"}));
  EXPECT_TRUE(copy->owned_final);
  EXPECT_EQ(copy->parts.final_content, "答案\n\n补充");
}

TEST(Validate, AcceptsThinkAndSerpBeforeThinking) {
  const Validation v =
      Validate("<think>草稿</think>\n<serp>三分化 训练</serp>\n" + Doc(kTwoPhases));
  EXPECT_TRUE(v.valid) << (v.findings.empty() ? "" : v.findings[0].message);
  EXPECT_EQ(v.parts.think, "草稿");
  EXPECT_EQ(v.parts.serp, "三分化 训练");
}

TEST(Validate, FinalHoldsMarkdownThatIsNotXml) {
  const Validation v = Validate(Doc(kTwoPhases,
                                    "R&D 团队：若 a < b 且 x<3，则 **加重**。\n```python\nif a < "
                                    "b: print('&')\n```\n> 引用 &amp;"));
  EXPECT_TRUE(v.valid) << (v.findings.empty() ? "" : v.findings[0].message);
  EXPECT_EQ(v.parts.final_content,
            "R&D 团队：若 a < b 且 x<3，则 **加重**。\n```python\nif a < b: print('&')\n```\n> "
            "引用 &amp;");
}

TEST(Validate, AcceptsAnEmptyQueryListAndEscapedFinalLiterals) {
  const std::string reply =
      "<thinking><phase id=\"1\"><title>t</title>写进 &lt;final&gt; 里</phase></thinking>"
      "<final>你好\n<!-- <serp_queries>\n[]\n</serp_queries> --></final>";
  const Validation v = Validate(reply);
  EXPECT_TRUE(v.valid) << (v.findings.empty() ? "" : v.findings[0].message);
  EXPECT_EQ(v.parts.queries, V{});
  EXPECT_EQ(v.parts.phases[0].text, "写进 &lt;final&gt; 里");
}

TEST(Validate, ReportsAForbiddenTagWithItsPosition) {
  const Validation v = Validate(Doc(kTwoPhases, "换行<br>加粗"));
  EXPECT_EQ(Where(v), (V{"TML-2.1@12:3"}));
  EXPECT_EQ(v.findings[0].message,
            "tag \"<br>\" is not allowed; only <think>, <serp>, <thinking>, <phase id=\"N\">, "
            "<title> and <final> "
            "may appear");
  EXPECT_FALSE(v.valid);
}

TEST(Validate, TagNamesAreCaseSensitive) {
  const Validation v = Validate(Doc("<phase id=\"1\"><Title>t</Title>x</phase>"));
  EXPECT_EQ(Where(v), (V{"TML-3.3@2:1", "TML-2.1@2:15", "TML-3.4@2:22", "TML-2.1@2:23"}));
  EXPECT_EQ(v.findings[1].message,
            "tag \"<Title>\" is not allowed (tag names are case-sensitive: <title>); only <think>, "
            "<serp>, "
            "<thinking>, <phase id=\"N\">, <title> and <final> may appear");
}

TEST(Validate, PhaseIdsMustCountFromOne) {
  const Validation v = Validate(
      Doc("<phase id=\"1\"><title>a</title>x</phase>\n<phase id=\"3\"><title>b</title>y</phase>"));
  EXPECT_EQ(Where(v), (V{"TML-3.2@3:1"}));
  EXPECT_EQ(v.findings[0].message, "phase id 3 where 2 was expected; ids go 1, 2, 3, … in order");
  EXPECT_EQ(v.parts.phases.size(), 2u);
  EXPECT_EQ(v.parts.phases[1].id, 3);
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"2\"><title>a</title>x</phase>"))), (V{"TML-3.2@2:1"}));
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"0\"><title>a</title>x</phase>"))), (V{"TML-3.2@2:1"}));
}

TEST(Validate, PhaseNeedsExactlyTheIdAttribute) {
  EXPECT_EQ(Where(Validate(Doc("<phase><title>a</title>x</phase>"))), (V{"TML-2.2@2:1"}));
  EXPECT_EQ(Where(Validate(Doc("<phase id='1'><title>a</title>x</phase>"))), (V{"TML-2.2@2:1"}));
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"one\"><title>a</title>x</phase>"))),
            (V{"TML-2.2@2:1"}));
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"1\" kind=\"x\"><title>a</title>x</phase>"))),
            (V{"TML-2.2@2:1"}));
  EXPECT_TRUE(Validate(Doc("<phase  id = \"1\" ><title>a</title>x</phase>")).valid);
  const Validation v = Validate(Doc("<phase id=1><title>a</title>x</phase>"));
  EXPECT_EQ(v.findings[0].message,
            "<phase> must carry exactly the attribute id=\"N\" with N a positive integer in double "
            "quotes; the value "
            "is not in double quotes in \"<phase id=1>\"");
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"1\"><title>a</title>x</phase>", "ok")
                               .replace(0, 10, "<thinking x=\"1\">"))),
            (V{"TML-2.2@1:1"}));
}

TEST(Validate, EachPhaseStartsWithExactlyOneTitle) {
  const Validation missing = Validate(Doc("<phase id=\"1\">只有文本</phase>"));
  EXPECT_EQ(Where(missing), (V{"TML-3.3@2:1", "TML-3.4@2:15"}));
  EXPECT_EQ(missing.findings[0].message,
            "the <phase> opened at 2:1 has no <title>; exactly one is required");
  EXPECT_EQ(missing.findings[1].message,
            "text \"只有文本\" before the <title> of the <phase> opened at 2:1; a phase starts "
            "with its <title>");
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"1\"><title>a</title><title>b</title>x</phase>"))),
            (V{"TML-3.3@2:31"}));
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"1\">先说<title>a</title>x</phase>"))),
            (V{"TML-3.4@2:15"}));
}

TEST(Validate, ThinkingHoldsPhasesOnly) {
  EXPECT_EQ(Where(Validate(Doc("闲话\n<phase id=\"1\"><title>a</title>x</phase>"))),
            (V{"TML-3.6@2:1"}));
  EXPECT_EQ(Where(Validate(Doc(""))), (V{"TML-3.1@1:1"}));
  EXPECT_EQ(Where(Validate(Doc("<title>a</title>"))), (V{"TML-3.1@1:1", "TML-3.6@2:1"}));
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"1\"><title>a</title>x<think>y</think></phase>"))),
            (V{"TML-3.5@2:32"}));
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"1\"><title>a<serp>b</serp></title>x</phase>"))),
            (V{"TML-3.7@2:23"}));
}

TEST(Validate, BlocksComeInOrderAndOnce) {
  const std::string body = Doc(kTwoPhases);
  EXPECT_EQ(Where(Validate("<serp>s</serp><think>t</think>" + body)), (V{"TML-1.2@1:15"}));
  EXPECT_EQ(Where(Validate(body + "<serp>s</serp>")), (V{"TML-1.2@17:9"}));
  EXPECT_EQ(Where(Validate("<think>a</think><think>b</think>" + body)), (V{"TML-1.3@1:17"}));
  EXPECT_EQ(Where(Validate("<serp>a</serp><serp>b</serp>" + body)), (V{"TML-1.4@1:15"}));
  EXPECT_EQ(Where(Validate("<final>x\n<!-- <serp_queries>\n[]\n</serp_queries> --></final>")),
            (V{"TML-1.5@4:28"}));
  EXPECT_EQ(Where(Validate("<thinking><phase id=\"1\"><title>a</title>x</phase></thinking>")),
            (V{"TML-1.6@1:61"}));
}

TEST(Validate, AfterThinkingComesFinalAndNothingAfterIt) {
  const std::string thinking = "<thinking><phase id=\"1\"><title>a</title>x</phase></thinking>";
  const std::string final_block = "<final>ok\n<!-- <serp_queries>\n[]\n</serp_queries> --></final>";
  const Validation between = Validate(thinking + "\n说明\n" + final_block);
  EXPECT_EQ(Where(between), (V{"TML-1.7@2:1"}));
  EXPECT_EQ(between.findings[0].message,
            "</thinking> at 1:50 is followed by text \"说明\n\"; <final> must come right after it");
  EXPECT_EQ(Where(Validate(thinking + "<think>t</think>" + final_block)),
            (V{"TML-1.2@1:61", "TML-1.7@1:77"}));
  const Validation after = Validate(thinking + final_block + "\n谢谢");
  EXPECT_EQ(Where(after), (V{"TML-1.9@5:1"}));
  EXPECT_EQ(after.findings[0].message,
            "text after </final>: \"谢谢\"; nothing may follow the <final> block");
  EXPECT_EQ(Where(Validate("前言\n" + thinking + final_block)), (V{"TML-1.8@1:1"}));
  EXPECT_TRUE(Validate("\n  " + thinking + "\n\n" + final_block + "\n\n").valid);
}

TEST(Validate, FinalLiteralsInsideThinkingAreReported) {
  const Validation v =
      Validate(Doc("<phase id=\"1\"><title>a</title>答案放 <final> 里，以 </final> 结束</phase>"));
  EXPECT_EQ(Where(v), (V{"TML-1.11@2:35", "TML-1.11@2:47"}));
  EXPECT_EQ(
      v.findings[0].message,
      "<final> inside <thinking>; escape the literal as &lt;final&gt; or close </thinking> first");
}

TEST(Validate, TagsInsidePlainTextBlocks) {
  EXPECT_EQ(Where(Validate("<think>a<title>b</title></think>" + Doc(kTwoPhases))),
            (V{"TML-1.10@1:9"}));
  EXPECT_EQ(Where(Validate(Doc(kTwoPhases, "<phase id=\"1\">x</phase>"))), (V{"TML-1.10@12:1"}));
  EXPECT_EQ(Where(Validate("<phase id=\"1\"><title>a</title>x</phase>" + Doc(kTwoPhases))),
            (V{"TML-1.2@1:1"}));
}

TEST(Validate, UnbalancedTags) {
  const Validation v = Validate(Doc("<phase id=\"1\"><title>a</title>x"));
  EXPECT_EQ(Where(v), (V{"TML-1.1@2:1"}));
  EXPECT_EQ(v.findings[0].message, "<phase> opened at 2:1 is not closed before </thinking> at 3:1");
  EXPECT_EQ(Where(Validate(Doc("<phase id=\"1\"><title>a</title>x</phase></phase>"))),
            (V{"TML-1.1@2:40"}));
  const Validation eof = Validate("<thinking><phase id=\"1\"><title>a</title>x</phase>");
  EXPECT_EQ(Where(eof), (V{"TML-1.1@1:1", "TML-1.6@1:50"}));
  EXPECT_EQ(eof.findings[0].message, "<thinking> opened at 1:1 is never closed");
}

TEST(Validate, SerpQueriesBlockRules) {
  const std::string thinking = "<thinking><phase id=\"1\"><title>a</title>x</phase></thinking>\n";
  const Validation missing = Validate(thinking + "<final>答案</final>");
  EXPECT_EQ(Where(missing), (V{"TML-4.1@2:10"}));
  EXPECT_EQ(missing.findings[0].message,
            "<final> does not end with the <!-- <serp_queries> … </serp_queries> --> block");
  EXPECT_EQ(Where(Validate(thinking +
                           "<final>答案\n<!-- <serp_queries>[\"a\"]</serp_queries> --></final>")),
            (V{"TML-4.2@3:1"}));
  EXPECT_EQ(
      Where(Validate(thinking +
                     "<final>答案\n<!-- <serp_queries>\n[]\n</serp_queries> -->\n补充</final>")),
      (V{"TML-4.1@3:1"}));
  const Validation six = Validate(
      thinking +
      "<final>答案\n<!-- <serp_queries>\n[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\"]\n</serp_queries> "
      "--></final>");
  EXPECT_EQ(Where(six), (V{"TML-4.4@4:1"}));
  EXPECT_EQ(six.parts.queries->size(), 6u);
  EXPECT_EQ(Where(Validate(
                thinking +
                "<final>答案\n<!-- <serp_queries>\n[\"问 a@b.cn\"]\n</serp_queries> --></final>")),
            (V{"TML-4.7@4:1"}));
  EXPECT_EQ(
      Validate(thinking + "<final>答案\n<!-- <serp_queries>\n[\"x\"]\n</serp_queries> --></final>")
          .parts.final_content,
      "答案");
}

// Issue 18: every serp_queries block is judged, and a second one is a finding.
TEST(Validate, EverySerpQueriesBlockIsChecked) {
  const std::string thinking = "<thinking><phase id=\"1\"><title>a</title>x</phase></thinking>\n";
  const std::string good = "<!-- <serp_queries>\n[\"三分化\"]\n</serp_queries> -->";
  const Validation email =
      Validate(thinking +
               "<final>答案\n<!-- <serp_queries>\n[\"coach@example.com\"]\n</serp_queries> -->\n" +
               good + "</final>");
  EXPECT_EQ(Where(email), (V{"TML-4.7@4:1", "TML-4.8@6:1"}));
  EXPECT_EQ(email.findings[1].message,
            "a second serp_queries block; the one at 3:1 came first, and <final> holds one");
  EXPECT_EQ(email.parts.queries, (std::vector<std::string>{"三分化"}));
  EXPECT_EQ(
      Where(Validate(thinking +
                     "<final>答案\n<!-- <serp_queries>\n[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\"]\n"
                     "</serp_queries> -->\n" +
                     good + "</final>")),
      (V{"TML-4.4@4:1", "TML-4.8@6:1"}));
  // Two good blocks: only the second is a finding; a sloppy first one too.
  EXPECT_EQ(Where(Validate(thinking + "<final>答案\n" + good + "\n" + good + "</final>")),
            (V{"TML-4.8@6:1"}));
  EXPECT_EQ(Where(Validate(thinking + "<final><!-- serp_queries [] -->\n" + good + "\n" + good +
                           "</final>")),
            (V{"TML-4.2@2:8", "TML-4.8@3:1", "TML-4.8@6:1"}));
  // A comment that does not mention serp_queries is no block.
  EXPECT_TRUE(Validate(thinking + "<final>答案 <!-- note -->\n" + good + "</final>").valid);
}

// Judgement calls (docs/decisions.md): CRLF between blocks is XML white space;
// Unicode spaces between blocks are text; CRLF in the serp_queries block breaks
// its exact form; Markdown autolinks and generics in <final> read as tags.
TEST(Validate, JudgementCallsOnSpacesAndAngleBrackets) {
  const std::string thinking = "<thinking><phase id=\"1\"><title>a</title>x</phase></thinking>";
  const std::string block = "<!-- <serp_queries>\n[]\n</serp_queries> -->";
  EXPECT_TRUE(Validate(thinking + "\r\n<final>答案\r\n" + block + "\r\n</final>\r\n").valid);
  EXPECT_EQ(Where(Validate(thinking + "\u3000<final>答案\n" + block + "</final>")),
            (V{"TML-1.7@1:61"}));
  EXPECT_EQ(Where(Validate("\ufeff" + thinking + "<final>答案\n" + block + "</final>")),
            (V{"TML-1.8@1:1"}));
  EXPECT_EQ(Where(Validate(thinking + "<final>答案\r\n<!-- <serp_queries>\r\n[]\r\n</serp_queries> "
                                      "-->\r\n</final>")),
            (V{"TML-4.2@2:1"}));
  EXPECT_EQ(Where(Validate(thinking + "<final>见 <https://example.com>\n" + block + "</final>")),
            (V{"TML-2.1@1:70"}));
  EXPECT_EQ(Where(Validate(thinking + "<final>用 `Map<K, V>`\n" + block + "</final>")),
            (V{"TML-2.1@1:74"}));
}

TEST(Validate, ParsingErrorAloneIsOneFinding) {
  const Validation v = Validate("\n<<ParsingError>>\n");
  EXPECT_EQ(Where(v), (V{"TML-5.1@2:1"}));
  EXPECT_EQ(v.findings[0].message,
            "the reply is <<ParsingError>>: the model reported that it could not produce a valid "
            "ThinkingML reply");
  EXPECT_EQ(Where(Validate(Doc(kTwoPhases, "<<ParsingError>>"))), (V{"TML-2.3@12:1"}));
}

TEST(Validate, ReportsEveryViolationNotOnlyTheFirst) {
  const Validation v = Validate(
      "前言<think>a</think>\n<thinking>\n<phase id=\"1\"><title>a</title>x</phase>\n"
      "<phase id=\"3\">y</phase>\n</thinking>\n<div>\n<final>z</final>\n尾巴");
  EXPECT_EQ(Where(v), (V{"TML-1.8@1:1", "TML-3.2@4:1", "TML-3.3@4:1", "TML-3.4@4:15", "TML-2.1@6:1",
                         "TML-1.7@7:1", "TML-4.1@7:9", "TML-1.9@8:1"}));
  EXPECT_EQ(v.findings[5].message,
            "<final> does not come right after </thinking>; \"<div>\" at 6:1 stands between");
}

TEST(Validate, EmptyAndGarbageInputs) {
  EXPECT_EQ(Where(Validate("")), (V{"TML-1.5@1:1", "TML-1.6@1:1"}));
  EXPECT_EQ(Where(Validate("plain text")), (V{"TML-1.8@1:1", "TML-1.5@1:11", "TML-1.6@1:11"}));
}

TEST(EscapeThinkingFinalLiterals, EscapesOnlyInsideThinking) {
  EXPECT_EQ(EscapeThinkingFinalLiterals(
                "<thinking><phase id=\"1\"><title>t</title>用 <final> 和 </final></phase>"
                "</thinking><final>x</final>"),
            "<thinking><phase id=\"1\"><title>t</title>用 &lt;final&gt; 和 "
            "&lt;/final&gt;</phase></thinking>"
            "<final>x</final>");
  EXPECT_EQ(EscapeThinkingFinalLiterals("<final>a</final>"), "<final>a</final>");
  EXPECT_EQ(EscapeThinkingFinalLiterals("<thinking><final> never closed"),
            "<thinking><final> never closed");
  EXPECT_EQ(
      EscapeThinkingFinalLiterals("<thinking><final></thinking>x<thinking></final></thinking>"),
      "<thinking>&lt;final&gt;</thinking>x<thinking>&lt;/final&gt;</thinking>");
  EXPECT_EQ(EscapeThinkingFinalLiterals("<thinking>a <b <final x></thinking>"),
            "<thinking>a <b <final x></thinking>");
}

TEST(EscapeThinkingFinalLiterals, MakesAnUnescapedReplyValid) {
  const std::string raw = Doc("<phase id=\"1\"><title>a</title>答案放 <final> 里</phase>");
  EXPECT_FALSE(Validate(raw).valid);
  EXPECT_TRUE(Validate(EscapeThinkingFinalLiterals(raw)).valid);
}

}  // namespace
}  // namespace llmconform::thinkingml

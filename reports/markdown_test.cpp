#include "reports/markdown.h"

#include <gtest/gtest.h>

namespace llmconform::reports {
namespace {

TEST(MarkdownText, EscapesWhatWouldRenderAsMarkup) {
  EXPECT_EQ(MarkdownText("a *b* _c_ `d` [e](f) <think> x|y ~z~ &amp;"),
            "a \\*b\\* \\_c\\_ \\`d\\` \\[e\\](f) \\<think\\> x\\|y \\~z\\~ \\&amp;");
  EXPECT_EQ(MarkdownText("# not a heading", true), "\\# not a heading");
  EXPECT_EQ(MarkdownText("- not a list", true), "\\- not a list");
  EXPECT_EQ(MarkdownText("12. not a list", true), "12\\. not a list");
  EXPECT_EQ(MarkdownText("keeps - and 1. inside", true), "keeps - and 1. inside");
  EXPECT_EQ(MarkdownText("#tag 0.1.0"), "#tag 0.1.0");  // inline: no line to start
  EXPECT_EQ(MarkdownText("two\nlines\tand a tab"), "two<br>lines and a tab");
}

TEST(MarkdownCode, UsesALongerFenceThanTheText) {
  EXPECT_EQ(MarkdownCode("skill.rule"), "`skill.rule`");
  EXPECT_EQ(MarkdownCode("a`b"), "``a`b``");
  EXPECT_EQ(MarkdownCode("`x`"), "`` `x` ``");
  EXPECT_EQ(MarkdownCode("a|b\nc"), "`a\\|b c`");
}

TEST(MarkdownFence, FenceOutlastsBackticksInTheText) {
  EXPECT_EQ(MarkdownFence("x", "text"), "```text\nx\n```\n");
  EXPECT_EQ(MarkdownFence("```\ncode\n```\n", "text"), "````text\n```\ncode\n```\n````\n");
  EXPECT_EQ(MarkdownFence("", "text"), "```text\n```\n");
  EXPECT_EQ(MarkdownFence("line\r\n", ""), "```\nline\\r\n```\n");
}

TEST(MarkdownTable, WritesHeaderAlignmentAndRows) {
  EXPECT_EQ(MarkdownTable({"a", "n"}, {Align::kLeft, Align::kRight}, {{"x", "1"}, {"y", "22"}}),
            "| a | n |\n| --- | --: |\n| x | 1 |\n| y | 22 |\n");
}

TEST(MarkdownOutcome, PrefixesTheEmoji) {
  EXPECT_EQ(MarkdownOutcome(Outcome::kPass), "\u2705 pass");
  EXPECT_EQ(MarkdownOutcome(Outcome::kError), "\u26A0\uFE0F error");
}

}  // namespace
}  // namespace llmconform::reports

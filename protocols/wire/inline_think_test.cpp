#include "protocols/wire/inline_think.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace llmconform::wire {
namespace {

TEST(SplitInlineThink, TakesOffAClosedBlockAtTheStart) {
  // As Hugging Face's router sends a DeepSeek-R1 answer.
  auto s = SplitInlineThink("<think>\nThe user greets me.\n</think>\n\nHello!");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->reasoning, "The user greets me.");
  EXPECT_EQ(s->answer, "Hello!");
  // An answer's own leading spaces survive; only two line breaks go.
  s = SplitInlineThink("<think>r</think>\r\n\n\n  [CMD] ls");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->reasoning, "r");
  EXPECT_EQ(s->answer, "\n  [CMD] ls");
  s = SplitInlineThink("<think></think>");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->reasoning, "");
  EXPECT_EQ(s->answer, "");
}

TEST(SplitInlineThink, LeavesEverythingElseAlone) {
  for (const char* content : {"", "Hello", " <think>r</think>x", "<think>never closed",
                              "<thinking>x</thinking>", "<Think>r</Think>x", "x<think>r</think>"})
    EXPECT_FALSE(SplitInlineThink(content)) << content;
}

TEST(MoveInlineThink, MovesTheBlockIntoReasoningContent) {
  ChatMessage m{.role = "assistant", .content = Json("<think>\nplan\n</think>\n\n[DONE] ok")};
  EXPECT_TRUE(MoveInlineThink(m));
  EXPECT_EQ(m.Text(), "[DONE] ok");
  EXPECT_EQ(m.reasoning_content, "plan");
  // Reasoning the provider also sent in the field comes first.
  ChatMessage both{
      .role = "assistant", .content = Json("<think>b</think>answer"), .reasoning_content = "a"};
  EXPECT_TRUE(MoveInlineThink(both));
  EXPECT_EQ(both.reasoning_content, "a\nb");
  ChatMessage parts{.role = "assistant",
                    .content = Json::array({{{"type", "text"}, {"text", "<think>x</think>y"}}})};
  EXPECT_FALSE(MoveInlineThink(parts));
  ChatMessage none{.role = "assistant"};
  EXPECT_FALSE(MoveInlineThink(none));
  EXPECT_FALSE(none.reasoning_content);
}

std::string Filtered(const std::vector<std::string>& pieces, std::string* reasoning = nullptr) {
  InlineThinkFilter f;
  std::string out;
  for (const auto& p : pieces) out += f.Feed(p);
  out += f.Finish();
  if (reasoning) *reasoning = f.reasoning();
  return out;
}

TEST(InlineThinkFilter, HoldsBackOnlyWhileTheStartIsUndecided) {
  InlineThinkFilter f;
  EXPECT_EQ(f.Feed("<th"), "");
  EXPECT_EQ(f.Feed("ink>\nplan"), "");
  EXPECT_EQ(f.Feed("</thi"), "");
  EXPECT_EQ(f.Feed("nk>\n"), "");
  EXPECT_EQ(f.reasoning(), "plan");
  EXPECT_EQ(f.Feed("\nHel"), "Hel");
  EXPECT_EQ(f.Feed("lo"), "lo");
  EXPECT_EQ(f.Finish(), "");
  InlineThinkFilter plain;
  EXPECT_EQ(plain.Feed("<b"), "<b");
  EXPECT_EQ(plain.Feed("<think>"), "<think>");
}

TEST(InlineThinkFilter, AnUnclosedBlockComesBackAsAnswerText) {
  std::string reasoning;
  EXPECT_EQ(Filtered({"<think>", "cut short"}, &reasoning), "<think>cut short");
  EXPECT_EQ(reasoning, "");
  EXPECT_EQ(Filtered({"<thin"}), "<thin");
  EXPECT_EQ(Filtered({"<think>r</think>\r"}), "\r");
}

// However content is cut into pieces, the filter passes on exactly the
// answer SplitInlineThink finds in the whole.
RC_GTEST_PROP(InlineThinkProperties, AnyCuttingGivesTheSplitOfTheWhole, ()) {
  const auto part = rc::gen::element<std::string>("<think>", "</think>", "<thi", "nk>", "\n", "\r",
                                                  "\r\n", "x", " ", "[CMD] ls", "ц", "<");
  const auto parts = *rc::gen::container<std::vector<std::string>>(part);
  // Half the contents open a block, so most of those close one somewhere.
  std::string whole = *rc::gen::arbitrary<bool>() ? "<think>" : "";
  for (const auto& p : parts) whole += p;
  RC_CLASSIFY(SplitInlineThink(whole).has_value());
  auto cuts = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, whole.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::string> pieces;
  std::size_t at = 0;
  for (std::size_t c : cuts) {
    pieces.push_back(whole.substr(at, c - at));
    at = c;
  }
  pieces.push_back(whole.substr(at));
  std::string reasoning;
  const std::string got = Filtered(pieces, &reasoning);
  const auto split = SplitInlineThink(whole);
  RC_ASSERT(got == (split ? std::string(split->answer) : whole));
  RC_ASSERT(reasoning == (split ? std::string(split->reasoning) : std::string()));
}

}  // namespace
}  // namespace llmconform::wire

namespace llmconform::wire {
namespace {

TEST(MoveContentThinking, ThinkingBlocksBecomeReasoningContent) {
  ChatMessage m;
  m.content = Json::parse(
      R"([{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]},{"type":"text","text":"Hi"}])");
  m.reasoning_content = "before";
  EXPECT_TRUE(MoveContentThinking(m));
  EXPECT_EQ(m.reasoning_content, "before\nhmm");
  EXPECT_EQ(*m.content, "Hi");
}

TEST(MoveContentThinking, AToolCallTurnWithoutTextHasEmptyContent) {
  ChatMessage m;
  m.content = Json::parse(R"([{"type":"thinking","thinking":"t"}])");
  m.tool_calls.push_back(ToolCall{});
  EXPECT_TRUE(MoveContentThinking(m));
  EXPECT_EQ(*m.content, "");
  EXPECT_EQ(m.reasoning_content, "t");
}

TEST(MoveContentThinking, OtherBlocksAndStringsAreLeftAlone) {
  ChatMessage m;
  m.content = Json::parse(R"([{"type":"image_url","image_url":{}},{"type":"text","text":"a"}])");
  const Json before = *m.content;
  EXPECT_FALSE(MoveContentThinking(m));
  EXPECT_EQ(*m.content, before);
  m.content = "plain";
  EXPECT_FALSE(MoveContentThinking(m));
  EXPECT_FALSE(m.reasoning_content);
}

}  // namespace
}  // namespace llmconform::wire

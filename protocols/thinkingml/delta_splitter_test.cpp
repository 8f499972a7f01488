#include "protocols/thinkingml/delta_splitter.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "base/utf8.h"

namespace llmconform::gymbro {
namespace {

using ::llmconform::CountCodePoints;

std::string Join(const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& p : pieces) out += p;
  return out;
}

TEST(SplitDelta, ShortChunksGoOutWhole) {
  EXPECT_EQ(SplitDelta(""), std::vector<std::string>{});
  EXPECT_EQ(SplitDelta("abc"), std::vector<std::string>{"abc"});
  const std::string exactly(256, 'a');
  EXPECT_EQ(SplitDelta(exactly), std::vector<std::string>{exactly});
}

TEST(SplitDelta, PrefersALineBreakNearest128) {
  const std::string text =
      std::string(100, 'a') + "\n" + std::string(30, 'b') + "\n" + std::string(200, 'c');
  auto pieces = SplitDelta(text);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0],
            std::string(100, 'a') + "\n" + std::string(30, 'b') + "\n");  // 132 beats 101
  EXPECT_EQ(Join(pieces), text);
}

TEST(SplitDelta, ThenASentenceEnd) {
  const std::string text = std::string(120, 'a') + ". " + std::string(200, 'b');
  auto pieces = SplitDelta(text);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0], std::string(120, 'a') + ". ");
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "练";
  cjk += "。";
  for (int i = 0; i < 200; ++i) cjk += "蹲";
  auto cjk_pieces = SplitDelta(cjk);
  ASSERT_EQ(cjk_pieces.size(), 2u);
  EXPECT_EQ(CountCodePoints(cjk_pieces[0]), 101u);
  EXPECT_TRUE(cjk_pieces[0].ends_with("。"));
  // "3.14" is no sentence end.
  auto decimal = SplitDelta(std::string(120, 'a') + "3.14" + std::string(200, 'b'));
  EXPECT_EQ(CountCodePoints(decimal[0]), 128u);
}

TEST(SplitDelta, OtherwiseCutsAt128CodePoints) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "中";
  auto pieces = SplitDelta(text);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(CountCodePoints(pieces[0]), 128u);
  EXPECT_EQ(CountCodePoints(pieces[1]), 172u);
}

TEST(SplitDelta, LongChunksAreCutRepeatedly) {
  auto pieces = SplitDelta(std::string(1000, 'x'));
  std::vector<std::size_t> sizes;
  for (const auto& p : pieces) sizes.push_back(p.size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{128, 128, 128, 128, 128, 128, 232}));
}

RC_GTEST_PROP(SplitDeltaProperties, PiecesJoinBackAndStayWithinBounds, ()) {
  const auto alphabet = rc::gen::element<std::string>("a", " ", ".", "\n", "中", "。", "😀", "b");
  const auto parts = *rc::gen::container<std::vector<std::string>>(alphabet);
  std::string text;
  for (const auto& p : parts) text += p;
  const auto pieces = SplitDelta(text);
  RC_ASSERT(Join(pieces) == text);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::size_t n = CountCodePoints(pieces[i]);
    RC_ASSERT(n > 0u);
    RC_ASSERT(n <= kSplitAbove);
    if (i + 1 < pieces.size()) RC_ASSERT(n >= kSplitWindowMin && n <= kSplitWindowMax);
  }
}

}  // namespace
}  // namespace llmconform::gymbro

#include "protocols/thinkingml/utf8.h"

#include <gtest/gtest.h>

namespace llmconform::thinkingml {
namespace {

TEST(Utf8, DecodesValidSequencesAndRejectsMalformedOnes) {
  char32_t cp = 0;
  EXPECT_EQ(DecodeUtf8("a", 0, cp), 1u);
  EXPECT_EQ(cp, U'a');
  EXPECT_EQ(DecodeUtf8("\xE4\xB8\xAD", 0, cp), 3u);  // 中
  EXPECT_EQ(cp, U'中');
  EXPECT_EQ(DecodeUtf8("\xF0\x9F\x98\x80", 0, cp), 4u);
  EXPECT_EQ(cp, U'\U0001F600');
  EXPECT_EQ(DecodeUtf8("\xC0\xAF", 0, cp), 0u);          // overlong
  EXPECT_EQ(DecodeUtf8("\xED\xA0\x80", 0, cp), 0u);      // surrogate
  EXPECT_EQ(DecodeUtf8("\xE4\xB8", 0, cp), 0u);          // truncated
  EXPECT_EQ(DecodeUtf8("\x80", 0, cp), 0u);              // lone continuation
  EXPECT_EQ(DecodeUtf8("\xF4\x90\x80\x80", 0, cp), 0u);  // above U+10FFFF
}

TEST(Utf8, CountsCodePoints) {
  EXPECT_EQ(CountCodePoints(""), 0u);
  EXPECT_EQ(CountCodePoints("abc"), 3u);
  EXPECT_EQ(CountCodePoints("三分化训练"), 5u);
  EXPECT_EQ(OffsetOfCodePoint("a中b", 2), 4u);
  EXPECT_EQ(OffsetOfCodePoint("a中b", 3), 5u);
  EXPECT_EQ(OffsetOfCodePoint("a中b", 9), 5u);
}

TEST(Utf8, SanitizeReplacesInvalidBytes) {
  EXPECT_EQ(SanitizeUtf8("ok 中"), "ok 中");
  EXPECT_EQ(SanitizeUtf8("a\xFF"
                         "b\xE4\xB8"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(LineIndex, GivesOneBasedLinesAndCodePointColumns) {
  const std::string text = "ab\n中文x\n\nz";
  LineIndex idx(text);
  EXPECT_EQ(idx.PositionOf(0), (TextPosition{1, 1}));
  EXPECT_EQ(idx.PositionOf(2), (TextPosition{1, 3}));  // the LF itself
  EXPECT_EQ(idx.PositionOf(3), (TextPosition{2, 1}));
  EXPECT_EQ(idx.PositionOf(9), (TextPosition{2, 3}));  // 'x' after two 3-byte characters
  EXPECT_EQ(idx.PositionOf(11), (TextPosition{3, 1}));
  EXPECT_EQ(idx.PositionOf(12), (TextPosition{4, 1}));
  EXPECT_EQ(idx.PositionOf(999), (TextPosition{4, 2}));  // clamped to the end
}

}  // namespace
}  // namespace llmconform::thinkingml

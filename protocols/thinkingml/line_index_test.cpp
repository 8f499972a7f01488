#include "protocols/thinkingml/line_index.h"

#include <gtest/gtest.h>

namespace llmconform::thinkingml {
namespace {

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

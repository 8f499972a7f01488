#include "protocols/thinkingml/line_index.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>

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

// The index counts by blocks of the text; a column is what counting the line
// from its start gives, wherever the blocks fall (long lines, multi-byte
// characters cut by a block's edge, invalid bytes).
RC_GTEST_PROP(LineIndex, AgreesWithCountingTheLineFromItsStart, ()) {
  const auto piece = rc::gen::elementOf(std::vector<std::string>{
      "a", "\n", "中", "é", "\xF0\x9F\x98\x80", "\xFF", "\x80", "\r\n", std::string(300, 'x')});
  const auto pieces = *rc::gen::container<std::vector<std::string>>(piece);
  std::string text;
  for (const auto& p : pieces) text += p;
  LineIndex idx(text);
  const auto offset = *rc::gen::inRange<std::size_t>(0, text.size() + 2);
  const std::size_t clamped = std::min(offset, text.size());
  const std::size_t start = text.rfind('\n', clamped == 0 ? std::string::npos : clamped - 1);
  const std::size_t line_start = start == std::string::npos || clamped == 0 ? 0 : start + 1;
  const int line = 1 + static_cast<int>(std::count(
                           text.begin(), text.begin() + static_cast<long>(line_start), '\n'));
  const int column = 1 + static_cast<int>(CountCodePoints(
                             std::string_view(text).substr(line_start, clamped - line_start)));
  RC_ASSERT(idx.PositionOf(offset) == (TextPosition{line, column}));
}

}  // namespace
}  // namespace llmconform::thinkingml

// Line and column of byte offsets in a ThinkingML reply, columns counted in
// code points (base/utf8.h's counting, which never fails on invalid UTF-8).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "base/utf8.h"

namespace llmconform::thinkingml {

// 1-based line and column of a byte offset. Lines end at LF; the column counts
// code points from the start of the line (a CR before an LF is a character of
// its line). An offset past the end is clamped to the end.
struct TextPosition {
  int line = 1;
  int column = 1;
  friend bool operator==(const TextPosition&, const TextPosition&) = default;
};

// Maps many offsets of one text to positions: the line starts and the code
// points before every kBlock bytes are indexed once, so a lookup is a binary
// search plus a count of at most 2 * kBlock bytes, however long the line (a
// reply of one 300 KB line with a finding every few bytes stays linear).
// Keeps a view of `text`, which must outlive the index.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  TextPosition PositionOf(std::size_t offset) const;

 private:
  static constexpr std::size_t kBlock = 256;
  std::size_t CodePointsBefore(std::size_t offset) const;  // offset <= text_.size()

  std::string_view text_;
  std::vector<std::size_t> line_starts_;
  std::vector<std::size_t> code_points_before_block_;  // [k]: in text_[0, k * kBlock)
};

}  // namespace llmconform::thinkingml

#include "protocols/thinkingml/line_index.h"

#include <algorithm>
#include <cstring>

namespace llmconform::thinkingml {
LineIndex::LineIndex(std::string_view text) : text_(text) {
  line_starts_.push_back(0);
  const char* base = text.data();
  const char* p = base;
  const char* end = base + text.size();
  while (p < end) {
    const void* lf = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (!lf) break;
    p = static_cast<const char*>(lf) + 1;
    line_starts_.push_back(static_cast<std::size_t>(p - base));
  }
  code_points_before_block_.reserve(text.size() / kBlock + 1);
  std::size_t n = 0;
  for (std::size_t at = 0; at <= text.size(); at += kBlock) {
    code_points_before_block_.push_back(n);
    n += CountCodePoints(text.substr(at, kBlock));
  }
}

std::size_t LineIndex::CodePointsBefore(std::size_t offset) const {
  const std::size_t block = offset / kBlock;
  return code_points_before_block_[block] +
         CountCodePoints(text_.substr(block * kBlock, offset - block * kBlock));
}

TextPosition LineIndex::PositionOf(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());  // ≥ 1
  const std::size_t start = line_starts_[line - 1];
  // Counting is additive (a byte is a code point unless it continues one), so
  // the column is a difference of two counts from the text's start.
  return {static_cast<int>(line),
          static_cast<int>(1 + CodePointsBefore(offset) - CodePointsBefore(start))};
}

}  // namespace llmconform::thinkingml

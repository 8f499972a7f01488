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
}

TextPosition LineIndex::PositionOf(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());  // ≥ 1
  const std::size_t start = line_starts_[line - 1];
  return {static_cast<int>(line),
          static_cast<int>(1 + CountCodePoints(text_.substr(start, offset - start)))};
}

}  // namespace llmconform::thinkingml

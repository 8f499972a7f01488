#include "protocols/thinkingml/utf8.h"

#include <algorithm>
#include <cstring>

namespace llmconform::thinkingml {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

std::size_t CountCodePoints(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += !IsContinuation(static_cast<unsigned char>(c));
  return n;
}

std::size_t OffsetOfCodePoint(std::string_view text, std::size_t n) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (IsContinuation(static_cast<unsigned char>(text[i]))) continue;
    if (seen == n) return i;
    ++seen;
  }
  return text.size();
}

std::string SanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    const std::size_t len = DecodeUtf8(text, i, cp);
    if (len == 0) {
      out.append("\xEF\xBF\xBD");
      ++i;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

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

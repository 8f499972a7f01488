// UTF-8 helpers for positions and lengths counted in Unicode code points.
//
// Text here is whatever bytes a model or a service sent: these functions never
// fail on invalid UTF-8. Counting goes by lead bytes (every byte that is not a
// continuation byte 0x80–0xBF starts a code point), which for valid UTF-8 is
// the number of code points.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace llmconform::thinkingml {

// Decodes the code point starting at `text[pos]`. Returns the length of the
// sequence in bytes (1–4) and sets `cp`, or returns 0 when the bytes there are
// not a valid, shortest-form UTF-8 sequence of a scalar value.
// Inline: lexing and JSON reading call it for every non-ASCII character.
inline std::size_t DecodeUtf8(std::string_view text, std::size_t pos, char32_t& cp) {
  if (pos >= text.size()) return 0;
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t len = 0;
  char32_t value = 0;
  char32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, value = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, value = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, value = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (pos + len > text.size()) return 0;
  for (std::size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(text[pos + i]);
    if (!((b & 0xC0) == 0x80)) return 0;
    value = (value << 6) | (b & 0x3F);
  }
  if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  cp = value;
  return len;
}

// Number of code points in `text`.
std::size_t CountCodePoints(std::string_view text);

// The byte offset where the code point numbered `n` (0-based) starts, or
// text.size() when there are no more than `n`. Counts as CountCodePoints does.
std::size_t OffsetOfCodePoint(std::string_view text, std::size_t n);

// `text` with every byte that does not belong to a valid sequence replaced by
// U+FFFD, so that it can go into JSON output.
std::string SanitizeUtf8(std::string_view text);

// 1-based line and column of a byte offset. Lines end at LF; the column counts
// code points from the start of the line (a CR before an LF is a character of
// its line). An offset past the end is clamped to the end.
struct TextPosition {
  int line = 1;
  int column = 1;
  friend bool operator==(const TextPosition&, const TextPosition&) = default;
};

// Maps many offsets of one text to positions: the line starts are indexed
// once, each lookup is a binary search plus a count within the line.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  TextPosition PositionOf(std::size_t offset) const;

 private:
  std::string_view text_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace llmconform::thinkingml

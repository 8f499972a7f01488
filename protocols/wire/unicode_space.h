// Unicode white space in UTF-8 text: the characters with the Unicode
// White_Space property (U+0009–U+000D, U+0020, U+0085, U+00A0, U+1680,
// U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000) and U+FEFF (the
// byte order mark, which an editor or a model may put before a reply).
//
// Text is whatever bytes arrived: nothing here fails on invalid UTF-8. A white
// space character is recognised only as its whole, well-formed UTF-8 sequence,
// so a stray byte is never white space and trimming never splits a character.
#pragma once

#include <cstddef>
#include <string_view>

namespace llmconform::wire {

// Whether the code point is White_Space or U+FEFF.
constexpr bool IsUnicodeSpace(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

// The length in bytes (1–3) of the white space character that starts at
// `text[pos]`, or 0 when there is none there (or `pos` is past the end).
std::size_t UnicodeSpaceAt(std::string_view text, std::size_t pos);

// The length in bytes of the white space character that ends right before
// `text[end]`, or 0 (also for end == 0 or end > text.size()).
std::size_t UnicodeSpaceBefore(std::string_view text, std::size_t end);

// Whether `text` holds nothing but white space (true for "").
bool IsAllUnicodeSpace(std::string_view text);

// `text` without the white space at its start / end / both.
std::string_view TrimUnicodeSpaceLeft(std::string_view text);
std::string_view TrimUnicodeSpaceRight(std::string_view text);
std::string_view TrimUnicodeSpace(std::string_view text);

}  // namespace llmconform::wire

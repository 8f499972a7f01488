#include "protocols/wire/unicode_space.h"

namespace llmconform::wire {
namespace {

constexpr bool IsAsciiSpace(unsigned char b) { return (b >= 0x09 && b <= 0x0D) || b == 0x20; }

}  // namespace

std::size_t UnicodeSpaceAt(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) return IsAsciiSpace(b0) ? 1 : 0;
  // Every non-ASCII white space character is encoded in two or three bytes
  // led by C2, E1, E2, E3 or EF: its code point is read from those bytes.
  const std::size_t left = text.size() - pos;
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(text[pos + i]); };
  const auto cont = [&](std::size_t i) { return (b(i) & 0xC0) == 0x80; };
  if (b0 == 0xC2) {
    if (left < 2 || !cont(1)) return 0;
    return IsUnicodeSpace(static_cast<char32_t>(b(1))) ? 2 : 0;  // U+0080–U+00BF
  }
  if (b0 == 0xE1 || b0 == 0xE2 || b0 == 0xE3 || b0 == 0xEF) {
    if (left < 3 || !cont(1) || !cont(2)) return 0;
    const auto cp =
        static_cast<char32_t>(((b0 & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F));
    return IsUnicodeSpace(cp) ? 3 : 0;
  }
  return 0;
}

std::size_t UnicodeSpaceBefore(std::string_view text, std::size_t end) {
  if (end == 0 || end > text.size()) return 0;
  // A lead byte is never a continuation byte, so a whole sequence found just
  // before `end` is that character and not the tail of another one.
  for (std::size_t len = 1; len <= 3 && len <= end; ++len) {
    if (UnicodeSpaceAt(text, end - len) == len) return len;
  }
  return 0;
}

bool IsAllUnicodeSpace(std::string_view text) { return TrimUnicodeSpaceLeft(text).empty(); }

std::string_view TrimUnicodeSpaceLeft(std::string_view text) {
  std::size_t i = 0;
  while (const std::size_t n = UnicodeSpaceAt(text, i)) i += n;
  return text.substr(i);
}

std::string_view TrimUnicodeSpaceRight(std::string_view text) {
  std::size_t e = text.size();
  while (const std::size_t n = UnicodeSpaceBefore(text, e)) e -= n;
  return text.substr(0, e);
}

std::string_view TrimUnicodeSpace(std::string_view text) {
  return TrimUnicodeSpaceRight(TrimUnicodeSpaceLeft(text));
}

}  // namespace llmconform::wire

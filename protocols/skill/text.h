// Text helpers shared by the skill protocol code. Trimming removes Unicode
// white space (the White_Space property and the BOM, wire/unicode_space.h);
// case folding is ASCII only.
#pragma once

#include <string_view>

#include "protocols/wire/unicode_space.h"

namespace llmconform::skill {

constexpr bool IsLineEnd(char c) { return c == '\n' || c == '\r'; }

constexpr char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

inline std::string_view TrimLeft(std::string_view s) { return wire::TrimUnicodeSpaceLeft(s); }
inline std::string_view TrimRight(std::string_view s) { return wire::TrimUnicodeSpaceRight(s); }
inline std::string_view Trim(std::string_view s) { return wire::TrimUnicodeSpace(s); }

// `s` begins with `prefix`, ASCII letters compared without case.
constexpr bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(s[i]) != AsciiLower(prefix[i])) return false;
  }
  return true;
}

}  // namespace llmconform::skill

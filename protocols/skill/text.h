// Byte-level text helpers shared by the skill protocol code. Whitespace is
// ASCII whitespace (space, \t, \n, \v, \f, \r); case folding is ASCII only.
#pragma once

#include <string_view>

namespace llmconform::skill {

constexpr bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

constexpr bool IsLineEnd(char c) { return c == '\n' || c == '\r'; }

constexpr char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

constexpr std::string_view TrimLeft(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  return s.substr(i);
}

constexpr std::string_view TrimRight(std::string_view s) {
  std::size_t n = s.size();
  while (n > 0 && IsSpace(s[n - 1])) --n;
  return s.substr(0, n);
}

constexpr std::string_view Trim(std::string_view s) { return TrimRight(TrimLeft(s)); }

// `s` begins with `prefix`, ASCII letters compared without case.
constexpr bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(s[i]) != AsciiLower(prefix[i])) return false;
  }
  return true;
}

}  // namespace llmconform::skill

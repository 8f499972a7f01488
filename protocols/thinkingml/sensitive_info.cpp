#include "protocols/thinkingml/sensitive_info.h"

#include <array>
#include <vector>

#include "protocols/wire/format.h"

namespace llmconform::thinkingml {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsDigit(c) || IsAlpha(c); }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsEmailLocal(char c) {
  return IsAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}
bool IsDomainChar(char c) { return IsAlnum(c) || c == '-' || c == '.'; }

// Parses one IPv4 part (1–3 digits, ≤ 255) at `i`; returns its length or 0.
std::size_t Ipv4Part(std::string_view t, std::size_t i) {
  std::size_t n = 0;
  int value = 0;
  while (i + n < t.size() && n < 3 && IsDigit(t[i + n])) value = value * 10 + (t[i + n++] - '0');
  if (n == 0 || value > 255 || (i + n < t.size() && IsDigit(t[i + n]))) return 0;
  return n;
}

// Length of a dotted-quad IPv4 address at `i`, or 0.
std::size_t Ipv4At(std::string_view t, std::size_t i) {
  std::size_t p = i;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (p >= t.size() || t[p] != '.') return 0;
      ++p;
    }
    const std::size_t n = Ipv4Part(t, p);
    if (n == 0) return 0;
    p += n;
  }
  // Not part of a longer dotted number ("1.2.3.4.5") or a word.
  if (p < t.size() && (IsAlnum(t[p]) || (t[p] == '.' && p + 1 < t.size() && IsDigit(t[p + 1]))))
    return 0;
  return p - i;
}

bool IsIpv6(std::string_view s) {
  if (s.find(':') == std::string_view::npos) return false;
  const std::size_t dbl = s.find("::");
  if (dbl != std::string_view::npos && s.find("::", dbl + 1) != std::string_view::npos)
    return false;
  auto count_groups = [](std::string_view part, int& groups) {
    if (part.empty()) return true;
    std::size_t start = 0;
    while (true) {
      const std::size_t colon = part.find(':', start);
      const std::string_view g =
          part.substr(start, colon == std::string_view::npos ? part.npos : colon - start);
      if (g.empty() || g.size() > 4) return false;
      for (char c : g) {
        if (!IsHex(c)) return false;
      }
      ++groups;
      if (colon == std::string_view::npos) return true;
      start = colon + 1;
    }
  };
  int groups = 0;
  if (dbl == std::string_view::npos) return count_groups(s, groups) && groups == 8;
  return count_groups(s.substr(0, dbl), groups) && count_groups(s.substr(dbl + 2), groups) &&
         groups <= 7;
}

}  // namespace

std::optional<std::string_view> FindEmailAddress(std::string_view t) {
  for (std::size_t at = t.find('@'); at != std::string_view::npos; at = t.find('@', at + 1)) {
    std::size_t b = at;
    while (b > 0 && IsEmailLocal(t[b - 1])) --b;
    std::size_t e = at + 1;
    while (e < t.size() && IsDomainChar(t[e])) ++e;
    while (e > at + 1 && (t[e - 1] == '.' || t[e - 1] == '-')) --e;  // a sentence's full stop
    if (b == at || e == at + 1) continue;
    const std::string_view domain = t.substr(at + 1, e - at - 1);
    const std::size_t last_dot = domain.rfind('.');
    if (last_dot == std::string_view::npos || last_dot == 0 ||
        domain.find("..") != std::string_view::npos)
      continue;
    const std::string_view tld = domain.substr(last_dot + 1);
    bool alpha = tld.size() >= 2;
    for (char c : tld) alpha = alpha && IsAlpha(c);
    if (alpha) return t.substr(b, e - b);
  }
  return std::nullopt;
}

std::optional<std::string_view> FindPhoneNumber(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    const bool starts = IsDigit(c) || c == '+' || c == '(';
    const bool glued = i > 0 && (IsAlnum(t[i - 1]) || t[i - 1] == '.' || t[i - 1] == '+');
    if (!starts || glued) {
      ++i;
      continue;
    }
    std::size_t e = i + 1;
    while (e < t.size() &&
           (IsDigit(t[e]) || t[e] == '-' || t[e] == ' ' || t[e] == '(' || t[e] == ')'))
      ++e;
    std::size_t end = e;
    while (end > i && !IsDigit(t[end - 1])) --end;  // trailing separators are not part of it
    if (end == i) {
      i = e;
      continue;
    }
    const std::string_view span = t.substr(i, end - i);
    const bool glued_after = end < t.size() &&
                             (IsAlpha(t[end]) || t[end] == '.' || t[end] == '@') &&
                             end == e;  // only when nothing separates it from the next word
    std::string digits;
    bool has_space = false, has_punct = false;
    for (char ch : span) {
      if (IsDigit(ch)) {
        digits.push_back(ch);
      } else if (ch == ' ') {
        has_space = true;
      } else if (ch == '-' || ch == '(' || ch == ')') {
        has_punct = true;
      }
    }
    const std::size_t d = digits.size();
    const bool plus = span.front() == '+';
    const bool cn_mobile = d == 11 && digits[0] == '1' && digits[1] >= '3' && digits[1] <= '9';
    const bool phone = !glued_after && ((plus && d >= 8 && d <= 15) || cn_mobile ||
                                        (d >= 10 && d <= 15 && (!has_space || has_punct)));
    if (phone) return span;
    i = e;
  }
  return std::nullopt;
}

std::optional<std::string_view> FindIpAddress(std::string_view t) {
  for (std::size_t i = 0; i < t.size(); ++i) {
    const bool glued = i > 0 && (IsAlnum(t[i - 1]) || t[i - 1] == '.' || t[i - 1] == ':');
    if (glued) continue;
    if (IsDigit(t[i])) {
      if (const std::size_t n = Ipv4At(t, i)) return t.substr(i, n);
    }
    if (IsHex(t[i]) || t[i] == ':') {
      std::size_t e = i;
      while (e < t.size() && (IsHex(t[e]) || t[e] == ':')) ++e;
      if (e < t.size() && IsAlnum(t[e])) continue;
      const std::string_view token = t.substr(i, e - i);
      if (IsIpv6(token)) return token;
    }
  }
  return std::nullopt;
}

std::optional<std::string> DescribeSensitiveInfo(std::string_view text) {
  // Every detector needs a character most queries lack: '@', a digit, or ':'.
  // Compares rather than a table lookup, so that the loop vectorises.
  bool at = false, digit = false, colon = false;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    at |= c == '@';
    digit |= static_cast<unsigned char>(c - '0') < 10;
    colon |= c == ':';
  }
  if (at) {
    if (auto m = FindEmailAddress(text)) return Format("an e-mail address ({})", *m);
  }
  if (digit || colon) {
    if (auto m = FindIpAddress(text)) return Format("an IP address ({})", *m);
  }
  if (digit) {
    if (auto m = FindPhoneNumber(text)) return Format("a phone number ({})", *m);
  }
  return std::nullopt;
}

}  // namespace llmconform::thinkingml

// Detectors for the personal data a serp query must not hold (seed §4:
// 邮箱/手机号/IP; docs/protocols.md: an e-mail address, a phone number or an IP
// address). Postal addresses (住址) cannot be told from ordinary place names
// and are not detected.
//
// Each detector returns the first match in `text`, or nullopt. They are
// heuristics, tuned so that ordinary search queries (years, dates, version
// numbers, sizes, `std::vector`) are not matched:
//   e-mail  local@domain.tld — local part [A-Za-z0-9._%+-]+, domain labels of
//           [A-Za-z0-9-] joined by dots, the last all letters and ≥ 2 long;
//   phone   a run of digits with separators (space, '-', '(', ')'), optionally
//           after '+', not glued to a letter, digit or '.', that is: '+' and
//           8–15 digits; or a Chinese mobile number 1[3-9]xxxxxxxxx (11 digits,
//           any separators); or 10–15 digits written without spaces or with a
//           '-' or parenthesis among them ("(555) 123-4567", "010-88886666");
//   IP      a dotted-quad IPv4 address (each part 0–255, not part of a longer
//           dotted number), or an IPv6 address (hex groups of 1–4 digits with
//           ':' — eight groups, or fewer with one "::").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmconform::thinkingml {

std::optional<std::string_view> FindEmailAddress(std::string_view text);
std::optional<std::string_view> FindPhoneNumber(std::string_view text);
std::optional<std::string_view> FindIpAddress(std::string_view text);

// Whether `c` is one of the characters every detector needs ('@', a digit,
// ':'): text with none of them holds no personal data.
constexpr bool IsSensitiveInfoTrigger(unsigned char c) {
  return c == '@' || c == ':' || (c >= '0' && c <= '9');
}

// The first kind of personal data found, described for a finding
// ("an e-mail address (ann@example.com)"), or nullopt.
std::optional<std::string> DescribeSensitiveInfo(std::string_view text);

}  // namespace llmconform::thinkingml

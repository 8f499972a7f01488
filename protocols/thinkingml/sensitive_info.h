// Detectors for the personal data a serp query must not hold (seed §4:
// 邮箱/手机号/IP/住址等 — e-mail, mobile number, IP, address and the like;
// docs/decisions.md says why these shapes).
//
// Each detector returns the first match in `text`, or nullopt. They are
// heuristics, tuned so that ordinary search queries (years, dates, ranges,
// version numbers, sizes, timestamps, ISBNs, student numbers, `std::vector`)
// are not matched:
//   e-mail  local@domain.tld — local part [A-Za-z0-9._%+-]+, domain labels of
//           [A-Za-z0-9-] joined by dots, the last all letters and ≥ 2 long;
//   phone   a number written the way phone numbers are: digit groups joined by
//           one or two separators (space, '-', '.', '(', ')'), not glued to a
//           letter, digit or '.', in one of these shapes —
//           E.164: '+' and 8–15 digits, any grouping ("+86 138 0013 8000");
//           a Chinese mobile number 1[3-9] + 9 digits, whole or 3-4-4, maybe
//           after 86 or 0086 ("13800138000", "138-0013-8000");
//           a Chinese landline: area code 0 + 2–3 digits, a separator, 7–8
//           digits whole or 3|4-4 ("010-88886666", "(0755) 1234 5678");
//           a North American number: 3-3-4 with an area code 2–9, maybe after
//           "1-" ("(555) 123-4567", "555.123.4567");
//           an international number dialled with 00: "00", a country code and
//           10–17 digits in all, grouped ("0044 20 7946 0958").
//           A group of digits bounded by spaces may be a window of a longer
//           run ("3 组 138 0013 8000"); a run of digits alone is a phone
//           number only in the shapes above (so "10000-12000", a 13-digit
//           timestamp or ISBN, "2023-2024-2025" are not);
//   IP      a dotted-quad IPv4 address (each part 0–255, not part of a longer
//           dotted number), or an IPv6 address (hex groups of 1–4 digits with
//           ':' — eight groups, or fewer with one "::");
//   bank card  16–19 digits passing the Luhn check, as one run or in groups
//           of four joined by one kind of separator (space or '-'), the last
//           group 1–4 digits, not glued to a letter, digit or '.';
//   address a Chinese street address down to the house: a road (one or more
//           ideographs ending 路/街/道/巷/弄/胡同) then a number ("88",
//           "88-1") and 号, spaces (also U+3000) allowed between
//           ("北京市朝阳区建国路 88 号"; the ideographs before the road —
//           province, city, district — are part of the match); or a flat:
//           number + 栋/幢/楼/单元 + number + 室 ("3 栋 502 室"). A place
//           name without a house number ("朝阳区 健身房", "建国路") is no
//           address: queries name places.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmconform::thinkingml {

std::optional<std::string_view> FindEmailAddress(std::string_view text);
std::optional<std::string_view> FindPhoneNumber(std::string_view text);
std::optional<std::string_view> FindIpAddress(std::string_view text);
std::optional<std::string_view> FindBankCardNumber(std::string_view text);
std::optional<std::string_view> FindStreetAddress(std::string_view text);

// Whether `c` is one of the characters every detector needs ('@', a digit,
// ':'; an address has its house number): text with none of them holds no
// personal data.
constexpr bool IsSensitiveInfoTrigger(unsigned char c) {
  return c == '@' || c == ':' || (c >= '0' && c <= '9');
}

// The first kind of personal data found, described for a finding
// ("an e-mail address (ann@example.com)"), or nullopt.
std::optional<std::string> DescribeSensitiveInfo(std::string_view text);

}  // namespace llmconform::thinkingml

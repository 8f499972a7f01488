#include "protocols/thinkingml/sensitive_info.h"

#include <algorithm>
#include <array>
#include <vector>

#include "base/format.h"
#include "base/utf8.h"

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

namespace {

// A run of digit groups: digits joined by separators (space, '-', '.', '(',
// ')'), possibly after '+' or '('; where each group and separator lies.
struct DigitRun {
  std::size_t begin = 0;  // of the run (at '+' or '(' when it starts so)
  std::size_t end = 0;    // after its last digit (or ')' closing a group)
  bool plus = false;
  struct Group {
    std::size_t begin, end;   // the digits
    std::string_view before;  // the separators before it (empty for the first)
  };
  std::vector<Group> groups;
};

constexpr bool IsNumberSeparator(char c) {
  return c == ' ' || c == '-' || c == '.' || c == '(' || c == ')';
}

// The digit run starting at `i` (a digit, '+' or '(' not glued to a word),
// or one with no groups. Separators between groups are at most two bytes.
DigitRun ReadDigitRun(std::string_view t, std::size_t i) {
  DigitRun run;
  run.begin = i;
  std::size_t p = i;
  if (t[p] == '+') run.plus = true, ++p;
  std::size_t sep_begin = p;
  while (p < t.size()) {
    while (p < t.size() && IsNumberSeparator(t[p]) && p - sep_begin < 2) ++p;
    if (p >= t.size() || !IsDigit(t[p])) break;
    const std::size_t g = p;
    while (p < t.size() && IsDigit(t[p])) ++p;
    run.groups.push_back({g, p, t.substr(sep_begin, g - sep_begin)});
    sep_begin = p;
  }
  if (!run.groups.empty()) {
    run.end = run.groups.back().end;
    if (run.end < t.size() && t[run.end] == ')') ++run.end;  // "(010)" alone is not a phone
  }
  return run;
}

// The phone shapes (sensitive_info.h) on groups [s, e] of `run`, given the
// group sizes and their digits.
bool IsPhoneShape(std::string_view t, const DigitRun& run, std::size_t s, std::size_t e) {
  std::string digits;
  std::vector<std::size_t> sizes;
  for (std::size_t k = s; k <= e; ++k) {
    digits.append(t.substr(run.groups[k].begin, run.groups[k].end - run.groups[k].begin));
    sizes.push_back(run.groups[k].end - run.groups[k].begin);
  }
  const std::size_t d = digits.size();
  const auto sizes_are = [&](std::initializer_list<std::size_t> want) {
    return sizes.size() == want.size() && std::equal(want.begin(), want.end(), sizes.begin());
  };
  const auto cn_mobile = [](std::string_view m) {
    return m.size() == 11 && m[0] == '1' && m[1] >= '3' && m[1] <= '9';
  };
  if (run.plus && s == 0) return d >= 8 && d <= 15;  // E.164
  // A Chinese mobile number: 11 digits, whole or 3-4-4, maybe after 86 / 0086.
  if (cn_mobile(digits) && (sizes_are({11}) || sizes_are({3, 4, 4}))) return true;
  for (std::string_view cc : {std::string_view("86"), std::string_view("0086")}) {
    if (digits.starts_with(cc) && cn_mobile(std::string_view(digits).substr(cc.size())) &&
        (sizes.size() == 1
             ? true
             : sizes[0] == cc.size() && (sizes.size() == 2 || (sizes.size() == 4 && sizes[1] == 3 &&
                                                               sizes[2] == 4 && sizes[3] == 4))))
      return true;
  }
  // A Chinese landline: area code 0 + 2–3 digits, then 7–8 digits, grouped.
  if (sizes.size() >= 2 && digits[0] == '0' && (sizes[0] == 3 || sizes[0] == 4) &&
      d - sizes[0] >= 7 && d - sizes[0] <= 8 &&
      (sizes.size() == 2 || (sizes.size() == 3 && sizes[1] >= 3 && sizes[1] <= 4 && sizes[2] == 4)))
    return true;
  // A North American number: (NXX) XXX-XXXX, NXX-XXX-XXXX, 1-NXX-XXX-XXXX.
  const std::size_t nanp = sizes.size() == 4 && sizes[0] == 1 && digits[0] == '1' ? 1 : 0;
  if (sizes.size() == 3 + nanp && sizes[nanp] == 3 && sizes[nanp + 1] == 3 &&
      sizes[nanp + 2] == 4 && digits[nanp] >= '2')
    return true;
  // An international number dialled with 00: 00, a country code, grouped.
  if (sizes.size() >= 2 && digits.starts_with("00") && digits[2] != '0' && d >= 10 && d <= 17)
    return true;
  return false;
}

}  // namespace

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
    const DigitRun run = ReadDigitRun(t, i);
    if (run.groups.empty()) {
      ++i;
      continue;
    }
    // Nothing glued after it: a letter, '.', '@' right after the last digit.
    const std::size_t after = run.groups.back().end;
    const bool glued_after =
        after < t.size() && (IsAlpha(t[after]) || t[after] == '@' ||
                             (t[after] == '.' && after + 1 < t.size() && IsDigit(t[after + 1])));
    const std::size_t n = run.groups.size();
    // Any window of up to five groups bounded by spaces (or the run's ends)
    // may be the number: "训练 3 组 138 0013 8000".
    for (std::size_t s = 0; s < n; ++s) {
      if (s > 0 && run.groups[s].before.find(' ') == std::string_view::npos) continue;
      for (std::size_t e = std::min(n, s + 5); e-- > s;) {  // the longest first
        const bool last = e + 1 == n;
        if (!last && run.groups[e + 1].before.find(' ') == std::string_view::npos) continue;
        if (last && glued_after) continue;
        if (IsPhoneShape(t, run, s, e)) {
          std::size_t b = s == 0 ? run.begin : run.groups[s].begin;
          if (s > 0 && run.groups[s].before.ends_with('(')) --b;
          std::size_t end = run.groups[e].end;
          if (end < t.size() && t[end] == ')' && b < run.groups[s].begin && t[b] == '(') ++end;
          return t.substr(b, end - b);
        }
      }
    }
    i = std::max(run.end, i + 1);
  }
  return std::nullopt;
}

std::optional<std::string_view> FindBankCardNumber(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size()) {
    if (!IsDigit(t[i]) || (i > 0 && (IsAlnum(t[i - 1]) || t[i - 1] == '.'))) {
      ++i;
      continue;
    }
    // Digits in groups of four joined by one space or '-', or one run.
    std::string digits;
    std::size_t p = i, end = i;
    char sep = 0;
    bool shape = true;
    while (true) {
      const std::size_t g = p;
      while (p < t.size() && IsDigit(t[p])) digits.push_back(t[p++]);
      end = p;
      const std::size_t size = p - g;
      const bool more = p + 1 < t.size() && (t[p] == ' ' || t[p] == '-') && IsDigit(t[p + 1]) &&
                        (sep == 0 || t[p] == sep);
      if (!more) break;
      if (size != 4) {  // every group but the last has four digits
        shape = false;
        break;
      }
      sep = t[p++];
    }
    const bool glued_after = end < t.size() && (IsAlpha(t[end]) || t[end] == '.' || t[end] == '@');
    if (shape && !glued_after && digits.size() >= 16 && digits.size() <= 19) {
      int sum = 0;  // Luhn: every second digit from the right doubled
      for (std::size_t k = 0; k < digits.size(); ++k) {
        int v = digits[digits.size() - 1 - k] - '0';
        if (k % 2 == 1) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
        sum += v;
      }
      if (sum % 10 == 0) return t.substr(i, end - i);
    }
    i = std::max(end, i + 1);
  }
  return std::nullopt;
}

namespace {

// The length of the UTF-8 character that ends right before `t[end]` when it is
// a CJK ideograph (U+3400–U+9FFF, three bytes), else 0.
std::size_t CjkBefore(std::string_view t, std::size_t end) {
  char32_t cp = 0;
  if (end < 3 || DecodeUtf8(t.substr(0, end), end - 3, cp) != 3) return 0;
  return cp >= 0x3400 && cp <= 0x9FFF ? 3 : 0;
}

// Skips ASCII spaces and U+3000 backwards from `end`.
std::size_t SkipSpacesBack(std::string_view t, std::size_t end) {
  while (true) {
    if (end > 0 && t[end - 1] == ' ') {
      --end;
    } else if (end >= 3 && t.substr(end - 3, 3) == "\u3000") {
      end -= 3;
    } else {
      return end;
    }
  }
}

// Skips a house or room number ("88", "88-1") backwards from `end`; returns
// where it starts, or `end` when there is none.
std::size_t SkipNumberBack(std::string_view t, std::size_t end) {
  std::size_t b = end;
  while (b > 0 && IsDigit(t[b - 1])) --b;
  if (b < end && b >= 2 && t[b - 1] == '-' && IsDigit(t[b - 2])) {
    --b;
    while (b > 0 && IsDigit(t[b - 1])) --b;
  }
  if (b > 0 && (IsAlpha(t[b - 1]) || t[b - 1] == '.')) return end;  // part of a word
  return b;
}

bool EndsWithAny(std::string_view t, std::size_t end, std::initializer_list<std::string_view> any,
                 std::size_t& length) {
  for (std::string_view a : any) {
    if (end >= a.size() && t.substr(end - a.size(), a.size()) == a) {
      length = a.size();
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string_view> FindStreetAddress(std::string_view t) {
  // A house: <name>路|街|道|巷|弄|胡同 <number> 号, the name at least one ideograph.
  for (std::size_t at = t.find("号"); at != std::string_view::npos; at = t.find("号", at + 1)) {
    const std::size_t number_end = SkipSpacesBack(t, at);
    const std::size_t number = SkipNumberBack(t, number_end);
    if (number == number_end) continue;
    std::size_t road = SkipSpacesBack(t, number), suffix = 0;
    if (!EndsWithAny(t, road, {"路", "街", "道", "巷", "弄", "胡同"}, suffix)) continue;
    std::size_t b = road - suffix;
    if (CjkBefore(t, b) == 0) continue;  // a road has a name
    for (int k = 0; k < 24; ++k) {       // back over the name and the areas before it
      const std::size_t n = CjkBefore(t, b);
      if (n == 0) break;
      b -= n;
    }
    return t.substr(b, at + std::string_view("号").size() - b);
  }
  // A flat: <number> 栋|幢|楼|单元 <number> 室.
  for (std::size_t at = t.find("室"); at != std::string_view::npos; at = t.find("室", at + 1)) {
    const std::size_t room_end = SkipSpacesBack(t, at);
    const std::size_t room = SkipNumberBack(t, room_end);
    if (room == room_end) continue;
    const std::size_t unit_end = SkipSpacesBack(t, room);
    std::size_t unit = 0;
    if (!EndsWithAny(t, unit_end, {"栋", "幢", "楼", "单元"}, unit)) continue;
    const std::size_t building_end = SkipSpacesBack(t, unit_end - unit);
    const std::size_t building = SkipNumberBack(t, building_end);
    if (building == building_end) continue;
    return t.substr(building, at + std::string_view("室").size() - building);
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
    if (auto m = FindBankCardNumber(text)) return Format("a bank card number ({})", *m);
    if (auto m = FindPhoneNumber(text)) return Format("a phone number ({})", *m);
    if (auto m = FindStreetAddress(text)) return Format("a street address ({})", *m);
  }
  return std::nullopt;
}

}  // namespace llmconform::thinkingml

// Format("{}: expected {}, got {}", a, b, c): sequential `{}` substitution.
//
// g++ 12's libstdc++ has no <format>; this covers what messages in this code
// base need and nothing more: each `{}` takes the next argument (strings,
// string_views, chars, integers, floating point, bool), `{{` and `}}` are
// literal braces. Surplus `{}` stay as written; surplus arguments are dropped.
// Replace with std::format once the toolchain has it: the call sites match.
//
// UtcTimestamp(t): the one timestamp format of reports and traces.
#pragma once

#include <charconv>
#include <concepts>
#include <ctime>
#include <string>
#include <string_view>
#include <type_traits>

namespace llmconform {
namespace format_detail {

inline void Append(std::string& out, std::string_view s) { out.append(s); }
inline void Append(std::string& out, const char* s) { out.append(s); }
inline void Append(std::string& out, const std::string& s) { out.append(s); }
inline void Append(std::string& out, char c) { out.push_back(c); }
inline void Append(std::string& out, bool b) { out.append(b ? "true" : "false"); }
template <typename T>
requires(std::is_arithmetic_v<T> && !std::same_as<T, bool> &&
         !std::same_as<T, char>) void Append(std::string& out, T v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? end : buf);
}

// Copies `fmt` up to the next `{}` (unescaping braces) and returns the rest
// after it, or an empty view with `found` false when there is none.
inline std::string_view CopyUntilPlaceholder(std::string& out, std::string_view fmt, bool& found) {
  found = false;
  std::size_t i = 0;
  while (i < fmt.size()) {
    const char c = fmt[i];
    if ((c == '{' || c == '}') && i + 1 < fmt.size() && fmt[i + 1] == c) {
      out.push_back(c);
      i += 2;
    } else if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      found = true;
      return fmt.substr(i + 2);
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return {};
}

}  // namespace format_detail

template <typename... Args>
std::string Format(std::string_view fmt, const Args&... args) {
  std::string out;
  out.reserve(fmt.size() + 16 * sizeof...(Args));
  bool found = true;
  auto one = [&](const auto& arg) {
    if (!found) return;
    fmt = format_detail::CopyUntilPlaceholder(out, fmt, found);
    if (found) format_detail::Append(out, arg);
  };
  (one(args), ...);
  if (found) {
    bool more = false;
    while (!fmt.empty()) {
      fmt = format_detail::CopyUntilPlaceholder(out, fmt, more);
      if (more) out.append("{}");
    }
  }
  return out;
}

// `t` as an RFC 3339 UTC timestamp to the second: "2026-11-22T03:04:27Z"
// (reports' started_at, traces' recorded_at).
inline std::string UtcTimestamp(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

}  // namespace llmconform

// Format("{}: expected {}, got {}", a, b, c): fmt's format, checked when the
// code is compiled — a placeholder without an argument, an argument without
// a placeholder, an unbalanced brace or a type fmt cannot print does not
// compile. `{{` and `}}` are literal braces. Throws only std::bad_alloc.
//
// A format string known only at run time is not accepted: build such text
// by concatenation, or pass it as an argument ("{}").
//
// UtcTimestamp(t): the one timestamp format of reports and traces.
#pragma once

#include <fmt/format.h>

#include <ctime>
#include <string>
#include <utility>

namespace llmconform {

template <typename... Args>
std::string Format(fmt::format_string<Args...> format, Args&&... args) {
  return fmt::format(format, std::forward<Args>(args)...);
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

// Text helpers the ThinkingML validator and its blocks share: XML white space,
// trimming, excerpts for messages, and the `<phase id="N">` attribute.
// Internal to protocols/thinkingml. Views returned point into the argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmconform::thinkingml {

// XML's white space (S): space, tab, CR, LF.
inline bool IsXmlSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The offset of the first character of `s` that is not XML white space, or npos.
inline std::size_t FirstNonSpace(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!IsXmlSpace(s[i])) return i;
  }
  return std::string_view::npos;
}

// `s` without XML white space at either end.
inline std::string_view Trim(std::string_view s) {
  const std::size_t b = FirstNonSpace(s);
  if (b == std::string_view::npos) return {};
  std::size_t e = s.size();
  while (e > b && IsXmlSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// `s` shortened for a message to `max_code_points`, cut on a code point
// boundary, made valid UTF-8, with "…" when something was cut.
std::string Excerpt(std::string_view s, std::size_t max_code_points = 40);

// The id of `<phase …>` from its attribute text, or an explanation of why the
// attributes are not exactly ` id="N"` (whitespace as XML allows it).
struct PhaseId {
  std::optional<std::int64_t> id;
  std::string problem;  // empty when well-formed
};

PhaseId ParsePhaseId(std::string_view attributes);

}  // namespace llmconform::thinkingml
